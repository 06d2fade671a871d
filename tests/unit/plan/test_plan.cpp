#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Plan plan_for(nlohmann::json body, Objective objective = Objective::tco) {
  body["model"] = config_path(body["model"].get<std::string>());
  const Spec spec = parse_spec(body, "plan.json");
  PlanOptions o;
  o.today = "2026-11-21";
  o.objective = objective;
  return make_plan(spec, catalog(), constants(), efficiency(), o);
}

const Candidate* find(const Plan& p, const std::string& gpu) {
  for (const auto& c : p.candidates) {
    if (c.gpu->name == gpu) {
      return &c;
    }
  }
  return nullptr;
}

const Rejection* rejected(const Plan& p, const std::string& gpu) {
  for (const auto& r : p.rejected) {
    if (r.gpu == gpu) {
      return &r;
    }
  }
  return nullptr;
}

const nlohmann::json k_chat{{"model", "llama-3.1-8b"},
                            {"workload",
                             {{"type", "inference"},
                              {"input_tokens", 2048},
                              {"output_tokens", 512},
                              {"concurrency", 16},
                              {"targets", {{"tpot_ms", 60}}}}},
                            {"deployment", {{"horizon_months", 12}}}};

} // namespace

TEST_CASE("plan: cloud cost is price x GPUs x hours", "[plan]") {
  const Plan p = plan_for(k_chat);
  REQUIRE(p.feasible());
  const Candidate* h100 = find(p, "H100-SXM-80GB");
  REQUIRE(h100 != nullptr);
  // The cheapest on-demand H100 in the catalog is Nebius at $2.95/h; 730 h/month, 12 months,
  // no growth: 2.95 x GPUs x 730 x 12.
  CHECK(h100->cost.per_hour.si() == Approx(2.95 * h100->total_gpus()));
  CHECK(h100->cost.tco.si() == Approx(2.95 * h100->total_gpus() * 730 * 12));
  CHECK(h100->cost.months.size() == 12);
  // $ per million output tokens at the planned load.
  CHECK(*h100->cost.usd_per_million_tokens ==
        Approx(h100->cost.per_hour.si() / (h100->inference->output_tokens_per_s * 3600) * 1e6));
  // Ranked by TCO, best first, ranks 1..n.
  for (std::size_t i = 1; i < p.candidates.size(); ++i) {
    CHECK(p.candidates[i - 1].cost.tco <= p.candidates[i].cost.tco);
    CHECK(p.candidates[i].rank == static_cast<int>(i + 1));
  }
}

TEST_CASE("plan: an 8B chat model is not sent to an H100 when a smaller card serves it", "[plan]") {
  const Plan p = plan_for(k_chat);
  REQUIRE(p.feasible());
  const auto& best = p.candidates.front();
  CHECK(best.gpu->name != "H100-SXM-80GB");
  CHECK(best.cost.tco < find(p, "H100-SXM-80GB")->cost.tco);
  CHECK(find(p, "H100-SXM-80GB")->verdict == "over-provisioned");
  CHECK(best.verdict != "over-provisioned");
}

TEST_CASE("plan: growth adds cloud replicas and dates when targets stop being met", "[plan]") {
  nlohmann::json spec = k_chat;
  spec["workload"]["targets"]["requests_per_s"] = 1.0;
  spec["deployment"] = {{"horizon_months", 24}, {"growth_per_month", 0.10}};
  const Plan p = plan_for(spec);
  REQUIRE(p.feasible());
  const auto& c = p.candidates.front();
  REQUIRE(c.cost.stops_meeting_targets_month.has_value());
  CHECK(*c.cost.stops_meeting_targets_month > 1);
  CHECK(c.cost.months.back().replicas > c.replicas);
  double sum = 0;
  for (const auto& m : c.cost.months) {
    sum += m.cost.si();
  }
  CHECK(c.cost.tco.si() == Approx(sum));
}

TEST_CASE("plan: on-prem buys for the peak and pays power and operations", "[plan]") {
  nlohmann::json spec = k_chat;
  spec["deployment"] = {{"mode", "onprem"},
                        {"horizon_months", 12},
                        {"pue", 1.5},
                        {"electricity_usd_per_kwh", 0.10},
                        {"utilization", 0.5},
                        {"amortization_years", 3},
                        {"operations_share", 0.1}};
  const Plan p = plan_for(spec);
  REQUIRE(p.feasible());
  const Candidate* h100 = find(p, "H100-SXM-80GB");
  REQUIRE(h100 != nullptr);
  // Bought in whole 8-GPU HGX servers.
  const double gpus = static_cast<double>(h100->cost.gpus_bought);
  CHECK(h100->cost.gpus_bought % 8 == 0);
  CHECK(h100->cost.gpus_bought >= h100->total_gpus());
  const double purchase = (27500.0 + 8000.0) * gpus;
  CHECK(h100->cost.purchase.si() == Approx(purchase));
  // Power: 700 W x utilization 0.5 x PUE 1.5 = 0.525 kW per GPU at $0.10/kWh.
  CHECK(h100->cost.power_per_hour.si() == Approx(0.525 * gpus * 0.10));
  const double monthly = purchase / 36.0 + purchase * 0.1 / 12.0 + 0.525 * gpus * 0.10 * 730.0;
  CHECK(h100->cost.tco.si() == Approx(monthly * 12));
}

TEST_CASE("plan: rejections say why, in structured form", "[plan]") {
  nlohmann::json spec{
      {"model", "llama-3.1-70b"},
      {"workload", {{"type", "inference"}, {"concurrency", 4}, {"targets", {{"tpot_ms", 100}}}}},
      {"constraints", {{"max_gpus", 8}}}};
  const Plan p = plan_for(spec);
  // 70B in bf16 does not fit on 8 T4s (16 would, with two pipeline stages).
  const Rejection* t4 = rejected(p, "T4-16GB");
  REQUIRE(t4 != nullptr);
  CHECK(t4->code == "memory_capacity");
  CHECK_THAT(t4->reason, Catch::Contains("per GPU"));
  CHECK_FALSE(t4->nearest_fix.empty());
  // GPUs without a price are rejected as such, not silently dropped, with the reason none is.
  // (MI355X holds 70B in 288 GB but rents by quote only.)
  const Rejection* mi355x = rejected(p, "MI355X-288GB");
  REQUIRE(mi355x != nullptr);
  CHECK(mi355x->code == "no_price");
  CHECK_THAT(mi355x->reason, Catch::StartsWith("not rentable: "));
  // Every catalog GPU is either a candidate or a rejection.
  CHECK(p.candidates.size() + p.rejected.size() == catalog().gpus.size());
}

TEST_CASE("plan: constraints and objectives", "[plan]") {
  nlohmann::json spec = k_chat;
  spec["constraints"] = {{"gpus", {"L4", "H100"}}};
  const Plan p = plan_for(spec);
  for (const auto& c : p.candidates) {
    CHECK((c.gpu->name == "L4-24GB" || c.gpu->name == "H100-SXM-80GB"));
  }
  CHECK(rejected(p, "A100-SXM-80GB")->code == "constraint");
  const Plan by_gpus = plan_for(k_chat, Objective::gpus);
  for (std::size_t i = 1; i < by_gpus.candidates.size(); ++i) {
    CHECK(by_gpus.candidates[i - 1].total_gpus() <= by_gpus.candidates[i].total_gpus());
  }
  // An impossible latency target: nothing feasible.
  nlohmann::json impossible = k_chat;
  impossible["workload"]["targets"]["tpot_ms"] = 0.1;
  const Plan none = plan_for(impossible);
  CHECK_FALSE(none.feasible());
  CHECK(rejected(none, "H100-SXM-80GB")->code == "latency_target");
}

TEST_CASE("plan: training meets the deadline with the cheapest layout", "[plan]") {
  nlohmann::json spec{{"model", "llama-2-7b"},
                      {"workload",
                       {{"type", "training"},
                        {"seq_len", 4096},
                        {"global_batch", 256},
                        {"tokens", 2e10},
                        {"deadline_hours", 72}}},
                      {"constraints", {{"max_gpus", 256}}}};
  const Plan p = plan_for(spec);
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    REQUIRE(c.training.has_value());
    CHECK(*c.training->meets_deadline);
    CHECK(c.memory.fits);
    CHECK(c.total_gpus() <= 256);
    CHECK(c.cost.tco.si() == Approx(c.cost.per_hour.si() * to_hours(*c.training->time_to_train)));
  }
}
