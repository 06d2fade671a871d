// Training performance: the step, its bubble and communication, MFU and the deadline; LoRA,
// QLoRA, ZeRO-3, context parallelism and the fp8 recipe.

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

namespace {

Spec training_spec(const char* model, nlohmann::json workload, nlohmann::json precision = nullptr) {
  nlohmann::json body{{"model", config_path(model)}, {"workload", std::move(workload)}};
  if (!precision.is_null()) {
    body["precision"] = std::move(precision);
  }
  return parse_spec(body, "train.json");
}

TrainingPerformance train(const Spec& s, const char* gpu, const Parallelism& p) {
  const Gpu& g = catalog().resolve(gpu, "test");
  return estimate_training(s, g, p, estimate_memory(s, g, p, constants()), efficiency());
}

Parallelism data_parallel(int dp) {
  Parallelism p;
  p.dp = dp;
  return p;
}

nlohmann::json llama8b_pretrain(int zero_stage) {
  return {
      {"type", "training"}, {"seq_len", 4096}, {"global_batch", 64}, {"zero_stage", zero_stage}};
}

} // namespace

TEST_CASE("performance: LoRA FLOPs skip the frozen weights' gradients", "[performance]") {
  const nlohmann::json lora{{"type", "finetune"},
                            {"method", "lora"},
                            {"lora_rank", 16},
                            {"lora_targets", {"q_proj", "v_proj"}},
                            {"seq_len", 512}};
  const Spec s = training_spec("llama-2-7b", lora);
  // Llama-2-7B, one token of a 512-token sequence. Forward: matmuls 2 x (6,738,415,616 -
  // 131,072,000 input embedding) = 13.2147e9, attention 2 x 32 heads x 256 x 32 layers x 512 =
  // 0.2684e9. LoRA: 2 x forward + attention's own backward (0.2684e9) + the adapters' 6 x
  // 16 x (4096 + 4096) x 2 x 32 = 50.3e6: 27.285e9 FLOP, against 3 x 13.483e9 = 40.449e9 for full
  // fine-tuning. The plan's "GFLOP per trained token" shows the same count.
  CHECK(training_model_flops(s, 1).si() == Approx(27.285e9).epsilon(1e-4));
  nlohmann::json full = lora;
  full["method"] = "full";
  full.erase("lora_rank");
  full.erase("lora_targets");
  CHECK(training_model_flops(training_spec("llama-2-7b", full), 1).si() ==
        Approx(40.449e9).epsilon(1e-4));
  CHECK(training_model_flops(s, 512).si() == Approx(512 * 27.285e9).epsilon(1e-4));
}

TEST_CASE("performance: QLoRA pays for dequantizing its 4-bit base", "[performance]") {
  const nlohmann::json lora{{"type", "finetune"}, {"method", "lora"}, {"seq_len", 512}};
  nlohmann::json qlora = lora;
  qlora["method"] = "qlora";
  const auto l = train(training_spec("llama-2-7b", lora), "H100", Parallelism{});
  const auto q = train(training_spec("llama-2-7b", qlora), "H100", Parallelism{});
  // Llama-2-7B's linear layers, 2,147,483,648 attention + 4,328,521,728 MLP = 6.476e9
  // parameters in nf4 with double quantization (4 + 8/64 + 32/16384 = 4.127 bits): each pass
  // reads 0.516 B and writes a 2-byte bf16 copy per parameter, 16.293e9 B. Forward and backward
  // of one micro-batch: 2 x 16.293e9 B / (3.35 TB/s x 1.0) = 9.727 ms.
  REQUIRE(efficiency().family(catalog().resolve("H100", "t")).memory == Approx(1.0));
  CHECK(l.dequantization.si() == 0.0);
  CHECK(q.dequantization.si() == Approx(9.727e-3).epsilon(0.001));
  // The same math as bf16 LoRA, plus the dequantization: a lower MFU.
  CHECK(q.compute.si() == Approx(l.compute.si()));
  CHECK(q.step.si() == Approx(l.step.si() + q.dequantization.si()));
  CHECK(q.mfu == Approx(l.mfu * l.step.si() / q.step.si()));
  CHECK(q.mfu < l.mfu);
}

TEST_CASE("performance: ZeRO-3 all-gathers the weights in every pass", "[performance]") {
  // Llama-3.1-8B (8,030,261,248 parameters), 64 sequences of 4096 tokens, micro-batch 1, on 16
  // H100s: dp 16 leaves the 8-GPU NVLink domain, so the collectives run over the 400 Gbit/s
  // (50 GB/s) network with 10 us per call; 64 / 16 = 4 micro-batches per replica.
  const Parallelism dp16 = data_parallel(16);
  const auto z2 = train(training_spec("llama-3.1-8b", llama8b_pretrain(2)), "H100", dp16);
  const auto z3 = train(training_spec("llama-3.1-8b", llama8b_pretrain(3)), "H100", dp16);
  const auto z0 = train(training_spec("llama-3.1-8b", llama8b_pretrain(0)), "H100", dp16);
  const double params = 8030261248.0;
  const double latency = efficiency().network_latency.si();
  REQUIRE(latency == Approx(10e-6));
  REQUIRE(efficiency().dp_overlap == Approx(0.8));
  // Compute: 3 x forward (262,144 tokens x 17.158e9) + selective recompute of the attention
  // scores (0.2815e15) = 13.775e15 FLOP, / 16 GPUs / (989.4 TFLOP/s x 0.55 x 0.5^0.1375 = 494.6
  // TFLOP/s) = 1.7406 s.
  CHECK(z2.compute.si() == Approx(1.7406).epsilon(0.002));
  const double compute = z2.compute.si();
  // Gradients, fp32 (mixed): one all-reduce, 2 x 15/16 x 32.12 GB / 50 GB/s = 1.2045 s, hidden
  // behind 0.8 x 2/3 of the compute (0.928 s): 0.276 s exposed, for ZeRO-0, -1 and -2 alike.
  const double reduce = 2.0 * 15 / 16 * params * 4 / 50e9 + latency;
  CHECK(reduce == Approx(1.2045).epsilon(0.001));
  CHECK(z2.data_parallel_exposed.si() == Approx(reduce - 0.8 * 2.0 / 3.0 * compute));
  CHECK(z2.data_parallel_exposed.si() == Approx(0.276).epsilon(0.01));
  CHECK(z0.step.si() == Approx(z2.step.si()));
  // ZeRO-3: before each layer's forward and backward, in each of the 4 micro-batches, an
  // all-gather of its bf16 weights, 15/16 x (16.06 GB / 32) / 50 GB/s + 10 us: 1.2058 s a pass.
  // Forward: 1.2058 - 0.8 x 1/3 x 1.7406 = 0.7416 s exposed; backward: 1.2058 + 1.2045 -
  // 0.9283 = 1.4820 s. The step grows from 2.017 s to 3.964 s.
  const double gather = 32 * 4 * (15.0 / 16 * params * 2 / 32 / 50e9 + latency);
  CHECK(gather == Approx(1.2058).epsilon(0.001));
  CHECK(z3.data_parallel_exposed.si() ==
        Approx((gather - 0.8 / 3.0 * compute) + (gather + reduce - 0.8 * 2.0 / 3.0 * compute)));
  CHECK(z3.data_parallel_exposed.si() == Approx(2.224).epsilon(0.002));
  CHECK(z3.step.si() == Approx(3.964).epsilon(0.002));
  CHECK(z3.step > z2.step);
  CHECK(z3.mfu < z2.mfu);
  // Inside one NVLink domain the all-gathers hide behind the passes: ZeRO-3 costs nothing more.
  const Parallelism dp8 = data_parallel(8);
  const auto n2 = train(training_spec("llama-3.1-8b", llama8b_pretrain(2)), "H100", dp8);
  const auto n3 = train(training_spec("llama-3.1-8b", llama8b_pretrain(3)), "H100", dp8);
  CHECK(n3.step.si() == Approx(n2.step.si()));
}

TEST_CASE("performance: context parallelism splits each sequence and gathers its keys and values",
          "[performance][training]") {
  // Llama 3 405B's long-context stage (Llama 3 paper, Table 4): 131,072-token sequences on
  // 16,384 H100s, TP8 CP16 PP16 DP8, 16 sequences per data-parallel rank; full recompute and 8
  // virtual stages are rightsize's assumptions
  // (tests/data/specs/llama-3.1-405b-128k-training.json).
  const Spec s =
      load_spec(std::string(RIGHTSIZE_TESTS_DIR) + "/data/specs/llama-3.1-405b-128k-training.json");
  const Gpu& h100 = catalog().resolve("H100", "test");
  Parallelism cp1;
  cp1.tp = 8;
  cp1.pp = 16;
  cp1.dp = 8;
  Parallelism cp16 = cp1;
  cp16.cp = 16;
  CHECK(cp16.gpus() == 16384);
  const MemoryEstimate m1 = estimate_memory(s, h100, cp1, constants());
  const MemoryEstimate m16 = estimate_memory(s, h100, cp16, constants());
  // Each rank keeps 8,192 of a sequence's tokens: every activation term (flash attention keeps
  // no s^2 scores) and the loss logits divide by 16. The weights and, under ZeRO-1, the
  // gradients are those of CP1; the optimizer states shard over dp x cp = 128 ranks.
  CHECK(m16.per_gpu.activations.si() == Approx(m1.per_gpu.activations.si() / 16));
  CHECK(m16.per_gpu.weights.si() == Approx(m1.per_gpu.weights.si()));
  CHECK(m16.per_gpu.gradients.si() == Approx(m1.per_gpu.gradients.si()));
  CHECK(m16.per_gpu.optimizer.si() == Approx(m1.per_gpu.optimizer.si() / 16));
  CHECK(m16.fits);
  CHECK_FALSE(m1.fits);

  const TrainingPerformance t1 = estimate_training(s, h100, cp1, m1, efficiency());
  const TrainingPerformance t16 = estimate_training(s, h100, cp16, m16, efficiency());
  CHECK(t1.context_parallel_communication.si() == 0.0);
  // Per layer and micro-batch, the keys and values of the whole sequence: 131,072 tokens x 1 KV
  // head per TP rank (8 / 8) x (128 + 128) x 2 bytes = 67,108,864 B, all-gathered over 16 ranks
  // that span two servers (tp x cp = 128 > the 8-GPU NVLink domain): 15/16 x 67.1 MB / 50 GB/s +
  // 10 us = 1.2683 ms; 4 times with full recompute, in each of 8 layers per stage (126 / 16) and
  // 16 micro-batches (128 / 8): 0.6494 s of a 15.9 s step.
  REQUIRE(efficiency().network_latency.si() == Approx(10e-6));
  REQUIRE(h100.network.si() == Approx(50e9));
  const double gather = 67108864.0 * 15 / 16 / 50e9 + 10e-6;
  CHECK(gather == Approx(1.2683e-3).epsilon(1e-4));
  CHECK(t16.context_parallel_communication.si() == Approx(4 * 8 * 16 * gather));
  CHECK(t16.context_parallel_communication.si() == Approx(0.6494).epsilon(1e-3));
  CHECK(t16.step.si() ==
        Approx(t16.compute.si() + t16.pipeline_bubble.si() +
               t16.tensor_parallel_communication.si() + t16.context_parallel_communication.si() +
               t16.data_parallel_exposed.si()));
  // Sixteen times the GPUs share the same FLOPs; the tensor-parallel all-reduces carry 1/16 of
  // the tokens (plus their fixed latency).
  CHECK(t16.compute.si() == Approx(t1.compute.si() / 16));
  CHECK(t16.tensor_parallel_communication.si() < t1.tensor_parallel_communication.si() / 15);
  // Published: 380 TFLOP/s per GPU, 38% of the bf16 peak. rightsize: 36.9% (-2.9%).
  CHECK(t16.mfu == Approx(0.38).epsilon(0.05));
  CHECK(t16.mfu == Approx(0.3689).epsilon(0.002));
}

TEST_CASE("performance: the fp8 recipe trains at the fp8 rate where there is one",
          "[performance]") {
  nlohmann::json fp8 = llama8b_pretrain(0);
  fp8["training_precision"] = "fp8";
  const Spec s8 = training_spec("llama-3.1-8b", fp8);
  const Spec s16 = training_spec("llama-3.1-8b", llama8b_pretrain(0));
  const Parallelism dp8 = data_parallel(8);
  const auto bf16 = train(s16, "H100", dp8);
  const auto f8 = train(s8, "H100", dp8);
  // H100: the bf16 step's compute (13.775e15 FLOP / 8 GPUs / 494.6 TFLOP/s = 3.481 s), 1.3
  // times faster end to end: 2.678 s.
  REQUIRE(efficiency().fp8_training_speedup == Approx(1.3));
  CHECK(f8.compute_precision == TensorPrecision::fp8);
  CHECK(bf16.compute.si() == Approx(3.481).epsilon(0.002));
  CHECK(f8.compute.si() == Approx(3.481 / 1.3).epsilon(0.002));
  // MFU against the fp8 dense peak (1978.9 TFLOP/s): 1.3 x the speed over 2 x the peak.
  const double model = 3.0 * 262144 * 17.158e9;
  CHECK(f8.mfu == Approx(model / (f8.step.si() * 8 * 1978.9e12)).epsilon(0.002));
  CHECK(f8.mfu < bf16.mfu);
  // Memory: mixed's 18 bytes per parameter plus Transformer Engine's fp8 weight copy and its
  // transpose.
  const Gpu& h100 = catalog().resolve("H100", "t");
  CHECK(estimate_memory(s8, h100, dp8, constants()).bytes_per_param == 20.0);
  // A100 has no fp8 tensor cores: the recipe runs at the bf16 rate, and the estimate says so.
  const auto a100 = train(s8, "A100", dp8);
  const auto a100_bf16 = train(s16, "A100", dp8);
  CHECK(a100.compute_precision == TensorPrecision::bf16);
  CHECK(a100.compute.si() == Approx(a100_bf16.compute.si()));
  CHECK_THAT(a100.explanation, Catch::Contains("the fp8 recipe runs in bf16"));
}
