#include "fixtures.hpp"

#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;

namespace {

const Catalog& bundled() {
  return rightsize::test::catalog();
}

// The bundled catalog with the user's committed prices of examples/my-prices.json merged in.
const Catalog& with_my_prices() {
  static const Catalog c = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json",
                                        std::string(RIGHTSIZE_EXAMPLES_DIR) + "/my-prices.json");
  return c;
}

} // namespace

TEST_CASE("prices: providers resolve case-insensitively to the catalog's spelling",
          "[catalog][prices]") {
  CHECK(resolve_provider(bundled(), "AWS", "--provider") == "AWS");
  CHECK(resolve_provider(bundled(), "aws", "--provider") == "AWS");
  CHECK(resolve_provider(bundled(), "coreweave", "--provider") == "CoreWeave");
  CHECK(resolve_provider(bundled(), "Core-Weave", "--provider") == "CoreWeave");
  CHECK(resolve_provider(with_my_prices(), "OUR-CLOUD", "--provider") == "our-cloud");
  CHECK(providers(bundled()) == std::vector<std::string>{"AWS",
                                                         "Azure",
                                                         "CoreWeave",
                                                         "DigitalOcean",
                                                         "GCP",
                                                         "Hyperstack",
                                                         "Lambda",
                                                         "Nebius",
                                                         "RunPod",
                                                         "TensorWave"});
}

TEST_CASE("prices: an unknown provider names the option and lists the known ones",
          "[catalog][prices]") {
  CHECK_THROWS_WITH(resolve_provider(bundled(), "awz", "--provider"),
                    "--provider: unknown provider \"awz\" (did you mean \"AWS\"?); the catalog "
                    "has prices from AWS, Azure, CoreWeave, DigitalOcean, GCP, Hyperstack, Lambda, "
                    "Nebius, RunPod and TensorWave");
  CHECK_THROWS_WITH(resolve_provider(bundled(), "oracle", "s.json:/deployment/provider"),
                    "s.json:/deployment/provider: unknown provider \"oracle\"; the catalog has "
                    "prices from AWS, Azure, CoreWeave, DigitalOcean, GCP, Hyperstack, Lambda, "
                    "Nebius, RunPod and TensorWave");
  // Two spellings of one name in a user's catalog: neither is picked silently.
  Catalog twice = bundled();
  twice.gpus.front().prices.push_back(twice.gpus.front().prices.front());
  twice.gpus.front().prices.back().provider = "aws";
  CHECK(resolve_provider(twice, "aws", "--provider") == "aws");
  CHECK_THROWS_WITH(resolve_provider(twice, "Aws", "--provider"),
                    "--provider: provider \"Aws\" is ambiguous: the catalog spells it AWS and aws");
  Catalog no_prices = bundled();
  for (auto& g : no_prices.gpus) {
    g.prices.clear();
  }
  CHECK_THROWS_WITH(resolve_provider(no_prices, "AWS", "--provider"),
                    "--provider: unknown provider \"AWS\": the catalog has no prices; add them "
                    "with --catalog FILE (docs/catalog.md)");
}

TEST_CASE("prices: price kinds resolve like names", "[catalog][prices]") {
  CHECK(resolve_price_kind("on_demand", "--price-kind") == "on_demand");
  CHECK(resolve_price_kind("On-Demand", "--price-kind") == "on_demand");
  CHECK(resolve_price_kind("committed-1y", "--price-kind") == "committed_1y");
  CHECK(resolve_price_kind("Committed_3Y", "--price-kind") == "committed_3y");
  CHECK(resolve_price_kind("SPOT", "--price-kind") == "spot");
  CHECK_THROWS_WITH(resolve_price_kind("comitted", "--price-kind"),
                    "--price-kind: unknown price kind \"comitted\" (did you mean \"committed\"?); "
                    "expected on_demand, spot, committed_1y, committed_3y or committed");
}

TEST_CASE("prices: a kind the catalog lacks is bad input with the fix", "[catalog][prices]") {
  // The user trial: the bundled catalog has no committed prices, so every GPU was rejected and
  // the plan ended in exit 3 as if nothing could serve the workload.
  CHECK(price_kinds(bundled()) == std::vector<std::string>{"on_demand", "spot"});
  CHECK_THROWS_WITH(check_price_kind(bundled(), "committed", std::nullopt, "--price-kind"),
                    "--price-kind: the catalog has no committed prices, only on_demand and spot: "
                    "add committed prices with --catalog FILE (docs/catalog.md), or choose one "
                    "of those kinds");
  CHECK_THROWS_WITH(check_price_kind(bundled(), "spot", std::string("AWS"), "--price-kind"),
                    "--price-kind: the catalog has no spot prices from AWS, only on_demand: add "
                    "spot prices with --catalog FILE (docs/catalog.md), or choose that kind");
  CHECK_NOTHROW(check_price_kind(bundled(), "on_demand", std::nullopt, "--price-kind"));
  CHECK_NOTHROW(check_price_kind(bundled(), "spot", std::string("Nebius"), "--price-kind"));
  // The user's overlay counts: it adds committed prices from one provider.
  CHECK_NOTHROW(check_price_kind(with_my_prices(), "committed", std::nullopt, "--price-kind"));
  CHECK_NOTHROW(
      check_price_kind(with_my_prices(), "committed", std::string("our-cloud"), "--price-kind"));
  CHECK_THROWS_WITH(
      check_price_kind(with_my_prices(), "committed", std::string("AWS"), "x.json:/p"),
      Catch::StartsWith("x.json:/p: the catalog has no committed prices from AWS, only "
                        "on_demand"));
  Catalog no_prices = bundled();
  for (auto& g : no_prices.gpus) {
    g.prices.clear();
  }
  CHECK_THROWS_WITH(check_price_kind(no_prices, "on_demand", std::nullopt, "--price-kind"),
                    "--price-kind: the catalog has no prices: add on_demand prices with --catalog "
                    "FILE (docs/catalog.md)");
}
