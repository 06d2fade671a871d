#pragma once

// Percentiles computed in place: observe.hpp's percentile() and summarize() copy their input,
// the analysis reorders samples it owns.

#include <rightsize/observe/observe.hpp>

#include <vector>

namespace rightsize::analysis {

// The percentiles `ps` (ascending, 0..100) of `values`, reordering it; each is 0 when `values`
// is empty.
std::vector<double> percentiles_in_place(std::vector<double>& values,
                                         const std::vector<double>& ps);

// p50, p95 and max of `values` (reordered), and the percentile `extra` into `extra_value`.
Percentiles summarize_in_place(std::vector<double>& values, double extra, double& extra_value);

} // namespace rightsize::analysis
