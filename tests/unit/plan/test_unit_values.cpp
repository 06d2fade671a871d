// The values behind a workload's units (plan/unit_values.hpp): which figure of a serving estimate
// each rate and token rate is, which cost field holds each price basis, and that make_plan holds
// the description of its spec. Hand-set figures, each distinct so a wrong field shows.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/unit_values.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

InferencePerformance figures() {
  InferencePerformance p;
  p.output_tokens_per_s = 1000;
  p.requests_per_s = 20;
  p.audio_seconds_per_s = 600;
  p.prefill_tokens_per_s = 5000;
  return p;
}

CostBreakdown priced() {
  CostBreakdown c;
  c.usd_per_million_tokens = 1.5;
  c.usd_per_million_at_full_load = 1.0;
  c.usd_per_thousand_images = 0.4;
  c.usd_per_thousand_images_full_load = 0.3;
  c.usd_per_audio_hour = 0.02;
  c.usd_per_audio_hour_at_full_load = 0.01;
  return c;
}

} // namespace

TEST_CASE("unit values: each rate is its figure of the estimate", "[plan][units]") {
  const InferencePerformance p = figures();
  CHECK(rate_of(p, RateUnit::output_tokens) == 1000);
  // One sequence, one image a request.
  CHECK(rate_of(p, RateUnit::sequences) == 20);
  CHECK(rate_of(p, RateUnit::images) == 20);
  CHECK(rate_of(p, RateUnit::audio_seconds) == 600);
  CHECK(rate_of(p, RateUnit::none) == 0);
}

TEST_CASE("unit values: the tokens reports show are output or prefill tokens", "[plan][units]") {
  const InferencePerformance p = figures();
  CHECK(tokens_of(p, TokenRate::output) == 1000);
  CHECK(tokens_of(p, TokenRate::input) == 5000);
  CHECK(tokens_of(p, TokenRate::latent) == 5000);
  CHECK(tokens_of(p, TokenRate::none) == 0);
}

TEST_CASE("unit values: each price basis is its cost field, at the planned load or full",
          "[plan][units]") {
  const CostBreakdown c = priced();
  for (const auto basis : {PriceBasis::per_million_output_tokens,
                           PriceBasis::per_million_input_tokens,
                           PriceBasis::per_million_trained_tokens}) {
    CHECK(price_of(c, basis) == 1.5);
    CHECK(price_of(c, basis, true) == 1.0);
  }
  CHECK(price_of(c, PriceBasis::per_thousand_images) == 0.4);
  CHECK(price_of(c, PriceBasis::per_thousand_images, true) == 0.3);
  CHECK(price_of(c, PriceBasis::per_audio_hour) == 0.02);
  CHECK(price_of(c, PriceBasis::per_audio_hour, true) == 0.01);
  CHECK_FALSE(price_of(CostBreakdown{}, PriceBasis::per_audio_hour).has_value());

  EstimateCost e;
  e.usd_per_million_tokens = 2.0;
  e.usd_per_thousand_images = 0.5;
  e.usd_per_audio_hour = 0.03;
  CHECK(price_of(e, PriceBasis::per_million_input_tokens) == 2.0);
  CHECK(price_of(e, PriceBasis::per_thousand_images) == 0.5);
  CHECK(price_of(e, PriceBasis::per_audio_hour) == 0.03);
}

TEST_CASE("unit values: a transcription's rate band is the windows' band in audio seconds",
          "[plan][units]") {
  const Spec whisper =
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/whisper-large-v3-transcription.json");
  const double per_window = whisper.workload.inference.transcription->audio_per_window();
  InferenceBands b;
  b.requests_per_s = Band{2, 4};
  b.output_tokens_per_s = Band{100, 200};
  const Band audio = rate_band_of(b, whisper, RateUnit::audio_seconds);
  CHECK(audio.low == Approx(2 * per_window));
  CHECK(audio.high == Approx(4 * per_window));
  CHECK(rate_band_of(b, whisper, RateUnit::output_tokens).low == 100);
  CHECK(rate_band_of(b, whisper, RateUnit::images).high == 4);
}

TEST_CASE("unit values: a plan holds its spec's description", "[plan][units]") {
  PlanOptions o;
  o.today = "2026-11-21";
  const Spec whisper =
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/whisper-large-v3-transcription.json");
  const Plan plan = make_plan(whisper, catalog(), constants(), efficiency(), o);
  CHECK(plan.units.kind == WorkloadKind::transcription);
  CHECK(plan.units.price == PriceBasis::per_audio_hour);
  REQUIRE_FALSE(plan.candidates.empty());
  const Candidate& best = plan.candidates.front();
  // The rate and price the table shows are the candidate's audio figures.
  CHECK(rate_of(*best.inference, plan.units.rate) == best.inference->audio_seconds_per_s);
  CHECK(price_of(best.cost, plan.units.price) == best.cost.usd_per_audio_hour);
}

TEST_CASE("prices: $ per million tokens is at the load the spec asks for, not all a fleet serves",
          "[plan][cost]") {
  // Issue 43, defect 7: BGE-M3 asks 2,000 sequences/s of 512 tokens; a fleet of L40S sized for
  // the 200 ms latency serves 5,652, and its $/MTOK was $0.000825 at those, a third of the
  // $0.00233 that the 2,000 asked cost.
  const Spec spec = load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/bge-m3-rag-embeddings.json");
  const Plan plan = make_plan(
      spec, catalog(), constants(), efficiency(), rightsize::test::cli_plan_options("2026-11-21"));
  REQUIRE(plan.feasible());
  for (const Candidate& c : plan.candidates) {
    CAPTURE(c.gpu->name);
    REQUIRE(c.cost.usd_per_million_tokens);
    CHECK(c.inference->requests_per_s >= 2000.0);
    // 2,000 x 512 tokens a second, 3,686.4 million an hour.
    CHECK(*c.cost.usd_per_million_tokens == Approx(c.cost.per_hour.si() / 3686.4));
    CHECK(share_at_target(*c.inference, spec) == Approx(2000.0 / c.inference->requests_per_s));
  }
}
