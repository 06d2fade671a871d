// On-prem cost: whole servers bought for the horizon's peak, capex, operations and power as
// separate fields, and a basis line that names the same counts (issue 12, item 7).

#include "fixtures.hpp"
#include "plan/search.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

const nlohmann::json k_onprem{{"mode", "onprem"}, {"horizon_months", 12}};

Spec spec_with(const nlohmann::json& deployment) {
  const nlohmann::json body{{"model", config_path("llama-3.1-8b")},
                            {"workload", {{"type", "inference"}, {"concurrency", 8}}},
                            {"deployment", deployment}};
  return parse_spec(body, "spec.json");
}

// Costs `replicas` replicas of `tp` GPUs of `gpu` the way the search does, with replicas that
// grow in proportion to demand (the planned replicas exactly meet the targets each month).
Candidate costed(const std::string& gpu,
                 int tp,
                 long long replicas,
                 const nlohmann::json& deployment = k_onprem) {
  const Spec spec = spec_with(deployment);
  PlanOptions options;
  options.today = "2026-11-21";
  const detail::Search search{spec, catalog(), constants(), efficiency(), options};
  Candidate c;
  c.gpu = catalog().find(gpu);
  REQUIRE(c.gpu != nullptr);
  c.layout.tp = tp;
  c.replicas = static_cast<int>(replicas);
  detail::GrowthSeries growth;
  for (const double demand : detail::demand_curve(search)) {
    growth.replicas.push_back(std::max<long long>(
        replicas,
        static_cast<long long>(std::ceil(static_cast<double>(replicas) * demand - 1e-9))));
  }
  std::string why;
  REQUIRE(detail::cost_inference(search, c, growth, why));
  return c;
}

// The monthly figures of docs/plan.md, by hand, for `bought` GPUs of `gpu` at the defaults
// (4-year amortization, 15% operations a year, 70% utilization, PUE 1.3, $0.12/kWh, 730 h).
struct Expected {
  double purchase, amortization, operations, power_per_hour, power_per_month, per_hour;
};
Expected by_hand(double gpu_usd, double share_usd, double tdp_w, double bought) {
  Expected e{};
  e.purchase = bought * (gpu_usd + share_usd);
  e.amortization = e.purchase / 48.0;
  e.operations = e.purchase * 0.15 / 12.0;
  e.power_per_hour = bought * tdp_w * 0.7 * 1.3 / 1000.0 * 0.12;
  e.power_per_month = e.power_per_hour * 730.0;
  e.per_hour = (e.amortization + e.operations) / 730.0 + e.power_per_hour;
  return e;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("cost on-prem: 3 MI300X are one 8-GPU OAM server, capex 8 x (GPU + share)",
          "[plan][cost]") {
  const Candidate c = costed("MI300X-192GB", 1, 3);
  const CostBreakdown& k = c.cost;
  CHECK(k.gpus_per_server == 8);
  CHECK(k.servers == 1);
  CHECK(k.gpus_bought == 8);
  CHECK(k.gpus_needed_peak == 3);
  CHECK(k.gpus_needed_first == 3);
  // $15,000 per MI300X + $8,000 server share (catalog estimates), 750 W.
  const Expected e = by_hand(15000, 8000, 750, 8);
  CHECK(e.purchase == Approx(184000));
  CHECK(k.purchase.si() == Approx(e.purchase));
  CHECK(k.amortization_per_month.si() == Approx(3833.333333));
  CHECK(k.operations_per_month.si() == Approx(2300));
  // 8 x 750 W x 0.7 x 1.3 = 5.46 kW at $0.12/kWh = $0.6552/h.
  CHECK(k.power_per_hour.si() == Approx(0.6552));
  CHECK(k.power_per_month.si() == Approx(0.6552 * 730));
  CHECK(k.per_hour.si() == Approx(e.per_hour));
  CHECK(k.tco.si() == Approx(12 * (3833.333333 + 2300 + 0.6552 * 730)));
  CHECK(k.basis ==
        "1 server x 8 = 8 GPUs bought (3 needed), capex $184,000 amortized over 4 years, "
        "15% operations per year, 5.5 kW at 70% utilization x PUE 1.3 x $0.12/kWh");
  // Bought for the horizon's peak: the purchase never stops meeting the targets.
  CHECK_FALSE(k.stops_meeting_targets_month.has_value());
}

TEST_CASE("cost on-prem: SXM boards and NVL72 racks are bought whole", "[plan][cost]") {
  SECTION("9 B200 are two HGX B200 boards") {
    const Candidate c = costed("B200-SXM-180GB", 1, 9);
    CHECK(c.cost.servers == 2);
    CHECK(c.cost.gpus_bought == 16);
    CHECK(c.cost.purchase.si() == Approx(16 * (35000.0 + 10000.0)));
  }
  SECTION("a TP8 replica fills one H100 board") {
    const Candidate c = costed("H100-SXM-80GB", 8, 2);
    CHECK(c.cost.servers == 2);
    CHECK(c.cost.gpus_bought == 16);
    CHECK(c.cost.gpus_needed_peak == 16);
    CHECK(contains(c.cost.basis, "2 servers x 8 = 16 GPUs bought, capex $568,000"));
  }
  SECTION("GB200 replicas of 16 do not straddle racks: 4 per NVL72, 9 replicas need 3 racks") {
    const Candidate c = costed("GB200-186GB", 16, 9);
    CHECK(c.cost.gpus_per_server == 72);
    CHECK(c.cost.servers == 3); // ceil(144 / 72) would be 2, splitting a replica's NVLink domain
    CHECK(c.cost.gpus_bought == 216);
    CHECK(c.cost.gpus_needed_peak == 144);
  }
}

TEST_CASE("cost on-prem: PCIe cards by servers of their documented size", "[plan][cost]") {
  SECTION("dual-slot cards: 8 per server (NVIDIA PCIe Optimized 2-8-5)") {
    const Candidate c = costed("L40S-48GB", 1, 5);
    CHECK(c.cost.gpus_per_server == 8);
    CHECK(c.cost.servers == 1);
    CHECK(c.cost.gpus_bought == 8);
    // $8,000 + $3,000 share, 350 W.
    const Expected e = by_hand(8000, 3000, 350, 8);
    CHECK(c.cost.purchase.si() == Approx(e.purchase));
    CHECK(c.cost.power_per_hour.si() == Approx(e.power_per_hour));
  }
  SECTION("low-profile cards: 4 per server (an assumption, marked low confidence)") {
    const Candidate c = costed("L4-24GB", 1, 5);
    CHECK(c.cost.gpus_per_server == 4);
    CHECK(c.cost.servers == 2);
    CHECK(c.cost.gpus_bought == 8);
    CHECK(contains(c.cost.basis, "2 servers x 4 = 8 GPUs bought (5 needed)"));
    const Purchase& p = *catalog().find("T4-16GB")->purchase;
    CHECK(p.gpus_per_server == 4);
    CHECK(p.server_provenance.confidence == "low");
  }
  SECTION("a replica wider than a server takes whole servers") {
    const Candidate c = costed("L4-24GB", 8, 1);
    CHECK(c.cost.servers == 2);
    CHECK(c.cost.gpus_bought == 8);
  }
}

TEST_CASE("cost on-prem: deployment.gpus_per_server overrides the catalog's server size",
          "[plan][cost]") {
  nlohmann::json d = k_onprem;
  d["gpus_per_server"] = 4;
  const Candidate c = costed("H100-SXM-80GB", 1, 3, d);
  CHECK(c.cost.gpus_per_server == 4);
  CHECK(c.cost.gpus_bought == 4);
  CHECK(c.cost.purchase.si() == Approx(4 * (27500.0 + 8000.0)));

  d["gpus_per_server"] = 0;
  REQUIRE_THROWS_WITH(spec_with(d),
                      "spec.json:/deployment/gpus_per_server: must be between 1 and 576, got 0");
}

TEST_CASE("cost on-prem: bought for the peak month, and the basis says month 1's need too",
          "[plan][cost]") {
  SECTION("growing demand: the last month is the peak") {
    const nlohmann::json d{{"mode", "onprem"}, {"horizon_months", 36}, {"growth_per_month", 0.1}};
    const Candidate c = costed("H100-SXM-80GB", 1, 4, d);
    // Month 36: 4 x 1.1^35 = 112.4 -> 113 replicas of 1 GPU; 15 boards of 8.
    CHECK(c.cost.peak_month == 36);
    CHECK(c.cost.gpus_needed_first == 4);
    CHECK(c.cost.gpus_needed_peak == 113);
    CHECK(c.cost.servers == 15);
    CHECK(c.cost.gpus_bought == 120);
    CHECK(contains(c.cost.basis,
                   "15 servers x 8 = 120 GPUs bought for month 36's peak (113 needed; 4 in "
                   "month 1), capex $4,260,000"));
    // The replicas in service grow month by month; the cost is the same every month.
    REQUIRE(c.cost.months.size() == 36);
    CHECK(c.cost.months.front().replicas == 4);
    CHECK(c.cost.months.back().replicas == 113);
    CHECK(c.cost.months.front().cost.si() == Approx(c.cost.months.back().cost.si()));
    CHECK(c.cost.tco.si() == Approx(36 * c.cost.months.front().cost.si()));
    CHECK_FALSE(c.cost.stops_meeting_targets_month.has_value());
  }
  SECTION("shrinking demand: the first month is the peak, not the last") {
    const nlohmann::json d{{"mode", "onprem"}, {"horizon_months", 24}, {"growth_per_month", -0.1}};
    const Candidate c = costed("H100-SXM-80GB", 1, 3, d);
    CHECK(c.cost.peak_month == 1);
    CHECK(c.cost.gpus_needed_peak == 3);
    CHECK(c.cost.gpus_bought == 8);
    CHECK(contains(c.cost.basis, "1 server x 8 = 8 GPUs bought (3 needed), "));
  }
}

TEST_CASE("cost on-prem: training buys whole servers for the job's GPUs", "[plan][cost]") {
  const Spec spec = spec_with(k_onprem);
  PlanOptions options;
  options.today = "2026-11-21";
  const detail::Search search{spec, catalog(), constants(), efficiency(), options};
  Candidate c;
  c.gpu = catalog().find("H100-SXM-80GB");
  c.layout.tp = 4;
  c.layout.dp = 3; // 12 GPUs: 2 boards of 8
  TrainingPerformance t;
  t.time_to_train = hours(100);
  t.tokens_per_s = 1e5;
  c.training = t;
  detail::cost_training(search, nullptr, c);
  CHECK(c.cost.servers == 2);
  CHECK(c.cost.gpus_bought == 16);
  CHECK(c.cost.gpus_needed_peak == 12);
  const Expected e = by_hand(27500, 8000, 700, 16);
  CHECK(c.cost.purchase.si() == Approx(e.purchase));
  CHECK(c.cost.per_hour.si() == Approx(e.per_hour));
  CHECK(c.cost.tco.si() == Approx(e.per_hour * 100));
  CHECK(contains(c.cost.basis, "2 servers x 8 = 16 GPUs bought (12 needed), capex $568,000"));
}

TEST_CASE("cost on-prem: every planned candidate's basis and fields agree", "[plan][cost]") {
  const nlohmann::json body{
      {"model", config_path("llama-3.1-8b")},
      {"workload",
       {{"type", "inference"},
        {"input_tokens", 2048},
        {"output_tokens", 512},
        {"concurrency", 32},
        {"targets", {{"tpot_ms", 50}, {"requests_per_s", 2}}}}},
      {"deployment", {{"mode", "onprem"}, {"horizon_months", 24}, {"growth_per_month", 0.05}}}};
  PlanOptions options;
  options.today = "2026-11-21";
  const Plan p =
      make_plan(parse_spec(body, "spec.json"), catalog(), constants(), efficiency(), options);
  REQUIRE(p.feasible());
  for (const Candidate& c : p.candidates) {
    CAPTURE(c.gpu->name, c.cost.basis);
    const CostBreakdown& k = c.cost;
    CHECK(k.gpus_per_server == c.gpu->purchase->gpus_per_server);
    CHECK(k.gpus_bought == k.servers * k.gpus_per_server);
    CHECK(k.gpus_bought >= k.gpus_needed_peak);
    CHECK(k.gpus_bought - k.gpus_needed_peak < k.gpus_per_server); // replicas of 1-8 GPUs pack
    CHECK(k.gpus_needed_peak >= k.gpus_needed_first);
    CHECK(k.gpus_needed_first == c.total_gpus());
    CHECK(k.purchase.si() == Approx(static_cast<double>(k.gpus_bought) *
                                    (c.gpu->purchase->gpu + c.gpu->purchase->server_share).si()));
    const std::string fleet = fmt::format("{} server{} x {} = {} GPU{} bought",
                                          k.servers,
                                          k.servers == 1 ? "" : "s",
                                          k.gpus_per_server,
                                          k.gpus_bought,
                                          k.gpus_bought == 1 ? "" : "s");
    CHECK(k.basis.rfind(fleet, 0) == 0);
    // The need is stated where it differs from what is bought (a GPU that serves the whole
    // horizon's growth alone, bought as one, has nothing to add).
    if (k.gpus_bought != k.gpus_needed_peak || k.gpus_needed_peak != k.gpus_needed_first) {
      CHECK(contains(k.basis, fmt::format("{} needed", k.gpus_needed_peak)));
    }
    // The peak month's GPUs are the most any month of the series holds.
    long long most = 0;
    for (const auto& m : k.months) {
      most = std::max(most, m.gpus);
    }
    CHECK(most == k.gpus_needed_peak);
    double sum = 0;
    for (const auto& m : k.months) {
      sum += m.cost.si();
    }
    CHECK(k.tco.si() == Approx(sum));
    CHECK(
        k.tco.si() ==
        Approx(24 * (k.amortization_per_month + k.operations_per_month + k.power_per_month).si()));
  }
}

TEST_CASE("cost on-prem: the catalog states each GPU's server size with a source",
          "[plan][cost][catalog]") {
  for (const auto& [name, size] : std::vector<std::pair<std::string, int>>{{"MI300X-192GB", 8},
                                                                           {"B200-SXM-180GB", 8},
                                                                           {"H100-SXM-80GB", 8},
                                                                           {"GB200-186GB", 72},
                                                                           {"GH200-144GB", 1},
                                                                           {"H100-PCIE-80GB", 8},
                                                                           {"L4-24GB", 4}}) {
    CAPTURE(name);
    const Gpu* g = catalog().find(name);
    REQUIRE(g != nullptr);
    REQUIRE(g->purchase.has_value());
    CHECK(g->purchase->gpus_per_server == size);
    CHECK_FALSE(g->purchase->server_provenance.source.empty());
  }
  // A purchase without its server size is an error, like any missing field.
  std::ifstream in(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["gpus"][0]["purchase"].erase("gpus_per_server");
  REQUIRE_THROWS_WITH(parse_catalog(doc, "bad.json"),
                      Catch::Contains("bad.json:/gpus/0/purchase/gpus_per_server"));
}
