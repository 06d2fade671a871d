// A Prometheus query_range answer, added the way query_prometheus adds each field's answer: the
// same body as FB_USED, FB_FREE, FB_RESERVED, a throttle mask and GPU_UTIL twice (a second chunk
// of the same series), into one Telemetry. Whatever it accepts must keep Telemetry's invariants:
// samples in time order, one per time, finite values, and the count of what is stored.

#include "fuzz_common.hpp"
#include "fuzz_telemetry.hpp"

#include <rightsize/observe/prometheus.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto body = rightsize::fuzz::as_text(data, size);
  rightsize::Telemetry t;
  for (const char* field : {"DCGM_FI_DEV_FB_USED",
                            "DCGM_FI_DEV_FB_FREE",
                            "DCGM_FI_DEV_FB_RESERVED",
                            "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                            "DCGM_FI_DEV_GPU_UTIL",
                            "DCGM_FI_DEV_GPU_UTIL",
                            "DCGM_FI_PROF_GR_ENGINE_ACTIVE"}) {
    rightsize::fuzz::expect_input_errors_only([&] {
      rightsize::add_prometheus_matrix(body, field, "http://fuzz/api/v1/query_range", t);
    });
  }
  rightsize::fuzz::check_telemetry(t, rightsize::fuzz::Times::strictly_increasing);
  return 0;
}
