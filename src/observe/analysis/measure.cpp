// What a workload was observed to do: its window, work, memory, timeline and trace summary.
// docs/observe.md, "From samples to a workload" and "Work: what the GPU did".

#include "percentiles.hpp"
#include "text.hpp"
#include "workload_analysis.hpp"

#include <rightsize/catalog/mig.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

namespace rightsize::analysis {

namespace {

// The slices of the server's counts (the first a GPU of the group has); else `width` seconds,
// at least twice the largest of the GPUs' median times between samples, so that GPUs sampled at
// other moments (two hosts scraped at different offsets) share slices.
double slice_width(const std::vector<const GpuSeries*>& gpus, double width) {
  for (const auto* g : gpus) {
    for (const auto& s : g->summaries) {
      if (s && !s->occupancy.empty() && s->slice_s > 0) {
        return s->slice_s;
      }
    }
  }
  for (const auto* g : gpus) {
    for (const auto& samples : g->metrics) {
      if (samples.size() < 2) {
        continue;
      }
      std::vector<double> gaps;
      gaps.reserve(samples.size() - 1);
      for (std::size_t i = 1; i < samples.size(); ++i) {
        gaps.push_back(samples.time_s[i] - samples.time_s[i - 1]);
      }
      const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
      std::nth_element(gaps.begin(), mid, gaps.end());
      width = std::max(width, 2 * *mid);
    }
  }
  return width;
}

// One GPU's presence: the server's samples per slice, else its own samples counted per slice of
// `width`; each slice's count over its fullest.
Presence presence_of(const GpuSeries& g, double width) {
  Presence counts;
  const auto* server = [&]() -> const SeriesSummary* {
    for (const auto& s : g.summaries) {
      if (s && !s->occupancy.empty()) {
        return &*s;
      }
    }
    return nullptr;
  }();
  if (server != nullptr) {
    // Slice k ends at k * width: the server's grid is a whole number of steps from its start.
    for (const auto& [end, n] : server->occupancy) {
      counts[std::llround(end / width)] += n;
    }
  } else {
    const Samples* most = nullptr;
    for (const auto& s : g.metrics) {
      if (most == nullptr || s.size() > most->size()) {
        most = &s;
      }
    }
    if (most != nullptr) {
      for (const double t : most->time_s) {
        counts[static_cast<long long>(std::ceil(t / width))] += 1;
      }
    }
  }
  double fullest = 0;
  for (const auto& [k, n] : counts) {
    fullest = std::max(fullest, n);
  }
  for (auto& [k, n] : counts) {
    n /= fullest;
  }
  return counts;
}

// The most of `presences` there at once: the largest sum over a slice, rounded, so that a pod
// replaced within a slice counts once (a rollout's surge of minutes is no second GPU). Unknown
// (no presence at all): each counts.
std::size_t most_at_once(const std::vector<Presence>& presences) {
  std::map<long long, double> sum;
  std::size_t unknown = 0;
  for (const auto& p : presences) {
    unknown += p.empty() ? 1 : 0;
    for (const auto& [k, share] : p) {
      sum[k] += share;
    }
  }
  double most = 0;
  for (const auto& [k, total] : sum) {
    most = std::max(most, total);
  }
  return unknown + static_cast<std::size_t>(std::max(0LL, std::llround(most)));
}

} // namespace

void WorkloadAnalysis::describe() {
  const GpuIdentity* first = m_group.gpus.empty() ? nullptr : &m_group.gpus.front()->id;
  m_w.name = m_group.name;
  m_w.gpu = m_whole.name;
  m_w.observed_gpu = first ? first->model_name : m_group.traces.front()->device_name;
  m_w.partition = first ? first->mig_profile : "";
  m_shape = m_whole;
  if (!m_w.partition.empty()) {
    if (auto slice = mig_slice(m_whole, m_w.partition, true)) {
      m_shape = std::move(*slice);
    } else {
      m_w.notes.push_back(fmt::format("MIG profile {} is not one the catalog lists for {}: "
                                      "costed as the whole GPU",
                                      m_w.partition,
                                      m_whole.name));
      m_w.partition.clear();
    }
  }
  double first_t = std::numeric_limits<double>::infinity();
  double last_t = -first_t;
  for (const auto* s : m_group.gpus) {
    GpuObservation per;
    per.label = s->id.label();
    per.uuid = s->id.uuid;
    for (const auto& samples : s->metrics) {
      if (!samples.empty()) {
        first_t = std::min(first_t, samples.time_s.front());
        last_t = std::max(last_t, samples.time_s.back());
      }
    }
    // The server's slices with samples: the window to within one slice.
    for (const auto& summary : s->summaries) {
      if (summary && !summary->occupancy.empty()) {
        first_t = std::min(first_t, summary->occupancy.front().first - summary->slice_s);
        last_t = std::max(last_t, summary->occupancy.back().first);
      }
    }
    m_w.per_gpu.push_back(std::move(per)); // samples and work: measure_work()
  }
  // When each GPU was there: a Deployment's pods replaced one after another hold one GPU at a
  // time, not one each.
  const double width = slice_width(
      m_group.gpus,
      last_t > first_t ? (last_t - first_t) / static_cast<double>(k_presence_slices) : 1.0);
  std::vector<Presence> presences;
  for (const auto* s : m_group.gpus) {
    presences.push_back(presence_of(*s, width));
  }
  m_w.gpus = static_cast<int>(std::min(m_group.gpus.size(), most_at_once(presences)));
  describe_pods(presences);
  if (m_group.gpus.empty()) {
    m_w.gpus = std::max(1, m_group.traces.front()->devices);
  }
  m_w.window_s = last_t > first_t ? last_t - first_t : 0;
  m_first_t = first_t;
  // Each metric pooled and summarized once: p50, p95, max, and the level at --percentile.
  for (std::size_t m = 0; m < k_metric_count; ++m) {
    const auto metric = static_cast<Metric>(m);
    const auto s = group_summary(m_group, metric, m_o.work_percentile);
    if (!s) {
      continue;
    }
    if (metric == Metric::throttled) {
      m_throttled_share = s->mean;
    }
    m_level[m] = s->extra;
    m_w.observed[metric] = s->percentiles;
  }
}

// The pods at once (a pod there where any of its GPUs is), and the owner when the workload is one:
// every GPU's pod owned by the same object, named as the group is.
void WorkloadAnalysis::describe_pods(const std::vector<Presence>& gpu_presences) {
  std::map<std::string, Presence> pods;
  for (std::size_t i = 0; i < m_group.gpus.size(); ++i) {
    const GpuIdentity& id = m_group.gpus[i]->id;
    if (id.pod.empty()) {
      continue;
    }
    Presence& pod = pods[id.namespace_name + "/" + id.pod];
    for (const auto& [k, share] : gpu_presences[i]) {
      pod[k] = std::max(pod[k], share);
    }
  }
  std::vector<Presence> presences;
  for (auto& [name, presence] : pods) {
    presences.push_back(std::move(presence));
  }
  m_w.pods = static_cast<int>(std::min(pods.size(), most_at_once(presences)));
  if (m_group.gpus.empty()) {
    return;
  }
  const GpuIdentity& first = m_group.gpus.front()->id;
  const bool one_owner =
      !first.owner_name.empty() &&
      std::all_of(m_group.gpus.begin(), m_group.gpus.end(), [&](const GpuSeries* g) {
        return g->id.namespace_name == first.namespace_name &&
               g->id.owner_kind == first.owner_kind && g->id.owner_name == first.owner_name;
      });
  const std::string in_namespace = first.namespace_name.empty() ? "" : first.namespace_name + "/";
  if (one_owner && m_w.name == in_namespace + first.owner_kind + "/" + first.owner_name) {
    m_w.owner =
        WorkloadOwner{first.namespace_name, first.owner_kind, first.owner_name, first.container};
  }
}

// The mean over the workload's GPUs of each GPU's level of `m` at --percentile (a GPU without
// samples of it counts 0): times the GPU count, the work of all of them. A pooled percentile
// would size four GPUs at 0, 20, 60 and 99% as four busy ones.
double WorkloadAnalysis::mean_level(Metric m) const {
  if (m_group.gpus.size() <= 1) {
    return level(m);
  }
  double sum = 0;
  for (const auto* g : m_group.gpus) {
    if (const auto s = gpu_summary(*g, m, m_o.work_percentile)) {
      sum += s->extra;
    }
  }
  return sum / static_cast<double>(m_group.gpus.size());
}

// Work: DCGM's SM activity where the exporter has profiling metrics, else the time a kernel ran
// (utilization.gpu), which overstates it; else a trace's busy share.
void WorkloadAnalysis::measure_work() {
  std::optional<Metric> metric;
  for (const auto m : {Metric::sm_active, Metric::gpu_utilization}) {
    if (has(m_group, m)) {
      metric = m;
      break;
    }
  }
  if (metric) {
    m_w.work_metric = std::string(to_string(*metric));
    m_work = m_w.observed.at(*metric);
    m_work_max = m_work.max;
    // Each GPU's own summary and level at --percentile, from one copy of its samples: their
    // mean is the workload's level (as mean_level() gives it for other metrics).
    double levels = 0;
    for (std::size_t i = 0; i < m_group.gpus.size(); ++i) {
      const auto s = gpu_summary(*m_group.gpus[i], *metric, m_o.work_percentile);
      if (!s) {
        continue; // a GPU without samples of the work metric counts 0
      }
      m_w.per_gpu[i].samples = s->percentiles.samples;
      m_w.samples += s->percentiles.samples;
      m_w.per_gpu[i].work = s->percentiles;
      levels += s->extra;
    }
    m_work_level = levels / static_cast<double>(m_group.gpus.size());
  } else if (!m_group.traces.empty()) {
    m_w.work_metric = "trace";
    std::vector<double> values;
    for (const auto* t : m_group.traces) {
      values.push_back(t->busy_fraction());
    }
    m_work = summarize(values);
    m_work_level = percentile(values, m_o.work_percentile);
    m_work_max = m_work.max;
    // A trace's samples are its GPU events; its window is the trace's.
    for (const auto* t : m_group.traces) {
      m_w.samples += t->kernels;
      m_w.window_s = std::max(m_w.window_s, t->window_s);
    }
  } else {
    throw InputError(m_group.gpus.front()->id.source,
                     fmt::format("{}: no utilization samples (utilization.gpu, "
                                 "DCGM_FI_DEV_GPU_UTIL or DCGM_FI_PROF_SM_ACTIVE): nothing to "
                                 "judge the work by",
                                 m_w.name));
  }
  // Bandwidth: DCGM's DRAM activity, else nvidia-smi's memory utilization, else the work.
  m_bandwidth_level = m_work_level;
  for (const auto m : {Metric::dram_active, Metric::memory_utilization}) {
    if (m_w.observed.count(m) != 0) {
      m_bandwidth_level = mean_level(m);
      break;
    }
  }
  const double grow = 1.0 + m_o.buffer;
  m_w.work_needed_gpus = std::max(m_work_level, m_bandwidth_level) * grow * m_w.gpus;
}

// The window in equal slices: each slice's work and memory percentiles over the workload's GPUs.
void WorkloadAnalysis::build_timeline() {
  if (m_o.timeline_slices <= 0 || m_group.gpus.empty() || m_w.work_metric == "trace" ||
      m_w.work_metric.empty()) {
    return;
  }
  const Metric work =
      m_w.work_metric == to_string(Metric::sm_active) ? Metric::sm_active : Metric::gpu_utilization;
  const auto n = static_cast<std::size_t>(m_w.window_s > 0 ? m_o.timeline_slices : 1);
  const double width = m_w.window_s > 0 ? m_w.window_s / static_cast<double>(n) : 1;
  const auto slice_of = [&](double t) {
    const double k = std::floor((t - m_first_t) / width);
    return std::min(n - 1, static_cast<std::size_t>(std::max(0.0, k)));
  };
  std::vector<std::vector<double>> work_values(n);
  std::vector<std::vector<double>> memory_values(n);
  for (const auto* g : m_group.gpus) {
    const auto& w = (*g)[work];
    for (std::size_t i = 0; i < w.size(); ++i) {
      work_values[slice_of(w.time_s[i])].push_back(w.value[i]);
    }
    const auto& m = (*g)[Metric::memory_used];
    for (std::size_t i = 0; i < m.size(); ++i) {
      memory_values[slice_of(m.time_s[i])].push_back(m.value[i]);
    }
  }
  const std::vector<double> ps = {50, 95, 100};
  for (std::size_t k = 0; k < n; ++k) {
    if (work_values[k].empty()) {
      continue;
    }
    TimeSlice s;
    s.start_s = width * static_cast<double>(k);
    s.end_s = m_w.window_s > 0 ? width * static_cast<double>(k + 1) : 0;
    s.samples = work_values[k].size();
    const auto w = percentiles_in_place(work_values[k], ps);
    s.work = {w[0], w[1], w[2], s.samples};
    if (!memory_values[k].empty()) {
      const auto m = percentiles_in_place(memory_values[k], ps);
      s.memory_used_bytes = Percentiles{m[0], m[1], m[2], memory_values[k].size()};
    }
    m_w.timeline.push_back(std::move(s));
  }
}

namespace {

// The serving engine the workload's name says it runs (ObserveOptions::serving_engines), or "".
std::string engine_of(const std::string& name,
                      const std::map<std::string, std::vector<std::string>>& engines) {
  std::string lower = name;
  for (char& ch : lower) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  for (const auto& [engine, words] : engines) {
    for (const auto& w : words) {
      if (!w.empty() && lower.find(w) != std::string::npos) {
        return engine;
      }
    }
  }
  return {};
}

} // namespace

void WorkloadAnalysis::measure_memory() {
  m_capacity = m_shape.plannable_memory().si();
  // The workload's name, else what every one of its GPUs' pods or containers is named: an owner's
  // name need not say it (team-a/LeaderWorkerSet/llama-70b runs containers named vllm), and a
  // host's GPUs (--group-by host) may serve other things beside an engine's pod.
  m_w.engine = engine_of(m_w.name, m_o.serving_engines);
  if (m_w.engine.empty() && !m_group.gpus.empty()) {
    const auto engine_of_gpu = [&](const GpuSeries* g) {
      const std::string by_pod = engine_of(g->id.pod, m_o.serving_engines);
      return by_pod.empty() ? engine_of(g->id.container, m_o.serving_engines) : by_pod;
    };
    const std::string first = engine_of_gpu(m_group.gpus.front());
    if (std::all_of(m_group.gpus.begin(), m_group.gpus.end(), [&](const GpuSeries* g) {
          return engine_of_gpu(g) == first;
        })) {
      m_w.engine = first;
    }
  }
  double observed_total = 0;
  for (const auto* s : m_group.gpus) {
    if (const auto& summary = s->summary(Metric::memory_total)) {
      observed_total = std::max(observed_total, summary->max);
    }
    const auto& totals = (*s)[Metric::memory_total].value;
    if (!totals.empty()) {
      observed_total = std::max(observed_total, *std::max_element(totals.begin(), totals.end()));
    }
  }
  // What the driver reports as the total is what a process can have: it wins over the
  // catalog's figure for the GPU it was measured on.
  if (observed_total > 0) {
    m_capacity = observed_total;
  }
  m_w.memory_capacity_bytes = m_capacity;
  double needed = 0;
  bool known = false;
  std::size_t measured = 0;
  for (std::size_t i = 0; i < m_group.gpus.size(); ++i) {
    const auto used = gpu_summary(*m_group.gpus[i], Metric::memory_used, m_o.memory_percentile);
    if (!used) {
      continue;
    }
    known = true;
    ++measured;
    const double at_percentile = used->extra;
    m_w.per_gpu[i].memory_used_bytes = used->percentiles;
    needed += at_percentile;
    m_largest_gpu_need = std::max(m_largest_gpu_need, at_percentile * (1.0 + m_o.buffer));
    m_peak_share = std::max(m_peak_share, m_w.per_gpu[i].memory_used_bytes->max / m_capacity);
  }
  if (known && static_cast<std::size_t>(m_w.gpus) < m_group.gpus.size()) {
    // GPUs held one after another (a rollout's pods): what the GPUs held at once need, each the
    // mean of the measured ones.
    needed *= static_cast<double>(m_w.gpus) / static_cast<double>(measured);
  }
  if (!known) {
    // What the caching allocator reserved is what had to fit; what tensors held is less.
    for (const auto* t : m_group.traces) {
      if (const auto peak =
              t->peak_reserved_bytes ? t->peak_reserved_bytes : t->peak_memory_bytes) {
        known = true;
        needed = std::max(needed, *peak * m_w.gpus);
        m_peak_share = std::max(m_peak_share, *peak / m_capacity);
      }
    }
  }
  if (known && !m_w.engine.empty()) {
    // A serving engine takes its memory fraction of each GPU at start (vLLM 0.90 by default)
    // and fills it with KV cache: memory.used is what it reserved, not what the model needs.
    m_peak_share = 0;
    m_largest_gpu_need = 0;
    m_w.notes.push_back(fmt::format(
        "{} preallocates most of each GPU's memory at start (its memory fraction) for its KV "
        "cache: the {} it holds is not what it needs, so no memory figure decides the verdict; "
        "rightsize plan on the workload's spec sizes its memory",
        m_w.engine,
        gib_text(needed / std::max(1, m_w.gpus))));
  } else if (known) {
    m_w.memory_needed_bytes = needed * (1.0 + m_o.buffer);
  } else {
    m_w.notes.push_back("no memory samples: the recommendation keeps at least the current "
                        "memory per GPU");
  }
}

void WorkloadAnalysis::summarize_traces() {
  if (m_group.traces.empty()) {
    return;
  }
  const TraceProfile& t = *m_group.traces.front();
  TraceSummary s;
  s.source = t.source;
  s.format = t.format;
  s.window_s = t.window_s;
  s.busy_fraction = t.busy_fraction();
  const double device_time = t.window_s * std::max(1, t.devices);
  s.input_wait_fraction = device_time > 0 ? t.input_wait_s / device_time : 0;
  double by_class = 0;
  for (const double v : t.busy_by_class_s) {
    by_class += v;
  }
  for (std::size_t k = 0; k < k_kernel_class_count; ++k) {
    s.share_by_class[k] = by_class > 0 ? t.busy_by_class_s[k] / by_class : 0;
  }
  s.host_to_device_bytes = t.host_to_device_bytes;
  s.peak_memory_bytes = t.peak_reserved_bytes ? t.peak_reserved_bytes : t.peak_memory_bytes;
  m_w.trace = s;
  if (m_group.traces.size() > 1) {
    m_w.notes.push_back(fmt::format("{} traces: the first ({}) is summarized, all count as work",
                                    m_group.traces.size(),
                                    t.source));
  }
}

} // namespace rightsize::analysis
