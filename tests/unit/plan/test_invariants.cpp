// The invariant pass: a figure that makes no sense is a bug (InternalError, exit 4), never output.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
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

Plan plan_for(double rps) {
  const nlohmann::json body{
      {"schema_version", 1},
      {"name", "chat"},
      {"model", config_path("llama-3.1-8b")},
      {"workload",
       {{"type", "inference"},
        {"input_tokens", 2048},
        {"output_tokens", 512},
        {"concurrency", 32},
        {"targets", {{"requests_per_s", rps}}}}},
      {"deployment", {{"mode", "cloud"}, {"horizon_months", 24}, {"growth_per_month", 0.5}}}};
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  return make_plan(parse_spec(body, "chat.json"), catalog(), constants(), efficiency(), o);
}

} // namespace

TEST_CASE("invariants: a sound plan passes, and absurd demand ends in rejections, not wrapped "
          "numbers",
          "[plan][invariants]") {
  // Defect: requests_per_s 1e9 printed "recommended: -2147483648 x A10G-24GB" at
  // $-2,147,483,648/h.
  const Plan huge = plan_for(1e9);
  CHECK_FALSE(huge.feasible());
  for (const auto& r : huge.rejected) {
    CHECK(r.reason.find('-') == std::string::npos);
  }
  const Plan p = plan_for(2);
  REQUIRE(p.feasible());
  CHECK_NOTHROW(check_invariants(p));
  for (const auto& c : p.candidates) {
    CHECK(c.cost.tco.si() > 0);
    CHECK(c.total_gpus() >= 1);
  }
}

TEST_CASE("invariants: negative, inconsistent or band-less figures are caught",
          "[plan][invariants]") {
  const Plan good = plan_for(2);
  REQUIRE(good.feasible());
  SECTION("a negative TCO") {
    Plan p = good;
    p.candidates.front().cost.tco = Usd(-6139282608480.0);
    REQUIRE_THROWS_AS(check_invariants(p), InternalError);
    REQUIRE_THROWS_WITH(check_invariants(p), Catch::Contains("cost.tco"));
  }
  SECTION("a TCO that is not the sum of its months") {
    Plan p = good;
    p.candidates.front().cost.tco += Usd(1000.0);
    REQUIRE_THROWS_WITH(check_invariants(p), Catch::Contains("months add up"));
  }
  SECTION("a negative replica count") {
    Plan p = good;
    p.candidates.front().replicas = -2147483647;
    REQUIRE_THROWS_AS(check_invariants(p), InternalError);
  }
  SECTION("a NaN latency") {
    Plan p = good;
    p.candidates.front().inference->tpot = seconds(std::nan(""));
    REQUIRE_THROWS_WITH(check_invariants(p), Catch::Contains("inference.tpot"));
  }
  SECTION("a candidate without the spec it was evaluated on") {
    Plan p = good;
    p.candidates.front().spec.reset();
    REQUIRE_THROWS_WITH(check_invariants(p), Catch::Contains("spec is missing"));
  }
  SECTION("a band that does not contain its point") {
    Plan p = good;
    p.candidates.front().inference_bands->ttft.high = 0.0;
    REQUIRE_THROWS_WITH(check_invariants(p), Catch::Contains("inference.bands.ttft"));
  }
}

TEST_CASE("invariants: a growth that is probably a percentage gets a note saying what was meant",
          "[plan][invariants]") {
  const nlohmann::json body{
      {"schema_version", 1},
      {"name", "chat"},
      {"model", config_path("llama-3.1-8b")},
      {"workload",
       {{"type", "inference"},
        {"input_tokens", 2048},
        {"output_tokens", 512},
        {"concurrency", 32},
        {"targets", {{"requests_per_s", 2}}}}},
      {"deployment", {{"mode", "cloud"}, {"horizon_months", 12}, {"growth_per_month", 1.5}}}};
  PlanOptions o;
  o.today = "2026-11-21";
  const Plan p = make_plan(parse_spec(body, "chat.json"), catalog(), constants(), efficiency(), o);
  REQUIRE(p.notes.size() >= 1);
  CHECK_THAT(p.notes.front(),
             Catch::Contains("+150% a month") && Catch::Contains("did you mean 0.015"));
  CHECK_NOTHROW(check_invariants(p));
}
