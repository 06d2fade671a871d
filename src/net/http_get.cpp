// Streamed GETs: retries before the first byte, redirects on the same server, a stall timeout, a
// size cap, a truncated body caught, and errors in one line naming the URL. http_get.hpp.

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/net/http_get.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <optional>
#include <thread>
#include <utility>

namespace rightsize::net {

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

std::string shown_url(const std::string& url) {
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

namespace {

constexpr int k_max_redirects = 3;
constexpr std::size_t k_max_error_body = 4096;

// scheme://host:port of an absolute http(s) URL, lower-cased, with the default port; "" when it
// is not one.
std::string origin_of(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return "";
  }
  std::string scheme = url.substr(0, scheme_end);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  if (scheme != "http" && scheme != "https") {
    return "";
  }
  const std::size_t host = scheme_end + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", host), url.size());
  std::string authority = url.substr(host, end - host);
  if (const auto at = authority.rfind('@'); at != std::string::npos) {
    authority = authority.substr(at + 1);
  }
  std::transform(authority.begin(), authority.end(), authority.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  const bool has_port =
      authority.find(':', authority.empty() || authority[0] != '[' ? 0 : authority.find(']')) !=
      std::string::npos;
  if (!has_port) {
    authority += scheme == "https" ? ":443" : ":80";
  }
  return scheme + "://" + authority;
}

std::string attempts_text(int n) {
  return fmt::format("after {} attempt{}", n, n == 1 ? "" : "s");
}

} // namespace

// What one request did: its status, the start of an error body, the redirect target, a
// Retry-After, or (status -1) the message of a transfer that did not complete.
struct HttpGet::Attempt {
  long status = 0;
  std::string error_body;
  std::string location;
  std::optional<double> retry_after_s;
  bool body_started = false; // a byte of a 2xx body reached the sink
  std::string failure;       // status -1: what went wrong
  bool retryable = false;
};

namespace {

struct Transfer {
  CURL* curl = nullptr;
  const curl::Api* api = nullptr;
  const Sink* sink = nullptr;
  std::size_t max_bytes = 0;
  std::size_t bytes = 0;
  long status = 0;
  bool too_large = false;
  bool body_started = false;
  std::string error_body;
  std::optional<double> retry_after_s;
  std::exception_ptr thrown;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t->status == 0) {
    t->api->easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status);
  }
  if (t->status < 200 || t->status > 299) {
    const std::size_t room = k_max_error_body - std::min(k_max_error_body, t->error_body.size());
    t->error_body.append(data, std::min(room, n));
    return n;
  }
  if (t->bytes + n > t->max_bytes) {
    t->too_large = true;
    return 0; // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->bytes += n;
  t->body_started = true;
  try {
    (*t->sink)(std::string_view(data, n));
  } catch (...) {
    t->thrown = std::current_exception(); // an exception must not cross libcurl's C frames
    return 0;
  }
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  std::string line(data, n);
  static constexpr std::string_view k_name = "retry-after:";
  if (line.size() > k_name.size()) {
    std::string head = line.substr(0, k_name.size());
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) {
      return static_cast<char>(std::tolower(c));
    });
    if (head == k_name) {
      // Seconds only; an HTTP date is treated as absent (the default back-off applies).
      char* end = nullptr;
      const double seconds = std::strtod(line.c_str() + k_name.size(), &end);
      if (end != line.c_str() + k_name.size() && std::isfinite(seconds) && seconds >= 0) {
        t->retry_after_s = seconds;
      }
    }
  }
  if (line.rfind("HTTP/", 0) == 0) {
    t->status = 0; // a new response (after a 100 Continue or a redirect): read its code again
    t->error_body.clear();
    t->retry_after_s.reset();
  }
  return n;
}

} // namespace

HttpGet::HttpGet(GetOptions options) : m_options(std::move(options)), m_curl(nullptr, nullptr) {}

HttpGet::~HttpGet() = default;

HttpGet::Attempt
HttpGet::perform(const std::string& url, const std::string& where, const Sink& sink) {
  if (m_api == nullptr) {
    m_api = &curl::api(where, m_options.user);
    m_curl = std::unique_ptr<CURL, void (*)(CURL*)>(m_api->easy_init(), m_api->easy_cleanup);
    if (!m_curl) {
      throw InputError(where, "cannot initialise libcurl");
    }
  }
  const curl::Api& api = *m_api;
  CURL* c = m_curl.get();
  Transfer t;
  t.curl = c;
  t.api = &api;
  t.sink = &sink;
  t.max_bytes = m_options.max_body_bytes;
  std::array<char, CURL_ERROR_SIZE> error{};
  const auto timeout_s = static_cast<long>(std::ceil(m_options.timeout_s));
  api.easy_reset(c);
  api.easy_setopt(c, CURLOPT_URL, url.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500
  if (api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_UNKNOWN_OPTION)
#endif
  {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    api.easy_setopt(c, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#pragma GCC diagnostic pop
  }
  api.easy_setopt(c, CURLOPT_HTTPGET, 1L);
  api.easy_setopt(c, CURLOPT_USERAGENT, "rightsize");
  api.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, std::max(1L, timeout_s));
  // A stall, not a long download, is the failure: under 1 byte/s for the timeout.
  api.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  api.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, std::max(1L, timeout_s));
  api.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  api.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(m_options.max_body_bytes));
  api.easy_setopt(c, CURLOPT_WRITEFUNCTION, &on_body);
  api.easy_setopt(c, CURLOPT_WRITEDATA, &t);
  api.easy_setopt(c, CURLOPT_HEADERFUNCTION, &on_header);
  api.easy_setopt(c, CURLOPT_HEADERDATA, &t);
  api.easy_setopt(c, CURLOPT_ERRORBUFFER, error.data());

  const CURLcode code = api.easy_perform(c);
  m_bytes += t.bytes;
  if (t.thrown) {
    std::rethrow_exception(t.thrown);
  }
  Attempt a;
  a.body_started = t.body_started;
  a.retry_after_s = t.retry_after_s;
  if (t.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    throw InputError(
        where, fmt::format("the answer is larger than {} MiB", m_options.max_body_bytes >> 20));
  }
  if (code != CURLE_OK) {
    const std::string detail =
        one_line(error[0] != '\0' ? error.data() : api.easy_strerror(code), 200);
    a.status = -1;
    if (code == CURLE_OPERATION_TIMEDOUT) {
      a.failure = t.body_started
                      ? fmt::format("the answer stalled for {:g} s after {} bytes "
                                    "(timed out)",
                                    m_options.timeout_s,
                                    t.bytes)
                      : fmt::format("no answer within {:g} s (timed out)", m_options.timeout_s);
    } else if (code == CURLE_PARTIAL_FILE) {
      a.failure = fmt::format(
          "the answer ended after {} bytes, before its end (truncated): {}", t.bytes, detail);
    } else if (code == CURLE_COULDNT_CONNECT) {
      long os_errno = 0;
      api.easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
      a.failure = fmt::format("cannot connect ({})",
                              os_errno != 0 ? std::strerror(static_cast<int>(os_errno)) : detail);
      a.retryable = true;
    } else {
      a.failure = detail;
      a.retryable = code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_GOT_NOTHING ||
                    code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR;
    }
    a.retryable = a.retryable && !t.body_started;
    return a;
  }
  api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.status);
  a.error_body = std::move(t.error_body);
  const char* location = nullptr;
  if (api.easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr) {
    a.location = location;
  }
  return a;
}

void HttpGet::get(const std::string& url, const Sink& sink) {
  const std::string where = shown_url(url);
  const std::string origin = origin_of(url);
  if (origin.empty()) {
    throw InputError(where, "must be an http:// or https:// URL");
  }
  std::string target = url;
  int redirects = 0;
  for (int attempt = 1;; ++attempt) {
    Attempt a = perform(target, where, sink);
    if (a.status >= 200 && a.status <= 299) {
      return;
    }
    if (a.status >= 300 && a.status <= 399 && a.status != 304) {
      if (++redirects > k_max_redirects) {
        throw InputError(where, fmt::format("more than {} redirects", k_max_redirects));
      }
      if (a.location.empty() || origin_of(a.location) != origin) {
        throw InputError(where,
                         fmt::format("HTTP {} redirects {}",
                                     a.status,
                                     a.location.empty()
                                         ? std::string("without a Location")
                                         : "to another server (" + shown_url(a.location) + ")"));
      }
      target = a.location;
      --attempt; // a redirect is not a failed attempt
      continue;
    }
    const bool retry = a.status == -1 ? a.retryable : (a.status == 429 || a.status >= 500);
    const int attempts = 1 + m_options.retries;
    if (!retry || attempt >= attempts) {
      if (a.status == -1) {
        throw InputError(where, retry ? a.failure + " " + attempts_text(attempt) : a.failure);
      }
      const std::string said = one_line(a.error_body, 120);
      throw InputError(where,
                       fmt::format("HTTP {}{}{}",
                                   a.status,
                                   retry ? " " + attempts_text(attempt) : std::string(),
                                   said.empty() ? std::string(" (empty body)") : ": " + said));
    }
    // Retry-After when the server gives one (429, 503), else 0.5 s, 1 s, 2 s, ... at most 4 s.
    double wait_s = std::min(4.0, 0.5 * std::pow(2.0, attempt - 1));
    if (a.retry_after_s) {
      if (*a.retry_after_s > m_options.max_retry_after_s) {
        throw InputError(where,
                         fmt::format("HTTP {}: the server asks to retry after {:g} s, longer "
                                     "than the {:g} s rightsize waits; try again later",
                                     a.status,
                                     *a.retry_after_s,
                                     m_options.max_retry_after_s));
      }
      wait_s = *a.retry_after_s;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  }
}

} // namespace rightsize::net
