// T5 text-to-text generation (issue 16): the encoder pass per request, the decoder per token, the
// cross-attention KV cache per request, transformers' activations over the encoder pass and the
// serving estimate, against hand-derived figures (docs/model.md, "Text-to-text workloads").

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

Spec text_to_text(nlohmann::json workload, const char* model = "encdec/flan-t5-large") {
  workload["type"] = "inference";
  return parse_spec(
      {{"model", config_path(model)}, {"precision", "bf16"}, {"workload", std::move(workload)}},
      "test.json");
}

} // namespace

TEST_CASE("text-to-text: the request's input is the encoder's, the decoder starts from one token",
          "[text_to_text]") {
  const Spec s = text_to_text({{"input_tokens", 512}, {"output_tokens", 150}});
  CHECK(s.model.encoder_positions == 512);
  CHECK(s.workload.inference.input_tokens == 1);
  CHECK(s.workload.inference.output_tokens == 150);
  CHECK(s.workload.inference.engine == Engine::transformers);
  // The parameters are the checkpoint's: the input length adds no stored positions.
  CHECK(s.model.params_total == 783'150'080);
}

TEST_CASE("text-to-text: Flan-T5-large encoder FLOPs for 512 input tokens", "[text_to_text]") {
  const ModelArch& m = text_to_text({{"input_tokens", 512}}).model;
  // h 1024, 16 heads of 64 (attention width 1024), gated MLP of 2816, 24 + 24 layers.
  // Self-attention of both stacks: 48 x 4 x 1024 x 1024 = 201,326,592, and the two relative
  // position bias tables, 2 x 32 buckets x 16 heads = 1,024; MLPs: 48 x 3 x 1024 x 2816 =
  // 415,236,096. One layer's share (p_l) x 24 encoder layers: half of both, 308,281,856.
  const double encoder_layers = (201'326'592.0 + 1'024.0 + 415'236'096.0) / 2.0;
  CHECK(encoder_layers == 308'281'856.0);
  const double stack = 2.0 * encoder_layers * 512;                  // 315,680,620,544
  const double attention = 2.0 * 16 * (64 + 64) * 512.0 * 512 * 24; // 25,769,803,776
  const double cross_kv = 2.0 * (24 * 4 * 1024.0 * 1024 / 2) * 512; // 51,539,607,552
  CHECK(stack + attention + cross_kv == 392'990'031'872.0);
  // No convolutions: Whisper's second one (2 x h x h x 3 x P, 3,221,225,472 FLOP here) is not
  // T5's (the first version of encoder_window_flops counted it for any encoder-decoder).
  CHECK(encoder_window_flops(m).si() == Approx(392'990'031'872.0).epsilon(1e-12));
  // Twice the input: the matrices twice, the attention four times.
  const ModelArch& m2 = text_to_text({{"input_tokens", 1024}}).model;
  CHECK(encoder_window_flops(m2).si() ==
        Approx(2 * (stack + cross_kv) + 4 * attention).epsilon(1e-12));
}

TEST_CASE("text-to-text: Flan-T5-large decoder FLOPs per token", "[text_to_text]") {
  const ModelArch& m = text_to_text({{"input_tokens", 512}}).model;
  // 24 decoder layers' self-attention and MLP (308,281,856), the cross-attention's q and o
  // (50,331,648) and the lm_head (32,128 x 1024 = 32,899,072), twice.
  const double matmul = 2.0 * (308'281'856.0 + 50'331'648.0 + 32'899'072.0);
  CHECK(matmul == 783'025'152.0);
  // Attention over its own t tokens and the 512 encoder positions: 2 x 16 x 128 x 24 per key.
  CHECK(decoder_token_flops(m, 0).si() == Approx(833'356'800.0).epsilon(1e-12));
  CHECK(decoder_token_flops(m, 75).si() == Approx(matmul + 98'304.0 * (75 + 512)).epsilon(1e-12));
}

TEST_CASE("text-to-text: cross-attention KV cache per request", "[text_to_text]") {
  // 24 decoder layers x (k + v) x 16 heads x 64 x 2 bytes = 98,304 bytes per position.
  const Spec flan = text_to_text({{"input_tokens", 512}, {"output_tokens", 150}});
  const KvCacheGeometry g = kv_cache_geometry(flan, Parallelism{}, constants());
  CHECK(g.per_token_global.si() == 98'304.0);
  CHECK(g.block == 1);                 // transformers: no pages
  CHECK(g.state.si() == 50'331'648.0); // the 512 encoder positions: 48 MiB
  // The start token and 150 output tokens: 14,843,904 bytes more.
  CHECK(g.per_sequence(151).si() == 50'331'648.0 + 14'843'904.0);
  // mT5-small's attention is 6 heads x 64 = 384 wide, not d_model's 512: 8 decoder layers x 2 x
  // 384 x 2 bytes = 12,288 bytes per position.
  const Spec mt5 = text_to_text({{"input_tokens", 256}}, "encdec/mt5-small");
  const KvCacheGeometry gm = kv_cache_geometry(mt5, Parallelism{}, constants());
  CHECK(gm.per_token_global.si() == 12'288.0);
  CHECK(gm.state.si() == 12'288.0 * 256);
}

TEST_CASE("text-to-text: transformers' activations over the encoder pass", "[text_to_text]") {
  const Spec s = text_to_text({{"input_tokens", 512}, {"output_tokens", 150}, {"concurrency", 32}});
  const Gpu& g = catalog().resolve("H100", "test");
  const MemoryEstimate m = estimate_memory(s, g, Parallelism{}, constants());
  REQUIRE(m.batch == 32);
  // 32 x 512 encoder tokens x 2 bytes x (2h + the gated MLP's 3 x 2816) = 343,932,928; the
  // logits of 32 sequences in fp32 and the sampler's copy, 32 x 32,128 x 8 = 8,224,768; T5's
  // eager attention scores, 32 x 16 heads x 512^2 x (2 + 2 + 4 + 4) bytes = 1,610,612,736.
  CHECK(m.per_gpu.activations.si() == 343'932'928.0 + 8'224'768.0 + 1'610'612'736.0);
  CHECK(m.kv_fixed_per_sequence.si() == 50'331'648.0);
}

TEST_CASE("text-to-text: serving estimate in output tokens", "[text_to_text]") {
  const Spec s = text_to_text({{"input_tokens", 512}, {"output_tokens", 150}, {"concurrency", 32}});
  const Gpu& g = catalog().resolve("H100", "test");
  const MemoryEstimate m = estimate_memory(s, g, Parallelism{}, constants());
  const InferencePerformance a =
      estimate_inference(s, g, Parallelism{}, m, efficiency(), constants());
  REQUIRE(a.concurrency == 32);
  CHECK(std::isfinite(a.output_tokens_per_s));
  CHECK(a.output_tokens_per_s == Approx(a.requests_per_s * 150));
  CHECK(a.audio_seconds_per_s == 0);
  // TTFT includes the encoder pass (393 GFLOP), which grows with the input.
  CHECK(a.ttft.si() >= a.prefill.si());
  const Spec longer =
      text_to_text({{"input_tokens", 2048}, {"output_tokens", 150}, {"concurrency", 32}});
  const InferencePerformance b =
      estimate_inference(longer,
                         g,
                         Parallelism{},
                         estimate_memory(longer, g, Parallelism{}, constants()),
                         efficiency(),
                         constants());
  CHECK(b.prefill.si() > a.prefill.si());
  CHECK(b.ttft.si() > a.ttft.si());
  // A decode step reads the decoder's weights, not the encoder's, in bf16: the decoder's share of
  // the self-attention (100,663,808 of 201,327,616 with the bias tables, by layers) and the
  // cross-attention (100,663,296), half the MLPs (207,618,048), the embedding and lm_head
  // (65,798,144) and every norm (122 x 1024): 474,868,224 parameters, 949,736,448 bytes of
  // 1,566,300,160; and every request's KV cache with its 48 MiB of cross-attention state.
  CHECK(m.per_gpu.weights.si() == 1'566'300'160.0);
  const KvCacheGeometry geo = kv_cache_geometry(s, Parallelism{}, constants());
  const double kv_read = a.decode_bytes.si() - 949'736'448.0;
  CHECK(kv_read > 32 * geo.per_sequence(1).si());
  CHECK(kv_read < 32 * geo.per_sequence(151).si());
}
