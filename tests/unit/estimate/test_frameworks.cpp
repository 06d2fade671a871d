// What each training framework runs (estimate/frameworks.hpp): the layouts the training search
// keeps and estimate accepts. Issue 43, defect 4: HF Trainer/PEFT has no pipeline parallelism,
// DeepSpeed's pipeline engine does not take ZeRO-2/3, QLoRA runs without TP or PP.

#include "test_paths.hpp"

#include <rightsize/estimate/frameworks.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::config_path;

namespace {

Spec finetune(const std::string& framework, int zero_stage, const std::string& method) {
  nlohmann::json body{{"schema_version", 1},
                      {"name", "ft"},
                      {"model", config_path("llama-3.1-8b")},
                      {"workload",
                       {{"type", "finetune"},
                        {"method", method},
                        {"framework", framework},
                        {"zero_stage", zero_stage},
                        {"seq_len", 4096},
                        {"global_batch", 64},
                        {"tokens", 1e9}}},
                      {"deployment", {{"mode", "cloud"}}}};
  if (method == "qlora") {
    body["precision"] = {{"weights", "nf4"}};
  }
  return parse_spec(body, "ft.json");
}

Parallelism layout(int tp, int pp, int dp) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  return p;
}

} // namespace

TEST_CASE("frameworks: transformers has no pipeline parallelism", "[estimate][frameworks]") {
  const Spec s = finetune("transformers", 3, "full");
  const FrameworkRefusal no = framework_refusal(s, layout(1, 4, 2));
  CHECK(no.option == "--pp");
  CHECK_THAT(no.reason,
             Catch::StartsWith("framework transformers has no pipeline parallelism"));
  CHECK_FALSE(framework_refusal(s, layout(1, 1, 8)).refused());
  // TP composes with data parallelism only over FSDP2 (zero_stage 3).
  CHECK_FALSE(framework_refusal(s, layout(2, 1, 4)).refused());
  const FrameworkRefusal ddp_tp = framework_refusal(finetune("transformers", 0, "full"),
                                                    layout(2, 1, 4));
  CHECK(ddp_tp.option == "--tp");
  CHECK_THAT(ddp_tp.reason, Catch::Contains("only over FSDP2"));
}

TEST_CASE("frameworks: DeepSpeed's pipeline takes ZeRO 0-1 only", "[estimate][frameworks]") {
  const FrameworkRefusal no = framework_refusal(finetune("deepspeed", 3, "full"), layout(1, 4, 2));
  CHECK(no.option == "--pp");
  CHECK_THAT(no.reason, Catch::Contains("ZeRO-2 and ZeRO-3 are incompatible with pipeline"));
  CHECK_FALSE(framework_refusal(finetune("deepspeed", 1, "full"), layout(1, 4, 2)).refused());
  CHECK_FALSE(framework_refusal(finetune("megatron", 1, "full"), layout(2, 4, 2)).refused());
  CHECK(framework_refusal(finetune("megatron", 3, "full"), layout(2, 4, 2)).refused());
}

TEST_CASE("frameworks: QLoRA runs without tensor or pipeline parallelism",
          "[estimate][frameworks]") {
  const Spec s = finetune("transformers", 3, "qlora");
  const FrameworkRefusal tp2 = framework_refusal(s, layout(2, 1, 1));
  CHECK(tp2.option == "--tp");
  CHECK_THAT(tp2.reason, Catch::Contains("runs QLoRA (bitsandbytes 4-bit) without tensor"));
  CHECK(framework_refusal(s, layout(4, 2, 1)).refused());
  CHECK_FALSE(framework_refusal(s, layout(1, 1, 4)).refused());
  CHECK_THAT(framework_refusal(finetune("megatron", 1, "qlora"), layout(1, 1, 1)).reason,
             Catch::StartsWith("framework megatron has no QLoRA"));
}

TEST_CASE("frameworks: the training search keeps TP out of transformers",
          "[estimate][frameworks]") {
  CHECK_FALSE(framework_row(Framework::transformers).search_tensor_parallel);
  CHECK(framework_row(Framework::megatron).search_tensor_parallel);
  CHECK(framework_row(Framework::deepspeed).search_tensor_parallel);
}
