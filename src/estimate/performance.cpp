// The performance model. Formulas and sources: docs/model.md, "Performance".

#include "bundled.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/performance.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

// --- Efficiency data --------------------------------------------------------------------------

Efficiency Efficiency::from_json(const nlohmann::json& j, const std::string& file) {
  const FieldReader root(j, file);
  root.reject_unknown({"schema_version",
                       "description",
                       "families",
                       "generations",
                       "engines",
                       "interconnect",
                       "training",
                       "fitted_on"});
  if (root.integer("schema_version", Range::positive(1e6)) != 1) {
    root.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
  }
  Efficiency e;
  const auto families = root.object("families");
  for (const auto& [name, value] : families.json().items()) {
    const auto f = families.object(name);
    f.reject_unknown({"compute", "memory", "training_compute"});
    e.families[name] = FamilyEfficiency{f.number("compute", Range{0.0, 1.0, true}),
                                        f.number("memory", Range{0.0, 1.0, true}),
                                        f.number("training_compute", Range{0.0, 1.0, true})};
  }
  e.read_generations(root.object("generations"));
  const auto engines = root.object("engines");
  for (const auto& [name, value] : engines.json().items()) {
    const auto f = engines.object(name);
    f.reject_unknown({"layer_overhead_us",
                      "step_overhead_ms",
                      "ttft_overhead_ms",
                      "ttft_wave_factor",
                      "prefill_interference"});
    e.engines[name] =
        EngineOverhead{microseconds(f.number("layer_overhead_us", Range::non_negative(1e6))),
                       milliseconds(f.number("step_overhead_ms", Range::non_negative(1e6))),
                       milliseconds(f.number("ttft_overhead_ms", Range::non_negative(1e6))),
                       f.number("ttft_wave_factor", Range::between(0.0, 2.0)),
                       f.number("prefill_interference", Range::between(0.0, 1.0))};
  }
  for (const NameRow<Engine>& needed : k_engine_names) {
    if (e.engines.count(needed.name) == 0) {
      engines.fail_plain("needs an entry for engine " + std::string(needed.name));
    }
  }
  const auto ic = root.object("interconnect");
  ic.reject_unknown({"allreduce_latency_us",
                     "pcie_allreduce_latency_us",
                     "pcie_allreduce_efficiency",
                     "network_latency_us",
                     "dp_overlap"});
  if (root.has("training")) {
    const auto t = root.object("training");
    t.reject_unknown({"size_exponent", "reference_hidden", "fp8_speedup"});
    e.training_size_exponent = t.number("size_exponent", Range::between(0.0, 1.0));
    e.training_reference_hidden = t.number("reference_hidden", Range::positive(1e6));
    e.fp8_training_speedup =
        t.optional_number("fp8_speedup", Range::between(1.0, 2.0)).value_or(e.fp8_training_speedup);
  }
  e.allreduce_latency = microseconds(ic.number("allreduce_latency_us", Range::non_negative(1e6)));
  e.pcie_allreduce_latency =
      microseconds(ic.number("pcie_allreduce_latency_us", Range::non_negative(1e6)));
  e.pcie_allreduce_efficiency = ic.number("pcie_allreduce_efficiency", Range::between(0.01, 1.0));
  e.network_latency = microseconds(ic.number("network_latency_us", Range::non_negative(1e6)));
  e.dp_overlap = ic.number("dp_overlap", Range::between(0.0, 1.0));
  e.fitted_on = root.has("fitted_on") ? root.member("fitted_on").json() : nlohmann::json::object();
  return e;
}

Efficiency Efficiency::load(const std::string& path) {
  // The bundled file, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_efficiency_file();
  const auto text =
      read_input_file_unless(path, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_efficiency(bundled.value);
  }
  return from_json(detail::parse_json_text(*text, path), path);
}

nlohmann::json Efficiency::to_json() const {
  nlohmann::json fam = nlohmann::json::object();
  for (const auto& [name, f] : families) {
    fam[name] = {
        {"compute", f.compute}, {"memory", f.memory}, {"training_compute", f.training_compute}};
  }
  nlohmann::json gen = nlohmann::json::object();
  for (const auto& [name, g] : m_generations) {
    gen[name] = {{"family", g.family}, {"source", g.source}};
  }
  nlohmann::json eng = nlohmann::json::object();
  for (const auto& [name, o] : engines) {
    eng[name] = {{"layer_overhead_us", o.per_layer.si() * 1e6},
                 {"step_overhead_ms", to_ms(o.per_step)},
                 {"ttft_overhead_ms", to_ms(o.per_request)},
                 {"ttft_wave_factor", o.wave_factor},
                 {"prefill_interference", o.prefill_interference}};
  }
  return {{"schema_version", 1},
          {"description",
           "Efficiency factors of the performance model (docs/model.md, 'Performance'), per GPU "
           "family (with the GPU generations each family stands for, 'generations') and per "
           "serving engine, written by build/bench/rightsize_fit "
           "(bench/fit_efficiency.cpp) from ../shared/validation; 'fitted_on' says which rows."},
          {"families", fam},
          {"generations", gen},
          {"engines", eng},
          {"interconnect",
           {{"allreduce_latency_us", allreduce_latency.si() * 1e6},
            {"pcie_allreduce_latency_us", pcie_allreduce_latency.si() * 1e6},
            {"pcie_allreduce_efficiency", pcie_allreduce_efficiency},
            {"network_latency_us", network_latency.si() * 1e6},
            {"dp_overlap", dp_overlap}}},
          {"training",
           {{"size_exponent", training_size_exponent},
            {"reference_hidden", training_reference_hidden},
            {"fp8_speedup", fp8_training_speedup}}},
          {"fitted_on", fitted_on}};
}

const EngineOverhead& Efficiency::engine(Engine e) const {
  const auto it = engines.find(to_string(e));
  if (it == engines.end()) {
    throw InternalError("data/efficiency.json has no engine " + std::string(to_string(e)));
  }
  return it->second;
}

// --- Model -------------------------------------------------------------------------------------

int gpus_per_server(const Spec& spec, const Gpu& gpu) {
  if (spec.deployment.gpus_per_server) {
    return static_cast<int>(*spec.deployment.gpus_per_server);
  }
  return gpu.purchase ? gpu.purchase->gpus_per_server : 8;
}

namespace {

// The tensor math a format's operands allow, finest first: 4-bit floats (NVFP4, MXFP4), 8-bit
// floats, 16-bit (integer and nf4 formats are dequantized to 16-bit before the GEMM), or 32-bit
// floats (an fp32 checkpoint served as it is: PyTorch's FP32 GEMMs, TF32 off by default).
enum class MathClass { fp4, fp8, sixteen, thirty_two };

MathClass math_class(DType d) {
  if (is_float4(d)) {
    return MathClass::fp4;
  }
  if (d == DType::fp32) {
    return MathClass::thirty_two;
  }
  return d == DType::fp8 ? MathClass::fp8 : MathClass::sixteen;
}

// 16-bit math in the operands' own format where the GPU rates it (fp16 checkpoints run fp16
// GEMMs; the catalog gives bf16 and fp16 the same dense rate wherever it lists both), else bf16,
// else fp16 (Turing has no bf16).
TensorPrecision sixteen_bit(const Gpu& gpu, DType operands) {
  if (operands == DType::fp16 && gpu.rate(TensorPrecision::fp16)) {
    return TensorPrecision::fp16;
  }
  return gpu.rate(TensorPrecision::bf16) ? TensorPrecision::bf16 : TensorPrecision::fp16;
}

} // namespace

TensorPrecision compute_precision(const Spec& spec, const Gpu& gpu) {
  MathClass math = MathClass::sixteen;
  // The format 16-bit math runs in: the training compute dtype, the stated activations, or the
  // weights when they are 16-bit (weight-only formats dequantize to bf16 unless told otherwise).
  DType operands = DType::bf16;
  if (spec.workload.is_training()) {
    math = math_class(spec.workload.training.precision.compute);
    operands = spec.workload.training.precision.compute;
  } else {
    operands =
        spec.precision.activations_stated() ? spec.precision.activations : spec.precision.weights;
    // A GEMM runs at the rate of its coarser operand: weight-only formats are dequantized to the
    // activations' format. Activations left unstated (or stated for other weights than a
    // planner's variant) keep the weights' usual deployment: W8A8 for fp8, W4A4 for fp4
    // (activations quantized on the fly).
    math = math_class(spec.precision.weights);
    if (spec.precision.activations_stated()) {
      const MathClass act = math_class(spec.precision.activations);
      // fp32 weights under 16-bit (or 8-bit) activations: autocast casts the weights down.
      math = math == MathClass::thirty_two ? act : std::max(math, act);
    }
  }
  if (math == MathClass::thirty_two) {
    return TensorPrecision::fp32; // non-tensor FP32: no tensor-core rate stands in for it
  }
  if (math == MathClass::fp4 && gpu.rate(TensorPrecision::fp4)) {
    return TensorPrecision::fp4;
  }
  if (math != MathClass::sixteen && gpu.rate(TensorPrecision::fp8)) {
    return TensorPrecision::fp8; // fp8, or fp4 on Hopper and Ada: fp8 math
  }
  return sixteen_bit(gpu, operands); // 16-bit formats, or fp8 on Ampere: 16-bit math
}

std::optional<std::string> missing_compute_rate(const Spec& spec, const Gpu& gpu) {
  const TensorPrecision p = compute_precision(spec, gpu);
  if (gpu.rate(p)) {
    return std::nullopt;
  }
  return fmt::format("the catalog has no {} rate for {} (dense_tflop_per_s.{}), which {} weights "
                     "compute at",
                     to_string(p),
                     gpu.name,
                     to_string(p),
                     to_string(spec.precision.weights));
}

Flops forward_flops(const ModelArch& m, double tokens, double context) {
  // Matrix multiplies: 2 FLOP per parameter per token (Kaplan et al. 2020), active parameters
  // only, the input embedding excluded (a lookup).
  const double matmul = 2.0 * (m.params_active - m.params.embedding) * tokens;
  // Attention scores and values: 2 * context * (d_qk + d_v) per head per layer per token;
  // sliding-window layers see at most the window.
  const double heads = static_cast<double>(m.heads);
  const double dims = static_cast<double>(m.head_dim + m.v_head_dim);
  const double local_context =
      m.sliding_window > 0 ? std::min(context, static_cast<double>(m.sliding_window)) : context;
  const double attention = 2.0 * heads * dims * tokens *
                           (static_cast<double>(m.global_layers()) * context +
                            static_cast<double>(m.local_layers()) * local_context);
  // Linear attention's recurrence (Gated DeltaNet's chunked delta rule) over its constant state:
  // the same per token whatever the context.
  const double recurrence =
      static_cast<double>(m.recurrent_layers()) * m.ssm.recurrence_flops_per_token() * tokens;
  return Flops(matmul + attention + recurrence);
}

namespace {

// An encoder-decoder's stacks have layers of one shape (Whisper's, T5's; docs/model.md): the
// parameters of the matrices of one layer's self-attention and MLP, biases included.
double stack_layer_params(const ModelArch& m) {
  return (m.params.attention + m.params.dense_mlp) /
         static_cast<double>(m.layers + m.decoder_layers);
}

// Attention scores and values, 2 x (d_qk + d_v) FLOPs per head per layer per query per key.
double attention_flops_per_pair(const ModelArch& m) {
  return 2.0 * static_cast<double>(m.heads) * static_cast<double>(m.head_dim + m.v_head_dim);
}

} // namespace

Flops encoder_window_flops(const ModelArch& m) {
  const auto h = static_cast<double>(m.hidden);
  const auto positions = static_cast<double>(m.encoder_positions);
  const double frames = 2.0 * positions; // the second convolution has stride 2
  // Whisper's width-3 convolutions: mel -> h over every frame, h -> h over every other frame.
  // T5 reads tokens: none.
  const double conv =
      m.mel_bins > 0
          ? 2.0 * (static_cast<double>(m.mel_bins) * h * 3.0 * frames + h * h * 3.0 * positions)
          : 0.0;
  const double stack = 2.0 * stack_layer_params(m) * static_cast<double>(m.layers) * positions;
  const double attention =
      attention_flops_per_pair(m) * positions * positions * static_cast<double>(m.layers);
  // k and v, half of each cross-attention's parameters, over every encoder position.
  const double cross_kv = 2.0 * (m.params.cross_attention / 2.0) * positions;
  return Flops(conv + stack + attention + cross_kv);
}

Flops decoder_token_flops(const ModelArch& m, double context) {
  const auto h = static_cast<double>(m.hidden);
  const auto layers = static_cast<double>(m.decoder_layers);
  // The lm_head projects onto the vocabulary whether or not it is tied to the embedding.
  const double matmul = 2.0 * (stack_layer_params(m) * layers + m.params.cross_attention / 2.0 +
                               static_cast<double>(m.vocab) * h);
  const double attention =
      attention_flops_per_pair(m) * layers * (context + static_cast<double>(m.encoder_positions));
  return Flops(matmul + attention);
}

Flops training_model_flops(const Spec& spec, double tokens) {
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  const auto seq = static_cast<double>(w.seq_len);
  // Attention over the whole sequence, as Narayanan et al. 2021 count it (their
  // 72 B s l h^2 (1 + s/6h + V/12lh) for GPT).
  const Flops forward = forward_flops(m, tokens, seq);
  if (w.method == FinetuneMethod::full) {
    return forward * 3.0; // backward: gradients of the activations and of the weights
  }
  // LoRA: the frozen matmuls need only the activations' gradients (2 x forward); attention's
  // backward differentiates both of its operands (2 x its forward); the adapters train in full.
  const Flops attention = forward - forward_flops(m, tokens, 0.0);
  return forward * 2.0 + attention + Flops(6.0 * lora_parameters(spec) * tokens);
}

namespace {

// The link a group of `group` GPUs all-reduces over: NVLink (or Infinity Fabric) inside the
// GPU's domain; PCIe inside one server, at the share of the card's PCIe rate NCCL reaches there
// (the host link for cards whose NVLink bridge joins only pairs); the network between servers.
LinkModel collective_link(const Spec& spec, const Gpu& gpu, int group, const Efficiency& eff) {
  if (gpu.has_nvlink() && group <= gpu.nvlink_domain) {
    return {gpu.gpu_link, eff.allreduce_latency};
  }
  if (group <= gpus_per_server(spec, gpu)) {
    const BytesPerSecond pcie = gpu.has_nvlink() ? gpu.host_link : gpu.gpu_link;
    return {pcie * eff.pcie_allreduce_efficiency, eff.pcie_allreduce_latency};
  }
  return {gpu.network, eff.network_latency};
}

// All-reduce of `message` bytes over n ranks: the ring's bandwidth term, 2(n-1)/n of the
// message over each link (Thakur et al. 2005), plus a fixed latency per call: small decode
// messages go through NCCL's low-latency protocols or vLLM's one-shot custom all-reduce, whose
// cost is a few microseconds per call rather than per ring step.
Seconds allreduce(Bytes message, int n, const LinkModel& link) {
  if (n <= 1) {
    return seconds(0);
  }
  return message * (2.0 * (n - 1) / n) / link.bandwidth + link.latency;
}

// All-gather of a `message` gathered from n ranks: each link carries (n-1)/n of it (ring), plus
// the fixed latency per call.
Seconds allgather(Bytes message, int n, const LinkModel& link) {
  if (n <= 1) {
    return seconds(0);
  }
  return message * ((n - 1.0) / n) / link.bandwidth + link.latency;
}

// Rate of the tensor cores at the compute precision, times the family's efficiency.
FlopsPerSecond effective_rate(const Spec& spec, const Gpu& gpu, double efficiency) {
  const auto p = compute_precision(spec, gpu);
  const auto rate = gpu.rate(p);
  if (!rate) {
    throw InternalError(*missing_compute_rate(spec, gpu) + ": checked before estimating");
  }
  return *rate * efficiency;
}

// What every step of the layout reads: looked up and derived once per layout.
StepLayout
step_layout(const Spec& spec, const Gpu& gpu, const Parallelism& p, const Efficiency& eff) {
  StepLayout steps;
  steps.spec = &spec;
  steps.gpu = &gpu;
  steps.p = p;
  steps.family = &eff.family(gpu);
  steps.engine = &eff.engine(spec.workload.inference.engine);
  steps.compute_rate = effective_rate(spec, gpu, steps.family->compute);
  steps.weights = weights_per_gpu(spec.model, spec.weights, p);
  steps.activation_bytes = activation_element_bytes(spec.precision).si();
  steps.tensor_link = collective_link(spec, gpu, p.tp, eff);
  steps.expert_link = collective_link(spec, gpu, p.ep, eff);
  return steps;
}

StepTime
decode_step(const StepLayout& steps, const KvCacheGeometry& kv, double batch, double context) {
  const ModelArch& m = steps.spec->model;
  const Parallelism& p = steps.p;
  // Pipeline parallelism keeps micro-batches in flight, one per stage at most (vLLM's and
  // TensorRT-LLM's pipeline schedulers): each micro-batch crosses the stages in turn, reading each
  // stage's weights, while the other stages work on the others. A step that gives every sequence
  // one token therefore takes the time of one micro-batch of batch / m sequences crossing all
  // stages (docs/model.md, "Pipeline-parallel serving"); without pipeline stages m is 1.
  const double micro_batches = std::clamp(std::floor(batch), 1.0, static_cast<double>(p.pp));
  batch /= micro_batches;
  // Bytes read per step, all pipeline stages in sequence: the weights (MoE: only the experts the
  // micro-batch's tokens touch) and the KV cache of every sequence of the micro-batch.
  WeightBytes w = steps.weights;
  w.vision = Bytes(0); // the vision tower runs in prefills with images, not in decode steps
  if (m.encoder_decoder) {
    // The encoder runs once per window, in the prefill: a decode step reads the decoder's layers
    // (self- and cross-attention, MLP), the embedding and lm_head.
    const double enc_dec = static_cast<double>(m.layers + m.decoder_layers);
    const double dec = static_cast<double>(m.decoder_layers);
    w.attention *= (m.params.attention * dec / enc_dec + m.params.cross_attention) /
                   (m.params.attention + m.params.cross_attention);
    w.dense_mlp *= dec / enc_dec;
  }
  if (m.is_moe()) {
    const double pick = static_cast<double>(m.experts_active) / static_cast<double>(m.experts);
    w.routed_experts *= 1.0 - std::pow(1.0 - pick, batch);
  }
  StepTime s;
  // Recurrent layers (Mamba, linear attention) read their state and write it back (the KV cache
  // only appends one token); an
  // encoder-decoder's cross-attention state is only read.
  const Bytes written = m.encoder_decoder ? Bytes(0) : kv.state;
  s.bytes =
      (w.total() + (kv.per_sequence(static_cast<long long>(context)) + written) * batch) * p.pp;
  s.memory = s.bytes / (steps.gpu->memory_bandwidth * steps.family->memory);
  const Flops flops = m.encoder_decoder ? decoder_token_flops(m, context) * batch
                                        : forward_flops(m, batch, context);
  s.compute = flops / static_cast<double>(p.tp) / steps.compute_rate;
  const double act = steps.activation_bytes;
  // One all-reduce per mixer and per MLP (two per layer of a plain transformer), Megatron-style;
  // an encoder-decoder's decoder layer has three sublayers (self-attention, cross-attention, MLP).
  const double sublayers = m.encoder_decoder ? 3.0 * static_cast<double>(m.decoder_layers)
                                             : static_cast<double>(m.sublayers());
  s.communication =
      allreduce(Bytes(batch * static_cast<double>(m.hidden) * act), p.tp, steps.tensor_link) *
      sublayers;
  if (p.ep > 1 && m.is_moe()) {
    // Expert parallel: dispatch and combine all-to-all of each token's hidden state to its experts.
    const double bytes_moved = batch * static_cast<double>(m.experts_active) *
                               static_cast<double>(m.hidden) * act * (p.ep - 1.0) / p.ep;
    s.communication +=
        (Bytes(2.0 * bytes_moved) / steps.expert_link.bandwidth + steps.expert_link.latency * 2.0) *
        static_cast<double>(m.moe_layers());
  }
  s.fixed = steps.engine->per_layer *
                static_cast<double>(m.encoder_decoder ? m.decoder_layers : m.layers) +
            steps.engine->per_step;
  return s;
}

// A transcription's prefill: the encoder pass of each window (tokens / prompt of them) and the
// decoder's task prompt; every weight is read once.
StepTime
encoder_decoder_prefill(const StepLayout& steps, StepTime s, double tokens, double prompt) {
  const ModelArch& m = steps.spec->model;
  const Parallelism& p = steps.p;
  const double windows = tokens / prompt;
  const Flops flops =
      encoder_window_flops(m) * windows + decoder_token_flops(m, prompt / 2.0) * tokens;
  s.compute = flops / static_cast<double>(p.tp) / steps.compute_rate;
  const double act = steps.activation_bytes;
  const auto h = static_cast<double>(m.hidden);
  const double encoder_tokens = windows * static_cast<double>(m.encoder_positions);
  s.communication = allreduce(Bytes(encoder_tokens * h * act), p.tp, steps.tensor_link) *
                        (2.0 * static_cast<double>(m.layers)) +
                    allreduce(Bytes(tokens * h * act), p.tp, steps.tensor_link) *
                        (3.0 * static_cast<double>(m.decoder_layers));
  s.fixed = steps.engine->per_layer * static_cast<double>(m.layers + m.decoder_layers);
  return s;
}

// Image generation (docs/model.md, "Image generation"): a batch of tokens / prompt images runs
// the whole pipeline; each denoising step reads the denoiser's weights once for the batch (both
// guidance branches in one forward), the text encoders and the VAE are read once. One GPU: no
// all-reduces.
StepTime diffusion_pass(const StepLayout& steps, double tokens, double prompt) {
  const Spec& spec = *steps.spec;
  const ModelArch& m = spec.model;
  const DiffusionPipeline& d = *m.diffusion;
  const ImageGeneration& g = *spec.workload.inference.generation;
  const double images = tokens / prompt;
  const auto step_count = static_cast<double>(g.steps);
  const double denoiser_share = m.params.denoiser / m.params_total;
  StepTime s;
  s.bytes = steps.weights.diffusion * (denoiser_share * step_count + (1.0 - denoiser_share));
  s.memory = s.bytes / (steps.gpu->memory_bandwidth * steps.family->memory);
  s.compute = Flops(images * d.image_flops(g.height, g.width, g.steps)) / steps.compute_rate;
  // The engine's per-layer cost for each of the denoiser's blocks at each step; not its per-step
  // cost, which is generate's sampling and cache bookkeeping, absent from a denoising loop.
  s.fixed = steps.engine->per_layer * static_cast<double>(m.layers) * step_count;
  return s;
}

StepTime prefill_step(const StepLayout& steps, double tokens, double prompt) {
  const Spec& spec = *steps.spec;
  const ModelArch& m = spec.model;
  const Parallelism& p = steps.p;
  if (spec.generates_images()) {
    return diffusion_pass(steps, tokens, prompt);
  }
  StepTime s;
  // A dual encoder's text tower is loaded but images do not run through it.
  const Bytes read =
      steps.weights.total() - (spec.embeds_images() ? steps.weights.text_tower : Bytes(0));
  s.bytes = read * p.pp;
  s.memory = s.bytes / (steps.gpu->memory_bandwidth * steps.family->memory);
  if (m.encoder_decoder) {
    return encoder_decoder_prefill(steps, s, tokens, prompt);
  }
  // Causal attention: each token attends to half the prompt on average; an encoder's
  // bidirectional attention, to all of it. The vision tower encodes the images of each prompt in
  // the step (tokens / prompt of them). An image encoder's prompt is one image (image_flops).
  Flops flops = spec.embeds_images() && prompt > 0
                    ? Flops(image_flops(m) * tokens / prompt)
                    : forward_flops(m, tokens, m.encoder_only ? prompt : prompt / 2.0);
  const auto& inf = spec.workload.inference;
  if (m.vision && inf.images_per_request > 0 && prompt > 0) {
    flops += Flops(tokens / prompt * static_cast<double>(inf.images_per_request) *
                   m.vision->flops(inf.image_width, inf.image_height));
  }
  s.compute = flops / static_cast<double>(p.tp) / steps.compute_rate;
  const double act = steps.activation_bytes;
  s.communication =
      allreduce(Bytes(tokens * static_cast<double>(m.hidden) * act), p.tp, steps.tensor_link) *
      static_cast<double>(m.sublayers());
  s.fixed = steps.engine->per_layer * static_cast<double>(m.layers);
  return s;
}

std::string decode_explanation(const StepTime& s, const std::string& bottleneck) {
  if (bottleneck == "memory_bandwidth") {
    return fmt::format("decode is memory-bandwidth bound: each step reads {} per GPU in {}",
                       format_bytes(s.bytes),
                       format_seconds(s.memory));
  }
  if (bottleneck == "compute") {
    return fmt::format("decode is compute bound: each step's matrix work takes {}, more than "
                       "reading {} ({})",
                       format_seconds(s.compute),
                       format_bytes(s.bytes),
                       format_seconds(s.memory));
  }
  if (bottleneck == "interconnect") {
    return fmt::format("decode is interconnect bound: tensor-parallel all-reduces take {} per "
                       "step, more than compute ({}) or memory ({})",
                       format_seconds(s.communication),
                       format_seconds(s.compute),
                       format_seconds(s.memory));
  }
  return fmt::format("decode is dominated by fixed per-step costs ({}): small batches and many "
                     "layers",
                     format_seconds(s.fixed));
}

} // namespace

StepTime decode_step_time(const Spec& spec,
                          const Gpu& gpu,
                          const Parallelism& p,
                          const Efficiency& eff,
                          const Constants& constants,
                          double batch,
                          double context) {
  return decode_step(
      step_layout(spec, gpu, p, eff), kv_cache_geometry(spec, p, constants), batch, context);
}

StepTime prefill_step_time(const Spec& spec,
                           const Gpu& gpu,
                           const Parallelism& p,
                           const Efficiency& eff,
                           double tokens,
                           double prompt) {
  return prefill_step(step_layout(spec, gpu, p, eff), tokens, prompt);
}

InferencePerformance with_replicas(InferencePerformance one, int replicas) {
  const auto n = static_cast<double>(replicas);
  one.requests_per_s *= n;
  one.output_tokens_per_s *= n;
  one.prefill_tokens_per_s *= n;
  one.audio_seconds_per_s *= n;
  return one;
}

namespace {

// Where both serving estimates start: the sequences in flight per replica, the spec's (or all
// that fit) capped by what fits and by the scheduler's own limit (vLLM --max-num-seqs), and the
// compute precision. With none in flight, the bottleneck says why.
InferencePerformance in_flight(const MemoryEstimate& memory,
                               TensorPrecision precision,
                               long long max_num_seqs,
                               bool embedding) {
  InferencePerformance r;
  r.compute_precision = precision;
  r.prefill_only = embedding;
  r.concurrency = std::min({memory.batch, memory.max_batch, max_num_seqs});
  if (r.concurrency < 1) {
    r.bottleneck = "memory_capacity";
    r.explanation = "not even one sequence of this length fits beside the weights";
  }
  return r;
}

long long max_num_seqs(const Constants& constants) {
  return static_cast<long long>(constants.get(Constant::max_num_seqs));
}

// An embedding workload (docs/model.md, "Embedding workloads"): the engine runs forward passes
// of c sequences back to back, each pass one prefill step of c x L tokens; nothing is decoded.
// A replica embeds c / T(c) sequences per second; a sequence waits for its engine's per-request
// work and its pass, and, when more are in flight than a pass takes, for the passes ahead of it
// (Little's law: latency = in flight / rate). `r` is in_flight()'s, with some in flight.
InferencePerformance estimate_embedding(const StepLayout& steps,
                                        const MemoryEstimate& memory,
                                        InferencePerformance r,
                                        int replicas,
                                        Detail detail) {
  const auto& inf = steps.spec->workload.inference;
  const long long wanted = memory.batch;
  const long long c = r.concurrency;
  const auto length = static_cast<double>(inf.input_tokens);
  const StepTime pass = prefill_step(steps, static_cast<double>(c) * length, length);
  r.prefill = pass.total();
  const double rate = static_cast<double>(c) / r.prefill.si();
  r.ttft = steps.engine->per_request + r.prefill;
  if (wanted > c) {
    r.queueing = true;
    r.ttft = steps.engine->per_request + seconds(static_cast<double>(wanted) / rate);
  }
  r.requests_per_s = rate;
  r.prefill_tokens_per_s = rate * length;
  r.prefill_share = 1.0;
  r = with_replicas(r, replicas);
  if (detail == Detail::numbers) {
    return r;
  }
  const bool images = steps.spec->per_image();
  const auto& generation = inf.generation;
  const char* unit = images ? "images" : "sequences";
  // "12 x 512 tokens", "12 images of 729 tokens", or "4 images (1024 x 1024, 50 steps)"
  const std::string pass_of = generation ? fmt::format("{} image{} ({} x {}, {} steps)",
                                                       c,
                                                       c == 1 ? "" : "s",
                                                       generation->width,
                                                       generation->height,
                                                       generation->steps)
                              : images && steps.spec->model.image->cnn
                                  ? fmt::format("{} image{} ({} x {} pixels, a CNN)",
                                                c,
                                                c == 1 ? "" : "s",
                                                steps.spec->model.image->image_size,
                                                steps.spec->model.image->image_size)
                              : images ? fmt::format("{} images of {} tokens", c, inf.input_tokens)
                                       : fmt::format("{} x {} tokens", c, inf.input_tokens);
  if (r.queueing) {
    r.bottleneck = "memory_capacity";
    r.explanation = fmt::format("a forward pass takes {} of the {} {} in flight; the rest "
                                "wait for the passes ahead of them",
                                c,
                                wanted,
                                unit);
  } else if (pass.communication > max(pass.memory, pass.compute)) {
    r.bottleneck = "interconnect";
    r.explanation = fmt::format("each pass of {} {} spends {} in tensor-parallel "
                                "all-reduces, more than its compute ({})",
                                c,
                                unit,
                                format_seconds(pass.communication),
                                format_seconds(pass.compute));
  } else if (pass.compute >= pass.memory) {
    r.bottleneck = "compute";
    r.explanation = fmt::format("{} is compute bound: a pass of {} takes {} of "
                                "matrix work, more than reading the weights ({})",
                                generation ? "image generation" : "embedding",
                                pass_of,
                                format_seconds(pass.compute),
                                format_seconds(pass.memory));
  } else {
    r.bottleneck = "memory_bandwidth";
    r.explanation = fmt::format("a pass of {} reads the weights ({}) in {}, longer "
                                "than its matrix work ({}): larger batches come nearly free",
                                pass_of,
                                format_bytes(pass.bytes),
                                format_seconds(pass.memory),
                                format_seconds(pass.compute));
  }
  return r;
}

// A generation workload: prefills, then decode steps under continuous batching. `r` is
// in_flight()'s, with some in flight; `pf` one prompt's prefill alone.
InferencePerformance estimate_generation(const StepLayout& steps,
                                         const KvCacheGeometry& kv,
                                         const StepTime& pf,
                                         const MemoryEstimate& memory,
                                         InferencePerformance r,
                                         int replicas,
                                         Detail detail) {
  const auto& inf = steps.spec->workload.inference;
  const long long wanted = memory.batch;
  const long long c = r.concurrency;
  const auto isl = static_cast<double>(inf.prompt_tokens());
  const auto osl = static_cast<double>(inf.output_tokens);
  const StepTime dec = decode_step(steps, kv, static_cast<double>(c), isl + osl / 2.0);
  r.prefill = pf.total();
  r.decode_step = dec.total();
  r.decode_memory = dec.memory;
  r.decode_compute = dec.compute;
  r.decode_communication = dec.communication;
  r.decode_fixed = dec.fixed;
  r.decode_bytes = dec.bytes;
  // Steady state of continuous batching with c sequences in flight: every request's prefill
  // interrupts the others' decode steps, and waits for the prefills ahead of it (M/D/1). The
  // request rate lambda solves lambda * cycle(lambda) = c, where the cycle (TTFT + (osl - 1) *
  // TPOT) grows with lambda; bisection over (0, 0.98 / marginal prefill).
  // Looked up once: the bisection below evaluates the cycle a hundred times.
  const EngineOverhead& engine = *steps.engine;
  const Seconds t0 = engine.per_request;
  // In the steady state a prefill does not run alone: engines batch prompts and chunk them into
  // the decode steps (vLLM's and SGLang's chunked prefill, TensorRT-LLM's in-flight batching),
  // whose weights are read anyway. What one request's prefill adds to the engine's time is its
  // FLOPs and all-reduces, not another read of the weights or another round of per-layer costs
  // (measured: eight 128-token prompts in one step take 3.4x one alone, not 8x, and a 128-token
  // chunk in a decode step adds 15-54% of its time alone;
  // docs/accuracy.md, "Measured on an H200"). A request alone still waits for the whole prefill.
  // Pipeline stages share that work as they share the decode's: with m micro-batches in flight,
  // each stage computes its layers' part while the others compute theirs.
  const double micro_batches =
      std::clamp(static_cast<double>(c), 1.0, static_cast<double>(steps.p.pp));
  const Seconds marginal_prefill = (pf.compute + pf.communication) / micro_batches;
  // The terms of the cycle that do not depend on the rate, worked out once (the same sums in the
  // same order, so the same doubles): the bisection evaluates it about 23 times.
  const double prefill_per_request = marginal_prefill.si();
  const Seconds prefill = r.prefill;
  const Seconds decode = r.decode_step;
  const double interference = engine.prefill_interference;
  // Requests that arrive together (benchmarks start them in waves) wait on average for half of
  // the others' prefills.
  const Seconds wave = prefill * (engine.wave_factor * (static_cast<double>(c) - 1.0) / 2.0);
  const Seconds before_wait = t0 + prefill + decode * 0.5;
  const double later_tokens = std::max(0.0, osl - 1.0);
  const auto at_rate = [&](double lambda, Seconds& ttft_out, Seconds& tpot_out) {
    const double share = std::min(0.98, lambda * prefill_per_request);
    // Chunked prefill piggybacks decode tokens on prefill steps: decoding is stalled by only
    // part of each prefill.
    tpot_out = decode / (1.0 - share * interference);
    const Seconds wait = prefill * (share / (2.0 * (1.0 - share)));
    ttft_out = before_wait + max(wait, wave);
    return share;
  };
  const auto in_flight = [&](double lambda) {
    Seconds t1;
    Seconds t2;
    at_rate(lambda, t1, t2);
    return lambda * (t1 + t2 * later_tokens).si();
  };
  // in_flight is increasing in lambda and computed from positive terms with one subtraction
  // (1 - share x interference, share <= 0.98): its relative rounding error stays under about 60
  // ulp (1.3e-14); 1e-13 bounds it with room, which makes the fast bisection exact.
  const double rate =
      bisect_crossing_fast(0.98 / marginal_prefill.si(), static_cast<double>(c), 1e-13, in_flight);
  Seconds ttft;
  Seconds tpot;
  const double share = at_rate(rate, ttft, tpot);
  r.prefill_share = share;
  if (wanted > c) {
    // Requests beyond what the KV cache (or the scheduler) holds wait for a slot.
    r.queueing = true;
    ttft += seconds(static_cast<double>(wanted - c) / rate);
  }
  r.ttft = ttft;
  r.tpot = tpot;
  r.requests_per_s = rate;
  r.output_tokens_per_s = rate * osl;
  const ModelArch& m = steps.spec->model;
  // A text-to-text request's prompt is what its encoder reads (its decoder's is the start token).
  r.prefill_tokens_per_s =
      rate *
      (m.encoder_decoder && !inf.transcription ? static_cast<double>(m.encoder_positions) : isl);
  if (inf.transcription) {
    // A request's windows are transcribed one after another, each an encoder pass and a decode
    // (vLLM's speech-to-text endpoint iterates its chunks in order; docs/model.md,
    // "Transcription workloads").
    r.ttft = (ttft + tpot * later_tokens) * static_cast<double>(inf.transcription->windows);
    r.audio_seconds_per_s = rate * inf.transcription->audio_per_window();
  }
  r = with_replicas(r, replicas);
  if (detail == Detail::numbers) {
    return r;
  }
  if (r.queueing) {
    r.bottleneck = "memory_capacity";
    r.explanation = fmt::format("only {} of {} concurrent sequences fit in the KV cache; the rest "
                                "queue, which adds to time to first token",
                                c,
                                wanted);
  } else if (dec.communication > max(dec.memory, dec.compute)) {
    r.bottleneck = "interconnect";
  } else if (dec.compute > dec.memory) {
    r.bottleneck = "compute";
  } else if (dec.fixed > max(dec.memory, dec.compute)) {
    r.bottleneck = "memory_bandwidth";
    r.explanation = decode_explanation(dec, "fixed");
  } else {
    r.bottleneck = "memory_bandwidth";
  }
  if (r.explanation.empty()) {
    r.explanation = decode_explanation(dec, r.bottleneck);
  }
  return r;
}

} // namespace

InferencePerformance estimate_inference(const Spec& spec,
                                        const Gpu& gpu,
                                        const Parallelism& p,
                                        const MemoryEstimate& memory,
                                        const Efficiency& eff,
                                        const Constants& constants,
                                        int replicas,
                                        Detail detail) {
  const bool embedding = spec.workload.one_pass();
  InferencePerformance r =
      in_flight(memory, compute_precision(spec, gpu), max_num_seqs(constants), embedding);
  if (r.concurrency < 1) {
    return r;
  }
  const StepLayout steps = step_layout(spec, gpu, p, eff);
  if (embedding) {
    return estimate_embedding(steps, memory, r, replicas, detail);
  }
  const auto isl = static_cast<double>(spec.workload.inference.prompt_tokens());
  return estimate_generation(steps,
                             kv_cache_geometry(spec, p, constants),
                             prefill_step(steps, isl, isl),
                             memory,
                             r,
                             replicas,
                             detail);
}

ServingLayout serving_layout(const Spec& spec,
                             const Gpu& gpu,
                             const Parallelism& p,
                             const Constants& constants,
                             const Efficiency& eff) {
  ServingLayout s;
  s.memory = inference_memory_layout(spec, gpu, p, constants);
  s.compute_precision = compute_precision(spec, gpu);
  s.max_num_seqs = max_num_seqs(constants);
  if (s.memory.max_batch < 1 || s.max_num_seqs < 1) {
    return s;
  }
  s.steps = step_layout(spec, gpu, p, eff);
  if (!spec.workload.one_pass()) {
    const auto isl = static_cast<double>(spec.workload.inference.prompt_tokens());
    s.prefill = prefill_step(*s.steps, isl, isl);
  }
  return s;
}

InferencePerformance estimate_inference(const ServingLayout& layout,
                                        const MemoryEstimate& memory,
                                        int replicas,
                                        Detail detail) {
  const Spec& spec = *layout.memory.spec;
  const bool embedding = spec.workload.one_pass();
  InferencePerformance r =
      in_flight(memory, layout.compute_precision, layout.max_num_seqs, embedding);
  if (r.concurrency < 1) {
    return r;
  }
  if (!layout.steps) {
    throw InternalError("estimate_inference: a memory estimate from another layout");
  }
  if (embedding) {
    return estimate_embedding(*layout.steps, memory, r, replicas, detail);
  }
  return estimate_generation(
      *layout.steps, layout.memory.kv, layout.prefill, memory, r, replicas, detail);
}

namespace {

// Data parallel, per step: the gradients reduced once (an all-reduce, or ZeRO-1/2's
// reduce-scatter and all-gather of the updated shards: the same volume, Rajbhandari et al. 2020,
// section 7.2.1), hidden behind the backward pass up to the overlap share. ZeRO-3 also
// all-gathers each layer's weights before its forward and again before its backward, in every
// micro-batch (section 7.2.2: 3 instead of 2 model sizes per step, 1.5x), hidden behind the pass
// that uses them up to the same share. Over the link the whole job's GPUs share.
Seconds data_parallel_exposed(const Spec& spec,
                              const Gpu& gpu,
                              const Parallelism& p,
                              const MemoryEstimate& memory,
                              const Efficiency& eff,
                              Seconds compute,
                              double microbatches) {
  // Gradients are reduced over every rank holding the same weights: data- and context-parallel.
  const int replicas = p.dp * p.cp;
  if (replicas <= 1) {
    return seconds(0);
  }
  const auto& w = spec.workload.training;
  const double trainable = memory.trainable_params;
  const LinkModel link = collective_link(spec, gpu, p.gpus(), eff);
  const Seconds reduce =
      allreduce(Bytes(trainable * element_bytes(w.precision.gradients).si()), replicas, link);
  Seconds gather; // ZeRO-3: one pass's all-gathers of the weights, all micro-batches
  if (w.zero_stage >= 3) {
    const double layers_here = std::ceil(static_cast<double>(spec.model.layers) / p.pp);
    const Bytes layer(trainable * element_bytes(w.precision.weights).si() / layers_here);
    gather = allgather(layer, replicas, link) * (layers_here * microbatches);
  }
  const Seconds forward = compute * (1.0 / 3.0);
  const Seconds backward = compute * (2.0 / 3.0);
  return max(seconds(0), gather - forward * eff.dp_overlap) +
         max(seconds(0), gather + reduce - backward * eff.dp_overlap);
}

// Context parallel, one layer and one micro-batch (Llama 3 paper, section 3.3.2): the forward
// pass all-gathers the keys and values of the whole sequence before each rank computes attention
// for its own queries, and the backward pass gathers them again and reduce-scatters their
// gradients (the same volume); a full recompute gathers once more. Not overlapped: Llama 3's
// all-gather CP exposes it, small beside attention's O(s^2) work at long context under GQA. The
// group spans tp x cp consecutive ranks (TP innermost, then CP).
Seconds context_parallel_communication(
    const Spec& spec, const Gpu& gpu, const Parallelism& p, const Efficiency& eff, double micro) {
  if (p.cp <= 1) {
    return seconds(0);
  }
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  const double kv_heads_here = std::ceil(static_cast<double>(m.kv_heads) / p.tp);
  const double act = 2.0; // bf16 keys and values
  const Bytes gathered(static_cast<double>(w.seq_len) * micro * kv_heads_here *
                       static_cast<double>(m.head_dim + m.v_head_dim) * act);
  const double passes = w.recompute == Recompute::full ? 4.0 : 3.0;
  return allgather(gathered, p.cp, collective_link(spec, gpu, p.tp * p.cp, eff)) * passes;
}

// QLoRA: bitsandbytes dequantizes each frozen 4-bit weight to bf16 before the matmul that uses it,
// in the forward pass and again for the activations' gradient in the backward pass
// (MatMul4Bit.forward and .backward call dequantize_4bit), once more when the forward pass is
// recomputed: a memory-bound kernel that reads the packed weights and writes their 16-bit copy,
// every micro-batch, before the GEMM it feeds.
Seconds qlora_dequantization(const Spec& spec,
                             const Gpu& gpu,
                             const Parallelism& p,
                             const Efficiency& eff,
                             double microbatches) {
  const auto& w = spec.workload.training;
  const Quantization& q = spec.weights;
  if (w.method != FinetuneMethod::qlora || !q.quantized()) {
    return seconds(0);
  }
  const WeightBytes here = weights_per_gpu(spec.model, q, p);
  Bytes packed;
  if (q.attention_quantized) {
    packed += here.attention;
  }
  if (q.mlp_quantized) {
    packed += here.dense_mlp + here.routed_experts + here.shared_experts;
  }
  const double params = packed / bits(q.bits_per_weight);
  const Bytes per_pass = packed + element_bytes(DType::bf16) * params;
  const double passes = w.recompute == Recompute::full ? 3.0 : 2.0;
  return per_pass * (passes * microbatches) / (gpu.memory_bandwidth * eff.family(gpu).memory);
}

} // namespace

std::string context_parallel_unsupported(const Spec& spec) {
  const ModelArch& m = spec.model;
  if (!spec.workload.is_training()) {
    return "context parallelism is modelled for training only";
  }
  if (spec.workload.training.framework != Framework::megatron) {
    return fmt::format("context parallelism is modelled as Megatron-Core's (framework megatron), "
                       "not {}",
                       to_string(spec.workload.training.framework));
  }
  if (m.encoder_only || m.encoder_decoder || m.image || m.diffusion) {
    return "context parallelism is modelled for decoder-only language models";
  }
  if (m.recurrent_layers() > 0) {
    return fmt::format("context parallelism is modelled for attention only; {} has {} {} layers",
                       m.family,
                       m.recurrent_layers(),
                       m.ssm.kind == RecurrentKind::gated_deltanet ? "linear-attention"
                                                                   : "state-space");
  }
  return {};
}

TrainingPerformance estimate_training(const Spec& spec,
                                      const Gpu& gpu,
                                      const Parallelism& p,
                                      const MemoryEstimate& memory,
                                      const Efficiency& eff,
                                      Detail detail) {
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  TrainingPerformance r;
  r.compute_precision = compute_precision(spec, gpu);
  // MFU is against the dense peak of the precision the GEMMs run in (fp8 for an fp8 recipe),
  // as Databricks/MosaicML report fp8 MFU (docs/model.md, "Training step").
  const FlopsPerSecond peak = *gpu.rate(r.compute_precision);
  const auto seq = static_cast<double>(w.seq_len);
  const auto micro = static_cast<double>(memory.batch);
  const double gpus = p.gpus();
  const double tokens_per_step = static_cast<double>(w.global_batch) * seq;
  const Flops forward = forward_flops(m, tokens_per_step, seq);
  const Flops model = training_model_flops(spec, tokens_per_step);
  Flops hardware = model;
  if (w.recompute == Recompute::full) {
    hardware += forward; // one more forward pass
  } else if (w.recompute == Recompute::selective) {
    // The attention scores are recomputed: 2 * s * a * (d + v) per token per layer.
    const ModelArch& mm = m;
    hardware += Flops(2.0 * tokens_per_step * seq * static_cast<double>(mm.heads) *
                      static_cast<double>(mm.head_dim + mm.v_head_dim) *
                      static_cast<double>(mm.layers) / 2.0);
  }
  const auto& fam = eff.family(gpu);
  // Larger models keep the tensor cores busier (bigger GEMMs, fewer small kernels per FLOP):
  // efficiency grows as (hidden / reference)^gamma, fitted on the Megatron 2021 table.
  const double kernel_efficiency = std::min(
      0.95,
      fam.training_compute * std::pow(static_cast<double>(m.hidden) / eff.training_reference_hidden,
                                      eff.training_size_exponent));
  // fp8 GEMMs: the bf16 step's compute, fp8_training_speedup times faster end to end.
  const double speedup =
      r.compute_precision == TensorPrecision::fp8 ? eff.fp8_training_speedup : 1.0;
  const FlopsPerSecond achieved =
      *gpu.rate(sixteen_bit(gpu, DType::bf16)) * (kernel_efficiency * speedup);
  r.compute = hardware / gpus / achieved;
  // Pipeline bubble (p - 1) / (v m) of the compute (Narayanan et al. 2021, section 2.2).
  const double microbatches = static_cast<double>(w.global_batch) / (micro * p.dp);
  if (p.pp > 1) {
    r.pipeline_bubble =
        r.compute * ((p.pp - 1.0) / (static_cast<double>(w.pipeline_interleave) * microbatches));
  }
  // Tensor parallel: 4 all-reduce-equivalents per layer per micro-batch (2 forward, 2 backward;
  // 2 more when the forward pass is recomputed), not overlapped.
  const double act = 2.0;
  const double per_layer = w.recompute == Recompute::full ? 6.0 : 4.0;
  const double layers_here = std::ceil(static_cast<double>(m.layers) / p.pp);
  // Context parallel: a rank holds seq / cp of each sequence's tokens.
  const double local_tokens = seq / static_cast<double>(p.cp);
  r.tensor_parallel_communication =
      allreduce(Bytes(local_tokens * micro * static_cast<double>(m.hidden) * act),
                p.tp,
                collective_link(spec, gpu, p.tp, eff)) *
      (per_layer * layers_here * microbatches);
  r.context_parallel_communication =
      context_parallel_communication(spec, gpu, p, eff, micro) * (layers_here * microbatches);
  r.data_parallel_exposed =
      data_parallel_exposed(spec, gpu, p, memory, eff, r.compute, microbatches);
  r.dequantization = qlora_dequantization(spec, gpu, p, eff, microbatches);
  r.step = r.compute + r.pipeline_bubble + r.tensor_parallel_communication +
           r.context_parallel_communication + r.data_parallel_exposed + r.dequantization;
  r.tokens_per_s = tokens_per_step / r.step.si();
  r.mfu = (model / r.step).si() / (gpus * peak.si());
  r.hardware_flops_utilization = (hardware / r.step).si() / (gpus * peak.si());
  // Data loading: token ids and labels (int64 each) per token, per GPU, over the host link.
  r.host_input = BytesPerSecond(r.tokens_per_s * 16.0 / gpus);
  if (w.tokens) {
    r.time_to_train = seconds(*w.tokens / r.tokens_per_s);
    if (w.deadline) {
      r.meets_deadline = *r.time_to_train <= *w.deadline;
    }
  }
  if (detail == Detail::numbers) {
    return r;
  }
  const Seconds comm =
      r.tensor_parallel_communication + r.context_parallel_communication + r.data_parallel_exposed;
  if (r.host_input > gpu.host_link * 0.5) {
    r.bottleneck = "host_io";
    r.explanation = fmt::format("data loading needs {} per GPU over a {} host link",
                                format_bytes_per_s(r.host_input),
                                format_bytes_per_s(gpu.host_link));
  } else if (comm > r.compute * 0.5) {
    r.bottleneck = "interconnect";
    r.explanation =
        fmt::format("communication takes {} of a {} step (tensor parallel {}, {}exposed "
                    "data parallel {}): the interconnect, not the GPU, limits it",
                    format_seconds(comm),
                    format_seconds(r.step),
                    format_seconds(r.tensor_parallel_communication),
                    p.cp > 1 ? fmt::format("context parallel {}, ",
                                           format_seconds(r.context_parallel_communication))
                             : std::string(),
                    format_seconds(r.data_parallel_exposed));
  } else {
    r.bottleneck = "compute";
    r.explanation = fmt::format("training is compute bound: {} of math per step at {:.0f}% of "
                                "the {} dense peak; MFU {:.0f}%",
                                format_flops(hardware / gpus),
                                100.0 * (achieved / peak),
                                to_string(r.compute_precision),
                                100.0 * r.mfu);
  }
  if (r.dequantization > r.compute * 0.1) {
    r.explanation +=
        fmt::format("; dequantizing the 4-bit base adds {}", format_seconds(r.dequantization));
  }
  if (w.precision.compute == DType::fp8 && r.compute_precision != TensorPrecision::fp8) {
    r.explanation += fmt::format("; the fp8 recipe runs in {}: {} has no fp8 tensor cores",
                                 to_string(r.compute_precision),
                                 gpu.name);
  }
  return r;
}

} // namespace rightsize
