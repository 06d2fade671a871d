#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Spec serving(const char* model, nlohmann::json precision, long long concurrency) {
  return parse_spec({{"model", config_path(model)},
                     {"precision", std::move(precision)},
                     {"workload",
                      {{"type", "inference"},
                       {"input_tokens", 1024},
                       {"output_tokens", 1024},
                       {"concurrency", concurrency}}}},
                    "test.json");
}

InferencePerformance run(const Spec& s, const char* gpu, int tp = 1) {
  Parallelism p;
  p.tp = tp;
  const Gpu& g = catalog().resolve(gpu, "test");
  const auto m = estimate_memory(s, g, p, constants());
  return estimate_inference(s, g, p, m, efficiency(), constants());
}

} // namespace

TEST_CASE("performance: forward FLOPs", "[performance]") {
  const Spec s = serving("llama-3.1-8b", "bf16", 1);
  const ModelArch& m = s.model;
  // 2 FLOP per active parameter per token, without the input embedding (a lookup)...
  const double matmul = 2.0 * (8.0303e9 - 128256.0 * 4096);
  // ...plus attention over the context: 2 * 32 heads * (128 + 128) * 32 layers per context token.
  const double attention_per_context = 2.0 * 32 * 256 * 32;
  CHECK(forward_flops(m, 1, 0).si() == Approx(matmul).epsilon(0.001));
  CHECK(forward_flops(m, 1, 4096).si() ==
        Approx(matmul + attention_per_context * 4096).epsilon(0.001));
  CHECK(forward_flops(m, 10, 100).si() == Approx(10 * forward_flops(m, 1, 100).si()));
  // A sliding window caps the attention term: Mistral's 4096-token window.
  const Spec mistral = serving("mistral-7b-v0.1", "bf16", 1);
  CHECK(forward_flops(mistral.model, 1, 100000).si() ==
        Approx(forward_flops(mistral.model, 1, 4096).si()));
  // MoE counts active experts only.
  const Spec mixtral = serving("mixtral-8x7b", "bf16", 1);
  CHECK(forward_flops(mixtral.model, 1, 0).si() ==
        Approx(2.0 * (12.88e9 - 32000.0 * 4096)).epsilon(0.01));
}

TEST_CASE("performance: the tensor-core precision follows the weights and the GPU",
          "[performance]") {
  const auto& c = catalog();
  CHECK(compute_precision(serving("llama-3.1-8b", "fp8", 1), c.resolve("H100", "t")) ==
        TensorPrecision::fp8);
  // A100 has no fp8: fp8 weights run through bf16 math.
  CHECK(compute_precision(serving("llama-3.1-8b", "fp8", 1), c.resolve("A100", "t")) ==
        TensorPrecision::bf16);
  CHECK(compute_precision(serving("llama-3.1-8b", "fp4", 1), c.resolve("B200", "t")) ==
        TensorPrecision::fp4);
  // H100 has fp8 but not fp4.
  CHECK(compute_precision(serving("llama-3.1-8b", "fp4", 1), c.resolve("H100", "t")) ==
        TensorPrecision::fp8);
  // Weight-only int4 dequantizes to 16-bit math; T4 has fp16 but no bf16.
  CHECK(compute_precision(serving("llama-3.1-8b", "int4", 1), c.resolve("H100", "t")) ==
        TensorPrecision::bf16);
  CHECK(compute_precision(serving("llama-3.1-8b", "bf16", 1), c.resolve("T4", "t")) ==
        TensorPrecision::fp16);
}

TEST_CASE("performance: the math follows the stated activations", "[performance]") {
  const auto& c = catalog();
  const Gpu& h100 = c.resolve("H100", "t");
  const Gpu& b200 = c.resolve("B200", "t");
  const auto math = [](nlohmann::json precision, const Gpu& g) {
    return compute_precision(serving("llama-3.1-8b", std::move(precision), 1), g);
  };
  // Unstated activations keep the weights' usual deployment: W8A8, W4A4.
  CHECK(math({{"weights", "fp8"}}, h100) == TensorPrecision::fp8);
  CHECK(math({{"weights", "fp4"}}, b200) == TensorPrecision::fp4);
  // Weight-only fp8 (W8A16) runs at the bf16 rate; W8A8 at the fp8 rate.
  CHECK(math({{"weights", "fp8"}, {"activations", "bf16"}}, h100) == TensorPrecision::bf16);
  CHECK(math({{"weights", "fp8"}, {"activations", "fp8"}}, h100) == TensorPrecision::fp8);
  // fp4 weights: fp8 activations give W4A8 at the fp8 rate, fp4 activations W4A4 at the fp4
  // rate (Blackwell), fp8 where the GPU has no fp4 (Hopper).
  CHECK(math({{"weights", "fp4"}, {"activations", "fp8"}}, b200) == TensorPrecision::fp8);
  CHECK(math({{"weights", "fp4"}, {"activations", "fp4"}}, b200) == TensorPrecision::fp4);
  CHECK(math({{"weights", "mxfp4"}, {"activations", "mxfp4"}}, b200) == TensorPrecision::fp4);
  CHECK(math({{"weights", "fp4"}, {"activations", "fp4"}}, h100) == TensorPrecision::fp8);
  CHECK(math({{"weights", "fp4"}, {"activations", "bf16"}}, b200) == TensorPrecision::bf16);
  // Integer weights are dequantized: fp8 activations do not make int4 weights fp8 math.
  CHECK(math({{"weights", "int4"}, {"activations", "fp8"}}, h100) == TensorPrecision::bf16);
  // Activations stated with the spec's bf16 weights do not bind an fp8 variant the planner tries
  // (precision.allow, estimate --weights): it deploys as W8A8.
  Spec variant = serving("llama-3.1-8b", {{"weights", "bf16"}, {"activations", "bf16"}}, 1);
  variant.precision.weights = DType::fp8;
  CHECK(compute_precision(variant, h100) == TensorPrecision::fp8);
  // Hand check: Llama-3.1-8B decoding 64 sequences at the average context of 1024 + 512 tokens
  // on an H100: 64 x (2 x (8.0303e9 - 128256 x 4096) + 2 x 32 heads x 256 x 32 layers x 1536)
  // = 64 x (15.010e9 + 0.805e9) = 1.0122e12 FLOP per step. W8A16 at the bf16 rate, 989.4
  // TFLOP/s x e (Hopper's fitted compute efficiency, 0.555): 1.843 ms; W8A8 at the fp8 rate,
  // 1978.9 TFLOP/s x e, attention included since the KV cache follows the fp8 weights when the
  // spec does not say (with a bf16 cache attention would run at the bf16 rate, docs/model.md
  // "Attention"): 0.922 ms. Before the math followed the activations, both took 0.930 ms (at
  // e = 0.55).
  const double e = efficiency().family(h100).compute;
  REQUIRE(e == Approx(0.555).epsilon(0.01));
  const auto w8a16 =
      run(serving("llama-3.1-8b", {{"weights", "fp8"}, {"activations", "bf16"}}, 64), "H100");
  const auto w8a8 =
      run(serving("llama-3.1-8b", {{"weights", "fp8"}, {"activations", "fp8"}}, 64), "H100");
  REQUIRE(w8a16.concurrency == 64);
  CHECK(w8a16.decode_compute.si() == Approx(1.0122e12 / (989.4e12 * e)).epsilon(0.002));
  CHECK(w8a8.decode_compute.si() == Approx(1.0122e12 / (1978.9e12 * e)).epsilon(0.002));
  CHECK(w8a16.compute_precision == TensorPrecision::bf16);
}

TEST_CASE("performance: decode is a roofline over bytes and FLOPs", "[performance]") {
  // Llama-3.1-8B at batch 1 on an H100: memory bound, each step reads ~16 GB of weights.
  const auto one = run(serving("llama-3.1-8b", "bf16", 1), "H100");
  CHECK(one.bottleneck == "memory_bandwidth");
  CHECK(one.decode_bytes.si() == Approx(16.06e9).epsilon(0.02));
  const double bw = 3.35e12 * efficiency().family(catalog().resolve("H100", "t")).memory;
  CHECK(one.decode_memory.si() == Approx(one.decode_bytes.si() / bw));
  CHECK(one.decode_communication.si() == 0.0); // tp 1
  CHECK(one.decode_step.si() ==
        Approx((max(one.decode_memory, one.decode_compute) + one.decode_fixed).si()));
  // fp8 weights halve the linear layers' bytes; embedding and lm_head (2.1 GB) stay bf16.
  const auto fp8 = run(serving("llama-3.1-8b", "fp8", 1), "H100");
  CHECK(fp8.decode_bytes.si() ==
        Approx(one.decode_bytes.si() - (16.06e9 - 2.1e9) / 2).epsilon(0.02));
  // H200 reads faster than H100: lower TPOT for the same model.
  CHECK(run(serving("llama-3.1-8b", "bf16", 1), "H200").tpot < one.tpot);
  // Tensor parallelism splits the bytes and adds all-reduces.
  const auto tp4 = run(serving("llama-3.1-70b", "fp8", 8), "H100", 4);
  CHECK(tp4.decode_communication.si() > 0.0);
  // A PCIe card pays more per all-reduce than NVLink.
  const auto pcie = run(serving("llama-3.1-8b", "bf16", 8), "L40S", 2);
  const auto nvl = run(serving("llama-3.1-8b", "bf16", 8), "H100", 2);
  CHECK(pcie.decode_communication > nvl.decode_communication);
}

TEST_CASE("performance: tensor parallelism crosses PCIe inside a server, the network beyond it",
          "[performance]") {
  // Llama-3.1-70B (hidden 8192, 80 layers), fp8 weights with bf16 activations, 64 sequences:
  // each of the 2 x 80 all-reduces per decode step moves 64 x 8192 x 2 B = 1,048,576 B.
  const Spec s = serving("llama-3.1-70b", "fp8", 64);
  const double message = 64.0 * 8192 * 2;
  const double pcie_latency = efficiency().pcie_allreduce_latency.si();
  // NCCL reaches 45% of a card's PCIe rate between the cards of a server.
  REQUIRE(efficiency().pcie_allreduce_efficiency == Approx(0.45));
  // H100-PCIe at TP2: a ring of 2 sends 2(n-1)/n = 1 message over PCIe Gen5 x16 (64 GB/s x
  // 0.45 = 28.8 GB/s): 36.4 us + 25 us per all-reduce, 9.8 ms a step. Priced at the 25 Gbit/s
  // network, as it was, it came to 55 ms a step.
  const auto h100_pcie = run(s, "H100-PCIE-80GB", 2);
  CHECK(h100_pcie.decode_communication.si() ==
        Approx(160 * (message / 28.8e9 + pcie_latency)).epsilon(1e-6));
  CHECK(h100_pcie.decode_communication.si() == Approx(9.83e-3).epsilon(0.01));
  // A100-PCIe at TP4 (Gen4, 32 GB/s) against H100-NVL at TP4 (NVLink bridges join pairs; the
  // ring crosses PCIe Gen5 between them): 2(n-1)/n = 1.5 messages over each card's PCIe rate.
  const auto a100_pcie = run(s, "A100-PCIE-80GB", 4);
  const auto h100_nvl = run(s, "H100-NVL-94GB", 4);
  CHECK(a100_pcie.decode_communication.si() ==
        Approx(160 * (1.5 * message / (32e9 * 0.45) + pcie_latency)).epsilon(1e-6));
  CHECK(h100_nvl.decode_communication.si() ==
        Approx(160 * (1.5 * message / (64e9 * 0.45) + pcie_latency)).epsilon(1e-6));
  // H100-NVL at TP2 stays on its NVLink bridge (300 GB/s per direction).
  const auto bridged = run(s, "H100-NVL-94GB", 2);
  CHECK(bridged.decode_communication.si() ==
        Approx(160 * (message / 300e9 + efficiency().allreduce_latency.si())).epsilon(1e-6));
  // L4 servers hold 4 cards (catalog purchase.gpus_per_server): TP8 leaves the server and pays
  // the 12.5 Gbit/s network, 1.75 messages per all-reduce.
  const auto l4 = run(serving("llama-3.1-8b", "fp8", 8), "L4-24GB", 8);
  const double l4_message = 8.0 * 4096 * 2;
  CHECK(l4.decode_communication.si() ==
        Approx(64 * (1.75 * l4_message / 1.5625e9 + efficiency().network_latency.si()))
            .epsilon(1e-6));
  CHECK(gpus_per_server(s, catalog().resolve("L4-24GB", "t")) == 4);
  CHECK(gpus_per_server(s, catalog().resolve("A10G-24GB", "t")) == 8); // no purchase: 8
}

TEST_CASE("performance: continuous batching, throughput and queueing", "[performance]") {
  const auto small = run(serving("llama-3.1-8b", "bf16", 4), "H100");
  const auto big = run(serving("llama-3.1-8b", "bf16", 64), "H100");
  CHECK(big.output_tokens_per_s > small.output_tokens_per_s);
  CHECK(big.tpot > small.tpot);
  CHECK(big.ttft > small.ttft);
  // Little's law: sequences in flight = request rate x time per request.
  const double cycle = (big.ttft + big.tpot * 1023.0).si();
  CHECK(big.requests_per_s * cycle == Approx(64).epsilon(0.01));
  CHECK(big.output_tokens_per_s == Approx(big.requests_per_s * 1024));
  // Far more concurrency than the L4's KV cache holds: requests queue.
  const auto l4 = run(serving("llama-3.1-8b", "fp8", 512), "L4");
  CHECK(l4.queueing);
  CHECK(l4.bottleneck == "memory_capacity");
}

TEST_CASE("performance: one step's GPU work, decode and batched prefill", "[performance]") {
  // Llama-3.1-8B on an H200, bf16, batch 1 at 512 tokens of context. Hand-checked: 8,030,261,248
  // parameters x 2 B = 16,060,522,496 B of weights; KV 2 x 32 layers x 8 heads x 128 x 2 B =
  // 131,072 B per token, x 512 = 67,108,864 B; 16,127,631,360 B / (4.8 TB/s x the family's memory
  // efficiency).
  const Spec s = serving("llama-3.1-8b", "bf16", 1);
  const Gpu& h200 = catalog().resolve("H200", "test");
  const double mem_eff = efficiency().family(h200).memory;
  const Parallelism p;
  const StepTime d = decode_step_time(s, h200, p, efficiency(), constants(), 1, 512);
  CHECK(d.bytes.si() == Approx(16'127'631'360.0).epsilon(1e-6));
  CHECK(d.memory.si() == Approx(16'127'631'360.0 / (4.8e12 * mem_eff)).epsilon(1e-6));
  CHECK(d.communication.si() == 0.0);
  CHECK(d.gpu_work().si() == Approx(max(d.memory, d.compute).si()));
  CHECK(d.total().si() == Approx((d.gpu_work() + d.fixed).si()));
  // The engine's fixed costs are not GPU work: per layer x 32 + per step.
  const auto& engine = efficiency().engine(Engine::vllm);
  CHECK(d.fixed.si() == Approx(engine.per_layer.si() * 32 + engine.per_step.si()));

  // Eight 128-token prompts in one step read the weights once, like one 1024-token step of the
  // same prompt length: the same bytes, the FLOPs of 1024 tokens at a context of 64.
  const StepTime eight = prefill_step_time(s, h200, p, efficiency(), 8 * 128, 128);
  const StepTime one = prefill_step_time(s, h200, p, efficiency(), 128, 128);
  CHECK(eight.bytes.si() == Approx(one.bytes.si()));
  CHECK(eight.bytes.si() == Approx(16'060'522'496.0).epsilon(1e-6));
  const double rate = h200.rate(TensorPrecision::bf16)->si() * efficiency().family(h200).compute;
  CHECK(eight.compute.si() == Approx(forward_flops(s.model, 1024, 64).si() / rate));
  CHECK(eight.compute.si() == Approx(8 * one.compute.si()));
}

// Issue 14: pipeline-parallel serving keeps a micro-batch in every stage. TensorRT-LLM 1.0's
// published Llama 3.3 70B runs on RTX PRO 6000s grow with the stages (1,074 tok/s on one GPU,
// 2,336 on PP2, 3,870 on PP4, 6,078 on PP8 at 2048/2048), which one batch crossing the stages in
// turn cannot do: only one GPU would work at a time.
TEST_CASE("performance: pipeline stages work on different micro-batches at once", "[performance]") {
  // Llama-3.1-8B on an H200, bf16, PP2. A step of 64 sequences is 2 micro-batches of 32 crossing
  // both stages: the weights are read once per micro-batch, the KV cache of each sequence once.
  // Hand-checked: the KV of one sequence at 1024 tokens of context is 1024 x 131,072 B =
  // 134,217,728 B, so 64 sequences add (64 - 2) / 2 = 31 of those over 2 sequences (one per
  // micro-batch): 4,160,749,568 B (one batch crossing the stages in turn: 62 of them).
  const Spec s = serving("llama-3.1-8b", "bf16", 64);
  const Gpu& h200 = catalog().resolve("H200", "test");
  Parallelism pp2;
  pp2.pp = 2;
  const StepTime full = decode_step_time(s, h200, pp2, efficiency(), constants(), 64, 1024);
  const StepTime two = decode_step_time(s, h200, pp2, efficiency(), constants(), 2, 1024);
  CHECK((full.bytes - two.bytes).si() == Approx(4'160'749'568.0).epsilon(1e-9));
  // A step of 64 on PP2 is a step of 32 crossing the stages: the same bytes, FLOPs and fixed
  // costs.
  const StepTime half = decode_step_time(s, h200, pp2, efficiency(), constants(), 32, 1024);
  CHECK(full.bytes.si() == Approx(half.bytes.si() + 16.0 * 134'217'728.0).epsilon(1e-9));
  CHECK(full.compute.si() ==
        Approx(forward_flops(s.model, 32, 1024).si() /
               (h200.rate(TensorPrecision::bf16)->si() * efficiency().family(h200).compute)));
  // One sequence cannot be split: it crosses the stages alone, as without pipelining.
  const StepTime one = decode_step_time(s, h200, pp2, efficiency(), constants(), 1, 1024);
  const Parallelism tp1;
  const StepTime flat = decode_step_time(s, h200, tp1, efficiency(), constants(), 1, 1024);
  CHECK(one.bytes.si() == Approx(flat.bytes.si()).epsilon(1e-3));
}

TEST_CASE("performance: short prompts cost the engine their FLOPs, not another weight read",
          "[performance]") {
  // Llama-3.1-8B on an H100, 128 tokens in, 16 out, 256 in flight: each prompt's prefill alone is
  // bound by reading 16 GB of weights (about 5 ms), but in steady state it rides in a decode
  // step that reads them anyway, so the engine completes more requests per second than one
  // prefill at a time would allow (issue 14, item 2; docs/model.md).
  const Spec s = parse_spec({{"model", config_path("llama-3.1-8b")},
                             {"precision", "bf16"},
                             {"workload",
                              {{"type", "inference"},
                               {"input_tokens", 128},
                               {"output_tokens", 16},
                               {"concurrency", 256}}}},
                            "test.json");
  const auto r = run(s, "H100");
  const Gpu& h100 = catalog().resolve("H100", "test");
  const StepTime pf = prefill_step_time(s, h100, Parallelism{}, efficiency(), 128, 128);
  REQUIRE(pf.memory > pf.compute); // the prefill alone is weight-read bound
  CHECK(r.prefill.si() == Approx(pf.total().si()));
  CHECK(r.requests_per_s > 1.0 / r.prefill.si());
  CHECK(r.requests_per_s < 0.98 / (pf.compute + pf.communication).si());
}

// Issue 16: a Mamba layer's decode reads its state and writes it back; attention FLOPs over the
// context come from the attention layers only; one all-reduce per mixer and per MLP.
TEST_CASE("performance: decode of hybrids and state-space models", "[performance]") {
  const Gpu& h200 = catalog().resolve("H200", "test");
  // Mamba-130m, bf16, batch 4: 129,135,360 x 2 B of weights + 4 x 2 x (24 layers x 29,184 x 2 B),
  // the same at a context of 10 or 100,000 tokens.
  const Spec mamba = serving("hybrid/mamba-130m", "bf16", 4);
  const Parallelism one;
  const StepTime short_ctx = decode_step_time(mamba, h200, one, efficiency(), constants(), 4, 10);
  const StepTime long_ctx =
      decode_step_time(mamba, h200, one, efficiency(), constants(), 4, 100'000);
  CHECK(short_ctx.bytes.si() == Approx(129'135'360.0 * 2 + 4 * 2 * 24 * 29'184.0 * 2));
  CHECK(long_ctx.bytes.si() == Approx(short_ctx.bytes.si()));
  CHECK(forward_flops(mamba.model, 1, 100'000).si() ==
        Approx(forward_flops(mamba.model, 1, 10).si()));

  // Jamba: attention over the context on 4 layers, not 32: 2 x 32 heads x 256 x 4 x 8192.
  const Spec jamba = serving("hybrid/jamba-1.5-mini", "bf16", 1);
  const double matmul = 2.0 * (jamba.model.params_active - jamba.model.params.embedding);
  CHECK(forward_flops(jamba.model, 1, 8192).si() == Approx(matmul + 2.0 * 32 * 256 * 4 * 8192));
  // TP 2: 4 attention + 28 Mamba + 32 MLP all-reduces per step, against 64 for a 32-layer
  // transformer's 2 per layer: the communication term scales with sublayers().
  Parallelism tp2;
  tp2.tp = 2;
  const StepTime j = decode_step_time(jamba, h200, tp2, efficiency(), constants(), 1, 8192);
  const Spec llama = serving("llama-3.1-8b", "bf16", 1); // 32 layers, hidden 4096 as Jamba
  const StepTime l = decode_step_time(llama, h200, tp2, efficiency(), constants(), 1, 8192);
  CHECK(j.communication.si() == Approx(l.communication.si()));
  const Spec nemotron = serving("hybrid/nemotron-h-8b", "bf16", 1); // 52 blocks, hidden 4096
  const StepTime n = decode_step_time(nemotron, h200, tp2, efficiency(), constants(), 1, 8192);
  CHECK(n.communication.si() == Approx(l.communication.si() * 52.0 / 64.0));
}

// Issue 16: Falcon-H1 attends over the context on every layer (attention sits beside the Mamba-2
// mixer, not in its place), and all-reduces three times a layer under TP.
TEST_CASE("performance: FLOPs and decode of Falcon-H1", "[performance]") {
  const Gpu& h200 = catalog().resolve("H200", "test");
  const Spec falcon = serving("hybrid/falcon-h1-7b-base", "bf16", 1);
  // Projections, 2 per parameter but the input embedding; attention on all 44 layers:
  // 2 x 12 heads x (128 + 128) x 44 x 8192.
  const double matmul = 2.0 * (7'585'648'736.0 - 130'048.0 * 3072);
  CHECK(forward_flops(falcon.model, 1, 8192).si() == Approx(matmul + 2.0 * 12 * 256 * 44 * 8192));
  // Batch 1 at 10 tokens: the weights, a 16-token page of 45,056 B a token, and the Mamba state
  // read and written, 2 x 70,152,192 B.
  const Parallelism one;
  const StepTime s = decode_step_time(falcon, h200, one, efficiency(), constants(), 1, 10);
  CHECK(s.bytes.si() == Approx(7'585'648'736.0 * 2 + 45'056.0 * 16 + 2 * 70'152'192.0));
  // TP 2: 3 x 44 all-reduces a step (o_proj, the mixer's out_proj, down_proj) against
  // Llama-3.2-3B's 2 x 28, of the same hidden width, 3072.
  Parallelism tp2;
  tp2.tp = 2;
  const StepTime f = decode_step_time(falcon, h200, tp2, efficiency(), constants(), 1, 8192);
  const Spec llama = serving("llama-3.2-3b", "bf16", 1);
  const StepTime l = decode_step_time(llama, h200, tp2, efficiency(), constants(), 1, 8192);
  CHECK(falcon.model.sublayers() == 132);
  CHECK(f.communication.si() == Approx(l.communication.si() * 132.0 / 56.0));
}

// Issue 16: Qwen3-Next's decode reads the weights of its shared parts and of the experts its
// tokens pick, the KV cache of its 12 attention layers, and reads and writes the state of its 36
// Gated DeltaNet layers; its FLOPs add the chunked delta rule to the projections.
TEST_CASE("performance: decode and FLOPs of Qwen3-Next", "[performance]") {
  const Gpu& h200 = catalog().resolve("H200", "test");
  const Spec next = serving("hybrid/qwen3-next-80b-a3b-instruct", "bf16", 1);
  const Parallelism one;
  // Batch 1: 10 of 512 experts, so the active parameters, 3,874,929,408 x 2 B; KV of a 16-token
  // page, 24,576 B a token; the state read and written, 2 x 39,518,208 B.
  const StepTime s = decode_step_time(next, h200, one, efficiency(), constants(), 1, 10);
  CHECK(s.bytes.si() == Approx(3'874'929'408.0 * 2 + 24'576.0 * 16 + 2 * 39'518'208.0));
  const StepTime longer = decode_step_time(next, h200, one, efficiency(), constants(), 1, 8192);
  CHECK(longer.bytes.si() - s.bytes.si() == Approx(24'576.0 * (8192 - 16)));
  // Per value head per token, with d_k = d_v = 128 and chunks of 64: 6 d_k d_v + d_k d_v / 64
  // + 64 (6 d_k + 4 d_v) + 2 x 64^2 / 3 = 183,210.67; x 32 value heads.
  CHECK(next.model.ssm.recurrence_flops_per_token() == Approx(5'862'741.333));
  // Projections (2 per active parameter but the input embedding), attention over the context on
  // 12 layers (2 x 16 heads x (256 + 256) x 12 x 8192), the delta rule on 36.
  const double matmul = 2.0 * (3'874'929'408.0 - 151'936.0 * 2048);
  CHECK(forward_flops(next.model, 1, 8192).si() ==
        Approx(matmul + 2.0 * 16 * 512 * 12 * 8192 + 36 * 5'862'741.333));
  // The delta rule is 3% of a token's FLOPs at no context.
  CHECK(36 * 5'862'741.333 / forward_flops(next.model, 1, 0).si() == Approx(0.0287).epsilon(0.01));
}

// Issue 16: a prefill with images runs the vision tower on each of them; decode steps never read
// the tower's weights.
TEST_CASE("performance: prefill and decode of a vision-language model", "[performance]") {
  const Gpu& h200 = catalog().resolve("H200", "test");
  const Parallelism one;
  const auto spec_with = [](long long images) {
    return parse_spec({{"model", config_path("gemma-3-27b")},
                       {"precision", "bf16"},
                       {"workload",
                        {{"type", "inference"},
                         {"input_tokens", 1000},
                         {"output_tokens", 100},
                         {"images_per_request", images}}}},
                      "test.json");
  };
  const Spec text = spec_with(0);
  const Spec images = spec_with(2);
  CHECK(images.workload.inference.prompt_tokens() == 1512);
  // One prompt of 1512 tokens: the language model's FLOPs plus two images of 5.55 TFLOP each.
  const StepTime with = prefill_step_time(images, h200, one, efficiency(), 1512, 1512);
  const StepTime without = prefill_step_time(text, h200, one, efficiency(), 1512, 1512);
  const double rate = h200.rate(TensorPrecision::bf16)->si() * efficiency().family(h200).compute;
  CHECK((with.compute - without.compute).si() ==
        Approx(2.0 * images.model.vision->flops(1024, 1024) / rate));
  // Decode reads the language model's weights and KV cache only: 27,009,346,304 parameters x 2 B.
  const StepTime d = decode_step_time(text, h200, one, efficiency(), constants(), 1, 1);
  const auto kv = kv_cache_geometry(text, one, constants());
  CHECK(d.bytes.si() == Approx(27'009'346'304.0 * 2 + kv.per_sequence(1).si()));
}

// Issue 16: an embedding workload is one forward pass per sequence, no decode. BERT-base at 512
// tokens, hand-checked: parameters 109,482,240, of which the input embeddings (30522 words, 512
// positions, 2 token types, x 768) 23,835,648; per token 2 x (109,482,240 - 23,835,648) =
// 171,293,184 FLOP of matrix work plus bidirectional attention over all 512 tokens,
// 2 x 12 heads x (64 + 64) x 12 layers x 512 = 18,874,368: 190,167,552 FLOP.
TEST_CASE("performance: an embedding workload is forward passes of whole sequences",
          "[performance][embedding]") {
  const Spec s = parse_spec({{"model", config_path("encoder/bert-base-uncased")},
                             {"workload", {{"type", "embedding"}, {"input_tokens", 512}}}},
                            "test.json");
  REQUIRE(s.workload.is_embedding());
  REQUIRE_FALSE(s.workload.is_training());
  CHECK(s.workload.inference.output_tokens == 0);
  CHECK(forward_flops(s.model, 1, 512).si() == 190'167'552.0);
  const Gpu& g = catalog().resolve("L4", "test");
  const Parallelism p;
  const MemoryEstimate m = estimate_memory(s, g, p, constants());
  // No KV cache: one pass takes what the batched-token budget holds, vLLM V1's 2048 on a GPU
  // under 70 GiB (docs/model.md, "Engine settings"): 2048 / 512 = 4 sequences.
  CHECK(m.kv_per_token.si() == 0.0);
  CHECK(m.per_gpu.kv_cache.si() == 0.0);
  CHECK(m.max_batch == 4);
  CHECK(m.fits);
  const InferencePerformance r = estimate_inference(s, g, p, m, efficiency(), constants());
  CHECK(r.prefill_only);
  CHECK(r.concurrency == 4);
  // One pass of 4 x 512 tokens: its FLOPs at the GPU's effective rate (compute bound on an L4),
  // plus the per-layer fixed cost.
  const StepTime pass = prefill_step_time(s, g, p, efficiency(), 4.0 * 512, 512);
  CHECK(pass.compute.si() > pass.memory.si());
  CHECK(r.prefill.si() == Approx(pass.total().si()));
  CHECK(r.requests_per_s == Approx(4.0 / pass.total().si()));
  CHECK(r.prefill_tokens_per_s == Approx(r.requests_per_s * 512));
  CHECK(r.priced_tokens_per_s() == r.prefill_tokens_per_s);
  // A sequence waits for the engine's per-request work and its pass; nothing decodes.
  CHECK(r.ttft.si() == Approx((efficiency().engine(Engine::vllm).per_request + pass.total()).si()));
  CHECK(r.tpot.si() == 0.0);
  CHECK(r.output_tokens_per_s == 0.0);
  CHECK(r.bottleneck == "compute");
  // 40 sequences in flight: a pass takes 4, the rest wait (Little's law).
  const MemoryEstimate m40 = estimate_memory(s, g, p, constants(), 40);
  const InferencePerformance q = estimate_inference(s, g, p, m40, efficiency(), constants());
  CHECK(q.queueing);
  CHECK(q.ttft.si() ==
        Approx(efficiency().engine(Engine::vllm).per_request.si() + 40.0 / r.requests_per_s));
  // Replicas add rates, not latency.
  const InferencePerformance three = estimate_inference(s, g, p, m, efficiency(), constants(), 3);
  CHECK(three.requests_per_s == Approx(3 * r.requests_per_s));
  CHECK(three.ttft == r.ttft);
}

// An fp32 checkpoint served by transformers stays fp32, and PyTorch runs its GEMMs without TF32
// by default: the GPU's non-tensor FP32 rate. Before, fp32 weights counted as 16-bit math, so a
// BERT pass came out 4x (L4) to 15x (H100) too fast, and transformers listed no fp32 kernel, so
// plan found nothing for an fp32 config on transformers. BERT-base's 512-token pass of 16
// sequences: 16 x 512 x 190,167,552 FLOP = 1,557,852,585,984 FLOP, at 30.3 TFLOP/s (the L4's
// FP32 figure) times the Ada compute efficiency.
TEST_CASE("performance: fp32 weights compute at the GPU's FP32 rate", "[performance][embedding]") {
  const Spec s = parse_spec(
      {{"model", config_path("encoder/bert-base-uncased")},
       {"workload", {{"type", "embedding"}, {"input_tokens", 512}, {"engine", "transformers"}}}},
      "test.json");
  REQUIRE(s.precision.weights == DType::fp32);
  const Gpu& l4 = catalog().resolve("L4", "test");
  const Gpu& h100 = catalog().resolve("H100-SXM", "test");
  CHECK(compute_precision(s, l4) == TensorPrecision::fp32);
  CHECK(compute_precision(s, h100) == TensorPrecision::fp32);
  CHECK_FALSE(missing_compute_rate(s, l4));
  const StepTime pass = prefill_step_time(s, l4, Parallelism{}, efficiency(), 16.0 * 512, 512);
  CHECK(pass.compute.si() ==
        Approx(1'557'852'585'984.0 / (30.3e12 * efficiency().family(l4).compute)));
  // The same pass in bf16: the tensor-core rate, 121 / 30.3 = 3.99x faster.
  Spec bf16 = s;
  bf16.precision.weights = DType::bf16;
  bf16.precision.activations = DType::bf16;
  const StepTime fast = prefill_step_time(bf16, l4, Parallelism{}, efficiency(), 16.0 * 512, 512);
  CHECK(pass.compute.si() / fast.compute.si() == Approx(121.0 / 30.3));
  // 16-bit activations stated with fp32 weights: autocast casts the weights down.
  Spec autocast = s;
  autocast.precision.activations = DType::bf16;
  autocast.precision.activations_stated_for = DType::fp32;
  CHECK(compute_precision(autocast, h100) == TensorPrecision::bf16);
  // vLLM serves an fp32 checkpoint in fp16 (--dtype auto): fp16 math, at the bf16 rate.
  const Spec vllm = parse_spec({{"model", config_path("encoder/bert-base-uncased")},
                                {"workload", {{"type", "embedding"}, {"input_tokens", 512}}}},
                               "test.json");
  CHECK(compute_precision(vllm, h100) == TensorPrecision::fp16); // as served, as reported
  CHECK(h100.rate(TensorPrecision::fp16) == h100.rate(TensorPrecision::bf16));
  // bf16 weights compute in bf16; on Turing, which has no bf16, in fp16.
  CHECK(compute_precision(bf16, h100) == TensorPrecision::bf16);
  const Gpu& t4 = catalog().resolve("T4", "test");
  CHECK(compute_precision(bf16, t4) == TensorPrecision::fp16);
  // No rate stands in for a missing FP32 figure: the B200's catalog entry has none.
  const Gpu& b200 = catalog().resolve("B200", "test");
  REQUIRE_FALSE(b200.rate(TensorPrecision::fp32));
  CHECK(missing_compute_rate(s, b200) ==
        "the catalog has no fp32 rate for B200-SXM-180GB (dense_tflop_per_s.fp32), which fp32 "
        "weights compute at");
  CHECK_THROWS_AS(prefill_step_time(s, b200, Parallelism{}, efficiency(), 512, 512), InternalError);
}

namespace {

Spec serving_with(const char* model, const nlohmann::json& workload_extra) {
  nlohmann::json workload{
      {"type", "inference"}, {"input_tokens", 2048}, {"output_tokens", 256}, {"concurrency", 24}};
  workload.update(workload_extra);
  return parse_spec({{"model", config_path(model)}, {"workload", workload}}, "test.json");
}

void check_same(const MemoryEstimate& a, const MemoryEstimate& b) {
  CHECK(a.capacity == b.capacity);
  CHECK(a.budget == b.budget);
  CHECK(a.per_gpu.weights == b.per_gpu.weights);
  CHECK(a.per_gpu.kv_cache == b.per_gpu.kv_cache);
  CHECK(a.per_gpu.activations == b.per_gpu.activations);
  CHECK(a.per_gpu.overhead == b.per_gpu.overhead);
  CHECK(a.fits == b.fits);
  CHECK(a.batch == b.batch);
  CHECK(a.max_batch == b.max_batch);
  CHECK(a.max_context == b.max_context);
  CHECK(a.kv_per_token == b.kv_per_token);
  CHECK(a.kv_per_sequence == b.kv_per_sequence);
  CHECK(a.kv_pool == b.kv_pool);
  CHECK(a.notes == b.notes);
  CHECK(a.assumptions.size() == b.assumptions.size());
}

void check_same(const InferencePerformance& a, const InferencePerformance& b) {
  CHECK(a.concurrency == b.concurrency);
  CHECK(a.prefill == b.prefill);
  CHECK(a.decode_step == b.decode_step);
  CHECK(a.decode_memory == b.decode_memory);
  CHECK(a.decode_compute == b.decode_compute);
  CHECK(a.decode_communication == b.decode_communication);
  CHECK(a.decode_fixed == b.decode_fixed);
  CHECK(a.decode_bytes == b.decode_bytes);
  CHECK(a.ttft == b.ttft);
  CHECK(a.tpot == b.tpot);
  CHECK(a.prefill_share == b.prefill_share);
  CHECK(a.output_tokens_per_s == b.output_tokens_per_s);
  CHECK(a.requests_per_s == b.requests_per_s);
  CHECK(a.prefill_tokens_per_s == b.prefill_tokens_per_s);
  CHECK(a.queueing == b.queueing);
  CHECK(a.prefill_only == b.prefill_only);
  CHECK(a.bottleneck == b.bottleneck);
  CHECK(a.explanation == b.explanation);
  CHECK(a.compute_precision == b.compute_precision);
}

} // namespace

TEST_CASE("performance: a serving layout's estimates are those from the spec, bit for bit",
          "[performance]") {
  // The plan's search works out each layout's batch-independent terms once (serving_layout) and
  // evaluates it at many batches: its figures must be exactly those of the estimates from the spec.
  const std::vector<Spec> specs{
      serving_with("llama-3.1-8b", nlohmann::json::object()),
      serving_with("mixtral-8x7b", {{"engine", "sglang"}}),
      serving_with("llama-3.1-8b", {{"engine", "transformers"}}),
      serving_with("mistral-7b-v0.1", {{"engine", "tensorrt-llm"}}),
      serving_with("hybrid/jamba-1.5-mini", nlohmann::json::object()),
      serving_with("vision/qwen2.5-vl-7b", {{"images_per_request", 2}}),
      parse_spec({{"model", config_path("encoder/bert-base-uncased")},
                  {"workload", {{"type", "embedding"}, {"input_tokens", 512}}}},
                 "test.json")};
  for (const Spec& s : specs) {
    for (const char* name : {"H100", "L4"}) {
      const Gpu& g = catalog().resolve(name, "test");
      for (const int tp : {1, 2, 8}) {
        Parallelism p;
        p.tp = tp;
        p.ep = s.model.is_moe() && tp > 1 ? tp : 1;
        const ServingLayout layout = serving_layout(s, g, p, constants(), efficiency());
        for (const std::optional<long long> batch : {std::optional<long long>{},
                                                     std::optional<long long>{1},
                                                     std::optional<long long>{7},
                                                     std::optional<long long>{300}}) {
          for (const Detail detail : {Detail::numbers, Detail::full}) {
            INFO(s.model.family << " on " << name << " at TP " << tp << ", batch "
                                << batch.value_or(-1));
            const MemoryEstimate from_spec = estimate_memory(s, g, p, constants(), batch, detail);
            const MemoryEstimate from_layout = estimate_memory(layout.memory, batch, detail);
            check_same(from_spec, from_layout);
            check_same(estimate_inference(s, g, p, from_spec, efficiency(), constants(), 3, detail),
                       estimate_inference(layout, from_layout, 3, detail));
          }
        }
      }
    }
  }
}

TEST_CASE("performance: under attention data parallelism a decode step reads its own rank's "
          "cache",
          "[performance]") {
  const Gpu& h200 = catalog().resolve("H200", "test");
  const Spec v3 = parse_spec({{"model", config_path("deepseek-v3")},
                              {"precision", {{"weights", "fp8"}, {"kv_cache", "fp8"}}},
                              {"workload",
                               {{"type", "inference"},
                                {"engine", "sglang"},
                                {"input_tokens", 1000},
                                {"output_tokens", 100}}}},
                             "v3.json");
  const Parallelism tp8 = serving_parallelism(8, 1, 8);
  const Parallelism adp8 = serving_parallelism(8, 1, 8, 8);
  const StepTime s_tp = decode_step_time(v3, h200, tp8, efficiency(), constants(), 16, 1000);
  const StepTime s_adp = decode_step_time(v3, h200, adp8, efficiency(), constants(), 16, 1000);
  // 16 sequences over 8 ranks: each GPU reads 2 latent caches, not 16, and the whole attention
  // weights (attention TP 1) instead of an eighth of the heads' share.
  const Bytes sequence = kv_cache_geometry(v3, adp8, constants()).per_sequence(1000);
  CHECK(sequence == kv_cache_geometry(v3, tp8, constants()).per_sequence(1000));
  const Bytes weights_gap = weights_per_gpu(v3.model, v3.weights, tp8).total() -
                            weights_per_gpu(v3.model, v3.weights, adp8).total();
  CHECK(weights_gap.si() < 0);
  CHECK((s_tp.bytes - s_adp.bytes).si() ==
        Approx((weights_gap + sequence * 14.0).si()).epsilon(1e-12));
  // The mixers' all-reduces are gone (attention TP 1); the MLPs' stay over all 8 GPUs.
  CHECK(s_adp.communication < s_tp.communication);
  CHECK(s_adp.communication.si() > 0);
}
