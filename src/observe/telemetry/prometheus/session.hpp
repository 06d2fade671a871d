#pragma once

// One run's conversation with the Prometheus server: the window, the user's label matchers and the
// HTTP client, and the three kinds of request the readers make (instant query, query_range, label
// values), each named in errors by its URL without credentials. docs/observe.md, "Prometheus".

#include "answer.hpp"
#include "http.hpp"

#include <rightsize/observe/prometheus.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace rightsize::prometheus {

// The window in Unix seconds, and the points per series a client-side pull reads.
struct Window {
  double start_s = 0;
  double end_s = 0;
  double step_s = 0;
  std::size_t points = 0; // floor((end - start) / step) + 1
};

class Session {
public:
  Session(const PrometheusQuery& query,
          std::string matchers,
          const Window& window,
          BaseUrl base,
          HttpClient& http,
          const curl::Api& api)
      : m_query(query), m_matchers(std::move(matchers)), m_window(window), m_base(std::move(base)),
        m_http(http), m_api(api) {}

  [[nodiscard]] const PrometheusQuery& query() const { return m_query; }
  [[nodiscard]] const Window& window() const { return m_window; }
  [[nodiscard]] const BaseUrl& base() const { return m_base; }
  // "metric{matchers}": the metric with the user's label matchers, or extra ones added.
  [[nodiscard]] std::string selector(std::string_view metric, const std::string& extra = "") const;
  // The window as a PromQL range: "[14400000ms]".
  [[nodiscard]] std::string range() const;
  // "... from 2026-12-01T00:00:00Z to ...", for messages.
  [[nodiscard]] std::string window_text() const;

  // The URL that names `promql` in messages: the base URL shown, the path, the query unescaped.
  [[nodiscard]] std::string where(const std::string& path, const std::string& promql) const;
  // An instant query at the window's end (the prefetched answer when there is one).
  Answer instant(const std::string& promql);
  // The instant queries asked at once, `parallel` at a time on connections of their own, so that
  // the server evaluates them side by side; instant() then answers from what came back. The first
  // failure (in the order given) is thrown after all have finished.
  void prefetch(const std::vector<std::string>& promqls, int parallel);
  // What the prefetching connections moved (the main client counts its own).
  [[nodiscard]] const PrometheusTraffic& prefetch_traffic() const { return m_prefetch_traffic; }
  // A query_range from `start_s` to `end_s`.
  Answer range(const std::string& promql, double start_s, double end_s, double step_s);
  // The raw body of a query_range, for add_prometheus_matrix.
  std::string range_body(const std::string& promql, double start_s, double end_s, double step_s);
  // The values of `label` on the series `match` selects within the window.
  std::vector<std::string> label_values(const std::string& label, const std::string& match);

private:
  // The instant query's URL at the window's end, escaped by `http`.
  std::string instant_url(HttpClient& http, const std::string& promql) const;

  const PrometheusQuery& m_query;
  std::string m_matchers;
  Window m_window;
  BaseUrl m_base;
  HttpClient& m_http;
  const curl::Api& m_api;
  std::map<std::string, std::string> m_prefetched; // promql -> body
  PrometheusTraffic m_prefetch_traffic;
};

// "2026-12-01T00:00:00Z".
std::string utc_text(double unix_s);

// The server's summaries of every DCGM series in the window, and a coarse timeline of the work
// and memory metrics, added to `into` (summary.cpp).
void summarize_on_server(Session& session, Telemetry& into);

// Every raw sample in the window, field by field, in query_range requests the server accepts
// (query.cpp).
void pull_raw(Session& session, Telemetry& into);

// Each GPU's pod given the Kubernetes workload that owns it, from kube-state-metrics' series; a
// warning when there are none (owners.cpp).
void add_owners(Session& session, Telemetry& into);

// The serving engines' own metrics of the pods the GPUs name, summarized per pod by the server
// (engines.cpp).
void add_engine_metrics(Session& session, Telemetry& into);

} // namespace rightsize::prometheus
