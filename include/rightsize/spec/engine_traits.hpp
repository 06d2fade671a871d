#pragma once

// What rightsize plans on each serving engine, and how each engine reads a request: one row per
// engine (src/spec/engine_traits.cpp), every fact with its source. The spec reader refuses a
// workload on an engine that rightsize does not plan it on, and names the engines that do; the
// rest of what an engine is lives in data/: its memory policy (data/memory.json "engines",
// estimate/memory.hpp), its per-step costs (data/efficiency.json "engines"), the formats it runs
// per GPU generation (data/engines.json) and its deployment recipe (data/deploy.json).
//
// These facts are a table in the spec stage rather than a data file because the spec stage reads
// no data file (it sits below the stages that load data/), its refusals are raised while the spec
// is read (the first problem of a spec is the one reported), and each says what rightsize's own
// formulas do not model, which changes with the code rather than with an engine's release.

#include <rightsize/spec/spec.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// Whether rightsize plans a kind of model on an engine; when not, why (as the refusal prints it;
// may be empty where the refusal has no room for a reason), and the source either way.
struct EngineVerdict {
  bool plans = true;
  std::string_view why;
  std::string_view source;
};

// Which image encoders (docs/spec.md, "Image embeddings") an engine embeds images with: every one
// (ViT, CLIP, SigLIP, ResNet), only the dual text-and-vision encoders (CLIPModel, SiglipModel), or
// none.
enum class ImageEncoders { all, dual_encoders, none };

// Attention data parallelism on an engine (docs/model.md, "Attention data parallelism"): whether
// it runs it, with what shape, and whether plans choose it (deploy writes its flags).
struct AttentionDpTraits {
  bool runs = false;
  bool one_gpu_groups = false; // attention groups of one GPU each (as many groups as GPUs)
  bool needs_experts = false;  // only for a mixture of experts (a dense model's DP is replicas)
  // Plans search it (deploy writes its flags where its recipe has them), held at the slow edge
  // of the band of the measured attention-DP runs, which were never fitted (docs/plan.md,
  // "Layouts"; docs/accuracy.md, "Attention data parallelism").
  bool planned = false;
  std::string_view why; // why not, when it does not run or is not planned
  std::string_view source;
};

// Speculative decoding and prefix caching on an engine (docs/spec.md, "Speculative decoding"):
// the methods it runs and whether it caches prefixes, with the sources.
struct DecodingFeatures {
  bool mtp = false;
  bool eagle = false;
  bool draft = false;
  std::string_view speculative_source;
  bool prefix_cache = false;
  std::string_view prefix_cache_source;
  [[nodiscard]] bool runs(SpeculativeMethod m) const {
    return m == SpeculativeMethod::mtp ? mtp : m == SpeculativeMethod::eagle ? eagle : draft;
  }
};

struct EngineTraits {
  Engine engine;
  std::string_view display_name; // in sentences: "TensorRT-LLM"
  // Refuses a request longer than the model's context (others serve it with a warning).
  bool enforces_context;
  std::string_view context_source;
  // Computes an fp32 checkpoint in fp16 (transformers keeps fp32).
  bool fp32_in_fp16;
  std::string_view dtype_source;
  EngineVerdict embedding;     // text embeddings (encoder-only models, decoders as embedders)
  EngineVerdict transcription; // Whisper
  EngineVerdict text_to_text;  // T5, mT5, UMT5
  ImageEncoders image_encoders;
  // dual_encoders: why not a vision-only or classifier checkpoint ({} is the model's family).
  std::string_view image_encoders_why;
  std::string_view image_encoders_source;
  AttentionDpTraits attention_dp;
  DecodingFeatures decoding;
  // Disaggregated prefill and decode (docs/model.md, "Disaggregated serving"): separate prefill
  // and decode workers with the KV cache sent between them.
  EngineVerdict disaggregation;
};

// Every engine's row, in the order of k_engine_names.
const std::vector<EngineTraits>& engine_traits();
const EngineTraits& engine_traits(Engine e);

// Why rightsize does not plan each kind of model on `engine`, naming the engines it does plan it
// on; nullopt when it plans it there. (image_engine_refusal, in spec.hpp, does the same for
// image encoders.)
std::optional<std::string> embedding_engine_refusal(Engine engine);
std::optional<std::string> transcription_engine_refusal(Engine engine);
std::optional<std::string> text_to_text_engine_refusal(const ModelArch& model, Engine engine);

} // namespace rightsize
