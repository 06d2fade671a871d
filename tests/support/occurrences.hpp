#pragma once

// How many times `what` occurs in `text` (overlapping occurrences counted): the render tests count
// marks and rows in the HTML and SVG they check.

#include <cstddef>
#include <string>

namespace rightsize::test {

inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

} // namespace rightsize::test
