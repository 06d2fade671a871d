// Benchmark clients' result files (rightsize calibrate, docs/calibrate.md "Result files"): any
// bytes through parse_bench_results, detection included; the input's first byte, when it is one
// of 1 to 6, forces a client instead (as --client would). Besides refusing bad input with
// InputErrors only, every run it accepts must hold together: requests completed, a positive
// finite duration, finite non-negative means, rates and statistics (a request rate may be +inf).

#include "fuzz_common.hpp"

#include <rightsize/calibrate/bench_result.hpp>

#include <cmath>
#include <cstdlib>
#include <optional>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

bool sane(double v) {
  return std::isfinite(v) && v >= 0;
}

template <class Q> bool sane(const std::optional<Q>& q) {
  return !q || sane(q->si());
}

bool sane_number(const std::optional<double>& v) {
  return !v || sane(*v);
}

void check_stats(const rightsize::LatencyStats& s) {
  check(sane(s.mean) && sane(s.median) && sane(s.p90) && sane(s.p99));
}

void check_run(const rightsize::BenchRun& r) {
  check(r.completed > 0);
  check(!r.failed || *r.failed >= 0);
  check(std::isfinite(r.duration.si()) && r.duration.si() > 0);
  check(sane(r.request_throughput.si()) && sane(r.output_token_throughput) &&
        sane(r.total_token_throughput));
  check(sane_number(r.mean_input_tokens) && sane_number(r.mean_output_tokens) &&
        sane(r.mean_tokens));
  check(!r.max_concurrency || *r.max_concurrency >= 0);
  check(!r.request_rate || r.request_rate->si() > 0); // +inf allowed
  check(!r.achieved_concurrency || sane(r.achieved_concurrency->value));
  check_stats(r.ttft);
  check_stats(r.tpot);
  check_stats(r.itl);
  check_stats(r.e2e);
  check(r.requests.empty() || static_cast<long long>(r.requests.size()) == r.completed);
  for (const auto& q : r.requests) {
    check(sane_number(q.input_tokens) && sane_number(q.output_tokens) && sane(q.ttft) &&
          sane(q.latency));
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::optional<rightsize::BenchClient> forced;
  if (size > 0 && data[0] >= 1 && data[0] <= 6) {
    forced = static_cast<rightsize::BenchClient>(data[0] - 1);
    ++data;
    --size;
  }
  rightsize::fuzz::expect_input_errors_only([&] {
    for (const auto& run : rightsize::parse_bench_results(
             rightsize::fuzz::as_text(data, size), "fuzz.json", forced)) {
      check_run(run);
    }
  });
  return 0;
}
