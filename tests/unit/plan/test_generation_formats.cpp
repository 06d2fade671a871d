// Formats per GPU generation (plan/generation_formats.hpp): one rule for plan and estimate. A GPU
// without bf16 (Turing's T4) runs the spec's bf16 in fp16, with the family's fp16 caveat; what the
// engine does not run on a generation, plan rejects and estimate refuses with the same reason.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/plan/generation_formats.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;

namespace {

nlohmann::json serving(const std::string& model, const std::string& engine) {
  return {{"schema_version", 1},
          {"name", "on-t4"},
          {"model", config_path(model)},
          {"precision", {{"weights", "bf16"}, {"kv_cache", "bf16"}}},
          {"workload",
           {{"type", "inference"},
            {"engine", engine},
            {"input_tokens", 512},
            {"output_tokens", 128},
            {"concurrency", 4},
            {"targets", {{"ttft_ms", 20000}}}}},
          {"deployment", {{"mode", "cloud"}, {"horizon_months", 12}}}};
}

Plan plan_with_engines(const nlohmann::json& body) {
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &rightsize::test::uncertainty();
  o.engines = &rightsize::test::engines();
  return make_plan(parse_spec(body, "on-t4.json"),
                   catalog(),
                   rightsize::test::constants(),
                   rightsize::test::efficiency(),
                   o);
}

} // namespace

TEST_CASE("generation formats: bf16 is what the engine computes on the generation",
          "[plan][generation_formats]") {
  const Spec spec = parse_spec(serving("llama-3.1-8b", "vllm"), "on-t4.json");
  const EngineSupport& engines = rightsize::test::engines();
  CHECK_FALSE(computes_bf16(spec, catalog().resolve("T4", "--gpu"), &engines));
  CHECK(computes_bf16(spec, catalog().resolve("L4", "--gpu"), &engines));
  CHECK(computes_bf16(spec, catalog().resolve("H100", "--gpu"), &engines));
  // Without engine data: the catalog's rates (the T4 datasheet lists fp16, no bf16).
  CHECK_FALSE(computes_bf16(spec, catalog().resolve("T4", "--gpu"), nullptr));
}

TEST_CASE("generation formats: plan offers fp16 on a T4, never bf16, with the fp16 caveat",
          "[plan][generation_formats]") {
  // Defect (issue 43, 5): `T4-16GB ... bf16/bf16` was offered and its check-it command said
  // `--weights bf16`; T4 has no bf16 and engines run fp16 there.
  nlohmann::json body = serving("encdec/flan-t5-large", "transformers");
  body["constraints"] = {{"gpus", {"T4", "L4"}}};
  const Plan p = plan_with_engines(body);
  bool t4_seen = false;
  for (const Candidate& c : p.candidates) {
    if (c.gpu->name == "T4-16GB") {
      t4_seen = true;
      CHECK(c.spec->precision.weights == DType::fp16);
      CHECK(c.spec->precision.kv_cache == DType::fp16);
    } else {
      CHECK(c.spec->precision.weights == DType::bf16);
    }
  }
  REQUIRE(t4_seen);
  bool caveat = false;
  for (const auto& n : p.notes) {
    caveat = caveat || (n.find("T4-16GB (sm75) has no bf16") != std::string::npos &&
                        n.find("T5 is known to overflow") != std::string::npos);
  }
  CHECK(caveat);
}

TEST_CASE("generation formats: estimate runs bf16 as fp16 on a T4 and refuses what plan rejects",
          "[plan][generation_formats]") {
  const EngineSupport& engines = rightsize::test::engines();
  const Gpu& t4 = catalog().resolve("T4", "--gpu");
  SECTION("bf16 asked: fp16 evaluated, the caveat in the warnings") {
    const Spec loaded = parse_spec(serving("encdec/flan-t5-large", "transformers"), "on-t4.json");
    const Spec s = estimate_spec(loaded, catalog(), t4, DType::bf16, DType::bf16, &engines);
    CHECK(s.precision.weights == DType::fp16);
    CHECK(s.precision.kv_cache == DType::fp16);
    REQUIRE_FALSE(s.warnings.empty());
    CHECK_THAT(s.warnings.back(),
               Catch::Contains("T4-16GB (sm75) has no bf16: flan-t5-large runs in fp16") &&
                   Catch::Contains("T5 is known to overflow"));
  }
  SECTION("a family without a known fp16 problem: the substitution alone") {
    const Spec loaded = parse_spec(serving("llama-3.1-8b", "vllm"), "on-t4.json");
    const Spec s = estimate_spec(loaded, catalog(), t4, std::nullopt, std::nullopt, &engines);
    CHECK(s.precision.weights == DType::fp16);
    REQUIRE_FALSE(s.warnings.empty());
    CHECK_THAT(s.warnings.back(), !Catch::Contains("overflow"));
  }
  SECTION("fp8 KV cache on vLLM: plan's rejection, as estimate's input error") {
    // Defect (issue 43, 5): estimate exited 0 with speeds while plan rejected the T4.
    nlohmann::json body = serving("llama-3.1-8b", "vllm");
    body["constraints"] = {{"gpus", {"T4"}}};
    body["precision"] = {{"weights", "fp8"}, {"kv_cache", "fp8"}};
    const Plan p = plan_with_engines(body);
    const auto t4_rejection = std::find_if(p.rejected.begin(),
                                           p.rejected.end(),
                                           [](const Rejection& r) { return r.gpu == "T4-16GB"; });
    REQUIRE(t4_rejection != p.rejected.end());
    CHECK(t4_rejection->code == "engine_support");
    const std::string reason = t4_rejection->reason;
    CHECK_THAT(reason, Catch::Contains("vllm has no fp8 KV cache on sm75"));
    const Spec loaded = parse_spec(serving("llama-3.1-8b", "vllm"), "on-t4.json");
    CHECK_THROWS_WITH(estimate_spec(loaded, catalog(), t4, DType::fp8, DType::fp8, &engines),
                      "--gpu: T4-16GB: " + reason +
                          "; plan rejects it too: try other --weights or --kv-cache formats, or "
                          "another GPU");
  }
}

TEST_CASE("formats: training never offers fp8 weights on a GPU without fp8 math",
          "[plan][formats]") {
  // The LoRA example on a T4 (sm75) was told "try: allow fp8 weights": Turing has no fp8.
  Spec spec = load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-2-7b-lora.json");
  spec.constraints.gpus = {"T4-16GB"};
  const PlanOptions options = rightsize::test::cli_plan_options("2026-11-21");
  const Plan plan = make_plan(
      spec, catalog(), rightsize::test::constants(), rightsize::test::efficiency(), options);
  const auto t4 = std::find_if(plan.rejected.begin(), plan.rejected.end(), [](const Rejection& r) {
    return r.gpu == "T4-16GB";
  });
  REQUIRE(t4 != plan.rejected.end());
  CHECK_THAT(t4->nearest_fix, !Catch::Contains("allow fp8"));
  // Asked for fp8 weights outright: refused for the GPU, not planned at 16-bit speed.
  spec.precision.weights = DType::fp8;
  const Plan fp8 = make_plan(
      spec, catalog(), rightsize::test::constants(), rightsize::test::efficiency(), options);
  const auto r = std::find_if(fp8.rejected.begin(), fp8.rejected.end(), [](const Rejection& x) {
    return x.gpu == "T4-16GB";
  });
  REQUIRE(r != fp8.rejected.end());
  CHECK(r->code == "engine_support");
  CHECK_THAT(r->reason, Catch::Contains("T4-16GB (sm75) has no fp8 math"));
}
