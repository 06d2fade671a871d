// Names as Kubernetes takes them, and the autoscalers' names.

#include <rightsize/deploy/deploy.hpp>

#include <algorithm>
#include <cctype>

namespace rightsize {

std::string_view to_string(Autoscaler a) {
  switch (a) {
  case Autoscaler::hpa:
    return "hpa";
  case Autoscaler::keda:
    return "keda";
  case Autoscaler::none:
    return "none";
  }
  return "none";
}

std::string_view to_string(ModelCache c) {
  return c == ModelCache::pvc ? "pvc" : "none";
}

bool dns_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto dot = std::min(name.find('.', start), name.size());
    const std::string_view label = name.substr(start, dot - start);
    const auto plain = [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'); };
    if (label.empty() || !plain(label.front()) || !plain(label.back()) ||
        !std::all_of(label.begin(), label.end(), [&](char ch) { return plain(ch) || ch == '-'; })) {
      return false;
    }
    start = dot + 1;
  }
  return true;
}

bool label_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash != std::string_view::npos && !dns_subdomain(key.substr(0, slash))) {
    return false;
  }
  const std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  const auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
  return !name.empty() && name.size() <= 63 && alnum(name.front()) && alnum(name.back()) &&
         std::all_of(name.begin(), name.end(), [&](char ch) {
           return alnum(ch) || ch == '-' || ch == '_' || ch == '.';
         });
}

bool secret_key(std::string_view key) {
  return !key.empty() && key.size() <= 253 && std::all_of(key.begin(), key.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '-' || ch == '_' || ch == '.';
  });
}

std::string dns_label(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') {
    out.pop_back();
  }
  if (out.size() > 63) {
    out.resize(63);
    while (!out.empty() && out.back() == '-') {
      out.pop_back();
    }
  }
  return out.empty() ? std::string("rightsize") : out;
}

std::string object_name(std::string_view text) {
  std::string name = dns_label(text);
  if (std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    name = dns_label("m-" + name);
  }
  return name;
}

} // namespace rightsize
