#include <rightsize/net/curl_api.hpp>

#include <rightsize/core/error.hpp>

#include <dlfcn.h>

namespace rightsize::curl {

namespace {

std::string dl_error_text() {
  const char* text = dlerror();
  return text != nullptr ? std::string(text) : std::string("unknown dlopen error");
}

// dlsym() into a typed function pointer (POSIX guarantees the conversion).
template <typename Function> bool resolve(void* library, const char* name, Function& out) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) {
    return false;
  }
  out = reinterpret_cast<Function>(symbol);
  return true;
}

bool resolve_all(void* library, Api& a) {
  return resolve(library, "curl_global_init", a.global_init) &&
         resolve(library, "curl_easy_strerror", a.easy_strerror) &&
         resolve(library, "curl_easy_init", a.easy_init) &&
         resolve(library, "curl_easy_cleanup", a.easy_cleanup) &&
         resolve(library, "curl_easy_reset", a.easy_reset) &&
         resolve(library, "curl_easy_setopt", a.easy_setopt) &&
         resolve(library, "curl_easy_perform", a.easy_perform) &&
         resolve(library, "curl_easy_getinfo", a.easy_getinfo) &&
         resolve(library, "curl_easy_escape", a.easy_escape) &&
         resolve(library, "curl_free", a.free) &&
         resolve(library, "curl_slist_append", a.slist_append) &&
         resolve(library, "curl_slist_free_all", a.slist_free_all) &&
         resolve(library, "curl_url", a.url) && // 7.62.0, the oldest libcurl that loads
         resolve(library, "curl_url_cleanup", a.url_cleanup) &&
         resolve(library, "curl_url_set", a.url_set) && resolve(library, "curl_url_get", a.url_get);
}

} // namespace

namespace detail {

Loaded load(const std::vector<std::string>& names) {
  Loaded out;
  std::string not_found;
  std::string too_old;
  for (const auto& name : names) {
    void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      if (not_found.empty()) {
        not_found = dl_error_text();
      }
      continue;
    }
    Api api;
    if (resolve_all(library, api)) {
      out.api = api;
      return out;
    }
    if (too_old.empty()) {
      too_old = dl_error_text();
    }
    dlclose(library);
  }
  out.error = !too_old.empty() ? too_old : not_found;
  if (out.error.empty()) {
    out.error = "no library name to load";
  }
  return out;
}

const Api& require(const Loaded& loaded, const std::string& where, const std::string& user) {
  if (!loaded.error.empty()) {
    throw InputError(where,
                     user + " needs libcurl (libcurl4), which cannot be loaded: " + loaded.error);
  }
  if (loaded.init_code != CURLE_OK) {
    throw InputError(where,
                     std::string("cannot initialise libcurl: ") +
                         loaded.api.easy_strerror(loaded.init_code));
  }
  return loaded.api;
}

} // namespace detail

const Api& api(const std::string& where, const std::string& user) {
  static const detail::Loaded loaded = [] {
    detail::Loaded l = detail::load({"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"});
    if (l.error.empty()) {
      l.init_code = l.api.global_init(CURL_GLOBAL_DEFAULT);
    }
    return l;
  }();
  return detail::require(loaded, where, user);
}

} // namespace rightsize::curl
