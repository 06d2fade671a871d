#pragma once

// The DCGM series read live from a Prometheus server's HTTP API, the API that Thanos, Cortex, Mimir
// and VictoriaMetrics serve too: by default summarized by the server (instant queries of
// quantile_over_time, max_over_time, avg_over_time, count_over_time per series, and a coarse
// query_range timeline), or every raw sample pulled with query_range. Pods are folded into their
// owners from kube-state-metrics' series. The answer lands in the same Telemetry as the file
// parsers fill. docs/observe.md, "Prometheus".

#include <rightsize/observe/telemetry.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// How the window is summarized: by the server (PromQL's *_over_time functions per series, a few
// numbers per GPU) or here, from every raw sample pulled with query_range.
enum class Aggregate { server, client };

struct PrometheusQuery {
  std::string url;    // base URL: "http://127.0.0.1:9090" (a path prefix is kept: ".../prometheus")
  double range_s = 0; // the window, ending at end_s
  double step_s = 30; // query_range's step (client), the subquery step for clock reasons (server)
  double end_s = 0;   // Unix seconds; 0: now
  std::string selector;   // label matchers added to every query: {namespace="x"} or namespace="x"
  double timeout_s = 120; // per HTTP request, connection included (Prometheus' query timeout)
  int retries = 2;        // more attempts after a failed one (connection error, 429, 5xx)

  Aggregate aggregate = Aggregate::server;
  // Server: the percentiles (0..100) asked of each series besides 50 and 95 (the analysis' work
  // and memory percentiles); 100 is the maximum, always asked.
  std::vector<double> percentiles;
  // Server: the resolution, in points per window, of each series' first and last sample times
  // (a subquery of timestamp()), and of the coarse timeline of work and memory read with
  // query_range for the HTML report's charts when `timeline` is set.
  int timeline_points = 120;
  bool timeline = true;
  // Server: the instant queries in flight at once, each on its own connection (Prometheus
  // evaluates up to --query.max-concurrency, 20 by default, side by side).
  int parallel = 4;
  // Workloads as owners: kube-state-metrics' series read for the pods the DCGM series name.
  bool owners = true;
  // Serving engines' own metrics (data/deploy.json "serving_metrics"), read for the pods the DCGM
  // series name; empty: none read.
  EngineMetricCatalog engine_metrics;

  // Connection. Never written to a message, a log or a report.
  std::string bearer_token;         // Authorization: Bearer <token>
  std::vector<std::string> headers; // "Name: value", each checked
  std::string ca_file;              // PEM bundle that verifies the server (https)
  bool insecure_skip_verify = false;
};

// What a run moved: requests made (retries included), body bytes received (decompressed), and
// bytes as they crossed the network (gzip-compressed where the server compresses).
struct PrometheusTraffic {
  std::size_t requests = 0;
  std::size_t bytes = 0;
  std::size_t wire_bytes = 0;

  PrometheusTraffic& operator+=(const PrometheusTraffic& other) {
    requests += other.requests;
    bytes += other.bytes;
    wire_bytes += other.wire_bytes;
    return *this;
  }
};

// Runs the queries. A server that cannot be reached, answers an HTTP error, HTML or JSON that is
// not a query answer throws InputError naming the URL (with the query) in one line. A field no
// series answers is not an error (an exporter without profiling metrics); a query that answers
// nothing at all is a warning. `traffic`, when given, is filled.
Telemetry query_prometheus(const PrometheusQuery& query, PrometheusTraffic* traffic = nullptr);

// One query_range answer (the body), added to `into`: each result series becomes (or extends) the
// GPU its labels name. `field` is the DCGM field that was queried; `url` names the answer in
// errors. Throws InputError for a body that is not a successful query_range matrix.
void add_prometheus_matrix(std::string_view body,
                           std::string_view field,
                           const std::string& url,
                           Telemetry& into);

} // namespace rightsize
