// The formats a configuration computes and stores on a GPU, one rule for plan and estimate
// (docs/plan.md, "Formats per GPU generation").

#include <rightsize/plan/generation_formats.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace rightsize {

namespace {

// Model families known to misbehave in fp16, by config.json model_type. Sources (read for
// issue 43, /work/research/frameworks/precision_by_generation.json "fp16_risk"):
// - T5: huggingface/transformers #4287, #4586, #5651 ("T5 fp16 overflow in forward": 66246.39 at
//   the FFN's wo, over fp16's 65504), #11461; transformers keeps wo in fp32 (PR #20683).
// - Gemma 3: transformers #36822 ("Gemma 3 is broken with fp16"), PR #37226 ("activations go
//   beyond the range of FP16").
// - Qwen2/2.5: QwenLM/Qwen3 #868 (maintainer: "trained using bfloat16, changing to float16 may
//   cause numerical instabilities"), vllm-project/vllm #14126.
// - GLM-4-0414: vllm-project/vllm #17154 ("numerical stability issues when using float16").
struct Fp16Risk {
  std::array<std::string_view, 3> model_types;
  std::string_view what;
};
constexpr std::array<Fp16Risk, 4> k_fp16_risks{{
    {{"t5", "mt5", "umt5"},
     "T5 is known to overflow to inf/NaN in fp16 (transformers #4586, #5651)"},
    {{"gemma3", "gemma3_text", "gemma3n"},
     "Gemma 3's activations exceed fp16's range (transformers #36822, #37226)"},
    {{"qwen2", "", ""},
     "Qwen2 was trained in bf16 and may overflow in fp16 (QwenLM/Qwen3 #868, vLLM #14126)"},
    {{"glm4", "", ""}, "GLM-4 is numerically unstable in fp16 (vLLM #17154)"},
}};

DType fp16_for(DType d) {
  return d == DType::bf16 ? DType::fp16 : d;
}

} // namespace

bool computes_bf16(const Spec& spec, const Gpu& gpu, const EngineSupport* engines) {
  // A generation the engine data does not know: the catalog's rates speak for it.
  if (!spec.workload.is_training() && engines != nullptr &&
      engines->generations.count(gpu.generation) > 0) {
    if (const EngineInfo* e = engines->find(to_string(spec.workload.inference.engine))) {
      return std::any_of(e->math.begin(), e->math.end(), [&](const EngineFormatRow& r) {
        return r.format == "bf16" &&
               std::find(r.generations.begin(), r.generations.end(), gpu.generation) !=
                   r.generations.end();
      });
    }
  }
  return gpu.rate(TensorPrecision::bf16).has_value();
}

bool uses_bf16(const Spec& spec) {
  if (spec.workload.is_training()) {
    const TrainingPrecision& t = spec.workload.training.precision;
    return t.weights == DType::bf16 || t.compute == DType::bf16;
  }
  const Precision& p = spec.precision;
  return p.weights == DType::bf16 || p.kv_cache == DType::bf16 || p.activations == DType::bf16 ||
         spec.weights.high_precision == DType::bf16;
}

Spec in_fp16(Spec spec) {
  Precision& p = spec.precision;
  if (p.activations_stated()) {
    p.activations_stated_for = fp16_for(p.weights);
  }
  p.weights = fp16_for(p.weights);
  p.kv_cache = fp16_for(p.kv_cache);
  p.activations = fp16_for(p.activations);
  spec.weights.dtype = fp16_for(spec.weights.dtype);
  spec.weights.high_precision = fp16_for(spec.weights.high_precision);
  TrainingPrecision& t = spec.workload.training.precision;
  t.weights = fp16_for(t.weights);
  t.compute = fp16_for(t.compute);
  return spec;
}

std::string bf16_note(const Spec& spec, const Gpu& gpu, const EngineSupport* engines) {
  if (!uses_bf16(spec) || computes_bf16(spec, gpu, engines)) {
    return {};
  }
  std::string note = fmt::format("{} ({}) has no bf16: {} runs in fp16 (same size)",
                                 gpu.name,
                                 gpu.generation,
                                 spec.model.name);
  if (const std::string risk = fp16_risk(spec.model); !risk.empty()) {
    note += fmt::format(", where {}; prefer a GPU with bf16 (Ampere or newer) or fp32", risk);
  }
  return note;
}

FormatsOnGpu formats_on_gpu(const Spec& spec, const Gpu& gpu, const EngineSupport* engines) {
  std::string note = bf16_note(spec, gpu, engines);
  if (note.empty()) {
    return {spec, {}};
  }
  return {in_fp16(spec), std::move(note)};
}

std::string
engine_refusal(const Spec& spec, const Gpu& gpu, const EngineSupport* engines, bool known_only) {
  if (engines == nullptr || spec.workload.is_training()) {
    return {};
  }
  const Precision& pr = spec.precision;
  // The engine table names math formats: every 4-bit float activation is fp4 math there. A
  // workload that keeps no KV cache asks nothing of it.
  const std::string math =
      element_bits(pr.activations) == 4 ? "fp4" : std::string(to_string(pr.activations));
  const SupportAnswer a =
      supports(*engines,
               to_string(spec.workload.inference.engine),
               gpu,
               to_string(pr.weights),
               spec.keeps_kv_cache() ? to_string(pr.kv_cache) : std::string_view(),
               math);
  if (a.runs() || (known_only && a.status == SupportStatus::unknown)) {
    return {};
  }
  return a.reason;
}

std::string fp16_risk(const ModelArch& model) {
  for (const Fp16Risk& r : k_fp16_risks) {
    if (!model.family.empty() &&
        std::find(r.model_types.begin(), r.model_types.end(), model.family) !=
            r.model_types.end()) {
      return std::string(r.what);
    }
  }
  return {};
}

} // namespace rightsize
