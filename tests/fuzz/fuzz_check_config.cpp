// A repository's .rightsize.json, read the way `rightsize check --config` reads it.

#include "fuzz_common.hpp"
#include "fuzz_temp_file.hpp"

#include <rightsize/check/thresholds.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto& path = rightsize::fuzz::write_temp(rightsize::fuzz::as_text(data, size), ".json");
    rightsize::CheckThresholds t;
    rightsize::read_check_config(path, t);
  });
  return 0;
}
