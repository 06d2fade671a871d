#pragma once

// The measured disaggregated serving runs of ../shared/validation/serving_measured.csv (NVIDIA
// aiconfigurator's silicon samples, mode "disagg") that give both pools' worker counts and
// layouts, each predicted by the disaggregated model (estimate/disaggregation.hpp) under the
// efficiencies fitted on aggregated runs: never fitted, reported apart, and the source of the
// disaggregated layout's band (data/uncertainty.json transfer.layout; docs/accuracy.md,
// "Disaggregated serving").

#include "perf_cases.hpp"

#include <string>

namespace rightsize::accuracy {

// Appends the TTFT and TPOT line of each run to perf.disaggregated, and why the others are
// skipped to perf.skipped. Ids carry the layout and concurrency ("<row id> 1P(8)+9D(8) c=576").
void append_disaggregated_cases(PerfCases& perf,
                                const std::string& validation_dir,
                                const std::string& configs_dir,
                                const Catalog& catalog,
                                const Constants& constants,
                                const Efficiency& efficiency);

} // namespace rightsize::accuracy
