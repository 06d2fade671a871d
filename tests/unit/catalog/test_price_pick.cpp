// The price a GPU is paid at (catalog/price_pick.hpp): the cheapest of the kind, from the provider
// when one is named, and its label.

#include "fixtures.hpp"

#include <rightsize/catalog/price_pick.hpp>

#include <catch2/catch.hpp>

namespace rightsize {

namespace {

Price price(std::string provider, std::string kind, double per_hour, bool stated = true) {
  return Price{std::move(provider), std::move(kind), usd_per_hour(per_hour), "2026-11-21", stated, {}};
}

} // namespace

TEST_CASE("pick price: the cheapest of the kind, from the provider when named",
          "[catalog][prices]") {
  Gpu g;
  g.prices = {price("A", "on_demand", 3.00),
              price("B", "on_demand", 2.50),
              price("B", "spot", 1.00),
              price("C", "on_demand", 2.75)};
  CHECK(pick_price(g, "on_demand", std::nullopt) == &g.prices[1]);
  CHECK(pick_price(g, "spot", std::nullopt) == &g.prices[2]);
  CHECK(pick_price(g, "on_demand", std::string("C")) == &g.prices[3]);
  CHECK(pick_price(g, "committed", std::nullopt) == nullptr);
  CHECK(pick_price(g, "spot", std::string("A")) == nullptr);
  // Equal prices: the first listed.
  g.prices.push_back(price("D", "on_demand", 2.50));
  CHECK(pick_price(g, "on_demand", std::nullopt) == &g.prices[1]);
}

TEST_CASE("pick price: the bundled H100's on-demand and spot prices", "[catalog][prices]") {
  // data/gpus.json: Nebius $2.95/h on demand is the cheapest, $1.25/h spot; AWS $12.29/h.
  const Gpu& h100 = test::catalog().resolve("H100-SXM-80GB", "test");
  const Price* on_demand = pick_price(h100, "on_demand", std::nullopt);
  REQUIRE(on_demand != nullptr);
  CHECK(on_demand->provider == "Nebius");
  CHECK(on_demand->per_gpu.si() == Approx(usd_per_hour(2.95).si()));
  CHECK(pick_price(h100, "spot", std::nullopt)->per_gpu.si() == Approx(usd_per_hour(1.25).si()));
  CHECK(pick_price(h100, "on_demand", std::string("AWS"))->per_gpu.si() ==
        Approx(usd_per_hour(12.29).si()));
}

TEST_CASE("cloud price label: price, provider, kind and date", "[catalog][prices]") {
  CHECK(cloud_price_label(price("Nebius", "on_demand", 2.95, false)) ==
        "$2.95/h Nebius on_demand (retrieved 2026-11-21)");
  CHECK(cloud_price_label(price("AWS", "spot", 12.29, true)) ==
        "$12.29/h AWS spot (as of 2026-11-21)");
}

} // namespace rightsize
