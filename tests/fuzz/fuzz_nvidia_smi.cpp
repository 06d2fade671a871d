// nvidia-smi --query-gpu CSV logs, read the way `rightsize observe` reads a .csv file. Besides
// crashes and sanitizer reports, a broken invariant of Telemetry aborts: series of equal length,
// in time order, without NaN or infinity, and `samples` their total.

#include "fuzz_common.hpp"
#include "fuzz_telemetry.hpp"

#include <rightsize/observe/telemetry.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto t = rightsize::parse_nvidia_smi_csv(
        rightsize::fuzz::as_text(data, size), "fuzz.csv", "fuzz", 1.0);
    rightsize::fuzz::check_telemetry(t, rightsize::fuzz::Times::ordered);
  });
  return 0;
}
