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
  // The query's bearer token and headers are sent with every request (checked here: InputError
  // at --header for one that is not "Name: value"); its CA file and --insecure-skip-verify set
  // how an https server is verified.
  HttpClient(const PrometheusQuery& query, std::string origin, const curl::Api& api);

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

public:
  // Requests made (retries and redirects included) and body bytes received.
  [[nodiscard]] const PrometheusTraffic& traffic() const { return m_traffic; }

private:
  void add_header(const std::string& line);

  const curl::Api& m_api;
  std::unique_ptr<CURL, decltype(curl::Api::easy_cleanup)> m_curl;
  std::unique_ptr<curl_slist, decltype(curl::Api::slist_free_all)> m_headers;
  PrometheusTraffic m_traffic;
  long m_timeout_ms;
  double m_timeout_s;
  int m_attempts;
  std::string m_origin;
  std::string m_ca_file;
  bool m_insecure = false;
};

} // namespace rightsize::prometheus
