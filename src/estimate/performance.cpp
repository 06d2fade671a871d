// The performance model. Formulas and sources: docs/model.md, "Performance".

#include "bundled.hpp"
#include "collectives.hpp"
#include "decoding.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/performance.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

using estimate_detail::allgather;
using estimate_detail::allreduce;
using estimate_detail::collective_link;
using estimate_detail::sixteen_bit;
using estimate_detail::tensor_allreduces;

// --- Model -------------------------------------------------------------------------------------

int gpus_per_server(const Spec& spec, const Gpu& gpu) {
  if (spec.deployment.gpus_per_server) {
    return static_cast<int>(*spec.deployment.gpus_per_server);
  }
  return gpu.purchase ? gpu.purchase->gpus_per_server : 8;
}

bool link_published(const Spec& spec, const Gpu& gpu, int group) {
  if (gpu.has_nvlink() && group <= gpu.nvlink_domain) {
    return gpu.gpu_link.si() > 0;
  }
  if (group <= gpus_per_server(spec, gpu)) {
    return (gpu.has_nvlink() ? gpu.host_link : gpu.gpu_link).si() > 0;
  }
  return gpu.network.si() > 0;
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

// Rate of the tensor cores at the compute precision, times the family's efficiency.
FlopsPerSecond effective_rate(const Spec& spec, const Gpu& gpu, double efficiency) {
  const auto p = compute_precision(spec, gpu);
  const auto rate = gpu.rate(p);
  if (!rate) {
    throw InternalError(*missing_compute_rate(spec, gpu) + ": checked before estimating");
  }
  return *rate * efficiency;
}

// The rate attention's score and value products run at: attention kernels (FlashAttention,
// FlashInfer, FlashMLA) take 16-bit operands unless the KV cache itself is fp8 (then fp8 where
// the weights' math is fp8 or finer and the GPU has the rate); fp8 or fp4 weights do not make
// them 8-bit (docs/model.md, "Attention").
FlopsPerSecond attention_rate(const Spec& spec, const Gpu& gpu, double efficiency) {
  const TensorPrecision math = compute_precision(spec, gpu);
  TensorPrecision p = math;
  const bool low = math == TensorPrecision::fp8 || math == TensorPrecision::fp4;
  if (low) {
    p = spec.precision.kv_cache == DType::fp8 && gpu.rate(TensorPrecision::fp8)
            ? TensorPrecision::fp8
            : sixteen_bit(gpu, DType::bf16);
  }
  const auto rate = gpu.rate(p);
  return rate ? *rate * efficiency : effective_rate(spec, gpu, efficiency);
}

// Decode attention FLOPs over those of forward_flops' attention term: MLA decodes in the
// absorbed form (DeepSeek-V2 section 2.1.2; vLLM's and SGLang's MLA backends, FlashMLA), each head
// scoring the kv_lora_rank latent plus the rope key and summing the latent, 2 x (2 x kv_lora +
// rope) per head per cached token against 2 x (qk_head_dim + v_head_dim) in the naive form,
// which prefills use.
double decode_attention_scale(const ModelArch& m) {
  if (m.attention != AttentionKind::mla || m.head_dim + m.v_head_dim <= 0) {
    return 1.0;
  }
  return static_cast<double>(2 * m.kv_lora_rank + m.qk_rope_head_dim) /
         static_cast<double>(m.head_dim + m.v_head_dim);
}

// What every step of the layout reads: looked up and derived once per layout.
StepLayout
step_layout(const Spec& spec, const Gpu& gpu, const Parallelism& p, const Efficiency& eff) {
  StepLayout steps;
  steps.spec = &spec;
  steps.gpu = &gpu;
  steps.p = p;
  steps.family = &eff.family_for(gpu, spec);
  steps.engine = &eff.engine_for(gpu, spec);
  steps.compute_rate = effective_rate(spec, gpu, steps.family->compute);
  steps.attention_rate = attention_rate(spec, gpu, steps.family->compute);
  steps.weights = weights_per_gpu(spec.model, spec.weights, p);
  steps.activation_bytes = activation_element_bytes(spec.precision).si();
  steps.tensor_link = collective_link(spec, gpu, p.tp, eff);
  steps.expert_link = collective_link(spec, gpu, p.ep, eff);
  return steps;
}

// `per_sequence` tokens of each sequence in one step: 1, or k + 1 when speculative decoding
// verifies k drafted tokens (the weights and each sequence's cache read once, the rest per token).
StepTime decode_step(const StepLayout& steps,
                     const KvCacheGeometry& kv,
                     double batch,
                     double context,
                     double per_sequence = 1.0) {
  const ModelArch& m = steps.spec->model;
  const Parallelism& p = steps.p;
  // Pipeline parallelism keeps micro-batches in flight, one per stage at most (vLLM's and
  // TensorRT-LLM's pipeline schedulers): each micro-batch crosses the stages in turn, reading each
  // stage's weights, while the other stages work on the others. A step that gives every sequence
  // one token therefore takes the time of one micro-batch of batch / m sequences crossing all
  // stages (docs/model.md, "Pipeline-parallel serving"); without pipeline stages m is 1.
  const double micro_batches = std::clamp(std::floor(batch), 1.0, static_cast<double>(p.pp));
  batch /= micro_batches;
  const double tokens = batch * per_sequence;
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
    w.routed_experts *= 1.0 - std::pow(1.0 - pick, tokens);
  }
  StepTime s;
  // Recurrent layers (Mamba, linear attention) read their state and write it back (the KV cache
  // only appends one token); an
  // encoder-decoder's cross-attention state is only read.
  const Bytes written = m.encoder_decoder ? Bytes(0) : kv.state;
  // Under attention DP a GPU reads its own rank's caches: the busiest's (docs/model.md).
  const double attended = kv.sequences_per_gpu(batch);
  const Bytes caches = (kv.per_sequence(static_cast<long long>(context)) + written) * attended;
  s.bytes = (w.total() + caches) * p.pp;
  s.memory = s.bytes / (steps.gpu->memory_bandwidth * steps.family->memory);
  if (m.encoder_decoder) {
    s.compute =
        decoder_token_flops(m, context) * batch / static_cast<double>(p.tp) / steps.compute_rate;
  } else {
    // The weights' products at the math rate, attention over the cache at its own rate.
    const Flops matmul = forward_flops(m, tokens, 0.0);
    const double balanced = attended * kv.ranks * per_sequence; // ranks as busy as the busiest
    const Flops attention = (forward_flops(m, balanced, context) - forward_flops(m, balanced, 0)) *
                            decode_attention_scale(m);
    s.compute = (matmul / steps.compute_rate + attention / steps.attention_rate) /
                static_cast<double>(p.tp);
  }
  const double act = steps.activation_bytes;
  // One all-reduce per mixer and per MLP (two per layer of a plain transformer), Megatron-style;
  // an encoder-decoder's decoder layer has three sublayers (self-attention, cross-attention, MLP).
  const double sublayers = m.encoder_decoder ? 3.0 * static_cast<double>(m.decoder_layers)
                                             : static_cast<double>(m.sublayers());
  s.communication = tensor_allreduces(steps, tokens, attended * per_sequence, sublayers);
  if (p.ep > 1 && m.is_moe()) {
    // Expert parallel: dispatch and combine all-to-all of each token's hidden state to its experts.
    const double bytes_moved = tokens * static_cast<double>(m.experts_active) *
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

// `cached`: the share of each prompt found in the prefix cache, whose tokens are not computed
// (docs/model.md, "Prefix caching"): the rest attend over the cached part and the causal rest.
StepTime prefill_step(const StepLayout& steps, double tokens, double prompt, double cached = 0.0) {
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
  const bool image_tower = spec.embeds_images() && prompt > 0;
  Flops flops = image_tower ? Flops(image_flops(m) * tokens / prompt)
                            : forward_flops(m, tokens * (1.0 - cached), 0.0);
  const auto& inf = spec.workload.inference;
  if (m.vision && inf.images_per_request > 0 && prompt > 0) {
    flops += Flops(tokens / prompt * static_cast<double>(inf.images_per_request) *
                   m.vision->flops(inf.image_width, inf.image_height));
  }
  // Attention over the prompt (causal: half of it on average) at attention's rate; under
  // attention DP the busiest rank's ceil(requests / ranks) prompts, on tp / ranks GPUs.
  const double ranks = p.attention_dp;
  const double attended =
      p.attention_dp > 1 && prompt > 0
          ? std::min(tokens, std::ceil(tokens / prompt / ranks) * prompt) * ranks
          : tokens;
  const double computed = attended * (1.0 - cached);
  const Flops attention =
      image_tower
          ? Flops(0)
          : forward_flops(m, computed, m.encoder_only ? prompt : prompt * (1.0 + cached) / 2.0) -
                forward_flops(m, computed, 0.0);
  s.compute =
      (flops / steps.compute_rate + attention / steps.attention_rate) / static_cast<double>(p.tp);
  s.communication = tensor_allreduces(steps,
                                      tokens * (1.0 - cached),
                                      computed / p.attention_dp,
                                      static_cast<double>(m.sublayers()));
  s.fixed = steps.engine->per_layer * static_cast<double>(m.layers);
  return s;
}

// A generation's decode step. With speculative decoding (docs/model.md) the drafter's k passes
// (r.draft_step) precede the target's verification of k + 1 tokens of each sequence, and a step
// yields tokens_per_step() tokens of each sequence on average.
StepTime generation_step(const StepLayout& steps,
                         const KvCacheGeometry& kv,
                         double batch,
                         double context,
                         InferencePerformance& r) {
  if (!steps.draft) {
    return decode_step(steps, kv, batch, context);
  }
  const SpeculativeDecoding& s = *steps.spec->workload.inference.speculative;
  r.tokens_per_step = s.tokens_per_step();
  r.draft_step = estimate_detail::draft_time(steps, batch, context);
  return decode_step(steps, kv, batch, context, static_cast<double>(s.draft_tokens) + 1.0);
}

std::string
decode_explanation(const StepTime& s, const std::string& bottleneck, const Parallelism& p) {
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
    return fmt::format("decode is interconnect bound: {} take {} per step, more than compute "
                       "({}) or memory ({})",
                       p.attention_dp > 1 ? "attention-DP gathers, scatters and all-reduces"
                                          : "tensor-parallel all-reduces",
                       format_seconds(s.communication),
                       format_seconds(s.compute),
                       format_seconds(s.memory));
  }
  return fmt::format("decode is dominated by fixed per-step costs ({}): small batches and many "
                     "layers",
                     format_seconds(s.fixed));
}

} // namespace

Seconds decode_token_time(const StepLayout& steps,
                          const KvCacheGeometry& kv,
                          double batch,
                          double context) {
  if (!steps.draft) {
    return decode_step(steps, kv, batch, context).total(); // as generation_step's, no report
  }
  InferencePerformance r;
  const StepTime step = generation_step(steps, kv, batch, context, r);
  return (step.total() + r.draft_step) / r.tokens_per_step;
}

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

// Where both serving estimates start: the sequences asked of a replica (`offered`: the spec's,
// or all that fit, or more than `memory` holds) and those it runs at once (running_batch), and
// the compute precision. With none in flight, the bottleneck says why.
InferencePerformance in_flight(const MemoryEstimate& memory,
                               TensorPrecision precision,
                               std::optional<long long> cap,
                               bool embedding,
                               std::optional<long long> offered) {
  InferencePerformance r;
  r.compute_precision = precision;
  r.prefill_only = embedding;
  r.offered = std::max(memory.batch, offered.value_or(0));
  const long long fits = std::min(r.offered, memory.max_batch);
  r.concurrency = cap ? std::min(fits, *cap) : fits;
  if (r.concurrency < r.offered) {
    r.running_limit = cap && *cap < memory.max_batch ? "max_num_seqs" : "kv_cache";
  }
  if (r.concurrency < 1) {
    r.bottleneck = "memory_capacity";
    r.explanation = "not even one sequence of this length fits beside the weights";
  }
  return r;
}

// Why the sequences beyond a replica's running batch queue, in a few words.
std::string running_limit_words(const InferencePerformance& r, const char* unit) {
  if (r.running_limit == "max_num_seqs") {
    return fmt::format(
        "the engine runs at most {} {} at once (its max_num_seqs)", r.concurrency, unit);
  }
  return fmt::format("only {} {} fit in the KV cache", r.concurrency, unit);
}

// An embedding workload (docs/model.md, "Embedding workloads"): the engine runs forward passes
// of c sequences back to back, each pass one prefill step of c x L tokens; nothing is decoded.
// A replica embeds c / T(c) sequences per second; a sequence waits for its engine's per-request
// work and its pass, and, when more are in flight than a pass takes, for the passes ahead of it
// (Little's law: latency = in flight / rate). `r` is in_flight()'s, with some in flight.
InferencePerformance
estimate_embedding(const StepLayout& steps, InferencePerformance r, int replicas, Detail detail) {
  const auto& inf = steps.spec->workload.inference;
  const long long wanted = r.offered;
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
                                         InferencePerformance r,
                                         int replicas,
                                         Detail detail) {
  const auto& inf = steps.spec->workload.inference;
  const long long wanted = r.offered;
  const long long c = r.concurrency;
  // Drawn lengths (a range or a histogram) at their means.
  const double isl = inf.mean_prompt_tokens();
  const double osl = inf.mean_output_tokens();
  const StepTime dec = generation_step(steps, kv, static_cast<double>(c), isl + osl / 2.0, r);
  r.prefill = pf.total();
  r.decode_step = dec.total() + r.draft_step;
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
  const Seconds per_token = decode / r.tokens_per_step; // a step's tokens (speculative decoding)
  const double interference = engine.prefill_interference;
  // Requests that arrive together (benchmarks start them in waves) wait on average for half of
  // the others' prefills; a range's lengths end them at different steps, and a request waits
  // for the prefills the queue holds, not for a wave's.
  const double wave_factor = inf.arrives_in_waves() ? engine.wave_factor : 0.0;
  const Seconds wave = prefill * (wave_factor * (static_cast<double>(c) - 1.0) / 2.0);
  const Seconds before_wait = t0 + prefill + decode * 0.5;
  const double later_tokens = std::max(0.0, osl - 1.0);
  const auto at_rate = [&](double lambda, Seconds& ttft_out, Seconds& tpot_out) {
    const double share = std::min(0.98, lambda * prefill_per_request);
    // Chunked prefill piggybacks decode tokens on prefill steps: decoding is stalled by only
    // part of each prefill.
    tpot_out = per_token / (1.0 - share * interference);
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
    r.bottleneck = r.running_limit == "max_num_seqs" ? "engine_cap" : "memory_capacity";
    r.explanation = fmt::format("{} of the {} concurrent sequences asked of a replica; the other "
                                "{} queue for a slot, which adds to time to first token",
                                running_limit_words(r, "sequences"),
                                wanted,
                                wanted - c);
  } else if (dec.communication > max(dec.memory, dec.compute)) {
    r.bottleneck = "interconnect";
  } else if (dec.compute > dec.memory) {
    r.bottleneck = "compute";
  } else if (dec.fixed > max(dec.memory, dec.compute)) {
    r.bottleneck = "memory_bandwidth";
    r.explanation = decode_explanation(dec, "fixed", steps.p);
  } else {
    r.bottleneck = "memory_bandwidth";
  }
  if (r.explanation.empty()) {
    r.explanation = decode_explanation(dec, r.bottleneck, steps.p);
  }
  return r;
}

} // namespace

long long running_batch(const Spec& spec,
                        long long offered,
                        long long max_batch,
                        const EngineMemoryPolicy& policy) {
  const long long fits = std::min(offered, max_batch);
  const auto cap = engine_cap(spec, policy);
  return cap ? std::min(fits, *cap) : fits;
}

InferencePerformance estimate_inference(const Spec& spec,
                                        const Gpu& gpu,
                                        const Parallelism& p,
                                        const MemoryEstimate& memory,
                                        const Efficiency& eff,
                                        const Constants& constants,
                                        int replicas,
                                        Detail detail,
                                        std::optional<long long> offered) {
  const bool embedding = spec.workload.one_pass();
  InferencePerformance r = in_flight(memory,
                                     compute_precision(spec, gpu),
                                     engine_cap(spec, engine_policy(spec, gpu, constants)),
                                     embedding,
                                     offered);
  if (r.concurrency < 1) {
    return r;
  }
  StepLayout steps = step_layout(spec, gpu, p, eff);
  if (embedding) {
    return estimate_embedding(steps, r, replicas, detail);
  }
  steps.draft = estimate_detail::draft_pass(spec, p, constants);
  const auto& inf = spec.workload.inference;
  const double isl = inf.mean_prompt_tokens();
  return estimate_generation(steps,
                             kv_cache_geometry(spec, p, constants),
                             prefill_step(steps, isl, isl, estimate_detail::cached_share(inf, isl)),
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
  s.max_num_seqs = engine_cap(spec, *s.memory.policy);
  if (s.memory.max_batch < 1 || s.max_num_seqs.value_or(1) < 1) {
    return s;
  }
  s.steps = step_layout(spec, gpu, p, eff);
  if (!spec.workload.one_pass()) {
    s.steps->draft = estimate_detail::draft_pass(spec, p, constants);
    const auto& inf = spec.workload.inference;
    const double isl = inf.mean_prompt_tokens();
    s.prefill = prefill_step(*s.steps, isl, isl, estimate_detail::cached_share(inf, isl));
  }
  return s;
}

InferencePerformance estimate_inference(const ServingLayout& layout,
                                        const MemoryEstimate& memory,
                                        int replicas,
                                        Detail detail,
                                        std::optional<long long> offered) {
  const Spec& spec = *layout.memory.spec;
  const bool embedding = spec.workload.one_pass();
  InferencePerformance r =
      in_flight(memory, layout.compute_precision, layout.max_num_seqs, embedding, offered);
  if (r.concurrency < 1) {
    return r;
  }
  if (!layout.steps) {
    throw InternalError("estimate_inference: a memory estimate from another layout");
  }
  if (embedding) {
    return estimate_embedding(*layout.steps, r, replicas, detail);
  }
  return estimate_generation(*layout.steps, layout.memory.kv, layout.prefill, r, replicas, detail);
}

} // namespace rightsize
