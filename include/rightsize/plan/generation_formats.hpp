#pragma once

// The formats a configuration computes and stores on a GPU: one rule that plan's search and
// `estimate` both apply, so that estimate refuses what plan rejects and plan never offers a
// format the GPU does not have (docs/plan.md, "Formats per GPU generation").
//
// What varies by generation is data: the serving engine's rows in data/engines.json (which math
// and KV-cache formats it runs on each generation, supports()), and, where no engine row applies
// (training, or no engine data), the catalog's dense rates (a Turing T4 lists fp16 and int8, no
// bf16: NVIDIA T4 datasheet).

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/spec/spec.hpp>

#include <string>

namespace rightsize {

// Whether `gpu` computes and stores bf16 for `spec`: serving, the engine's bf16 math row lists
// the GPU's generation (no engine data, or an engine it has no row for: the catalog's bf16 rate);
// training, the catalog has a bf16 rate for the GPU.
bool computes_bf16(const Spec& spec, const Gpu& gpu, const EngineSupport* engines);

// Whether the spec keeps anything in bf16: its weights, KV cache or activations (serving), or the
// training working copy and GEMM inputs.
bool uses_bf16(const Spec& spec);

// `spec` with each bf16 format it keeps replaced by fp16 (same bytes per element): what engines
// run on a GPU without bf16 (vLLM: "Bfloat16 is only supported on GPUs with compute capability of
// at least 8.0 ... use float16 instead", data/engines.json VLLM_BF16). Weight quantization
// schemes whose high precision is bf16 take fp16.
Spec in_fp16(Spec spec);

// The spec as `gpu` runs it: in_fp16(spec) when it uses bf16 and the GPU does not compute bf16,
// else the spec unchanged. `note` (empty when unchanged) says so in one line, with the caveat of
// fp16_caveat when the model's family is known to overflow in fp16.
struct FormatsOnGpu {
  Spec spec;
  std::string note;
};
FormatsOnGpu formats_on_gpu(const Spec& spec, const Gpu& gpu, const EngineSupport* engines);
// formats_on_gpu's note alone, without copying the spec: empty when `gpu` runs the spec as it is.
std::string bf16_note(const Spec& spec, const Gpu& gpu, const EngineSupport* engines);

// Why `engine` cannot run the spec's formats on `gpu` (serving, data/engines.json; the reason plan
// gives its rejection), or empty when it can, the workload is training, or there is no engine data.
// `known_only`: also empty when the data does not know the engine or generation (estimate, whose
// later checks name the file that lacks the generation).
std::string engine_refusal(const Spec& spec,
                           const Gpu& gpu,
                           const EngineSupport* engines,
                           bool known_only = false);

// A model family known to misbehave in fp16 (overflow to inf/NaN): "T5 is known to overflow to
// inf/NaN in fp16 (transformers #4586, #5651)"; empty for other families.
std::string fp16_risk(const ModelArch& model);

} // namespace rightsize
