// Which engine recipe serves a spec's workload, and the workloads data/deploy.json has no recipe
// for.

#include "serving.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <fmt/format.h>

namespace rightsize {

using serving::engine_key;

const EngineRecipe& serving_recipe(const Spec& spec, const DeployData& data) {
  const WorkloadUnits units = workload_units(spec);
  if (units.kind == WorkloadKind::image_generation) {
    // diffusers is a library, not a server: data/deploy.json has no recipe that serves it.
    throw InputError(spec.file + ":/workload/type",
                     "rightsize deploy has no image generation recipe (diffusers is a library, "
                     "not a server); `rightsize plan` sizes it");
  }
  if (units.kind == WorkloadKind::transcription) {
    // vLLM serves Whisper (/v1/audio/transcriptions), but data/deploy.json has no transcription
    // recipe yet (its autoscaling metrics speak of tokens and prompts).
    throw InputError(spec.file + ":/workload/type",
                     "rightsize deploy has no transcription recipe yet; `rightsize plan` sizes "
                     "it, and vLLM serves it with `vllm serve <model>` "
                     "(/v1/audio/transcriptions)");
  }
  if (spec.model.encoder_decoder) {
    // Any encoder-decoder left (text to text): a model fact, whatever its workload.
    // T5 is planned on transformers only (docs/spec.md "Text-to-text generation"), which
    // data/deploy.json has no server recipe for; whatever --engine says.
    throw InputError(spec.file + ":/workload/engine",
                     fmt::format("rightsize deploy has no text-to-text recipe for {}: it is "
                                 "planned on transformers, a library with no server recipe "
                                 "(vLLM and SGLang do not run T5, and TensorRT-LLM's "
                                 "encoder-decoder runtime is not modelled); `rightsize plan` "
                                 "sizes it",
                                 spec.model.family));
  }
  const std::string engine = engine_key(spec.workload.inference.engine);
  const auto it = data.engines.find(engine);
  if (it == data.engines.end()) {
    // Of the engines with a recipe, only vLLM serves image embeddings, and only of CLIPModel
    // and SiglipModel (docs/spec.md, "Image embeddings").
    throw InputError(spec.file + ":/workload/engine",
                     fmt::format("engine {} has no serving recipe in data/deploy.json; deploy "
                                 "{}",
                                 engine,
                                 !spec.model.image ? "with --engine vllm, sglang or tensorrt-llm"
                                 : spec.model.image->text > 0
                                     ? "this image encoder with --engine vllm"
                                     : "an image encoder with --engine vllm: a CLIPModel or "
                                       "SiglipModel checkpoint (vLLM serves no vision-only one)"));
  }
  if (units.one_pass() && it->second.arg("embedding").empty()) {
    // What is left of the one-pass workloads is an embedding, of text or of images.
    throw InputError(spec.file + ":/workload/engine",
                     fmt::format("{} has no embedding recipe in data/deploy.json; deploy an "
                                 "embedding workload with --engine vllm or sglang",
                                 engine));
  }
  return it->second;
}

} // namespace rightsize
