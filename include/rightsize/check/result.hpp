#pragma once

// What check says of one spec (docs/ci.md, "Outcomes, one per spec"): its status and exit code,
// the thresholds crossed, the warnings, and each figure, locked and now. Made by comparing a
// fresh plan, and the locked configuration re-evaluated (plan/evaluate.hpp), with the lock.

#include <rightsize/check/configuration.hpp>
#include <rightsize/check/lock.hpp>
#include <rightsize/check/thresholds.hpp>
#include <rightsize/plan/evaluate.hpp>
#include <rightsize/plan/plan.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

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
  bool model = false;       // rightsize's model data (or --assume)
  bool settings = false;    // the options the plan is made with
  bool calibration = false; // the site calibration's content (settings "calibration")
  bool unknown = false;     // a schema 1 lock: model and settings not recorded
  [[nodiscard]] std::string text() const;
};

struct CheckResult {
  std::string spec_file;
  std::string lock_file;
  // ok, warning, regression, infeasible; added (no lock entry yet), removed (a lock entry whose
  // spec is gone), error (the spec could not be read or planned); updated (--update accepted a
  // change).
  std::string status;
  bool written = false; // added under --update: the lock now holds `now`
  std::string error;    // status error: the one-line message
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
// The entry `key` of `lock_file` whose spec file (beside the lock) is gone: status removed; a
// crossing when `removed` is among the checks that fail (exit 1), unless --update `dropped` the
// entry.
CheckResult removed_result(const std::string& key,
                           const std::string& lock_file,
                           const LockEntry& entry,
                           const CheckThresholds& t,
                           bool dropped);

// --update accepts what a result reports: nothing fails (exit 0), each crossing becomes an
// "accepted: ..." warning, and the status is "updated" when anything moved ("ok" otherwise) or
// "added" for a spec the lock did not have.
void accept_update(CheckResult& r);

// The worse of two exit codes: 2 (bad input), then 3 (infeasible), then 1 (regression), then 0.
int worse_exit_code(int a, int b);

} // namespace rightsize
