#pragma once

// Physical units as types. Every quantity is stored in SI base units (bytes, FLOP, seconds, US
// dollars, watts). Prefixes (GiB vs GB, TFLOP/s) are decided only in the named factories below and
// in formatting (units_format.hpp), never inside a formula.
//
// Same-dimension arithmetic (+, -, scaling by a plain number, ratio of two quantities) is provided
// by Quantity. Cross-dimension operators are written out one per physical law at the bottom of this
// file; anything else does not compile.

#include <cmath>
#include <cstdint>

namespace rightsize {

template <class Tag> class Quantity {
public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double si_value) : m_si(si_value) {}

  // The value in SI base units.
  [[nodiscard]] constexpr double si() const { return m_si; }

  constexpr Quantity& operator+=(Quantity other) {
    m_si += other.m_si;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity other) {
    m_si -= other.m_si;
    return *this;
  }
  constexpr Quantity& operator*=(double factor) {
    m_si *= factor;
    return *this;
  }
  constexpr Quantity& operator/=(double divisor) {
    m_si /= divisor;
    return *this;
  }

  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.m_si + b.m_si); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.m_si - b.m_si); }
  friend constexpr Quantity operator-(Quantity a) { return Quantity(-a.m_si); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.m_si * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(k * a.m_si); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.m_si / k); }
  // The ratio of two quantities of one dimension is a plain number.
  friend constexpr double operator/(Quantity a, Quantity b) { return a.m_si / b.m_si; }

  friend constexpr bool operator==(Quantity a, Quantity b) { return a.m_si == b.m_si; }
  friend constexpr bool operator!=(Quantity a, Quantity b) { return a.m_si != b.m_si; }
  friend constexpr bool operator<(Quantity a, Quantity b) { return a.m_si < b.m_si; }
  friend constexpr bool operator<=(Quantity a, Quantity b) { return a.m_si <= b.m_si; }
  friend constexpr bool operator>(Quantity a, Quantity b) { return a.m_si > b.m_si; }
  friend constexpr bool operator>=(Quantity a, Quantity b) { return a.m_si >= b.m_si; }

private:
  double m_si = 0.0;
};

namespace unit_tag {
struct Bytes {};
struct Flops {};
struct FlopsPerSecond {};
struct BytesPerSecond {};
struct Seconds {};
struct Usd {};
struct UsdPerHour {};
struct Watts {};
struct Joules {};
struct ItemsPerHour {};
struct UsdPerItem {};
} // namespace unit_tag

using Bytes = Quantity<unit_tag::Bytes>;                   // bytes
using Flops = Quantity<unit_tag::Flops>;                   // floating-point operations
using FlopsPerSecond = Quantity<unit_tag::FlopsPerSecond>; // FLOP per second
using BytesPerSecond = Quantity<unit_tag::BytesPerSecond>; // bytes per second
using Seconds = Quantity<unit_tag::Seconds>;               // seconds
using Usd = Quantity<unit_tag::Usd>;                       // US dollars
using UsdPerHour = Quantity<unit_tag::UsdPerHour>;         // US dollars per hour (stored per hour)
using Watts = Quantity<unit_tag::Watts>;                   // watts
using Joules = Quantity<unit_tag::Joules>;                 // joules
// Work done per hour, counted in the items a price is per: tokens, images, audio hours. Stored per
// hour, as UsdPerHour is, so that a price per hour over it is one division.
using ItemsPerHour = Quantity<unit_tag::ItemsPerHour>;
using UsdPerItem = Quantity<unit_tag::UsdPerItem>; // US dollars per item (a token, an image, ...)

// --- Named factories: the only place where a prefix turns into a power of ten or of two. ---
namespace units {
inline constexpr double k_kibi = 1024.0;
inline constexpr double k_mebi = k_kibi * 1024.0;
inline constexpr double k_gibi = k_mebi * 1024.0;
inline constexpr double k_tebi = k_gibi * 1024.0;
inline constexpr double k_kilo = 1e3;
inline constexpr double k_mega = 1e6;
inline constexpr double k_giga = 1e9;
inline constexpr double k_tera = 1e12;
inline constexpr double k_peta = 1e15;
inline constexpr double k_seconds_per_hour = 3600.0;
inline constexpr double k_bits_per_byte = 8.0;
} // namespace units

constexpr Bytes bytes(double n) {
  return Bytes(n);
}
constexpr Bytes bits(double n) {
  return Bytes(n / units::k_bits_per_byte);
}
constexpr Bytes kib(double n) {
  return Bytes(n * units::k_kibi);
}
constexpr Bytes mib(double n) {
  return Bytes(n * units::k_mebi);
}
constexpr Bytes gib(double n) {
  return Bytes(n * units::k_gibi);
}
constexpr Bytes tib(double n) {
  return Bytes(n * units::k_tebi);
}
constexpr Bytes kb(double n) {
  return Bytes(n * units::k_kilo);
}
constexpr Bytes mb(double n) {
  return Bytes(n * units::k_mega);
}
constexpr Bytes gb(double n) {
  return Bytes(n * units::k_giga);
}
constexpr Bytes tb(double n) {
  return Bytes(n * units::k_tera);
}

constexpr BytesPerSecond bytes_per_s(double n) {
  return BytesPerSecond(n);
}
constexpr BytesPerSecond gb_per_s(double n) {
  return BytesPerSecond(n * units::k_giga);
}
constexpr BytesPerSecond tb_per_s(double n) {
  return BytesPerSecond(n * units::k_tera);
}
constexpr BytesPerSecond gbit_per_s(double n) {
  return BytesPerSecond(n * units::k_giga / units::k_bits_per_byte);
}

constexpr Flops flops(double n) {
  return Flops(n);
}
constexpr Flops gflop(double n) {
  return Flops(n * units::k_giga);
}
constexpr Flops tflop(double n) {
  return Flops(n * units::k_tera);
}
constexpr FlopsPerSecond flop_per_s(double n) {
  return FlopsPerSecond(n);
}
constexpr FlopsPerSecond tflop_per_s(double n) {
  return FlopsPerSecond(n * units::k_tera);
}
constexpr FlopsPerSecond pflop_per_s(double n) {
  return FlopsPerSecond(n * units::k_peta);
}

constexpr Seconds seconds(double n) {
  return Seconds(n);
}
constexpr Seconds milliseconds(double n) {
  return Seconds(n / units::k_kilo);
}
constexpr Seconds microseconds(double n) {
  return Seconds(n / units::k_mega);
}
constexpr Seconds hours(double n) {
  return Seconds(n * units::k_seconds_per_hour);
}
constexpr Seconds days(double n) {
  return Seconds(n * 24.0 * units::k_seconds_per_hour);
}

constexpr Usd usd(double n) {
  return Usd(n);
}
constexpr UsdPerHour usd_per_hour(double n) {
  return UsdPerHour(n);
}
constexpr Watts watts(double n) {
  return Watts(n);
}
constexpr Joules joules(double n) {
  return Joules(n);
}
// A rate given per second (tokens/s, images/s), as items per hour.
constexpr ItemsPerHour items_per_s(double n) {
  return ItemsPerHour(n * units::k_seconds_per_hour);
}
// A rate given per hour. A transcription's audio seconds per second are audio hours per hour.
constexpr ItemsPerHour items_per_hour(double n) {
  return ItemsPerHour(n);
}

// --- Conversions out, for display and JSON keys that name their unit. ---
constexpr double to_gib(Bytes b) {
  return b.si() / units::k_gibi;
}
constexpr double to_gb(Bytes b) {
  return b.si() / units::k_giga;
}
constexpr double to_gb_per_s(BytesPerSecond r) {
  return r.si() / units::k_giga;
}
constexpr double to_tflop_per_s(FlopsPerSecond r) {
  return r.si() / units::k_tera;
}
constexpr double to_ms(Seconds s) {
  return s.si() * units::k_kilo;
}
constexpr double to_hours(Seconds s) {
  return s.si() / units::k_seconds_per_hour;
}
constexpr double to_kwh(Joules j) {
  return j.si() / (units::k_kilo * units::k_seconds_per_hour);
}
// Prices per many items, as reports print them: $ per million tokens, per thousand images.
constexpr double to_usd_per_million(UsdPerItem p) {
  return p.si() * units::k_mega;
}
constexpr double to_usd_per_thousand(UsdPerItem p) {
  return p.si() * units::k_kilo;
}

// --- Cross-dimension laws, one operator each. ---
constexpr Seconds operator/(Bytes b, BytesPerSecond r) {
  return Seconds(b.si() / r.si());
}
constexpr Seconds operator/(Flops f, FlopsPerSecond r) {
  return Seconds(f.si() / r.si());
}
constexpr BytesPerSecond operator/(Bytes b, Seconds t) {
  return BytesPerSecond(b.si() / t.si());
}
constexpr FlopsPerSecond operator/(Flops f, Seconds t) {
  return FlopsPerSecond(f.si() / t.si());
}
constexpr Bytes operator*(BytesPerSecond r, Seconds t) {
  return Bytes(r.si() * t.si());
}
constexpr Bytes operator*(Seconds t, BytesPerSecond r) {
  return r * t;
}
constexpr Flops operator*(FlopsPerSecond r, Seconds t) {
  return Flops(r.si() * t.si());
}
constexpr Flops operator*(Seconds t, FlopsPerSecond r) {
  return r * t;
}
constexpr Usd operator*(UsdPerHour p, Seconds t) {
  return Usd(p.si() * t.si() / units::k_seconds_per_hour);
}
constexpr Usd operator*(Seconds t, UsdPerHour p) {
  return p * t;
}
constexpr UsdPerHour operator/(Usd c, Seconds t) {
  return UsdPerHour(c.si() / t.si() * units::k_seconds_per_hour);
}
// The pricing law: what an hour costs over the items an hour makes is the price of one item.
constexpr UsdPerItem operator/(UsdPerHour p, ItemsPerHour r) {
  return UsdPerItem(p.si() / r.si());
}
constexpr Joules operator*(Watts p, Seconds t) {
  return Joules(p.si() * t.si());
}
constexpr Joules operator*(Seconds t, Watts p) {
  return p * t;
}

// Arithmetic intensity (FLOP per byte) is a plain number.
constexpr double operator/(Flops f, Bytes b) {
  return f.si() / b.si();
}

template <class Tag> Quantity<Tag> max(Quantity<Tag> a, Quantity<Tag> b) {
  return a < b ? b : a;
}
template <class Tag> Quantity<Tag> min(Quantity<Tag> a, Quantity<Tag> b) {
  return b < a ? b : a;
}

} // namespace rightsize
