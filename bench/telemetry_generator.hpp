#pragma once

// Deterministic, realistic GPU telemetry in the two file formats `rightsize observe` reads
// (docs/observe.md, "Inputs"): nvidia-smi --query-gpu CSV logs and dcgm-exporter scrapes. For
// the ingestion benchmarks (bench_observe.cpp, docs/performance.md) and for tests that need a
// large input; the tool rightsize_generate_telemetry writes them to a folder.
//
// The GPUs are H100 SXM 80GB (81559 MiB, 700 W, 1980 MHz), each running one workload shape for
// the whole file, with noise drawn per sample: idle, low utilization, saturated, memory pressure
// (above 98 % of memory) or throttled (power cap and thermal slowdown, clocks down).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rightsize::bench {

enum class WorkloadShape : std::uint8_t {
  idle,
  low_utilization,
  saturated,
  memory_pressure,
  throttled,
};
inline constexpr int k_workload_shapes = 5;

std::string_view to_string(WorkloadShape s);

struct TelemetryPlan {
  int hosts = 1;
  int gpus_per_host = 8;
  double duration_s = 3600; // samples at 0, interval, ... while below duration
  double interval_s = 30;
  unsigned seed = 1;
  double start_s = 1716249600; // 2024-05-21 00:00:00 UTC

  [[nodiscard]] std::size_t ticks() const;
};

// "node-000", "node-001", ...: the file stem and the DCGM Hostname of host `host`.
std::string host_name(int host);

// The workload of GPU `gpu` of host `host`. Shapes are dealt in turn from a seeded start, so a
// host of at least 5 GPUs runs every shape, and the same arguments give the same shape.
WorkloadShape shape_of(const TelemetryPlan& plan, int host, int gpu);

// One host's `nvidia-smi --query-gpu=timestamp,index,uuid,name,pci.bus_id,utilization.gpu,
// utilization.memory,memory.used,memory.total,power.draw,power.limit,clocks.sm,clocks.max.sm,
// temperature.gpu,clocks_event_reasons.active --format=csv -l INTERVAL` log, with units: one
// header, then one row per GPU per sample. Every row holds 10 metric values.
std::string nvidia_smi_csv(const TelemetryPlan& plan, int host);

// One host's dcgm-exporter /metrics scraped every interval and concatenated (the default fields
// plus DCGM_FI_DEV_POWER_MGMT_LIMIT and DCGM_FI_DEV_CLOCKS_EVENT_REASONS, # HELP and # TYPE per
// family, no timestamps), with Kubernetes pod labels on every GPU but the idle ones. Each GPU and
// scrape gives 13 stored samples (13 metrics; DCGM_FI_PROF_GR_ENGINE_ACTIVE yields to
// DCGM_FI_DEV_GPU_UTIL) among 20 lines, 5 of fields observe does not read.
std::string dcgm_text(const TelemetryPlan& plan, int host);

// The samples a parser stores from one host's file of either format.
std::size_t nvidia_smi_samples_per_host(const TelemetryPlan& plan);
std::size_t dcgm_samples_per_host(const TelemetryPlan& plan);

} // namespace rightsize::bench
