// rightsize_observe_fleet: how long rightsize observe takes to summarize a fleet once its samples
// are in memory (as query_prometheus or the file parsers leave them): W workloads (one GPU each,
// every verdict represented) x D days at a step, 7 metrics per GPU as dcgm-exporter's default
// fields give them. Issue 18's target: 1,000 workloads x 7 days at 30 s in under 5 s.
//
//   rightsize_observe_fleet [--workloads N] [--days D] [--step S] [--runs R]
//
// Prints the samples held, the time to build them (not counted) and the median of R runs of
// observe(), and the samples summarized per second. docs/performance.md records the figures.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/observe/observe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One GPU's week: a daily cycle of work around a level that sets its verdict, with noise from a
// fixed linear congruential generator so that every run sees the same fleet.
rightsize::GpuSeries gpu_week(int w, std::size_t ticks, double step) {
  using rightsize::Metric;
  rightsize::GpuSeries g;
  g.id.host = fmt::format("node-{:04d}", w / 8);
  g.id.index = std::to_string(w % 8);
  g.id.uuid = fmt::format("GPU-{:08x}", w);
  g.id.model_name = "NVIDIA H100 80GB HBM3";
  g.id.namespace_name = "fleet";
  g.id.pod = fmt::format("workload-{:04d}", w);
  g.id.source = "generated";
  const double level[] = {0.01, 0.2, 0.6, 0.95};
  const double memory_gib[] = {2, 20, 50, 78};
  const int shape = w % 4;
  std::uint32_t state = 12345u + static_cast<std::uint32_t>(w);
  const auto noise = [&state]() {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / 16777216.0 - 0.5; // [-0.5, 0.5)
  };
  for (auto& m : g.metrics) {
    m.time_s.reserve(ticks);
    m.value.reserve(ticks);
  }
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  for (std::size_t i = 0; i < ticks; ++i) {
    const double t = 1.7e9 + step * static_cast<double>(i);
    const double day = 0.5 + 0.5 * std::sin(2 * M_PI * t / 86400);
    const double work = std::clamp(level[shape] * (0.7 + 0.6 * day) + 0.05 * noise(), 0.0, 1.0);
    g[Metric::gpu_utilization].add(t, work);
    g[Metric::memory_utilization].add(t, work * 0.6);
    g[Metric::memory_used].add(t, (memory_gib[shape] + noise()) * gib);
    g[Metric::memory_total].add(t, 79.6 * gib);
    g[Metric::power].add(t, 100 + 600 * work);
    g[Metric::sm_clock].add(t, 1.98e9);
    g[Metric::temperature].add(t, 35 + 40 * work);
  }
  return g;
}

} // namespace

int main(int argc, char** argv) {
  int workloads = 1000;
  double days = 7;
  double step = 30;
  int runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const double v = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--workloads") == 0 && v >= 1) {
      workloads = static_cast<int>(v);
    } else if (std::strcmp(argv[i], "--days") == 0 && v > 0) {
      days = v;
    } else if (std::strcmp(argv[i], "--step") == 0 && v > 0) {
      step = v;
    } else if (std::strcmp(argv[i], "--runs") == 0 && v >= 1) {
      runs = static_cast<int>(v);
    } else {
      fmt::print(stderr,
                 "usage: rightsize_observe_fleet [--workloads N] [--days D] [--step S] "
                 "[--runs R]\n");
      return 2;
    }
  }
  const std::string data = RIGHTSIZE_DATA_DIR;
  const auto catalog = rightsize::load_catalog(data + "/gpus.json");
  const auto products = rightsize::load_gpu_products(data + "/deploy.json");

  const auto build_start = Clock::now();
  const auto ticks = static_cast<std::size_t>(days * 86400 / step);
  rightsize::Telemetry fleet;
  for (int w = 0; w < workloads; ++w) {
    fleet.gpus.push_back(gpu_week(w, ticks, step));
    fleet.samples += 7 * ticks;
  }
  const double build_s = seconds_since(build_start);

  std::vector<double> times;
  rightsize::ObserveReport report;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    report = rightsize::observe(fleet, {}, catalog, products, {});
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  fmt::print("fleet: {} workloads x {:g} days at {:g} s = {} samples (built in {:.2f} s)\n",
             workloads,
             days,
             step,
             fleet.samples,
             build_s);
  fmt::print("observe(): median {:.3f} s of {} runs ({:.1f} M samples/s); verdicts: {} over, {} "
             "under, {} right, {} idle\n",
             median,
             runs,
             static_cast<double>(fleet.samples) / median / 1e6,
             report.summary.by_verdict["over-provisioned"],
             report.summary.by_verdict["under-provisioned"],
             report.summary.by_verdict["right-sized"],
             report.summary.by_verdict["idle"]);
  return 0;
}
