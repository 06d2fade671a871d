#pragma once

// Telemetry's invariants, checked by the fuzz targets of its parsers after every accepted input:
// each series' times and values of equal length, times in order, every figure finite, `samples`
// their total. A broken one aborts, which libFuzzer reports as a crash.

#include <rightsize/observe/telemetry.hpp>

#include <cmath>
#include <cstdlib>

namespace rightsize::fuzz {

enum class Times { ordered, strictly_increasing };

inline void check_telemetry(const Telemetry& t, Times times) {
  std::size_t stored = 0;
  for (const auto& gpu : t.gpus) {
    for (const auto& s : gpu.metrics) {
      if (s.time_s.size() != s.value.size()) {
        std::abort();
      }
      for (std::size_t i = 0; i < s.size(); ++i) {
        const bool in_order = i == 0 || (times == Times::ordered ? s.time_s[i - 1] <= s.time_s[i]
                                                                 : s.time_s[i - 1] < s.time_s[i]);
        if (!std::isfinite(s.value[i]) || !std::isfinite(s.time_s[i]) || !in_order) {
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

} // namespace rightsize::fuzz
