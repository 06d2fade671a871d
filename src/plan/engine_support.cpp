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
  // The engine table names math formats: every 4-bit float activation (fp4, nvfp4, mxfp4) is
  // fp4 math there.
  const DType act = spec.precision.activations;
  const std::string math = element_bits(act) == 4 ? "fp4" : std::string(to_string(act));
  const SupportAnswer a = supports(*S.options.engines,
                                   to_string(spec.workload.inference.engine),
                                   g,
                                   to_string(spec.precision.weights),
                                   to_string(spec.precision.kv_cache),
                                   math);
  if (a.runs()) {
    return true;
  }
  // Below any real miss: one that ran and missed a target explains the GPU better.
  miss.consider(
      {"engine_support", a.reason, "another precision (precision.allow) or engine", 1e299});
  return false;
}

bool compute_rate_known(const Spec& spec, const Gpu& g, Miss& miss) {
  const auto missing = missing_compute_rate(spec, g);
  if (!missing) {
    return true;
  }
  miss.consider({"compute_rate",
                 *missing,
                 "bf16 or fp16 weights (precision.weights or precision.allow), or the GPU's FP32 "
                 "rate with --catalog (docs/catalog.md)",
                 1e299});
  return false;
}

} // namespace rightsize::detail
