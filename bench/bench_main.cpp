// Timing benchmarks (Google Benchmark). Run: build/bench/rightsize_bench
// Results are reported in docs/; unit tests never assert wall-clock time.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <benchmark/benchmark.h>
#include <fstream>
#include <sstream>

namespace {

const std::string k_catalog = std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json";
const std::string k_example = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json";

// Reading, validating and converting the whole bundled catalog (23 SKUs, every field sourced).
void bm_load_catalog(benchmark::State& state) {
  for (auto _ : state) {
    auto c = rightsize::load_catalog(k_catalog);
    benchmark::DoNotOptimize(c.gpus.data());
  }
}
BENCHMARK(bm_load_catalog)->Unit(benchmark::kMicrosecond);

// Only the JSON parse of the catalog file (nlohmann), to see what validation adds on top.
void bm_parse_catalog_json(benchmark::State& state) {
  std::ifstream in(k_catalog);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  for (auto _ : state) {
    auto j = nlohmann::json::parse(s);
    benchmark::DoNotOptimize(j.size());
  }
}
BENCHMARK(bm_parse_catalog_json)->Unit(benchmark::kMicrosecond);

// Reading a spec and the config.json it points at.
void bm_load_spec(benchmark::State& state) {
  for (auto _ : state) {
    auto s = rightsize::load_spec(k_example);
    benchmark::DoNotOptimize(s.model.params_total);
  }
}
BENCHMARK(bm_load_spec)->Unit(benchmark::kMicrosecond);

// Evaluating one configuration: memory and performance, the unit of work of `plan`.
void bm_evaluate_configuration(benchmark::State& state) {
  const auto spec = rightsize::load_spec(k_example);
  const auto catalog = rightsize::load_catalog(k_catalog);
  const auto constants =
      rightsize::Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  const auto eff =
      rightsize::Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
  const auto& gpu = catalog.resolve("H100", "bench");
  rightsize::Parallelism p;
  for (auto _ : state) {
    const auto m = rightsize::estimate_memory(spec, gpu, p, constants);
    const auto r = rightsize::estimate_inference(spec, gpu, p, m, eff, constants);
    benchmark::DoNotOptimize(r.tpot);
  }
}
BENCHMARK(bm_evaluate_configuration)->Unit(benchmark::kMicrosecond);

// A whole plan over the catalog, in-process: the spec, catalog and constants already loaded.
void bm_plan(benchmark::State& state, const char* example) {
  const auto spec = rightsize::load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/" + example);
  const auto catalog = rightsize::load_catalog(k_catalog);
  const auto constants =
      rightsize::Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  const auto eff =
      rightsize::Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
  rightsize::PlanOptions options;
  options.today = "2026-11-21";
  for (auto _ : state) {
    auto plan = rightsize::make_plan(spec, catalog, constants, eff, options);
    benchmark::DoNotOptimize(plan.candidates.data());
  }
}
BENCHMARK_CAPTURE(bm_plan, chat_8b, "llama-3.1-8b-chat.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, sla_70b, "llama-3.1-70b-sla.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, mixtral, "mixtral-8x7b.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, lora_7b, "llama-2-7b-lora.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, pretrain_70b, "llama-3.1-70b-pretrain.json")
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
