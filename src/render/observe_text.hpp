#pragma once

// The phrases observe's renderers share (table, Markdown, HTML): a workload's GPUs, its
// recommendation in a word or two, its work and memory peak, the saving, and the fleet summary's
// two lines. observe.cpp.

#include <rightsize/observe/observe.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace rightsize {

// "$1,234", "+$500 more" (a recommendation that costs more), "-".
std::string saved_text(const std::optional<double>& saved);
// "2x H100-SXM-80GB", "1x A100-SXM-80GB 3g.40gb", "none".
std::string gpu_text(const std::string& gpu, int count, const std::string& partition);
// "free it", "keep", or the GPUs to move to.
std::string recommendation_text(const WorkloadObservation& w);
// The work at p95 ("62%") and the largest memory of one GPU ("71.2 GiB"), "-" when unknown.
std::string work_p95(const WorkloadObservation& w);
std::string memory_peak(const WorkloadObservation& w);
// "1 over-provisioned, 0 under-provisioned, 2 right-sized, 1 idle".
std::string verdict_counts(const ObserveSummary& s);
// The report's first two lines: workloads, window and verdicts; GPUs freed and money.
std::string summary_lines(const ObserveReport& r);
// A serving workload judged on its engine's metrics: its queue, cache, latency, spec and the
// estimator's figures, one line each ("engine: ...", "latency: ...", "spec: ...", "estimator
// on ..."); none for other workloads.
std::vector<std::string> serving_lines(const WorkloadObservation& w);
// The JSON report's document (data/observe-report.schema.json), which --format yaml writes too.
nlohmann::json observe_report_json(const ObserveReport& r);

} // namespace rightsize
