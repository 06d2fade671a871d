#pragma once

// Figures as the reasons and recommendations write them.

#include <fmt/format.h>

#include <string>

namespace rightsize::analysis {

// "37%", and "4.6%" under 10% so that a figure and its threshold never print alike ("5% < 5%").
inline std::string percent(double fraction) {
  const double p = 100.0 * fraction;
  return p < 9.95 && p != 0.0 ? fmt::format("{:.1f}%", p) : fmt::format("{:.0f}%", p);
}

inline std::string gib_text(double bytes) {
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

} // namespace rightsize::analysis
