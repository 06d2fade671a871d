// Ingestion timings of the telemetry file parsers (Google Benchmark), the figures of
// docs/performance.md: parse_nvidia_smi_csv and parse_dcgm_text over generated files
// (bench/telemetry_generator.hpp), 100 GPUs (10 hosts x 10 GPUs) over one day at 30 s, one file
// per host and format. items_per_second is samples (one value of one metric) per second, on one
// core. The files are generated in memory before the first timing.
// Run: build/bench/rightsize_bench_observe [--benchmark_filter=REGEX]
//   RIGHTSIZE_BENCH_TELEMETRY_HOURS=N covers N hours instead of 24.

#include "telemetry_generator.hpp"

#include <rightsize/observe/telemetry.hpp>

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace rightsize;

enum class Format { nvidia_smi, dcgm };

struct Corpus {
  bench::TelemetryPlan plan;
  std::vector<std::string> names; // host names
  std::vector<std::string> files; // one per host
  std::size_t bytes = 0;
  std::size_t samples = 0; // expected per pass
};

bench::TelemetryPlan default_plan() {
  bench::TelemetryPlan plan;
  plan.hosts = 10;
  plan.gpus_per_host = 10;
  plan.interval_s = 30;
  plan.duration_s = 86400;
  if (const char* hours = std::getenv("RIGHTSIZE_BENCH_TELEMETRY_HOURS")) {
    const double h = std::atof(hours);
    if (h > 0) {
      plan.duration_s = h * 3600;
    }
  }
  return plan;
}

Corpus make_corpus(Format format) {
  Corpus c;
  c.plan = default_plan();
  for (int h = 0; h < c.plan.hosts; ++h) {
    c.names.push_back(bench::host_name(h));
    c.files.push_back(format == Format::nvidia_smi ? bench::nvidia_smi_csv(c.plan, h)
                                                   : bench::dcgm_text(c.plan, h));
    c.bytes += c.files.back().size();
    c.samples += format == Format::nvidia_smi ? bench::nvidia_smi_samples_per_host(c.plan)
                                              : bench::dcgm_samples_per_host(c.plan);
  }
  return c;
}

const Corpus& corpus(Format format) {
  static const Corpus nvidia_smi = make_corpus(Format::nvidia_smi);
  static const Corpus dcgm = make_corpus(Format::dcgm);
  return format == Format::nvidia_smi ? nvidia_smi : dcgm;
}

void run(benchmark::State& state, Format format) {
  const Corpus& c = corpus(format);
  std::size_t samples = 0;
  for (auto _ : state) {
    std::size_t pass = 0;
    for (std::size_t h = 0; h < c.files.size(); ++h) {
      const Telemetry t =
          format == Format::nvidia_smi
              ? parse_nvidia_smi_csv(c.files[h], c.names[h] + ".csv", c.names[h])
              : parse_dcgm_text(c.files[h], c.names[h] + ".prom", c.plan.interval_s);
      pass += t.samples;
      benchmark::DoNotOptimize(t.gpus.data());
    }
    if (pass != c.samples) {
      state.SkipWithError("the parser stored another number of samples than generated");
      return;
    }
    samples += pass;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(samples));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(c.bytes));
  state.counters["gpus"] = c.plan.hosts * c.plan.gpus_per_host;
  state.counters["samples"] = static_cast<double>(c.samples);
  state.counters["MB"] = static_cast<double>(c.bytes) / 1e6;
}

void bm_parse_nvidia_smi_csv(benchmark::State& state) {
  run(state, Format::nvidia_smi);
}

void bm_parse_dcgm_text(benchmark::State& state) {
  run(state, Format::dcgm);
}

BENCHMARK(bm_parse_nvidia_smi_csv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_parse_dcgm_text)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
