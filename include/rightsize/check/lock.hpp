#pragma once

// Lock files and sizing-regression checks (rightsize plan --lock, rightsize check; docs/ci.md).
// A lock records what a plan recommended and why; check re-plans and compares.

#include <rightsize/plan/plan.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// The key figures of one configuration, as locked.
struct LockedConfiguration {
  std::string gpu;
  int gpus = 0;
  int replicas = 1;
  Parallelism layout;
  std::string weights; // dtype names
  std::string kv_cache;
  double memory_per_gpu_bytes = 0;
  double memory_budget_bytes = 0;
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::optional<double> output_tokens_per_s;
  std::optional<double> step_time_s;
  std::optional<double> time_to_train_hours;
  double usd_per_hour = 0;
  std::optional<double> usd_per_million_tokens;
  double tco_usd = 0;
};

struct LockEntry {
  std::string spec_digest; // of the normalized model and workload (digest_spec)
  std::string catalog_version;
  std::string catalog_digest;
  std::string objective;
  bool feasible = false;
  std::optional<LockedConfiguration> recommended;
  std::vector<LockedConfiguration> alternatives;
};

// Digest of everything about a spec that changes its plan: the normalized model (architecture,
// parameters, quantization) and workload, precision, constraints and deployment.
std::string digest_spec(const Spec& spec);

LockEntry make_lock_entry(const Plan& plan);
nlohmann::json lock_entry_to_json(const LockEntry& e);
// Reads one entry; `where` names the file and pointer in errors.
LockEntry
parse_lock_entry(const nlohmann::json& j, const std::string& file, const std::string& pointer);

// A lock file: {"schema_version": 1, "rightsize_version": ..., "locks": {"<spec file name>":
// entry}}.
struct LockFile {
  std::string path;
  std::map<std::string, LockEntry> entries;
};
// The key of a spec's entry: its file name, with bytes that are not UTF-8 replaced by U+FFFD (a
// lock file is JSON text), so that writing and reading find the same entry.
std::string lock_key(const std::string& spec_file);
// Missing file: an empty lock (allow_missing) or an InputError. Corrupt files: InputError.
LockFile read_lock_file(const std::string& path, bool allow_missing);
// Written atomically (core/files.hpp): a failure leaves the previous lock file as it was.
void write_lock_file(const LockFile& lock);

struct CheckThresholds {
  double max_cost_increase = 0.10;    // relative
  double max_latency_increase = 0.20; // relative
  std::vector<std::string> fail_on{"infeasible", "memory", "cost", "latency"};
  [[nodiscard]] bool fails_on(const std::string& what) const;
};

struct Change {
  std::string figure; // "TCO", "$/hour", "TTFT", "memory per GPU", "GPU", ...
  std::string before;
  std::string after;
  std::optional<double> relative; // after / before - 1
};

struct CheckResult {
  std::string spec_file;
  std::string lock_file;
  std::string status;                // ok, warning, regression, infeasible
  std::vector<std::string> crossed;  // thresholds crossed: "cost: TCO +34% > 10%"
  std::vector<std::string> warnings; // changes under their threshold
  std::string cause;                 // "spec changed", "catalog changed (prices moved)", both, none
  std::vector<Change> changes;
  int exit_code = 0;
};

// Compares a fresh plan with its lock entry. `locked_config_now` is the locked configuration
// re-evaluated on the current spec (nullopt when the locked GPU is gone from the catalog).
CheckResult compare_with_lock(const Plan& plan,
                              const LockEntry& lock,
                              const std::optional<MemoryEstimate>& locked_config_now,
                              const CheckThresholds& t);

} // namespace rightsize
