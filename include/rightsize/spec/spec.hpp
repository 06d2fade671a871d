#pragma once

// The workload spec: a validated, normalized description of a model and what it must do. Read
// from a rightsize spec (schema version 1, docs/spec.md, data/spec.schema.json) or a bare
// Hugging Face config.json with documented defaults.

#include <rightsize/core/names.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/model/dtype.hpp>
#include <rightsize/model/model.hpp>

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

struct Precision {
  DType weights = DType::bf16;     // storage of the weights being served or trained
  DType kv_cache = DType::bf16;    // KV cache elements
  DType activations = DType::bf16; // compute dtype of activations
  std::vector<DType> allow;        // cheaper weight/KV formats the planner may also consider
  // The weights the spec names the activations with. For them the tensor math follows the
  // activations (fp8 weights with bf16 activations run at the bf16 rate); unnamed, or for weights
  // the planner substitutes (`allow`, estimate --weights), fp8 and fp4 weights keep their usual
  // deployment, W8A8 and W4A4 (docs/model.md, "Compute precision").
  std::optional<DType> activations_stated_for;
  [[nodiscard]] bool activations_stated() const { return activations_stated_for == weights; }
};

// Bytes per element of the activations kept between kernels and exchanged by all-reduces. 4-bit
// activations (W4A4) exist only as GEMM inputs, quantized inside the kernels from the 16-bit
// residual stream, so they count as bf16.
Bytes activation_element_bytes(const Precision& p);

// inference: text generation (prefill, then decode token by token). embedding: one forward pass
// per sequence, pooled into a vector (embeddings, reranking, classification), no decode; its
// sequences live in InferenceWorkload with output_tokens = 0, its targets as requests_per_s
// (sequences per second) and ttft (the latency of a sequence: arrival to vector). transcription:
// Whisper speech to text (docs/spec.md "Transcription"): each request's audio is cut into 30 s
// windows, each window one sequence (an encoder pass, then a decode of output_tokens), a
// request's windows one after another; its sequences live in InferenceWorkload with
// `transcription` set, its targets as requests_per_s (windows per second) and ttft (the latency
// of a request: arrival to the whole transcript). image_generation: a diffusers pipeline's
// text-to-image generation (docs/spec.md "Image generation"): each image is one sequence of the
// embedding path (one batched computation, no decode, no KV cache) whose work is a whole
// denoising loop (ImageGeneration), its targets requests_per_s (images per second) and ttft (the
// latency of an image).
enum class WorkloadType {
  inference,
  training,
  finetune,
  embedding,
  transcription,
  image_generation
};
enum class Engine { vllm, sglang, tensorrt_llm, transformers };
enum class Optimizer { adamw, adam, sgd, adafactor, adam_8bit };
enum class Recompute { none, selective, full };
enum class FinetuneMethod { full, lora, qlora };
enum class Framework { megatron, deepspeed, transformers };

// Each enum's names, the one table that specs, reports and every other parser of them read
// (core/names.hpp): a value's first row is how it is printed, later rows are aliases a spec may
// also write. Adding an engine adds its row here (and its data rows: docs/architecture.md).
inline constexpr NameRow<WorkloadType> k_workload_type_rows[] = {
    {WorkloadType::inference, "inference"},
    {WorkloadType::training, "training"},
    {WorkloadType::finetune, "finetune"},
    {WorkloadType::embedding, "embedding"},
    {WorkloadType::transcription, "transcription"},
    {WorkloadType::image_generation, "image_generation"}};
inline constexpr NameTable<WorkloadType> k_workload_type_names{k_workload_type_rows};

inline constexpr NameRow<Engine> k_engine_rows[] = {{Engine::vllm, "vllm"},
                                                    {Engine::sglang, "sglang"},
                                                    {Engine::tensorrt_llm, "tensorrt-llm"},
                                                    {Engine::transformers, "transformers"}};
inline constexpr NameTable<Engine> k_engine_names{k_engine_rows};

// How a text generation's requests arrive (docs/spec.md, "Arrivals").
enum class ArrivalKind { closed, poisson, gamma };
inline constexpr NameRow<ArrivalKind> k_arrival_rows[] = {{ArrivalKind::closed, "closed"},
                                                          {ArrivalKind::poisson, "poisson"},
                                                          {ArrivalKind::gamma, "gamma"}};
inline constexpr NameTable<ArrivalKind> k_arrival_names{k_arrival_rows};

inline constexpr NameRow<Optimizer> k_optimizer_rows[] = {{Optimizer::adamw, "adamw"},
                                                          {Optimizer::adam, "adam"},
                                                          {Optimizer::sgd, "sgd"},
                                                          {Optimizer::adafactor, "adafactor"},
                                                          {Optimizer::adam_8bit, "adam-8bit"},
                                                          {Optimizer::adam_8bit, "8-bit adam"},
                                                          {Optimizer::adam_8bit, "adamw-8bit"}};
inline constexpr NameTable<Optimizer> k_optimizer_names{k_optimizer_rows};

inline constexpr NameRow<Recompute> k_recompute_rows[] = {
    {Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}};
inline constexpr NameTable<Recompute> k_recompute_names{k_recompute_rows};

inline constexpr NameRow<FinetuneMethod> k_finetune_method_rows[] = {
    {FinetuneMethod::full, "full"},
    {FinetuneMethod::lora, "lora"},
    {FinetuneMethod::qlora, "qlora"}};
inline constexpr NameTable<FinetuneMethod> k_finetune_method_names{k_finetune_method_rows};

inline constexpr NameRow<Framework> k_framework_rows[] = {
    {Framework::megatron, "megatron"},
    {Framework::deepspeed, "deepspeed"},
    {Framework::transformers, "transformers"}};
inline constexpr NameTable<Framework> k_framework_names{k_framework_rows};

inline std::string_view to_string(WorkloadType t) {
  return k_workload_type_names.name(t);
}
inline std::string_view to_string(Engine e) {
  return k_engine_names.name(e);
}
inline std::string_view to_string(ArrivalKind a) {
  return k_arrival_names.name(a);
}
inline std::string_view to_string(Optimizer o) {
  return k_optimizer_names.name(o);
}
inline std::string_view to_string(Recompute r) {
  return k_recompute_names.name(r);
}
inline std::string_view to_string(FinetuneMethod m) {
  return k_finetune_method_names.name(m);
}
inline std::string_view to_string(Framework f) {
  return k_framework_names.name(f);
}

// Bytes per trained parameter, term by term. Published anchors disagree (8, 16, 18, 20 bytes per
// parameter for "bf16 + Adam") because they assume different recipes; rightsize makes it explicit.
struct TrainingPrecision {
  std::string name = "mixed";    // preset name, or "custom"
  DType weights = DType::bf16;   // the working copy used in forward/backward
  DType gradients = DType::fp32; // accumulated gradients
  std::optional<DType> master_weights =
      DType::fp32;                      // none: the optimizer updates `weights` in place
  DType optimizer_states = DType::fp32; // Adam m and v (SGD momentum)
  // Inputs of the GEMMs: bf16 (fp16 on GPUs without it), or fp8 (Transformer Engine: weights and
  // activations cast to fp8 before each GEMM, at the fp8 tensor rate where the GPU has one).
  DType compute = DType::bf16;
};
// Presets: mixed (bf16 weights, fp32 grads, fp32 master, fp32 states: 18 B/param with Adam),
// mixed-bf16-grads (16), pure-bf16 (8), fp32 (16), amp (fp32 weights and states, bf16 compute: 16),
// fp8 (mixed with fp8 GEMMs, plus Transformer Engine's fp8 copy of the weights and its transpose:
// 20).
std::optional<TrainingPrecision> training_precision_preset(std::string_view name);
std::vector<std::string> training_precision_presets();

// Speculative decoding (docs/model.md, "Speculative decoding"; docs/spec.md): a drafter proposes
// `draft_tokens` tokens per step and the target verifies them in one step. mtp: the checkpoint's
// own multi-token-prediction module (DeepSeek-V3); eagle: an EAGLE head, about one decoder layer
// and the lm_head; draft: a smaller model of the same vocabulary, read like the spec's `model`.
enum class SpeculativeMethod { mtp, eagle, draft };
inline constexpr NameRow<SpeculativeMethod> k_speculative_method_rows[] = {
    {SpeculativeMethod::mtp, "mtp"},
    {SpeculativeMethod::eagle, "eagle"},
    {SpeculativeMethod::draft, "draft"}};
inline constexpr NameTable<SpeculativeMethod> k_speculative_method_names{k_speculative_method_rows};
inline std::string_view to_string(SpeculativeMethod m) {
  return k_speculative_method_names.name(m);
}

struct SpeculativeDecoding {
  SpeculativeMethod method = SpeculativeMethod::eagle;
  long long draft_tokens = 1; // k: tokens the drafter proposes per target step
  // a, in (0, 1]: the probability that a draft token is accepted when every one before it was,
  // the same for each (Leviathan et al. 2023, their alpha). Not vLLM's reported "acceptance
  // rate", accepted / proposed draft tokens, which is a (1 - a^k) / ((1 - a) k).
  double acceptance_rate = 1;
  std::optional<std::string> draft_model; // as the spec writes it (draft: required; eagle: a head)
  std::optional<ModelArch> draft;         // method draft: the draft model, read
  // Tokens one target step yields on average: (1 - a^(k+1)) / (1 - a), k + 1 when a = 1.
  [[nodiscard]] double tokens_per_step() const;
  // Accepted over proposed draft tokens, as vLLM reports it: (tokens_per_step() - 1) / k.
  [[nodiscard]] double proposed_acceptance() const;
};

// A latency target on a percentile of the requests: `{"p99": 2000}` in a spec (docs/spec.md,
// "Targets").
struct PercentileTarget {
  int percentile = 99; // 50, 90 or 99; 0: the mean, held on the simulated distribution (open
                       // arrivals: docs/spec.md, "Arrivals")
  Seconds limit;
};

// A statistic as reports name it: "mean" (0), "p50", "p90", "p99".
inline std::string statistic_name(int percentile) {
  return percentile == 0 ? std::string("mean") : "p" + std::to_string(percentile);
}

// Service-level targets. Absent targets are not invented.
struct InferenceTargets {
  std::optional<double> output_tokens_per_s; // aggregate over the deployment
  // Time to first token and per output token of the typical request: the mean a benchmark
  // reports (`"ttft_ms": 500` or `{"mean": 500}`), held by the analytical estimate.
  std::optional<Seconds> ttft;
  std::optional<Seconds> tpot;
  // The same on percentiles of the requests, in increasing percentile, held by the simulated
  // distribution (estimate/latency_distribution.hpp); text generation only.
  std::vector<PercentileTarget> ttft_percentiles;
  std::vector<PercentileTarget> tpot_percentiles;
  std::optional<double> requests_per_s; // aggregate
  [[nodiscard]] bool names_percentiles() const {
    return !ttft_percentiles.empty() || !tpot_percentiles.empty();
  }
};

// A transcription workload's audio (Whisper): what a request sends, and how it maps onto windows,
// the sequences the engine runs. A window is the encoder's input, 30 s of audio (3000 mel frames,
// 1500 encoder positions after the convolutions); shorter audio is padded to it.
struct Transcription {
  double audio_seconds = 30;                 // per request
  long long windows = 1;                     // per request: ceil(audio_seconds / window_seconds)
  double window_seconds = 30;                // the encoder's input
  long long requests_in_flight = 0;          // the spec's concurrency; 0: offline
  std::optional<double> audio_seconds_per_s; // target, as given (also as requests_per_s)
  // Audio seconds one window carries on average (a request's audio over its windows).
  [[nodiscard]] double audio_per_window() const {
    return audio_seconds / static_cast<double>(windows);
  }
};

// An image generation workload: what each image costs the pipeline (docs/model.md, "Image
// generation"). Images are the unit of InferenceWorkload: concurrency counts images in flight
// (requests x images_per_request).
struct ImageGeneration {
  long long height = 1024; // pixels
  long long width = 1024;  // pixels
  long long steps = 30;    // denoising steps (num_inference_steps)
  long long images_per_request = 1;
  std::optional<long long> requests_in_flight; // the spec's concurrency; absent: offline
};

// One bin of a length histogram: requests of these lengths make `share` of the traffic (the
// shares sum to 1).
struct LengthBin {
  long long input_tokens = 1;
  long long output_tokens = 1;
  double share = 1;
};

// Serving: generation (WorkloadType::inference) and embedding, which reads the same fields with
// output_tokens = 0 (no decode) and no images; transcription, whose sequences are the windows
// (input_tokens: the decoder's prompt tokens, output_tokens: those decoded per window;
// concurrency: requests in flight, each decoding one window at a time).
struct InferenceWorkload {
  long long input_tokens = 4096;
  long long output_tokens = 1024;       // 0 for an embedding workload
  std::optional<long long> concurrency; // absent: offline, the largest batch that fits
  Engine engine = Engine::vllm;
  std::optional<double> gpu_memory_utilization;    // engine's memory fraction override
  std::optional<long long> max_num_batched_tokens; // prefill chunk override
  std::optional<long long> max_num_seqs;           // the engine's cap on sequences in flight
  std::optional<long long> max_model_len;          // the longest request the engine admits
  std::optional<bool> chunked_prefill;             // whether prompts are chunked
  std::optional<std::string> engine_version;       // "0.11.2"; absent: the newest defaults
  // Lengths drawn uniformly from [length_low_ratio x nominal, nominal] (benchmark clients'
  // --random-range-ratio, SGLang's meaning); 1: fixed. Memory holds the nominal (longest).
  double length_low_ratio = 1.0;
  // Or a histogram of request lengths (docs/spec.md, "Length histograms"): each request's input
  // and output tokens are one bin's, drawn with its share. input_tokens and output_tokens are
  // then the longest of the bins; empty: the lengths above.
  std::vector<LengthBin> length_histogram;
  // The mean prompt (text and image tokens) and output lengths a request has.
  [[nodiscard]] double mean_prompt_tokens() const;
  [[nodiscard]] double mean_output_tokens() const;
  // Prompt and output tokens of the longest request: what one sequence holds at most.
  [[nodiscard]] long long longest_request() const;
  // Every request as long as every other (no range, at most one bin).
  [[nodiscard]] bool fixed_lengths() const {
    return length_low_ratio >= 1.0 && length_histogram.size() <= 1;
  }
  // Whether a closed loop's requests keep arriving in waves (docs/model.md, "Length
  // histograms"): fixed lengths and a histogram's discrete bins do (requests of a bin's output
  // length end together), a range's continuous lengths break them up.
  [[nodiscard]] bool arrives_in_waves() const { return length_low_ratio >= 1.0; }
  // How the requests arrive (text generation; docs/spec.md, "Arrivals"): a closed loop keeping
  // `concurrency` in flight (benchmarks' --max-concurrency), or an open process keeping that
  // many in flight on average, its gaps exponential (poisson) or gamma of shape `burstiness`
  // (vLLM's --burstiness: below 1 burstier than Poisson). The percentiles are simulated with it.
  ArrivalKind arrivals = ArrivalKind::closed;
  double burstiness = 1.0;
  InferenceTargets targets;
  // Vision-language models: images in each prompt, and their size for dynamic-resolution towers.
  long long images_per_request = 0;
  long long image_width = 1024;               // pixels
  long long image_height = 1024;              // pixels
  long long image_tokens = 0;                 // derived: the images' tokens in each prompt
  std::optional<Transcription> transcription; // set for a transcription workload only
  std::optional<ImageGeneration> generation;  // set for an image generation workload only
  // Text generation only: the drafter and its acceptance (docs/model.md, "Speculative decoding").
  std::optional<SpeculativeDecoding> speculative;
  // Share of a prompt's tokens whose keys and values the engine finds in its prefix cache
  // (0: none): the prefill computes the rest, and the cached prefixes stay resident in the KV
  // cache (docs/model.md, "Prefix caching").
  double prefix_cache_hit_rate = 0;
  // What the language model reads per request: the text and the image tokens.
  [[nodiscard]] long long prompt_tokens() const { return input_tokens + image_tokens; }
  // "500 in" or "500 in + 2 images (2738 tokens)", for reports.
  [[nodiscard]] std::string describe_input() const;
  // "500 in + 200 out tokens", or a histogram's bins, mean and longest lengths.
  [[nodiscard]] std::string describe_lengths() const;
};

struct TrainingWorkload {
  long long seq_len = 0;
  long long global_batch = 0; // sequences per optimizer step
  long long micro_batch = 1;  // sequences per GPU per forward/backward
  Optimizer optimizer = Optimizer::adamw;
  int zero_stage = 0;
  Recompute recompute = Recompute::selective;
  bool sequence_parallel = true;
  int pipeline_interleave = 1;
  bool flash_attention = true;
  bool dropout = false; // attention/hidden dropout masks saved for backward
  Framework framework = Framework::megatron;
  TrainingPrecision precision;
  std::optional<double> tokens;    // tokens to train on
  std::optional<Seconds> deadline; // wall-clock budget for `tokens`
  // Fine-tuning.
  FinetuneMethod method = FinetuneMethod::full;
  long long lora_rank = 16;
  std::vector<std::string> lora_targets;
};

struct Workload {
  WorkloadType type = WorkloadType::inference;
  InferenceWorkload inference;
  TrainingWorkload training;
  [[nodiscard]] bool is_training() const {
    return type == WorkloadType::training || type == WorkloadType::finetune;
  }
  [[nodiscard]] bool is_embedding() const { return type == WorkloadType::embedding; }
  [[nodiscard]] bool is_transcription() const { return type == WorkloadType::transcription; }
  [[nodiscard]] bool is_image_generation() const { return type == WorkloadType::image_generation; }
  // No decode: each input is one batched computation with no KV cache (an encoder pass for
  // embeddings, a denoising loop for image generation), timed and batched alike.
  [[nodiscard]] bool one_pass() const { return is_embedding() || is_image_generation(); }
};

struct Constraints {
  std::vector<std::string> gpus;    // catalog names the user allows (resolved by the planner)
  std::vector<std::string> vendors; // "nvidia", "amd"
  std::optional<long long> max_gpus;
  std::optional<long long> max_gpus_per_node;
  bool allow_cross_node_tp = false;
  std::string where; // "spec.json:/constraints", for errors raised when names are resolved
};

enum class DeploymentMode { cloud, onprem };
inline constexpr NameRow<DeploymentMode> k_deployment_mode_rows[] = {
    {DeploymentMode::cloud, "cloud"},
    {DeploymentMode::onprem, "onprem"},
    {DeploymentMode::onprem, "on-prem"}};
inline constexpr NameTable<DeploymentMode> k_deployment_mode_names{k_deployment_mode_rows};
inline std::string_view to_string(DeploymentMode m) {
  return k_deployment_mode_names.name(m);
}

struct Deployment {
  DeploymentMode mode = DeploymentMode::cloud;
  long long horizon_months = 12;
  double growth_per_month = 0.0;
  double hours_per_month = 730.0;
  std::optional<std::string> provider;  // prefer this provider's price
  std::string price_kind = "on_demand"; // on_demand, spot, committed
  double utilization = 0.7;             // average GPU power draw as a fraction of TDP
  double pue = 1.3;
  double electricity_usd_per_kwh = 0.12;
  double amortization_years = 4.0;
  double operations_share = 0.15; // yearly operations cost as a share of the purchase
  long long stale_price_days = 180;
  // On-prem: GPUs per server bought, for every GPU planned; unset, each GPU's catalog
  // purchase.gpus_per_server (8 on HGX/OAM boards and PCIe servers, 72 per NVL72 rack...).
  std::optional<long long> gpus_per_server;
  // rightsize deploy: the autoscaler may take the deployment to zero replicas when idle (KEDA
  // minReplicaCount 0). Does not change the plan.
  bool scale_to_zero = false;
};

struct Spec {
  std::string file; // where it was read from
  std::string name;
  bool bare_hf_config = false; // the input was a config.json, the workload took defaults
  ModelArch model;
  Quantization weights; // how the weights are stored for this workload
  Precision precision;
  Workload workload;
  Constraints constraints;
  Deployment deployment;
  // Defaults that were applied ("workload.input_tokens = 4096 (default for a bare config.json)"),
  // shown as assumptions in reports.
  std::vector<std::string> defaults;
  std::vector<std::string> warnings;
  // An embedding workload on an image encoder (ViT, CLIP, SigLIP): its unit is the image. Each
  // image is one sequence of the encoder's tokens per image (InferenceWorkload::input_tokens),
  // its rate targets.requests_per_s in images per second, targets.ttft an image's latency.
  [[nodiscard]] bool embeds_images() const {
    return workload.is_embedding() && model.image.has_value();
  }
  // An image generation workload on a diffusers pipeline (model.diffusion): images per second,
  // an image's latency, $ per thousand images.
  [[nodiscard]] bool generates_images() const {
    return workload.is_image_generation() && model.diffusion.has_value();
  }
  // Workloads whose unit is the image, embedded or generated.
  [[nodiscard]] bool per_image() const { return embeds_images() || generates_images(); }
  // Whether the workload keeps a KV cache: an embedding (an encoder's one pass) and image
  // generation (a denoiser's fixed-length passes) keep none, so precision.kv_cache names nothing.
  [[nodiscard]] bool keeps_kv_cache() const { return !workload.one_pass(); }
};

// What the spec is read for: to plan or estimate a workload, or only to describe its model
// (`rightsize model`), which also reads models no workload is planned for (encoder-decoder ones).
enum class SpecUse { plan, describe };

// Reads a spec or a bare config.json from a file, or a model folder as the spec's "model" field
// reads one: its config.json, else its model_index.json (a diffusers pipeline), as a bare config
// (InputError when it has neither). Relative model paths resolve against the spec's directory.
// Throws InputError naming the file and JSON pointer.
Spec load_spec(const std::string& path, SpecUse use = SpecUse::plan);
// Same, from parsed JSON; `file` names it in errors and anchors relative paths.
Spec parse_spec(const nlohmann::json& json, const std::string& file, SpecUse use = SpecUse::plan);

// The engine's name as reports and the uncertainty bands know it: "diffusers" for image
// generation (planned on Engine::transformers' efficiencies, with no measured runs of its own),
// else to_string(engine).
std::string engine_name(const Spec& spec);

// Why `engine` cannot serve the image encoder `model` (docs/spec.md, "Image embeddings"):
// transformers runs every one, vLLM only the CLIP and SigLIP dual encoders (CLIPModel,
// SiglipModel); none for an engine that can, or a model that is no image encoder.
std::optional<std::string> image_engine_refusal(const ModelArch& model, Engine engine);

// Upper bounds that catch absurd input (1e30 tokens) before it reaches a formula.
namespace limits {
inline constexpr double k_max_tokens = 1e7; // per request
inline constexpr double k_max_concurrency = 1e6;
inline constexpr std::size_t k_max_length_bins = 1000; // bins of a length histogram
inline constexpr double k_max_train_tokens = 1e15;
inline constexpr double k_max_batch = 1e8;
} // namespace limits

} // namespace rightsize
