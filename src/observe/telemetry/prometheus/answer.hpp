#pragma once

// One query_range answer read and checked (answer.cpp), and the message text the Prometheus
// reader's parts share. docs/observe.md, "Prometheus".

#include <rightsize/net/http_get.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize::prometheus {

using Labels = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::string_view k_not_prometheus = "(is the URL a Prometheus server?)";

using net::one_line;

// Prometheus' {"status":"error","errorType":"bad_data","error":"..."} as "bad_data: ...".
std::string prometheus_error_text(const nlohmann::json& answer);

struct Point {
  double time_s;
  double value;
};

struct Series {
  Labels labels;
  std::vector<Point> points; // as the exporter wrote them (unscaled), NaN and infinities dropped
};

struct Answer {
  std::vector<Series> series;
  std::vector<std::string> warnings; // Prometheus' own, from its "warnings" member
  std::size_t non_finite = 0;
};

// The body checked member by member: {"status":"success","data":{"resultType":"matrix",
// "result":[{"metric":{...},"values":[[t,"v"],...]},...]}}; members Prometheus may add (infos,
// stats, a series' "histograms") are ignored. Throws "<url>:<pointer>: not a query_range answer:
// ..." for anything else, or the server's own error.
Answer parse_answer(std::string_view body, const std::string& url);

// An instant query's answer, {"status":"success","data":{"resultType":"vector","result":[{"metric":
// {...},"value":[t,"v"]},...]}}: each series with its one point (none where it is NaN or
// infinite). Errors as parse_answer's, "not an instant query answer".
Answer parse_vector_answer(std::string_view body, const std::string& url);

// /api/v1/label/<name>/values: {"status":"success","data":["a","b",...]}.
std::vector<std::string> parse_label_values(std::string_view body, const std::string& url);

// The fields of GpuIdentity that tell two GPUs apart (not the model name, owner or source), as
// one key: a series of the same GPU in two answers has the same key.
std::string identity_key(const GpuIdentity& id);

} // namespace rightsize::prometheus
