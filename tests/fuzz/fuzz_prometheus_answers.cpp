// The answers of observe's server-side aggregation (docs/observe.md, "Aggregation in the
// server"): an instant query's vector (count/max/quantile_over_time, kube-state-metrics' owner
// series), a label values list, and the same body read as a query_range matrix (the presence
// counts). Whatever they accept must hold finite points, at most one per series of a vector.

#include "fuzz_common.hpp"

#include "observe/telemetry/prometheus/answer.hpp"

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto body = rightsize::fuzz::as_text(data, size);
  const std::string url = "http://fuzz/api/v1/query";
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto answer = rightsize::prometheus::parse_vector_answer(body, url);
    for (const auto& series : answer.series) {
      if (series.points.size() > 1) {
        std::abort(); // a vector's series has one value
      }
      for (const auto& p : series.points) {
        if (!std::isfinite(p.value) || !std::isfinite(p.time_s)) {
          std::abort();
        }
      }
    }
  });
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto answer = rightsize::prometheus::parse_answer(body, url);
    for (const auto& series : answer.series) {
      for (const auto& p : series.points) {
        if (!std::isfinite(p.value) || !std::isfinite(p.time_s)) {
          std::abort();
        }
      }
    }
  });
  rightsize::fuzz::expect_input_errors_only(
      [&] { (void)rightsize::prometheus::parse_label_values(body, url); });
  return 0;
}
