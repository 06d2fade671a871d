#pragma once

// GETs that stream the answer to a reader, for price lists that are too large to hold (AWS's EC2
// offer file of a region is hundreds of MB): the bytes reach `sink` as they arrive, and a problem
// is one InputError naming the URL. docs/catalog.md, "Fresh prices".
//
// Retries (a refused or reset connection, HTTP 429 honouring Retry-After, 5xx) happen only before
// the first byte of a 2xx body reached the sink: after that the reader holds part of an answer,
// and a second try would feed it the start again. A body that ends before its Content-Length, a
// connection that stalls for the timeout, a body over the size cap, and more than three redirects
// are errors, never a short answer.

#include <rightsize/net/curl_api.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace rightsize::net {

struct GetOptions {
  // Connecting, and any stretch with no byte received, may take this long.
  double timeout_s = 30;
  // Attempts after the first, for refused connections, 429 and 5xx.
  int retries = 2;
  // The longest wait a Retry-After may ask for; a longer one fails at once, saying so.
  double max_retry_after_s = 60;
  // Bodies larger than this fail (the transfer stops there).
  std::size_t max_body_bytes = std::size_t{1} << 30;
  // What asked, for the one message that is not about the URL ("catalog refresh needs libcurl").
  std::string user = "catalog refresh";
};

// Chunks of the body, in order. It may throw: the transfer stops and the exception propagates.
using Sink = std::function<void(std::string_view)>;

// One client for all the GETs of a run, so that they share a connection.
class HttpGet {
public:
  explicit HttpGet(GetOptions options);
  ~HttpGet();
  HttpGet(const HttpGet&) = delete;
  HttpGet& operator=(const HttpGet&) = delete;

  // Streams the 2xx body of `url` to `sink`, following redirects on the same server. Errors are
  // InputErrors at `url`, without any user:password@ it holds.
  void get(const std::string& url, const Sink& sink);

  // The bytes of bodies streamed to sinks so far.
  [[nodiscard]] std::size_t bytes_received() const { return m_bytes; }

private:
  struct Attempt;
  Attempt perform(const std::string& url, const std::string& where, const Sink& sink);

  GetOptions m_options;
  const curl::Api* m_api = nullptr;
  std::unique_ptr<CURL, void (*)(CURL*)> m_curl;
  std::size_t m_bytes = 0;
};

// `text` on one line of at most `max` bytes: control characters become spaces, runs of spaces
// one, the cut lands on a character boundary, and stray bytes are replaced.
std::string one_line(std::string_view text, std::size_t max);

// `url` for messages: without the user:password@ of its authority, on one line.
std::string shown_url(const std::string& url);

} // namespace rightsize::net
