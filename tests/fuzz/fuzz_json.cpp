// The strict JSON reader every input goes through: syntax, UTF-8, duplicate keys, nesting depth,
// numbers out of range. What it accepts must print back (dump_json) and reparse to the same value.

#include "fuzz_common.hpp"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto value =
        rightsize::detail::parse_json_text(rightsize::fuzz::as_text(data, size), "fuzz.json");
    const auto again = rightsize::detail::parse_json_text(rightsize::detail::dump_json(value),
                                                          "fuzz.json (reprinted)");
    if (again != value) {
      std::abort();
    }
  });
  return 0;
}
