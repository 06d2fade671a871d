#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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

TEST_CASE("performance: training step, bubble, MFU, deadline", "[performance]") {
  const Spec s = parse_spec({{"model", config_path("llama-3.1-70b")},
                             {"workload",
                              {{"type", "training"},
                               {"seq_len", 4096},
                               {"global_batch", 256},
                               {"tokens", 1e10},
                               {"deadline_hours", 24}}}},
                            "train.json");
  const Gpu& h100 = catalog().resolve("H100", "t");
  Parallelism p;
  p.tp = 8;
  p.pp = 4;
  p.dp = 4;
  const auto m = estimate_memory(s, h100, p, constants());
  const auto t = estimate_training(s, h100, p, m, efficiency());
  // Bubble (p - 1) / m of the compute, m = 256 / (1 x 4) = 64 micro-batches.
  CHECK(t.pipeline_bubble.si() == Approx(t.compute.si() * 3.0 / 64.0));
  CHECK(t.step.si() == Approx((t.compute + t.pipeline_bubble + t.tensor_parallel_communication +
                               t.data_parallel_exposed)
                                  .si()));
  CHECK(t.tokens_per_s == Approx(256.0 * 4096 / t.step.si()));
  CHECK(t.mfu > 0.2);
  CHECK(t.mfu < efficiency().family(h100).training_compute);
  REQUIRE(t.time_to_train.has_value());
  CHECK(t.time_to_train->si() == Approx(1e10 / t.tokens_per_s));
  REQUIRE(t.meets_deadline.has_value());
  CHECK(*t.meets_deadline == (*t.time_to_train <= hours(24)));
  CHECK(t.host_input.si() < h100.host_link.si() * 0.01);
}
