#include <rightsize/core/units_format.hpp>

#include <array>
#include <cmath>

namespace rightsize {
namespace {

// Three significant digits without scientific notation: 0.123, 1.23, 12.3, 123, 1234.
std::string three_digits(double v) {
  const double a = std::fabs(v);
  if (a >= 100.0 || a == 0.0) {
    return fmt::format("{:.0f}", v);
  }
  if (a >= 10.0) {
    return fmt::format("{:.1f}", v);
  }
  if (a >= 1.0) {
    return fmt::format("{:.2f}", v);
  }
  const int decimals = std::min(9, 2 - static_cast<int>(std::floor(std::log10(a))));
  return fmt::format("{:.{}f}", v, decimals);
}

struct Prefix {
  double scale;
  const char* name;
};

std::string scaled(double v, const std::array<Prefix, 5>& prefixes, const char* unit) {
  const Prefix* chosen = prefixes.data();
  for (const auto& p : prefixes) {
    if (std::fabs(v) >= p.scale) {
      chosen = &p;
    }
  }
  return fmt::format("{} {}{}", three_digits(v / chosen->scale), chosen->name, unit);
}

constexpr std::array<Prefix, 5> k_binary{{{1.0, ""},
                                          {units::k_kibi, "Ki"},
                                          {units::k_mebi, "Mi"},
                                          {units::k_gibi, "Gi"},
                                          {units::k_tebi, "Ti"}}};
constexpr std::array<Prefix, 5> k_decimal{{{1.0, ""},
                                           {units::k_mega, "M"},
                                           {units::k_giga, "G"},
                                           {units::k_tera, "T"},
                                           {units::k_peta, "P"}}};

} // namespace

std::string format_count(double v) {
  const auto whole = static_cast<long long>(std::llround(std::fabs(v)));
  std::string digits = std::to_string(whole);
  std::string out;
  const auto n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[i];
    const auto left = n - i - 1;
    if (left > 0 && left % 3 == 0) {
      out += ',';
    }
  }
  return (v < 0 ? "-" : "") + out;
}

std::string format_bytes(Bytes b) {
  return scaled(b.si(), k_binary, "B");
}
std::string format_bytes_per_s(BytesPerSecond r) {
  return scaled(r.si(), k_decimal, "B/s");
}
std::string format_flops(Flops f) {
  return scaled(f.si(), k_decimal, "FLOP");
}
std::string format_flops_per_s(FlopsPerSecond r) {
  return scaled(r.si(), k_decimal, "FLOP/s");
}
std::string format_watts(Watts p) {
  return fmt::format("{} W", three_digits(p.si()));
}

std::string format_seconds(Seconds s) {
  const double v = s.si();
  const double a = std::fabs(v);
  if (a < 1e-3) {
    return fmt::format("{} us", three_digits(v * 1e6));
  }
  if (a < 1.0) {
    return fmt::format("{} ms", three_digits(v * 1e3));
  }
  if (a < 120.0) {
    return fmt::format("{} s", three_digits(v));
  }
  if (a < 2.0 * units::k_seconds_per_hour) {
    return fmt::format("{} min", three_digits(v / 60.0));
  }
  if (a < 48.0 * units::k_seconds_per_hour) {
    return fmt::format("{} h", three_digits(v / units::k_seconds_per_hour));
  }
  return fmt::format("{} days", three_digits(v / (24.0 * units::k_seconds_per_hour)));
}

std::string format_usd(Usd c) {
  const double v = c.si();
  if (std::fabs(v) >= 1000.0) {
    return "$" + format_count(v);
  }
  if (std::fabs(v) >= 1.0 || v == 0.0) {
    return fmt::format("${:.2f}", v);
  }
  return "$" + three_digits(v);
}

std::string format_usd_per_hour(UsdPerHour p) {
  return fmt::format("{}/h", format_usd(usd(p.si())));
}

} // namespace rightsize
