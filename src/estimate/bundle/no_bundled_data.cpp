// The generator's own stand-in for bundled_data.cpp, which it writes: it embeds nothing, so the
// generator loads the data files the way rightsize loads edited ones, parsing and validating them.

#include "bundled.hpp"

namespace rightsize::detail {

BundledFile bundled_memory_file() {
  return {};
}

BundledFile bundled_efficiency_file() {
  return {};
}

BundledFile bundled_uncertainty_file() {
  return {};
}

} // namespace rightsize::detail
