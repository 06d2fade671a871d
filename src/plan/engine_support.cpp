// Engine support in the search: a precision the spec's engine cannot run on a GPU's generation is
// not offered. Data and rules: data/engines.json, docs/catalog.md "Engine support".

#include "search.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::detail {

bool engine_runs(const Search& S, const Spec& spec, const Gpu& g, Miss& miss) {
  // Training frameworks are not in the engine table: serving engines only. What a trainer
  // needs of the GPU itself is fp8 math for fp8 weights (Transformer Engine, torchao: sm89+,
  // the catalog's fp8 rate); a Turing T4 or an Ampere A100 has none.
  if (spec.workload.is_training()) {
    if (spec.precision.weights != DType::fp8 || g.rate(TensorPrecision::fp8)) {
      return true;
    }
    miss.consider({"engine_support",
                   fmt::format("{} ({}) has no fp8 math for fp8 training weights (Transformer "
                               "Engine and torchao need sm89+; the catalog lists no fp8 rate)",
                               g.name,
                               g.generation),
                   "bf16 or fp16 weights, or QLoRA's nf4",
                   1e299});
    return false;
  }
  if (S.options.engines == nullptr) {
    return true;
  }
  const Engine engine = spec.workload.inference.engine;
  const Precision& pr = spec.precision;
  const auto ask = [&] {
    std::string reason = engine_refusal(spec, g, S.options.engines);
    return EvaluationCache::EngineAnswer{g.generation,
                                         engine,
                                         pr.weights,
                                         pr.kv_cache,
                                         pr.activations,
                                         reason.empty(),
                                         std::move(reason)};
  };
  EvaluationCache::EngineAnswer asked;
  const EvaluationCache::EngineAnswer* known = nullptr;
  if (S.cache != nullptr) {
    known = &remembered(
        S.cache->engine_answers,
        [&](const EvaluationCache::EngineAnswer& a) {
          return a.engine == engine && a.weights == pr.weights && a.kv_cache == pr.kv_cache &&
                 a.activations == pr.activations && a.generation == g.generation;
        },
        ask);
  } else {
    asked = ask();
    known = &asked;
  }
  const EvaluationCache::EngineAnswer& answer = *known;
  if (answer.runs) {
    return true;
  }
  // Below any real miss: one that ran and missed a target explains the GPU better.
  miss.consider(
      {"engine_support", answer.reason, "another precision (precision.allow) or engine", 1e299});
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
