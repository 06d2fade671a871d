// A serving engine's /metrics (vLLM, SGLang, TensorRT-LLM) in the Prometheus text exposition
// format, one scrape or many concatenated, summarized per pod. Behaviour: docs/observe.md,
// "Serving engines".

#include "text_scan.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/serving.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rightsize {

namespace {

constexpr double k_largest_value = 1e15;

enum class Role { running, waiting, kv_cache_usage, preemptions, ttft, itl };
enum class Part { value, bucket, sum, count };

// What a metric name is: an engine's role, its rank among the role's names (0: the current
// name), and for a histogram which of its series.
struct Meaning {
  std::string engine;
  Role role = Role::running;
  std::size_t rank = 0;
  Part part = Part::value;
};

std::unordered_map<std::string, Meaning> meanings(const EngineMetricCatalog& catalog) {
  std::unordered_map<std::string, Meaning> out;
  const auto add =
      [&](const std::string& engine, Role role, const std::vector<std::string>& names) {
        for (std::size_t i = 0; i < names.size(); ++i) {
          if (role == Role::ttft || role == Role::itl) {
            out.emplace(names[i] + "_bucket", Meaning{engine, role, i, Part::bucket});
            out.emplace(names[i] + "_sum", Meaning{engine, role, i, Part::sum});
            out.emplace(names[i] + "_count", Meaning{engine, role, i, Part::count});
          } else {
            out.emplace(names[i], Meaning{engine, role, i, Part::value});
          }
        }
      };
  for (const auto& [engine, n] : catalog) {
    add(engine, Role::running, n.running);
    add(engine, Role::waiting, n.waiting);
    add(engine, Role::kv_cache_usage, n.kv_cache_usage);
    add(engine, Role::preemptions, n.preemptions);
    add(engine, Role::ttft, n.ttft_seconds);
    add(engine, Role::itl, n.itl_seconds);
  }
  return out;
}

// One series of the file and its samples in time order of the file.
struct Series {
  Meaning meaning;
  std::string pod_key;
  std::string rest_labels; // its labels other than namespace, pod and le: one histogram's series
  double le = 0;           // a bucket's bound
  std::vector<std::pair<double, double>> samples; // (time s, value)
};

// The counter's increase over its samples, a reset (a value below the last) counted from zero.
double increase(const std::vector<std::pair<double, double>>& samples) {
  double total = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const double d = samples[i].second - samples[i - 1].second;
    total += d >= 0 ? d : samples[i].second;
  }
  return total;
}

struct PodSeries {
  std::string namespace_name;
  std::string pod;
  std::set<std::string> engines;
  std::vector<std::size_t> series; // indices into the parser's series
};

class EngineParser {
public:
  EngineParser(std::string_view text,
               const std::string& source,
               const std::string& workload,
               const EngineMetricCatalog& catalog,
               double interval_s)
      : m_text(text), m_source(source), m_workload(workload), m_meanings(meanings(catalog)),
        m_interval_s(interval_s) {}

  Telemetry run() {
    scan::LineReader lines(scan::strip_bom(m_text));
    std::string_view line;
    while (lines.next(line)) {
      read_line(line, lines.line_number());
    }
    if (m_series.empty()) {
      throw InputError(m_source,
                       "no serving engine metric in the file (vllm:num_requests_running, "
                       "sglang:num_running_reqs, ... as data/deploy.json's serving_metrics name "
                       "them): is it the engine's /metrics?");
    }
    Telemetry out;
    for (const auto& [key, pod] : m_pods) {
      for (const auto& engine : pod.engines) {
        out.engine_pods.push_back(summarize_pod(pod, engine));
      }
    }
    if (m_skipped_values > 0) {
      out.warnings.push_back(
          fmt::format("{}: {} engine sample{} not finite, negative or above 1e15; skipped "
                      "(the first at line {})",
                      m_source,
                      m_skipped_values,
                      m_skipped_values == 1 ? "" : "s",
                      m_first_skipped_line));
    }
    return out;
  }

private:
  void read_line(std::string_view line, std::size_t line_number) {
    line = scan::trim(line);
    if (line.empty() || line.front() == '#') {
      return;
    }
    std::size_t end = 0;
    std::string_view name;
    if (const char* why = scan::scan_series(line, end, &name, nullptr)) {
      throw InputError(fmt::format("{}:{}", m_source, line_number),
                       fmt::format("{}: not the Prometheus text format", why));
    }
    const auto meaning = m_meanings.find(std::string(name));
    if (meaning == m_meanings.end()) {
      return; // another metric of the engine's, or of another exporter
    }
    scan::Labels labels;
    scan::scan_series(line, end, nullptr, &labels);
    double value = 0;
    std::string_view token;
    double time_s = 0;
    bool stamped = false;
    std::string_view bad;
    if (const char* why =
            scan::scan_sample_value(line.substr(end), value, token, time_s, stamped, bad)) {
      throw InputError(fmt::format("{}:{}", m_source, line_number),
                       fmt::format("{}: '{}'", why, detail::valid_utf8(bad.substr(0, 40))));
    }
    // The series by its name and labels in sorted order: the same series written with its
    // labels in another order (or a space before '{') is one series, not two added up.
    std::sort(labels.begin(), labels.end());
    std::string key(name);
    for (const auto& [k, v] : labels) {
      key += '\x1f' + k + '=' + v;
    }
    auto [it, added] = m_index.try_emplace(key, m_series.size());
    if (added) {
      m_series.push_back(make_series(meaning->second, labels, line_number));
      PodSeries& p = m_pods[m_series.back().pod_key];
      p.engines.insert(meaning->second.engine);
      p.series.push_back(it->second);
    }
    Series& s = m_series[it->second];
    if (!stamped) {
      time_s = static_cast<double>(s.samples.size()) * m_interval_s;
    }
    // No engine counts 10^15 requests or seconds: beyond that a value is garbage, and sums of
    // such values would overflow.
    if (!std::isfinite(value) || value < 0 || value > k_largest_value || !std::isfinite(time_s)) {
      if (m_skipped_values++ == 0) {
        m_first_skipped_line = line_number;
      }
      return;
    }
    s.samples.emplace_back(time_s, value);
  }

  Series make_series(const Meaning& meaning, const scan::Labels& labels, std::size_t line_number) {
    Series s;
    s.meaning = meaning;
    std::string ns;
    std::string pod;
    for (const auto& [k, v] : labels) {
      if (k == "namespace") {
        ns = v;
      } else if (k == "pod") {
        pod = v;
      } else if (k == "le") {
        double le = 0;
        if (v == "+Inf") {
          le = HUGE_VAL;
        } else if (!scan::parse_number(v, le) || std::isnan(le) || le < 0) {
          // A latency is never negative: a bound below 0 (or -Inf) is not a latency histogram's.
          throw InputError(fmt::format("{}:{}", m_source, line_number),
                           fmt::format("the bucket bound le=\"{}\" is not a latency in seconds",
                                       detail::valid_utf8(v.substr(0, 40))));
        }
        s.le = le;
      } else {
        s.rest_labels += k + "=" + v + ",";
      }
    }
    if (!m_workload.empty()) {
      s.pod_key = m_workload;
    } else if (ns.empty() || pod.empty()) {
      throw InputError(fmt::format("{}:{}", m_source, line_number),
                       "an engine metric without namespace and pod labels: name the workload "
                       "it belongs to, --engine-metrics WORKLOAD=FILE (namespace/pod or "
                       "namespace/Kind/name)");
    } else {
      s.pod_key = ns + "/" + pod;
    }
    PodSeries& p = m_pods[s.pod_key];
    if (p.series.empty()) {
      p.namespace_name = ns;
      p.pod = pod;
    }
    return s;
  }

  EngineSeries summarize_pod(const PodSeries& pod, const std::string& engine) const {
    EngineSeries e;
    e.engine = engine;
    e.source = m_source;
    e.workload = m_workload;
    e.namespace_name = pod.namespace_name;
    e.pod = pod.pod;
    // The series of this pod and engine in `role`, of the best-ranked name present.
    const auto of_role = [&](Role role) {
      std::vector<const Series*> found;
      std::size_t best = std::numeric_limits<std::size_t>::max();
      for (const std::size_t i : pod.series) {
        const Series& s = m_series[i];
        if (s.meaning.engine != engine || s.meaning.role != role || s.samples.empty()) {
          continue;
        }
        if (s.meaning.rank < best) {
          best = s.meaning.rank;
          found.clear();
        }
        if (s.meaning.rank == best) {
          found.push_back(&s);
        }
      }
      return found;
    };
    // A gauge at each time, over its series (a data-parallel engine has one per rank): summed,
    // or the largest.
    const auto gauge = [&](Role role, bool sum) {
      std::map<double, double> at;
      for (const Series* s : of_role(role)) {
        for (const auto& [t, v] : s->samples) {
          auto [it, added] = at.try_emplace(t, v);
          if (!added) {
            it->second = sum ? it->second + v : std::max(it->second, v);
          }
        }
      }
      return at;
    };
    const auto values = [](const std::map<double, double>& at) {
      std::vector<double> v;
      v.reserve(at.size());
      for (const auto& [t, x] : at) {
        v.push_back(x);
      }
      return v;
    };
    const auto running = gauge(Role::running, true);
    const auto waiting = gauge(Role::waiting, true);
    const auto kv = gauge(Role::kv_cache_usage, false);
    e.running = summarize(values(running));
    e.waiting = summarize(values(waiting));
    std::vector<double> demand;
    for (const auto& [t, r] : running) {
      const auto w = waiting.find(t);
      demand.push_back(r + (w == waiting.end() ? 0.0 : w->second));
    }
    e.demand = summarize(demand);
    if (!kv.empty()) {
      e.kv_cache_usage = summarize(values(kv));
    }
    // The scrapes and window: the times any gauge of the pod was sampled at.
    std::map<double, int> times;
    for (const auto* at : {&running, &waiting, &kv}) {
      for (const auto& [t, v] : *at) {
        times[t] = 1;
      }
    }
    e.scrapes = times.size();
    e.window_s = times.empty() ? 0.0 : times.rbegin()->first - times.begin()->first;
    if (const auto p = of_role(Role::preemptions); !p.empty()) {
      double total = 0;
      for (const Series* s : p) {
        total += increase(s->samples);
      }
      e.preemptions = total;
    }
    e.ttft = histogram(of_role(Role::ttft));
    e.itl = histogram(of_role(Role::itl));
    return e;
  }

  // The histogram's increase over the window, its series (one per label set) added.
  static std::optional<LatencyHistogram> histogram(const std::vector<const Series*>& series) {
    if (series.empty()) {
      return std::nullopt;
    }
    std::map<double, double> buckets;
    LatencyHistogram h;
    bool any_bucket = false;
    for (const Series* s : series) {
      const double inc = increase(s->samples);
      switch (s->meaning.part) {
      case Part::bucket:
        buckets[s->le] += inc;
        any_bucket = true;
        break;
      case Part::sum:
        h.sum += inc;
        break;
      case Part::count:
        h.count += inc;
        break;
      case Part::value:
        break;
      }
    }
    if (!any_bucket) {
      return std::nullopt;
    }
    if (buckets.count(HUGE_VAL) == 0) {
      buckets[HUGE_VAL] = std::max(h.count, buckets.rbegin()->second);
    }
    double running_max = 0;
    for (const auto& [le, c] : buckets) {
      running_max = std::max(running_max, c); // cumulative counts never fall
      h.buckets.emplace_back(le, running_max);
    }
    if (h.count <= 0) {
      h.count = h.buckets.back().second;
    }
    return h;
  }

  std::string_view m_text;
  const std::string& m_source;
  const std::string& m_workload;
  std::unordered_map<std::string, Meaning> m_meanings;
  double m_interval_s;
  std::vector<Series> m_series;
  std::unordered_map<std::string, std::size_t> m_index; // series text -> m_series
  std::map<std::string, PodSeries> m_pods;              // by pod key
  std::size_t m_skipped_values = 0;
  std::size_t m_first_skipped_line = 0;
};

} // namespace

Telemetry parse_engine_metrics_text(std::string_view text,
                                    const std::string& source,
                                    const std::string& workload,
                                    const EngineMetricCatalog& names,
                                    double interval_s) {
  return EngineParser(text, source, workload, names, interval_s).run();
}

} // namespace rightsize
