#pragma once

// The project's own GPU measurements (data/measured/*.json, bench/gpu/README.md) turned into
// predictions beside the validation data's: transformers' generate (TTFT, TPOT), the GPU work of
// decode and prefill steps (the step physics without engine costs), and training steps.

#include "perf_cases.hpp"

#include <string>

namespace rightsize::accuracy {

// Appends the cases of one measurement file to `out`. One configuration in four is held out by
// the same hash as the validation rows.
void append_measured_cases(PerfCases& out,
                           const std::string& measured_file,
                           const std::string& configs_dir,
                           const Catalog& catalog,
                           const Constants& constants);

} // namespace rightsize::accuracy
