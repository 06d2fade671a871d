// The memory estimator. Formulas and sources: docs/model.md, "Memory".

#include "bundled.hpp"
#include "decoding.hpp"
#include "engine_policy.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/memory.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

Bytes MemoryBreakdown::total() const {
  return weights + kv_cache + activations + gradients + optimizer + overhead;
}

Bytes KvCacheGeometry::per_sequence(long long tokens) const {
  const auto paged = [this](long long n) {
    return static_cast<double>((n + block - 1) / block * block);
  };
  const long long local_tokens = window > 0 ? std::min(tokens, window + block) : tokens;
  return per_token_global * paged(tokens) + per_token_local * paged(local_tokens) + state;
}

namespace {

double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

// Share of the layers the worst pipeline stage holds.
double stage_layer_share(const ModelArch& m, const Parallelism& p) {
  return ceil_div(static_cast<double>(m.layers), p.pp) / static_cast<double>(m.layers);
}

// Attention weights one tensor-parallel rank holds, as a share of the whole attention block:
// q and o are split by tp; k and v are split too, but each rank keeps at least one KV head
// (vLLM replicates KV heads when kv_heads < tp); MLA's down-projections are replicated.
double attention_tp_share(const ModelArch& m, int tp) {
  if (m.attention_layers() == 0 || m.heads == 0) {
    return 1.0; // no attention weights to share (Mamba alone, a CNN)
  }
  const auto h = static_cast<double>(m.hidden);
  const auto a = static_cast<double>(m.heads);
  const auto t = static_cast<double>(tp);
  if (m.attention == AttentionKind::mla) {
    const auto q_lora = static_cast<double>(m.q_lora_rank);
    const auto kv_lora = static_cast<double>(m.kv_lora_rank);
    const auto rope = static_cast<double>(m.qk_rope_head_dim);
    const double replicated = h * q_lora + h * (kv_lora + rope);
    const double whole = m.params.attention / static_cast<double>(m.layers);
    return (replicated + (whole - replicated) / t) / whole;
  }
  const auto k = static_cast<double>(m.kv_heads);
  const auto d = static_cast<double>(m.head_dim);
  // A gated attention's q_proj is twice as wide (its output gate), split like q.
  const double qo = (m.attention_gate ? 3.0 : 2.0) * h * a * d;
  const double kv = 2.0 * h * k * d;
  const double kv_heads_per_rank = std::ceil(k / t);
  return (qo / t + kv * kv_heads_per_rank / k) / (qo + kv);
}

// Tokens one forward pass of a serving engine takes (transformers aside): max_num_batched_tokens
// (the chunk the engine profiles, `chunk_tokens`), and for an embedding workload at least one
// whole sequence, as its attention is not chunked (vLLM disables chunked prefill for pooling
// models and raises the budget to the model length).
long long batched_tokens(const Spec& spec, double chunk_tokens) {
  const auto& inf = spec.workload.inference;
  const long long budget =
      inf.max_num_batched_tokens.value_or(static_cast<long long>(chunk_tokens));
  return spec.workload.one_pass() ? std::max(budget, inf.input_tokens) : budget;
}

// The same, with the engine's profiled chunk: its budget, or (prompts not chunked, an engine that
// then takes a whole request in one pass, vLLM) at least max_model_len (docs/model.md, "Engine
// settings").
long long batched_tokens(const Spec& spec, const EngineMemoryPolicy& policy) {
  const long long budget = batched_tokens(spec, policy.max_batched_tokens->value);
  if (policy.unchunked_pass == UnchunkedPass::max_model_len && !chunks_prefill(spec, policy)) {
    return std::max(budget, max_model_len(spec));
  }
  return budget;
}

Bytes engine_activation_peak(const Spec& spec,
                             const Parallelism& p,
                             const EngineMemoryPolicy& policy,
                             long long batch) {
  const ModelArch& m = spec.model;
  const auto& inf = spec.workload.inference;
  const double t = p.tp;
  // Hidden states stay in the model's 16-bit dtype when the GEMMs take fp8 or fp4 inputs (the
  // engines quantize each GEMM's input on the fly, a transient copy), so the reserve is counted
  // at 16 bits or more.
  const double bytes = std::max(2.0, activation_element_bytes(spec.precision).si());
  if (spec.generates_images()) {
    // The larger of the denoiser's forward (both guidance branches) and the VAE decode of the
    // whole batch (diffusers decodes it at once unless VAE slicing is enabled).
    const auto& g = *inf.generation;
    return Bytes(static_cast<double>(batch) * m.diffusion->activation_elements(g.height, g.width) *
                 bytes);
  }
  if (m.image && m.image->cnn) {
    // A CNN's pass over the batch at once (transformers): the feature maps alive at its peak.
    return Bytes(static_cast<double>(batch) * m.image->cnn->peak_activation_elements * bytes);
  }
  // Tokens in one forward pass: the engine's prefill chunk, or (transformers) the whole batch.
  double tokens = 0;
  double sequences = 0;
  double scores = 0;
  if (policy.activation_peak == ActivationPeak::whole_batch) {
    tokens = static_cast<double>(batch * inf.prompt_tokens());
    sequences = static_cast<double>(batch);
    if (m.encoder_decoder && m.mel_bins == 0) {
      // T5 (docs/model.md "Text-to-text workloads"): generate() first runs the encoder over the
      // whole batch's inputs, and T5Attention is eager (no fused kernel takes its relative
      // position bias): each layer holds its scores in the activations' dtype, the position
      // bias broadcast to the same shape (kept across layers), and softmax's fp32 input and
      // output (transformers modeling_t5.py: scores += position_bias_masked;
      // softmax(scores.float()).type_as(scores)).
      const auto positions = static_cast<double>(m.encoder_positions);
      tokens = static_cast<double>(batch) * positions;
      scores = static_cast<double>(batch) * static_cast<double>(m.heads) / t * positions *
               positions * (2.0 * bytes + 2.0 * 4.0);
    }
  } else {
    tokens = static_cast<double>(batched_tokens(spec, policy));
    sequences = std::min(static_cast<double>(*engine_cap(spec, policy)), tokens);
  }
  const auto h = static_cast<double>(m.hidden);
  const auto a = static_cast<double>(m.heads);
  const auto k = static_cast<double>(m.kv_heads);
  const auto d = static_cast<double>(m.head_dim);
  const double attention_width = ((a + 2.0 * k) * d + a * d) / t;
  double mlp_width = (m.gated_mlp ? 3.0 : 2.0) * static_cast<double>(m.intermediate) / t;
  if (m.is_moe()) {
    // Each expert's intermediate is split over the GPUs of its expert group (all tp of them
    // without expert parallelism).
    const double expert_split = p.ep > 1 ? p.expert_tp : t;
    mlp_width = static_cast<double>(m.experts_active) * 3.0 *
                    static_cast<double>(m.moe_intermediate) / expert_split +
                static_cast<double>(m.shared_experts) * 3.0 *
                    static_cast<double>(m.shared_expert_intermediate) / t;
  }
  // Residual stream + normed hidden state + the widest block's intermediates.
  const double per_token = bytes * (2.0 * h + std::max(attention_width, mlp_width));
  // Logits of the last token of each sequence, in fp32, plus the sampler's copy; an embedding
  // workload pools the hidden states instead.
  const double logits =
      spec.workload.one_pass() ? 0.0 : sequences * static_cast<double>(m.vocab) * 4.0 * 2.0;
  return Bytes(tokens * per_token + logits + scores);
}

} // namespace

namespace {

double optimizer_state_count(Optimizer o) {
  switch (o) {
  case Optimizer::adam:
  case Optimizer::adamw:
    return 2.0;
  case Optimizer::sgd:
    return 1.0; // momentum
  case Optimizer::adafactor:
    return 0.0; // factored second moment: O(rows + cols), negligible; no first moment by default
  case Optimizer::adam_8bit:
    return 2.0;
  }
  return 2.0;
}

double optimizer_state_bytes(Optimizer o, DType states) {
  if (o == Optimizer::adam_8bit) {
    // bitsandbytes 8-bit Adam: one byte per state plus an fp32 absmax per block of 2048.
    return 2.0 * (1.0 + 4.0 / 2048.0);
  }
  return optimizer_state_count(o) * element_bytes(states).si();
}

} // namespace

WeightBytes weights_per_gpu(const ModelArch& m, const Quantization& q, const Parallelism& p) {
  const WeightBytes whole = weight_bytes(m, q);
  const double t = p.tp;
  const double layer_share = stage_layer_share(m, p);
  WeightBytes w;
  w.attention = whole.attention * attention_tp_share(m, p.attention_tp()) * layer_share;
  w.dense_mlp = whole.dense_mlp / t * layer_share;
  w.routed_experts = whole.routed_experts / static_cast<double>(p.expert_shards()) * layer_share;
  w.shared_experts = whole.shared_experts / t * layer_share;
  w.state_space = whole.state_space / t * layer_share; // split by heads (channels) as vLLM does
  w.vision = whole.vision / t; // split by tp, whole on the first pipeline stage
  w.other = whole.other * layer_share;
  w.text_tower = whole.text_tower * layer_share;
  w.diffusion = whole.diffusion; // a diffusers pipeline is whole on one GPU (no TP, no PP)
  // Embedding and lm_head are vocab-parallel over tp; with pipelining the first stage holds the
  // embedding and the last the lm_head (a tied one is copied there), the worse of the two counts.
  const double emb = m.params.embedding;
  const double head = m.tied_embeddings ? m.params.embedding : m.params.lm_head;
  const double both = m.params.embedding + m.params.lm_head;
  const double share = p.pp == 1 ? 1.0 : std::max(emb, head) / both;
  w.embedding = whole.embedding * share / t;
  return w;
}

namespace {

// The engine's KV allocation granularity in tokens; one without paged blocks (transformers'
// DynamicCache grows by concatenation) allocates token by token.
long long kv_block_tokens(Engine e, const Constants& c) {
  const auto& block = c.engine(e).kv_block_tokens;
  return block ? std::max(1LL, static_cast<long long>(block->value)) : 1LL;
}

} // namespace

KvCacheGeometry kv_cache_geometry(const Spec& spec, const Parallelism& p, const Constants& c) {
  const ModelArch& m = spec.model;
  const double bytes = element_bytes(spec.precision.kv_cache).si();
  double per_layer = 0;
  if (m.attention == AttentionKind::mla) {
    // The compressed latent and the shared rope key, identical on every tensor-parallel rank.
    per_layer = static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) * bytes;
  } else {
    const double heads_per_rank = std::ceil(static_cast<double>(m.kv_heads) / p.attention_tp());
    per_layer = heads_per_rank * static_cast<double>(m.head_dim + m.v_head_dim) * bytes;
  }
  const double share = stage_layer_share(m, p);
  KvCacheGeometry g;
  if (m.encoder_only) {
    // Bidirectional attention over the whole sequence in one pass: nothing is cached between
    // steps (vLLM's encoder-only attention has no KV cache).
    return g;
  }
  if (m.encoder_decoder) {
    // The decoder's layers cache their own tokens' keys and values (self-attention) and, per
    // sequence, those of the encoder output (cross-attention): encoder_positions of them in
    // every decoder layer, written once after the encoder pass and read at every decode step
    // (vLLM's CrossAttentionSpec; docs/model.md "Transcription workloads"). Pipeline stages are
    // not planned for encoder-decoders: the decoder's layers all sit on each GPU.
    g.per_token_global = Bytes(per_layer * static_cast<double>(m.decoder_layers));
    g.block = kv_block_tokens(spec.workload.inference.engine, c);
    const auto paged = (m.encoder_positions + g.block - 1) / g.block * g.block;
    g.state = Bytes(per_layer * static_cast<double>(m.decoder_layers) * static_cast<double>(paged));
    return g;
  }
  g.per_token_global = Bytes(per_layer * static_cast<double>(m.global_layers()) * share);
  g.per_token_local = Bytes(per_layer * static_cast<double>(m.local_layers()) * share);
  g.window = m.sliding_window;
  if (m.recurrent_layers() > 0) {
    // Each recurrent layer (Mamba, Gated DeltaNet) keeps, per sequence, its convolution's last
    // inputs in the activations' dtype and its SSM (delta-rule) state in mamba_ssm_cache_dtype
    // (vLLM's default: the model's dtype), split by tensor parallelism (vLLM
    // MambaStateShapeCalculator, MambaStateDtypeCalculator; docs/model.md).
    const double act = activation_element_bytes(spec.precision).si();
    const double ssm_bytes = m.ssm.state_dtype ? element_bytes(*m.ssm.state_dtype).si() : act;
    const double per_mamba_layer =
        m.ssm.conv_state_elements(p.tp) * act + m.ssm.ssm_state_elements(p.tp) * ssm_bytes;
    g.state = Bytes(per_mamba_layer * static_cast<double>(m.recurrent_layers()) * share);
  }
  g.block = kv_block_tokens(spec.workload.inference.engine, c);
  g.ranks = p.attention_dp;
  return g;
}

namespace {

// training_activations_per_layer at a given micro-batch and recompute mode (the search varies
// them without copying the spec).
TrainingActivationTerms
activation_terms(const Spec& spec, const Parallelism& p, long long micro, Recompute recompute) {
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  const auto h = static_cast<double>(m.hidden);
  const auto a = static_cast<double>(m.heads);
  const double q_width = static_cast<double>(m.heads * m.head_dim) / h; // a*d / h
  const double kv_width = static_cast<double>(m.kv_heads * m.head_dim) / h;
  const double t = p.tp;
  const bool sp = w.sequence_parallel && p.tp > 1;
  const double dropout_mask = w.dropout ? 1.0 : 0.0;
  // Korthikanti et al. 2022, section 4.1, per transformer layer in units of s*b*h bytes:
  // replicated across tensor-parallel ranks unless sequence parallelism splits them:
  //   attention LayerNorm input 2, QKV input 2, attention dropout mask 1,
  //   MLP LayerNorm input 2, MLP input 2, MLP dropout mask 1          -> 10 for GPT-3
  const double replicated = 2.0 + 2.0 + dropout_mask + 2.0 + 2.0 + dropout_mask;
  // split by tensor parallelism: Q 2, K 2, V 2, attention output 2, and the MLP intermediates:
  // plain GELU MLP: GELU input 2*I/h + GELU output 2*I/h (16 at I = 4h)      -> 24 for GPT-3
  // gated SwiGLU MLP: gate, SiLU(gate), up, product: 8*I/h
  double mlp = 0;
  if (m.is_moe()) {
    // Each token's activations go through experts_active experts (and the shared ones).
    mlp = 8.0 *
          static_cast<double>(m.experts_active * m.moe_intermediate +
                              m.shared_experts * m.shared_expert_intermediate) /
          h;
  } else {
    mlp = (m.gated_mlp ? 8.0 : 4.0) * static_cast<double>(m.intermediate) / h;
  }
  const double split = 2.0 * q_width + 4.0 * kv_width + 2.0 * q_width + mlp;
  // The a*s^2*b attention terms: softmax output 2, its dropout mask 1 and dropout output 2. Flash
  // attention and selective recompute never store them.
  double s2 = 0;
  if (!w.flash_attention && recompute == Recompute::none) {
    s2 = 2.0 + (w.dropout ? 3.0 : 0.0);
  }
  // Context parallel: each rank keeps the activations of its s / cp tokens; its queries attend
  // to all s keys, so the a*s^2*b terms also shrink by cp (Llama 3 paper, section 3.3.2).
  const auto s = static_cast<double>(w.seq_len) / static_cast<double>(p.cp);
  const auto keys = static_cast<double>(w.seq_len);
  const auto b = static_cast<double>(micro);
  TrainingActivationTerms terms;
  terms.per_layer_sbh = replicated + split;
  terms.per_layer_s2 = s2;
  double bytes_per_layer =
      s * b * h * ((sp ? replicated / t : replicated) + split / t) + s2 * a * s * keys * b / t;
  if (w.flash_attention && recompute != Recompute::full) {
    bytes_per_layer += 4.0 * a * s * b / t; // fp32 log-sum-exp per row
  }
  if (recompute == Recompute::full) {
    bytes_per_layer = 2.0 * s * b * h / (sp ? t : 1.0); // only the layer input is kept
  }
  terms.per_layer = Bytes(bytes_per_layer);
  return terms;
}

} // namespace

TrainingActivationTerms training_activations_per_layer(const Spec& spec, const Parallelism& p) {
  const auto& w = spec.workload.training;
  return activation_terms(spec, p, w.micro_batch, w.recompute);
}

namespace {

// --- Shared terms ------------------------------------------------------------------------------

Bytes cuda_context_bytes(const Constants& c) {
  return mib(c.get(Constant::cuda_context_mib)) + mib(c.get(Constant::cublas_workspace_mib));
}

// The constants cuda_context_bytes reads, cuBLAS first: the order reports have always listed them
// in (golden outputs depend on it).
std::vector<std::string_view> cuda_context_constants() {
  return {"cublas_workspace_mib", "cuda_context_mib"};
}

// The constants the estimate read, in the order given, as its assumptions.
std::vector<Assumption> recorded_assumptions(const Constants& c,
                                             const std::vector<std::string_view>& names) {
  std::vector<Assumption> out;
  out.reserve(names.size());
  for (const std::string_view name : names) {
    out.push_back(c.assumption(name));
  }
  return out;
}

// The largest n >= 0 with fits(n), for a monotonic fits: doubling (up to about `limit`), then
// bisection.
template <typename Fits> long long largest_that_fits(long long limit, const Fits& fits) {
  long long lo = 0;
  long long hi = 1;
  while (hi < limit && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi - lo <= 1) {
    return lo;
  }
  return first_holding(lo, hi, [&](long long n) { return !fits(n); }) - 1;
}

// --- Inference ---------------------------------------------------------------------------------

bool inference_uses_nccl(const Parallelism& p) {
  return p.tp > 1 || p.pp > 1;
}

// What the runtime holds whatever the batch: CUDA context, NCCL buffers, captured CUDA graphs.
Bytes inference_fixed_overhead(const EngineMemoryPolicy& policy,
                               const Parallelism& p,
                               const Constants& c) {
  Bytes overhead = cuda_context_bytes(c);
  if (inference_uses_nccl(p)) {
    overhead += mib(c.get(Constant::nccl_buffers_mib));
  }
  if (policy.cuda_graphs_mib) {
    overhead += mib(policy.cuda_graphs_mib->value);
  }
  return overhead;
}

// The share of the GPU the engine lets itself use.
double engine_memory_fraction(const InferenceWorkload& inf, const EngineMemoryPolicy& policy) {
  if (!policy.memory_fraction) {
    return 1.0;
  }
  return inf.gpu_memory_utilization.value_or(policy.memory_fraction->value);
}

// Activation peak and overhead at a given batch.
struct NonKvBytes {
  Bytes activations;
  Bytes overhead;
};

NonKvBytes non_kv_bytes(const Spec& spec,
                        const Parallelism& p,
                        const InferenceMemoryLayout& s,
                        long long batch) {
  const Bytes activations = engine_activation_peak(spec, p, *s.policy, batch);
  Bytes fragmentation;
  if (s.policy->allocator_fragmentation) {
    fragmentation = activations * s.fragmentation;
  }
  return {activations, s.fixed_overhead + fragmentation};
}

// Everything on the GPU but the KV cache.
Bytes outside_kv(const InferenceMemoryLayout& s, const NonKvBytes& non_kv) {
  return s.weights + non_kv.activations + non_kv.overhead;
}

// The engine's own budget, given what lies outside the KV cache.
Bytes engine_budget(const InferenceMemoryLayout& s, Bytes rest) {
  if (s.policy->fraction_of == FractionOf::free_memory) {
    // KV cache gets a fraction of what is free after weights, activations and overhead.
    return rest + (s.capacity - rest) * s.fraction;
  }
  return s.capacity * s.fraction;
}

bool batch_fits(const Spec& spec,
                const Parallelism& p,
                const InferenceMemoryLayout& s,
                long long batch) {
  const Bytes rest = outside_kv(s, non_kv_bytes(spec, p, s, batch));
  return rest + s.kv_per_sequence * static_cast<double>(batch) <= engine_budget(s, rest);
}

// The most sequences that fit: closed form when activations do not depend on the batch (serving
// engines profile a fixed chunk), a search when they do (transformers).
long long max_batch(const Spec& spec, const Parallelism& p, const InferenceMemoryLayout& s) {
  if (s.policy->activation_peak == ActivationPeak::whole_batch) {
    return largest_that_fits(10'000'000,
                             [&](long long batch) { return batch_fits(spec, p, s, batch); });
  }
  const Bytes rest = outside_kv(s, non_kv_bytes(spec, p, s, 1));
  const Bytes pool = engine_budget(s, rest) - rest;
  if (pool.si() <= 0) {
    return 0;
  }
  if (spec.workload.one_pass()) {
    // One forward pass: the sequences the batched-token budget holds (and, for a decoder used
    // for embeddings, the KV cache).
    const long long per_pass =
        batched_tokens(spec, *s.policy) / spec.workload.inference.input_tokens;
    return s.kv_per_sequence.si() > 0
               ? std::min(per_pass, static_cast<long long>(std::floor(pool / s.kv_per_sequence)))
               : per_pass;
  }
  return static_cast<long long>(std::floor(pool / s.kv_per_sequence)) * s.kv.ranks;
}

// The longest single sequence the pool holds, before the model's own limit.
long long longest_sequence(const KvCacheGeometry& kv, Bytes pool) {
  return largest_that_fits(100'000'000,
                           [&](long long tokens) { return kv.per_sequence(tokens) <= pool; });
}

std::vector<std::string> inference_notes(const Spec& spec,
                                         const EngineMemoryPolicy& policy,
                                         const MemoryEstimate& e,
                                         long long longest,
                                         long long context_tokens) {
  const ModelArch& m = spec.model;
  std::vector<std::string> notes;
  if (spec.workload.one_pass() && e.batch > e.max_batch && e.kv_per_sequence.si() <= 0) {
    notes.push_back(fmt::format("{} concurrent {} of {} tokens; one forward pass takes {} "
                                "of them ({} batched tokens), the rest wait for the next",
                                e.batch,
                                spec.per_image() ? "images" : "sequences",
                                context_tokens,
                                e.max_batch,
                                batched_tokens(spec, policy)));
    return notes;
  }
  // A transcription's windows are bounded by the decoder's 448 positions by construction.
  if (m.max_position > 0 && longest > m.max_position && e.kv_per_token.si() > 0 &&
      !m.encoder_decoder) {
    notes.push_back(fmt::format("the longest context is capped by the model's "
                                "max_position_embeddings ({}), not by memory",
                                m.max_position));
  }
  if (e.batch > e.max_batch) {
    notes.push_back(fmt::format("{} concurrent sequences of {} tokens need {} of KV cache per "
                                "GPU; the engine has {} for it (at most {} sequences)",
                                e.batch,
                                context_tokens,
                                fmt::format("{:.1f} GiB", to_gib(e.per_gpu.kv_cache)),
                                fmt::format("{:.1f} GiB", to_gib(e.kv_pool)),
                                e.max_batch));
  }
  return notes;
}

// The constants the inference steps read, in the order reports list them: the engine's after the
// runtime's (its memory fraction listed even when gpu_memory_utilization overrides it).
std::vector<std::string_view> inference_assumption_names(const EngineMemoryPolicy& policy,
                                                         const Parallelism& p) {
  std::vector<std::string_view> names = cuda_context_constants();
  if (inference_uses_nccl(p)) {
    names.emplace_back("nccl_buffers_mib");
  }
  const std::vector<std::string_view> engine = policy.constant_names();
  names.insert(names.end(), engine.begin(), engine.end());
  return names;
}

// Activation peak and overhead at `batch` sequences.
NonKvBytes non_kv_at(const InferenceMemoryLayout& s, long long batch) {
  if (s.policy->activation_peak == ActivationPeak::profiled_chunk) {
    return {s.activations, s.overhead}; // the engine's fixed chunk, whatever the batch
  }
  return non_kv_bytes(*s.spec, s.p, s, batch);
}

} // namespace

InferenceMemoryLayout inference_memory_layout(const Spec& spec,
                                              const Gpu& gpu,
                                              const Parallelism& p,
                                              const Constants& c) {
  const auto& inf = spec.workload.inference;
  InferenceMemoryLayout s;
  s.spec = &spec;
  s.gpu = &gpu;
  s.p = p;
  s.constants = &c;
  s.kv = kv_cache_geometry(spec, p, c);
  s.context_tokens = inf.longest_request();
  s.engine = inf.engine;
  s.policy = &engine_policy(spec, gpu, c);
  s.capacity = gpu.plannable_memory();
  // Speculative decoding's drafter and prefix caching's resident prefixes (decoding.hpp).
  if (const auto draft = estimate_detail::draft_pass(spec, p, c)) {
    s.draft_weights = draft->resident;
    s.draft_kv_per_sequence = draft->kv.per_sequence(s.context_tokens);
  }
  s.prefix_per_sequence = estimate_detail::cached_prefix_per_sequence(spec, s.kv);
  s.weights = weights_per_gpu(spec.model, spec.weights, p).total() + s.draft_weights;
  s.kv_per_sequence =
      s.kv.per_sequence(s.context_tokens) + s.prefix_per_sequence + s.draft_kv_per_sequence;
  s.fixed_overhead = inference_fixed_overhead(*s.policy, p, c);
  s.fraction = engine_memory_fraction(inf, *s.policy);
  s.fragmentation =
      s.policy->allocator_fragmentation ? s.policy->allocator_fragmentation->value : 0.0;
  const NonKvBytes one = non_kv_bytes(spec, p, s, 1);
  s.activations = one.activations;
  s.overhead = one.overhead;
  s.max_batch = max_batch(spec, p, s);
  return s;
}

MemoryEstimate
estimate_memory(const InferenceMemoryLayout& s, std::optional<long long> batch, Detail detail) {
  const Spec& spec = *s.spec;
  const auto& inf = spec.workload.inference;
  MemoryEstimate e;
  e.capacity = s.capacity;
  e.per_gpu.weights = s.weights;
  e.kv_per_token = s.kv.per_token_global + s.kv.per_token_local;
  e.kv_per_sequence = s.kv_per_sequence;
  e.kv_fixed_per_sequence = s.kv.state;
  e.max_batch = s.max_batch;
  e.batch = batch.value_or(inf.concurrency.value_or(e.max_batch));
  const NonKvBytes at_batch = non_kv_at(s, std::max(1LL, e.batch));
  e.per_gpu.activations = at_batch.activations;
  e.per_gpu.overhead = at_batch.overhead;
  const double sequences = s.kv.sequences_per_gpu(static_cast<double>(e.batch));
  e.per_gpu.kv_cache = e.kv_per_sequence * sequences;
  e.kv_prefix_cache = s.prefix_per_sequence * sequences;
  e.kv_draft = s.draft_kv_per_sequence * sequences;
  e.draft_weights = s.draft_weights;
  const Bytes rest = outside_kv(s, at_batch);
  e.budget = engine_budget(s, rest);
  e.kv_pool = max(Bytes(0), e.budget - rest);
  e.fits = e.batch >= 1 && rest < e.budget && e.per_gpu.total() <= e.budget;
  if (detail == Detail::numbers) {
    return e;
  }
  const long long longest = longest_sequence(s.kv, e.kv_pool);
  const ModelArch& m = spec.model;
  e.max_context = m.max_position > 0 ? std::min(longest, m.max_position) : longest;
  e.notes = inference_notes(spec, *s.policy, e, longest, s.context_tokens);
  e.assumptions = recorded_assumptions(*s.constants, inference_assumption_names(*s.policy, s.p));
  return e;
}

namespace {

// --- Training and fine-tuning ------------------------------------------------------------------

// Per-GPU bytes of the parameters and what they carry for training.
struct ParameterBytes {
  double trainable_params = 0;
  double bytes_per_param = 0;
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
};

// The frozen base in its own storage (nf4 for QLoRA), the adapters in fp32 with Adam.
ParameterBytes lora_parameter_bytes(const Spec& spec, const Parallelism& p, const Constants& c) {
  const ModelArch& m = spec.model;
  ParameterBytes b;
  b.weights = weights_per_gpu(m, spec.weights, p).total().si();
  b.trainable_params = lora_parameters(spec) * stage_layer_share(m, p) / p.tp;
  const double adapter = c.get(Constant::lora_adapter_bytes_per_param);
  b.weights += b.trainable_params * adapter * 4.0 / 16.0;
  b.gradients = b.trainable_params * adapter * 4.0 / 16.0;
  b.optimizer = b.trainable_params * adapter * 8.0 / 16.0;
  b.bytes_per_param = adapter;
  return b;
}

ParameterBytes full_parameter_bytes(const Spec& spec, const Parallelism& p) {
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  const TrainingPrecision& tp = w.precision;
  // ZeRO shards over every rank that holds the same weights: data- and context-parallel ones
  // (Megatron-Core's distributed optimizer shards over its DP x CP group).
  const double dp = static_cast<double>(p.dp) * p.cp;
  // Parameters on this GPU (tensor, pipeline and expert parallel split), as a share of the model.
  // Made once: the training search reads it in every evaluation.
  static const Quantization unquantized = quantization_for(DType::bf16, DType::bf16);
  const double share =
      weights_per_gpu(m, unquantized, p).total() / weight_bytes(m, unquantized).total();
  const double params_here = m.params_total * share;
  const double weight = element_bytes(tp.weights).si();
  const double grad = element_bytes(tp.gradients).si();
  const double master = tp.master_weights && *tp.master_weights != tp.weights
                            ? element_bytes(*tp.master_weights).si()
                            : 0.0;
  const double states = optimizer_state_bytes(w.optimizer, tp.optimizer_states);
  // fp8 GEMMs: Transformer Engine keeps an fp8 copy of each weight and of its transpose (Hopper's
  // fp8 tensor cores take only TN layouts; Blackwell's MXFP8 keeps row- and column-wise copies):
  // 2 bytes per parameter beside the bf16 weights (TransformerEngine issues #1261, #1880).
  const double fp8_copies = tp.compute == DType::fp8 ? 2.0 * element_bytes(DType::fp8).si() : 0.0;
  ParameterBytes b;
  b.trainable_params = params_here;
  b.bytes_per_param = weight + fp8_copies + grad + master + states;
  // ZeRO: stage 1 shards optimizer states (and master weights), 2 also gradients, 3 also
  // the weights, over the data-parallel group, times cp (Rajbhandari et al. 2020).
  b.weights = params_here * (weight + fp8_copies) / (w.zero_stage >= 3 ? dp : 1.0);
  b.gradients = params_here * grad / (w.zero_stage >= 2 ? dp : 1.0);
  b.optimizer = params_here * (master + states) / (w.zero_stage >= 1 ? dp : 1.0);
  return b;
}

// Micro-batches whose activations the first pipeline stage holds at once.
double microbatches_in_flight(const TrainingWorkload& w, const Parallelism& p, long long micro) {
  const double dp = p.dp;
  const double microbatches =
      std::max(1.0, static_cast<double>(w.global_batch) / (static_cast<double>(micro) * dp));
  double in_flight = std::min<double>(p.pp, microbatches);
  if (p.pp > 1 && w.pipeline_interleave > 1) {
    in_flight *= 1.0 + (p.pp - 1.0) / (p.pp * static_cast<double>(w.pipeline_interleave));
  }
  return in_flight;
}

Constant loss_constant(Framework framework) {
  return framework == Framework::megatron ? Constant::megatron_loss_bytes_per_logit
                                          : Constant::hf_loss_bytes_per_logit;
}

// The loss: logits of every token (vocab-parallel over tp), on the last stage.
Bytes loss_logits_bytes(const Spec& spec,
                        const Parallelism& p,
                        const Constants& c,
                        long long micro) {
  const auto& w = spec.workload.training;
  const double loss_bytes = c.get(loss_constant(w.framework));
  return Bytes(static_cast<double>(w.seq_len * micro) * static_cast<double>(spec.model.vocab) *
               loss_bytes / (p.tp * p.cp));
}

// Activations on the first pipeline stage: its layers for every micro-batch in flight.
Bytes training_activations(const Spec& spec,
                           const Parallelism& p,
                           const Constants& c,
                           long long micro) {
  const auto& w = spec.workload.training;
  const TrainingActivationTerms terms = activation_terms(spec, p, micro, w.recompute);
  const double layers_here = std::ceil(static_cast<double>(spec.model.layers) / p.pp);
  Bytes activations = terms.per_layer * layers_here * microbatches_in_flight(w, p, micro);
  if (w.recompute == Recompute::full) {
    // One layer is recomputed at a time: its full activations exist transiently.
    activations += activation_terms(spec, p, micro, Recompute::selective).per_layer;
  }
  const Bytes logits = loss_logits_bytes(spec, p, c, micro);
  if (p.pp == 1) {
    return activations + logits;
  }
  return max(activations, terms.per_layer * layers_here + logits);
}

bool training_uses_nccl(const Parallelism& p) {
  return p.tp > 1 || p.pp > 1 || p.dp > 1 || p.cp > 1;
}

Bytes training_overhead(const Parallelism& p,
                        const Constants& c,
                        Bytes activations,
                        Bytes gradients) {
  Bytes overhead = cuda_context_bytes(c);
  if (training_uses_nccl(p)) {
    overhead += mib(c.get(Constant::nccl_buffers_mib));
  }
  overhead += (activations + gradients) * c.get(Constant::allocator_fragmentation);
  return overhead;
}

// The constants the training steps read, in the order reports list them.
std::vector<std::string_view> training_assumption_names(const TrainingWorkload& w,
                                                        const Parallelism& p) {
  std::vector<std::string_view> names = cuda_context_constants();
  if (w.method != FinetuneMethod::full) {
    names.emplace_back("lora_adapter_bytes_per_param");
  }
  names.push_back(constant_name(loss_constant(w.framework)));
  if (training_uses_nccl(p)) {
    names.emplace_back("nccl_buffers_mib");
  }
  names.emplace_back("allocator_fragmentation");
  return names;
}

MemoryEstimate training_memory(const Spec& spec,
                               const Gpu& gpu,
                               const Parallelism& p,
                               const Constants& c,
                               std::optional<long long> batch,
                               Detail detail) {
  const auto& w = spec.workload.training;
  const ParameterBytes params = w.method == FinetuneMethod::full ? full_parameter_bytes(spec, p)
                                                                 : lora_parameter_bytes(spec, p, c);
  const long long micro = batch.value_or(w.micro_batch);
  MemoryEstimate e;
  e.capacity = gpu.plannable_memory();
  e.precision_recipe = w.precision.name;
  e.trainable_params = params.trainable_params;
  e.bytes_per_param = params.bytes_per_param;
  e.per_gpu.weights = Bytes(params.weights);
  e.per_gpu.gradients = Bytes(params.gradients);
  e.per_gpu.optimizer = Bytes(params.optimizer);
  e.per_gpu.activations = training_activations(spec, p, c, micro);
  e.per_gpu.overhead = training_overhead(p, c, e.per_gpu.activations, e.per_gpu.gradients);
  e.batch = micro;
  e.budget = e.capacity;
  e.fits = e.per_gpu.total() <= e.capacity;
  if (detail == Detail::full) {
    e.assumptions = recorded_assumptions(c, training_assumption_names(w, p));
  }
  return e;
}

} // namespace

MemoryEstimate estimate_memory(const Spec& spec,
                               const Gpu& gpu,
                               const Parallelism& p,
                               const Constants& c,
                               std::optional<long long> batch,
                               Detail detail) {
  if (spec.workload.is_training()) {
    return training_memory(spec, gpu, p, c, batch, detail);
  }
  return estimate_memory(inference_memory_layout(spec, gpu, p, c), batch, detail);
}

} // namespace rightsize
