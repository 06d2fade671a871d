// DCGM series read from a Prometheus server's HTTP API. Behaviour: docs/observe.md, "Prometheus".

#include "curl_api.hpp"
#include "dcgm_fields.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/observe/prometheus.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <memory>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rightsize {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view k_not_query_range = "not a query_range answer: ";
constexpr std::string_view k_not_prometheus = "(is the URL a Prometheus server?)";
// Prometheus refuses a query_range whose (end - start) / step exceeds 11,000 (web/api/v1/api.go
// queryRange: "exceeded maximum resolution of 11,000 points per timeseries"); a request asks for
// at most this many points, so a long window at a fine step becomes several requests.
constexpr double k_points_per_request = 10000;
// More than this many points per series is refused before any request: 100 requests per field.
constexpr double k_max_points_per_series = 1e6;
constexpr std::size_t k_max_body_bytes = std::size_t{512} * 1024 * 1024;
constexpr int k_max_redirects = 3;
constexpr std::size_t k_max_prometheus_warnings = 3;

// --- Text shown in messages ------------------------------------------------------------------

// `text` on one line of at most `max` bytes: control characters become spaces, runs of spaces
// one, the cut lands on a character boundary, and stray bytes are replaced.
std::string one_line(std::string_view text, std::size_t max) {
  std::string out;
  for (const char c : text) {
    const bool space = static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ';
    if (space) {
      if (!out.empty() && out.back() != ' ') {
        out += ' ';
      }
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') {
    out.pop_back();
  }
  if (out.size() > max) {
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) {
      --cut;
    }
    out = out.substr(0, cut) + "...";
  }
  return detail::valid_utf8(out);
}

std::string shown(const nlohmann::json& value) {
  return quote_value_for_error(detail::dump_json(value));
}

// --- Reading one answer ------------------------------------------------------------------------

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

// Throws "<url>:<pointer>: not a query_range answer: <what>, got <value>".
[[noreturn]] void fail_at(const std::string& url,
                          const std::string& pointer,
                          const std::string& what,
                          const nlohmann::json& got) {
  throw InputError(url + ":" + (pointer.empty() ? "/" : pointer),
                   std::string(k_not_query_range) + what + ", got " + shown(got));
}

[[noreturn]] void fail_missing(const std::string& url, const std::string& pointer) {
  throw InputError(url + ":" + pointer,
                   std::string(k_not_query_range) + "required field is missing");
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
    throw InputError(url, std::string(k_not_query_range) + detail);
  }
}

// Prometheus' {"status":"error","errorType":"bad_data","error":"..."} as "bad_data: ...".
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
    const auto& pair = values[i];
    const std::string at = pointer + "/" + std::to_string(i);
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
      continue;
    }
    series.points.push_back({time.get<double>(), value});
  }
}

// The body checked member by member: {"status":"success","data":{"resultType":"matrix",
// "result":[{"metric":{...},"values":[[t,"v"],...]},...]}}; members Prometheus may add (infos,
// stats, a series' "histograms") are ignored.
Answer parse_answer(std::string_view body, const std::string& url) {
  const nlohmann::json answer = parse_body(body, url);
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
  const auto& data = member(answer, "data", url, "");
  if (!data.is_object()) {
    fail_at(url, "/data", "must be an object", data);
  }
  const auto& type = member(data, "resultType", url, "/data");
  if (type != "matrix") {
    fail_at(url, "/data/resultType", "must be \"matrix\"", type);
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
    // A series of native histograms only has no "values".
    if (const auto values = entry.find("values"); values != entry.end()) {
      parse_values(*values, url, at + "/values", series, out.non_finite);
    }
    out.series.push_back(std::move(series));
  }
  if (const auto warnings = answer.find("warnings");
      warnings != answer.end() && warnings->is_array()) {
    for (const auto& w : *warnings) {
      if (w.is_string() && out.warnings.size() < k_max_prometheus_warnings) {
        out.warnings.push_back(one_line(w.get<std::string>(), 200));
      }
    }
  }
  return out;
}

// --- Adding an answer to the telemetry ---------------------------------------------------------

// The fields of GpuIdentity that tell two GPUs apart (not the model name or the source).
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

// Points sorted by time, one per time (the first of equal times: a GPU scraped by two jobs).
void sort_unique(std::vector<Point>& points) {
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.time_s < b.time_s;
  });
  points.erase(std::unique(points.begin(),
                           points.end(),
                           [](const Point& a, const Point& b) { return a.time_s == b.time_s; }),
               points.end());
}

// Adds sorted, unique points to `samples`, keeping time order; where `samples` already has a
// time (the same metric from another DCGM field, or a chunk answered twice) its value stays.
// Returns how many were added.
std::size_t merge_points(Samples& samples, const std::vector<Point>& points) {
  if (points.empty()) {
    return 0;
  }
  if (samples.empty() || points.front().time_s > samples.time_s.back()) {
    for (const auto& p : points) {
      samples.add(p.time_s, p.value);
    }
    return points.size();
  }
  Samples merged;
  merged.time_s.reserve(samples.size() + points.size());
  merged.value.reserve(samples.size() + points.size());
  std::size_t i = 0;
  std::size_t added = 0;
  for (const auto& p : points) {
    while (i < samples.size() && samples.time_s[i] < p.time_s) {
      merged.add(samples.time_s[i], samples.value[i]);
      ++i;
    }
    if (i < samples.size() && samples.time_s[i] == p.time_s) {
      continue;
    }
    merged.add(p.time_s, p.value);
    ++added;
  }
  for (; i < samples.size(); ++i) {
    merged.add(samples.time_s[i], samples.value[i]);
  }
  samples = std::move(merged);
  return added;
}

// The index of the value at exactly `time_s`, or npos.
std::size_t find_time(const Samples& samples, double time_s) {
  const auto it = std::lower_bound(samples.time_s.begin(), samples.time_s.end(), time_s);
  if (it == samples.time_s.end() || *it != time_s) {
    return std::string::npos;
  }
  return static_cast<std::size_t>(it - samples.time_s.begin());
}

struct Counts {
  std::size_t non_finite = 0; // NaN or infinite, as sent or once scaled
  std::size_t unmatched = 0;  // FB_FREE or FB_RESERVED without the sample they add to
  std::size_t not_a_mask = 0; // a throttle reason that is not a non-negative integer
};

// One GPU's points of `field` (sorted, unique, unscaled) stored by the field's role.
void store_points(const dcgm::Field& field,
                  const std::vector<Point>& points,
                  GpuSeries& gpu,
                  Telemetry& into,
                  Counts& counts) {
  std::vector<Point> scaled;
  scaled.reserve(points.size());
  switch (field.role) {
  case dcgm::Role::metric:
    for (const auto& p : points) {
      const double v = p.value * field.scale;
      if (std::isfinite(v)) {
        scaled.push_back({p.time_s, v});
      } else {
        ++counts.non_finite;
      }
    }
    into.samples += merge_points(gpu[field.metric], scaled);
    break;
  case dcgm::Role::fb_free:
    // memory_total = used + free at the same time (fields() queries FB_USED first).
    for (const auto& p : points) {
      const Samples& used = gpu[Metric::memory_used];
      const std::size_t at = find_time(used, p.time_s);
      if (at == std::string::npos) {
        ++counts.unmatched;
        continue;
      }
      const double v = used.value[at] + p.value * field.scale;
      if (std::isfinite(v)) {
        scaled.push_back({p.time_s, v});
      } else {
        ++counts.non_finite;
      }
    }
    into.samples += merge_points(gpu[Metric::memory_total], scaled);
    break;
  case dcgm::Role::fb_reserved:
    // Added once per time: the chunks of a query do not overlap, and sort_unique() keeps one
    // point per time of each GPU.
    for (const auto& p : points) {
      Samples& total = gpu[Metric::memory_total];
      const std::size_t at = find_time(total, p.time_s);
      if (at == std::string::npos) {
        ++counts.unmatched;
        continue;
      }
      const double v = total.value[at] + p.value * field.scale;
      if (std::isfinite(v)) {
        total.value[at] = v;
      } else {
        ++counts.non_finite;
      }
    }
    break;
  case dcgm::Role::throttle_mask:
    for (const auto& p : points) {
      // Exactly representable integers only: a mask is a 64-bit field sent as a float.
      if (!(p.value >= 0 && p.value < 0x1p64) || std::floor(p.value) != p.value) {
        ++counts.not_a_mask;
        continue;
      }
      const auto mask = static_cast<unsigned long long>(p.value);
      scaled.push_back({p.time_s, (mask & dcgm::k_limiting_reasons) != 0 ? 1.0 : 0.0});
    }
    into.samples += merge_points(gpu[Metric::throttled], scaled);
    break;
  }
}

void add_warnings(const std::string& url,
                  const dcgm::Field& field,
                  const Answer& answer,
                  const Counts& counts,
                  Telemetry& into) {
  for (const auto& w : answer.warnings) {
    into.warnings.push_back(fmt::format("{}: Prometheus warns: {}", url, w));
  }
  const std::size_t non_finite = answer.non_finite + counts.non_finite;
  if (non_finite > 0) {
    into.warnings.push_back(fmt::format("{}: {} sample{} NaN or infinite; skipped",
                                        url,
                                        non_finite,
                                        non_finite == 1 ? " was" : "s were"));
  }
  if (counts.unmatched > 0) {
    const std::string_view needs =
        field.role == dcgm::Role::fb_free ? "DCGM_FI_DEV_FB_USED" : "DCGM_FI_DEV_FB_FREE";
    into.warnings.push_back(fmt::format("{}: {} sample{} without {} at the same time; memory_total "
                                        "not known there",
                                        url,
                                        counts.unmatched,
                                        counts.unmatched == 1 ? "" : "s",
                                        needs));
  }
  if (counts.not_a_mask > 0) {
    into.warnings.push_back(fmt::format("{}: {} sample{} not a clock-reason bit mask (an integer "
                                        ">= 0); skipped",
                                        url,
                                        counts.not_a_mask,
                                        counts.not_a_mask == 1 ? " is" : "s are"));
  }
}

// --- HTTP --------------------------------------------------------------------------------------

// libcurl's URL parser (curl_url_*), through the library curl::api() loaded.
class UrlHandle {
public:
  explicit UrlHandle(const curl::Api& api) : m_api(&api), m_handle(api.url(), api.url_cleanup) {}

  // Sets the part (null clears it); false when libcurl refuses it.
  bool set(CURLUPart part, const char* value) {
    return m_api->url_set(m_handle.get(), part, value, 0) == CURLUE_OK;
  }

  // The part, or "" when the URL has none.
  [[nodiscard]] std::string get(CURLUPart part, unsigned int flags = 0) const {
    char* text = nullptr;
    if (m_api->url_get(m_handle.get(), part, &text, flags) != CURLUE_OK || text == nullptr) {
      return "";
    }
    std::string out(text);
    m_api->free(text);
    return out;
  }

private:
  const curl::Api* m_api;
  std::unique_ptr<CURLU, decltype(curl::Api::url_cleanup)> m_handle;
};

// The server's base URL: `request` as given (credentials kept, for the requests) and `shown`
// without credentials (for messages), both without a trailing slash.
struct BaseUrl {
  std::string request;
  std::string shown;
  std::string origin; // scheme://host:port, to keep redirects on this server
};

std::string origin_of(const UrlHandle& url) {
  return url.get(CURLUPART_SCHEME) + "://" + url.get(CURLUPART_HOST) + ":" +
         url.get(CURLUPART_PORT, CURLU_DEFAULT_PORT);
}

std::string without_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') {
    url.pop_back();
  }
  return url;
}

// `url` without the user:password@ of its authority, for the messages written before libcurl can
// parse it.
std::string without_userinfo(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return one_line(url, 200);
  }
  const std::size_t host = scheme_end + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", host), url.size());
  const auto at = url.substr(host, end - host).rfind('@');
  if (at == std::string::npos) {
    return one_line(url, 200);
  }
  return one_line(url.substr(0, host) + url.substr(host + at + 1), 200);
}

BaseUrl parse_base_url(const std::string& given, const curl::Api& api) {
  const auto fail = [&](const std::string& what) {
    throw InputError("--prometheus", fmt::format("{}, got \"{}\"", what, one_line(given, 200)));
  };
  if (given.find("://") == std::string::npos) {
    fail("must be an http:// or https:// URL");
  }
  UrlHandle url(api);
  if (!url.set(CURLUPART_URL, given.c_str())) {
    fail("is not a URL");
  }
  const std::string scheme = url.get(CURLUPART_SCHEME);
  if (scheme != "http" && scheme != "https") {
    fail("must be an http:// or https:// URL");
  }
  if (!url.get(CURLUPART_QUERY).empty() || !url.get(CURLUPART_FRAGMENT).empty()) {
    fail("must be the server's base URL, without ?query or #fragment");
  }
  BaseUrl out;
  out.request = without_trailing_slashes(url.get(CURLUPART_URL));
  url.set(CURLUPART_USER, nullptr);
  url.set(CURLUPART_PASSWORD, nullptr);
  out.shown = without_trailing_slashes(url.get(CURLUPART_URL));
  out.origin = origin_of(url);
  return out;
}

struct Response {
  long status = 0;
  std::string body;
  std::string content_type;
  std::string location; // of a redirect
};

// One HTTP client for all the queries of a run, so that they share a connection.
class HttpClient {
public:
  HttpClient(const PrometheusQuery& query, std::string origin, const curl::Api& api)
      : m_api(api), m_curl(api.easy_init(), api.easy_cleanup),
        m_headers(api.slist_append(nullptr, "Accept: application/json"), api.slist_free_all),
        m_timeout_ms(static_cast<long>(std::ceil(query.timeout_s * 1000))),
        m_timeout_s(query.timeout_s), m_attempts(1 + query.retries), m_origin(std::move(origin)) {
    if (!m_curl) {
      throw InputError("--prometheus", "cannot initialise libcurl");
    }
  }

  // URL-encodes one query parameter.
  std::string escape(const std::string& text) {
    char* escaped = m_api.easy_escape(m_curl.get(), text.c_str(), static_cast<int>(text.size()));
    if (escaped == nullptr) {
      throw InputError("--prometheus", "cannot encode the query");
    }
    std::string out(escaped);
    m_api.free(escaped);
    return out;
  }

  // The 2xx body at `url`, after retries and redirects on this server; errors name `where`.
  std::string get(const std::string& url, const std::string& where);

private:
  Response perform(const std::string& url, const std::string& where, int attempt_count);
  void set_protocols(CURL* curl) const;
  std::string follow(const Response& response, const std::string& where);

  const curl::Api& m_api;
  std::unique_ptr<CURL, decltype(curl::Api::easy_cleanup)> m_curl;
  std::unique_ptr<curl_slist, decltype(curl::Api::slist_free_all)> m_headers;
  long m_timeout_ms;
  double m_timeout_s;
  int m_attempts;
  std::string m_origin;
};

struct Sink {
  std::string* body;
  bool too_large = false;
};

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t bytes = size * count;
  if (sink->body->size() + bytes > k_max_body_bytes) {
    sink->too_large = true;
    return 0; // aborts the transfer with CURLE_WRITE_ERROR
  }
  sink->body->append(data, bytes);
  return bytes;
}

bool retried_curl_error(CURLcode code) {
  switch (code) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_GOT_NOTHING:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_PARTIAL_FILE:
    return true;
  default:
    return false;
  }
}

bool retried_status(long status) {
  return status == 429 || (status >= 500 && status <= 599);
}

std::string attempts_text(int n) {
  return fmt::format("after {} attempt{}", n, n == 1 ? "" : "s");
}

// An HTTP error status with what the server said: Prometheus' own error, or the body's start.
std::string status_text(const Response& r, const std::string& attempts) {
  std::string said;
  if (r.body.find_first_not_of(" \t\r\n") != std::string::npos) {
    const auto json = nlohmann::json::parse(r.body, nullptr, false);
    if (json.is_object() && json.value("status", "") == "error") {
      said = prometheus_error_text(json);
    } else {
      said = one_line(r.body, 100);
    }
  }
  std::string text = fmt::format("HTTP {}{}", r.status, attempts.empty() ? "" : " " + attempts);
  text += said.empty() ? std::string(" (empty body)") : ": " + said;
  if (r.status == 404) {
    text += " (is the URL a Prometheus server, with its path prefix?)";
  }
  return text;
}

// http and https only. CURLOPT_PROTOCOLS_STR (7.85.0) replaces CURLOPT_PROTOCOLS, deprecated
// since; the libcurl loaded at run time may be older than the headers built with.
void HttpClient::set_protocols(CURL* curl) const {
#if LIBCURL_VERSION_NUM >= 0x075500
  if (m_api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_UNKNOWN_OPTION) {
    return;
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
  m_api.easy_setopt(curl, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#if LIBCURL_VERSION_NUM >= 0x075500
#pragma GCC diagnostic pop
#endif
}

Response HttpClient::perform(const std::string& url, const std::string& where, int attempt_count) {
  Response r;
  Sink sink{&r.body};
  std::array<char, CURL_ERROR_SIZE> error{};
  CURL* curl = m_curl.get();
  const auto setopt = m_api.easy_setopt;
  m_api.easy_reset(curl);
  setopt(curl, CURLOPT_URL, url.c_str());
  set_protocols(curl);
  setopt(curl, CURLOPT_HTTPGET, 1L);
  setopt(curl, CURLOPT_HTTPHEADER, m_headers.get());
  setopt(curl, CURLOPT_USERAGENT, "rightsize");
  setopt(curl, CURLOPT_ACCEPT_ENCODING, ""); // gzip: a matrix compresses well
  setopt(curl, CURLOPT_NOSIGNAL, 1L);
  setopt(curl, CURLOPT_TIMEOUT_MS, m_timeout_ms);
  setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, m_timeout_ms);
  setopt(curl, CURLOPT_FOLLOWLOCATION, 0L); // follow() keeps redirects on this server
  setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(k_max_body_bytes));
  setopt(curl, CURLOPT_WRITEFUNCTION, &write_body);
  setopt(curl, CURLOPT_WRITEDATA, &sink);
  setopt(curl, CURLOPT_ERRORBUFFER, error.data());

  const CURLcode code = m_api.easy_perform(curl);
  if (sink.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    throw InputError(where,
                     fmt::format("the answer is larger than {} MiB; narrow --range, raise "
                                 "--step or add a --selector",
                                 k_max_body_bytes >> 20));
  }
  if (code == CURLE_OPERATION_TIMEDOUT) {
    throw InputError(where, fmt::format("no answer within {:g} s (timed out)", m_timeout_s));
  }
  if (code != CURLE_OK) {
    long os_errno = 0;
    m_api.easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    const std::string detail =
        one_line(error[0] != '\0' ? error.data() : m_api.easy_strerror(code), 200);
    if (code == CURLE_COULDNT_CONNECT) {
      const std::string reason = os_errno != 0 ? std::strerror(static_cast<int>(os_errno)) : detail;
      r.body = fmt::format("cannot connect ({}) {}", reason, attempts_text(attempt_count));
    } else if (code == CURLE_COULDNT_RESOLVE_HOST) {
      r.body = fmt::format("cannot resolve the host ({}) {}", detail, attempts_text(attempt_count));
    } else if (retried_curl_error(code)) {
      r.body = fmt::format("{} {}", detail, attempts_text(attempt_count));
    } else {
      throw InputError(where, detail);
    }
    r.status = -1; // the request did not complete: r.body is the message, retried
    return r;
  }
  m_api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  const char* type = nullptr;
  if (m_api.easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != nullptr) {
    r.content_type = type;
  }
  const char* location = nullptr;
  if (m_api.easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK &&
      location != nullptr) {
    r.location = location;
  }
  return r;
}

// A redirect's target, when it stays on the server the user named.
std::string HttpClient::follow(const Response& response, const std::string& where) {
  if (response.location.empty()) {
    throw InputError(where, fmt::format("HTTP {} without a Location to follow", response.status));
  }
  UrlHandle target(m_api);
  if (!target.set(CURLUPART_URL, response.location.c_str()) || origin_of(target) != m_origin) {
    target.set(CURLUPART_USER, nullptr);
    target.set(CURLUPART_PASSWORD, nullptr);
    target.set(CURLUPART_QUERY, nullptr);
    throw InputError(where,
                     fmt::format("HTTP {} redirects to another server ({}); give that URL "
                                 "to --prometheus if it is the right one",
                                 response.status,
                                 one_line(target.get(CURLUPART_URL), 200)));
  }
  return response.location;
}

std::string HttpClient::get(const std::string& url, const std::string& where) {
  std::string target = url;
  int redirects = 0;
  for (int attempt = 1;; ++attempt) {
    Response r = perform(target, where, attempt);
    if (r.status >= 200 && r.status <= 299) {
      if (r.content_type.rfind("text/html", 0) == 0) {
        throw InputError(
            where,
            fmt::format("the answer is HTML, not Prometheus' JSON API {}", k_not_prometheus));
      }
      return std::move(r.body);
    }
    if (r.status >= 300 && r.status <= 399 && r.status != 304) {
      if (++redirects > k_max_redirects) {
        throw InputError(where, fmt::format("more than {} redirects", k_max_redirects));
      }
      target = follow(r, where);
      --attempt; // a redirect is not a failed attempt
      continue;
    }
    const bool retry = r.status == -1 || retried_status(r.status);
    if (!retry || attempt >= m_attempts) {
      throw InputError(
          where,
          r.status == -1 ? r.body : status_text(r, retry ? attempts_text(attempt) : std::string()));
    }
    // 0.5 s, 1 s, 2 s, ... at most 4 s between attempts.
    const double backoff_s = std::min(4.0, 0.5 * std::pow(2.0, attempt - 1));
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff_s));
  }
}

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

// The query_range window: start, end and step in Unix seconds, and how many requests it takes.
struct Window {
  double start_s;
  double end_s;
  double step_s;
  std::size_t points; // per series: floor((end - start) / step) + 1
};

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
  if (points > k_max_points_per_series) {
    throw InputError("--step",
                     fmt::format("{:g} s over a range of {:g} s is {:.0f} points per "
                                 "series, more than the {:.0f} rightsize reads; use a "
                                 "step of at least {:g} s",
                                 q.step_s,
                                 q.range_s,
                                 points,
                                 k_max_points_per_series,
                                 std::ceil(q.range_s / (k_max_points_per_series - 1))));
  }
  w.points = static_cast<std::size_t>(points);
  return w;
}

std::string utc_text(double unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

} // namespace

void add_prometheus_matrix(std::string_view body,
                           std::string_view field_name,
                           const std::string& url,
                           Telemetry& into) {
  const dcgm::Field* field = dcgm::find_field(field_name);
  if (field == nullptr) {
    throw InternalError(
        fmt::format("add_prometheus_matrix: {} is not a DCGM field observe reads", field_name));
  }
  const Answer answer = parse_answer(body, url);

  // Each series' points go to the GPU its labels name; several series may name one GPU.
  std::unordered_map<std::string, std::size_t> gpu_of;
  for (std::size_t i = 0; i < into.gpus.size(); ++i) {
    gpu_of.emplace(identity_key(into.gpus[i].id), i);
  }
  std::vector<std::pair<GpuIdentity, std::vector<Point>>> by_gpu;
  std::unordered_map<std::string, std::size_t> slot_of;
  for (const auto& series : answer.series) {
    if (series.points.empty()) {
      continue;
    }
    GpuIdentity id = dcgm::identity_from_labels(series.labels, url);
    const std::string key = identity_key(id);
    const auto [slot, added] = slot_of.emplace(key, by_gpu.size());
    if (added) {
      by_gpu.emplace_back(std::move(id), std::vector<Point>{});
    }
    auto& points = by_gpu[slot->second].second;
    points.insert(points.end(), series.points.begin(), series.points.end());
  }

  Counts counts;
  for (auto& [id, points] : by_gpu) {
    sort_unique(points);
    const std::string key = identity_key(id);
    auto existing = gpu_of.find(key);
    const bool made = existing == gpu_of.end();
    if (made) {
      // FB_FREE and FB_RESERVED only add to a GPU that FB_USED already made.
      if (field->role == dcgm::Role::fb_free || field->role == dcgm::Role::fb_reserved) {
        counts.unmatched += points.size();
        continue;
      }
      GpuSeries gpu;
      gpu.id = std::move(id);
      into.gpus.push_back(std::move(gpu));
      existing = gpu_of.emplace(key, into.gpus.size() - 1).first;
    }
    const std::size_t before = into.samples;
    store_points(*field, points, into.gpus[existing->second], into, counts);
    if (made && into.samples == before) { // every value overflowed once scaled: no GPU
      into.gpus.pop_back();
      gpu_of.erase(existing);
    }
  }
  add_warnings(url, *field, answer, counts, into);
}

Telemetry query_prometheus(const PrometheusQuery& query) {
  const std::string matchers = normalize_selector(query.selector);
  const Window window = plan_window(query);
  // libcurl is loaded here, by the first query of the process, and by nothing else.
  const curl::Api& api = curl::api(without_userinfo(query.url));
  const BaseUrl base = parse_base_url(query.url, api);
  HttpClient http(query, base.origin, api);

  Telemetry out;
  const auto requests = static_cast<std::size_t>(
      std::ceil(static_cast<double>(window.points) / k_points_per_request));
  const auto per_request = static_cast<std::size_t>(k_points_per_request);
  for (const auto& field : dcgm::fields()) {
    const std::string promql =
        std::string(field.name) + (matchers.empty() ? "" : "{" + matchers + "}");
    const std::string where = base.shown + "/api/v1/query_range?query=" + promql;
    const std::string prefix = base.request + "/api/v1/query_range?query=" + http.escape(promql);
    // Request k asks for points k*P .. min((k+1)*P, points) - 1 of the window's grid: the chunks
    // neither overlap nor leave a step out.
    for (std::size_t k = 0; k < requests; ++k) {
      const std::size_t first = k * per_request;
      const std::size_t last = std::min(first + per_request, window.points) - 1;
      const double start = window.start_s + static_cast<double>(first) * window.step_s;
      const double end = window.start_s + static_cast<double>(last) * window.step_s;
      const std::string url =
          fmt::format("{}&start={:.3f}&end={:.3f}&step={:.3f}", prefix, start, end, window.step_s);
      add_prometheus_matrix(http.get(url, where), field.name, where, out);
    }
  }
  for (auto& gpu : out.gpus) {
    gpu.id.source = base.shown;
  }
  if (out.gpus.empty()) {
    out.warnings.push_back(fmt::format(
        "{}: no DCGM series matched{} from {} to {} (is dcgm-exporter scraped? is the selector "
        "right?)",
        base.shown,
        matchers.empty() ? "" : " {" + matchers + "}",
        utc_text(window.start_s),
        utc_text(window.end_s)));
  }
  return out;
}

} // namespace rightsize
