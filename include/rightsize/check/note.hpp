#pragma once

// A line the check stage has for a person: the library never logs, the CLI logs these in order
// (docs/architecture.md, "Dependency rule").

#include <string>

namespace rightsize {

struct CheckNote {
  enum class Level { info, warning, error };
  Level level = Level::info;
  std::string text;
};

} // namespace rightsize
