// What deploy --lock takes from a lock.

#include <rightsize/check/lock.hpp>
#include <rightsize/check/locked.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

namespace rightsize {

LockedPlan read_locked_plan(const std::string& lock_path,
                            const std::string& spec_file,
                            const nlohmann::json& given) {
  const LockFile lock = read_lock_file(lock_path, /*allow_missing=*/false);
  const auto it = lock.entries.find(lock_key(spec_file));
  if (it == lock.entries.end()) {
    throw InputError(lock_path,
                     "has no lock for " + lock_key(spec_file) +
                         "; create it with 'rightsize plan " + spec_file + " --lock'");
  }
  if (!it->second.recommended) {
    throw InputError(lock_path,
                     "locks no configuration for " + lock_key(spec_file) +
                         ": nothing was feasible when it was written");
  }
  LockedPlan locked{lock_path, *it->second.recommended, std::nullopt};
  if (!it->second.settings.is_null()) {
    locked.settings = replay_settings(it->second.settings, given, lock_path, spec_file);
  }
  return locked;
}

void restrict_to_locked_formats(const LockedPlan& locked, Spec& spec) {
  const auto dtype = [&](const std::string& name, const char* field) {
    const auto d = parse_dtype(name);
    if (!d) {
      throw InputError(locked.lock_path + ":" + field, "unknown format \"" + name + "\"");
    }
    return *d;
  };
  const DType weights = dtype(locked.configuration.weights, "weights");
  dtype(locked.configuration.kv_cache, "kv_cache");
  spec.precision.allow.clear();
  if (weights != spec.precision.weights) {
    spec.precision.allow.push_back(weights);
  }
}

Candidate
locked_candidate(const Plan& plan, const LockedPlan& locked, std::vector<std::string>& notes) {
  const LockedConfiguration& l = locked.configuration;
  for (const Candidate& c : plan.candidates) {
    if (!same_configuration(configuration_of(c), l, Sameness::replica)) {
      continue;
    }
    if (l.prefill_replicas > 0) {
      // Disaggregated: the pools are the lock's only when the plan sizes them the same today.
      const int prefills = c.disaggregation->pools.layout.prefill.replicas;
      if (prefills != l.prefill_replicas || c.replicas != l.replicas) {
        throw InputError(
            locked.lock_path,
            fmt::format("the locked configuration, {}, is sized differently for the spec as it "
                        "is now ({} prefill + {} decode replicas): see rightsize check "
                        "--replan, and re-lock with rightsize check --replan --update",
                        configuration_text(l),
                        prefills,
                        c.replicas - prefills));
      }
      return c;
    }
    Candidate out = c;
    if (c.replicas != l.replicas) {
      notes.push_back(fmt::format("{}: the spec now needs {} replicas of the locked "
                                  "configuration, the lock says {}: deploying {} (rightsize "
                                  "check reports the change)",
                                  locked.lock_path,
                                  c.replicas,
                                  l.replicas,
                                  l.replicas));
      out.replicas = l.replicas;
    }
    return out;
  }
  throw InputError(locked.lock_path,
                   fmt::format("the locked configuration, {}, is no longer one the plan finds "
                               "for the spec as it is now; see rightsize check, and re-lock "
                               "with rightsize check --update",
                               configuration_text(l)));
}

} // namespace rightsize
