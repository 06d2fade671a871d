// A plan's speed-cost trade-off and its Pareto front (plan/trade_off.hpp): which time and which
// price place a candidate, and which candidates no other beats on both. Hand-checked numbers in
// the comments.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/trade_off.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::config_path;

namespace {

TradePoint point(double x, double y) {
  TradePoint p;
  p.x = p.x_low = p.x_high = x;
  p.y = p.y_low = p.y_high = y;
  return p;
}

Spec chat_spec(const nlohmann::json& targets) {
  return parse_spec({{"model", config_path("llama-3.1-8b")},
                     {"workload",
                      {{"type", "inference"},
                       {"input_tokens", 2048},
                       {"output_tokens", 512},
                       {"concurrency", 32},
                       {"targets", targets}}}},
                    "chat.json");
}

// A serving candidate: TTFT and TPOT in ms, $ per million output tokens at the planned load (none
// when negative) and at full load.
Candidate serving(int rank, double ttft_ms, double tpot_ms, double at_load, double full) {
  Candidate c;
  c.rank = rank;
  c.inference = InferencePerformance{};
  c.inference->ttft = milliseconds(ttft_ms);
  c.inference->tpot = milliseconds(tpot_ms);
  if (at_load >= 0) {
    c.cost.usd_per_million_tokens = at_load;
  }
  c.cost.usd_per_million_at_full_load = full;
  return c;
}

} // namespace

TEST_CASE("trade-off: the Pareto front is every point cheaper than all faster ones",
          "[plan][trade_off]") {
  // Sorted by time: A (1, $10), B (2, $5), E (2, $8), C (3, $7), D (4, $1). A is the fastest; B
  // is cheaper than A; E and C are dearer than B, which is as fast or faster; D is the cheapest.
  std::vector<TradePoint> points = {
      point(1, 10), point(2, 5), point(3, 7), point(4, 1), point(2, 8)};
  const auto front = mark_pareto_front(points);
  CHECK(front == std::vector<std::size_t>{0, 1, 3}); // A, B, D: fastest first
  CHECK(points[0].front);
  CHECK(points[1].front);
  CHECK_FALSE(points[2].front);
  CHECK(points[3].front);
  CHECK_FALSE(points[4].front);
  // A point as fast and as dear as one on the front is not on it; nothing makes no front.
  std::vector<TradePoint> twins = {point(1, 3), point(1, 3)};
  CHECK(mark_pareto_front(twins).size() == 1);
  std::vector<TradePoint> none;
  CHECK(mark_pareto_front(none).empty());
}

TEST_CASE("trade-off: serving is TPOT against $ per million output tokens", "[plan][trade_off]") {
  Plan plan;
  plan.spec = chat_spec({{"ttft_ms", 500}, {"tpot_ms", 50}});
  plan.units = workload_units(plan.spec);
  plan.candidates = {
      serving(1, 300, 30, 2.0, 1.5), serving(2, 200, 20, 3.0, 2.5), serving(3, 400, 40, 4.0, 3.0)};
  InferenceBands b;
  b.tpot = Band{0.025, 0.045};
  plan.candidates[0].inference_bands = b;
  const TradeOff t = trade_off(plan);
  CHECK(t.time == TradeTime::tpot);
  CHECK(t.price == TradePrice::unit);
  CHECK(t.basis == PriceBasis::per_million_output_tokens);
  CHECK_FALSE(t.full_load);
  CHECK(t.target == TradeTarget::tpot);
  CHECK(t.target_time.si() == Approx(0.05));
  REQUIRE(t.points.size() == 3);
  CHECK(t.points[0].candidate == &plan.candidates[0]);
  CHECK(t.points[0].x == Approx(0.03));
  CHECK(t.points[0].x_low == Approx(0.025)); // the band
  CHECK(t.points[0].x_high == Approx(0.045));
  CHECK(t.points[1].x_low == t.points[1].x); // no band: the point
  CHECK(t.points[0].y == 2.0);
  // #2 is the fastest, #1 cheaper; #3 is slower and dearer than #1.
  CHECK(t.front == std::vector<std::size_t>{1, 0});
  CHECK_FALSE(t.points[2].front);
}

TEST_CASE("trade-off: a TTFT target alone places serving by TTFT", "[plan][trade_off]") {
  Plan plan;
  plan.spec = chat_spec({{"ttft_ms", 500}});
  plan.units = workload_units(plan.spec);
  plan.candidates = {serving(1, 300, 30, 2.0, 1.5)};
  const TradeOff t = trade_off(plan);
  CHECK(t.time == TradeTime::ttft);
  CHECK(t.target == TradeTarget::ttft);
  CHECK(t.target_time.si() == Approx(0.5));
  REQUIRE(t.points.size() == 1);
  CHECK(t.points[0].x == Approx(0.3));
}

TEST_CASE("trade-off: without a price at the planned load for every candidate, full load",
          "[plan][trade_off]") {
  Plan plan;
  plan.spec = chat_spec({{"tpot_ms", 50}});
  plan.units = workload_units(plan.spec);
  plan.candidates = {serving(1, 300, 30, 2.0, 1.5), serving(2, 200, 20, -1, 2.5)};
  const TradeOff t = trade_off(plan);
  CHECK(t.full_load);
  REQUIRE(t.points.size() == 2);
  CHECK(t.points[0].y == 1.5);
  CHECK(t.points[1].y == 2.5);
}

TEST_CASE("trade-off: an embedding is its latency against $ per million input tokens",
          "[plan][trade_off]") {
  Plan plan;
  plan.spec = parse_spec({{"model", config_path("encoder/bge-m3")},
                          {"workload", {{"type", "embedding"}, {"concurrency", 8}}}},
                         "embed.json");
  plan.units = workload_units(plan.spec);
  plan.candidates = {serving(1, 20, 0, 0.01, 0.008)};
  const TradeOff t = trade_off(plan);
  CHECK(t.time == TradeTime::latency);
  CHECK(t.price == TradePrice::unit);
  CHECK(t.basis == PriceBasis::per_million_input_tokens);
  CHECK(t.target == TradeTarget::none);
  REQUIRE(t.points.size() == 1);
  CHECK(t.points[0].x == Approx(0.02));
}

TEST_CASE("trade-off: training is the time to train against the run's cost", "[plan][trade_off]") {
  Plan plan;
  plan.spec = parse_spec({{"model", config_path("llama-2-7b")},
                          {"workload",
                           {{"type", "finetune"},
                            {"method", "lora"},
                            {"seq_len", 2048},
                            {"global_batch", 64},
                            {"tokens", 1e8},
                            {"deadline_hours", 8}}}},
                         "train.json");
  plan.units = workload_units(plan.spec);
  Candidate c;
  c.training = TrainingPerformance{};
  c.training->step = seconds(2);
  c.training->time_to_train = hours(2);
  TrainingBands b;
  b.time_to_train = Band{6000, 9000};
  c.training_bands = b;
  c.cost.per_hour = usd_per_hour(10);
  plan.candidates = {c};
  SECTION("with a time to train") {
    const TradeOff t = trade_off(plan);
    CHECK(t.time == TradeTime::time_to_train);
    CHECK(t.price == TradePrice::run);
    CHECK(t.target == TradeTarget::deadline);
    CHECK(t.target_time.si() == Approx(8 * 3600));
    REQUIRE(t.points.size() == 1);
    // $10/h for 2 h: $20; the band 6,000-9,000 s costs $16.67-$25.
    CHECK(t.points[0].x == Approx(7200));
    CHECK(t.points[0].y == Approx(20));
    CHECK(t.points[0].y_low == Approx(16.6666667));
    CHECK(t.points[0].y_high == Approx(25));
    CHECK(t.front == std::vector<std::size_t>{0});
  }
  SECTION("without one: the step time against the price per hour") {
    plan.candidates[0].training->time_to_train.reset();
    const TradeOff t = trade_off(plan);
    CHECK(t.time == TradeTime::step_time);
    CHECK(t.price == TradePrice::per_hour);
    CHECK(t.target == TradeTarget::none);
    REQUIRE(t.points.size() == 1);
    CHECK(t.points[0].x == Approx(2));
    CHECK(t.points[0].y == Approx(10));
  }
}

TEST_CASE("trade-off: a plan's front is exactly its undominated candidates", "[plan][trade_off]") {
  const Spec spec = chat_spec({{"tpot_ms", 50}});
  const Plan plan = make_plan(spec,
                              test::catalog(),
                              test::constants(),
                              test::efficiency(),
                              test::cli_plan_options("2026-11-21"));
  const TradeOff t = trade_off(plan);
  REQUIRE(t.points.size() == plan.candidates.size());
  REQUIRE(t.points.size() >= 3);
  std::size_t on_front = 0;
  for (const auto& p : t.points) {
    bool dominated = false;
    for (const auto& q : t.points) {
      dominated = dominated || (q.x <= p.x && q.y <= p.y && (q.x < p.x || q.y < p.y));
    }
    CHECK(p.front == !dominated);
    on_front += p.front ? 1 : 0;
  }
  CHECK(t.front.size() == on_front);
}
