// Whisper transcription (issue 16): the encoder pass per window, the decoder per token, the
// cross-attention KV cache per window and the serving estimate in audio seconds per second,
// against hand-derived figures (docs/model.md, "Transcription workloads").

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Spec transcription(nlohmann::json workload) {
  workload["type"] = "transcription";
  return parse_spec(
      {{"model", config_path("encdec/whisper-large-v3")}, {"workload", std::move(workload)}},
      "test.json");
}

InferencePerformance run(const Spec& s, const char* gpu, MemoryEstimate* memory = nullptr) {
  const Parallelism p;
  const Gpu& g = catalog().resolve(gpu, "test");
  const auto m = estimate_memory(s, g, p, constants());
  if (memory != nullptr) {
    *memory = m;
  }
  return estimate_inference(s, g, p, m, efficiency(), constants());
}

} // namespace

TEST_CASE("transcription: Whisper large-v3 encoder FLOPs per 30 s window", "[transcription]") {
  const ModelArch& m = transcription({}).model;
  REQUIRE(m.encoder_positions == 1500);
  REQUIRE(m.mel_bins == 128);
  // One layer's matrices: self-attention 4h^2 + 3h = 6,557,440 and MLP 2hI + I + h = 13,113,600.
  const double layer = 6'557'440.0 + 13'113'600.0;
  const double conv = 2.0 * (128.0 * 1280 * 3 * 3000 + 1280.0 * 1280 * 3 * 1500);
  CHECK(conv == 17'694'720'000.0);
  const double stack = 2.0 * layer * 32 * 1500;                       // 1,888,419,840,000
  const double attention = 2.0 * 20 * (64 + 64) * 1500.0 * 1500 * 32; // 368,640,000,000
  // k and v of the 32 cross-attentions, each 4h^2 + 3h, over the 1500 encoder positions.
  const double cross_kv = 2.0 * (32 * 6'557'440.0 / 2) * 1500; // 314,757,120,000
  CHECK(stack + attention + cross_kv + conv == 2'589'511'680'000.0);
  CHECK(encoder_window_flops(m).si() == Approx(2'589'511'680'000.0).epsilon(1e-12));
}

TEST_CASE("transcription: Whisper large-v3 decoder FLOPs per token", "[transcription]") {
  const ModelArch& m = transcription({}).model;
  // 32 layers' matrices, the cross-attention's q and o, the lm_head (51,866 x 1280), twice.
  const double matmul = 2.0 * (32 * 19'671'040.0 + 32 * 6'557'440.0 / 2 + 51'866.0 * 1280);
  CHECK(matmul == 1'601'561'600.0);
  // Attention over t own tokens and 1500 encoder positions: 2 x 20 x 128 x 32 per key.
  CHECK(decoder_token_flops(m, 0).si() == Approx(matmul + 163'840.0 * 1500).epsilon(1e-12));
  // A 100-token window's average context: 4 task tokens + 50.
  CHECK(decoder_token_flops(m, 54).si() == Approx(1'856'168'960.0).epsilon(1e-12));
}

TEST_CASE("transcription: cross-attention KV cache per window", "[transcription]") {
  // 32 decoder layers x (k + v) x 20 heads x 64 x 2 bytes = 163,840 bytes per position.
  const Spec vllm = transcription({{"output_tokens", 100}});
  const KvCacheGeometry g = kv_cache_geometry(vllm, Parallelism{}, constants());
  CHECK(g.per_token_global.si() == 163'840.0);
  CHECK(g.per_token_local.si() == 0.0);
  // vLLM pages the 1500 encoder positions in 16-token blocks (CrossAttentionSpec): 94 x 16.
  CHECK(g.state.si() == 163'840.0 * 1504); // 246,415,360 bytes, 235.0 MiB
  // The window: the cross-attention state and 4 + 100 own tokens, paged to 112.
  CHECK(g.per_sequence(104).si() == 246'415'360.0 + 163'840.0 * 112);
  // transformers keeps exactly 1500 positions; tensor parallelism splits the heads.
  const Spec hf = transcription({{"engine", "transformers"}});
  CHECK(kv_cache_geometry(hf, Parallelism{}, constants()).state.si() == 245'760'000.0);
  Parallelism tp2;
  tp2.tp = 2;
  CHECK(kv_cache_geometry(vllm, tp2, constants()).state.si() == 246'415'360.0 / 2);
}

TEST_CASE("transcription: audio seconds per second, latency and windows", "[transcription]") {
  MemoryEstimate m30;
  const Spec one = transcription({{"audio_seconds", 30}, {"concurrency", 32}});
  const InferencePerformance a = run(one, "H100", &m30);
  REQUIRE(a.concurrency == 32);
  CHECK(m30.kv_fixed_per_sequence.si() == 246'415'360.0);
  CHECK(std::isfinite(a.audio_seconds_per_s));
  CHECK(a.audio_seconds_per_s > 0);
  // 30 s per window: audio seconds per second are windows per second x 30.
  CHECK(a.audio_seconds_per_s == Approx(a.requests_per_s * 30));
  CHECK(a.output_tokens_per_s == Approx(a.requests_per_s * 100));
  // A request's latency is its window's time to first token and 99 decode steps.
  CHECK(a.ttft.si() > a.tpot.si() * 99);
  // A decode step reads every window's KV cache at the average context (4 + 50 tokens, paged to
  // 64), the cross-attention's 246 MB most of all, and the decoder's weights, not the encoder's:
  // 32 of 64 layers' matrices, the cross-attention and the embeddings, about 59% of them.
  const double kv = 32.0 * (246'415'360.0 + 163'840.0 * 64);
  const double weights_read = a.decode_bytes.si() - kv;
  CHECK(weights_read > 0.55 * m30.per_gpu.weights.si());
  CHECK(weights_read < 0.62 * m30.per_gpu.weights.si());

  // Ten windows per request, one after another: the same windows per second at the same
  // concurrency, ten times the latency, the same audio seconds per second.
  const Spec ten = transcription({{"audio_seconds", 300}, {"concurrency", 32}});
  REQUIRE(ten.workload.inference.transcription->windows == 10);
  const InferencePerformance b = run(ten, "H100");
  CHECK(b.requests_per_s == Approx(a.requests_per_s));
  CHECK(b.ttft.si() == Approx(10 * a.ttft.si()));
  CHECK(b.audio_seconds_per_s == Approx(a.audio_seconds_per_s));
  // 45 s is two windows of 22.5 s of audio each: fewer audio seconds per window.
  const InferencePerformance c =
      run(transcription({{"audio_seconds", 45}, {"concurrency", 32}}), "H100");
  CHECK(c.audio_seconds_per_s == Approx(a.audio_seconds_per_s * 22.5 / 30));
  // Offline: the largest batch of windows that fits.
  const InferencePerformance offline = run(transcription({}), "H100");
  CHECK(offline.concurrency > 32);
  CHECK(offline.audio_seconds_per_s > a.audio_seconds_per_s);
}
