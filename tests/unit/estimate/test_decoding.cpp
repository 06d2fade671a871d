// Speculative decoding and prefix caching (docs/model.md, "Speculative decoding" and "Prefix
// caching"): tokens per step, the drafter's passes and the verification step, the prefill a
// prefix cache saves and the KV cache its prefixes take (issue 46).

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

Spec generation(long long input, const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json workload = {
      {"type", "inference"}, {"input_tokens", input}, {"output_tokens", 1024}, {"concurrency", 1}};
  workload.update(extra);
  return parse_spec({{"model", config_path("llama-3.1-8b")},
                     {"precision", {{"weights", "bf16"}, {"kv_cache", "bf16"}}},
                     {"workload", workload}},
                    "test.json");
}

struct Run {
  MemoryEstimate memory;
  InferencePerformance perf;
};

Run run(const Spec& s) {
  const Gpu& g = catalog().resolve("H100", "test");
  const Parallelism p;
  Run r{estimate_memory(s, g, p, constants()), {}};
  r.perf = estimate_inference(s, g, p, r.memory, efficiency(), constants());
  return r;
}

nlohmann::json eagle(double a, long long k) {
  return {{"speculative", {{"method", "eagle"}, {"draft_tokens", k}, {"acceptance_rate", a}}}};
}

} // namespace

TEST_CASE("speculative decoding: tokens per step", "[decoding]") {
  SpeculativeDecoding s;
  s.draft_tokens = 3;
  s.acceptance_rate = 0.8;
  // Leviathan et al. 2023: (1 - a^(k+1)) / (1 - a) = (1 - 0.8^4) / 0.2 = 0.5904 / 0.2 = 2.952.
  CHECK(s.tokens_per_step() == Approx(2.952).epsilon(1e-12));
  // vLLM's acceptance rate, accepted / proposed: (2.952 - 1) / 3 = 0.650667.
  CHECK(s.proposed_acceptance() == Approx(0.650667).epsilon(1e-5));
  // Every draft accepted: k + 1 = 4 tokens per step.
  s.acceptance_rate = 1.0;
  CHECK(s.tokens_per_step() == 4.0);
  // DeepSeek-V3's MTP, one draft token at 0.85: 1.85 tokens per step.
  s.draft_tokens = 1;
  s.acceptance_rate = 0.85;
  CHECK(s.tokens_per_step() == Approx(1.85).epsilon(1e-12));
}

TEST_CASE("speculative decoding: TPOT is the drafter's passes and the verification over the "
          "tokens per step",
          "[decoding]") {
  const Run plain = run(generation(1024));
  const Run spec = run(generation(1024, eagle(0.8, 3)));
  const Gpu& h100 = catalog().resolve("H100", "test");
  const Spec base = generation(1024);
  const ModelArch& m = base.model;
  // One sequence on an H100: the step reads the 16 GB of weights (about 6 ms) while 4 tokens
  // take 2 x 7.5e9 x 4 = 60 GFLOP (under 0.1 ms): verifying k + 1 = 4 tokens costs what decoding
  // one does, the weights and the cache read once.
  CHECK((spec.perf.decode_step - spec.perf.draft_step).si() ==
        Approx(plain.perf.decode_step.si()).epsilon(1e-12));
  // EAGLE's drafter, per pass: one decoder layer (218 M parameters: (8.03e9 - 2 x 525 M) / 32,
  // 436 MB in bf16) and the lm_head (128256 x 4096 = 525 M, 1.05 GB), plus one layer's keys and
  // values (4 KiB per token: 128 KiB / 32 layers) at the mean context 1024 + 512 = 1536 tokens;
  // three passes, each with the engine's per-layer cost.
  const double layer = (m.params_active - m.params.embedding - m.params.lm_head) / 32.0 * 2.0;
  const double lm_head = 128256.0 * 4096.0 * 2.0;
  const double kv = 4096.0 * 1536.0;
  const double bandwidth = h100.memory_bandwidth.si() * efficiency().family(h100).memory;
  const double pass =
      (layer + lm_head + kv) / bandwidth + efficiency().engine(Engine::vllm).per_layer.si();
  CHECK(layer == Approx(436e6).epsilon(0.01));
  CHECK(spec.perf.draft_step.si() == Approx(3.0 * pass).epsilon(1e-9));
  CHECK(spec.perf.tokens_per_step == Approx(2.952));
  // TPOT = (draft + verification) / 2.952, stretched by the prefills as any decode step is.
  const double interference = efficiency().engine(Engine::vllm).prefill_interference;
  CHECK(spec.perf.tpot.si() ==
        Approx(spec.perf.decode_step.si() / 2.952 / (1.0 - spec.perf.prefill_share * interference))
            .epsilon(1e-9));
  // So TPOT falls to (draft + step) / (2.952 x step) of the plain one: a 7.20 ms step (6.0 ms of
  // weights at the fitted bandwidth, the rest fixed costs) and three 0.50 ms passes give
  // (7.20 + 1.51) / (2.952 x 7.20) = 0.41, within the prefills' share.
  const double expected = spec.perf.decode_step.si() / (2.952 * plain.perf.decode_step.si());
  CHECK(plain.perf.decode_step.si() == Approx(7.20e-3).epsilon(0.01));
  CHECK(spec.perf.draft_step.si() == Approx(1.51e-3).epsilon(0.01));
  CHECK(expected == Approx(0.41).margin(0.005));
  CHECK(spec.perf.tpot.si() / plain.perf.tpot.si() == Approx(expected).epsilon(0.02));
  CHECK(spec.perf.output_tokens_per_s > 2.0 * plain.perf.output_tokens_per_s);
}

TEST_CASE("speculative decoding: a draft model's weights and KV cache take memory", "[decoding]") {
  const Spec s = generation(1024,
                            {{"speculative",
                              {{"method", "draft"},
                               {"draft_tokens", 4},
                               {"acceptance_rate", 0.7},
                               {"draft_model", config_path("llama-3.2-3b")}}}});
  const Run plain = run(generation(1024));
  const Run spec = run(s);
  // Llama-3.2-3B in bf16 beside the target (3.21 B parameters, 6.4 GB, tied embeddings), and
  // its keys and values: 28 layers x 2 x 8 heads x 128 x 2 bytes = 112 KiB per token, for the
  // 2048 tokens of a sequence (1024 in + 1024 out), 224 MiB.
  CHECK(spec.memory.draft_weights.si() == Approx(6.43e9).epsilon(0.01));
  CHECK(spec.memory.per_gpu.weights.si() - plain.memory.per_gpu.weights.si() ==
        Approx(spec.memory.draft_weights.si()));
  CHECK(spec.memory.kv_draft.si() == 28.0 * 2 * 8 * 128 * 2 * 2048);
  CHECK(spec.memory.max_batch < plain.memory.max_batch);
  // Four passes of the 3B model per step (each reads its 6.4 GB): the drafter costs more than
  // the target's own step here, and speculative decoding at 0.7 gains little.
  CHECK(spec.perf.draft_step > plain.perf.decode_step);
  CHECK(spec.perf.tokens_per_step == Approx((1.0 - std::pow(0.7, 5)) / 0.3));
}

TEST_CASE("prefix caching: the prefill computes the uncached tokens only", "[decoding]") {
  const Run plain = run(generation(4096));
  const Run cached = run(generation(4096, {{"prefix_cache_hit_rate", 0.5}}));
  const Spec base = generation(4096);
  const ModelArch& m = base.model;
  // A 4096-token prompt on an H100 is compute bound. Its linear layers: 2 x 7.5e9 x 4096 = 61.5
  // TFLOP, halved by a hit rate of 0.5. Its attention: 2 x 32 heads x 256 x 32 layers x 4096
  // tokens x 2048 (half the prompt, causal) = 4.4 TFLOP; cached, the 2048 computed tokens attend
  // over 2048 + 1024 on average, (1 - 0.5) x (1 + 0.5) = 0.75 of it.
  const double linear = forward_flops(m, 4096, 0).si();
  const double attention = forward_flops(m, 4096, 2048).si() - linear;
  CHECK(linear == Approx(61.5e12).epsilon(0.01));
  CHECK(attention == Approx(4.4e12).epsilon(0.01));
  const double fixed = efficiency().engine(Engine::vllm).per_layer.si() * 32;
  CHECK((cached.perf.prefill.si() - fixed) / (plain.perf.prefill.si() - fixed) ==
        Approx((0.5 * linear + 0.75 * attention) / (linear + attention)).epsilon(1e-9));
  CHECK((0.5 * linear + 0.75 * attention) / (linear + attention) == Approx(0.517).margin(0.002));
  CHECK(cached.perf.ttft < plain.perf.ttft);
  // The cached prefixes stay resident beside each sequence: 2048 tokens x 128 KiB = 256 MiB
  // (not shared with the sequence's own copy), and fewer sequences fit.
  CHECK(cached.memory.kv_prefix_cache.si() == 2048.0 * 131072.0);
  CHECK(cached.memory.kv_per_sequence.si() - plain.memory.kv_per_sequence.si() ==
        2048.0 * 131072.0);
  CHECK(cached.memory.max_batch < plain.memory.max_batch);
  // A hit rate of 1 still computes each prompt's last token (engines sample the first output from
  // it): one token's linear layers, 2 x 7.5e9 = 15 GFLOP, attending over the 4095 cached ones.
  const Run all = run(generation(4096, {{"prefix_cache_hit_rate", 1.0}}));
  CHECK(all.perf.prefill.si() > 0);
  CHECK(all.perf.prefill < cached.perf.prefill);
  CHECK(std::isfinite(all.perf.ttft.si()));
  CHECK(all.perf.requests_per_s > plain.perf.requests_per_s);
}

TEST_CASE("speculative decoding and prefix caching are flagged uncalibrated", "[decoding]") {
  // No measured run had either: their estimates say so (Uncertainty::calibration).
  CHECK(unmeasured_workload(generation(2048)) == nullptr);
  CHECK(std::string(unmeasured_workload(generation(2048, eagle(0.8, 3)))) ==
        "speculative decoding");
  CHECK(std::string(unmeasured_workload(generation(2048, {{"prefix_cache_hit_rate", 0.5}}))) ==
        "prefix-cached");
  const Calibration c = uncertainty().calibration(
      "hopper", "vllm", false, unmeasured_workload(generation(2048, eagle(0.8, 3))));
  CHECK_FALSE(c.measured);
  CHECK(c.text.find("no measured speculative decoding runs") != std::string::npos);
}
