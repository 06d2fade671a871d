// A safetensors file: the 8-byte header length, the JSON header, and the data span it claims.
// The input is the whole file; its length is the file size the header is checked against.

#include "fuzz_common.hpp"

#include <rightsize/model/model.hpp>

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto totals = rightsize::parse_safetensors_header(
        rightsize::fuzz::as_text(data, size), size, "model.safetensors");
    // Whatever is accepted is a finite, non-negative count that fits in the file.
    if (!(totals.bytes >= 0 && totals.bytes <= static_cast<double>(size))) {
      std::abort();
    }
    for (const auto& [dtype, n] : totals.elements_by_dtype) {
      if (!std::isfinite(n) || n < 0) {
        std::abort();
      }
    }
  });
  return 0;
}
