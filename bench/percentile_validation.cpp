// rightsize_percentile_validation: the serving simulation (estimate/latency_distribution.hpp)
// against measured latency percentiles (bench/percentiles/measured.csv, sources in its
// SOURCES.md). Each run is simulated as its client sent it: a burst of N requests, or Poisson
// arrivals at its rate, with its lengths; the run's own statistics are compared, with nothing
// fitted on them. Prints a row per run and the median |error| per statistic (docs/accuracy.md,
// "Latency percentiles").

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/statistics.hpp>
#include <rightsize/estimate/latency_distribution.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace rightsize;
using rightsize::detail::CsvRecord;
using rightsize::detail::CsvRecordReader;
using rightsize::detail::CsvTable;
using rightsize::detail::parse_csv;
using rightsize::detail::Range;

namespace {

struct Measured {
  std::optional<double> mean;
  std::optional<double> median;
  std::optional<double> p99;
};

struct Run {
  std::string id;
  std::string engine;
  std::string version;
  std::string gpu;
  std::string config;
  LengthRange input;
  LengthRange output;
  Arrivals arrivals;
  std::optional<double> memory_utilization;
  std::optional<long long> batched_tokens;
  Measured ttft;
  Measured tpot;
};

std::vector<Run> read_runs(const std::string& path) {
  const std::string text = read_input_file(path, 1 << 20, "measured percentiles");
  const CsvTable table = parse_csv(text, path, 10000);
  std::vector<Run> runs;
  for (const CsvRecord& record : table.records) {
    const CsvRecordReader r(table, record);
    Run run;
    run.id = r.string("id");
    run.engine = r.string("engine");
    run.version = r.string("engine_version");
    run.gpu = r.string("gpu");
    run.config = r.string("model_config");
    const Range tokens{1, 1e7};
    run.input = {r.integer("input_low", tokens), r.integer("input_max", tokens)};
    run.output = {r.integer("output_low", tokens), r.integer("output_max", tokens)};
    run.arrivals.requests = r.integer("requests", tokens);
    if (r.string("arrivals") == "burst") {
      run.arrivals.process = ArrivalProcess::burst;
    } else {
      run.arrivals.process = ArrivalProcess::open;
      run.arrivals.rate = r.number("rate", Range{1e-6, 1e6});
    }
    run.memory_utilization = r.optional_number("gpu_memory_utilization", Range{0, 1});
    run.batched_tokens = r.optional_integer("max_num_batched_tokens", tokens);
    const Range ms{0, 1e9};
    run.ttft = {r.optional_number("mean_ttft_ms", ms),
                r.optional_number("median_ttft_ms", ms),
                r.optional_number("p99_ttft_ms", ms)};
    run.tpot = {r.optional_number("mean_tpot_ms", ms),
                r.optional_number("median_tpot_ms", ms),
                r.optional_number("p99_tpot_ms", ms)};
    runs.push_back(run);
  }
  return runs;
}

Spec spec_of(const Run& run) {
  nlohmann::json w{{"type", "inference"},
                   {"engine", run.engine},
                   {"engine_version", run.version},
                   {"input_tokens", run.input.high},
                   {"output_tokens", run.output.high},
                   {"concurrency", 1}};
  if (run.input.low < run.input.high) {
    w["length_low_ratio"] =
        static_cast<double>(run.input.low) / static_cast<double>(run.input.high);
  }
  if (run.memory_utilization) {
    w["gpu_memory_utilization"] = *run.memory_utilization;
  }
  if (run.batched_tokens) {
    w["max_num_batched_tokens"] = *run.batched_tokens;
  }
  return parse_spec({{"model", std::string(RIGHTSIZE_CONFIGS_DIR) + "/" + run.config},
                     {"precision", "bf16"},
                     {"workload", w}},
                    run.id);
}

struct Errors {
  std::map<std::string, std::vector<double>> by_statistic; // |predicted / measured - 1|
  void add(const std::string& name, std::optional<double> measured, double predicted) {
    if (measured && *measured > 0) {
      by_statistic[name].push_back(std::abs(predicted / *measured - 1.0));
    }
  }
};

std::string cell(std::optional<double> measured, double predicted) {
  return measured ? fmt::format("{:.0f} / {:.0f}", *measured, predicted)
                  : fmt::format("- / {:.0f}", predicted);
}

} // namespace

int main() {
  try {
    const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const Constants constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    const Efficiency eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
    const auto runs = read_runs(std::string(RIGHTSIZE_BENCH_DIR) + "/percentiles/measured.csv");
    Errors errors;
    Errors shape; // p99 / median, measured against simulated
    fmt::print("| run | TTFT median (measured / simulated, ms) | TTFT p99 | TPOT median | "
               "TPOT p99 |\n|---|---|---|---|---|\n");
    for (const Run& run : runs) {
      const Spec spec = spec_of(run);
      const Gpu& gpu = catalog.resolve(run.gpu, run.id);
      const ServingLayout layout = serving_layout(spec, gpu, Parallelism{}, constants, eff);
      const MemoryEstimate memory = estimate_memory(layout.memory);
      SchedulerModel model = scheduler_model(layout, memory);
      const SimulatedLatency s = simulate_serving(model, run.input, run.output, run.arrivals);
      const auto ms = [](Seconds x) { return x.si() * 1e3; };
      fmt::print("| {} | {} | {} | {} | {} |\n",
                 run.id,
                 cell(run.ttft.median, ms(s.ttft.p50)),
                 cell(run.ttft.p99, ms(s.ttft.p99)),
                 cell(run.tpot.median, ms(s.tpot.p50)),
                 cell(run.tpot.p99, ms(s.tpot.p99)));
      errors.add("TTFT median", run.ttft.median, ms(s.ttft.p50));
      errors.add("TTFT p99", run.ttft.p99, ms(s.ttft.p99));
      errors.add("TPOT median", run.tpot.median, ms(s.tpot.p50));
      errors.add("TPOT p99", run.tpot.p99, ms(s.tpot.p99));
      if (run.ttft.median && run.ttft.p99) {
        shape.add("TTFT p99 / median", *run.ttft.p99 / *run.ttft.median, s.ttft.p99 / s.ttft.p50);
      }
      if (run.tpot.median && run.tpot.p99) {
        shape.add("TPOT p99 / median", *run.tpot.p99 / *run.tpot.median, s.tpot.p99 / s.tpot.p50);
      }
    }
    fmt::print("\n| statistic | runs | median error | worst |\n|---|---|---|---|\n");
    for (const Errors* e : {&errors, &shape}) {
      for (auto [name, v] : e->by_statistic) {
        std::sort(v.begin(), v.end());
        fmt::print("| {} | {} | {:.0f}% | {:.0f}% |\n",
                   name,
                   v.size(),
                   100.0 * linear_percentile(v, 50),
                   100.0 * v.back());
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "rightsize_percentile_validation: {}\n", e.what());
    return 1;
  }
  return 0;
}
