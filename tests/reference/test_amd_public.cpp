// Reference test: rightsize against public AMD MI300X serving runs (data/measured/cdna3-public.csv,
// data/measured/README.md). cdna3's efficiencies are fitted on three configurations in four
// (bench/fit_efficiency.cpp, stage 3); the held-out medians sit just above what the model reaches
// today (docs/accuracy.md, "AMD CDNA3 (public runs)"), so that a regression fails the suite.

#include "accuracy/amd_cases.hpp"

#include <rightsize/catalog/catalog.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace rightsize;

TEST_CASE("reference: predictions against public AMD CDNA3 runs", "[reference][amd]") {
  const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  const auto eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
  accuracy::PerfCases perf;
  accuracy::append_amd_cases(perf,
                             std::string(RIGHTSIZE_DATA_DIR) + "/measured/cdna3-public.csv",
                             std::string(RIGHTSIZE_DATA_DIR) + "/..",
                             catalog,
                             constants,
                             eff);
  REQUIRE(perf.cases.size() == 98);
  CHECK(perf.skipped.empty());
  std::map<std::string, std::vector<const accuracy::PerfCase*>> held_out;
  int fitted = 0;
  for (const auto& c : perf.cases) {
    CHECK(c.family == "cdna3");
    if (c.held_out) {
      held_out[c.engine + "/" + c.metric].push_back(&c);
    } else {
      ++fitted;
    }
  }
  CHECK(fitted == 73);
  // Today (held out): throughput 27.7% (45.0% with the guessed 0.4 / 0.7; 18.0% before issue
  // 44's engine settings gave vLLM its 1024-sequence default on the MI300X, which its offline
  // LLM class runs with: the 70B rows run larger batches and come out over, the fit balances
  // them with the 405B rows, the held-out ones, now -13% to -29%; docs/accuracy.md, "AMD
  // CDNA3"), static-batch end-to-end latency 6.7% (16.9%).
  for (const auto& [group, limit] :
       std::map<std::string, double>{{"vllm/throughput", 0.29}, {"vllm/e2e_latency", 0.08}}) {
    CAPTURE(group);
    const auto s = accuracy::summarize(held_out[group], eff);
    CAPTURE(s.count, s.median, s.worst);
    CHECK(s.count >= 10);
    CHECK(s.median <= limit);
  }
  // DeepSeek-V3 (MLA, MoE) decode on early-2025 SGLang, never fitted: predicted 3x too fast
  // (68.2%; the absorbed MLA decode adds its attention, which at batch 4 is small beside the
  // early ROCm kernels' per-step cost); held here so that it can only improve.
  const auto mla = accuracy::summarize(held_out["sglang/tpot"], eff);
  CAPTURE(mla.median);
  CHECK(mla.count == 2);
  CHECK(mla.median <= 0.70);
}
