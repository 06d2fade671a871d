// Reference test: rightsize against the published measurements of data/published (vendor
// performance tables; docs/accuracy.md, "Published results"). None of these runs was seen by the
// fit of data/efficiency.json but the TensorRT-LLM v0.6.1 static-batch rows. Tolerances sit just
// above what the model reaches today, so a regression fails the suite; the throughput
// target (median 8%, no length class biased beyond 15%) is tighter, and docs/accuracy.md states
// the gap.

#include "accuracy/published_cases.hpp"

#include <rightsize/catalog/catalog.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace rightsize;

TEST_CASE("reference: performance against published offline throughput", "[reference][published]") {
  const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  const auto eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
  const auto uncertainty = Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
  const auto r =
      accuracy::run_published_cases(std::string(RIGHTSIZE_DATA_DIR) + "/published/published.json",
                                    std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs",
                                    catalog,
                                    constants,
                                    eff,
                                    uncertainty);
  std::map<std::string, accuracy::PublishedGroup> groups;
  for (const auto& g : r.groups) {
    groups[g.name] = g;
  }
  // name: the most runs rightsize may fail to predict, and the largest median |error| and |bias|
  // it may have on the rest.
  struct Limit {
    int min_runs;
    double median;
    double bias;
  };
  const std::map<std::string, Limit> limits{
      {"offline never fitted", {600, 0.18, 0.03}},
      {"offline never fitted, formats stated", {340, 0.17, 0.06}},
      {"source trtllm-perf-overview-v1.0 offline", {190, 0.24, 0.10}},
      {"offline family hopper", {320, 0.18, 0.05}},
  };
  for (const auto& [name, limit] : limits) {
    CAPTURE(name);
    REQUIRE(groups.count(name) == 1);
    const auto& g = groups[name];
    CAPTURE(g.runs, g.median_abs_error, g.median_error);
    CHECK(g.runs >= limit.min_runs);
    CHECK(g.median_abs_error <= limit.median);
    CHECK(std::abs(g.median_error) <= limit.bias);
  }
  // The pipeline-parallel runs (RTX PRO 6000, TensorRT-LLM 1.0): one batch crossing the stages in
  // turn under-predicted them by a median of 63%; micro-batches per stage bring it to 28%.
  std::vector<double> pipelined;
  for (const auto& p : r.rows) {
    if (p.predicted && p.result.pp.value_or(1) > 1) {
      pipelined.push_back(std::abs(p.error()));
    }
  }
  REQUIRE(pipelined.size() >= 35);
  std::sort(pipelined.begin(), pipelined.end());
  CAPTURE(pipelined.size(), pipelined[pipelined.size() / 2]);
  CHECK(pipelined[pipelined.size() / 2] <= 0.30);
}
