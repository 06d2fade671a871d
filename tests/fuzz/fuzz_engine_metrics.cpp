// Serving engines' /metrics scrapes (vLLM, SGLang, TensorRT-LLM; Prometheus text exposition
// format), read the way `rightsize observe --engine-metrics` reads them, with and without a
// workload name. Besides crashes and sanitizer reports, a broken invariant aborts: every summary
// finite, windows not negative, histogram buckets in increasing bound with counts that never fall,
// and each latency quantile inside the histogram's bounds.

#include "fuzz_common.hpp"

#include <rightsize/core/json_reader.hpp>
#include <rightsize/observe/serving.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

namespace {

const rightsize::EngineMetricCatalog& names() {
  static const rightsize::EngineMetricCatalog c = [] {
    const std::string path = std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json";
    return rightsize::parse_engine_metric_catalog(rightsize::detail::load_json_file(path), path);
  }();
  return c;
}

void check(const rightsize::Percentiles& p) {
  if (!std::isfinite(p.p50) || !std::isfinite(p.p95) || !std::isfinite(p.max) || p.p50 < 0 ||
      p.p95 > p.max) {
    std::abort();
  }
}

void check(const std::optional<rightsize::LatencyHistogram>& h) {
  if (!h) {
    return;
  }
  double bound = -HUGE_VAL;
  double count = 0;
  for (const auto& [le, c] : h->buckets) {
    if (!(le > bound) || c < count || !std::isfinite(c)) {
      std::abort();
    }
    bound = le;
    count = c;
  }
  for (const double q : {0.0, 0.5, 0.95, 1.0}) {
    if (const auto v = h->quantile(q); v && (!std::isfinite(*v) || *v < 0)) {
      std::abort();
    }
  }
}

void check(const rightsize::Telemetry& t) {
  if (!t.gpus.empty()) {
    std::abort();
  }
  for (const auto& e : t.engine_pods) {
    if (!std::isfinite(e.window_s) || e.window_s < 0 || e.engine.empty()) {
      std::abort();
    }
    check(e.running);
    check(e.waiting);
    check(e.demand);
    if (e.kv_cache_usage) {
      check(*e.kv_cache_usage);
    }
    if (e.preemptions && (!std::isfinite(*e.preemptions) || *e.preemptions < 0)) {
      std::abort();
    }
    check(e.ttft);
    check(e.itl);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rightsize::fuzz::as_text(data, size);
  for (const char* workload : {"", "ns/Deployment/chat"}) {
    rightsize::fuzz::expect_input_errors_only([&] {
      check(rightsize::parse_engine_metrics_text(text, "fuzz.prom", workload, names(), 30));
    });
  }
  return 0;
}
