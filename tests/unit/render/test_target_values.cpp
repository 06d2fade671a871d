// How estimate's target lines write a time: three significant digits in a unit chosen by its size.

#include "render/estimate_parts.hpp"

#include <catch2/catch.hpp>

using rightsize::detail::target_value;

TEST_CASE("estimate targets: times in a unit a reader compares at a glance", "[render]") {
  CHECK(target_value("ttft_ms", 38.2) == "38.2 ms");
  CHECK(target_value("ttft_ms", 1500) == "1.5 s");
  // Between 2 minutes and 2 hours, minutes: a p50 TTFT of 124 s read "0.0346 h".
  CHECK(target_value("ttft_ms", 124000) == "2.07 min");
  CHECK(target_value("ttft_ms", 300000) == "5 min");
  CHECK(target_value("deadline_hours", 6.2) == "6.2 h");
  CHECK(target_value("deadline_hours", 96) == "4 days");
}
