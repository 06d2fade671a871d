#pragma once

// Shared by the libFuzzer targets: each turns the input into the parser's argument and calls it.
// The project's input-error types are the expected way to refuse bad input; any other exception
// escapes, terminates and counts as a crash, like a sanitizer report.

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rightsize::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `body`, swallowing only rightsize's input errors.
template <class Body> void expect_input_errors_only(Body&& body) {
  try {
    body();
  } catch (const InputError&) {
  } catch (const InputErrors&) {
  }
}

} // namespace rightsize::fuzz
