// dcgm-exporter scrapes (Prometheus text exposition format), read the way `rightsize observe`
// reads a DCGM file. Besides crashes and sanitizer reports, a broken invariant of Telemetry
// aborts: series of equal length, in time order, without NaN or infinity, and `samples` their
// total.

#include "fuzz_common.hpp"
#include "fuzz_telemetry.hpp"

#include <rightsize/observe/telemetry.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto t =
        rightsize::parse_dcgm_text(rightsize::fuzz::as_text(data, size), "fuzz.prom", 30);
    rightsize::fuzz::check_telemetry(t, rightsize::fuzz::Times::ordered);
  });
  return 0;
}
