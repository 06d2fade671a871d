// A query_range answer read member by member. docs/observe.md, "Prometheus".

#include "answer.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>

namespace rightsize::prometheus {

namespace {

constexpr std::string_view k_not_query_range = "not a query_range answer: ";
constexpr std::string_view k_not_instant = "not an instant query answer: ";
constexpr std::size_t k_max_prometheus_warnings = 3;

} // namespace

namespace {

std::string shown(const nlohmann::json& value) {
  return quote_value_for_error(detail::dump_json(value));
}

// What the answer being read should be: "not a query_range answer: " or the instant query's.
thread_local std::string_view t_kind = k_not_query_range;

// Throws "<url>:<pointer>: not a query_range answer: <what>, got <value>".
[[noreturn]] void fail_at(const std::string& url,
                          const std::string& pointer,
                          const std::string& what,
                          const nlohmann::json& got) {
  throw InputError(url + ":" + (pointer.empty() ? "/" : pointer),
                   std::string(t_kind) + what + ", got " + shown(got));
}

[[noreturn]] void fail_missing(const std::string& url, const std::string& pointer) {
  throw InputError(url + ":" + pointer, std::string(t_kind) + "required field is missing");
}

const nlohmann::json& member(const nlohmann::json& object,
                             const char* key,
                             const std::string& url,
                             const std::string& pointer) {
  const auto it = object.find(key);
  if (it == object.end()) {
    fail_missing(url, pointer + "/" + key);
  }
  return *it;
}

// The JSON of the body, or an error that says what the server answered instead.
nlohmann::json parse_body(std::string_view body, const std::string& url) {
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw InputError(
        url, fmt::format("the answer is empty, not Prometheus' JSON API {}", k_not_prometheus));
  }
  if (body[first] == '<') {
    throw InputError(
        url, fmt::format("the answer is HTML, not Prometheus' JSON API {}", k_not_prometheus));
  }
  try {
    return detail::parse_json_text(body, url);
  } catch (const InputError& e) {
    // parse_json_text names the position as "<url>:line:col"; say it in words.
    std::string detail = e.detail();
    const std::string_view invalid = "invalid JSON: ";
    const auto colon = e.where().find(':', url.size() + 1);
    if (detail.rfind(invalid, 0) == 0 && e.where().size() > url.size() + 1 &&
        colon != std::string::npos) {
      detail = fmt::format("invalid JSON at line {}, column {}: {}",
                           e.where().substr(url.size() + 1, colon - url.size() - 1),
                           e.where().substr(colon + 1),
                           detail.substr(invalid.size()));
    }
    throw InputError(url, std::string(t_kind) + detail);
  }
}

} // namespace

std::string prometheus_error_text(const nlohmann::json& answer) {
  std::string type;
  std::string error;
  if (const auto it = answer.find("errorType"); it != answer.end() && it->is_string()) {
    type = it->get<std::string>();
  }
  if (const auto it = answer.find("error"); it != answer.end() && it->is_string()) {
    error = it->get<std::string>();
  }
  if (type.empty() && error.empty()) {
    return "no error message";
  }
  return one_line(type.empty() ? error : error.empty() ? type : type + ": " + error, 300);
}

namespace {

// "12.5", "NaN", "+Inf": the sample value as Prometheus writes it (a string, so that NaN and
// infinities survive JSON). False for text that is not a number at all.
bool parse_sample_value(const std::string& text, double& out) {
  static const std::array<std::pair<std::string_view, double>, 4> specials = {{
      {"NaN", std::nan("")},
      {"+Inf", HUGE_VAL},
      {"-Inf", -HUGE_VAL},
      {"Inf", HUGE_VAL},
  }};
  for (const auto& [name, value] : specials) {
    if (text == name) {
      out = value;
      return true;
    }
  }
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

Labels
parse_labels(const nlohmann::json& metric, const std::string& url, const std::string& pointer) {
  if (!metric.is_object()) {
    fail_at(url, pointer, "must be an object of labels", metric);
  }
  Labels labels;
  labels.reserve(metric.size());
  for (const auto& [key, value] : metric.items()) {
    if (!value.is_string()) {
      fail_at(url, pointer + "/" + detail::escape_pointer_token(key), "must be a string", value);
    }
    labels.emplace_back(key, value.get<std::string>());
  }
  return labels;
}

// One [time, "value"] pair at `at`, added to the series (a non-finite value counted, not added).
void parse_pair(const nlohmann::json& pair,
                const std::string& url,
                const std::string& at,
                Series& series,
                std::size_t& non_finite) {
  if (!pair.is_array() || pair.size() != 2) {
    fail_at(url, at, "must be a [time, \"value\"] pair", pair);
  }
  const auto& time = pair[0];
  if (!time.is_number() || !std::isfinite(time.get<double>()) || time.get<double>() < 0) {
    fail_at(url, at + "/0", "must be a time in Unix seconds (a number >= 0)", time);
  }
  const auto& text = pair[1];
  double value = 0;
  if (!text.is_string() || !parse_sample_value(text.get<std::string>(), value)) {
    fail_at(url, at + "/1", R"(must be a number as a string ("12.5", "NaN", "+Inf"))", text);
  }
  if (!std::isfinite(value)) {
    ++non_finite;
    return;
  }
  series.points.push_back({time.get<double>(), value});
}

void parse_values(const nlohmann::json& values,
                  const std::string& url,
                  const std::string& pointer,
                  Series& series,
                  std::size_t& non_finite) {
  if (!values.is_array()) {
    fail_at(url, pointer, "must be an array of [time, \"value\"] pairs", values);
  }
  series.points.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    parse_pair(values[i], url, pointer + "/" + std::to_string(i), series, non_finite);
  }
}

} // namespace

namespace {

// The checked "data" of a successful answer (the server's own error thrown).
nlohmann::json successful_data(std::string_view body, const std::string& url) {
  nlohmann::json answer = parse_body(body, url);
  if (!answer.is_object()) {
    fail_at(url, "", "must be a JSON object", answer);
  }
  const auto& status = member(answer, "status", url, "");
  if (status == "error") {
    throw InputError(url, "Prometheus answered status \"error\": " + prometheus_error_text(answer));
  }
  if (status != "success") {
    fail_at(url, "/status", R"(must be "success" or "error")", status);
  }
  member(answer, "data", url, "");
  return answer;
}

void add_warnings(const nlohmann::json& answer, Answer& out) {
  if (const auto warnings = answer.find("warnings");
      warnings != answer.end() && warnings->is_array()) {
    for (const auto& w : *warnings) {
      if (w.is_string() && out.warnings.size() < k_max_prometheus_warnings) {
        out.warnings.push_back(one_line(w.get<std::string>(), 200));
      }
    }
  }
}

Answer parse_result(std::string_view body, const std::string& url, bool matrix) {
  t_kind = matrix ? k_not_query_range : k_not_instant;
  const nlohmann::json answer = successful_data(body, url);
  const auto& data = answer["data"];
  if (!data.is_object()) {
    fail_at(url, "/data", "must be an object", data);
  }
  const auto& type = member(data, "resultType", url, "/data");
  if (type != (matrix ? "matrix" : "vector")) {
    fail_at(url, "/data/resultType", matrix ? "must be \"matrix\"" : "must be \"vector\"", type);
  }
  const auto& result = member(data, "result", url, "/data");
  if (!result.is_array()) {
    fail_at(url, "/data/result", "must be an array", result);
  }

  Answer out;
  out.series.reserve(result.size());
  for (std::size_t i = 0; i < result.size(); ++i) {
    const std::string at = "/data/result/" + std::to_string(i);
    const auto& entry = result[i];
    if (!entry.is_object()) {
      fail_at(url, at, "must be an object", entry);
    }
    Series series;
    series.labels = parse_labels(member(entry, "metric", url, at), url, at + "/metric");
    // A series of native histograms only has no "values" (or "value").
    if (matrix) {
      if (const auto values = entry.find("values"); values != entry.end()) {
        parse_values(*values, url, at + "/values", series, out.non_finite);
      }
    } else if (const auto value = entry.find("value"); value != entry.end()) {
      parse_pair(*value, url, at + "/value", series, out.non_finite);
    }
    out.series.push_back(std::move(series));
  }
  add_warnings(answer, out);
  return out;
}

} // namespace

Answer parse_answer(std::string_view body, const std::string& url) {
  return parse_result(body, url, true);
}

Answer parse_vector_answer(std::string_view body, const std::string& url) {
  return parse_result(body, url, false);
}

std::vector<std::string> parse_label_values(std::string_view body, const std::string& url) {
  t_kind = "not a label values answer: ";
  const nlohmann::json answer = successful_data(body, url);
  const auto& data = answer["data"];
  if (!data.is_array()) {
    fail_at(url, "/data", "must be an array of strings", data);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!data[i].is_string()) {
      fail_at(url, "/data/" + std::to_string(i), "must be a string", data[i]);
    }
    out.push_back(data[i].get<std::string>());
  }
  return out;
}

std::string identity_key(const GpuIdentity& id) {
  std::string key;
  for (const std::string* part : {&id.uuid,
                                  &id.host,
                                  &id.index,
                                  &id.mig_profile,
                                  &id.mig_instance,
                                  &id.namespace_name,
                                  &id.pod,
                                  &id.container}) {
    key += *part;
    key += '\0';
  }
  return key;
}

} // namespace rightsize::prometheus
