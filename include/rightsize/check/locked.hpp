#pragma once

// Deploying what a lock holds (rightsize deploy --lock; docs/deploy.md): the configuration locked
// for a spec and the settings its plan was made with, the spec held to the locked formats, and
// the locked configuration found again among a fresh plan's candidates.

#include <rightsize/check/configuration.hpp>
#include <rightsize/check/settings.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

struct LockedPlan {
  std::string lock_path;
  LockedConfiguration configuration; // the entry's recommended configuration
  // The entry's settings with the command line's over them; none when the entry records none
  // (a schema 1 lock): the command line's settings stand.
  std::optional<PlanSettings> settings;
};

// The entry of `spec_file` in `lock_path`, which must exist, must have the entry, and the entry a
// recommended configuration (InputError naming the lock otherwise). `given`: the settings given
// on the command line (settings_to_json's keys), over the entry's.
LockedPlan read_locked_plan(const std::string& lock_path,
                            const std::string& spec_file,
                            const nlohmann::json& given);

// The spec planned in the locked formats: the checkpoint stays as stored, and the locked weight
// format is the one variant allowed. A format name rightsize does not know is an InputError at
// the lock file.
void restrict_to_locked_formats(const LockedPlan& locked, Spec& spec);

// The locked configuration among `plan`'s candidates (the plan made with the locked formats): the
// first with the same replica (same_configuration, Sameness::replica), at the lock's replica
// count; when the plan now needs another count, `notes` says so. InputError when the plan no
// longer finds that replica at all.
Candidate
locked_candidate(const Plan& plan, const LockedPlan& locked, std::vector<std::string>& notes);

} // namespace rightsize
