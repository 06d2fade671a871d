// The generator's own stand-in for bundled_data.cpp, which it writes: it embeds nothing, so the
// generator loads the data files the way rightsize loads edited ones, parsing and validating them.

#include "bundled.hpp"

namespace rightsize::detail {

BundledFile bundled_catalog_file() {
  return {};
}

BundledFile bundled_engines_file() {
  return {};
}

BundledFile bundled_published_index_file() {
  return {};
}

BundledFile bundled_deploy_file() {
  return {};
}

BundledFile bundled_instances_file() {
  return {};
}

std::string_view bundled_published_index_digest() {
  return {};
}

BundledFile bundled_published_table(std::string_view /*model*/) {
  return {};
}

} // namespace rightsize::detail
