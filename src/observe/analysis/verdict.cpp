// A workload's verdict and recommendation: the cheapest configuration that covers its need.
// docs/observe.md, "Reasons and verdicts", "What it needs" and "The recommendation".

#include "text.hpp"
#include "workload_analysis.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::analysis {

Need WorkloadAnalysis::need() const {
  const double grow = 1.0 + m_o.buffer;
  Need n;
  n.memory_bytes = m_w.memory_needed_bytes;
  n.memory_per_gpu_floor = m_capacity;
  n.flops = m_work_level * grow * m_w.gpus * work_rate(m_shape);
  n.bytes_per_s = m_bandwidth_level * grow * m_w.gpus * m_shape.memory_bandwidth.si();
  n.needs_link = has_reason("interconnect_bound");
  n.runs_on_nvlink = m_shape.has_nvlink();
  n.current_gpus = m_w.gpus;
  n.scale_out_efficiency = m_o.scale_out_efficiency;
  return n;
}

std::string WorkloadAnalysis::option_text(const Option& o) const {
  if (!o.partition.empty()) {
    return fmt::format("one {} slice of {}", o.partition, o.gpu->name);
  }
  return fmt::format("{}x {}", o.count, o.gpu->name);
}

ObserveRecommendation WorkloadAnalysis::priced_now(std::vector<std::string>& warnings) const {
  ObserveRecommendation r;
  r.usd_per_month_now = monthly(m_shape, m_w.gpus, m_o);
  if (!r.usd_per_month_now) {
    warnings.push_back(fmt::format("{}: no {} price for {} in the catalog: costs are not shown",
                                   m_w.name,
                                   m_o.pricing.price_kind,
                                   m_shape.name));
  }
  return r;
}

void WorkloadAnalysis::keep_current(ObserveRecommendation& r, std::string text) const {
  r.gpu = m_whole.name;
  r.gpus = m_w.gpus;
  r.partition = m_w.partition;
  r.usd_per_month_recommended = r.usd_per_month_now;
  r.text = std::move(text);
}

void WorkloadAnalysis::decide(std::vector<std::string>& warnings) {
  ObserveRecommendation r = priced_now(warnings);
  const double current_share = m_w.partition.empty() ? 1.0 : share_of_gpu(m_whole, m_shape);
  const auto& options = cached_options(m_options_cache, m_catalog, m_whole, m_w.gpus, m_o);
  const Need n = need();
  const bool under = has_reason("memory_pressure") || has_reason("compute_saturated");
  // Under-provisioned: what runs short now is a floor, whatever the buffer.
  const Option* best =
      cheapest_covering(options, n, [&](const Option& o) { return !under || is_larger(o); });

  if (const std::string wait = inconclusive_text(); !wait.empty()) {
    // What the evidence cannot carry: keep what runs, save nothing, free nothing.
    m_w.verdict = "inconclusive";
    keep_current(r, wait);
  } else if (has_reason("idle")) {
    m_w.verdict = "idle";
    r.gpus = 0;
    r.usd_per_month_recommended = 0.0;
    r.gpus_freed = current_share * m_w.gpus;
    r.text = fmt::format("free the {} GPU{}: {}",
                         m_w.gpus,
                         m_w.gpus == 1 ? "" : "s",
                         "nothing ran in the window (scale to zero, or give it back)");
  } else if (under) {
    m_w.verdict = "under-provisioned";
    if (best != nullptr) {
      fill(r, *best, current_share);
      r.gpus_freed = 0; // replaced, not freed
    } else {
      r.text = m_o.gpus.empty()
                   ? fmt::format("nothing in the catalog up to {} GPUs covers the observed need "
                                 "with the margin: split the workload",
                                 m_o.max_gpus)
                   : "none of the --gpus covers the observed need with the margin";
    }
  } else if (best != nullptr && r.usd_per_month_now &&
             best->usd_per_month <= *r.usd_per_month_now * (1.0 - m_o.min_saving) &&
             (has_reason("low_utilization") || has_reason("memory_headroom"))) {
    m_w.verdict = "over-provisioned";
    fill(r, *best, current_share);
  } else {
    m_w.verdict = "right-sized";
    keep_current(r,
                 r.usd_per_month_now
                     ? "keep it: nothing cheaper covers the observed need with the margin"
                     : fmt::format("keep it: no {} price for {} to compare with (costs unknown)",
                                   m_o.pricing.price_kind,
                                   m_shape.name));
  }
  if (r.usd_per_month_now && r.usd_per_month_recommended) {
    r.usd_per_month_saved = *r.usd_per_month_now - *r.usd_per_month_recommended;
  }
  m_w.recommendation = r;
}

// Why the evidence cannot carry a verdict, or empty: too short a window or too few samples
// (observe longer), or a GPU that waits on its input (fix the input pipeline first; memory that
// runs out is a fact whatever feeds the GPU, so memory pressure still decides).
std::string WorkloadAnalysis::inconclusive_text() const {
  const std::string window = format_seconds(seconds(m_w.window_s));
  if (m_w.work_metric == "trace") {
    if (m_w.window_s < m_o.min_trace_window_s) {
      return fmt::format("observe longer: a trace of {} (< {}) holds too few steps to size the "
                         "job on; keep it and profile a longer run",
                         window,
                         format_seconds(seconds(m_o.min_trace_window_s)));
    }
  } else {
    const double per_gpu =
        m_w.gpus > 0 ? static_cast<double>(m_w.samples) / static_cast<double>(m_w.gpus) : 0;
    if (per_gpu < m_o.min_samples_per_gpu || m_w.window_s < m_o.min_window_s) {
      return fmt::format("observe longer: {:.0f} samples per GPU over {} (a verdict needs at "
                         "least {} over {}); keep it until then",
                         per_gpu,
                         window,
                         m_o.min_samples_per_gpu,
                         format_seconds(seconds(m_o.min_window_s)));
    }
  }
  if (has_reason("engine_busy")) {
    return fmt::format(
        "judge the {} server on DCGM's profiling metrics (SM activity, DRAM activity: "
        "dcgm-exporter with DCP fields) or its own queue ({} waiting requests), or size it "
        "with rightsize plan on its spec: its gpu_utilization and memory.used are what the "
        "engine holds, not what it needs; keep it until then",
        m_w.engine,
        m_w.engine == "vllm" ? "vllm:num_requests_waiting" : "the engine's");
  }
  if (has_reason("input_bound") && !has_reason("memory_pressure")) {
    return "fix the input pipeline first (DataLoader workers, pinned memory, prefetch), then "
           "observe again: a GPU that waits on its input would wait on any GPU, so its work "
           "says nothing yet about the size it needs";
  }
  return {};
}

// Whether `o` has more of what runs short than the workload has now: memory per GPU times GPUs
// under memory pressure, compute when saturated.
bool WorkloadAnalysis::is_larger(const Option& o) const {
  const double n = o.count;
  const double memory_now = m_capacity * m_w.gpus;
  const double rate_now = work_rate(m_shape) * m_w.gpus;
  if (has_reason("memory_pressure") &&
      o.shape.plannable_memory().si() * n <= memory_now * (1 + 1e-9)) {
    return false;
  }
  return !(has_reason("compute_saturated") && work_rate(o.shape) * n <= rate_now * (1 + 1e-9));
}

void WorkloadAnalysis::fill(ObserveRecommendation& r,
                            const Option& best,
                            double current_share) const {
  r.gpu = best.gpu->name;
  r.gpus = best.count;
  r.partition = best.partition;
  r.usd_per_month_recommended = best.usd_per_month;
  const bool same_model = best.gpu == &m_whole;
  const double kept = same_model ? share_of_gpu(m_whole, best.shape) * best.count : 0.0;
  r.gpus_freed = std::max(0.0, current_share * m_w.gpus - kept);
  const std::string memory = m_w.memory_needed_bytes
                                 ? fmt::format("{} of memory ({} per GPU there)",
                                               gib_text(*m_w.memory_needed_bytes),
                                               gib_text(best.shape.plannable_memory().si()))
                                 : std::string("at least the memory per GPU it has now");
  r.text =
      fmt::format("{}{}: the need, with the {} buffer, is the work of {:.2f} {} and {}",
                  has_reason("input_bound") ? "once the input pipeline keeps the GPU fed, " : "",
                  option_text(best),
                  percent(m_o.buffer),
                  m_w.work_needed_gpus,
                  m_shape.name,
                  memory);
  // One process's memory does not split over GPUs by itself.
  if (best.count > m_w.gpus && m_largest_gpu_need > best.shape.plannable_memory().si()) {
    r.text += fmt::format("; one GPU's {} today must then be split over {} GPUs (tensor or "
                          "pipeline parallelism)",
                          gib_text(m_largest_gpu_need),
                          best.count);
  }
}

} // namespace rightsize::analysis
