#pragma once

// Public AMD CDNA3 serving runs (data/measured/cdna3-public.csv, its README) turned into
// predictions beside the validation data's: offline output throughput, the end-to-end time of a
// static batch (vLLM's benchmark_latency), and the decode step of a static batch (SGLang's
// bench_one_batch). Group "amd", family cdna3, the row's engine.

#include "perf_cases.hpp"

#include <string>

namespace rightsize::accuracy {

// The group of every case appended here.
inline constexpr const char* k_amd_group = "amd";

// Appends one case per row of `csv_file` to `out`; `root` is the directory the rows' config paths
// are relative to (the repository). One configuration in four (GPU, model, TP, engine, lengths,
// scenario, batch: not the source or the engine's version, so that a configuration's repeats on
// other software stay on one side) is held out by the same hash as the validation rows, and every
// MoE row (its decode is not the dense model the family efficiencies stand for). Rows
// rightsize cannot express are listed in `out.skipped`.
void append_amd_cases(PerfCases& out,
                      const std::string& csv_file,
                      const std::string& root,
                      const Catalog& catalog,
                      const Constants& constants,
                      const Efficiency& efficiency);

// The source id of an "amd" case (the CSV's `source` column), from its id.
std::string amd_source(const PerfCase& c);

} // namespace rightsize::accuracy
