// nvidia-smi --query-gpu CSV logs, read the way `rightsize observe` reads a .csv file. Besides
// crashes and sanitizer reports, a broken invariant of Telemetry aborts: series of equal length,
// in time order, without NaN or infinity, and `samples` their total.

#include "fuzz_common.hpp"

#include <rightsize/observe/telemetry.hpp>

#include <cmath>
#include <cstdlib>

namespace {

// Telemetry's invariants: each series' times and values of equal length, times in order (equal
// times allowed: rows of one GPU may share a timestamp), every figure finite, `samples` the total.
void check_telemetry(const rightsize::Telemetry& t) {
  std::size_t stored = 0;
  for (const auto& gpu : t.gpus) {
    for (const auto& s : gpu.metrics) {
      if (s.time_s.size() != s.value.size()) {
        std::abort();
      }
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (!std::isfinite(s.value[i]) || !std::isfinite(s.time_s[i]) ||
            (i > 0 && s.time_s[i] < s.time_s[i - 1])) {
          std::abort();
        }
      }
      stored += s.size();
    }
  }
  if (stored != t.samples) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto t = rightsize::parse_nvidia_smi_csv(
        rightsize::fuzz::as_text(data, size), "fuzz.csv", "fuzz", 1.0);
    check_telemetry(t);
  });
  return 0;
}
