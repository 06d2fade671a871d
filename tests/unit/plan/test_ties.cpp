// Of two configurations that cost the same, the plan keeps and ranks first the one a buyer takes
// (issue 43, defect 7): a right-sized fp8 layout over a tight bf16 one on the same GPU (the
// spec's own formats otherwise: never fp8 for nothing), and on-prem a right-sized MIG slice over
// its over-provisioned whole GPU, without saying the slice is "not ranked".

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Plan plan_of(const Spec& spec) {
  return make_plan(
      spec, catalog(), constants(), efficiency(), rightsize::test::cli_plan_options("2026-11-21"));
}

Spec qwen3_moe(long long concurrency, int tpot_ms) {
  nlohmann::json body = {
      {"name", "qwen3-moe"},
      {"model", rightsize::test::config_path("qwen3-30b-a3b")},
      {"precision", {{"weights", "bf16"}, {"kv_cache", "bf16"}, {"allow", {"fp8"}}}},
      {"workload",
       {{"type", "inference"},
        {"input_tokens", 2048},
        {"output_tokens", 1024},
        {"concurrency", concurrency},
        {"targets", {{"ttft_ms", 3000}, {"tpot_ms", tpot_ms}}}}},
      {"constraints", {{"gpus", {"H100-NVL-94GB"}}}}};
  return parse_spec(body, "qwen3-moe.json");
}

} // namespace

TEST_CASE("ties: a right-sized fp8 layout is kept over a tight bf16 one at the same cost",
          "[plan][ties]") {
  // One H100 NVL either way ($24k over 12 months): bf16 holds TPOT at 42 ms of 50 at the band's
  // edge with 64 sequences (tight), fp8 at 24 ms.
  const Plan plan = plan_of(qwen3_moe(64, 50));
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  CHECK(c.total_gpus() == 1);
  CHECK(c.spec->precision.weights == DType::fp8);
  CHECK(c.verdict == "right-sized");
  // bf16 alone: the same GPU count and TCO, tight.
  Spec bf16 = qwen3_moe(64, 50);
  bf16.precision.allow.clear();
  const Plan own = plan_of(bf16);
  REQUIRE(own.feasible());
  CHECK(own.candidates.front().total_gpus() == 1);
  CHECK(own.candidates.front().verdict == "tight");
  CHECK(own.candidates.front().cost.tco.si() == Approx(c.cost.tco.si()));
}

TEST_CASE("ties: the spec's own formats are kept when an allowed one only adds room",
          "[plan][ties]") {
  // 16 sequences: bf16 is right-sized on one GPU; fp8 would be over-provisioned at the same cost.
  const Plan plan = plan_of(qwen3_moe(16, 50));
  REQUIRE(plan.feasible());
  CHECK(plan.candidates.front().spec->precision.weights == DType::bf16);
  CHECK(plan.candidates.front().verdict == "right-sized");
}

TEST_CASE("ties: on-prem, a right-sized MIG slice ranks before its over-provisioned GPU",
          "[plan][ties]") {
  Spec spec = load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json");
  spec.deployment.mode = DeploymentMode::onprem;
  spec.deployment.growth_per_month = 0;
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  for (std::size_t i = 0; i + 1 < plan.candidates.size(); ++i) {
    const Candidate& a = plan.candidates[i];
    const Candidate& b = plan.candidates[i + 1];
    CAPTURE(a.gpu->name, a.verdict, b.gpu->name, b.verdict);
    if (a.score == Approx(b.score).epsilon(1e-9)) {
      CHECK_FALSE((a.verdict == "over-provisioned" && b.verdict == "right-sized"));
    }
  }
  for (const Candidate& c : plan.candidates) {
    CHECK_THAT(c.verdict_reason, !Catch::Contains("cloud prices rent whole GPUs"));
  }
}
