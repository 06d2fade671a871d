// The DCGM series read from Prometheus: the arguments checked, the session's requests, and the raw
// pull (one query_range per DCGM field, the window cut into requests Prometheus accepts); the
// server's summaries are summary.cpp's, the owners owners.cpp's. docs/observe.md, "Prometheus".

#include "session.hpp"
#include "telemetry/dcgm_fields.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/prometheus.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace rightsize {

namespace {

using prometheus::one_line;
using prometheus::Window;

// Prometheus refuses a query_range whose (end - start) / step exceeds 11,000 (web/api/v1/api.go
// queryRange: "exceeded maximum resolution of 11,000 points per timeseries"); a request asks for
// at most this many points, so a long window at a fine step becomes several requests.
constexpr double k_points_per_request = 10000;
// More than this many points per series is refused before any request: 100 requests per field.
constexpr double k_max_points_per_series = 1e6;

// --- The queries -------------------------------------------------------------------------------

// PromQL label matchers, checked: `{namespace="x"}` or `namespace="x", pod=~"llm-.*"`, returned
// without braces ("" for none). Values are quoted as PromQL allows ("...", '...', `...`).
std::string normalize_selector(const std::string& given) {
  const auto fail = [&](std::size_t at, const std::string& what) {
    throw InputError("--selector",
                     fmt::format("{} at column {} of \"{}\" (label matchers such as "
                                 "{{namespace=\"x\", pod=~\"llm-.*\"}})",
                                 what,
                                 at + 1,
                                 one_line(given, 200)));
  };
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  const auto found = [](char c) {
    return static_cast<unsigned char>(c) < 0x80 ? fmt::format("found '{}'", c)
                                                : std::string("found a non-ASCII character");
  };
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (static_cast<unsigned char>(given[i]) < 0x20 && given[i] != '\t') {
      fail(i, "a control character");
    }
  }
  std::size_t begin = 0;
  std::size_t end = given.size();
  while (begin < end && is_space(given[begin])) {
    ++begin;
  }
  while (end > begin && is_space(given[end - 1])) {
    --end;
  }
  if (begin < end && given[begin] == '{') {
    if (given[end - 1] != '}' || end - begin < 2) {
      fail(end - 1, "an unbalanced '{'");
    }
    ++begin;
    --end;
  }
  std::vector<std::string> matchers;
  std::size_t i = begin;
  const auto skip_space = [&] {
    while (i < end && is_space(given[i])) {
      ++i;
    }
  };
  const auto is_name_start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  const auto is_name = [&](char c) { return is_name_start(c) || (c >= '0' && c <= '9'); };
  skip_space();
  while (i < end) {
    const std::size_t name_start = i;
    if (!is_name_start(given[i])) {
      fail(i, "expected a label name, " + found(given[i]));
    }
    while (i < end && is_name(given[i])) {
      ++i;
    }
    std::string matcher = given.substr(name_start, i - name_start);
    skip_space();
    const std::string_view rest(given.data() + i, end - i);
    std::size_t op = 0;
    for (const std::string_view candidate : {"=~", "!~", "!=", "="}) {
      if (rest.substr(0, candidate.size()) == candidate) {
        op = candidate.size();
        break;
      }
    }
    if (op == 0) {
      fail(i, "expected =, !=, =~ or !~ after the label name");
    }
    matcher += given.substr(i, op);
    i += op;
    skip_space();
    if (i >= end || (given[i] != '"' && given[i] != '\'' && given[i] != '`')) {
      fail(i, "expected a quoted value");
    }
    const char quote = given[i];
    const std::size_t value_start = i++;
    while (i < end && given[i] != quote) {
      i += (given[i] == '\\' && quote != '`') ? 2 : 1;
    }
    if (i >= end) {
      fail(value_start, "an unterminated quoted value");
    }
    ++i;
    matcher += given.substr(value_start, i - value_start);
    matchers.push_back(std::move(matcher));
    skip_space();
    if (i < end && given[i] == ',') {
      ++i;
      skip_space();
    } else if (i < end) {
      fail(i, "expected ',' or the end, " + found(given[i]));
    }
  }
  std::string out;
  for (const auto& m : matchers) {
    out += (out.empty() ? "" : ",") + m;
  }
  return out;
}

Window plan_window(const PrometheusQuery& q) {
  const auto check = [](bool ok, const char* flag, const std::string& what, double got) {
    if (!ok) {
      throw InputError(flag, fmt::format("{}, got {:g}", what, got));
    }
  };
  check(std::isfinite(q.range_s) && q.range_s > 0, "--range", "must be > 0 seconds", q.range_s);
  check(
      std::isfinite(q.step_s) && q.step_s >= 0.001, "--step", "must be >= 0.001 seconds", q.step_s);
  check(std::isfinite(q.end_s) && q.end_s >= 0, "--end", "must be >= 0 (Unix seconds)", q.end_s);
  check(std::isfinite(q.timeout_s) && q.timeout_s > 0 && q.timeout_s <= 86400,
        "--timeout",
        "must be > 0 and <= 86400 seconds",
        q.timeout_s);
  check(q.retries >= 0 && q.retries <= 10, "--retries", "must be between 0 and 10", q.retries);
  for (const double p : q.percentiles) {
    check(std::isfinite(p) && p > 0 && p <= 100, "--percentile", "must be in (0, 100]", p);
  }
  check(q.timeline_points >= 2 && q.timeline_points <= 10000,
        "timeline points",
        "must be between 2 and 10000",
        q.timeline_points);
  Window w{};
  w.end_s = q.end_s > 0
                ? q.end_s
                : std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                      .count();
  w.end_s = std::floor(w.end_s * 1000) / 1000; // the millisecond Prometheus resolves
  w.start_s = w.end_s - q.range_s;
  w.step_s = q.step_s;
  // The epsilon keeps 0.3 s / 0.1 s at 3 steps, not 2.999... -> 2.
  const double points = std::floor(q.range_s / q.step_s + 1e-9) + 1;
  if (q.aggregate == Aggregate::client && points > k_max_points_per_series) {
    throw InputError("--step",
                     fmt::format("{:g} s over a range of {:g} s is {:.0f} points per "
                                 "series, more than the {:.0f} rightsize reads; use a "
                                 "step of at least {:g} s, or --aggregate server",
                                 q.step_s,
                                 q.range_s,
                                 points,
                                 k_max_points_per_series,
                                 std::ceil(q.range_s / (k_max_points_per_series - 1))));
  }
  w.points = static_cast<std::size_t>(std::min(points, k_max_points_per_series));
  return w;
}

} // namespace

namespace prometheus {

std::string utc_text(double unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

std::string Session::selector(std::string_view metric, const std::string& extra) const {
  std::string matchers = m_matchers;
  if (!extra.empty()) {
    matchers += (matchers.empty() ? "" : ",") + extra;
  }
  return std::string(metric) + (matchers.empty() ? "" : "{" + matchers + "}");
}

std::string Session::range() const {
  return fmt::format("[{:.0f}ms]", std::round(m_query.range_s * 1000));
}

std::string Session::window_text() const {
  return fmt::format("from {} to {}", utc_text(m_window.start_s), utc_text(m_window.end_s));
}

std::string Session::where(const std::string& path, const std::string& promql) const {
  return m_base.shown + path + "?query=" + promql;
}

std::string Session::instant_url(HttpClient& http, const std::string& promql) const {
  return fmt::format(
      "{}/api/v1/query?query={}&time={:.3f}", m_base.request, http.escape(promql), m_window.end_s);
}

Answer Session::instant(const std::string& promql) {
  const std::string where = this->where("/api/v1/query", promql);
  if (const auto it = m_prefetched.find(promql); it != m_prefetched.end()) {
    return parse_vector_answer(it->second, where);
  }
  return parse_vector_answer(m_http.get(instant_url(m_http, promql), where), where);
}

void Session::prefetch(const std::vector<std::string>& promqls, int parallel) {
  const std::size_t n = promqls.size();
  std::vector<std::string> bodies(n);
  std::vector<char> done(n, 0);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  std::mutex traffic_lock;
  const auto work = [&]() {
    std::optional<HttpClient> http;
    try {
      http.emplace(m_query, m_base.origin, m_api);
    } catch (...) {
      return; // a client that cannot start leaves its queries to the others, or to instant()
    }
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        bodies[i] = http->get(instant_url(*http, promqls[i]), where("/api/v1/query", promqls[i]));
        done[i] = 1;
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
    const std::lock_guard<std::mutex> hold(traffic_lock);
    m_prefetch_traffic += http->traffic();
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, parallel); ++t) {
    threads.emplace_back(work);
  }
  work();
  for (auto& t : threads) {
    t.join();
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (errors[i]) {
      std::rethrow_exception(errors[i]);
    }
    if (done[i] != 0) {
      m_prefetched[promqls[i]] = std::move(bodies[i]);
    }
  }
}

std::string
Session::range_body(const std::string& promql, double start_s, double end_s, double step_s) {
  const std::string url = fmt::format("{}/api/v1/query_range?query={}&start={:.3f}&end={:.3f}&"
                                      "step={:.3f}",
                                      m_base.request,
                                      m_http.escape(promql),
                                      start_s,
                                      end_s,
                                      step_s);
  return m_http.get(url, where("/api/v1/query_range", promql));
}

Answer Session::range(const std::string& promql, double start_s, double end_s, double step_s) {
  return parse_answer(range_body(promql, start_s, end_s, step_s),
                      where("/api/v1/query_range", promql));
}

std::vector<std::string> Session::label_values(const std::string& label, const std::string& match) {
  const std::string path = "/api/v1/label/" + label + "/values";
  const std::string where = m_base.shown + path; // the match[] is long, and always the same
  const std::string url = fmt::format("{}{}?match[]={}&start={:.3f}&end={:.3f}",
                                      m_base.request,
                                      path,
                                      m_http.escape(match),
                                      m_window.start_s,
                                      m_window.end_s);
  return parse_label_values(m_http.get(url, where), where);
}

void pull_raw(Session& session, Telemetry& into) {
  const Window& window = session.window();
  const auto requests = static_cast<std::size_t>(
      std::ceil(static_cast<double>(window.points) / k_points_per_request));
  const auto per_request = static_cast<std::size_t>(k_points_per_request);
  for (const auto& field : dcgm::fields()) {
    const std::string promql = session.selector(field.name);
    const std::string where = session.where("/api/v1/query_range", promql);
    // Request k asks for points k*P .. min((k+1)*P, points) - 1 of the window's grid: the chunks
    // neither overlap nor leave a step out.
    for (std::size_t k = 0; k < requests; ++k) {
      const std::size_t first = k * per_request;
      const std::size_t last = std::min(first + per_request, window.points) - 1;
      const double start = window.start_s + static_cast<double>(first) * window.step_s;
      const double end = window.start_s + static_cast<double>(last) * window.step_s;
      add_prometheus_matrix(
          session.range_body(promql, start, end, window.step_s), field.name, where, into);
    }
  }
}

} // namespace prometheus

Telemetry query_prometheus(const PrometheusQuery& query, PrometheusTraffic* traffic) {
  std::string matchers = normalize_selector(query.selector);
  const Window window = plan_window(query);
  // libcurl is loaded here, by the first query of the process, and by nothing else.
  const curl::Api& api = curl::api(prometheus::without_userinfo(query.url), "--prometheus");
  prometheus::BaseUrl base = prometheus::parse_base_url(query.url, api);
  prometheus::HttpClient http(query, base.origin, api);
  prometheus::Session session(query, std::move(matchers), window, std::move(base), http, api);

  Telemetry out;
  if (query.aggregate == Aggregate::server) {
    prometheus::summarize_on_server(session, out);
  } else {
    prometheus::pull_raw(session, out);
  }
  const std::string& shown = session.base().shown;
  for (auto& gpu : out.gpus) {
    gpu.id.source = shown;
  }
  if (out.gpus.empty()) {
    const std::string matched = session.selector("");
    out.warnings.push_back(fmt::format(
        "{}: no DCGM series matched{} {} (is dcgm-exporter scraped? is the selector right?)",
        shown,
        matched.empty() ? "" : " " + matched,
        session.window_text()));
  } else {
    if (query.owners) {
      prometheus::add_owners(session, out);
    }
    if (!query.engine_metrics.empty()) {
      // The engines' series are an addition to the GPUs': a server that cannot answer for them
      // leaves the serving workloads judged on their GPUs, and says so.
      try {
        prometheus::add_engine_metrics(session, out);
      } catch (const InputError& e) {
        out.engine_pods.clear();
        out.warnings.push_back(fmt::format("serving engines' metrics not read: {}; serving "
                                           "workloads are judged on their GPUs",
                                           e.what()));
      }
    }
  }
  if (traffic != nullptr) {
    *traffic = http.traffic();
    *traffic += session.prefetch_traffic();
  }
  return out;
}

} // namespace rightsize
