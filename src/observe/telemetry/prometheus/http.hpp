#pragma once

// HTTP to the Prometheus server through the libcurl that curl::api() loaded: the base URL checked,
// and one client whose GETs retry, follow redirects on the same server and cap the body.
// docs/observe.md, "Prometheus".

#include <rightsize/core/error.hpp>
#include <rightsize/net/curl_api.hpp>
#include <rightsize/observe/prometheus.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <utility>

namespace rightsize::prometheus {

// `url` without the user:password@ of its authority, for the messages written before libcurl can
// parse it.
std::string without_userinfo(const std::string& url);

// The server's base URL: `request` as given (credentials kept, for the requests) and `shown`
// without credentials (for messages), both without a trailing slash.
struct BaseUrl {
  std::string request;
  std::string shown;
  std::string origin; // scheme://host:port, to keep redirects on this server
};

// `given` checked (http or https, no query or fragment) and made a BaseUrl; InputError at
// --prometheus otherwise.
BaseUrl parse_base_url(const std::string& given, const curl::Api& api);

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

} // namespace rightsize::prometheus
