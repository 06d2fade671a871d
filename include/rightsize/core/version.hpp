#pragma once

// Engine versions as releases name them ("0.7.3", "0.5.1.post1", "1.0.0rc3", "v0.11.2"): the
// leading numeric components, compared as numbers. A pre-release or post-release suffix is
// ignored (1.0.0rc3 counts as 1.0.0): rightsize's version conditions are about releases.

#include <cctype>
#include <optional>
#include <string_view>
#include <vector>

namespace rightsize {

using Version = std::vector<long long>;

// The numeric components of `text`, or nullopt when it does not start with one (after an
// optional "v").
inline std::optional<Version> parse_version(std::string_view text) {
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) {
    text.remove_prefix(1);
  }
  Version v;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
    long long n = 0;
    int digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      if (++digits > 9) {
        return std::nullopt; // no release numbers a component in the billions
      }
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    v.push_back(n);
    if (i + 1 < text.size() && text[i] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0) {
      ++i;
      continue;
    }
    break;
  }
  if (v.empty()) {
    return std::nullopt;
  }
  return v;
}

// a < b, missing components counting as 0 (0.8 == 0.8.0).
inline bool version_less(const Version& a, const Version& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const long long x = i < a.size() ? a[i] : 0;
    const long long y = i < b.size() ? b[i] : 0;
    if (x != y) {
      return x < y;
    }
  }
  return false;
}

} // namespace rightsize
