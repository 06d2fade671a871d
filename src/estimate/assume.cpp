#include <rightsize/core/error.hpp>
#include <rightsize/estimate/memory.hpp>

#include <stdexcept>

namespace rightsize {

void Constants::assume(const std::vector<std::string>& assignments) {
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos) {
      throw InputError("--assume", "expected NAME=VALUE, got \"" + a + "\"");
    }
    double value = 0;
    try {
      std::size_t used = 0;
      value = std::stod(a.substr(eq + 1), &used);
      if (used != a.size() - eq - 1) {
        throw std::invalid_argument("trailing characters");
      }
    } catch (const std::exception&) {
      throw InputError("--assume", "expected a number after '=', got \"" + a + "\"");
    }
    set(a.substr(0, eq), value, "--assume " + a);
  }
}

} // namespace rightsize
