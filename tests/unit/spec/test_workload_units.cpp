// The description of a workload's units (spec/workload_units.hpp): every kind's row against
// hand-written expectations, the names each unit goes by, and the row each bundled example gets.

#include "test_paths.hpp"

#include <rightsize/spec/spec.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::config_path;

namespace {

Spec example(const std::string& name) {
  return load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/" + name);
}

Spec generation_of(const std::string& model) {
  return parse_spec({{"model", config_path(model)}, {"workload", {{"type", "inference"}}}},
                    "spec.json");
}

} // namespace

TEST_CASE("workload units: text generation is TTFT, TPOT, output tokens", "[spec][units]") {
  const WorkloadUnits& u = workload_units(WorkloadKind::text_generation);
  CHECK(u.kind == WorkloadKind::text_generation);
  CHECK(u.serving);
  CHECK(u.decodes);
  CHECK(u.shows_tpot());
  CHECK_FALSE(u.one_pass());
  CHECK(u.latency == LatencyUnit::ttft);
  CHECK(u.rate == RateUnit::output_tokens);
  CHECK(u.tokens == TokenRate::output);
  CHECK(u.token_price == PriceBasis::per_million_output_tokens);
  CHECK(u.price == PriceBasis::per_million_output_tokens);
  CHECK(u.memory == KeptMemory::kv_cache);
  CHECK(u.per == MemoryPer::request);
  CHECK(u.item == "request");
  CHECK(u.items == "requests");
  CHECK(u.encoder_pass.empty());
  CHECK_FALSE(u.fractional_rate);
  CHECK(u.kv_format);
}

TEST_CASE("workload units: text to text decodes after one encoder pass per request",
          "[spec][units]") {
  const WorkloadUnits& u = workload_units(WorkloadKind::text_to_text);
  CHECK(u.serving);
  CHECK(u.decodes);
  CHECK(u.latency == LatencyUnit::ttft);
  CHECK(u.rate == RateUnit::output_tokens);
  CHECK(u.price == PriceBasis::per_million_output_tokens);
  CHECK(u.memory == KeptMemory::kv_cache);
  CHECK(u.per == MemoryPer::request);
  CHECK(u.encoder_pass == "request");
  CHECK(u.kv_format);
}

TEST_CASE("workload units: a text embedding is a sequence's latency, sequences/s, input tokens",
          "[spec][units]") {
  const WorkloadUnits& u = workload_units(WorkloadKind::text_embedding);
  CHECK(u.serving);
  CHECK_FALSE(u.decodes);
  CHECK(u.one_pass());
  CHECK_FALSE(u.shows_tpot());
  CHECK(u.latency == LatencyUnit::request);
  CHECK(u.rate == RateUnit::sequences);
  CHECK(u.tokens == TokenRate::input);
  CHECK(u.token_price == PriceBasis::per_million_input_tokens);
  CHECK(u.price == PriceBasis::per_million_input_tokens);
  CHECK(u.per == MemoryPer::sequence);
  CHECK(u.item == "sequence");
  CHECK(u.items == "sequences");
  CHECK_FALSE(u.kv_format);
}

TEST_CASE("workload units: an image embedding is images/s and $ per thousand images",
          "[spec][units]") {
  const WorkloadUnits& u = workload_units(WorkloadKind::image_embedding);
  CHECK(u.one_pass());
  CHECK(u.latency == LatencyUnit::request);
  CHECK(u.rate == RateUnit::images);
  CHECK(u.tokens == TokenRate::input);
  // Its tokens are priced too, beside the images.
  CHECK(u.token_price == PriceBasis::per_million_input_tokens);
  CHECK(u.price == PriceBasis::per_thousand_images);
  CHECK(u.memory == KeptMemory::none);
  CHECK(u.per == MemoryPer::image);
  CHECK(u.items == "images");
  CHECK_FALSE(u.fractional_rate);
  CHECK_FALSE(u.kv_format);
}

TEST_CASE("workload units: image generation is priced per image only, at fractions of an image "
          "per second",
          "[spec][units]") {
  const WorkloadUnits& u = workload_units(WorkloadKind::image_generation);
  CHECK(u.one_pass());
  CHECK(u.latency == LatencyUnit::request);
  CHECK(u.rate == RateUnit::images);
  CHECK(u.tokens == TokenRate::latent);
  CHECK_FALSE(u.token_price.has_value());
  CHECK(u.price == PriceBasis::per_thousand_images);
  CHECK(u.memory == KeptMemory::none);
  CHECK(u.fractional_rate);
  CHECK_FALSE(u.kv_format);
}

TEST_CASE("workload units: a transcription is a request's latency, audio seconds/s and $ per "
          "audio hour, a KV cache per window",
          "[spec][units]") {
  const WorkloadUnits& u = workload_units(WorkloadKind::transcription);
  CHECK(u.serving);
  CHECK(u.decodes);
  CHECK_FALSE(u.one_pass());
  CHECK_FALSE(u.shows_tpot());
  CHECK(u.latency == LatencyUnit::request);
  CHECK(u.rate == RateUnit::audio_seconds);
  CHECK(u.tokens == TokenRate::output);
  CHECK(u.token_price == PriceBasis::per_million_output_tokens);
  CHECK(u.price == PriceBasis::per_audio_hour);
  CHECK(u.memory == KeptMemory::kv_cache);
  CHECK(u.per == MemoryPer::window);
  CHECK(u.items == "windows");
  CHECK(u.encoder_pass == "window");
  CHECK(u.kv_format);
}

TEST_CASE("workload units: training and fine-tuning serve nothing and are priced per trained "
          "token",
          "[spec][units]") {
  for (const auto kind : {WorkloadKind::training, WorkloadKind::finetune}) {
    const WorkloadUnits& u = workload_units(kind);
    CHECK(u.kind == kind);
    CHECK_FALSE(u.serving);
    CHECK_FALSE(u.one_pass());
    CHECK(u.latency == LatencyUnit::none);
    CHECK(u.rate == RateUnit::none);
    CHECK(u.tokens == TokenRate::none);
    CHECK(u.price == PriceBasis::per_million_trained_tokens);
    CHECK(u.token_price == PriceBasis::per_million_trained_tokens);
    CHECK(u.memory == KeptMemory::none);
  }
  CHECK(to_string(WorkloadKind::finetune) == "finetune");
}

TEST_CASE("workload units: the names of each latency, rate and price", "[spec][units]") {
  CHECK(names(LatencyUnit::ttft).key == "ttft_ms");
  CHECK(names(LatencyUnit::ttft).words == "TTFT");
  CHECK(names(LatencyUnit::request).key == "latency_ms");
  CHECK(names(LatencyUnit::request).table == "LATENCY");
  CHECK(names(LatencyUnit::request).title == "Latency");

  CHECK(names(RateUnit::output_tokens).key == "output_tokens_per_s");
  CHECK(names(RateUnit::sequences).key == "sequences_per_s");
  CHECK(names(RateUnit::sequences).table == "SEQ/S");
  CHECK(names(RateUnit::images).words == "images/s");
  CHECK(names(RateUnit::images).decimals == 1);
  CHECK(names(RateUnit::audio_seconds).key == "audio_seconds_per_s");
  CHECK(names(RateUnit::audio_seconds).title == "Audio s/s");
  CHECK(names(RateUnit::audio_seconds).decimals == 0);

  const PriceNames& output = names(PriceBasis::per_million_output_tokens);
  CHECK(output.plan_key == "usd_per_million_output_tokens");
  CHECK(output.full_load_key == "usd_per_million_output_tokens_full_load");
  CHECK(output.words == "million output tokens");
  CHECK(output.table == "$/MTOK");
  CHECK(output.per_token);
  // Trained tokens: estimate names them, a plan's JSON and the lock keep schema 1's name.
  const PriceNames& trained = names(PriceBasis::per_million_trained_tokens);
  CHECK(trained.key == "usd_per_million_trained_tokens");
  CHECK(trained.plan_key == "usd_per_million_output_tokens");
  CHECK(trained.words == "million trained tokens");
  const PriceNames& images = names(PriceBasis::per_thousand_images);
  CHECK(images.key == "usd_per_thousand_images");
  CHECK(images.full_load_key == "usd_per_thousand_images_full_load");
  CHECK(images.table == "$/KIMG");
  CHECK(images.title == "$/1000 images");
  CHECK_FALSE(images.per_token);
  const PriceNames& audio = names(PriceBasis::per_audio_hour);
  CHECK(audio.full_load_key == "usd_per_audio_hour_full_load");
  CHECK(audio.words == "audio hour");
  CHECK(audio.table == "$/AUDIO H");

  CHECK(words(KeptMemory::none).empty());
  CHECK(words(KeptMemory::kv_cache) == "KV cache");
  CHECK(words(KeptMemory::kv_cache_and_mamba_state) == "KV cache and Mamba state");
  CHECK(words(KeptMemory::kv_cache_and_linear_attention_state) ==
        "KV cache and linear-attention state");
}

TEST_CASE("workload units: each bundled example gets its kind's row", "[spec][units]") {
  const std::pair<const char*, WorkloadKind> cases[] = {
      {"bge-m3-rag-embeddings.json", WorkloadKind::text_embedding},
      {"flan-t5-large-summarization.json", WorkloadKind::text_to_text},
      {"infeasible-latency.json", WorkloadKind::text_generation},
      {"jamba-1.5-mini-rag.json", WorkloadKind::text_generation},
      {"llama-2-7b-lora.json", WorkloadKind::finetune},
      {"llama-3.1-70b-pretrain.json", WorkloadKind::training},
      {"llama-3.1-70b-sla.json", WorkloadKind::text_generation},
      {"llama-3.1-8b-chat.json", WorkloadKind::text_generation},
      {"mixtral-8x7b.json", WorkloadKind::text_generation},
      {"qwen2.5-vl-7b-documents.json", WorkloadKind::text_generation},
      {"resnet-50-image-classification.json", WorkloadKind::image_embedding},
      {"sdxl-image-generation.json", WorkloadKind::image_generation},
      {"siglip-image-embeddings.json", WorkloadKind::image_embedding},
      {"whisper-large-v3-transcription.json", WorkloadKind::transcription},
  };
  for (const auto& [file, kind] : cases) {
    INFO(file);
    const Spec spec = example(file);
    CHECK(workload_kind(spec) == kind);
    const WorkloadUnits u = workload_units(spec);
    CHECK(u.kind == kind);
    CHECK(u.price == workload_units(kind).price);
  }
}

TEST_CASE("workload units: the memory a request keeps follows the model", "[spec][units]") {
  // Jamba: Mamba layers beside attention; Qwen3-Next: Gated DeltaNet beside attention.
  CHECK(workload_units(example("jamba-1.5-mini-rag.json")).memory ==
        KeptMemory::kv_cache_and_mamba_state);
  CHECK(workload_units(generation_of("hybrid/qwen3-next-80b-a3b-instruct")).memory ==
        KeptMemory::kv_cache_and_linear_attention_state);
  CHECK(workload_units(example("llama-3.1-8b-chat.json")).memory == KeptMemory::kv_cache);
  // An encoder-only model's embedding keeps nothing; a decoder's keeps its KV cache.
  CHECK(workload_units(example("bge-m3-rag-embeddings.json")).memory == KeptMemory::none);
  const Spec decoder = parse_spec(
      {{"model", config_path("llama-3.1-8b")}, {"workload", {{"type", "embedding"}}}}, "e.json");
  CHECK(workload_units(decoder).kind == WorkloadKind::text_embedding);
  CHECK(workload_units(decoder).memory == KeptMemory::kv_cache);
  CHECK(workload_units(example("siglip-image-embeddings.json")).memory == KeptMemory::none);
  CHECK(workload_units(example("whisper-large-v3-transcription.json")).memory ==
        KeptMemory::kv_cache);
  CHECK(workload_units(example("sdxl-image-generation.json")).memory == KeptMemory::none);
  CHECK(workload_units(example("llama-3.1-70b-pretrain.json")).memory == KeptMemory::none);
}

TEST_CASE("workload units: the CI and deploy examples are text generation", "[spec][units]") {
  for (const char* file : {"ci/specs/chat.json",
                           "ci/specs/sla.json",
                           "deploy/chat-8b-keda.json",
                           "deploy/llama-3.1-405b-multinode.json",
                           "deploy/small-mig.json"}) {
    INFO(file);
    const WorkloadUnits u = workload_units(example(file));
    CHECK(u.kind == WorkloadKind::text_generation);
    CHECK(u.shows_tpot());
    CHECK(u.price == PriceBasis::per_million_output_tokens);
    CHECK(u.memory == KeptMemory::kv_cache);
  }
}
