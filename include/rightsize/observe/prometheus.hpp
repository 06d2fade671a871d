#pragma once

// The DCGM series read live from a Prometheus server's HTTP API (/api/v1/query_range), the API
// that Thanos, Cortex and Mimir serve too. One query per DCGM field observe uses, with the user's
// label matchers added; the answer lands in the same Telemetry as the file parsers fill.
// docs/observe.md, "Prometheus".

#include <rightsize/observe/telemetry.hpp>

#include <string>
#include <string_view>

namespace rightsize {

struct PrometheusQuery {
  std::string url;    // base URL: "http://127.0.0.1:9090" (a path prefix is kept: ".../prometheus")
  double range_s = 0; // the window, ending at end_s
  double step_s = 30; // query_range's step
  double end_s = 0;   // Unix seconds; 0: now
  std::string selector;  // label matchers added to every query: {namespace="x"} or namespace="x"
  double timeout_s = 30; // per HTTP request, connection included
  int retries = 2;       // more attempts after a failed one (connection error, 429, 5xx)
};

// Runs the queries. A server that cannot be reached, answers an HTTP error, HTML or JSON that is
// not a query_range answer throws InputError naming the URL (with the query) in one line. A field
// no series answers is not an error (an exporter without profiling metrics); a query that answers
// nothing at all is a warning.
Telemetry query_prometheus(const PrometheusQuery& query);

// One query_range answer (the body), added to `into`: each result series becomes (or extends) the
// GPU its labels name. `field` is the DCGM field that was queried; `url` names the answer in
// errors. Throws InputError for a body that is not a successful query_range matrix.
void add_prometheus_matrix(std::string_view body,
                           std::string_view field,
                           const std::string& url,
                           Telemetry& into);

} // namespace rightsize
