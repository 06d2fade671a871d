// The engine settings a serving estimate runs with (docs/model.md, "Engine settings"): the
// engine's policy for the GPU and version, its cap on sequences, max_model_len and chunked
// prefill; and the engine as bands key it for a version older than its calibrated runs
// (docs/accuracy.md, "Engine versions").

#include <rightsize/core/version.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize {

long long max_model_len(const Spec& spec) {
  const auto& inf = spec.workload.inference;
  const long long request = inf.longest_request();
  const long long model = spec.model.max_position > 0 ? spec.model.max_position : request;
  return std::max(request, inf.max_model_len.value_or(model));
}

bool chunks_prefill(const Spec& spec, const EngineMemoryPolicy& policy) {
  if (const auto given = spec.workload.inference.chunked_prefill) {
    return *given;
  }
  switch (policy.chunked_prefill) {
  case ChunkedPrefill::on:
    return true;
  case ChunkedPrefill::off:
    return false;
  case ChunkedPrefill::long_context:
    // vLLM V0 (PR #6666): chunked prefill turns itself on above 32K tokens of context.
    return max_model_len(spec) > 32768;
  }
  return true;
}

const EngineMemoryPolicy& engine_policy(const Spec& spec, const Gpu& gpu, const Constants& c) {
  const auto& inf = spec.workload.inference;
  return c.engine(inf.engine, gpu, inf.engine_version.value_or(""));
}

std::optional<long long> engine_cap(const Spec& spec, const EngineMemoryPolicy& policy) {
  if (!policy.max_sequences) {
    return std::nullopt; // transformers: no scheduler, no cap
  }
  return spec.workload.inference.max_num_seqs.value_or(
      static_cast<long long>(policy.max_sequences->value));
}

std::string engine_band_key(const Spec& spec, const Efficiency& eff) {
  std::string name = engine_name(spec);
  const auto& version = spec.workload.inference.engine_version;
  if (!version || spec.workload.is_training()) {
    return name;
  }
  const auto it = eff.engines.find(name);
  if (it == eff.engines.end() || it->second.oldest_version.empty()) {
    return name;
  }
  const auto given = parse_version(*version);
  const auto oldest = parse_version(it->second.oldest_version);
  if (given && oldest && version_less(*given, *oldest)) {
    return fmt::format("{} {} (older than the {}-{} runs fitted)",
                       name,
                       *version,
                       it->second.oldest_version,
                       it->second.newest_version);
  }
  return name;
}

} // namespace rightsize
