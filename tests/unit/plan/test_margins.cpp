// Margins: bands on every prediction, targets held at the band's pessimistic edge, and replicas
// sized by Little's law. docs/plan.md, "Margins".

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

nlohmann::json chat(double rps, double ttft_ms, double tpot_ms) {
  return {{"schema_version", 1},
          {"name", "chat"},
          {"model", config_path("llama-3.1-8b")},
          {"precision", {{"weights", "bf16"}, {"kv_cache", "fp8"}, {"allow", {"fp8"}}}},
          {"workload",
           {{"type", "inference"},
            {"input_tokens", 2048},
            {"output_tokens", 512},
            {"concurrency", 32},
            {"targets", {{"requests_per_s", rps}, {"ttft_ms", ttft_ms}, {"tpot_ms", tpot_ms}}}}},
          {"deployment", {{"mode", "cloud"}, {"horizon_months", 12}}}};
}

Plan plan_for(const nlohmann::json& body, Confidence confidence = Confidence::band) {
  const Spec spec = parse_spec(body, "chat.json");
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  o.confidence = confidence;
  return make_plan(spec, catalog(), constants(), efficiency(), o);
}

} // namespace

TEST_CASE("margins: every prediction of a plan carries a band around its point",
          "[plan][margins]") {
  const Plan p = plan_for(chat(2, 1500, 50));
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    INFO(c.gpu->name);
    REQUIRE(c.inference_bands);
    REQUIRE(c.memory_band);
    const auto& b = *c.inference_bands;
    CHECK(b.tpot.low <= c.inference->tpot.si());
    CHECK(b.tpot.high >= c.inference->tpot.si());
    CHECK(b.ttft.low <= c.inference->ttft.si());
    CHECK(b.ttft.high > c.inference->ttft.si());
    CHECK(b.output_tokens_per_s.low < c.inference->output_tokens_per_s);
    CHECK(c.memory_band->low <= c.memory.per_gpu.total().si());
    CHECK(c.memory_band->high >= c.memory.per_gpu.total().si());
  }
}

TEST_CASE("margins: each candidate's bands and calibration are its GPU family's, MIG slices too",
          "[plan][margins]") {
  // A plan works out what the uncertainty data says of a family once, at its first candidate:
  // every candidate, of every family and slice, must carry what Uncertainty says of its own.
  nlohmann::json body = chat(2, 1500, 50);
  body["deployment"]["mode"] = "onprem"; // slices are candidates too
  const Plan p = plan_for(body);
  REQUIRE(p.candidates.size() > 5);
  int slices = 0;
  for (const auto& c : p.candidates) {
    INFO(c.gpu->name << " " << c.partition);
    slices += c.partition.empty() ? 0 : 1;
    const std::string engine = engine_name(*c.spec);
    const InferenceBands expected =
        inference_bands(*c.inference, uncertainty(), efficiency().family_name(*c.gpu), engine);
    REQUIRE(c.inference_bands);
    CHECK(c.inference_bands->ttft_ratio.basis == expected.ttft_ratio.basis);
    CHECK(c.inference_bands->tpot_ratio.basis == expected.tpot_ratio.basis);
    CHECK(c.inference_bands->ttft.low == expected.ttft.low);
    CHECK(c.inference_bands->tpot.high == expected.tpot.high);
    CHECK(c.inference_bands->output_tokens_per_s.low == expected.output_tokens_per_s.low);
    const Calibration calibration = uncertainty().calibration(
        efficiency().family_name(*c.gpu), engine, false, unmeasured_workload(*c.spec));
    REQUIRE(c.calibration);
    CHECK(c.calibration->text == calibration.text);
    CHECK(c.calibration->measured == calibration.measured);
    REQUIRE(c.memory_band);
    CHECK(c.memory_band->high == memory_band(c.memory.per_gpu.total(), uncertainty()).high);
  }
  CHECK(slices > 0);
}

TEST_CASE("margins: targets hold at the pessimistic edge of the band by default",
          "[plan][margins]") {
  // Defect: 8B chat at 50 req/s, TTFT 1 s, TPOT 50 ms: every row "tight", TPOT 49.8 ms, "within 0%
  // of a latency target", with measured TPOT errors of 20-30%.
  const Plan p = plan_for(chat(50, 1000, 50));
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    INFO(c.gpu->name << " " << c.verdict_reason);
    CHECK(c.inference_bands->tpot.high <= 0.050 * (1 + 1e-9));
    CHECK(c.inference_bands->ttft.high <= 1.000 * (1 + 1e-9));
    CHECK(c.inference_bands->requests_per_s.low >= 50.0 * (1 - 1e-9));
    CHECK_THAT(c.verdict_reason, !Catch::Contains("within 0%"));
  }
}

TEST_CASE("margins: --confidence point sizes at the estimate, with fewer or equal GPUs",
          "[plan][margins]") {
  const Plan band = plan_for(chat(50, 1000, 50));
  const Plan point = plan_for(chat(50, 1000, 50), Confidence::point);
  REQUIRE(band.feasible());
  REQUIRE(point.feasible());
  CHECK(point.candidates.front().cost.tco <= band.candidates.front().cost.tco);
  bool some_miss_at_edge = false;
  for (const auto& c : point.candidates) {
    CHECK(c.inference->tpot.si() <= 0.050 * (1 + 1e-9));
    some_miss_at_edge = some_miss_at_edge || c.inference_bands->tpot.high > 0.050 ||
                        c.inference_bands->ttft.high > 1.0;
    if (c.inference_bands->tpot.high > 0.050 || c.inference_bands->ttft.high > 1.0) {
      CHECK(c.verdict == "tight");
    }
  }
  CHECK(some_miss_at_edge);
}

TEST_CASE("margins: a request rate beyond the concurrency is served by Little's law, not one "
          "request per replica",
          "[plan][margins]") {
  // Defect: 50 req/s with 32 concurrent requests planned 371 x L40S, each replica decoding one
  // request ($319/h), where a few dozen batched replicas serve the same rate.
  const Plan p = plan_for(chat(50, 1000, 50));
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    INFO(c.gpu->name);
    CHECK(c.inference->concurrency > 1);
    // Little's law: 50 req/s, each in flight for TTFT + 511 x TPOT (at the band's slow edge, as
    // the plan holds them), is 50 x W requests in flight; at `concurrency` per replica that is
    // 50 W / concurrency replicas. One request per replica would need ~concurrency times more.
    const auto& b = *c.inference_bands;
    const double in_flight = 50.0 * (b.ttft.high + 511.0 * b.tpot.high);
    const double littles = in_flight / static_cast<double>(c.inference->concurrency);
    CHECK(c.replicas <= std::ceil(1.5 * littles) + 1);
  }
}
