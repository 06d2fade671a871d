// Reference test: rightsize against the project's own measurements of one H200
// (data/measured/h200-sxm.json, bench/gpu/README.md). Tolerances sit just above what the model
// reaches today (docs/accuracy.md, "Measured on an H200"), so that a regression fails the suite.

#include "accuracy/measured_cases.hpp"
#include "accuracy/memory_cases.hpp"

#include <rightsize/catalog/catalog.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using namespace rightsize;

namespace {

nlohmann::json measured() {
  std::ifstream in(std::string(RIGHTSIZE_DATA_DIR) + "/measured/h200-sxm.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

} // namespace

TEST_CASE("reference: no measured rate on the H200 exceeds its catalog rating",
          "[reference][h200]") {
  const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const Gpu& h200 = catalog.resolve("H200-SXM-141GB", "test");
  const auto j = measured();
  const std::map<std::string, TensorPrecision> dtypes{{"fp32", TensorPrecision::fp32},
                                                      {"tf32", TensorPrecision::tf32},
                                                      {"bf16", TensorPrecision::bf16},
                                                      {"fp16", TensorPrecision::fp16},
                                                      {"fp8_e4m3", TensorPrecision::fp8}};
  std::map<std::string, double> best;
  for (const auto& row : j.at("gemm")) {
    if (row.contains("tflops")) {
      auto& b = best[row.at("dtype").get<std::string>()];
      b = std::max(b, row.at("tflops").get<double>());
    }
  }
  REQUIRE(best.size() == dtypes.size());
  for (const auto& [name, precision] : dtypes) {
    CAPTURE(name, best[name]);
    const double rated = h200.rate(precision)->si() / 1e12;
    CHECK(best[name] <= rated);
    // And the rating is not absurdly above it: dense GEMMs reach 70-85% of the datasheet.
    CHECK(best[name] >= 0.6 * rated);
  }
  for (const auto& row : j.at("hbm")) {
    const double measured_bw = row.at("gb_per_s").get<double>() * 1e9;
    CHECK(measured_bw <= h200.memory_bandwidth.si());
    CHECK(measured_bw >= 0.8 * h200.memory_bandwidth.si());
  }
}

TEST_CASE("reference: predictions against the H200 measurements", "[reference][h200]") {
  const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  const auto eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
  accuracy::PerfCases perf;
  accuracy::append_measured_cases(perf,
                                  std::string(RIGHTSIZE_DATA_DIR) + "/measured/h200-sxm.json",
                                  std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs",
                                  catalog,
                                  constants,
                                  eff);
  std::map<std::string, std::vector<const accuracy::PerfCase*>> held_out;
  std::map<std::string, std::vector<const accuracy::PerfCase*>> all;
  for (const auto& c : perf.cases) {
    all[c.group + "/" + c.metric].push_back(&c);
    if (c.held_out) {
      held_out[c.group + "/" + c.metric].push_back(&c);
    }
  }
  // transformers' generate: fitted on three configurations in four, checked on the fourth
  // (2026-12-06, after issue 44's refit: TPOT 10.5%, TTFT 20.2%; before: 16.9%, 16.0%).
  for (const auto& [group, limit] :
       std::map<std::string, double>{{"h200-generate/tpot", 0.20}, {"h200-generate/ttft", 0.22}}) {
    CAPTURE(group);
    const auto s = accuracy::summarize(held_out[group], eff);
    CAPTURE(s.count, s.median, s.worst);
    CHECK(s.count >= 10);
    CHECK(s.median <= limit);
  }
  // Step physics without engine costs (never fitted): prefill within 15%; decode under-predicted
  // by the small kernels of every layer that the physics leaves to the engine's per-layer cost.
  const auto prefill = accuracy::summarize(all["h200-steps/prefill"], eff);
  CAPTURE(prefill.median);
  CHECK(prefill.median <= 0.15);
  const auto decode = accuracy::summarize(all["h200-steps/decode_step"], eff);
  CAPTURE(decode.median);
  CHECK(decode.median <= 0.40);
  CHECK(all["h200-train/step_time"].size() == 4);
}

TEST_CASE("reference: memory against the H200's measured peaks", "[reference][h200]") {
  const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  accuracy::MemoryResults r;
  accuracy::append_measured_memory_cases(r,
                                         std::string(RIGHTSIZE_DATA_DIR) +
                                             "/measured/h200-sxm.json",
                                         std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs",
                                         catalog,
                                         constants);
  std::vector<double> errors;
  for (const auto& c : r.cases) {
    errors.push_back(std::fabs(c.error()));
  }
  REQUIRE(errors.size() == 29);
  std::sort(errors.begin(), errors.end());
  // Today: median 3.0%, worst 27.9% (LoRA with full recomputation: the allocator's reserve).
  CHECK(errors[errors.size() / 2] <= 0.05);
  CHECK(errors.back() <= 0.30);
}
