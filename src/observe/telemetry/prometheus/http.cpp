// HTTP GETs to Prometheus: retries, redirects on the same server, a capped body, and errors in
// one line. docs/observe.md, "Prometheus".

#include "http.hpp"

#include "answer.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <utility>

namespace rightsize::prometheus {

namespace {

constexpr std::size_t k_max_body_bytes = std::size_t{512} * 1024 * 1024;
constexpr int k_max_redirects = 3;

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

} // namespace

std::string without_userinfo(const std::string& url) {
  return net::shown_url(url);
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

namespace {

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

} // namespace

HttpClient::HttpClient(const PrometheusQuery& query, std::string origin, const curl::Api& api)
    : m_api(api), m_curl(api.easy_init(), api.easy_cleanup), m_headers(nullptr, api.slist_free_all),
      m_timeout_ms(static_cast<long>(std::ceil(query.timeout_s * 1000))),
      m_timeout_s(query.timeout_s), m_attempts(1 + query.retries), m_origin(std::move(origin)),
      m_ca_file(query.ca_file), m_insecure(query.insecure_skip_verify) {
  if (!m_curl) {
    throw InputError("--prometheus", "cannot initialise libcurl");
  }
  add_header("Accept: application/json");
  for (const auto& h : query.headers) {
    // The header's name only: its value may be a credential (X-Scope-OrgID, a token).
    const auto colon = h.find(':');
    const std::string name = colon == std::string::npos ? std::string() : h.substr(0, colon);
    const bool name_ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c);
    });
    if (!name_ok) {
      throw InputError("--header",
                       "must be \"Name: value\" with a header name of letters, digits and -_.");
    }
    if (h.find_first_of("\r\n") != std::string::npos) {
      throw InputError("--header", fmt::format("{}: the value has a line break", name));
    }
    add_header(h);
  }
  if (!query.bearer_token.empty()) {
    if (query.bearer_token.find_first_of("\r\n \t") != std::string::npos) {
      throw InputError("--bearer-token", "the token has a space or a line break");
    }
    add_header("Authorization: Bearer " + query.bearer_token);
  }
}

void HttpClient::add_header(const std::string& line) {
  curl_slist* grown = m_api.slist_append(m_headers.get(), line.c_str());
  if (grown == nullptr) {
    throw InputError("--prometheus", "cannot add an HTTP header (out of memory)");
  }
  m_headers.release();
  m_headers.reset(grown);
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
  if (!m_ca_file.empty()) {
    setopt(curl, CURLOPT_CAINFO, m_ca_file.c_str());
  }
  if (m_insecure) {
    setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  ++m_traffic.requests;

  const CURLcode code = m_api.easy_perform(curl);
  m_traffic.bytes += r.body.size();
  curl_off_t wire = 0;
  if (m_api.easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &wire) == CURLE_OK && wire > 0) {
    m_traffic.wire_bytes += static_cast<std::size_t>(wire);
  }
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

} // namespace rightsize::prometheus
