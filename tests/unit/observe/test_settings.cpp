// observe's settings as a person writes them (observe/settings.hpp) made into ObserveOptions:
// percentages to fractions, names resolved against the bundled catalog, each refusal's text.

#include "fixtures.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/settings.hpp>

#include <catch2/catch.hpp>

namespace rightsize {

TEST_CASE("observe settings: percentages become fractions", "[observe][settings]") {
  ObserveSettings s;
  s.work_percentile = 90;
  s.memory_percentile = 99;
  s.buffer_percent = 25;
  s.idle_below_percent = 2;
  s.low_below_percent = 30;
  s.min_saving_percent = 15;
  s.scale_out_percent = 80;
  s.max_gpus = 4;
  s.mig = false;
  s.hours_per_month = 720;
  const ObserveOptions o = resolve_observe_options(s, test::catalog());
  CHECK(o.work_percentile == 90);
  CHECK(o.memory_percentile == 99);
  CHECK(o.buffer == Approx(0.25));
  CHECK(o.idle_below == Approx(0.02));
  CHECK(o.low_utilization_below == Approx(0.30));
  CHECK(o.min_saving == Approx(0.15));
  CHECK(o.scale_out_efficiency == Approx(0.80));
  CHECK(o.max_gpus == 4);
  CHECK_FALSE(o.mig);
  CHECK(o.pricing.hours_per_month == 720);
  CHECK(o.pricing.price_kind == "on_demand");
  CHECK_FALSE(o.pricing.provider);
  CHECK(o.gpus.empty());
  CHECK(o.group_by == GroupBy::automatic);
}

TEST_CASE("observe settings: names resolved against the catalog", "[observe][settings]") {
  ObserveSettings s;
  s.group_by = "host";
  s.gpus = "l4,H100";
  s.gpus_given = true;
  s.gpu_models = {"NVIDIA A100-PG509-200=a100-sxm-40gb", "a=b=H100"};
  s.provider = "nebius";
  s.price_kind = "Spot";
  const ObserveOptions o = resolve_observe_options(s, test::catalog());
  CHECK(o.group_by == GroupBy::host);
  CHECK(o.gpus == std::vector<std::string>{"L4-24GB", "H100-SXM-80GB"});
  // The name is what comes before the last '=': observed names may hold one.
  CHECK(o.gpu_models == std::map<std::string, std::string>{
                            {"NVIDIA A100-PG509-200", "A100-SXM-40GB"}, {"a=b", "H100-SXM-80GB"}});
  CHECK(o.pricing.provider == std::optional<std::string>("Nebius"));
  CHECK(o.pricing.price_kind == "spot");
}

TEST_CASE("observe settings: each refusal names its option", "[observe][settings]") {
  const auto resolve = [](const ObserveSettings& s) {
    return resolve_observe_options(s, test::catalog());
  };
  ObserveSettings s;
  s.idle_below_percent = 50;
  REQUIRE_THROWS_WITH(resolve(s), "--idle-below: 50% is above --low-below 40%");
  s = {};
  s.gpus_given = true;
  REQUIRE_THROWS_WITH(resolve(s),
                      "--gpus: names no GPU: give catalog names, comma-separated (L4,L40S)");
  s.gpus = "L4x";
  REQUIRE_THROWS_WITH(resolve(s), Catch::StartsWith("--gpus: unknown GPU \"L4x\""));
  s = {};
  s.gpu_models = {"foo"};
  REQUIRE_THROWS_WITH(resolve(s),
                      "--gpu-model: \"foo\" is not NAME=GPU (\"NVIDIA H100 80GB HBM3=H100\")");
  s.gpu_models = {"=H100"};
  REQUIRE_THROWS_WITH(resolve(s), Catch::StartsWith("--gpu-model: \"=H100\" is not NAME=GPU"));
  s = {};
  s.provider = "awz";
  REQUIRE_THROWS_WITH(resolve(s),
                      Catch::StartsWith("--provider: unknown provider \"awz\" (did you mean "
                                        "\"AWS\"?)"));
  s = {};
  s.price_kind = "committed";
  REQUIRE_THROWS_WITH(resolve(s),
                      Catch::StartsWith("--price-kind: the catalog has no committed prices"));
}

TEST_CASE("observe settings: one name table for --group-by", "[observe][settings]") {
  CHECK(group_by_names() == std::vector<std::string>{"auto", "owner", "pod", "host", "gpu"});
  for (const auto g :
       {GroupBy::automatic, GroupBy::owner, GroupBy::pod, GroupBy::host, GroupBy::gpu}) {
    CHECK(group_by_named(to_string(g)) == g);
  }
  CHECK_FALSE(group_by_named("namespace"));
  // An unknown name (which the CLI refuses first) groups automatically.
  ObserveSettings s;
  s.group_by = "namespace";
  CHECK(resolve_observe_options(s, test::catalog()).group_by == GroupBy::automatic);
}

} // namespace rightsize
