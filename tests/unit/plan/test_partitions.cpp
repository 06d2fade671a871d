// MIG slices as candidates: scaled per profile, priced at their share of the GPU where the GPU is
// shared (on-prem, or --share-gpus), never ranked as if a cloud rented slices.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/invariants.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

// A 3B model at a trickle of requests: a whole GPU is far more than it needs.
Plan tiny(bool share, const std::string& mode = "cloud", int gpus_per_server = 0) {
  const nlohmann::json body{
      {"schema_version", 1},
      {"name", "tiny"},
      {"model", config_path("llama-3.2-3b")},
      {"workload",
       {{"type", "inference"},
        {"input_tokens", 512},
        {"output_tokens", 128},
        {"concurrency", 1},
        {"targets", {{"ttft_ms", 2000}, {"tpot_ms", 100}, {"requests_per_s", 0.05}}}}},
      {"deployment", {{"mode", mode}, {"horizon_months", 12}}}};
  nlohmann::json spec = body;
  if (gpus_per_server > 0) {
    spec["deployment"]["gpus_per_server"] = gpus_per_server;
  }
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  o.share_gpus = share;
  return make_plan(parse_spec(spec, "tiny.json"), catalog(), constants(), efficiency(), o);
}

} // namespace

TEST_CASE("partitions: cloud plans rank whole GPUs unless the GPU is shared", "[plan][mig]") {
  const Plan whole = tiny(false);
  REQUIRE(whole.feasible());
  for (const auto& c : whole.candidates) {
    CHECK(c.partition.empty());
  }
  // Defect: MIG slices, already in the catalog, were never candidates.
  const Plan shared = tiny(true);
  REQUIRE(shared.feasible());
  const Candidate& best = shared.candidates.front();
  REQUIRE_FALSE(best.partition.empty());
  REQUIRE(best.whole_gpu != nullptr);
  REQUIRE(best.whole_gpu->mig);
  CHECK(best.cost.tco < whole.candidates.front().cost.tco);
  CHECK_NOTHROW(check_invariants(shared));
}

TEST_CASE("partitions: a slice has its profile's share of compute, memory, bandwidth and price",
          "[plan][mig]") {
  const Plan shared = tiny(true);
  const Candidate* slice = nullptr;
  for (const auto& c : shared.candidates) {
    if (c.partition == "1g.10gb" && c.whole_gpu->name == "H100-SXM-80GB") {
      slice = &c;
    }
  }
  REQUIRE(slice != nullptr);
  const Gpu& g = *slice->whole_gpu;
  // 1g.10gb of an H100 80GB: 1 of 7 compute slices, 10 of 80 GB (NVIDIA MIG user guide).
  CHECK(slice->gpu->memory.si() == Approx(g.memory.si() * 10.0 / 80.0));
  CHECK(slice->gpu->memory_bandwidth.si() == Approx(g.memory_bandwidth.si() * 10.0 / 80.0));
  CHECK(slice->gpu->rate(TensorPrecision::bf16)->si() ==
        Approx(g.rate(TensorPrecision::bf16)->si() / 7.0));
  // Priced at the larger share: max(1/7, 1/8) = 1/7 of the GPU's price.
  const double gpu_price = slice->cost.per_hour.si() * 7.0 / slice->total_gpus();
  bool matches_a_price = false;
  for (const auto& p : g.prices) {
    matches_a_price = matches_a_price || std::abs(p.per_gpu.si() - gpu_price) < 1e-9;
  }
  CHECK(matches_a_price);
}

TEST_CASE("partitions: on-prem ranks slices, bought in whole servers", "[plan][mig]") {
  const Plan p = tiny(false, "onprem");
  REQUIRE(p.feasible());
  bool any_slice = false;
  for (const auto& c : p.candidates) {
    any_slice = any_slice || !c.partition.empty();
    CHECK(c.cost.gpus_bought >= c.total_gpus());
  }
  CHECK(any_slice);
  CHECK_NOTHROW(check_invariants(p));
}

TEST_CASE("partitions: deployment.gpus_per_server counts GPUs, each holding its slices",
          "[plan][mig]") {
  // A server of 2 GPUs holds 14 1g.10gb slices of an H100, not 2.
  const Plan p = tiny(false, "onprem", 2);
  for (const auto& c : p.candidates) {
    if (c.partition == "1g.10gb" && c.whole_gpu->name == "H100-SXM-80GB") {
      CHECK(c.cost.gpus_per_server == 14);
      return;
    }
  }
  FAIL("no 1g.10gb slice of H100-SXM-80GB among the candidates");
}

// Seen in an audit: Whisper's on-prem plan ranked a GH200 4g.72gb slice first. A GH200 holds
// one such slice, so it paid for the whole GPU, yet its power was its 4/7 compute share of the
// TDP: $410 cheaper than the whole GH200 with a third less throughput.
TEST_CASE("partitions: owned, a slice draws the share of the TDP it pays for; a GPU's only slice "
          "is no candidate",
          "[plan][mig]") {
  const Spec whisper =
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/whisper-large-v3-transcription.json");
  Spec onprem = whisper;
  onprem.deployment.mode = DeploymentMode::onprem;
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  const Plan p = make_plan(onprem, catalog(), constants(), efficiency(), o);
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    if (c.partition.empty()) {
      continue;
    }
    REQUIRE(c.gpu->purchase);
    const int units = c.gpu->purchase->units_per_gpu;
    CHECK(units > 1);
    REQUIRE(c.gpu->purchase->unit_tdp);
    CHECK(c.gpu->purchase->unit_tdp->si() == Approx(c.whole_gpu->tdp.si() / units));
  }
  const Candidate& best = p.candidates.front();
  INFO(best.gpu->name);
  CHECK(best.partition != "4g.72gb");
}
