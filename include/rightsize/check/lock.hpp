#pragma once

// Lock files and sizing-regression checks (rightsize plan --lock, rightsize check; docs/ci.md).
// A lock records what a plan recommended and why; check re-plans and compares.

#include <rightsize/plan/evaluate.hpp>
#include <rightsize/plan/plan.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// The key figures of one configuration, as locked.
struct LockedConfiguration {
  std::string gpu; // catalog name, or "<name> <MIG profile>"
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
  std::optional<double> usd_per_month; // the first month (absent in schema 1 locks)
  std::optional<long long> batch;      // serving: sequences per replica (absent in schema 1)
  // Workloads that decode no tokens of their own, or whose unit is not a token (embeddings,
  // image embeddings, transcription): their request latency, throughput in their own unit and
  // unit price; ttft_ms, tpot_ms, output_tokens_per_s and usd_per_million_tokens stay empty.
  // Absent from locks written before 2026-11-27, which put the latency under ttft_ms.
  std::optional<double> latency_ms;
  std::optional<double> sequences_per_s;     // text embeddings
  std::optional<double> images_per_s;        // image embeddings
  std::optional<double> audio_seconds_per_s; // transcription
  std::optional<double> usd_per_million_input_tokens;
  std::optional<double> usd_per_thousand_images;
  std::optional<double> usd_per_audio_hour;
};

// The figures of a candidate as a lock records them.
LockedConfiguration configuration_of(const Candidate& c);
// A configuration as lock files and check reports write it.
nlohmann::json configuration_to_json(const LockedConfiguration& l);
// "2 x L40S-48GB (TP1 PP1 DP1)".
std::string configuration_text(const LockedConfiguration& l);
// Whether two configurations are the same deployment: GPU, layout, replicas and formats.
bool same_configuration(const LockedConfiguration& a, const LockedConfiguration& b);

struct LockEntry {
  std::string spec_digest; // of the normalized model and workload (digest_spec)
  std::string catalog_version;
  std::string catalog_digest;
  // Digest of rightsize's own model data (memory, efficiency, uncertainty, engine tables and
  // --assume overrides); empty in schema 1 locks.
  std::string model_digest;
  // The settings that shaped the plan (objective, confidence, deployment overrides, --assume),
  // as rightsize check replays them; null in schema 1 locks (the defaults).
  nlohmann::json settings;
  std::string objective;
  bool feasible = false;
  std::optional<LockedConfiguration> recommended;
  std::vector<LockedConfiguration> alternatives;
};

// Digest of everything about a spec that changes its plan: the normalized model (architecture,
// parameters, quantization) and workload, precision, constraints and deployment.
std::string digest_spec(const Spec& spec);

// `spec_digest`: of the spec as written, before command-line settings (so that a settings change
// is not also a spec change); empty: of the plan's spec.
LockEntry make_lock_entry(const Plan& plan,
                          const std::string& model_digest = {},
                          const nlohmann::json& settings = nullptr,
                          const std::string& spec_digest = {});
nlohmann::json lock_entry_to_json(const LockEntry& e);
// Reads one entry; `where` names the file and pointer in errors.
LockEntry
parse_lock_entry(const nlohmann::json& j, const std::string& file, const std::string& pointer);

// A lock file: {"schema_version": 2, "rightsize_version": ..., "locks": {"<spec file name>":
// entry}}. Schema 1 files are read too (no settings, no model digest).
struct LockFile {
  std::string path;
  std::string rightsize_version; // of the rightsize that wrote it
  std::map<std::string, LockEntry> entries;
  // Read leniently: the entries that could not be read, with their one-line error and their JSON
  // (written back as they were unless replaced), so that one bad entry is its spec's error only.
  std::map<std::string, std::string> bad_entries;
  std::map<std::string, nlohmann::json> bad_json;
};
// The key of a spec's entry: its file name, with bytes that are not UTF-8 replaced by U+FFFD (a
// lock file is JSON text), so that writing and reading find the same entry.
std::string lock_key(const std::string& spec_file);
// Missing file: an empty lock (allow_missing) or an InputError. Corrupt files: InputError; with
// `lenient`, an entry that cannot be read goes to bad_entries instead (the file itself must
// still be a lock file).
LockFile read_lock_file(const std::string& path, bool allow_missing, bool lenient = false);
// Written atomically (core/files.hpp): a failure leaves the previous lock file as it was.
void write_lock_file(const LockFile& lock);

// Thresholds per metric, relative (0.1 = 10%), and which checks fail the job (docs/ci.md).
struct CheckThresholds {
  double cost = 0.10;           // rise of $/hour or TCO
  double ttft = 0.20;           // rise
  double tpot = 0.20;           // rise
  double time_to_train = 0.20;  // rise
  double throughput = 0.10;     // drop of output tokens/s
  double gpus = 0.0;            // rise of the GPU count
  double memory_headroom = 0.0; // the least share of the memory budget left free
  std::vector<std::string> fail_on{"infeasible", "memory", "cost", "latency", "throughput"};
  [[nodiscard]] bool fails_on(const std::string& what) const;
};
// Every name --fail-on and the config file accept.
const std::vector<std::string>& check_names();
// A threshold as written: "10%" or a fraction from 0 to 1; InputError at `where` otherwise.
double parse_threshold(const std::string& text, const std::string& where);
// Check names, each known (InputError at `where` with a suggestion otherwise).
std::vector<std::string> parse_fail_on(const std::vector<std::string>& items,
                                       const std::string& where);
// The repository's check config (.rightsize.json: schema_version 1, thresholds, fail_on),
// applied over `t`. InputError naming the file and field for anything else.
void read_check_config(const std::string& path, CheckThresholds& t);

// One figure, locked and now, as numbers and as text.
struct Change {
  std::string metric; // usd_per_hour, tco_usd, usd_per_month, ttft_ms, tpot_ms, ...
  std::string label;  // "$/hour", "TCO", "TTFT", ...
  std::string unit;   // "USD/h", "ms", ...
  double before = 0;
  double after = 0;
  std::string before_text;
  std::string after_text;
  std::optional<double> threshold; // relative, when one applies to this metric
  bool crossed = false;
  [[nodiscard]] double delta() const { return after - before; }
  [[nodiscard]] std::optional<double> relative() const {
    return before > 0 ? std::optional<double>(after / before - 1.0) : std::nullopt;
  }
};

// A threshold crossed: the check it belongs to (cost, latency, throughput, gpus, memory,
// infeasible, gpu-change, added, removed) and one line.
struct Crossing {
  std::string check;
  std::string text;
};

// What changed since the lock.
struct Cause {
  bool spec = false;
  bool catalog = false;
  bool model = false;    // rightsize's model data (or --assume)
  bool settings = false; // the options the plan is made with
  bool unknown = false;  // a schema 1 lock: model and settings not recorded
  [[nodiscard]] std::string text() const;
};

struct CheckResult {
  std::string spec_file;
  std::string lock_file;
  // ok, warning, regression, infeasible; added (no lock entry yet), removed (a lock entry whose
  // spec is gone), error (the spec could not be read or planned).
  std::string status;
  std::string error; // status error: the one-line message
  Cause cause;
  // What the figures compare: "locked configuration" (the locked configuration re-evaluated
  // on the spec and catalog as they are now: same configuration, new figures) or "new
  // recommendation" (the locked configuration no longer meets the spec, so the figures are the
  // new recommendation's against the lock's).
  std::string basis;
  std::optional<LockedConfiguration> locked;   // as the lock recorded it
  std::optional<LockedConfiguration> now;      // the plan's recommendation now
  std::optional<LockedConfiguration> compared; // the "after" of the figures (see basis)
  bool recommendation_changed = false;
  std::string locked_problem; // why the locked configuration no longer meets the spec
  std::vector<Crossing> crossed;
  std::vector<std::string> warnings; // changes under their threshold
  std::vector<Change> changes;
  int exit_code = 0;
};

// Compares a fresh plan with its lock entry. `locked_now` is the locked configuration
// re-evaluated on the spec and catalog as they are now (plan/evaluate.hpp); null when the lock
// has none.
CheckResult compare_with_lock(const Plan& plan,
                              const LockEntry& lock,
                              const ConfigurationEvaluation* locked_now,
                              const Cause& cause,
                              const CheckThresholds& t);
// A spec whose plan inputs are all as locked (spec, catalog, model data, settings, rightsize
// version): its plan is the lock's, reported without being made again.
CheckResult unchanged_result(const LockEntry& lock, const CheckThresholds& t);
// A spec without a lock entry: its plan as it would be locked.
CheckResult added_result(const Plan& plan, const CheckThresholds& t);

} // namespace rightsize
