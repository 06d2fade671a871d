// The reason codes of a workload, each with the figure it rests on. docs/observe.md, "Reasons and
// verdicts".

#include "text.hpp"
#include "workload_analysis.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::analysis {

void WorkloadAnalysis::reason(std::string code, std::string text) {
  m_w.reasons.push_back(ObserveReason{std::move(code), std::move(text)});
}

bool WorkloadAnalysis::has_reason(std::string_view code) const {
  return std::any_of(m_w.reasons.begin(), m_w.reasons.end(), [&](const ObserveReason& r) {
    return r.code == code;
  });
}

void WorkloadAnalysis::find_reasons() {
  const std::string work = m_w.work_metric == "trace"
                               ? std::string("the trace's busy share")
                               : fmt::format("{} p{:g}", m_w.work_metric, m_o.work_percentile);
  const std::string window = format_seconds(seconds(m_w.window_s));
  if (m_work_level < m_o.idle_below && m_work_max < m_o.low_utilization_below) {
    reason("idle",
           fmt::format("{} is {} (< {}) and never above {} over {}: nothing of "
                       "substance ran on the GPU",
                       work,
                       percent(m_work_level),
                       percent(m_o.idle_below),
                       percent(m_work_max),
                       window));
  } else if (m_work_level < m_o.low_utilization_below) {
    if (m_work_max >= m_o.saturated_above) {
      m_w.notes.push_back(fmt::format(
          "bursts: at its busiest the work reached {}; sized for the p{:g}, those bursts run "
          "slower on the recommendation (a batch job that must finish in time needs --percentile "
          "100)",
          percent(m_work_max),
          m_o.work_percentile));
    }
    reason("low_utilization",
           fmt::format("{} is {} (< {}): the GPU works less than it waits",
                       work,
                       percent(m_work_level),
                       percent(m_o.low_utilization_below)));
  }
  if (m_work.p50 >= m_o.saturated_above && !m_w.engine.empty() &&
      m_w.work_metric == "gpu_utilization") {
    // A serving engine's scheduler keeps a kernel running whenever it holds a request, so its
    // gpu_utilization sits near 100% at any batch: no evidence of saturation.
    reason("engine_busy",
           fmt::format("gpu_utilization median is {} for a {} server, whose loop keeps a kernel "
                       "running whenever it holds a request: it says nothing of how full the GPU "
                       "is",
                       percent(m_work.p50),
                       m_w.engine));
  } else if (m_work.p50 >= m_o.saturated_above) {
    // utilization.gpu counts the GPU busy whenever any kernel runs: saturated by it means
    // never idle, which a serving engine can be at a small batch. Say so.
    const char* caveat = m_w.work_metric == "gpu_utilization"
                             ? " (kernel time, not SM activity: DCGM's profiling metrics "
                               "would show how full the SMs are)"
                             : "";
    reason("compute_saturated",
           fmt::format("{} median is {} (>= {}): work queues for the GPU{}",
                       m_w.work_metric,
                       percent(m_work.p50),
                       percent(m_o.saturated_above),
                       caveat));
  }
  if (m_w.memory_needed_bytes && !has_reason("idle")) {
    const double total = m_capacity * m_w.gpus;
    const double share = *m_w.memory_needed_bytes / total;
    if (m_peak_share >= m_o.memory_pressure_above) {
      reason("memory_pressure",
             fmt::format("peak memory is {} of {} per GPU (>= {}): allocations fail or spill",
                         percent(m_peak_share),
                         gib_text(m_capacity),
                         percent(m_o.memory_pressure_above)));
    } else if (share < m_o.memory_headroom_below) {
      reason("memory_headroom",
             fmt::format("memory needed with a {} buffer is {} of {} (< {})",
                         percent(m_o.buffer),
                         gib_text(*m_w.memory_needed_bytes),
                         gib_text(total),
                         percent(m_o.memory_headroom_below)));
    }
  }
  find_balance_reasons();
}

// The system around the GPU: input, links, clocks.
void WorkloadAnalysis::find_balance_reasons() {
  if (m_w.trace && m_w.trace->input_wait_fraction >= m_o.input_wait_above) {
    reason("input_bound",
           fmt::format("the GPU waits on data loading {} of the trace (>= {}): fix the input "
                       "pipeline before resizing",
                       percent(m_w.trace->input_wait_fraction),
                       percent(m_o.input_wait_above)));
  } else if (const double host_link = m_whole.host_link.si(); host_link > 0) {
    const double rx = level(Metric::pcie_rx) / host_link;
    if (rx >= m_o.interconnect_above && m_work_level < m_o.low_utilization_below) {
      reason("input_bound",
             fmt::format("host-to-GPU PCIe traffic p{:g} is {} of the link while the GPU works "
                         "{}: it waits on input",
                         m_o.work_percentile,
                         percent(rx),
                         percent(m_work_level)));
    }
  }
  const double link = m_whole.gpu_link.si();
  const double nvlink = std::max(level(Metric::nvlink_tx), level(Metric::nvlink_rx));
  if (m_whole.has_nvlink() && link > 0 && nvlink / link >= m_o.interconnect_above) {
    reason("interconnect_bound",
           fmt::format("NVLink traffic p{:g} is {} of the link (>= {})",
                       m_o.work_percentile,
                       percent(nvlink / link),
                       percent(m_o.interconnect_above)));
  } else if (m_w.trace) {
    const double comm =
        m_w.trace->share_by_class[static_cast<std::size_t>(KernelClass::communication)];
    if (comm >= m_o.communication_above) {
      reason("interconnect_bound",
             fmt::format("communication kernels take {} of the GPU's busy time (>= {})",
                         percent(comm),
                         percent(m_o.communication_above)));
    }
  }
  if (m_w.observed.count(Metric::throttled) != 0) {
    const double share = m_throttled_share;
    if (share >= m_o.throttled_above) {
      reason("throttled",
             fmt::format("power or thermal limits slowed the clocks in {} of the samples (>= {}): "
                         "the GPU delivers less than its rating; check cooling and power caps",
                         percent(share),
                         percent(m_o.throttled_above)));
    }
  }
}

} // namespace rightsize::analysis
