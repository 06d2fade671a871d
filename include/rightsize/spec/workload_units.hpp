#pragma once

// One description of what a workload counts, made once from its spec: the kind of workload, what
// its rate counts, which latency it has, whether it decodes, what it is priced by and what memory
// each request keeps, with the names reports, JSON and lock files give each. Plan, render and
// check read it instead of asking the spec which kind it is (docs/plan.md, "Workload units").
//
// The description holds names and choices only. Which field of a performance estimate or of a
// cost holds a rate or a price is plan's to say (plan/unit_values.hpp): this stage cannot see
// those types.

#include <optional>
#include <string_view>

namespace rightsize {

struct Spec;

// The kinds of workload reports tell apart. One row of a table each (workload_units()).
enum class WorkloadKind {
  text_generation,  // a decoder generates (type inference): TTFT, TPOT, output tokens/s
  text_to_text,     // an encoder-decoder generates (T5): the encoder reads the input once
  text_embedding,   // one forward pass per sequence, pooled (type embedding)
  image_embedding,  // one forward pass per image: a ViT, CLIP or SigLIP tower, or a CNN
  image_generation, // a diffusers pipeline: one denoising loop per image
  transcription,    // Whisper: each request's audio in 30 s windows, each one a sequence
  training,         // pre-training
  finetune,         // fine-tuning: full, LoRA or QLoRA
};
std::string_view to_string(WorkloadKind k); // "text_generation", ...

// The latency a serving workload is held to: time to first token (then TPOT per token), or the
// whole latency of a request (an embedded sequence, an image, a transcribed request).
enum class LatencyUnit { none, ttft, request };

// What a serving workload's rate counts.
enum class RateUnit {
  none,          // training
  output_tokens, // generated tokens per second
  sequences,     // sequences embedded per second
  images,        // images embedded or generated per second
  audio_seconds, // seconds of audio transcribed per second (times real time)
};

// The tokens per second reports show beside the rate.
enum class TokenRate {
  none,   // training
  output, // generated tokens (a transcription's decoder tokens too)
  input,  // tokens embedded
  latent, // a pipeline's latent positions, which no one buys
};

// What a price is per. The per-million-token bases are one cost field, the workload's tokens.
enum class PriceBasis {
  per_million_output_tokens,
  per_million_input_tokens,
  per_million_trained_tokens,
  per_thousand_images,
  per_audio_hour,
};

// What each request (sequence, window) keeps in memory while it is served.
enum class KeptMemory {
  none,                                // one pass: an encoder, a CNN, a denoiser; training
  kv_cache,                            // attention's keys and values
  kv_cache_and_mamba_state,            // a Mamba hybrid: a constant state beside the KV cache
  kv_cache_and_linear_attention_state, // a Gated DeltaNet hybrid (Qwen3-Next)
};

// What one unit of the kept memory, and of the requirements' figures, is per.
enum class MemoryPer { none, request, sequence, image, window };

// The names of a latency: in JSON and lock files, reports' words, a table's and a page's column.
struct LatencyNames {
  std::string_view key;   // "ttft_ms", "latency_ms" (milliseconds)
  std::string_view words; // "TTFT", "latency": "misses the TTFT target", "latency <= 2s"
  std::string_view table; // "TTFT", "LATENCY": the terminal table's header
  std::string_view title; // "TTFT", "Latency": Markdown's and HTML's header
};

struct RateNames {
  std::string_view key;   // "images_per_s": JSON, lock files, CSV
  std::string_view words; // "images/s": targets (">= 2 images/s") and sentences
  std::string_view table; // "IMG/S"
  std::string_view title; // "Images/s"
  int decimals = 0;       // Markdown's and HTML's cells: "{:.1f}" images/s
};

struct PriceNames {
  std::string_view key;           // estimate's JSON: "usd_per_million_trained_tokens"
  std::string_view plan_key;      // plan's JSON and the lock's; `key` but for trained tokens,
                                  // which schema 1 names "usd_per_million_output_tokens"
  std::string_view full_load_key; // plan's JSON: "usd_per_thousand_images_full_load"
  std::string_view words;         // "thousand images": "$ per thousand images"
  std::string_view table;         // "$/KIMG"
  std::string_view title;         // "$/1000 images"
  bool per_token = false;         // a price per million tokens: the cost's token fields
};

// The description. Every serving kind has a latency, a rate, a token rate and a price; training
// has a price per trained token only.
struct WorkloadUnits {
  WorkloadKind kind = WorkloadKind::text_generation;
  bool serving = true; // false: training and fine-tuning
  bool decodes = true; // tokens generated one step at a time after a prefill or encoder pass:
                       // TPOT exists (generation, text to text, transcription)
  LatencyUnit latency = LatencyUnit::ttft;
  RateUnit rate = RateUnit::output_tokens;
  TokenRate tokens = TokenRate::output;
  // The price per million tokens reports give, if any: image generation's tokens are latent
  // positions, priced per image only.
  std::optional<PriceBasis> token_price = PriceBasis::per_million_output_tokens;
  // What the workload is quoted and ranked by: its own unit (images, audio hours) where it has
  // one, else its token price.
  PriceBasis price = PriceBasis::per_million_output_tokens;
  KeptMemory memory = KeptMemory::kv_cache;
  MemoryPer per = MemoryPer::request;
  // What requests_per_s counts and targets name: "request", "sequence", "image", "window".
  std::string_view item = "request";
  std::string_view items = "requests";
  // The encoder pass a request or window makes before decoding: "request" (text to text),
  // "window" (transcription); empty for decoders and one-pass workloads.
  std::string_view encoder_pass;
  // Image generation runs at a fraction of an image per second per GPU: rates in two
  // significant digits.
  bool fractional_rate = false;
  // Whether precision.kv_cache names a format that applies (estimate's --kv-cache): everything
  // but one-pass workloads.
  bool kv_format = true;

  // A request's latency is TTFT, then TPOT per output token: reports show both, and the rate is
  // output tokens. Otherwise the latency is the whole request and the rate stands beside it.
  [[nodiscard]] bool shows_tpot() const { return latency == LatencyUnit::ttft; }
  // One batched computation per input, no decode: an embedding, an image generated.
  [[nodiscard]] bool one_pass() const { return serving && !decodes; }
};

// The row of `spec`'s kind, its kept memory from the model (a recurrent state beside the KV
// cache, none for an encoder-only model). Cheap (a row copied); make it once per plan or report.
WorkloadUnits workload_units(const Spec& spec);
// The kind of `spec`: its workload type, and for an embedding whether the model embeds images,
// for generation whether it is an encoder-decoder.
WorkloadKind workload_kind(const Spec& spec);
// The row of a kind, as a model without recurrent layers keeps memory.
const WorkloadUnits& workload_units(WorkloadKind kind);

const LatencyNames& names(LatencyUnit l);
const RateNames& names(RateUnit r);
const PriceNames& names(PriceBasis p);
// "KV cache", "KV cache and Mamba state", "KV cache and linear-attention state"; empty for none.
std::string_view words(KeptMemory m);

} // namespace rightsize
