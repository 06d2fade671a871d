// The window summarized by the server: per DCGM series, PromQL's count_over_time, avg_over_time,
// max_over_time and quantile_over_time in instant queries at the window's end, so that what
// crosses the network grows with the number of series, not with the window; and a coarse
// query_range of the work and memory metrics for the window's extent and the HTML report's
// charts. docs/observe.md, "Aggregation in the server".

#include "session.hpp"
#include "telemetry/dcgm_fields.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <set>
#include <unordered_map>

namespace rightsize::prometheus {

namespace {

// One GPU's summaries as the answers arrive, before they join the telemetry.
struct Entry {
  GpuIdentity id;
  std::array<std::optional<SeriesSummary>, k_metric_count> summaries;
  // For memory_total = used + free (+ reserved), constant while the GPU lives: at the moment free
  // memory peaks, used memory is at its least.
  std::optional<double> used_min;
  std::optional<double> free_max;
  double reserved_max = 0;
};

class Summaries {
public:
  explicit Summaries(Session& session) : m_session(session) {}

  void run(Telemetry& into);

private:
  // The answer to `function(selector[range])` (or `promql` as given), one value per GPU.
  std::vector<std::pair<Entry*, double>> ask(const std::string& promql);
  Entry& entry(const Series& series);
  void summarize_metric(const dcgm::Field& field);
  void summarize_memory_parts(const dcgm::Field& field);
  void summarize_throttling(const dcgm::Field& field);
  std::vector<const dcgm::Field*> summarize_fields(const std::set<std::string>& present);
  void read_timeline(const std::vector<const dcgm::Field*>& fields, Telemetry& into);
  void join(Telemetry& into);

  Session& m_session;
  std::deque<Entry> m_entries; // a deque: the Entry* of an answer stay valid as it grows
  std::unordered_map<std::string, std::size_t> m_index;
  std::vector<double> m_percentiles; // asked of each series, below 100
  std::size_t m_non_finite = 0;
  std::vector<std::string> m_warnings;
  // While set, ask() only notes its query here (the first pass, whose queries are then
  // prefetched side by side).
  std::vector<std::string>* m_recording = nullptr;
  double m_mib = 0; // FB_FREE's scale, MiB -> bytes (FB_USED's too)
};

std::string quantile_text(double percentile) {
  return fmt::format("{:g}", percentile / 100.0);
}

Entry& Summaries::entry(const Series& series) {
  GpuIdentity id = dcgm::identity_from_labels(series.labels, m_session.base().shown);
  const std::string key = identity_key(id);
  const auto [it, added] = m_index.emplace(key, m_entries.size());
  if (added) {
    m_entries.push_back(Entry{std::move(id), {}, {}, {}, 0});
  }
  return m_entries[it->second];
}

std::vector<std::pair<Entry*, double>> Summaries::ask(const std::string& promql) {
  if (m_recording != nullptr) {
    m_recording->push_back(promql);
    return {};
  }
  const Answer answer = m_session.instant(promql);
  for (const auto& w : answer.warnings) {
    m_warnings.push_back(
        fmt::format("{}: Prometheus warns: {}", m_session.where("/api/v1/query", promql), w));
  }
  m_non_finite += answer.non_finite;
  std::vector<std::pair<Entry*, double>> out;
  out.reserve(answer.series.size());
  for (const auto& series : answer.series) {
    if (series.points.empty()) {
      continue;
    }
    out.emplace_back(&entry(series), series.points.front().value);
  }
  return out;
}

// count, mean, max and each percentile of one field whose value is a metric.
void Summaries::summarize_metric(const dcgm::Field& field) {
  const std::string selector = m_session.selector(field.name) + m_session.range();
  const auto of = [&](std::string_view function) {
    return fmt::format("{}({})", function, selector);
  };
  const std::size_t m = static_cast<std::size_t>(field.metric);
  for (const auto& [e, count] : ask(of("count_over_time"))) {
    if (count > 0) {
      e->summaries[m] = SeriesSummary{count, 0, 0, {}, {}, 0};
    }
  }
  const auto store = [&](const std::string& promql, auto&& set) {
    for (const auto& [e, value] : ask(promql)) {
      const double v = value * field.scale;
      if (e->summaries[m] && std::isfinite(v)) {
        set(*e->summaries[m], v);
      }
    }
  };
  // The mean is the analysis' for the throttled share only: not asked of the other metrics.
  store(of("max_over_time"), [](SeriesSummary& s, double v) { s.max = v; });
  for (const double p : m_percentiles) {
    store(fmt::format("quantile_over_time({}, {})", quantile_text(p), selector),
          [p](SeriesSummary& s, double v) { s.percentiles[p] = v; });
  }
  if (field.metric == Metric::memory_used) {
    for (const auto& [e, value] : ask(of("min_over_time"))) {
      if (std::isfinite(value)) {
        e->used_min = value;
      }
    }
  }
}

// FB_FREE and FB_RESERVED: the parts of memory_total besides the used memory.
void Summaries::summarize_memory_parts(const dcgm::Field& field) {
  m_mib = field.scale;
  const std::string promql =
      fmt::format("max_over_time({}{})", m_session.selector(field.name), m_session.range());
  for (const auto& [e, value] : ask(promql)) {
    if (!std::isfinite(value)) {
      continue;
    }
    if (field.role == dcgm::Role::fb_free) {
      e->free_max = std::max(e->free_max.value_or(value), value);
    } else {
      e->reserved_max = std::max(e->reserved_max, value);
    }
  }
}

// The share of samples with a performance-limiting clock reason: the mask's bits tested in PromQL
// (floor(mask / bit) % 2), over a subquery at --step, whose mean is the share. The percentiles of
// a 0/1 series follow from its count and mean.
void Summaries::summarize_throttling(const dcgm::Field& field) {
  const std::string mask = m_session.selector(field.name);
  std::string limiting;
  for (unsigned bit = 1; bit < 0x200; bit <<= 1U) {
    if ((dcgm::k_limiting_reasons & bit) != 0) {
      limiting += fmt::format("{}floor({} / {}) % 2", limiting.empty() ? "" : " + ", mask, bit);
    }
  }
  const std::string subquery = fmt::format("(({}) > bool 0)[{:.0f}ms:{:.0f}ms]",
                                           limiting,
                                           std::round(m_session.query().range_s * 1000),
                                           std::round(m_session.window().step_s * 1000));
  const std::size_t m = static_cast<std::size_t>(Metric::throttled);
  for (const auto& [e, count] : ask("count_over_time(" + subquery + ")")) {
    if (count > 0 && !e->summaries[m]) {
      e->summaries[m] = SeriesSummary{count, 0, 0, {}, {}, 0};
    }
  }
  for (const auto& [e, mean] : ask("avg_over_time(" + subquery + ")")) {
    if (!e->summaries[m] || !std::isfinite(mean)) {
      continue;
    }
    SeriesSummary& s = *e->summaries[m];
    s.mean = mean;
    s.max = mean > 0 ? 1 : 0;
    // n values, k = n (1 - mean) of them 0: the percentile at rank p (n - 1) interpolates
    // between the last 0 (rank k - 1) and the first 1 (rank k).
    const double zeros = s.count * (1 - mean);
    for (const double p : m_percentiles) {
      s.percentiles[p] = std::clamp(p / 100 * (s.count - 1) - (zeros - 1), 0.0, 1.0);
    }
  }
}

// When each GPU was there: count_over_time of the first work field over slices of the window
// (timeline_points of them, at least --step wide), one query_range whose every sample counts in
// its slice; and when the charts need them, the work and memory metrics' raw samples at that step.
// (A subquery of timestamp() would give exact times, but Prometheus 2.42 takes minutes over it
// at 1,000 GPUs x 14 days.)
void Summaries::read_timeline(const std::vector<const dcgm::Field*>& fields, Telemetry& into) {
  const Window& w = m_session.window();
  const double step =
      std::max(w.step_s, m_session.query().range_s / m_session.query().timeline_points);
  for (const auto* field : fields) {
    if (field->metric == Metric::memory_used) {
      continue;
    }
    const std::string promql = fmt::format(
        "count_over_time({}[{:.0f}ms])", m_session.selector(field->name), std::round(step * 1000));
    const Answer answer = m_session.range(promql, w.start_s + step, w.end_s, step);
    const std::size_t m = static_cast<std::size_t>(field->metric);
    for (const auto& series : answer.series) {
      Entry& e = entry(series);
      if (!e.summaries[m]) {
        continue;
      }
      e.summaries[m]->slice_s = step;
      for (const auto& p : series.points) {
        if (p.value > 0) {
          e.summaries[m]->occupancy.emplace_back(p.time_s, p.value);
        }
      }
    }
    break; // one work field says when the GPU was there
  }
  if (!m_session.query().timeline) {
    return;
  }
  for (const auto* field : fields) {
    const std::string promql = m_session.selector(field->name);
    add_prometheus_matrix(m_session.range_body(promql, w.start_s, w.end_s, step),
                          field->name,
                          m_session.where("/api/v1/query_range", promql),
                          into);
  }
}

// The summaries joined to the GPUs the timeline made (by identity), and GPUs it did not see.
void Summaries::join(Telemetry& into) {
  std::unordered_map<std::string, std::size_t> gpu_of;
  for (std::size_t i = 0; i < into.gpus.size(); ++i) {
    gpu_of.emplace(identity_key(into.gpus[i].id), i);
  }
  std::size_t incomplete = 0;
  for (auto& e : m_entries) {
    if (e.free_max && e.used_min) {
      const auto& used = e.summaries[static_cast<std::size_t>(Metric::memory_used)];
      const double total = (*e.used_min + *e.free_max + e.reserved_max) * m_mib;
      SeriesSummary s{used ? used->count : 1, total, total, {}, {}, 0};
      for (const double p : m_percentiles) {
        s.percentiles[p] = total;
      }
      e.summaries[static_cast<std::size_t>(Metric::memory_total)] = std::move(s);
    }
    // A summary the server could not complete (NaN in one of its answers) is left out whole.
    bool any = false;
    for (auto& s : e.summaries) {
      if (s && std::any_of(m_percentiles.begin(), m_percentiles.end(), [&](double p) {
            return s->percentiles.count(p) == 0;
          })) {
        s.reset();
        ++incomplete;
      }
      any = any || s.has_value();
    }
    if (!any) {
      continue;
    }
    const std::string key = identity_key(e.id);
    auto it = gpu_of.find(key);
    if (it == gpu_of.end()) {
      GpuSeries gpu;
      gpu.id = e.id;
      into.gpus.push_back(std::move(gpu));
      it = gpu_of.emplace(key, into.gpus.size() - 1).first;
    }
    GpuSeries& gpu = into.gpus[it->second];
    gpu.summaries = std::move(e.summaries);
    if (gpu.id.model_name.empty()) {
      gpu.id.model_name = e.id.model_name;
    }
    for (const auto& s : gpu.summaries) {
      if (s) {
        into.samples += static_cast<std::size_t>(s->count);
      }
    }
  }
  if (incomplete > 0) {
    m_warnings.push_back(fmt::format("{}: {} series summar{} incomplete (a NaN answer); left out",
                                     m_session.base().shown,
                                     incomplete,
                                     incomplete == 1 ? "y was" : "ies were"));
  }
  if (m_non_finite > 0) {
    m_warnings.push_back(fmt::format("{}: {} summar{} NaN or infinite; skipped",
                                     m_session.base().shown,
                                     m_non_finite,
                                     m_non_finite == 1 ? "y was" : "ies were"));
  }
  into.warnings.insert(into.warnings.end(), m_warnings.begin(), m_warnings.end());
}

void Summaries::run(Telemetry& into) {
  std::set<double> asked = {50, 95};
  for (const double p : m_session.query().percentiles) {
    if (p < 100) {
      asked.insert(p);
    }
  }
  m_percentiles.assign(asked.begin(), asked.end());

  // Which fields have series in the window: one request on the index, not a scan of the data.
  std::string names;
  for (const auto& field : dcgm::fields()) {
    names += (names.empty() ? "" : "|") + std::string(field.name);
  }
  const auto present_list =
      m_session.label_values("__name__", m_session.selector("", "__name__=~\"" + names + "\""));
  const std::set<std::string> present(present_list.begin(), present_list.end());

  // The queries of the fields present, asked side by side, then read in order.
  std::vector<std::string> queries;
  m_recording = &queries;
  summarize_fields(present);
  m_recording = nullptr;
  m_session.prefetch(queries, m_session.query().parallel);
  const auto timeline = summarize_fields(present);
  read_timeline(timeline, into);
  join(into);
}

std::vector<const dcgm::Field*> Summaries::summarize_fields(const std::set<std::string>& present) {
  std::vector<const dcgm::Field*> timeline;
  std::array<bool, k_metric_count> summarized{};
  for (const auto& field : dcgm::fields()) {
    if (present.count(std::string(field.name)) == 0) {
      continue;
    }
    const auto m = static_cast<std::size_t>(field.metric);
    switch (field.role) {
    case dcgm::Role::metric:
      // GPU_UTIL and GR_ENGINE_ACTIVE both measure gpu_utilization: the first present wins.
      if (summarized[m]) {
        continue;
      }
      summarized[m] = true;
      summarize_metric(field);
      if (field.metric == Metric::gpu_utilization || field.metric == Metric::sm_active ||
          field.metric == Metric::memory_used) {
        timeline.push_back(&field);
      }
      break;
    case dcgm::Role::fb_free:
    case dcgm::Role::fb_reserved:
      summarize_memory_parts(field);
      break;
    case dcgm::Role::throttle_mask:
      if (!summarized[m]) {
        summarized[m] = true;
        summarize_throttling(field);
      }
      break;
    }
  }
  return timeline;
}

} // namespace

void summarize_on_server(Session& session, Telemetry& into) {
  Summaries(session).run(into);
}

} // namespace rightsize::prometheus
