// Thresholds in layers: the defaults, the repository's config file, the command line
// (check/thresholds.hpp; docs/ci.md, "Thresholds").

#include "test_paths.hpp"

#include <rightsize/check/thresholds.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::test::ScratchDir;

TEST_CASE("thresholds: a percentage, or a fraction from 0 to 1", "[check]") {
  CHECK(parse_threshold("10%", "--max-cost-increase") == Approx(0.10));
  CHECK(parse_threshold("0.25", "--max-cost-increase") == 0.25);
  REQUIRE_THROWS_WITH(parse_threshold("5", "--max-cost-increase"),
                      "--max-cost-increase: expected a percentage such as 10% (or a fraction "
                      "from 0 to 1 such as 0.1), got \"5\"");
}

TEST_CASE("thresholds: the config file's over the defaults, the command line's over both",
          "[check]") {
  ScratchDir dir;
  ThresholdOptions o;
  o.config = dir.write("config.json", R"({"schema_version": 1,
      "thresholds": {"cost": "5%", "tpot": 0.3},
      "fail_on": ["cost"]})");
  std::vector<CheckNote> notes;

  SECTION("the config file") {
    const CheckThresholds t = resolve_thresholds(o, notes);
    CHECK(t.cost == Approx(0.05));
    CHECK(t.tpot == 0.3);
    CHECK(t.ttft == 0.20); // the default
    // memory always fails, said at info level
    CHECK(t.fail_on == std::vector<std::string>{"cost", "memory"});
    REQUIRE(notes.size() == 2);
    CHECK(notes[0].text == "thresholds from " + o.config);
    CHECK(notes[1].text == "--fail-on: memory is always checked");
  }
  SECTION("the command line over it; --max-latency-increase sets all three latencies") {
    o.max_cost = "20%";
    o.max_latency = "50%";
    o.max_ttft = "40%";
    o.fail_on = "latency,throughput,memory";
    const CheckThresholds t = resolve_thresholds(o, notes);
    CHECK(t.cost == Approx(0.20));
    CHECK(t.ttft == Approx(0.40));
    CHECK(t.tpot == Approx(0.50));
    CHECK(t.time_to_train == Approx(0.50));
    CHECK(t.fail_on == std::vector<std::string>{"latency", "throughput", "memory"});
    CHECK(notes.size() == 1);
  }
  SECTION("--fail-on given empty, or with a check that does not exist") {
    o.fail_on = "";
    REQUIRE_THROWS_WITH(resolve_thresholds(o, notes),
                        "--fail-on: is empty; name the checks that fail the job");
    o.fail_on = "cost,latenc";
    REQUIRE_THROWS_WITH(resolve_thresholds(o, notes),
                        "--fail-on: unknown check \"latenc\" (did you mean \"latency\"?)");
  }
}
