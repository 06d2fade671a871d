// rightsize observe: telemetry and traces grouped into workloads, each judged and re-sized
// (analysis/), and the fleet's summary. docs/observe.md.

#include "analysis/configurations.hpp"
#include "analysis/workload_analysis.hpp"
#include "analysis/workloads.hpp"

#include <rightsize/catalog/mig.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/observe/observe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <deque>

namespace rightsize {

using analysis::OptionsCache;
using analysis::WorkloadAnalysis;

namespace {

// A verdict from a few samples or minutes is a snapshot, not a profile: said once per workload.
void warn_if_snapshot(const WorkloadObservation& w, std::vector<std::string>& warnings) {
  constexpr std::size_t k_min_samples = 10;
  constexpr double k_min_window_s = 600;
  if (w.work_metric == "trace") {
    warnings.push_back(fmt::format("{}: judged from one trace of {}: a snapshot; telemetry over "
                                   "a day or more is the profile to act on",
                                   w.name,
                                   format_seconds(seconds(w.window_s))));
    return;
  }
  if (w.serving) {
    // Judged on the engine's metrics: their scrapes are the evidence.
    if (w.serving->scrapes < k_min_samples || w.serving->window_s < k_min_window_s) {
      warnings.push_back(fmt::format("{}: only {} scrapes of the {} server's metrics over {}: a "
                                     "snapshot; observe a day or more of traffic before acting "
                                     "on it",
                                     w.name,
                                     w.serving->scrapes,
                                     w.serving->engine,
                                     format_seconds(seconds(w.serving->window_s))));
    }
    return;
  }
  const std::size_t per_gpu = w.gpus > 0 ? w.samples / static_cast<std::size_t>(w.gpus) : 0;
  if (per_gpu < k_min_samples || w.window_s < k_min_window_s) {
    warnings.push_back(fmt::format("{}: only {} samples per GPU over {}: a snapshot; observe a "
                                   "day or more of traffic before acting on it",
                                   w.name,
                                   per_gpu,
                                   format_seconds(seconds(w.window_s))));
  }
}

void add_to_summary(ObserveSummary& s, const WorkloadObservation& w, double current_share) {
  ++s.workloads;
  ++s.by_verdict[w.verdict];
  s.gpus_observed += current_share * w.gpus;
  if (!w.recommendation) {
    return;
  }
  // The totals are the sums of what the rows show, whatever the verdict: an under-provisioned
  // workload whose larger configuration happens to cost less saves money too.
  const auto& r = *w.recommendation;
  const double saved = r.usd_per_month_saved.value_or(0);
  s.usd_per_month_now += r.usd_per_month_now.value_or(0);
  s.gpus_freed += r.gpus_freed;
  s.usd_per_month_saved += std::max(0.0, saved);
  s.usd_per_month_added += std::max(0.0, -saved);
}

} // namespace

ObserveReport observe(const Telemetry& telemetry,
                      const std::vector<NamedTrace>& traces,
                      const Catalog& catalog,
                      const GpuProducts& products,
                      const ObserveOptions& options) {
  ObserveReport report;
  report.options = options;
  report.catalog_version = catalog.version;
  report.warnings = telemetry.warnings;
  for (const auto& t : traces) {
    report.warnings.insert(
        report.warnings.end(), t.profile.warnings.begin(), t.profile.warnings.end());
  }
  for (const auto& verdict :
       {"over-provisioned", "under-provisioned", "right-sized", "idle", "inconclusive"}) {
    report.summary.by_verdict[verdict] = 0;
  }

  std::deque<GpuSeries> merged;
  const auto gpus = analysis::merge_duplicates(telemetry, merged);
  OptionsCache options_cache;
  auto groups = analysis::group_workloads(gpus, options.group_by);
  if (options.group_by == GroupBy::owner) {
    const auto pods_without_owner = std::count_if(gpus.begin(), gpus.end(), [](const auto* g) {
      return !g->id.pod.empty() && g->id.owner_name.empty();
    });
    if (pods_without_owner > 0) {
      report.warnings.push_back(
          fmt::format("--group-by owner: {} GPU series of pods have no owner (kube-state-metrics' "
                      "kube_pod_owner, read with --prometheus): grouped by pod",
                      pods_without_owner));
    }
  }
  analysis::attach_traces(groups, traces, report.warnings);
  analysis::attach_engine_metrics(groups, telemetry.engine_pods, report.warnings);

  for (const auto& group : groups) {
    const std::string model =
        group.gpus.empty() ? group.traces.front()->device_name : group.gpus.front()->id.model_name;
    const Gpu* gpu = identify_gpu(model, catalog, products, options.gpu_models);
    if (gpu == nullptr) {
      const std::string source =
          group.gpus.empty() ? group.traces.front()->source : group.gpus.front()->id.source;
      report.warnings.push_back(
          model.empty() ? fmt::format("{}: {}: the input does not name the GPU; workload skipped "
                                      "(--gpu-model unnamed=<catalog name> says what it is)",
                                      source,
                                      group.name)
                        : fmt::format("{}: {}: GPU \"{}\" is not in the catalog; workload skipped "
                                      "(--gpu-model \"{}=<catalog name>\" maps it)",
                                      source,
                                      group.name,
                                      model,
                                      model));
      continue;
    }
    WorkloadAnalysis workload(group, *gpu, catalog, options, options_cache);
    WorkloadObservation w;
    try {
      w = workload.run(report.warnings);
    } catch (const InputError& e) {
      // One GPU the exporter sends no utilization for must not hide the fleet's report.
      report.warnings.push_back(std::string(e.what()) + "; workload skipped");
      continue;
    }
    warn_if_snapshot(w, report.warnings);
    double share = 1.0;
    if (!w.partition.empty()) {
      if (auto slice = mig_slice(*gpu, w.partition, true)) {
        share = analysis::share_of_gpu(*gpu, *slice);
      }
    }
    add_to_summary(report.summary, w, share);
    report.workloads.push_back(std::move(w));
  }
  if (report.workloads.empty()) {
    // The warnings say why: the first of them goes into the one line.
    const std::string why = report.warnings.empty()
                                ? std::string()
                                : " (first warning: " + report.warnings.front() + ")";
    throw InputError("observe",
                     (groups.empty() ? std::string("no GPU samples in the input")
                                     : std::string("no workload could be judged")) +
                         why);
  }
  return report;
}

} // namespace rightsize
