// Reference test: the memory estimator against measured memory in ../shared/validation, with the
// tolerances of the memory issue: median absolute error at most 10%, no line off by more than 25%,
// every fits/OOM outcome right. The per-line table: build/bench/rightsize_accuracy.

#include "accuracy/memory_cases.hpp"

#include <rightsize/catalog/catalog.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace rightsize;

TEST_CASE("reference: memory estimates against measured memory", "[reference][memory]") {
  if (!std::filesystem::exists(std::string(RIGHTSIZE_VALIDATION_DIR) + "/measurements.jsonl")) {
    WARN("../shared/validation is not beside the checkout: reference test skipped");
    return;
  }
  const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  const auto r = accuracy::run_memory_cases(RIGHTSIZE_VALIDATION_DIR,
                                            std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs",
                                            catalog,
                                            constants);
  std::vector<double> errors;
  for (const auto& c : r.cases) {
    CAPTURE(c.id, c.measured, c.predicted);
    if (c.outcome) {
      CHECK(c.predicted == c.measured);
      continue;
    }
    CHECK(std::fabs(c.error()) <= 0.25);
    errors.push_back(std::fabs(c.error()));
  }
  REQUIRE(errors.size() >= 6);
  std::sort(errors.begin(), errors.end());
  const double median = (errors[(errors.size() - 1) / 2] + errors[errors.size() / 2]) / 2;
  CHECK(median <= 0.10);
  // Every memory line is either evaluated or set aside with a reason.
  CHECK(r.cases.size() + r.skipped.size() == 21);
}
