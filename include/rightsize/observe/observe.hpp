#pragma once

// rightsize observe: what already runs, measured, judged and re-sized. Telemetry (nvidia-smi,
// dcgm-exporter, Prometheus) and profiler traces are grouped into workloads; each gets its
// observed profile as percentiles, a verdict with reason codes, and a recommendation from the
// catalog: the cheapest GPU, GPU count or MIG slice that covers the observed memory and work with
// a margin (krr's percentile-plus-buffer strategy). Every threshold is an option with its
// reasoning in docs/observe.md.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/observe/serving.hpp>
#include <rightsize/observe/telemetry.hpp>
#include <rightsize/observe/trace.hpp>
#include <rightsize/spec/spec.hpp>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// automatic: pods by their owner (Deployment, StatefulSet, ...) where kube-state-metrics says
// it, else by pod, else each GPU; owner: the same, asked for; pod: each pod; host; gpu.
enum class GroupBy { automatic, owner, pod, host, gpu };
std::string_view to_string(GroupBy g);

struct ObserveOptions {
  // The margin strategy: the work needed is the `work_percentile` of the observed work times
  // (1 + buffer); the memory needed the `memory_percentile` (100: the peak) times (1 + buffer).
  double work_percentile = 95;
  double memory_percentile = 100;
  double buffer = 0.20;

  // Reason thresholds (fractions): docs/observe.md gives each its reasoning.
  double idle_below = 0.05;            // idle: the work percentile under this
  double low_utilization_below = 0.40; // low_utilization: the work percentile under this
  double memory_headroom_below =
      0.50; // memory_headroom: memory needed under this share of capacity
  double memory_pressure_above = 0.95; // memory_pressure: peak memory over this share
  double saturated_above = 0.90;       // compute_saturated: median work over this
  double input_wait_above = 0.20; // input_bound: the GPU waits on the host this share of the trace
  double interconnect_above = 0.60;  // interconnect_bound: link traffic over this share of its rate
  double communication_above = 0.30; // interconnect_bound: NCCL kernels this share of busy time
  double throttled_above = 0.10;     // throttled: a limiting clock reason this share of samples
  double min_saving = 0.10;          // over-provisioned: a recommendation saves at least this
  // A recommendation on more GPUs than the workload runs on delivers this share of the added
  // rate per doubling (tensor or data parallelism is not free).
  double scale_out_efficiency = 0.90;
  // Evidence too short to act on: under these the verdict is "inconclusive" (observe longer),
  // never a saving or a change. docs/observe.md, "Too little evidence".
  int min_samples_per_gpu = 10;    // telemetry: time points of the work metric per GPU
  double min_window_s = 600;       // telemetry: the window, first sample to last
  double min_trace_window_s = 1.0; // a workload known only from traces: the trace's window

  GroupBy group_by = GroupBy::automatic;
  Deployment pricing;            // provider, price kind, hours per month (cloud prices)
  int max_gpus = 8;              // per workload, in a recommendation
  bool mig = true;               // recommend MIG slices
  std::vector<std::string> gpus; // catalog names to recommend from; empty: all with a price
  // Observed model names (as NVML writes them) mapped to catalog names: --gpu-model NAME=GPU.
  std::map<std::string, std::string> gpu_models;
  // Serving engines by the words in a workload's name that say it runs one (data/deploy.json,
  // "workload_names"): such a workload's memory.used is the engine's preallocation, not a need,
  // and its gpu_utilization the engine's busy loop (docs/observe.md, "Serving engines").
  std::map<std::string, std::vector<std::string>> serving_engines;
  // The window cut into this many equal slices for the HTML report's charts (0: none).
  int timeline_slices = 48;

  // Serving engines judged on their own metrics (docs/observe.md, "Serving engines"): the
  // thresholds on KV-cache usage (fractions), the specs workloads serve (first match wins), and
  // the estimator's inputs to size a spec (null: a spec gives latency targets only).
  double kv_cache_full_above = 0.90;
  double kv_cache_headroom_below = 0.50;
  std::vector<SpecMapping> specs;
  const SpecPlanning* planning = nullptr;
};

// The `p`-th percentile (0..100) of `values` (need not be sorted; empty: 0).
double percentile(std::vector<double> values, double p);
Percentiles summarize(const std::vector<double>& values);

// A reason code and its one line, with the figure it rests on.
struct ObserveReason {
  std::string code; // low_utilization, memory_headroom, memory_pressure, idle, input_bound,
                    // interconnect_bound, throttled, compute_saturated
  std::string text;
};

struct ObserveRecommendation {
  std::string gpu; // catalog name; empty when the GPUs are freed (idle) or nothing fits
  int gpus = 0;
  std::string partition; // MIG profile, or empty
  std::optional<double> usd_per_month_now;
  std::optional<double> usd_per_month_recommended;
  std::optional<double> usd_per_month_saved; // negative: the recommendation costs more
  double gpus_freed = 0; // GPU-equivalents of the current model released (a 3g slice of 7: 3/7)
  std::string text;      // one line: what to run and why it covers the need
};

struct GpuObservation {
  std::string label; // host/gpu0
  std::string uuid;
  std::size_t samples = 0;
  Percentiles work;
  std::optional<Percentiles> memory_used_bytes;
};

struct TraceSummary {
  std::string source;
  std::string format;
  double window_s = 0;
  double busy_fraction = 0;
  double input_wait_fraction = 0;
  std::array<double, k_kernel_class_count> share_by_class{}; // of busy time
  double host_to_device_bytes = 0;
  std::optional<double> peak_memory_bytes; // the allocator's reserved peak, else its allocated peak
};

// One slice of a workload's window: its work and memory samples, all its GPUs pooled.
struct TimeSlice {
  double start_s = 0; // from the window's start
  double end_s = 0;
  std::size_t samples = 0;                      // work samples in the slice
  Percentiles work;                             // fractions: p50, p95, max
  std::optional<Percentiles> memory_used_bytes; // per GPU
};

// The Kubernetes object a workload is (kube-state-metrics' owners), and the container its GPUs
// were given to.
struct WorkloadOwner {
  std::string namespace_name;
  std::string kind; // Deployment, StatefulSet, CronJob, Job, LeaderWorkerSet, Rollout, ...
  std::string name;
  std::string container;
};

// A serving workload judged on its engine's own metrics (docs/observe.md, "Serving engines"):
// the pod that queued most, the fullest KV cache, latency over all its pods, against the SLA of
// the spec it serves.
struct ServingObservation {
  std::string engine;
  int pods = 0;            // pods with engine metrics
  std::size_t scrapes = 0; // of the pod scraped most
  double window_s = 0;     // the longest pod's, first scrape to last
  Percentiles running;     // the busiest pod's (largest p95)
  Percentiles waiting;     // the pod that queued most
  double demand = 0;       // requests held at once over its pods: the sum of each pod's p95, scaled
                           // to the most pods that ran at once (a rollout's pods follow each other)
  std::optional<Percentiles> kv_cache_usage; // the fullest pod's, fractions
  std::optional<double> preemptions;         // over the window, all pods
  std::optional<double> ttft_p50_s, ttft_p95_s, ttft_mean_s;
  std::optional<double> itl_p50_s, itl_p95_s, itl_mean_s;
  std::string spec_file; // the spec it serves (--spec-map, --spec), or empty
  std::string spec_name; // its model
  // The spec's latency targets (the strictest percentile it names, else its mean target), the
  // statistic each is held on (mean, p50, p90, p99), and the observed value of that statistic.
  std::optional<double> ttft_target_s, itl_target_s;
  std::string ttft_target_statistic, itl_target_statistic;
  std::optional<double> ttft_observed_s, itl_observed_s;
  long long sized_concurrency = 0; // the load the spec was sized for: demand x (1 + buffer)
  // The estimator's memory per GPU for the spec at that load on the GPUs it runs on, and its
  // predicted TTFT and TPOT there; none without a spec or where the spec does not fit them.
  std::optional<double> estimated_memory_per_gpu_bytes;
  std::optional<double> estimated_ttft_s, estimated_tpot_s;
};

struct WorkloadObservation {
  std::string name;                   // namespace/Kind/name, namespace/pod, host/gpu0 or host
  std::optional<WorkloadOwner> owner; // when the workload is a Kubernetes owner's pods
  int pods = 0;                       // the most of its pods that ran at once (0: no pods)
  std::string observed_gpu;           // the model name as observed
  std::string gpu;                    // its catalog name
  std::string partition;              // MIG profile it runs on, or empty
  int gpus = 0;
  std::size_t samples = 0;
  double window_s = 0;
  std::string work_metric; // which metric measured work: sm_active, gpu_utilization or trace
  std::string engine;      // the serving engine its name says it runs (vllm ...), or empty
  std::map<Metric, Percentiles> observed;
  double memory_capacity_bytes = 0;          // per GPU (or slice)
  std::optional<double> memory_needed_bytes; // total over the workload's GPUs, buffer included
  double work_needed_gpus = 0;               // in current GPUs, buffer included
  std::string verdict; // over-provisioned, under-provisioned, right-sized, idle, inconclusive
  std::vector<ObserveReason> reasons;
  std::optional<ObserveRecommendation> recommendation;
  std::vector<GpuObservation> per_gpu;
  std::optional<TraceSummary> trace;
  // The window in ObserveOptions::timeline_slices equal slices, empty ones left out; empty for a
  // workload measured only by traces. For charts: the JSON report leaves it out.
  std::vector<TimeSlice> timeline;
  std::vector<std::string> notes; // assumptions the verdict rests on
  // Judged on its serving engine's metrics when they exist for its pods.
  std::optional<ServingObservation> serving;
};

struct ObserveSummary {
  int workloads = 0;
  std::map<std::string, int> by_verdict;
  double gpus_observed = 0;
  double gpus_freed = 0;
  double usd_per_month_now = 0;
  double usd_per_month_saved = 0; // the sum of the workloads' positive savings
  double usd_per_month_added = 0; // the sum of their negative savings (costs added)
};

struct ObserveReport {
  ObserveSummary summary;
  std::vector<WorkloadObservation> workloads;
  std::vector<std::string> warnings;
  std::vector<std::string> sources;
  ObserveOptions options;
  std::string catalog_version;
};

// A trace attached to a workload by name; an empty name: to the only workload, or its own.
struct NamedTrace {
  std::string workload;
  TraceProfile profile;
};

ObserveReport observe(const Telemetry& telemetry,
                      const std::vector<NamedTrace>& traces,
                      const Catalog& catalog,
                      const GpuProducts& products,
                      const ObserveOptions& options);

// The catalog GPU an observed model name is ("NVIDIA H100 80GB HBM3" -> H100-SXM-80GB), by the
// user's --gpu-model map, the NVML names of the GPU products (catalog/gpu_products.hpp), then the
// catalog's own names and aliases; nullptr when none matches.
const Gpu* identify_gpu(const std::string& model_name,
                        const Catalog& catalog,
                        const GpuProducts& products,
                        const std::map<std::string, std::string>& gpu_models);

} // namespace rightsize
