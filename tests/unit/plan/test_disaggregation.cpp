// Disaggregated prefill/decode as a plan's candidate (issue 46): a DeepSeek-V3 spec with long
// prompts and many requests in flight shows one with both pools sized, fewer GPUs than the
// aggregated configuration it beat on the same GPU and a sentence saying why; a short-prompt chat
// spec does not prefer one; check re-evaluates it as the plan costed it.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/evaluate.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

const char* const k_today = "2026-11-21";

Plan plan_of(const Spec& spec, bool disaggregate = true) {
  PlanOptions o = rightsize::test::cli_plan_options(k_today);
  o.disaggregate = disaggregate;
  return make_plan(spec, catalog(), constants(), efficiency(), o);
}

Spec example(const char* name) {
  return load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/" + name);
}

const Candidate* on(const Plan& plan, const std::string& gpu) {
  const auto it = std::find_if(plan.candidates.begin(),
                               plan.candidates.end(),
                               [&](const Candidate& c) { return c.gpu->name == gpu; });
  return it == plan.candidates.end() ? nullptr : &*it;
}

} // namespace

TEST_CASE("disaggregated plan: long prompts at high concurrency size both pools",
          "[plan][disaggregation]") {
  const Spec spec = example("deepseek-v3-long-prompts.json");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& best = plan.candidates.front();
  REQUIRE(best.disaggregation);
  const DisaggregatedPerformance& d = best.disaggregation->pools;
  CHECK(d.layout.prefill.replicas >= 1);
  CHECK(d.layout.decode.replicas >= 1);
  CHECK(best.replicas == d.layout.prefill.replicas + d.layout.decode.replicas);
  CHECK(best.total_gpus() == d.layout.gpus());
  CHECK(d.limited_by.empty());
  // A plan leaves the prefill pool room for bursts.
  CHECK(d.prefill_utilization <= 0.85);
  // It beat the best aggregated configuration on its GPU, with fewer GPUs for less.
  REQUIRE(best.disaggregation->aggregated_gpus);
  CHECK(*best.disaggregation->aggregated_gpus > best.total_gpus());
  CHECK(best.disaggregation->aggregated_per_hour->si() > best.cost.per_hour.si());
  CHECK_THAT(best.disaggregation->why, Catch::Contains("stall for the prefills of 8192-token"));
  // Never called calibrated: the band is the disaggregated runs' error.
  REQUIRE(best.calibration);
  CHECK_FALSE(best.calibration->measured);
  CHECK_THAT(best.calibration->text, Catch::Contains("disaggregated prefill/decode"));
  // Held at the band's slow edge, the TPOT target holds.
  REQUIRE(best.inference_bands);
  CHECK(best.inference_bands->tpot.high <= 0.040 * (1 + 1e-9));

  // Without disaggregation, the same GPU needs more.
  const Plan aggregated = plan_of(spec, false);
  const Candidate* same = on(aggregated, best.gpu->name);
  REQUIRE(same != nullptr);
  CHECK_FALSE(same->disaggregation);
  CHECK(same->total_gpus() == *best.disaggregation->aggregated_gpus);
  for (const Candidate& c : aggregated.candidates) {
    CHECK_FALSE(c.disaggregation);
  }
}

TEST_CASE("disaggregated plan: short-prompt chat does not prefer it", "[plan][disaggregation]") {
  for (const char* name : {"llama-3.1-8b-chat.json", "llama-3.1-70b-sla.json"}) {
    INFO(name);
    const Plan plan = plan_of(example(name));
    REQUIRE(plan.feasible());
    for (const Candidate& c : plan.candidates) {
      CHECK_FALSE(c.disaggregation);
    }
  }
}

TEST_CASE("disaggregated plan: check re-evaluates the configuration as plan costed it",
          "[plan][disaggregation]") {
  const Spec spec = example("deepseek-v3-long-prompts.json");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& best = plan.candidates.front();
  REQUIRE(best.disaggregation);
  ConfigurationRef ref;
  ref.gpu = best.gpu->name;
  ref.layout = best.layout;
  ref.replicas = best.replicas;
  ref.weights = best.spec->precision.weights;
  ref.kv_cache = best.spec->precision.kv_cache;
  ref.disaggregated = true;
  ref.prefill_replicas = best.disaggregation->pools.layout.prefill.replicas;
  const ConfigurationEvaluation e = evaluate_configuration(
      spec, catalog(), constants(), efficiency(), rightsize::test::cli_plan_options(k_today), ref);
  INFO(e.problem);
  CHECK(e.problem.empty());
  REQUIRE(e.candidate);
  REQUIRE(e.candidate->disaggregation);
  CHECK(e.candidate->inference->tpot.si() == Approx(best.inference->tpot.si()));
  CHECK(e.candidate->inference->ttft.si() == Approx(best.inference->ttft.si()));
  CHECK(e.candidate->cost.tco.si() == Approx(best.cost.tco.si()));
  // Too few decode replicas for the load: the pool is full, and check says so.
  ref.replicas = ref.prefill_replicas + 1;
  const ConfigurationEvaluation small = evaluate_configuration(
      spec, catalog(), constants(), efficiency(), rightsize::test::cli_plan_options(k_today), ref);
  CHECK_FALSE(small.problem.empty());
}

TEST_CASE("disaggregated plan: MIG slices are never split into prefill and decode pools",
          "[plan][disaggregation]") {
  // On-prem, every MIG profile is a candidate of its own (docs/plan.md, "MIG slices as
  // candidates"). Llama-3.1-8B with 8K-token prompts, 256 in flight: before 2026-12-07 slices of
  // an RTX PRO 6000, a GH200 and an H200 were planned as 26 to 41 prefill replicas, each prompt's
  // KV cache sent between MIG instances.
  const Spec spec = parse_spec({{"model", rightsize::test::config_path("llama-3.1-8b")},
                                {"workload",
                                 {{"type", "inference"},
                                  {"engine", "sglang"},
                                  {"input_tokens", 8192},
                                  {"output_tokens", 256},
                                  {"concurrency", 256},
                                  {"targets", {{"tpot_ms", 60}}}}},
                                {"deployment", {{"mode", "onprem"}}}},
                               "mig-long.json");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  int slices = 0;
  for (const Candidate& c : plan.candidates) {
    CAPTURE(c.gpu->name, c.partition);
    slices += c.partition.empty() ? 0 : 1;
    CHECK_FALSE((!c.partition.empty() && c.disaggregation != nullptr));
  }
  CHECK(slices >= 5); // slices are planned, aggregated
  CHECK(std::any_of(plan.candidates.begin(), plan.candidates.end(), [](const Candidate& c) {
    return c.partition.empty() && c.disaggregation != nullptr; // whole GPUs still split
  }));
}
