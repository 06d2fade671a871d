// A spec's outcome: its plan and its locked configuration against the lock, and what --update
// makes of it.

#include "figures.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <filesystem>

namespace rightsize {

std::string Cause::text() const {
  std::vector<std::string> parts;
  if (spec) {
    parts.emplace_back("spec");
  }
  if (catalog) {
    parts.emplace_back("catalog");
  }
  if (model) {
    parts.emplace_back("rightsize's model");
  }
  if (settings) {
    parts.emplace_back("settings");
  }
  if (calibration) {
    parts.emplace_back("the site calibration");
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  if (out.empty()) {
    return unknown ? "nothing changed that the lock records (it predates settings and model "
                     "digests: re-lock)"
                   : "nothing changed";
  }
  return out + " changed";
}

namespace {

void set_status(CheckResult& r) {
  r.status = r.crossed.empty()
                 ? (r.warnings.empty() && !r.recommendation_changed ? "ok" : "warning")
                 : "regression";
  r.exit_code = r.crossed.empty() ? 0 : 1;
}

} // namespace

CheckResult compare_with_lock(const Plan& plan,
                              const LockEntry& lock,
                              const ConfigurationEvaluation* locked_now,
                              const Cause& cause,
                              const CheckThresholds& t) {
  CheckResult r;
  r.cause = cause;
  r.locked = lock.recommended;
  if (plan.feasible()) {
    r.now = configuration_of(plan.candidates.front());
  }
  // The locked configuration on the spec and catalog as they are now.
  std::optional<LockedConfiguration> locked_after;
  if (lock.recommended && locked_now != nullptr) {
    if (locked_now->candidate) {
      locked_after = configuration_of(*locked_now->candidate);
    }
    if (!locked_now->problem.empty()) {
      r.locked_problem = locked_now->problem;
      // A configuration that fitted and no longer does always fails (docs/ci.md); one that
      // misses a target fails as that target's check.
      const std::string& kind = locked_now->problem_kind;
      const std::string check = kind == "memory"                          ? "memory"
                                : kind == "latency" || kind == "deadline" ? "latency"
                                : kind == "throughput"                    ? "throughput"
                                                                          : "infeasible";
      const std::string line = fmt::format("{}: the locked configuration, {}, {}",
                                           check,
                                           configuration_text(*lock.recommended),
                                           locked_now->problem);
      // Memory, a GPU gone from the catalog and one the catalog has no rate for the locked
      // precision always fail: the locked deployment cannot run, or cannot be judged.
      if (check == "memory" || kind == "gone" || kind == "precision" || t.fails_on(check)) {
        r.crossed.push_back({check, line});
      } else {
        r.warnings.push_back(line);
      }
    }
  }
  if (!plan.feasible()) {
    r.status = "infeasible";
    r.crossed.push_back({"infeasible",
                         lock.feasible
                             ? "infeasible: no GPU configuration satisfies the spec any more"
                             : "infeasible: no GPU configuration satisfies the spec"});
    r.exit_code = t.fails_on("infeasible") ? 3 : 0;
    return r;
  }
  if (!lock.recommended) {
    r.basis = "new recommendation";
    r.warnings.push_back("feasible now; the lock recorded nothing feasible");
    set_status(r);
    return r;
  }
  r.recommendation_changed = !same_configuration(*lock.recommended, *r.now);
  if (locked_after && r.locked_problem.empty()) {
    // Same configuration, new figures.
    r.basis = "locked configuration";
    r.compared = locked_after;
    detail::compare_figures(r, *lock.recommended, *locked_after, t);
    if (r.recommendation_changed) {
      const std::string line = fmt::format(
          "gpu-change: a different configuration is now best: {} at {} ({} for the locked one)",
          configuration_text(*r.now),
          format_usd_per_hour(usd_per_hour(r.now->usd_per_hour)),
          format_usd_per_hour(usd_per_hour(locked_after->usd_per_hour)));
      (t.fails_on("gpu-change") ? r.crossed.push_back({"gpu-change", line})
                                : r.warnings.push_back(line));
    }
  } else {
    // The locked configuration no longer serves: what it takes now against what was locked.
    r.basis = "new recommendation";
    r.compared = r.now;
    detail::compare_figures(r, *lock.recommended, *r.now, t);
    if (r.recommendation_changed) {
      const std::string line = fmt::format("gpu-change: {} -> {}",
                                           configuration_text(*lock.recommended),
                                           configuration_text(*r.now));
      (t.fails_on("gpu-change") ? r.crossed.push_back({"gpu-change", line})
                                : r.warnings.push_back(line));
    }
  }
  set_status(r);
  return r;
}

CheckResult unchanged_result(const LockEntry& lock, const CheckThresholds& t) {
  CheckResult r;
  r.locked = lock.recommended;
  r.now = lock.recommended;
  r.compared = lock.recommended;
  if (!lock.feasible) {
    r.status = "infeasible";
    r.crossed.push_back({"infeasible", "infeasible: no GPU configuration satisfies the spec"});
    r.exit_code = t.fails_on("infeasible") ? 3 : 0;
    return r;
  }
  r.basis = "locked configuration";
  // The figures are the lock's; the thresholds on figures alone (memory headroom) still apply.
  detail::compare_figures(r, *lock.recommended, *lock.recommended, t);
  set_status(r);
  return r;
}

CheckResult added_result(const Plan& plan, const CheckThresholds& t) {
  CheckResult r;
  r.status = "added";
  r.basis = "new recommendation";
  if (plan.feasible()) {
    r.now = configuration_of(plan.candidates.front());
    r.compared = r.now;
  }
  const std::string line = plan.feasible()
                               ? fmt::format("added: {} at {}",
                                             configuration_text(*r.now),
                                             format_usd_per_hour(usd_per_hour(r.now->usd_per_hour)))
                               : "added: nothing feasible";
  if (t.fails_on("added")) {
    r.crossed.push_back({"added", line});
    r.exit_code = 1;
  }
  if (!plan.feasible() && t.fails_on("infeasible")) {
    r.crossed.push_back({"infeasible", "infeasible: no GPU configuration satisfies the spec"});
    r.exit_code = 3;
  }
  return r;
}

CheckResult removed_result(const std::string& key,
                           const std::string& lock_file,
                           const LockEntry& entry,
                           const CheckThresholds& t,
                           bool dropped) {
  CheckResult r;
  r.spec_file = (std::filesystem::path(lock_file).parent_path() / key).string();
  r.lock_file = lock_file;
  r.status = "removed";
  r.locked = entry.recommended;
  if (!dropped && t.fails_on("removed")) {
    r.crossed.push_back(
        {"removed",
         fmt::format("removed: the lock has an entry for {}, whose spec is gone{}",
                     key,
                     entry.recommended ? " (" + configuration_text(*entry.recommended) + ")"
                                       : "")});
    r.exit_code = 1;
  }
  return r;
}

void accept_update(CheckResult& r) {
  r.exit_code = 0;
  if (r.status == "added") {
    r.crossed.clear(); // a new spec's plan is locked as it is
    r.written = r.now.has_value();
    return;
  }
  // Accepted: what moved is reported, nothing fails.
  r.status = r.changes.empty() && !r.recommendation_changed ? "ok" : "updated";
  for (const auto& x : r.crossed) {
    r.warnings.push_back("accepted: " + x.text);
  }
  r.crossed.clear();
  for (auto& change : r.changes) {
    change.crossed = false;
  }
  if (r.recommendation_changed && r.now) {
    r.warnings.push_back("the lock now holds " + configuration_text(*r.now));
  }
}

int worse_exit_code(int a, int b) {
  const auto rank = [](int code) { return code == 2 ? 3 : code == 3 ? 2 : code == 1 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

} // namespace rightsize
