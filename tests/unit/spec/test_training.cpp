// Training and fine-tuning workloads and the fp8 training recipe.

#include "spec_test_helpers.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::has_default;
using rightsize::test::ScratchDir;
using rightsize::test::spec_error;
using rightsize::test::tiny_config;
using rightsize::test::write_spec;

TEST_CASE("spec: the fp8 training recipe", "[spec]") {
  ScratchDir dir;
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 4096, "global_batch": 64, "training_precision": "fp8"}})"));
  const TrainingPrecision& fp8 = s.workload.training.precision;
  CHECK(fp8.name == "fp8");
  CHECK(fp8.compute == DType::fp8);
  CHECK(fp8.weights == DType::bf16); // Transformer Engine keeps mixed's states
  CHECK(fp8.gradients == DType::fp32);
  CHECK(fp8.master_weights == DType::fp32);
  CHECK(fp8.optimizer_states == DType::fp32);
  CHECK(training_precision_preset("mixed")->compute == DType::bf16);
  s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 4096, "global_batch": 64, "training_precision": {"gradients": "bf16",
      "compute": "fp8"}}})"));
  CHECK(s.workload.training.precision.compute == DType::fp8);
  CHECK(s.workload.training.precision.gradients == DType::bf16);
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 4096, "global_batch": 64, "training_precision": {"compute": "fp32"}}})") ==
        "spec.json:/workload/training_precision/compute: must be bf16, fp16 or fp8 (the GEMM "
        "inputs), got \"fp32\"");
}

TEST_CASE("spec: training and fine-tuning workloads", "[spec]") {
  ScratchDir dir;
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 8192, "global_batch": 512, "micro_batch": 1, "optimizer": "adamw",
      "zero_stage": 1, "recompute": "selective", "tokens": 1e12, "deadline_hours": 720}})"));
  CHECK(s.workload.type == WorkloadType::training);
  CHECK(s.workload.training.seq_len == 8192);
  CHECK(s.workload.training.zero_stage == 1);
  CHECK(*s.workload.training.tokens == 1e12);
  CHECK(to_hours(*s.workload.training.deadline) == Approx(720));

  s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "finetune",
      "method": "qlora", "lora_rank": 64, "lora_targets": ["q_proj", "v_proj", "down_proj"],
      "seq_len": 2048, "micro_batch": 4}})"));
  CHECK(s.workload.training.method == FinetuneMethod::qlora);
  CHECK(s.precision.weights == DType::nf4); // QLoRA's base weights
  CHECK(s.weights.method == "bitsandbytes");
  CHECK(s.workload.training.global_batch == 4);
  CHECK(s.workload.training.lora_targets.size() == 3);
}
