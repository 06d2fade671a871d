// Serving engines' own metrics from Prometheus (vLLM, SGLang, TensorRT-LLM: data/deploy.json
// "serving_metrics"), for the pods the DCGM series name, summarized by the server per pod as
// engine_text.cpp summarizes a file: the request gauges summed over a pod's series at each step
// (a subquery at --step), the KV cache's largest, the preemption counter's increase, and each
// latency histogram's increase bucket by bucket. docs/observe.md, "Serving engines".

#include "session.hpp"

#include <rightsize/observe/serving.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rightsize::prometheus {

namespace {

using PodKey = std::pair<std::string, std::string>; // namespace, pod

std::string label(const Labels& labels, const std::string& name) {
  for (const auto& [key, value] : labels) {
    if (key == name) {
      return value;
    }
  }
  return {};
}

// The first of `names` (for a histogram, `<name>_bucket`) the server has series of, or "".
std::string present(const std::vector<std::string>& names,
                    const std::set<std::string>& have,
                    const char* suffix = "") {
  for (const auto& n : names) {
    if (have.count(n + suffix) != 0) {
      return n;
    }
  }
  return {};
}

class EngineReader {
public:
  EngineReader(Session& session, std::set<PodKey> pods)
      : m_session(session), m_pods(std::move(pods)) {}

  // Every answer of `promql` for a pod of the GPUs: (pod, labels, value).
  template <class F> void each(const std::string& promql, F&& f) {
    const Answer answer = m_session.instant(promql);
    for (const auto& w : answer.warnings) {
      m_warnings.push_back(
          fmt::format("{}: Prometheus warns: {}", m_session.where("/api/v1/query", promql), w));
    }
    for (const auto& series : answer.series) {
      PodKey key{label(series.labels, "namespace"), label(series.labels, "pod")};
      if (series.points.empty() || m_pods.count(key) == 0 ||
          !std::isfinite(series.points.front().value)) {
        continue;
      }
      f(key, series.labels, series.points.front().value);
    }
  }

  void read(const std::string& engine,
            const EngineMetricNames& n,
            const std::set<std::string>& have,
            Telemetry& into) {
    const std::string running = present(n.running, have);
    if (running.empty()) {
      return; // the request gauges are what a verdict rests on
    }
    const Queries q = queries(n, running, have);
    m_session.prefetch(q.all, m_session.query().parallel);
    std::map<PodKey, EngineSeries> out;
    each(q.scrapes, [&](const PodKey& key, const Labels&, double v) {
      EngineSeries& e = out[key];
      e.engine = engine;
      e.source = m_session.base().shown;
      e.namespace_name = key.first;
      e.pod = key.second;
      e.scrapes = static_cast<std::size_t>(v);
    });
    read_gauges(q, out);
    for (const auto& [member, h] : q.histograms) {
      read_histogram(h, member, out);
    }
    read_windows(running, out);
    for (auto& [k, e] : out) {
      into.engine_pods.push_back(std::move(e));
    }
  }

private:
  using Summary = Percentiles EngineSeries::*;
  using HistogramMember = std::optional<LatencyHistogram> EngineSeries::*;

  // The queries of one engine: what is asked, so that it can be prefetched side by side.
  struct Queries {
    std::string scrapes;
    std::vector<std::pair<Summary, std::string>> gauges; // each series' p50, p95, max
    std::string kv;                                      // a series, or ""
    std::string preempted;                               // an instant query, or ""
    std::vector<std::pair<HistogramMember, std::array<std::string, 3>>> histograms;
    std::vector<std::string> all;
  };

  static std::array<std::string, 3> percentiles_of(const std::string& series) {
    return {fmt::format("quantile_over_time(0.5, {})", series),
            fmt::format("quantile_over_time(0.95, {})", series),
            fmt::format("max_over_time({})", series)};
  }

  Queries queries(const EngineMetricNames& n,
                  const std::string& running,
                  const std::set<std::string>& have) const {
    const std::string waiting = present(n.waiting, have);
    const std::string kv = present(n.kv_cache_usage, have);
    const std::string preemptions = present(n.preemptions, have);
    const std::string range = m_session.range();
    const std::string sub = fmt::format("[{:.0f}ms:{:.0f}ms]",
                                        std::round(m_session.query().range_s * 1000),
                                        std::round(m_session.window().step_s * 1000));
    const auto summed = [&](const std::string& name) {
      return fmt::format("(sum by (namespace, pod) ({})){}", m_session.selector(name), sub);
    };
    Queries q;
    q.scrapes = fmt::format(
        "max by (namespace, pod) (count_over_time({}{}))", m_session.selector(running), range);
    q.all.push_back(q.scrapes);
    q.gauges.emplace_back(&EngineSeries::running, summed(running));
    q.gauges.emplace_back(
        &EngineSeries::demand,
        waiting.empty()
            ? summed(running)
            : fmt::format("(sum by (namespace, pod) ({}) + sum by (namespace, pod) ({})){}",
                          m_session.selector(running),
                          m_session.selector(waiting),
                          sub));
    if (!waiting.empty()) {
      q.gauges.emplace_back(&EngineSeries::waiting, summed(waiting));
    }
    for (const auto& [member, series] : q.gauges) {
      for (const auto& p : percentiles_of(series)) {
        q.all.push_back(p);
      }
    }
    if (!kv.empty()) {
      q.kv = fmt::format("(max by (namespace, pod) ({})){}", m_session.selector(kv), sub);
      for (const auto& p : percentiles_of(q.kv)) {
        q.all.push_back(p);
      }
    }
    if (!preemptions.empty()) {
      q.preempted = fmt::format(
          "sum by (namespace, pod) (increase({}{}))", m_session.selector(preemptions), range);
      q.all.push_back(q.preempted);
    }
    for (const auto& [member, names] : {std::pair{&EngineSeries::ttft, &n.ttft_seconds},
                                        std::pair{&EngineSeries::itl, &n.itl_seconds}}) {
      const std::string base = present(*names, have, "_bucket");
      if (base.empty()) {
        continue;
      }
      const auto increase = [&](const std::string& suffix, const char* by) {
        return fmt::format(
            "sum by ({}) (increase({}{}))", by, m_session.selector(base + suffix), range);
      };
      q.histograms.emplace_back(
          member,
          std::array<std::string, 3>{increase("_bucket", "namespace, pod, le"),
                                     increase("_sum", "namespace, pod"),
                                     increase("_count", "namespace, pod")});
      for (const auto& h : q.histograms.back().second) {
        q.all.push_back(h);
      }
    }
    return q;
  }

  // The p50, p95 and max of each gauge series (and the KV cache's), and the preemptions.
  void read_gauges(const Queries& q, std::map<PodKey, EngineSeries>& out) {
    const auto fill = [&](const std::string& series, auto&& percentiles) {
      const auto p = percentiles_of(series);
      for (std::size_t i = 0; i < p.size(); ++i) {
        each(p[i], [&](const PodKey& k, const Labels&, double v) {
          const auto it = out.find(k);
          if (it == out.end()) {
            return;
          }
          Percentiles& target = percentiles(it->second);
          (i == 0 ? target.p50 : i == 1 ? target.p95 : target.max) = v;
          target.samples = it->second.scrapes;
        });
      }
    };
    for (const auto& [member, series] : q.gauges) {
      fill(series, [member = member](EngineSeries& e) -> Percentiles& { return e.*member; });
    }
    if (!q.kv.empty()) {
      fill(q.kv, [](EngineSeries& e) -> Percentiles& {
        if (!e.kv_cache_usage) {
          e.kv_cache_usage = Percentiles{};
        }
        return *e.kv_cache_usage;
      });
    }
    if (!q.preempted.empty()) {
      each(q.preempted, [&](const PodKey& k, const Labels&, double v) {
        if (const auto it = out.find(k); it != out.end()) {
          it->second.preemptions = v;
        }
      });
    }
  }

  // A latency histogram's increase, bucket by bucket, with its sum and count.
  void read_histogram(const std::array<std::string, 3>& q,
                      HistogramMember member,
                      std::map<PodKey, EngineSeries>& out) {
    std::map<PodKey, std::map<double, double>> buckets;
    each(q[0], [&](const PodKey& k, const Labels& labels, double v) {
      const std::string le = label(labels, "le");
      double bound = HUGE_VAL;
      if (le != "+Inf") {
        try {
          bound = std::stod(le);
        } catch (const std::exception&) {
          return; // not a bucket histogram_quantile would read either
        }
        if (!(bound >= 0)) {
          return; // a latency is never negative
        }
      }
      buckets[k][bound] += v;
    });
    for (auto& [k, by_le] : buckets) {
      const auto it = out.find(k);
      if (it == out.end()) {
        continue;
      }
      LatencyHistogram h;
      double cumulative = 0;
      for (const auto& [le, c] : by_le) {
        cumulative = std::max(cumulative, c);
        h.buckets.emplace_back(le, cumulative);
      }
      if (std::isfinite(h.buckets.back().first)) {
        h.buckets.emplace_back(HUGE_VAL, cumulative);
      }
      h.count = h.buckets.back().second;
      it->second.*member = std::move(h);
    }
    for (std::size_t i = 1; i < 3; ++i) {
      each(q[i], [&](const PodKey& k, const Labels&, double v) {
        const auto it = out.find(k);
        if (it != out.end() && it->second.*member) {
          (i == 1 ? (it->second.*member)->sum : (it->second.*member)->count) = v;
        }
      });
    }
  }

public:
  // Each pod's window, first scrape to last, to within a slice: count_over_time of its running
  // gauge over timeline_points slices of the window (as the GPUs' presence is read).
  void read_windows(const std::string& running, std::map<PodKey, EngineSeries>& out) {
    const Window& w = m_session.window();
    const double step =
        std::max(w.step_s, m_session.query().range_s / m_session.query().timeline_points);
    const std::string promql =
        fmt::format("max by (namespace, pod) (count_over_time({}[{:.0f}ms]))",
                    m_session.selector(running),
                    std::round(step * 1000));
    const Answer answer = m_session.range(promql, w.start_s + step, w.end_s, step);
    for (const auto& series : answer.series) {
      const PodKey key{label(series.labels, "namespace"), label(series.labels, "pod")};
      const auto it = out.find(key);
      if (it == out.end()) {
        continue;
      }
      double first = HUGE_VAL;
      double last = -HUGE_VAL;
      for (const auto& p : series.points) {
        if (p.value > 0) {
          first = std::min(first, p.time_s - step);
          last = std::max(last, p.time_s);
        }
      }
      if (last > first) {
        it->second.window_s = last - first;
      }
    }
  }

  std::vector<std::string>& warnings() { return m_warnings; }

private:
  Session& m_session;
  std::set<PodKey> m_pods;
  std::vector<std::string> m_warnings;
};

} // namespace

void add_engine_metrics(Session& session, Telemetry& into) {
  std::set<PodKey> pods;
  for (const auto& gpu : into.gpus) {
    if (!gpu.id.pod.empty()) {
      pods.emplace(gpu.id.namespace_name, gpu.id.pod);
    }
  }
  const EngineMetricCatalog& catalog = session.query().engine_metrics;
  if (pods.empty() || catalog.empty()) {
    return;
  }
  // Which of the engines' names the server has series of, in one request (the index only).
  std::string names;
  for (const auto& [engine, n] : catalog) {
    for (const auto* role : {&n.running, &n.waiting, &n.kv_cache_usage, &n.preemptions}) {
      for (const auto& name : *role) {
        names += (names.empty() ? "" : "|") + name;
      }
    }
    for (const auto* role : {&n.ttft_seconds, &n.itl_seconds}) {
      for (const auto& name : *role) {
        names += (names.empty() ? "" : "|") + name + "_bucket";
      }
    }
  }
  const auto values =
      session.label_values("__name__", session.selector("", "__name__=~\"" + names + "\""));
  const std::set<std::string> have(values.begin(), values.end());
  if (have.empty()) {
    return;
  }
  EngineReader reader(session, std::move(pods));
  for (const auto& [engine, n] : catalog) {
    reader.read(engine, n, have, into);
  }
  for (auto& w : reader.warnings()) {
    into.warnings.push_back(std::move(w));
  }
}

} // namespace rightsize::prometheus
