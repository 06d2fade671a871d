// Engine support in the search: a precision the spec's engine cannot run on a GPU's generation is
// not offered. Data and rules: data/engines.json, docs/catalog.md "Engine support".

#include "search.hpp"

#include <fmt/format.h>

namespace rightsize::detail {

bool engine_runs(const Search& S, const Spec& spec, const Gpu& g, Miss& miss) {
  if (S.options.engines == nullptr) {
    return true;
  }
  // Training frameworks are not in the engine table: serving engines only.
  if (spec.workload.is_training()) {
    return true;
  }
  const SupportAnswer a = supports(*S.options.engines,
                                   to_string(spec.workload.inference.engine),
                                   g,
                                   to_string(spec.precision.weights),
                                   to_string(spec.precision.kv_cache),
                                   to_string(spec.precision.activations));
  if (a.runs()) {
    return true;
  }
  // Below any real miss: one that ran and missed a target explains the GPU better.
  miss.consider(
      {"engine_support", a.reason, "another precision (precision.allow) or engine", 1e299});
  return false;
}

} // namespace rightsize::detail
