// Engine settings a serving estimate runs with (docs/model.md, "Engine settings"): each engine's
// own defaults by GPU and version (data/memory.json tiers), chunked prefill and max_model_len, the
// engine version against the calibrated runs, and attention's own rate (issue 44).

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/version.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Spec serving(const char* model, const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json workload = {
      {"type", "inference"}, {"input_tokens", 1024}, {"output_tokens", 1024}};
  workload.update(extra);
  return parse_spec({{"model", config_path(model)},
                     {"precision", {{"weights", "bf16"}, {"kv_cache", "bf16"}}},
                     {"workload", workload}},
                    "test.json");
}

const Gpu& gpu(const char* name) {
  return catalog().resolve(name, "test");
}

const EngineMemoryPolicy& policy(const Spec& s, const char* g) {
  return engine_policy(s, gpu(g), constants());
}

long long cap(const Spec& s, const char* g) {
  return *engine_cap(s, policy(s, g));
}

double chunk(const Spec& s, const char* g) {
  return policy(s, g).max_batched_tokens->value;
}

} // namespace

TEST_CASE("engine settings: versions compare by their numbers", "[engine_settings]") {
  CHECK(parse_version("0.7.3") == Version{0, 7, 3});
  CHECK(parse_version("v0.11.2") == Version{0, 11, 2});
  CHECK(parse_version("1.0.0rc3") == Version{1, 0, 0});
  CHECK(parse_version("0.5.1.post1") == Version{0, 5, 1});
  CHECK_FALSE(parse_version("nightly"));
  CHECK_FALSE(parse_version(""));
  CHECK(version_less(*parse_version("0.7.3"), *parse_version("0.8")));
  CHECK(version_less(*parse_version("0.5.9"), *parse_version("0.5.10")));
  CHECK_FALSE(version_less(*parse_version("0.8"), *parse_version("0.8.0")));
}

TEST_CASE("engine settings: each engine's own defaults, by GPU and version", "[engine_settings]") {
  // vLLM V1 (EngineArgs._set_default_args): 1024 sequences and an 8192-token chunk on GPUs of
  // 70 GiB or more that are not A100s; 256 and 2048 otherwise.
  const Spec vllm = serving("llama-3.1-8b");
  CHECK(cap(vllm, "H100-SXM-80GB") == 1024);
  CHECK(chunk(vllm, "H100-SXM-80GB") == 8192);
  CHECK(cap(vllm, "L40S-48GB") == 256);
  CHECK(chunk(vllm, "L40S-48GB") == 2048);
  CHECK(cap(vllm, "A100-SXM-80GB") == 256); // 80 GB, but an A100
  // vLLM before 0.8 ran the V0 engine: 256 sequences, chunking only above 32K of context.
  const Spec v0 = serving("llama-3.1-8b", {{"engine_version", "0.7.3"}});
  CHECK(cap(v0, "H100-SXM-80GB") == 256);
  CHECK(policy(v0, "H100-SXM-80GB").chunked_prefill == ChunkedPrefill::long_context);
  // SGLang: its own request cap, its chunk grows with the GPU's memory.
  const Spec sglang = serving("llama-3.1-8b", {{"engine", "sglang"}});
  CHECK(cap(sglang, "H100-SXM-80GB") == 2048);
  CHECK(chunk(sglang, "L4-24GB") == 2048);
  CHECK(chunk(sglang, "L40S-48GB") == 4096);
  CHECK(chunk(sglang, "H100-SXM-80GB") == 8192);
  CHECK(chunk(sglang, "B200-SXM-180GB") == 16384);
  CHECK(policy(sglang, "H100-SXM-80GB").max_sequences->name == "sglang_max_running_requests");
  // TensorRT-LLM: max_num_tokens 8192, no chunking by default; its max_batch_size (2048) is
  // capped at 256 by rightsize, named as its own cap (data/memory.json trtllm_max_seqs).
  const Spec trt = serving("llama-3.1-8b", {{"engine", "tensorrt-llm"}});
  CHECK(cap(trt, "H100-SXM-80GB") == 256);
  CHECK(policy(trt, "H100-SXM-80GB").max_sequences->name == "trtllm_max_seqs");
  CHECK(chunk(trt, "H100-SXM-80GB") == 8192);
  CHECK_FALSE(chunks_prefill(trt, policy(trt, "H100-SXM-80GB")));
  // The spec's own settings win.
  const Spec set = serving("llama-3.1-8b", {{"max_num_seqs", 64}});
  CHECK(cap(set, "H100-SXM-80GB") == 64);
}

TEST_CASE("engine settings: without chunking vLLM reserves activations for max_model_len tokens",
          "[engine_settings]") {
  // Llama-3.1-8B at TP 1, bf16: per token of the profiled pass, the residual stream and the
  // normed hidden state (2 x 4096) and the widest block's intermediates (MLP 3 x 14336 = 43008,
  // wider than attention's (32 + 2 x 8) x 128 + 32 x 128 = 10240), 2 bytes each: 102400 bytes.
  // Logits of min(max_num_seqs, tokens) = 1024 sequences, fp32 and the sampler's copy:
  // 1024 x 128256 x 8 = 1050673152 bytes.
  const double per_token = 2.0 * (2 * 4096 + 3 * 14336);
  const double logits = 1024.0 * 128256 * 8;
  const Gpu& h100 = gpu("H100-SXM-80GB");
  Parallelism p;
  const auto activations = [&](const Spec& s) {
    return estimate_memory(s, h100, p, constants(), 1).per_gpu.activations.si();
  };
  // Chunked (V1's default): the 8192-token chunk.
  CHECK(activations(serving("llama-3.1-8b")) == Approx(8192 * per_token + logits));
  // Not chunked, max_model_len 32768: one pass of a whole request, 4.4 GB instead of 1.9 GB.
  const Spec whole =
      serving("llama-3.1-8b", {{"chunked_prefill", false}, {"max_model_len", 32768}});
  CHECK(activations(whole) == Approx(32768 * per_token + logits));
  // max_model_len defaults to the model's context (131072 for Llama 3.1): 14.5 GB.
  const Spec model_len = serving("llama-3.1-8b", {{"chunked_prefill", false}});
  CHECK(max_model_len(model_len) == 131072);
  CHECK(activations(model_len) == Approx(131072 * per_token + logits));
  // So fewer sequences fit: the KV pool shrinks by the difference.
  CHECK(estimate_memory(model_len, h100, p, constants(), 1).max_batch <
        estimate_memory(serving("llama-3.1-8b"), h100, p, constants(), 1).max_batch);
  // vLLM V0 (before 0.8) chunks on its own only above 32K of context: Llama 3.1's 128K does.
  const Spec v0 = serving("llama-3.1-8b", {{"engine_version", "0.6.3"}});
  CHECK(chunks_prefill(v0, engine_policy(v0, h100, constants())));
  const Spec v0_short =
      serving("llama-3.1-8b", {{"engine_version", "0.6.3"}, {"max_model_len", 8192}});
  CHECK_FALSE(chunks_prefill(v0_short, engine_policy(v0_short, h100, constants())));
  // ... and then profiles max(max_model_len, 2048) tokens over min(256, tokens) sequences.
  CHECK(activations(v0_short) == Approx(8192 * per_token + 256.0 * 128256 * 8));
}

TEST_CASE("engine settings: fp8 GEMM inputs leave the hidden states 16-bit", "[engine_settings]") {
  Spec s = serving("llama-3.1-8b");
  s.precision.activations = DType::fp8;
  Spec bf16 = serving("llama-3.1-8b");
  Parallelism p;
  const Gpu& h100 = gpu("H100-SXM-80GB");
  CHECK(estimate_memory(s, h100, p, constants(), 1).per_gpu.activations.si() ==
        Approx(estimate_memory(bf16, h100, p, constants(), 1).per_gpu.activations.si()));
}

TEST_CASE("engine settings: MLA decodes in the absorbed form, attention at 16 bits",
          "[engine_settings]") {
  // DeepSeek-V3: 128 heads, kv_lora_rank 512, rope 64, qk_nope 128, v 128. Absorbed decode
  // attention per head and cached token: 2 x (2 x 512 + 64) = 2176 FLOPs; the naive form
  // forward_flops counts: 2 x (192 + 128) = 640. Ratio 3.4.
  Spec s = parse_spec({{"model", config_path("deepseek-v3")},
                       {"precision", {{"weights", "fp8"}, {"kv_cache", "bf16"}}},
                       {"workload",
                        {{"type", "inference"},
                         {"input_tokens", 8192},
                         {"output_tokens", 1024},
                         {"concurrency", 64}}}},
                      "test.json");
  const ModelArch& m = s.model;
  const Gpu& h200 = gpu("H200-SXM-141GB");
  Parallelism p;
  p.tp = 8;
  const double matmul = forward_flops(m, 64, 0).si();
  const double naive = forward_flops(m, 64, 8192).si() - matmul;
  const double absorbed = naive * 3.4;
  const double eff = efficiency().family(h200).compute;
  // The weights' products at the fp8 rate, attention (bf16 KV cache) at the bf16 rate.
  const double expected = (matmul / (1979e12 * eff) + absorbed / (989.5e12 * eff)) / 8.0;
  const StepTime step = decode_step_time(s, h200, p, efficiency(), constants(), 64, 8192);
  CHECK(step.compute.si() == Approx(expected).epsilon(0.01));
  // An fp8 KV cache lets attention run at the fp8 rate.
  s.precision.kv_cache = DType::fp8;
  const StepTime fp8 = decode_step_time(s, h200, p, efficiency(), constants(), 64, 8192);
  CHECK(fp8.compute.si() ==
        Approx((matmul / (1979e12 * eff) + absorbed / (1979e12 * eff)) / 8.0).epsilon(0.01));
}

TEST_CASE("engine settings: an engine older than the calibrated runs is uncalibrated",
          "[engine_settings]") {
  const Spec current = serving("llama-3.1-8b", {{"engine_version", "0.12.0"}});
  CHECK(engine_band_key(current, efficiency()) == "vllm");
  const Spec none = serving("llama-3.1-8b");
  CHECK(engine_band_key(none, efficiency()) == "vllm");
  const Spec old = serving("llama-3.1-8b", {{"engine_version", "0.7.3"}});
  const std::string key = engine_band_key(old, efficiency());
  CHECK(key == "vllm 0.7.3 (older than the 0.11.2-0.19.0 runs fitted)");
  const Uncertainty& u = rightsize::test::uncertainty();
  CHECK(u.calibration("hopper", "vllm", false).measured);
  CHECK_FALSE(u.calibration("hopper", key, false).measured);
  CHECK_THAT(u.calibration("hopper", key, false).text,
             Catch::EndsWith("bands: the envelope of hopper/vllm's band and the engine transfer "
                             "band"));
  // The envelope of hopper/vllm's own band and the engine transfer band: never narrower.
  for (const char* metric : {"ttft", "tpot"}) {
    const RatioBand old_band = u.band(metric, "hopper", key);
    const RatioBand own = u.band(metric, "hopper", "vllm");
    CHECK_FALSE(old_band.calibrated);
    CHECK(old_band.high_ratio >= own.high_ratio);
    CHECK(old_band.low_ratio <= own.low_ratio);
    CHECK(u.high_ratio(metric, "hopper", key) == old_band.high_ratio);
    // Wider than the pair's own on at least one side: the transfer band adds what it lacks.
    CHECK(old_band.high_ratio / old_band.low_ratio > own.high_ratio / own.low_ratio);
  }
}

TEST_CASE("engine settings: a spec's engine settings are checked", "[engine_settings]") {
  CHECK_THROWS_WITH(serving("llama-3.1-8b", {{"engine_version", "latest"}}),
                    Catch::Contains("engine_version") && Catch::Contains("0.11.2"));
  CHECK_THROWS_WITH(serving("llama-3.1-8b", {{"max_num_seqs", 0}}),
                    Catch::Contains("max_num_seqs"));
  CHECK_THROWS_WITH(serving("llama-3.1-8b", {{"chunked_prefill", "yes"}}),
                    Catch::Contains("chunked_prefill"));
  // A max_model_len the requests do not fit in (1024 + 1024 tokens here) would be refused by the
  // engine: an error naming the field, not a silent max().
  CHECK_THROWS_WITH(serving("llama-3.1-8b", {{"max_model_len", 1024}}),
                    Catch::Contains("/workload/max_model_len") && Catch::Contains("2048 tokens"));
  CHECK(max_model_len(serving("llama-3.1-8b", {{"max_model_len", 2048}})) == 2048);
}

TEST_CASE("engine settings: drawn lengths run at their mean and arrive without waves",
          "[engine_settings]") {
  // Lengths drawn from [0.8, 1.0] x (2000 in, 1000 out) average 1800 in and 900 out.
  const auto spec = [](double ratio, long long in, long long out, long long c) {
    nlohmann::json w = {{"input_tokens", in}, {"output_tokens", out}, {"concurrency", c}};
    if (ratio < 1.0) {
      w["length_low_ratio"] = ratio;
    }
    return serving("llama-3.1-8b", w);
  };
  const Gpu& h100 = gpu("H100-SXM-80GB");
  Parallelism p;
  const auto run = [&](const Spec& s) {
    const auto m = estimate_memory(s, h100, p, constants());
    return estimate_inference(s, h100, p, m, efficiency(), constants());
  };
  // One request alone: exactly the fixed-length request of the mean lengths.
  const auto drawn = run(spec(0.8, 2000, 1000, 1));
  const auto mean = run(spec(1.0, 1800, 900, 1));
  CHECK(drawn.ttft.si() == Approx(mean.ttft.si()));
  CHECK(drawn.tpot.si() == Approx(mean.tpot.si()));
  CHECK(drawn.output_tokens_per_s == Approx(mean.output_tokens_per_s));
  // 64 at once: fixed lengths wait for a wave of the others' prefills, drawn ones do not.
  const auto drawn64 = run(spec(0.8, 2000, 1000, 64));
  const auto mean64 = run(spec(1.0, 1800, 900, 64));
  CHECK(drawn64.ttft.si() < mean64.ttft.si());
  CHECK(drawn64.tpot.si() == Approx(mean64.tpot.si()).epsilon(0.02));
  CHECK_THROWS_WITH(spec(0.0, 2000, 1000, 1), Catch::Contains("length_low_ratio"));
}
