// torch.profiler's Chrome trace, read by the streaming reader of trace_torch.cpp. Besides
// refusing bad input with InputErrors only, its JSON scanner must agree with nlohmann's on what
// JSON is (on valid UTF-8, and below its nesting limit), and what it accepts must give figures
// that hold together: nothing negative or infinite, busy within the window, waits within the
// idle time.

#include "fuzz_common.hpp"

#include <rightsize/observe/trace.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

bool sane(double v) {
  return std::isfinite(v) && v >= 0;
}

// a <= b, give or take rounding
bool at_most(double a, double b) {
  return a <= b * (1 + 1e-9) + 1e-12;
}

void check_profile(const rightsize::TraceProfile& p) {
  check(p.devices >= 1);
  check(sane(p.window_s) && sane(p.gpu_busy_s) && sane(p.gpu_idle_s) && sane(p.input_wait_s));
  check(sane(p.host_to_device_bytes) && sane(p.host_to_device_s));
  check(at_most(p.gpu_busy_s, p.window_s * p.devices));
  check(at_most(p.input_wait_s, p.gpu_idle_s));
  check(at_most(p.host_to_device_s, p.gpu_busy_s));
  for (const double v : p.busy_by_class_s) {
    check(sane(v) && at_most(v, p.gpu_busy_s));
  }
  check(p.busy_fraction() >= 0 && p.busy_fraction() <= 1);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rightsize::fuzz::as_text(data, size);
  // nlohmann takes a NUL byte for the end of the input, so texts with one are not compared.
  const bool utf8 =
      rightsize::detail::valid_utf8(text) == text && text.find('\0') == std::string_view::npos;
  try {
    check_profile(rightsize::parse_torch_trace(text, "fuzz.json"));
    check(!utf8 || nlohmann::json::accept(text));
  } catch (const rightsize::InputError& e) {
    const std::string what = e.what();
    const bool syntax = what.find("invalid JSON") != std::string::npos &&
                        what.find("nesting deeper") == std::string::npos;
    check(!(syntax && utf8 && nlohmann::json::accept(text)));
  }
  return 0;
}
