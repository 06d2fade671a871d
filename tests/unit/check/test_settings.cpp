// The settings that shape a plan, as a lock records and check replays them (check/settings.hpp).
// The error texts are those check and deploy --lock have always printed for a lock's settings.

#include <rightsize/check/settings.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;

namespace {

const Catalog& bundled_catalog() {
  static const Catalog c =
      load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json", "", CatalogDetail::figures);
  return c;
}

PlanSettings read(const nlohmann::json& j) {
  return settings_from_json(j, "rightsize.lock.json", "/locks/chat.json/settings");
}

} // namespace

TEST_CASE("settings: the defaults as a lock records them", "[check][settings]") {
  CHECK(settings_to_json(PlanSettings{}) == nlohmann::json{{"objective", "tco"},
                                                           {"confidence", "band"},
                                                           {"share_gpus", false},
                                                           {"assume", nlohmann::json::array()}});
}

TEST_CASE("settings: each override set is written, and read back as it was", "[check][settings]") {
  PlanSettings s;
  s.objective = Objective::cost_per_token;
  s.confidence = Confidence::point;
  s.share_gpus = true;
  s.assume = {"max_num_seqs=64"};
  s.mode = DeploymentMode::onprem;
  s.horizon_months = 24;
  s.growth = -0.25;
  s.hours_per_month = 500;
  s.provider = "aws";
  s.price_kind = "spot";
  s.pue = 1.5;
  s.electricity_usd_per_kwh = 0.0; // zero is an override too
  s.amortization_years = 3;
  s.utilization = 0.5;
  const nlohmann::json j = settings_to_json(s);
  CHECK(j == nlohmann::json::parse(R"({
    "objective": "cost_per_token", "confidence": "point", "share_gpus": true,
    "assume": ["max_num_seqs=64"], "mode": "onprem", "horizon_months": 24, "growth": -0.25,
    "hours_per_month": 500.0, "provider": "aws", "price_kind": "spot", "pue": 1.5,
    "electricity": 0.0, "amortization_years": 3.0, "utilization": 0.5})"));
  CHECK(settings_to_json(read(j)) == j);
}

TEST_CASE("settings: a lock's settings read with today's error texts", "[check][settings]") {
  CHECK(read(nlohmann::json::object()).objective == Objective::tco);
  CHECK(read({{"objective", "LATENCY"}}).objective == Objective::latency); // any case
  CHECK_FALSE(read({{"provider", ""}}).provider);                          // empty: no override
  REQUIRE_THROWS_WITH(read({{"objectiv", "tco"}}),
                      "rightsize.lock.json:/locks/chat.json/settings/objectiv: unknown field "
                      "\"objectiv\" (did you mean \"objective\"?)");
  REQUIRE_THROWS_WITH(read({{"objective", "cheap"}}),
                      "rightsize.lock.json:/locks/chat.json/settings/objective: must be one of "
                      "tco, cost_per_token, latency, gpus, power, got \"cheap\"");
  REQUIRE_THROWS_WITH(read({{"horizon_months", 0}}),
                      "rightsize.lock.json:/locks/chat.json/settings/horizon_months: must be "
                      "between 1 and 240, got 0");
  REQUIRE_THROWS_WITH(read({{"growth", 20}}),
                      "rightsize.lock.json:/locks/chat.json/settings/growth: must be between "
                      "-0.5 and 10, got 20");
  REQUIRE_THROWS_WITH(read({{"mode", "hybrid"}}),
                      "rightsize.lock.json:/locks/chat.json/settings/mode: must be one of cloud, "
                      "onprem, got \"hybrid\"");
  REQUIRE_THROWS_WITH(read({{"share_gpus", "yes"}}),
                      "rightsize.lock.json:/locks/chat.json/settings/share_gpus: must be true or "
                      "false, got \"yes\"");
}

TEST_CASE("settings: replayed, the command line's over the lock's", "[check][settings]") {
  const nlohmann::json recorded{{"objective", "latency"}, {"mode", "onprem"}, {"pue", 1.2}};
  const PlanSettings s =
      replay_settings(recorded, {{"objective", "gpus"}}, "specs/rightsize.lock.json", "chat.json");
  CHECK(s.objective == Objective::gpus);
  CHECK(s.mode == DeploymentMode::onprem);
  CHECK(s.pue == 1.2);
  REQUIRE_THROWS_WITH(
      replay_settings(recorded, {{"pue", 9}}, "specs/rightsize.lock.json", "a~b.json"),
      "specs/rightsize.lock.json:/locks/a~0b.json/settings/pue: must be between 1 and 5, got 9");
}

TEST_CASE("settings: the overrides replace the spec's deployment, the provider resolved",
          "[check][settings]") {
  Spec spec;
  spec.file = "chat.json";
  PlanSettings s;
  s.horizon_months = 36;
  s.growth = 0.0;
  s.provider = "aws"; // the catalog spells it "AWS"
  apply_settings(s, bundled_catalog(), spec);
  CHECK(spec.deployment.horizon_months == 36);
  CHECK(spec.deployment.growth_per_month == 0.0);
  CHECK(spec.deployment.hours_per_month == 730.0); // not overridden: the spec's
  CHECK(spec.deployment.provider == std::string("AWS"));

  s.provider = "nowhere";
  REQUIRE_THROWS_AS(apply_settings(s, bundled_catalog(), spec), InputError);

  SECTION("on-prem prices purchases: no provider is resolved") {
    Spec onprem;
    onprem.file = "chat.json";
    s.mode = DeploymentMode::onprem;
    apply_settings(s, bundled_catalog(), onprem);
    CHECK(onprem.deployment.mode == DeploymentMode::onprem);
    CHECK_FALSE(onprem.deployment.provider);
  }
}

TEST_CASE("settings: the plan's options", "[check][settings]") {
  Spec spec;
  spec.deployment.stale_price_days = 90;
  PlanSettings s;
  s.objective = Objective::power;
  s.confidence = Confidence::point;
  s.share_gpus = true;
  Uncertainty uncertainty;
  EngineSupport engines;
  const PlanOptions o = plan_options_for(s, spec, uncertainty, engines, "2026-12-01");
  CHECK(o.objective == Objective::power);
  CHECK(o.confidence == Confidence::point);
  CHECK(o.share_gpus);
  CHECK(o.today == "2026-12-01");
  CHECK(o.stale_days == 90);
  CHECK(o.uncertainty == &uncertainty);
  CHECK(o.engines == &engines);
}

TEST_CASE("settings: the model digest moves with --assume, not with its absence",
          "[check][settings]") {
  const std::string data = RIGHTSIZE_DATA_DIR;
  const std::string none = model_digest(data, {});
  CHECK(none.size() == 16);
  CHECK(model_digest(data, {}) == none);
  CHECK(model_digest(data, {"max_num_seqs=64"}) != none);
}
