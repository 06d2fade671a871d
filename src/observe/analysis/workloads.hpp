#pragma once

// Telemetry and traces grouped into workloads: a GPU seen in several inputs merged into one, the
// GPUs grouped by pod, host or GPU (--group-by), each trace attached to its workload.

#include <rightsize/observe/observe.hpp>

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace rightsize::analysis {

struct Group {
  std::string name;
  std::vector<const GpuSeries*> gpus;
  std::vector<const TraceProfile*> traces;
  std::vector<const EngineSeries*> engine; // its pods' serving engine metrics
};

// The GPUs of `telemetry`, each once: a GPU seen in one input is used in place; one seen in
// several is merged into `merged` (stable addresses: a deque).
std::vector<const GpuSeries*> merge_duplicates(const Telemetry& telemetry,
                                               std::deque<GpuSeries>& merged);

// Each pod's engine metrics to the group whose GPUs that pod holds (or whose name a file was given
// for: --engine-metrics WORKLOAD=FILE); a warning counts those no group holds (serving.cpp).
void attach_engine_metrics(std::vector<Group>& groups,
                           const std::vector<EngineSeries>& pods,
                           std::vector<std::string>& warnings);

// The GPUs grouped by workload name (namespace/pod, host or host/gpu0), in the order first seen.
std::vector<Group> group_workloads(const std::vector<const GpuSeries*>& gpus, GroupBy by);

// Each trace attached to its named workload (InputError when none has the name), else to the only
// workload, else made a workload of its own (with a warning when several have telemetry).
void attach_traces(std::vector<Group>& groups,
                   const std::vector<NamedTrace>& traces,
                   std::vector<std::string>& warnings);

// Whether any of the group's GPUs has samples of `m`, or the server's summary of them.
bool has(const Group& g, Metric m);

// One metric summarized: p50, p95, max and the sample count, the value at `extra` (a percentile,
// 0..100) and the mean.
struct Summary {
  Percentiles percentiles;
  double extra = 0;
  double mean = 0;
};

// `m` on one GPU: from the server's summary when there is one (docs/observe.md, "Aggregation in
// the server"), else from its samples; nullopt when it has neither.
std::optional<Summary> gpu_summary(const GpuSeries& g, Metric m, double extra);

// `m` over the group's GPUs. From samples, every sample pooled; where any GPU has a server
// summary, the GPUs' summaries combined: the count summed, the maximum the largest, the mean and
// each percentile the mean of the GPUs' weighted by their sample counts (exact for one GPU).
// nullopt when no GPU has `m`.
std::optional<Summary> group_summary(const Group& g, Metric m, double extra);

} // namespace rightsize::analysis
