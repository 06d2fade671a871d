#pragma once

// Where a model's headline number came from, as the tests of the model readers ask it.

#include <rightsize/model/model.hpp>

#include <string>

namespace rightsize::test {

// The provenance recorded for `field` ("config.json:/num_labels", "derived: ..."), or "none".
inline std::string provenance_of(const ModelArch& m, const std::string& field) {
  for (const auto& [name, where] : m.provenance) {
    if (name == field) {
      return where;
    }
  }
  return "none";
}

} // namespace rightsize::test
