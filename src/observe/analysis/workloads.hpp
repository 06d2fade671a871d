#pragma once

// Telemetry and traces grouped into workloads: a GPU seen in several inputs merged into one, the
// GPUs grouped by pod, host or GPU (--group-by), each trace attached to its workload.

#include <rightsize/observe/observe.hpp>

#include <deque>
#include <string>
#include <vector>

namespace rightsize::analysis {

struct Group {
  std::string name;
  std::vector<const GpuSeries*> gpus;
  std::vector<const TraceProfile*> traces;
};

// The GPUs of `telemetry`, each once: a GPU seen in one input is used in place; one seen in
// several is merged into `merged` (stable addresses: a deque).
std::vector<const GpuSeries*> merge_duplicates(const Telemetry& telemetry,
                                               std::deque<GpuSeries>& merged);

// The GPUs grouped by workload name (namespace/pod, host or host/gpu0), in the order first seen.
std::vector<Group> group_workloads(const std::vector<const GpuSeries*>& gpus, GroupBy by);

// Each trace attached to its named workload (InputError when none has the name), else to the only
// workload, else made a workload of its own (with a warning when several have telemetry).
void attach_traces(std::vector<Group>& groups,
                   const std::vector<NamedTrace>& traces,
                   std::vector<std::string>& warnings);

// Every sample of `m` on the group's GPUs, pooled.
std::vector<double> pooled(const Group& g, Metric m);
// Whether any of the group's GPUs has samples of `m`.
bool has(const Group& g, Metric m);

} // namespace rightsize::analysis
