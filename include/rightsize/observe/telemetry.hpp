#pragma once

// Telemetry as rightsize observe reads it: per GPU, one time series per metric, in SI units
// whatever the source said (fractions 0..1 for utilizations and activities, bytes, watts, hertz,
// bytes per second), so that the analysis never knows whether a figure came from nvidia-smi,
// dcgm-exporter or Prometheus. Parsers of each format fill it (docs/observe.md, "Inputs").

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize {

enum class Metric : std::uint8_t {
  gpu_utilization,    // fraction of the sample period a kernel ran (utilization.gpu,
                      // DCGM_FI_DEV_GPU_UTIL)
  memory_utilization, // fraction of it device memory was read or written (utilization.memory,
                      // DCGM_FI_DEV_MEM_COPY_UTIL)
  memory_used,        // bytes of framebuffer in use (memory.used, DCGM_FI_DEV_FB_USED)
  memory_total,  // bytes of framebuffer (memory.total; DCGM: FB_USED + FB_FREE + FB_RESERVED when
                 // present)
  power,         // watts drawn (power.draw, DCGM_FI_DEV_POWER_USAGE)
  power_limit,   // watts (power.limit, DCGM_FI_DEV_POWER_MGMT_LIMIT)
  sm_clock,      // hertz (clocks.sm / clocks.current.sm, DCGM_FI_DEV_SM_CLOCK)
  sm_clock_max,  // hertz (clocks.max.sm)
  temperature,   // degrees Celsius (temperature.gpu, DCGM_FI_DEV_GPU_TEMP)
  sm_active,     // fraction (DCGM_FI_PROF_SM_ACTIVE)
  sm_occupancy,  // fraction (DCGM_FI_PROF_SM_OCCUPANCY)
  tensor_active, // fraction (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE)
  dram_active,   // fraction (DCGM_FI_PROF_DRAM_ACTIVE)
  pcie_tx,       // bytes per second (DCGM_FI_PROF_PCIE_TX_BYTES)
  pcie_rx,       // bytes per second (DCGM_FI_PROF_PCIE_RX_BYTES)
  nvlink_tx,     // bytes per second (DCGM_FI_PROF_NVLINK_TX_BYTES)
  nvlink_rx,     // bytes per second (DCGM_FI_PROF_NVLINK_RX_BYTES)
  throttled,     // 1 when a performance-limiting clock reason was active (power, thermal,
                 // hardware slowdown), else 0; idle and application-clock reasons are not
  count
};
inline constexpr std::size_t k_metric_count = static_cast<std::size_t>(Metric::count);

// "gpu_utilization", "memory_used", ...: the names of the JSON report and docs/observe.md.
std::string_view to_string(Metric m);

// One metric's samples in time order: seconds since the Unix epoch (or since the start of the
// file when the source has no clock) and values in the metric's SI unit. Both vectors have the
// same length; no NaN or infinity is ever stored.
struct Samples {
  std::vector<double> time_s;
  std::vector<double> value;

  [[nodiscard]] bool empty() const { return value.empty(); }
  [[nodiscard]] std::size_t size() const { return value.size(); }
  void add(double t, double v) {
    time_s.push_back(t);
    value.push_back(v);
  }
};

// Which GPU the samples are of, and where it runs. Empty strings: the source did not say.
struct GpuIdentity {
  std::string host;        // DCGM's Hostname label; for nvidia-smi, the file's stem
  std::string index;       // "0", "1", ...: the GPU's index on its host
  std::string uuid;        // "GPU-..."
  std::string model_name;  // as NVML names it: "NVIDIA H100 80GB HBM3"
  std::string mig_profile; // "3g.40gb" when the series is one MIG instance
  // DCGM's GPU_I_ID, "1": the MIG instance's ID on its GPU, which tells apart two instances of
  // the same profile. Empty for a whole GPU, and where the source does not say (nvidia-smi).
  std::string mig_instance;
  std::string namespace_name;
  std::string pod;
  std::string container;
  // The Kubernetes workload that owns the pod, from kube-state-metrics (kube_pod_owner,
  // kube_replicaset_owner, kube_job_owner, kube_pod_labels): "Deployment", "StatefulSet",
  // "LeaderWorkerSet", "CronJob", "Job", "Rollout", ...; empty where nothing says.
  std::string owner_kind;
  std::string owner_name;
  std::string source; // the file or URL it was read from

  // "host/gpu0", "host/gpu0/3g.40gb", "host/gpu0/3g.40gb#1" (with mig_instance): how messages and
  // reports name one GPU.
  [[nodiscard]] std::string label() const;
};

// One metric of one GPU as the Prometheus server summarized it over the window (observe
// --aggregate server: quantile_over_time, max_over_time, avg_over_time, count_over_time), in the
// metric's SI unit. Only the percentiles that were asked for are known.
struct SeriesSummary {
  double count = 0; // samples in the window
  double mean = 0;
  double max = 0;
  std::map<double, double> percentiles; // percentile (0..100] -> value; 100 is the max
  // When the GPU was there: samples per slice of `slice_s` seconds, each slice by its end (Unix
  // seconds), slices without a sample left out; empty where not asked. Gives the window and the
  // GPUs a workload holds at once.
  std::vector<std::pair<double, double>> occupancy;
  double slice_s = 0;

  // The value at `percentile`, or nullopt when the server was not asked for it.
  [[nodiscard]] std::optional<double> at(double percentile) const;
};

struct GpuSeries {
  GpuIdentity id;
  // The samples read; with a server summary, none or a coarse timeline of them (the HTML report's
  // charts), while `summaries` carries the statistics.
  std::array<Samples, k_metric_count> metrics;
  std::array<std::optional<SeriesSummary>, k_metric_count> summaries;

  [[nodiscard]] Samples& operator[](Metric m) { return metrics[static_cast<std::size_t>(m)]; }
  [[nodiscard]] const Samples& operator[](Metric m) const {
    return metrics[static_cast<std::size_t>(m)];
  }
  [[nodiscard]] const std::optional<SeriesSummary>& summary(Metric m) const {
    return summaries[static_cast<std::size_t>(m)];
  }
  [[nodiscard]] std::optional<SeriesSummary>& summary(Metric m) {
    return summaries[static_cast<std::size_t>(m)];
  }
};

// One metric over a window: percentiles by linear interpolation between order statistics.
struct Percentiles {
  double p50 = 0;
  double p95 = 0;
  double max = 0;
  std::size_t samples = 0;
};

// --- Serving engines' own metrics (serving.hpp reads them; docs/observe.md, "Serving engines")

// One engine's metric names by role; within a role the first name a scrape has wins (engines
// rename metrics across releases: vLLM's kv_cache_usage_perc was gpu_cache_usage_perc). The
// KV-cache usage is a fraction (0..1) in all three engines.
struct EngineMetricNames {
  std::vector<std::string> running;        // gauge: requests in the running batch
  std::vector<std::string> waiting;        // gauge: requests queued for a slot
  std::vector<std::string> kv_cache_usage; // gauge: share of the KV cache in use
  std::vector<std::string> preemptions;    // counter: requests preempted (cache ran out)
  std::vector<std::string> ttft_seconds;   // histogram base name: time to first token
  std::vector<std::string> itl_seconds;    // histogram base name: inter-token latency
};
using EngineMetricCatalog = std::map<std::string, EngineMetricNames>; // by engine (vllm, ...)

// A latency histogram's increase over the window: cumulative counts by upper bound, as
// Prometheus' histogram_quantile reads them.
struct LatencyHistogram {
  std::vector<std::pair<double, double>>
      buckets;    // (le, cumulative count), le increasing, +Inf last
  double sum = 0; // seconds
  double count = 0;
  // The q-quantile (0..1) by linear interpolation inside its bucket, as histogram_quantile;
  // none without observations, the largest finite bound when it falls in the +Inf bucket.
  [[nodiscard]] std::optional<double> quantile(double q) const;
  [[nodiscard]] std::optional<double> mean() const;
  // Adds `other`'s counts bucket by bucket (the same bounds; a bound only one has is kept).
  void add(const LatencyHistogram& other);
};

// One pod's engine metrics over the window, summarized.
struct EngineSeries {
  std::string engine;         // vllm, sglang, tensorrt-llm
  std::string source;         // the file it was read from, or the Prometheus URL
  std::string workload;       // from --engine-metrics WORKLOAD=FILE; else empty
  std::string namespace_name; // the series' namespace and pod labels (Prometheus' scrape)
  std::string pod;
  std::size_t scrapes = 0;
  double window_s = 0; // first scrape to last
  Percentiles running;
  Percentiles waiting;
  Percentiles demand; // running + waiting at each scrape: the requests the pod was asked to hold
  std::optional<Percentiles> kv_cache_usage; // fractions
  std::optional<double> preemptions;         // the counter's increase over the window
  std::optional<LatencyHistogram> ttft;
  std::optional<LatencyHistogram> itl;
};

struct Telemetry {
  std::vector<GpuSeries> gpus;
  // What was skipped and why, one line each, naming the file and line (or series): "gpu.csv:17:
  // 3 fields where the header has 9; row skipped". Repeated problems are counted, not repeated.
  std::vector<std::string> warnings;
  std::size_t samples = 0; // values stored, over all GPUs and metrics
  // Serving engines' metrics by pod (--engine-metrics; Prometheus), beside the GPUs'.
  std::vector<EngineSeries> engine_pods;

  // Appends `other`'s GPUs, warnings and counts.
  void merge(Telemetry&& other);
};

// The largest telemetry or trace file observe reads: 4 GiB.
inline constexpr std::size_t k_max_telemetry_file_bytes = std::size_t{4} * 1024 * 1024 * 1024;

// --- Files (one parser per format; each throws InputError naming the file, and line or series,
// --- for input it cannot make sense of, and warns for what it skips)

// nvidia-smi --query-gpu=... --format=csv[,nounits] [-l N] output, any subset and order of the
// usual columns, with or without units in the header and values (a noheader file is refused: its
// columns are unknown). `host` names the GPUs' host (the CLI passes the file's stem). Timestamps
// (local time, no zone) are read as UTC; without a timestamp column, the k-th row of a GPU is at
// k * `interval_s`.
Telemetry parse_nvidia_smi_csv(std::string_view text,
                               const std::string& source,
                               const std::string& host,
                               double interval_s = 1.0);

// dcgm-exporter scrapes in the Prometheus text exposition format, one or many concatenated.
// Samples without a timestamp take the time of their scrape: the n-th scrape (counted from 0;
// a scrape starts where a # HELP or # TYPE line repeats, or where a series is seen again) is at
// n * `scrape_interval_s`. One GpuSeries per GPU, MIG instance and pod.
Telemetry
parse_dcgm_text(std::string_view text, const std::string& source, double scrape_interval_s);

} // namespace rightsize
