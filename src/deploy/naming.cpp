// Names as Kubernetes takes them, and the autoscalers' names.

#include <rightsize/deploy/deploy.hpp>

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
