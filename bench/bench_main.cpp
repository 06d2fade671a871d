// Timing benchmarks (Google Benchmark): the in-process figures of docs/performance.md.
// Run: build/bench/rightsize_bench [--benchmark_filter=REGEX]
// Plans use the options `rightsize plan` uses (uncertainty bands, the engine support table,
// today's date); whole-process figures come from bench/wall_time.sh. Unit tests never assert
// wall-clock time.

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "spec_generator.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/catalog/prices.hpp>
#include <rightsize/check/lock.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/render/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using namespace rightsize;

// How many generated specs `check` runs over: the "check over 1,000 specs".
constexpr int k_generated_specs = 1000;
constexpr unsigned k_seed = 1;

std::string data_file(const char* name) {
  return cli::bundled_data_dir({}) + "/" + name;
}

std::string example(const char* name) {
  return std::string(RIGHTSIZE_EXAMPLES_DIR) + "/" + name;
}

// Everything `rightsize plan` loads besides the spec, loaded as it loads it (cmd_plan.cpp).
struct PlanData {
  Catalog catalog = load_catalog(cli::bundled_catalog_path({}));
  Constants constants = cli::load_constants({}, {});
  Efficiency efficiency = Efficiency::load(data_file("efficiency.json"));
  Uncertainty uncertainty = Uncertainty::load(data_file("uncertainty.json"));
  EngineSupport engines = load_engine_support(data_file("engines.json"));
  std::string today = cli::today();

  // The spec at `path` with its provider resolved, as plan and check do before planning.
  [[nodiscard]] Spec spec(const std::string& path) const {
    Spec s = load_spec(path);
    auto& d = s.deployment;
    if (d.mode == DeploymentMode::cloud) {
      if (d.provider) {
        d.provider = resolve_provider(catalog, *d.provider, path + ":/deployment/provider");
      }
      check_price_kind(catalog, d.price_kind, d.provider, path + ":/deployment/price_kind");
    }
    return s;
  }

  // PlanOptions as cmd_plan.cpp fills them with no flags given.
  [[nodiscard]] PlanOptions options(const Spec& spec) const {
    PlanOptions o;
    o.uncertainty = &uncertainty;
    o.engines = &engines;
    o.today = today;
    o.stale_days = spec.deployment.stale_price_days;
    return o;
  }
};

const PlanData& plan_data() {
  static const PlanData data;
  return data;
}

// k_generated_specs specs (bench/spec_generator.hpp) in a temporary folder, removed at exit,
// with the lock file `check --update` would write beside them. It is written once from the
// plans: `check --update` itself rewrites the whole file after each spec.
class GeneratedSpecs {
public:
  GeneratedSpecs() {
    std::string pattern = (fs::temp_directory_path() / "rightsize-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary directory");
    }
    m_dir = pattern;
    const PlanData& d = plan_data();
    LockFile lock;
    lock.path = (fs::path(m_dir) / "rightsize.lock.json").string();
    for (const auto& [name, json] :
         bench::generate_specs(k_generated_specs, k_seed, RIGHTSIZE_CONFIGS_DIR)) {
      const std::string path = (fs::path(m_dir) / name).string();
      write_file_atomically(path, json.dump(2) + "\n");
      m_files.push_back(path);
      try {
        const Spec spec = d.spec(path);
        const Plan plan = make_plan(spec, d.catalog, d.constants, d.efficiency, d.options(spec));
        lock.entries[lock_key(path)] = make_lock_entry(plan);
      } catch (const std::exception& e) {
        m_error = path + ": " + e.what();
        return;
      }
    }
    write_lock_file(lock);
  }
  GeneratedSpecs(const GeneratedSpecs&) = delete;
  GeneratedSpecs& operator=(const GeneratedSpecs&) = delete;
  ~GeneratedSpecs() {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }

  [[nodiscard]] const std::string& dir() const { return m_dir; }
  [[nodiscard]] const std::vector<std::string>& files() const { return m_files; }
  // Empty when every spec planned and the lock file was written.
  [[nodiscard]] const std::string& error() const { return m_error; }

private:
  std::string m_dir;
  std::vector<std::string> m_files;
  std::string m_error;
};

const GeneratedSpecs& generated_specs() {
  static const GeneratedSpecs specs;
  return specs;
}

// --- Loading the inputs -------------------------------------------------------------------------

// Reading, validating and converting the whole bundled catalog (every field sourced).
void bm_load_catalog(benchmark::State& state) {
  const std::string path = cli::bundled_catalog_path({});
  for (auto _ : state) {
    auto c = load_catalog(path);
    benchmark::DoNotOptimize(c.gpus.data());
  }
}
BENCHMARK(bm_load_catalog)->Unit(benchmark::kMicrosecond);

// Only the JSON parse of the catalog file (nlohmann), to see what validation adds on top.
void bm_parse_catalog_json(benchmark::State& state) {
  std::ifstream in(cli::bundled_catalog_path({}));
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  for (auto _ : state) {
    auto j = nlohmann::json::parse(s);
    benchmark::DoNotOptimize(j.size());
  }
}
BENCHMARK(bm_parse_catalog_json)->Unit(benchmark::kMicrosecond);

// data/memory.json, as the CLI loads it (no --assume).
void bm_load_constants(benchmark::State& state) {
  for (auto _ : state) {
    auto c = cli::load_constants({}, {});
    benchmark::DoNotOptimize(&c);
  }
}
BENCHMARK(bm_load_constants)->Unit(benchmark::kMicrosecond);

void bm_load_efficiency(benchmark::State& state) {
  const std::string path = data_file("efficiency.json");
  for (auto _ : state) {
    auto e = Efficiency::load(path);
    benchmark::DoNotOptimize(&e);
  }
}
BENCHMARK(bm_load_efficiency)->Unit(benchmark::kMicrosecond);

void bm_load_engines(benchmark::State& state) {
  const std::string path = data_file("engines.json");
  for (auto _ : state) {
    auto e = load_engine_support(path);
    benchmark::DoNotOptimize(&e);
  }
}
BENCHMARK(bm_load_engines)->Unit(benchmark::kMicrosecond);

void bm_load_uncertainty(benchmark::State& state) {
  const std::string path = data_file("uncertainty.json");
  for (auto _ : state) {
    auto u = Uncertainty::load(path);
    benchmark::DoNotOptimize(&u);
  }
}
BENCHMARK(bm_load_uncertainty)->Unit(benchmark::kMicrosecond);

// Reading a spec and the config.json it points at.
void bm_load_spec(benchmark::State& state, const char* name) {
  const std::string path = example(name);
  for (auto _ : state) {
    auto s = load_spec(path);
    benchmark::DoNotOptimize(s.model.params_total);
  }
}
BENCHMARK_CAPTURE(bm_load_spec, chat_8b, "llama-3.1-8b-chat.json")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_load_spec, mixtral, "mixtral-8x7b.json")->Unit(benchmark::kMicrosecond);

// --- One evaluation: the unit of work of `plan` -------------------------------------------------

// Memory and serving performance of one configuration (8B chat on one H100).
void bm_evaluate_inference(benchmark::State& state) {
  const PlanData& d = plan_data();
  const Spec spec = d.spec(example("llama-3.1-8b-chat.json"));
  const Gpu& gpu = d.catalog.resolve("H100", "bench");
  const Parallelism p;
  for (auto _ : state) {
    const auto m = estimate_memory(spec, gpu, p, d.constants);
    const auto r = estimate_inference(spec, gpu, p, m, d.efficiency, d.constants);
    benchmark::DoNotOptimize(r.tpot);
  }
}
BENCHMARK(bm_evaluate_inference)->Unit(benchmark::kMicrosecond);

// The same evaluation as the search makes it: figures only (Detail::numbers), no sentences.
void bm_evaluate_inference_numbers(benchmark::State& state) {
  const PlanData& d = plan_data();
  const Spec spec = d.spec(example("llama-3.1-8b-chat.json"));
  const Gpu& gpu = d.catalog.resolve("H100", "bench");
  const Parallelism p;
  for (auto _ : state) {
    const auto m = estimate_memory(spec, gpu, p, d.constants, std::nullopt, Detail::numbers);
    const auto r =
        estimate_inference(spec, gpu, p, m, d.efficiency, d.constants, 1, Detail::numbers);
    benchmark::DoNotOptimize(r.tpot);
  }
}
BENCHMARK(bm_evaluate_inference_numbers)->Unit(benchmark::kMicrosecond);

// Memory and step time of one training layout (70B pre-training, TP 8 x PP 4 x DP 16 on H100).
void bm_evaluate_training(benchmark::State& state) {
  const PlanData& d = plan_data();
  const Spec spec = d.spec(example("llama-3.1-70b-pretrain.json"));
  const Gpu& gpu = d.catalog.resolve("H100", "bench");
  Parallelism p;
  p.tp = 8;
  p.pp = 4;
  p.dp = 16;
  for (auto _ : state) {
    const auto m = estimate_memory(spec, gpu, p, d.constants);
    const auto r = estimate_training(spec, gpu, p, m, d.efficiency);
    benchmark::DoNotOptimize(&r);
  }
}
BENCHMARK(bm_evaluate_training)->Unit(benchmark::kMicrosecond);

// --- Plans --------------------------------------------------------------------------------------

// make_plan alone, with the options `rightsize plan` uses: the spec and data already loaded.
void bm_plan(benchmark::State& state, const char* name) {
  const PlanData& d = plan_data();
  const Spec spec = d.spec(example(name));
  const PlanOptions options = d.options(spec);
  for (auto _ : state) {
    auto plan = make_plan(spec, d.catalog, d.constants, d.efficiency, options);
    benchmark::DoNotOptimize(plan.candidates.data());
  }
}
BENCHMARK_CAPTURE(bm_plan, chat_8b, "llama-3.1-8b-chat.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, sla_70b, "llama-3.1-70b-sla.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, mixtral, "mixtral-8x7b.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, lora_7b, "llama-2-7b-lora.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, pretrain_70b, "llama-3.1-70b-pretrain.json")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_plan, infeasible, "infeasible-latency.json")->Unit(benchmark::kMillisecond);

// Rendering a finished plan as JSON (what `plan --format json` prints). The on-prem Mixtral plan
// is the largest report: a month-by-month cost for each candidate over 36 months.
void bm_render_plan_json(benchmark::State& state, const char* name) {
  const PlanData& d = plan_data();
  const Spec spec = d.spec(example(name));
  const Plan plan = make_plan(spec, d.catalog, d.constants, d.efficiency, d.options(spec));
  const RenderOptions render;
  for (auto _ : state) {
    std::ostringstream out;
    render_plan_json(plan, render, out);
    benchmark::DoNotOptimize(out.tellp());
  }
}
BENCHMARK_CAPTURE(bm_render_plan_json, chat_8b, "llama-3.1-8b-chat.json")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_render_plan_json, mixtral, "mixtral-8x7b.json")->Unit(benchmark::kMicrosecond);

// `rightsize plan SPEC --format json` in-process (cli::run): every load, the plan and the
// rendering; the whole process adds only its start and exit.
void bm_cli_plan(benchmark::State& state, const char* name) {
  const std::vector<std::string> args{"plan", example(name), "--format", "json"};
  for (auto _ : state) {
    std::ostringstream out;
    std::ostringstream err;
    const int code = cli::run(args, out, err);
    if (code != 0 && code != 3) {
      state.SkipWithError(("exit " + std::to_string(code) + ": " + err.str()).c_str());
      break;
    }
    benchmark::DoNotOptimize(out.tellp());
  }
}
BENCHMARK_CAPTURE(bm_cli_plan, chat_8b, "llama-3.1-8b-chat.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_cli_plan, sla_70b, "llama-3.1-70b-sla.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_cli_plan, mixtral, "mixtral-8x7b.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_cli_plan, lora_7b, "llama-2-7b-lora.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_cli_plan, pretrain_70b, "llama-3.1-70b-pretrain.json")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_cli_plan, infeasible, "infeasible-latency.json")
    ->Unit(benchmark::kMillisecond);

// --- Many specs ---------------------------------------------------------------------------------

// The counter ms_per_spec: wall time since `started` per iteration and spec.
void set_ms_per_spec(benchmark::State& state,
                     std::chrono::steady_clock::time_point started,
                     std::size_t specs) {
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - started;
  state.counters["ms_per_spec"] =
      elapsed.count() / (static_cast<double>(state.iterations()) * static_cast<double>(specs));
}

// load_spec and make_plan over the generated specs, as `check` plans each: the planning part of
// `check`, without lock files. Reports the time per spec as well.
void bm_plan_generated_specs(benchmark::State& state) {
  const PlanData& d = plan_data();
  const GeneratedSpecs& g = generated_specs();
  if (!g.error().empty()) {
    state.SkipWithError(g.error().c_str());
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    for (const auto& file : g.files()) {
      try {
        const Spec spec = d.spec(file);
        auto plan = make_plan(spec, d.catalog, d.constants, d.efficiency, d.options(spec));
        benchmark::DoNotOptimize(plan.candidates.data());
      } catch (const std::exception& e) {
        state.SkipWithError((file + ": " + e.what()).c_str());
        return;
      }
    }
  }
  set_ms_per_spec(state, started, g.files().size());
}
BENCHMARK(bm_plan_generated_specs)->Unit(benchmark::kMillisecond);

// `rightsize check DIR --format json` in-process over the generated specs and their lock file:
// what CI runs, less the process start.
void bm_cli_check(benchmark::State& state) {
  const GeneratedSpecs& g = generated_specs();
  if (!g.error().empty()) {
    state.SkipWithError(g.error().c_str());
    return;
  }
  const std::vector<std::string> args{"check", g.dir(), "--format", "json"};
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    std::ostringstream out;
    std::ostringstream err;
    const int code = cli::run(args, out, err);
    if (code == 2 || code == 4) {
      state.SkipWithError(("exit " + std::to_string(code) + ": " + err.str()).c_str());
      break;
    }
    benchmark::DoNotOptimize(out.tellp());
  }
  set_ms_per_spec(state, started, g.files().size());
}
BENCHMARK(bm_cli_check)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
