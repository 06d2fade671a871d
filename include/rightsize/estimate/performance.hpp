#pragma once

// Speed: TTFT, TPOT, throughput for inference; step time, MFU and time to train for training.
// A roofline over the catalog's peak rates with efficiency factors that are data
// (data/efficiency.json), fitted on measured serving and training runs. Formulas: docs/model.md,
// "Performance".

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rightsize {

namespace detail {
class FieldReader; // core/json_reader.hpp
} // namespace detail

struct FamilyEfficiency {
  double compute = 0.5;          // share of the dense peak that prefill GEMMs reach
  double memory = 0.8;           // share of peak bandwidth that decode reads reach
  double training_compute = 0.5; // share of the dense peak that training kernels reach
};

struct EngineOverhead {
  Seconds per_layer;      // fixed cost per layer per decode step (launches, norms, small kernels)
  Seconds per_step;       // per decode step (scheduling, sampling)
  Seconds per_request;    // before a request's prefill (tokenize, schedule, first step)
  double wave_factor = 0; // share of the wave of concurrent arrivals a request waits behind
  double prefill_interference = 1; // share of a prefill's time that stalls the decode batch
  // The engine versions of the runs these were fitted on (empty: not recorded): a spec naming an
  // older version is not calibrated (engine_band_key).
  std::string oldest_version;
  std::string newest_version;
  std::string versions_source;
};

// The efficiency family of a GPU generation (data/efficiency.json "generations"): the
// generations whose measured runs one set of fitted factors stands for, with the source that
// places the generation in its architecture.
struct GenerationFamily {
  std::string family; // a key of Efficiency::families: ampere, ada, hopper, blackwell, ...
  std::string source;
};

class Efficiency {
public:
  static Efficiency load(const std::string& path);
  static Efficiency from_json(const nlohmann::json& j, const std::string& file);
  [[nodiscard]] nlohmann::json to_json() const;

  // The factors of the GPU's family. An InputError naming data/efficiency.json and the GPU when
  // its generation has no family (a catalog overlay's new generation): never another's.
  [[nodiscard]] const FamilyEfficiency& family(const Gpu& gpu) const;
  [[nodiscard]] const EngineOverhead& engine(Engine e) const;
  // The family name of a GPU's generation (ampere, ada, hopper, blackwell, turing, cdna3), as
  // the uncertainty bands are keyed; the same InputError as family() when it has none.
  [[nodiscard]] std::string family_name(const Gpu& gpu) const;
  [[nodiscard]] std::string_view family_key(const Gpu& gpu) const;

  // The family of each GPU generation, by generation as the catalog names it (Gpu::generation:
  // sm90, gfx942).
  [[nodiscard]] const std::map<std::string, GenerationFamily, std::less<>>& generations() const {
    return m_generations;
  }

  // Keyed by name as in data/efficiency.json; transparent, so family() and engine() find without
  // building a string.
  std::map<std::string, FamilyEfficiency, std::less<>> families;
  std::map<std::string, EngineOverhead, std::less<>> engines;
  Seconds allreduce_latency;      // per ring step over NVLink / Infinity Fabric
  Seconds pcie_allreduce_latency; // per ring step over PCIe
  // Share of a card's PCIe x16 rate an all-reduce between cards of one server reaches (NCCL's
  // bus bandwidth): the traffic crosses the CPUs' root complexes and memory (docs/model.md).
  double pcie_allreduce_efficiency = 0.45;
  Seconds network_latency;
  double dp_overlap = 0.8; // share of the backward pass the gradient all-reduce hides behind
  double training_size_exponent = 0; // training efficiency x (hidden / reference)^exponent
  double training_reference_hidden = 8192;
  // End-to-end speed of an fp8 training step over the same step in bf16 on the same GPU: the
  // GEMMs run at twice the rate, the rest (attention, norms, casts, amax) does not.
  double fp8_training_speedup = 1.3;
  nlohmann::json fitted_on; // what the values were fitted on
  // A site's calibration installed for one spec (apply_site_calibration, `--calibration`): per
  // GPU family, the factors fitted on the site's own runs of the spec's engine and model kind,
  // used instead of families[...] and engines[...] for that engine on GPUs of that family
  // (step_layout; docs/calibrate.md).
  struct SiteOverride {
    std::string engine; // engine_name of the runs
    FamilyEfficiency family;
    EngineOverhead overhead;
  };
  std::map<std::string, SiteOverride, std::less<>> site; // by family name
  // The site's override for `spec`'s engine on `gpu`'s family, or nullptr (site_calibration.cpp);
  // the factors a serving estimate uses: the site's where it has them, else family() and engine().
  [[nodiscard]] const SiteOverride* site_for(const Gpu& gpu, const Spec& spec) const;
  [[nodiscard]] const FamilyEfficiency& family_for(const Gpu& gpu, const Spec& spec) const;
  [[nodiscard]] const EngineOverhead& engine_for(const Gpu& gpu, const Spec& spec) const;

private:
  friend struct detail::BundleAccess;
  // Reads data/efficiency.json's "generations" (after "families", which each must name) and
  // indexes them (src/estimate/generations.cpp).
  void read_generations(const detail::FieldReader& section);
  void index_generations();

  std::map<std::string, GenerationFamily, std::less<>> m_generations;
  // m_generations for the look-up every evaluation makes: each generation's name packed into a
  // number (names of at most 8 bytes), with its family.
  std::vector<std::pair<std::uint64_t, std::string>> m_family_of;
};

// The statistics a benchmark client reports of one latency over its requests (numpy's linear
// percentiles).
struct LatencyPercentiles {
  Seconds mean;
  Seconds p50;
  Seconds p90;
  Seconds p99;
  // The statistic a target names: 0 (the mean), 50, 90 or 99.
  [[nodiscard]] Seconds at(int percentile) const;
};

// A simulated run of the engine's scheduler (latency_distribution.hpp): the distribution of
// each latency over its requests.
struct SimulatedLatency {
  LatencyPercentiles ttft;
  LatencyPercentiles
      tpot; // per request: (end-to-end - TTFT) / (output tokens - 1), as vLLM's client
  LatencyPercentiles e2e;
  double requests_per_s = 0;      // completed requests over the run's duration
  double output_tokens_per_s = 0; // their output tokens over the run's duration
  long long requests = 0;         // measured
  long long preemptions = 0;      // sequences evicted from the KV cache and recomputed
  long long peak_running = 0;     // most sequences in flight at once
  long long steps = 0;            // engine steps simulated
};

struct InferencePerformance {
  long long concurrency = 0;    // sequences being decoded together per replica
  Seconds prefill;              // one request's prefill, alone
  Seconds decode_step;          // one decode step of the whole batch, alone
  Seconds decode_memory;        // its memory-read part
  Seconds decode_compute;       // its compute part
  Seconds decode_communication; // its tensor-parallel all-reduces
  Seconds decode_fixed;         // its fixed per-layer and per-step costs
  Bytes decode_bytes;           // bytes read per step per GPU
  // Speculative decoding (docs/model.md, "Speculative decoding"): tokens a sequence gains per
  // step on average (1 without), and the drafter's part of decode_step (its k draft passes; the
  // rest is the target's verification of k + 1 tokens per sequence).
  double tokens_per_step = 1;
  Seconds draft_step;
  Seconds ttft;
  Seconds tpot;
  double prefill_share = 0;        // share of engine time spent on prefills
  double output_tokens_per_s = 0;  // all replicas
  double requests_per_s = 0;       // all replicas
  double prefill_tokens_per_s = 0; // all replicas
  // Sequences per replica asked for; more than `concurrency` when some queue (queueing).
  long long offered = 0;
  bool queueing = false; // more sequences asked for than a replica runs at once
  // What caps `concurrency` below `offered`: "kv_cache" (what fits beside the weights) or
  // "max_num_seqs" (the engine's own cap, its memory policy's max_sequences); empty when none.
  std::string running_limit;
  // A text generation's KV cache overflows: more sequences asked of a replica than its cache
  // holds at their full length. Engines then queue and (vLLM, SGLang) admit by prompt and
  // preempt, which rightsize does not model: its bands widen (Uncertainty::overflowing,
  // docs/accuracy.md). Not for embeddings (no decode, nothing to preempt) nor transcription
  // (no measured line of its own to widen by).
  [[nodiscard]] bool kv_overflow() const {
    return queueing && running_limit == "kv_cache" && !prefill_only && audio_seconds_per_s == 0;
  }
  // An embedding workload: one forward pass per sequence, no decode. The decode and TPOT figures
  // are zero, `ttft` is a sequence's latency, `requests_per_s` its sequences per second and
  // `prefill_tokens_per_s` the tokens embedded per second.
  bool prefill_only = false;
  // A transcription workload: audio seconds transcribed per second, all replicas (windows per
  // second x the audio a window carries); `ttft` is then a request's latency (arrival to the
  // whole transcript: its windows one after another), `requests_per_s` its windows per second,
  // `output_tokens_per_s` the transcript's tokens. 0 for other workloads.
  double audio_seconds_per_s = 0;
  // The tokens a price per million tokens is per: output tokens, or tokens embedded.
  [[nodiscard]] double priced_tokens_per_s() const {
    return prefill_only ? prefill_tokens_per_s : output_tokens_per_s;
  }
  std::string bottleneck;  // memory_bandwidth, compute, interconnect, memory_capacity
  std::string explanation; // one sentence for a person
  // Text generation: the latencies' distribution, simulated (simulate_percentiles) where a
  // report or a percentile target needs it; the figures above are the analytical estimate's.
  std::optional<SimulatedLatency> simulated;
  TensorPrecision compute_precision = TensorPrecision::bf16;
};

struct TrainingPerformance {
  Seconds step;
  Seconds compute;
  Seconds pipeline_bubble;
  Seconds tensor_parallel_communication;
  Seconds context_parallel_communication; // keys and values gathered, their gradients scattered
  Seconds data_parallel_exposed; // gradient reduction, and ZeRO-3's weight all-gathers, not hidden
  Seconds dequantization;        // QLoRA: the frozen 4-bit weights dequantized before each matmul
  double tokens_per_s = 0;
  double mfu = 0;                        // model FLOPs / (time x GPUs x dense peak)
  double hardware_flops_utilization = 0; // including recomputation
  std::optional<Seconds> time_to_train;
  std::optional<bool> meets_deadline;
  BytesPerSecond host_input; // what data loading needs per GPU over the host link
  std::string bottleneck;    // compute, interconnect, host_io
  std::string explanation;
  TensorPrecision compute_precision = TensorPrecision::bf16;
};

// The precision the tensor cores compute in: the coarser of the weights' and the stated
// activations' formats (fp8 weights with bf16 activations: bf16; fp4 weights with fp8
// activations: fp8), at that rate where the GPU has it; training: the recipe's GEMM inputs.
// Integer and nf4 formats and GPUs without the rate fall back to bf16 (fp16 without bf16).
// fp32 weights (an fp32 checkpoint on transformers) compute in fp32 unless 16-bit activations
// are stated (autocast); no other rate stands in for fp32 (missing_compute_rate).
TensorPrecision compute_precision(const Spec& spec, const Gpu& gpu);

// Why `gpu` cannot be estimated at compute_precision(spec, gpu): the catalog has no rate for it
// (fp32 on a GPU whose catalog entry lacks its FP32 figure). nullopt when it has one. Every
// caller of the estimator checks this first.
std::optional<std::string> missing_compute_rate(const Spec& spec, const Gpu& gpu);

// GPUs in one server (one node): the spec's deployment.gpus_per_server, else the catalog's
// purchase.gpus_per_server, else 8 (the usual PCIe server and HGX/OAM board). Tensor parallelism
// within it runs over NVLink inside the GPU's NVLink domain and over PCIe beyond; past it, over
// the network (docs/model.md, "Interconnect").
int gpus_per_server(const Spec& spec, const Gpu& gpu);

// Whether the link a group of `group` GPUs communicates over (NVLink inside the domain, PCIe
// inside a server, the network beyond; estimate_detail::collective_link) has a rate in the
// catalog: a maker may publish no host link or network (TPU v5p, Inferentia2; docs/catalog.md),
// and a layout that needs it is not planned rather than timed at an infinite transfer.
bool link_published(const Spec& spec, const Gpu& gpu, int group);

// Forward FLOPs for `tokens` new tokens whose attention spans `context` tokens each on average.
Flops forward_flops(const ModelArch& m, double tokens, double context);

// An encoder-decoder's encoder pass over one window of audio (Whisper, docs/model.md
// "Transcription workloads"): the two convolutions over 2 x encoder_positions mel frames, the
// encoder stack over encoder_positions with bidirectional attention, and the decoder's
// cross-attention keys and values projected once from the encoder output (kept for the decode).
Flops encoder_window_flops(const ModelArch& m);
// One token through an encoder-decoder's decoder: its layers' matrices (self-attention, the
// cross-attention's q and o, the MLP) and the lm_head, self-attention over `context` tokens and
// cross-attention over the encoder_positions.
Flops decoder_token_flops(const ModelArch& m, double context);

// Model FLOPs of training on `tokens` tokens of the spec's sequences, forward and backward:
// 3 x forward for full training; LoRA and QLoRA skip the frozen weights' gradients (2 x the
// forward matmuls, 3 x attention, whose backward has no weights) and add the adapters' 6 FLOP
// per parameter per token. No recomputation (hardware FLOPs add it).
Flops training_model_flops(const Spec& spec, double tokens);

// One step's time by part (docs/model.md): the bytes it reads over the memory bandwidth, its
// FLOPs over the tensor rate (each times the family's efficiency), tensor-parallel all-reduces,
// and the engine's fixed costs.
struct StepTime {
  Seconds memory;
  Seconds compute;
  Seconds communication;
  Seconds fixed;
  Bytes bytes;
  [[nodiscard]] Seconds total() const { return max(memory, compute) + communication + fixed; }
  // The GPUs' own work, without the engine's fixed costs: what replaying the step from a CUDA
  // graph measures (bench/gpu/steps.py, docs/accuracy.md).
  [[nodiscard]] Seconds gpu_work() const { return max(memory, compute) + communication; }
};

// One decode step of `batch` sequences at `context` tokens each.
StepTime decode_step_time(const Spec& spec,
                          const Gpu& gpu,
                          const Parallelism& p,
                          const Efficiency& eff,
                          const Constants& constants,
                          double batch,
                          double context);
// One prefill step of `tokens` prompt tokens in all, of prompts `prompt` tokens long (causal
// attention over half the prompt on average); the weights are read once for the whole step.
StepTime prefill_step_time(const Spec& spec,
                           const Gpu& gpu,
                           const Parallelism& p,
                           const Efficiency& eff,
                           double tokens,
                           double prompt);

// The engine as uncertainty bands and calibration key it: the spec's engine (engine_name), or,
// for an engine_version older than the runs its efficiencies were fitted on, that engine and
// version, which no band is fitted for: the prediction is uncalibrated and says so
// (docs/accuracy.md, "Engine versions").
std::string engine_band_key(const Spec& spec, const Efficiency& eff);

// `replicas` copies of the layout serve the load (inference) or the layout is the whole job
// (training: replicas = 1, dp inside the layout).
InferencePerformance estimate_inference(const Spec& spec,
                                        const Gpu& gpu,
                                        const Parallelism& p,
                                        const MemoryEstimate& memory,
                                        const Efficiency& eff,
                                        const Constants& constants,
                                        int replicas = 1,
                                        Detail detail = Detail::full,
                                        std::optional<long long> offered = std::nullopt);

// The sequences a replica runs at once when `offered` are in flight: the fewest of those, what
// the KV cache holds (`max_batch`) and the engine's cap (its memory policy's max_sequences,
// data/memory.json "engines"; none: no cap). The rest queue for a slot.
long long running_batch(const Spec& spec,
                        long long offered,
                        long long max_batch,
                        const EngineMemoryPolicy& policy);

// A collective's link: the bandwidth it reaches and its fixed latency per call (docs/model.md,
// "Interconnect").
struct LinkModel {
  BytesPerSecond bandwidth;
  Seconds latency;
};

// Speculative decoding's drafter on one layout: what each draft pass reads and computes
// (src/estimate/decoding.hpp).
struct DraftPass;

// What a prefill or decode step on one layout reads whatever its batch, worked out once: the
// efficiencies of the GPU's family and of the engine, the tensor rate, the weights one GPU holds,
// the links of its collectives. Points to the spec and GPU it was made from.
struct StepLayout {
  const Spec* spec = nullptr;
  const Gpu* gpu = nullptr;
  Parallelism p;
  const FamilyEfficiency* family = nullptr;
  const EngineOverhead* engine = nullptr;
  FlopsPerSecond compute_rate;   // the tensor rate at the compute precision x the family's compute
  FlopsPerSecond attention_rate; // attention's products: 16-bit unless the KV cache is fp8
  WeightBytes weights;           // weights_per_gpu
  double activation_bytes = 0;   // one activation element
  LinkModel tensor_link;         // the all-reduces of the tensor-parallel group (p.tp)
  LinkModel expert_link;         // the all-to-alls of the expert-parallel group (p.ep)
  // Speculative decoding's drafter (the spec's workload.inference.speculative); none without.
  std::shared_ptr<const DraftPass> draft;
};

// A decode step's time per token of each sequence: one step of `batch` sequences at `context`
// tokens each on a layout worked out once (speculative decoding: the drafter's passes and the
// verification, over the tokens a step yields per sequence on average).
Seconds
decode_token_time(const StepLayout& steps, const KvCacheGeometry& kv, double batch, double context);

// A serving layout's batch-independent terms, memory and speed, worked out once: the plan's search
// evaluates each layout at a dozen batches (docs/performance.md). Points to the spec, GPU,
// constants and efficiencies it was made from, which must outlive it.
struct ServingLayout {
  InferenceMemoryLayout memory;
  TensorPrecision compute_precision = TensorPrecision::bf16;
  // The engine's limit on sequences in flight (its policy's max_sequences); none: no cap.
  std::optional<long long> max_num_seqs;
  // Only when a sequence fits (memory.max_batch >= 1): with none in flight an estimate looks none
  // of it up, so neither does a layout that cannot hold one.
  std::optional<StepLayout> steps;
  StepTime prefill; // one prompt alone (a generation workload's)
};

// A serving spec's batch-independent terms on a layout.
ServingLayout serving_layout(const Spec& spec,
                             const Gpu& gpu,
                             const Parallelism& p,
                             const Constants& constants,
                             const Efficiency& eff);
// The same estimate as estimate_inference() from the layout's spec, GPU, parallelism, constants
// and efficiencies, bit for bit, for a `memory` estimated on this layout.
InferencePerformance estimate_inference(const ServingLayout& layout,
                                        const MemoryEstimate& memory,
                                        int replicas = 1,
                                        Detail detail = Detail::full,
                                        std::optional<long long> offered = std::nullopt);
// A one-replica estimate as `replicas` copies serving together: the rates add up, latencies stay.
InferencePerformance with_replicas(InferencePerformance one, int replicas);

TrainingPerformance estimate_training(const Spec& spec,
                                      const Gpu& gpu,
                                      const Parallelism& p,
                                      const MemoryEstimate& memory,
                                      const Efficiency& eff,
                                      Detail detail = Detail::full);

// Why context parallelism cannot be modelled for this spec, or empty when it can: it is
// Megatron-Core's all-gather CP for the training of a decoder whose mixers are all attention
// (docs/model.md, "Context parallelism").
std::string context_parallel_unsupported(const Spec& spec);

} // namespace rightsize
