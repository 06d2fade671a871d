// Percentiles by linear interpolation between order statistics. docs/observe.md.

#include "percentiles.hpp"

#include <algorithm>
#include <cmath>

namespace rightsize {

namespace analysis {

// The percentiles `ps` (ascending, 0..100) of `values`, reordering it: each nth_element works on
// what is left above the previous rank, so k percentiles cost about one pass, not k sorts.
std::vector<double> percentiles_in_place(std::vector<double>& values,
                                         const std::vector<double>& ps) {
  std::vector<double> out;
  out.reserve(ps.size());
  if (values.empty()) {
    out.assign(ps.size(), 0.0);
    return out;
  }
  auto from = values.begin();
  for (double p : ps) {
    p = std::clamp(p, 0.0, 100.0);
    // Linear interpolation between the order statistics around rank p/100 * (n - 1), as
    // numpy's default: the 95th percentile of 1..11 is 10.5.
    const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::ptrdiff_t>(std::floor(rank));
    const auto nth = values.begin() + below;
    if (nth >= from) {
      std::nth_element(from, nth, values.end());
      from = nth;
    }
    const double low = *nth;
    double value = low;
    if (nth + 1 != values.end() && rank > static_cast<double>(below)) {
      const double high = *std::min_element(nth + 1, values.end());
      value = low + (high - low) * (rank - static_cast<double>(below));
    }
    out.push_back(value);
  }
  return out;
}

Percentiles summarize_in_place(std::vector<double>& values, double extra, double& extra_value) {
  Percentiles p;
  p.samples = values.size();
  if (values.empty()) {
    extra_value = 0;
    return p;
  }
  std::vector<double> ps = {50, 95, extra, 100};
  std::sort(ps.begin(), ps.end());
  const auto got = percentiles_in_place(values, ps);
  const auto at = [&](double q) {
    return got[static_cast<std::size_t>(std::find(ps.begin(), ps.end(), q) - ps.begin())];
  };
  p.p50 = at(50);
  p.p95 = at(95);
  p.max = at(100);
  extra_value = at(extra);
  return p;
}

} // namespace analysis

double percentile(std::vector<double> values, double p) {
  return analysis::percentiles_in_place(values, {p}).front();
}

Percentiles summarize(const std::vector<double>& values) {
  std::vector<double> copy = values;
  double unused = 0;
  return analysis::summarize_in_place(copy, 50, unused);
}

} // namespace rightsize
