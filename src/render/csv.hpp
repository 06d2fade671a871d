#pragma once

// CSV fields as RFC 4180 writes them: quoted when they hold a comma, quote or newline.

#include <string>

namespace rightsize {

inline std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (const char c : s) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

} // namespace rightsize
