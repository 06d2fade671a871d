#pragma once

// libcurl, loaded with dlopen() on the first request instead of linked: a linked libcurl and the
// ~30 libraries it needs are mapped and relocated by every run of the binary, which made
// `rightsize --version` and `plan` 5 times slower (docs/performance.md), for the two commands that
// use it (observe --prometheus, catalog refresh). <curl/curl.h> still gives the types and
// constants, at compile time only; the binary has no link-time dependency on libcurl
// (tests/package/test_package.sh checks its NEEDED entries).

#include <curl/curl.h>
#include <string>
#include <vector>

namespace rightsize::curl {

// The libcurl functions rightsize calls, typed from their declarations in <curl/curl.h>.
struct Api {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_escape) easy_escape = nullptr;
  decltype(&::curl_free) free = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_url) url = nullptr;
  decltype(&::curl_url_cleanup) url_cleanup = nullptr;
  decltype(&::curl_url_set) url_set = nullptr;
  decltype(&::curl_url_get) url_get = nullptr;
};

// libcurl with curl_global_init() done, loaded on the first call (thread-safe, once per process;
// the library is never unloaded): libcurl.so.4 (libcurl4, OpenSSL), else libcurl-gnutls.so.4
// (libcurl3-gnutls), else libcurl.so. Throws InputError at `where` (the URL, without credentials)
// when none loads: "<where>: <user> needs libcurl (libcurl4), which cannot be loaded:
// <dlerror()>", where `user` names what asked ("--prometheus", "catalog refresh").
const Api& api(const std::string& where, const std::string& user);

namespace detail {

struct Loaded {
  Api api;
  std::string error;             // why no library loaded (dlerror()); empty when one did
  CURLcode init_code = CURLE_OK; // curl_global_init()'s, when one did and it was called
};

// The first of `names` that dlopen() loads with every function of Api; otherwise the error of a
// library that loaded without all of them (too old), else dlopen()'s error for the first name.
Loaded load(const std::vector<std::string>& names);

// `loaded`'s Api, or the InputError at `where` that api() throws.
const Api& require(const Loaded& loaded, const std::string& where, const std::string& user);

} // namespace detail

} // namespace rightsize::curl
