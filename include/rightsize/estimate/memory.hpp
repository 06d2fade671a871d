#pragma once

// Estimating what a workload needs on one GPU configuration: memory (this file), and later
// compute, latency and interconnect. Every term is a named formula in docs/model.md.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/names.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/spec/spec.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// How one replica is laid out. GPUs per replica = tp * pp; dp replicas (training) multiply it.
// Routed experts are spread over ep x expert_tp GPUs: ep groups each hold 1/ep of the experts,
// each expert split over expert_tp GPUs (a serving replica's tp GPUs are ep x tp / ep: SGLang's
// moe_tp_size = tp_size // ep_size, TensorRT-LLM's moe_tp_size = tp_size // moe_ep_size; training
// is Megatron-Core with --expert-tensor-parallel-size 1, experts whole over ep | tp * dp GPUs).
// Serving replicas may run attention data-parallel: attention_dp groups of tp / attention_dp
// GPUs, each group attending to its own requests and holding only their KV cache, the MLP and
// experts still over all tp GPUs (SGLang --enable-dp-attention, vLLM --data-parallel-size with
// expert parallelism, TensorRT-LLM enable_attention_dp; docs/model.md "Attention data
// parallelism").
struct Parallelism {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1;
  int expert_tp = 1;    // read only when ep > 1
  int attention_dp = 1; // serving only; divides tp
  // Context parallel (training only): each sequence split over cp GPUs, which hold the same
  // weights as data-parallel ranks do (Llama 3's rank order: TP, CP, PP, DP, innermost first).
  int cp = 1;
  [[nodiscard]] int gpus() const { return tp * cp * pp * dp; }
  // GPUs one attention group's heads are split over.
  [[nodiscard]] int attention_tp() const { return tp / attention_dp; }
  // GPUs the routed experts are spread over (each GPU holds 1/this of their weights).
  [[nodiscard]] int expert_shards() const { return ep > 1 ? ep * expert_tp : tp; }
};

// A serving replica's layout: tp x pp GPUs, experts over ep groups of tp / ep GPUs, attention over
// attention_dp groups of tp / attention_dp GPUs (ep and attention_dp divide tp).
Parallelism serving_parallelism(int tp, int pp = 1, int ep = 1, int attention_dp = 1);

// Why `p`'s attention data parallelism cannot serve `spec` (the engine has none, the model has no
// attention to split, the groups do not divide tp), or nullopt when it can or p has none.
std::optional<std::string> attention_dp_refusal(const Spec& spec, const Parallelism& p);

// A named constant of the model, with its value and where it comes from. Shown in reports.
struct Assumption {
  std::string name;
  double value = 0;
  std::string source;
};

// The constants the estimator reads whatever the engine. Each is a field of data/memory.json under
// the same name; reads go through this index so that an evaluation does no string look-up. The
// constants of one engine (its memory fraction, its block size) are read through its
// EngineMemoryPolicy instead, which names them.
enum class Constant : std::size_t {
  cuda_context_mib,
  cublas_workspace_mib,
  nccl_buffers_mib,
  cuda_graphs_mib,
  allocator_fragmentation,
  max_num_batched_tokens,
  max_num_seqs,
  hf_loss_bytes_per_logit,
  megatron_loss_bytes_per_logit,
  lora_adapter_bytes_per_param,
  count
};

// The name of a constant in data/memory.json.
std::string_view constant_name(Constant c);

// A constant of data/memory.json as an engine's policy names it, with its value (kept in step
// with --assume overrides).
struct PolicyConstant {
  std::string name;
  double value = 0;
};

// What the activation reserve of a serving estimate is: the peak of one profiled forward pass of
// a fixed chunk (max_batched_tokens tokens, max_sequences sequences' logits), whatever the batch,
// as serving engines profile it at start-up; or the peak of one forward pass over the whole
// batch's prompts (transformers' generate), which grows with the batch.
enum class ActivationPeak { profiled_chunk, whole_batch };
inline constexpr NameRow<ActivationPeak> k_activation_peak_rows[] = {
    {ActivationPeak::profiled_chunk, "profiled_chunk"},
    {ActivationPeak::whole_batch, "whole_batch"}};
inline constexpr NameTable<ActivationPeak> k_activation_peak_names{k_activation_peak_rows};

// What the memory fraction is a share of: the GPU's capacity (vLLM, SGLang: weights,
// activations, overhead and KV cache all fit in it), or the memory still free after the weights,
// activations and overhead, which the KV cache takes that share of (TensorRT-LLM).
enum class FractionOf { capacity, free_memory };
inline constexpr NameRow<FractionOf> k_fraction_of_rows[] = {
    {FractionOf::capacity, "capacity"}, {FractionOf::free_memory, "free_memory"}};
inline constexpr NameTable<FractionOf> k_fraction_of_names{k_fraction_of_rows};

// Whether an engine splits long prompts into chunks of its token budget: always, never, or (vLLM's
// V0 engine) only when the longest request it admits (max_model_len) exceeds 32K tokens.
enum class ChunkedPrefill { on, off, long_context };
inline constexpr NameRow<ChunkedPrefill> k_chunked_prefill_rows[] = {
    {ChunkedPrefill::on, "on"},
    {ChunkedPrefill::off, "off"},
    {ChunkedPrefill::long_context, "long_context"}};
inline constexpr NameTable<ChunkedPrefill> k_chunked_prefill_names{k_chunked_prefill_rows};

// The tokens one forward pass takes when prompts are not chunked: the engine's budget as it is
// (TensorRT-LLM's max_num_tokens; a longer prompt is refused), or at least max_model_len (vLLM
// sets max_num_batched_tokens to max_model_len, and profiles its activations with that many).
enum class UnchunkedPass { budget, max_model_len };
inline constexpr NameRow<UnchunkedPass> k_unchunked_pass_rows[] = {
    {UnchunkedPass::budget, "budget"}, {UnchunkedPass::max_model_len, "max_model_len"}};
inline constexpr NameTable<UnchunkedPass> k_unchunked_pass_names{k_unchunked_pass_rows};

// Defaults of an engine that depend on the GPU or on the engine's version (data/memory.json,
// engines.<engine>.tiers): the first tier whose condition holds replaces the roles it names.
// vLLM's V1 engine raises max_num_seqs and max_num_batched_tokens on GPUs of 70 GiB or more
// (not A100s); SGLang's chunk grows with the GPU's memory; vLLM before 0.8 (the V0 engine) has
// other defaults.
struct EngineTier {
  std::optional<double> below_gib;      // GPUs with less memory than this (GiB)
  std::vector<std::string> generations; // GPUs of these generations (sm80)
  std::string before_version;           // engine versions older than this ("0.8.0")
  std::optional<PolicyConstant> max_batched_tokens;
  std::optional<PolicyConstant> max_sequences;
  std::optional<ChunkedPrefill> chunked_prefill;
  std::string source;
};

// One engine's memory policy: which constant of data/memory.json plays which role for it (its
// "engines" section, one row per engine, with its source). A role the engine has no constant for
// is absent: transformers has no memory fraction (it may use the whole GPU), no paged blocks (its
// cache grows one token at a time), no CUDA graphs and no profiled chunk. The estimator reads
// these instead of branching on the engine (src/estimate/memory.cpp).
struct EngineMemoryPolicy {
  std::string engine; // as specs name it (k_engine_names)
  // The share of memory the engine lets itself use (a spec's gpu_memory_utilization overrides
  // it); absent: all of it, and the spec's override does not apply.
  std::optional<PolicyConstant> memory_fraction;
  FractionOf fraction_of = FractionOf::capacity;
  std::optional<PolicyConstant> kv_block_tokens; // paged KV granularity; absent: one token
  std::optional<PolicyConstant> cuda_graphs_mib; // captured CUDA graphs; absent: none
  ActivationPeak activation_peak = ActivationPeak::profiled_chunk;
  // The profiled chunk (activation_peak profiled_chunk): tokens in one forward pass (at least one
  // whole sequence for a one-pass workload) and sequences whose logits it computes.
  std::optional<PolicyConstant> max_batched_tokens;
  std::optional<PolicyConstant> max_sequences;
  // The caching allocator's slack on transient tensors (activations), as a share of them;
  // absent: none counted.
  std::optional<PolicyConstant> allocator_fragmentation;
  ChunkedPrefill chunked_prefill = ChunkedPrefill::on;
  UnchunkedPass unchunked_pass = UnchunkedPass::budget;
  std::vector<EngineTier> tiers; // GPU- and version-dependent defaults, first match wins
  std::string source;
  // The constants of its roles in the order reports list them: CUDA graphs, the chunk's tokens
  // and sequences, the memory fraction, the allocator's slack.
  [[nodiscard]] std::vector<std::string_view> constant_names() const;
};

namespace detail {
struct BundleAccess; // the bundled data's serializer (src/estimate/bundled.cpp)
} // namespace detail

// Runtime constants from data/memory.json, overridable one by one.
class Constants {
public:
  // Reads data/memory.json (all problems at once, like the catalog): its constants and the
  // memory policy of every engine of k_engine_names, each role naming one of its constants.
  static Constants load(const std::string& path);
  // Overrides one constant ("--assume cuda_context_mib=600"); unknown names are errors with a
  // suggestion.
  void set(const std::string& name, double value, const std::string& where);
  // Overrides constants as the command line's --assume gives them, "NAME=VALUE" each: an
  // InputError at "--assume" for text that is not NAME=VALUE with a number, or a name that is
  // not a constant.
  void assume(const std::vector<std::string>& assignments);
  [[nodiscard]] double get(const std::string& name) const;
  // The estimator's reads: an array index. A constant missing from the file is an InternalError
  // here, as with the name.
  [[nodiscard]] double get(Constant c) const;
  [[nodiscard]] const Assumption& assumption(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> names() const;
  // The engine's memory policy (an array index: every engine has one once loaded; a Constants
  // that was not loaded has none, an InternalError).
  [[nodiscard]] const EngineMemoryPolicy& engine(Engine e) const {
    const auto i = static_cast<std::size_t>(e);
    if (i >= m_engines.size()) {
      no_policy(e);
    }
    return m_engines[i];
  }
  // The engine's policy on `gpu` at `version` (empty: the newest): its first tier whose condition
  // holds applied (an array index and a few comparisons: the search calls it per layout).
  [[nodiscard]] const EngineMemoryPolicy&
  engine(Engine e, const Gpu& gpu, std::string_view version) const;

private:
  friend struct detail::BundleAccess;
  void index(const std::string& name);
  // Rebuilds m_tiered from m_engines: once after loading or reading the blob back, and after an
  // override (index() keeps m_engines' values in step, not the tiered copies).
  void resolve_tiers();
  [[noreturn]] static void no_policy(Engine e);

  std::map<std::string, Assumption, std::less<>> m_values; // found by a name's view
  std::array<double, static_cast<std::size_t>(Constant::count)> m_known{};
  std::array<bool, static_cast<std::size_t>(Constant::count)> m_present{};
  std::vector<EngineMemoryPolicy> m_engines; // by Engine's value
  // Each engine's policy with each of its tiers applied, by Engine's value then tier (derived).
  std::vector<std::vector<EngineMemoryPolicy>> m_tiered;
};

// The engine settings a serving estimate runs with (docs/model.md, "Engine settings"): the
// longest request the engine admits (the spec's max_model_len, else the model's context, the
// engines' default; never less than the spec's own request), whether it chunks prompts (the
// spec's chunked_prefill, else its policy's default), and its cap on sequences in flight (the
// spec's max_num_seqs, else its policy's max_sequences; none: transformers).
long long max_model_len(const Spec& spec);
bool chunks_prefill(const Spec& spec, const EngineMemoryPolicy& policy);
std::optional<long long> engine_cap(const Spec& spec, const EngineMemoryPolicy& policy);
// The serving engine's memory policy for the spec on `gpu` (its version's and GPU's tier).
const EngineMemoryPolicy& engine_policy(const Spec& spec, const Gpu& gpu, const Constants& c);

// How much an estimate explains. `numbers` leaves out what only a report reads (notes, the
// assumptions list, the explanation and bottleneck sentences, the longest context), for the
// search's many evaluations; the figures are the same either way.
enum class Detail { full, numbers };

// Per-GPU memory, term by term.
struct MemoryBreakdown {
  Bytes weights;
  Bytes kv_cache;
  Bytes activations;
  Bytes gradients;
  Bytes optimizer;
  Bytes overhead;
  [[nodiscard]] Bytes total() const;
};

// KV cache geometry for one GPU of the layout.
struct KvCacheGeometry {
  Bytes per_token_global; // all full-attention layers on this GPU, one token
  Bytes per_token_local;  // all sliding-window layers on this GPU, one token
  long long window = 0;   // sliding window, 0 for none
  long long block = 1;    // paged allocation granularity in tokens
  Bytes state;            // Mamba layers on this GPU: conv and SSM state, one sequence, any length
  // Attention data-parallel ranks of a replica: a GPU holds the cache of its own rank's sequences
  // only, a replica's batch spread over the ranks (ceil(batch / ranks) on the busiest).
  int ranks = 1;
  // KV bytes (and recurrent state) one sequence of `tokens` occupies, paged and window-capped.
  [[nodiscard]] Bytes per_sequence(long long tokens) const;
  // Sequences of a replica's batch whose cache the busiest GPU holds.
  [[nodiscard]] double sequences_per_gpu(double batch) const {
    return ranks == 1 ? batch : std::ceil(batch / static_cast<double>(ranks));
  }
};

struct MemoryEstimate {
  Bytes capacity; // plannable capacity of one GPU
  Bytes budget;   // what the runtime lets itself use (engine fraction applied)
  MemoryBreakdown per_gpu;
  bool fits = false;
  // Inference.
  long long batch = 0;       // concurrent sequences evaluated
  long long max_batch = 0;   // the most sequences of the spec's length that fit
  long long max_context = 0; // the longest single sequence that fits (also capped by the model)
  Bytes kv_per_token;        // both kinds of layers, one token, one GPU
  Bytes kv_per_sequence;     // at the spec's input + output length
  // Of kv_per_sequence, what does not grow with the sequence: Mamba layers' state, an
  // encoder-decoder's cross-attention keys and values of the encoder output.
  Bytes kv_fixed_per_sequence;
  Bytes kv_pool; // what the engine reserves for KV cache (budget left after the rest)
  // Of per_gpu.kv_cache: the cached prefixes held beside the sequences in flight (prefix caching,
  // docs/model.md "Prefix caching"), and the drafter's keys and values (speculative decoding).
  Bytes kv_prefix_cache;
  Bytes kv_draft;
  Bytes draft_weights; // of per_gpu.weights: the drafter's (speculative decoding)
  // Training.
  double trainable_params = 0;
  std::string precision_recipe;
  double bytes_per_param = 0; // weights + gradients + optimizer per trainable parameter
  std::vector<Assumption> assumptions;
  std::vector<std::string> notes;
};

// Parameters one GPU holds, by component, after tensor, pipeline and expert parallelism
// (worst pipeline stage: the first, which also holds the embedding).
WeightBytes weights_per_gpu(const ModelArch& model, const Quantization& q, const Parallelism& p);

// LoRA adapter parameters of the whole model: r * (in + out) for each targeted projection of each
// layer (MoE layers: attention projections only).
double lora_parameters(const Spec& spec);

// KV cache per token and per sequence on one GPU (GQA/MQA heads replicated when kv_heads < tp,
// MLA latent not split by tp, sliding-window layers capped, paged blocks).
KvCacheGeometry kv_cache_geometry(const Spec& spec, const Parallelism& p, const Constants& c);

// Korthikanti et al. 2022 activation bytes per layer per micro-batch for training, with the
// coefficient derived from the architecture; exposed for tests.
struct TrainingActivationTerms {
  double per_layer_sbh; // coefficient of s*b*h (the "34")
  double per_layer_s2;  // coefficient of a*s^2*b (the "5")
  Bytes per_layer;      // bytes for one layer at the spec's s and b, after parallelism
};
TrainingActivationTerms training_activations_per_layer(const Spec& spec, const Parallelism& p);

// The whole memory estimate for one configuration. `batch` overrides the spec's concurrency
// (inference) or micro_batch (training).
MemoryEstimate estimate_memory(const Spec& spec,
                               const Gpu& gpu,
                               const Parallelism& p,
                               const Constants& c,
                               std::optional<long long> batch = std::nullopt,
                               Detail detail = Detail::full);

// The terms of a serving memory estimate on one layout that do not depend on the batch, worked out
// once: the plan's search evaluates each layout at a dozen batches (docs/performance.md). Points to
// the spec, GPU and constants it was made from, which must outlive it.
struct InferenceMemoryLayout {
  const Spec* spec = nullptr;
  const Gpu* gpu = nullptr;
  Parallelism p;
  const Constants* constants = nullptr;
  KvCacheGeometry kv;
  long long context_tokens = 0; // one sequence: its prompt (images included) and output tokens
  Engine engine = Engine::vllm;
  const EngineMemoryPolicy* policy = nullptr; // the engine's, in *constants
  Bytes capacity;                             // plannable memory of one GPU
  Bytes weights;                              // one GPU's share of the weights
  Bytes kv_per_sequence;                      // at context_tokens, the two below included
  Bytes prefix_per_sequence;                  // a cached prefix held beside each sequence
  Bytes draft_kv_per_sequence;                // the drafter's keys and values of a sequence
  Bytes draft_weights;                        // the drafter's share of `weights`
  Bytes fixed_overhead;       // CUDA context and workspace, NCCL buffers, CUDA graphs
  double fraction = 1.0;      // the engine's memory fraction
  double fragmentation = 0.0; // allocator slack on activations (the policy's; transformers)
  // Activation peak and overhead at a batch of one: those of every batch, but with transformers,
  // which runs the whole batch in one forward pass.
  Bytes activations;
  Bytes overhead;
  long long max_batch = 0; // the most sequences of context_tokens that fit
};

// A serving spec's (the spec's workload is inference) batch-independent memory terms on a layout.
InferenceMemoryLayout
inference_memory_layout(const Spec& spec, const Gpu& gpu, const Parallelism& p, const Constants& c);
// The same estimate as estimate_memory(*layout.spec, *layout.gpu, layout.p, *layout.constants,
// batch, detail), bit for bit.
MemoryEstimate estimate_memory(const InferenceMemoryLayout& layout,
                               std::optional<long long> batch = std::nullopt,
                               Detail detail = Detail::full);

} // namespace rightsize
