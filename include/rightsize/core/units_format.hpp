#pragma once

// Human-readable formatting of unit types. Capacities use binary prefixes (GiB), rates use decimal
// prefixes (GB/s, TFLOP/s), as datasheets do.

#include <rightsize/core/units.hpp>

#include <fmt/format.h>

#include <string>

namespace rightsize {

std::string format_bytes(Bytes b);                // "13.5 GiB", "512 B"
std::string format_bytes_per_s(BytesPerSecond r); // "3.35 TB/s", "864 GB/s"
std::string format_flops(Flops f);                // "1.23 TFLOP"
std::string format_flops_per_s(FlopsPerSecond r); // "989 TFLOP/s"
std::string format_seconds(Seconds s);            // "12.3 ms", "4.5 s", "3.2 h", "12.0 days"
std::string format_usd(Usd c);                    // "$1,234", "$0.42"
std::string format_usd_per_hour(UsdPerHour p);    // "$2.49/h"
std::string format_watts(Watts p);                // "700 W"
std::string format_count(double v);               // "27,911" (rounded to a whole number)

} // namespace rightsize

template <class Tag> struct rightsize_formatter_base {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
};

#define RIGHTSIZE_DEFINE_FORMATTER(Type, function)                                                 \
  template <> struct fmt::formatter<rightsize::Type> : rightsize_formatter_base<rightsize::Type> { \
    template <class Ctx> auto format(rightsize::Type v, Ctx& ctx) const {                          \
      return fmt::format_to(ctx.out(), "{}", rightsize::function(v));                              \
    }                                                                                              \
  };

RIGHTSIZE_DEFINE_FORMATTER(Bytes, format_bytes)
RIGHTSIZE_DEFINE_FORMATTER(BytesPerSecond, format_bytes_per_s)
RIGHTSIZE_DEFINE_FORMATTER(Flops, format_flops)
RIGHTSIZE_DEFINE_FORMATTER(FlopsPerSecond, format_flops_per_s)
RIGHTSIZE_DEFINE_FORMATTER(Seconds, format_seconds)
RIGHTSIZE_DEFINE_FORMATTER(Usd, format_usd)
RIGHTSIZE_DEFINE_FORMATTER(UsdPerHour, format_usd_per_hour)
RIGHTSIZE_DEFINE_FORMATTER(Watts, format_watts)

#undef RIGHTSIZE_DEFINE_FORMATTER
