// What a workload counts and is priced by, one row per kind (include/rightsize/spec/
// workload_units.hpp).

#include <rightsize/spec/spec.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <array>
#include <cstddef>

namespace rightsize {

namespace {

using L = LatencyUnit;
using R = RateUnit;
using T = TokenRate;
using P = PriceBasis;
using M = KeptMemory;
using Per = MemoryPer;
using K = WorkloadKind;

// Columns: kind, serving, decodes, latency, rate, tokens, token price, price, memory, per, item,
// items, encoder pass, fractional rate, KV format. In WorkloadKind's order.
// clang-format off
constexpr std::array<WorkloadUnits, 8> k_rows{{
    {K::text_generation, true, true, L::ttft, R::output_tokens, T::output,
     P::per_million_output_tokens, P::per_million_output_tokens, M::kv_cache, Per::request,
     "request", "requests", "", false, true},
    {K::text_to_text, true, true, L::ttft, R::output_tokens, T::output,
     P::per_million_output_tokens, P::per_million_output_tokens, M::kv_cache, Per::request,
     "request", "requests", "request", false, true},
    {K::text_embedding, true, false, L::request, R::sequences, T::input,
     P::per_million_input_tokens, P::per_million_input_tokens, M::kv_cache, Per::sequence,
     "sequence", "sequences", "", false, false},
    {K::image_embedding, true, false, L::request, R::images, T::input,
     P::per_million_input_tokens, P::per_thousand_images, M::none, Per::image, "image",
     "images", "", false, false},
    {K::image_generation, true, false, L::request, R::images, T::latent, std::nullopt,
     P::per_thousand_images, M::none, Per::image, "image", "images", "", true, false},
    {K::transcription, true, true, L::request, R::audio_seconds, T::output,
     P::per_million_output_tokens, P::per_audio_hour, M::kv_cache, Per::window, "window",
     "windows", "window", false, true},
    {K::training, false, false, L::none, R::none, T::none, P::per_million_trained_tokens,
     P::per_million_trained_tokens, M::none, Per::none, "", "", "", false, true},
    {K::finetune, false, false, L::none, R::none, T::none, P::per_million_trained_tokens,
     P::per_million_trained_tokens, M::none, Per::none, "", "", "", false, true},
}};
// clang-format on

constexpr bool rows_in_kind_order() {
  for (std::size_t i = 0; i < k_rows.size(); ++i) {
    if (static_cast<std::size_t>(k_rows[i].kind) != i) {
      return false;
    }
  }
  return true;
}
static_assert(rows_in_kind_order(), "k_rows must list the kinds in WorkloadKind's order");

constexpr std::array<LatencyNames, 3> k_latency{{
    {"", "", "", ""},
    {"ttft_ms", "TTFT", "TTFT", "TTFT"},
    {"latency_ms", "latency", "LATENCY", "Latency"},
}};

constexpr std::array<RateNames, 5> k_rate{{
    {"", "", "", "", 0},
    {"output_tokens_per_s", "output tokens/s", "TOK/S", "Tokens/s", 0},
    {"sequences_per_s", "sequences/s", "SEQ/S", "Sequences/s", 1},
    {"images_per_s", "images/s", "IMG/S", "Images/s", 1},
    {"audio_seconds_per_s", "audio seconds/s", "AUDIO S/S", "Audio s/s", 0},
}};

constexpr std::array<PriceNames, 5> k_price{{
    {"usd_per_million_output_tokens",
     "usd_per_million_output_tokens",
     "usd_per_million_output_tokens_full_load",
     "million output tokens",
     "$/MTOK",
     "$/M tokens",
     true},
    {"usd_per_million_input_tokens",
     "usd_per_million_input_tokens",
     "usd_per_million_input_tokens_full_load",
     "million input tokens",
     "$/MTOK",
     "$/M tokens",
     true},
    {"usd_per_million_trained_tokens",
     "usd_per_million_output_tokens",
     "usd_per_million_output_tokens_full_load",
     "million trained tokens",
     "$/MTOK",
     "$/M tokens",
     true},
    {"usd_per_thousand_images",
     "usd_per_thousand_images",
     "usd_per_thousand_images_full_load",
     "thousand images",
     "$/KIMG",
     "$/1000 images",
     false},
    {"usd_per_audio_hour",
     "usd_per_audio_hour",
     "usd_per_audio_hour_full_load",
     "audio hour",
     "$/AUDIO H",
     "$/audio hour",
     false},
}};

// A decoder's per-request memory: its KV cache, and the constant state of any recurrent layers.
KeptMemory decoder_memory(const ModelArch& m) {
  if (m.recurrent_layers() == 0) {
    return KeptMemory::kv_cache;
  }
  return m.ssm.kind == RecurrentKind::gated_deltanet
             ? KeptMemory::kv_cache_and_linear_attention_state
             : KeptMemory::kv_cache_and_mamba_state;
}

} // namespace

std::string_view to_string(WorkloadKind k) {
  switch (k) {
  case WorkloadKind::text_generation:
    return "text_generation";
  case WorkloadKind::text_to_text:
    return "text_to_text";
  case WorkloadKind::text_embedding:
    return "text_embedding";
  case WorkloadKind::image_embedding:
    return "image_embedding";
  case WorkloadKind::image_generation:
    return "image_generation";
  case WorkloadKind::transcription:
    return "transcription";
  case WorkloadKind::training:
    return "training";
  case WorkloadKind::finetune:
    return "finetune";
  }
  return "text_generation";
}

WorkloadKind workload_kind(const Spec& spec) {
  switch (spec.workload.type) {
  case WorkloadType::training:
    return WorkloadKind::training;
  case WorkloadType::finetune:
    return WorkloadKind::finetune;
  case WorkloadType::embedding:
    return spec.model.image ? WorkloadKind::image_embedding : WorkloadKind::text_embedding;
  case WorkloadType::image_generation:
    return WorkloadKind::image_generation;
  case WorkloadType::transcription:
    return WorkloadKind::transcription;
  case WorkloadType::inference:
    break;
  }
  return spec.model.encoder_decoder ? WorkloadKind::text_to_text : WorkloadKind::text_generation;
}

const WorkloadUnits& workload_units(WorkloadKind kind) {
  return k_rows[static_cast<std::size_t>(kind)];
}

WorkloadUnits workload_units(const Spec& spec) {
  WorkloadUnits u = workload_units(workload_kind(spec));
  if (u.kind == WorkloadKind::text_generation) {
    u.memory = decoder_memory(spec.model);
  } else if (u.kind == WorkloadKind::text_embedding && spec.model.encoder_only) {
    // Bidirectional attention over the whole sequence in one pass: nothing is cached.
    u.memory = KeptMemory::none;
  }
  return u;
}

const LatencyNames& names(LatencyUnit l) {
  return k_latency[static_cast<std::size_t>(l)];
}

const RateNames& names(RateUnit r) {
  return k_rate[static_cast<std::size_t>(r)];
}

const PriceNames& names(PriceBasis p) {
  return k_price[static_cast<std::size_t>(p)];
}

std::string_view words(KeptMemory m) {
  switch (m) {
  case KeptMemory::none:
    break;
  case KeptMemory::kv_cache:
    return "KV cache";
  case KeptMemory::kv_cache_and_mamba_state:
    return "KV cache and Mamba state";
  case KeptMemory::kv_cache_and_linear_attention_state:
    return "KV cache and linear-attention state";
  }
  return "";
}

} // namespace rightsize
