#include <rightsize/core/units.hpp>
#include <rightsize/core/units_format.hpp>

#include <catch2/catch.hpp>

#include <type_traits>
#include <utility>

using namespace rightsize;

TEST_CASE("units: different dimensions do not convert into each other", "[units]") {
  STATIC_REQUIRE_FALSE(std::is_convertible_v<Bytes, Flops>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<Flops, Bytes>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<Seconds, Usd>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<BytesPerSecond, FlopsPerSecond>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<UsdPerHour, Usd>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<double, Bytes>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<Bytes, double>);
  STATIC_REQUIRE(std::is_constructible_v<Bytes, double>);
}

TEST_CASE("units: prefixes are decided in named factories", "[units]") {
  CHECK(gib(1).si() == 1073741824.0);
  CHECK(gb(1).si() == 1e9);
  CHECK(mib(1).si() == 1048576.0);
  CHECK(kib(128).si() == 131072.0);
  CHECK(tb_per_s(3.35).si() == Approx(3.35e12));
  CHECK(gb_per_s(64).si() == Approx(64e9));
  CHECK(gbit_per_s(400).si() == Approx(50e9));
  CHECK(tflop_per_s(989).si() == Approx(989e12));
  CHECK(bits(4).si() == 0.5);
  CHECK(hours(1).si() == 3600.0);
  CHECK(milliseconds(50).si() == Approx(0.05));
  CHECK(to_gib(gb(80)) == Approx(74.505806));
  CHECK(to_ms(seconds(0.25)) == Approx(250.0));
}

TEST_CASE("units: cross-dimension laws", "[units]") {
  // 16 GB of weights read at 2 TB/s take 8 ms.
  CHECK((gb(16) / tb_per_s(2)).si() == Approx(0.008));
  // 1 PFLOP at 500 TFLOP/s takes 2 s.
  CHECK((tflop(1000) / tflop_per_s(500)).si() == Approx(2.0));
  // 8 GPUs at $2.50/h for 730 h cost $14,600.
  CHECK((usd_per_hour(2.5 * 8) * hours(730)).si() == Approx(14600.0));
  CHECK((usd(10) / hours(4)).si() == Approx(2.5));
  CHECK((watts(700) * hours(1)).si() == Approx(2.52e6));
  CHECK(to_kwh(watts(700) * hours(1)) == Approx(0.7));
  CHECK((gb_per_s(32) * seconds(2)).si() == Approx(64e9));
  CHECK(tflop(2) / gb(1) == Approx(2000.0));
}

TEST_CASE("units: same-dimension arithmetic", "[units]") {
  Bytes total = gib(1) + mib(512);
  CHECK(total.si() == Approx(1.5 * 1073741824.0));
  total -= mib(512);
  CHECK(total == gib(1));
  CHECK(gib(3) / gib(1) == Approx(3.0));
  CHECK(gib(2) * 2.0 == gib(4));
  CHECK(0.5 * gib(2) == gib(1));
  CHECK(gib(1) < gib(2));
  CHECK(max(gib(1), gib(2)) == gib(2));
  CHECK(min(seconds(1), seconds(2)) == seconds(1));
}

TEST_CASE("units: formatting uses binary prefixes for capacity, decimal for rates", "[units]") {
  CHECK(format_bytes(gib(80)) == "80.0 GiB");
  CHECK(format_bytes(gb(13.5)) == "12.6 GiB");
  CHECK(format_bytes(kib(128)) == "128 KiB");
  CHECK(format_bytes(bytes(512)) == "512 B");
  CHECK(format_bytes(tib(1.27)) == "1.27 TiB");
  CHECK(format_bytes_per_s(tb_per_s(3.35)) == "3.35 TB/s");
  CHECK(format_bytes_per_s(gb_per_s(864)) == "864 GB/s");
  CHECK(format_flops_per_s(tflop_per_s(989)) == "989 TFLOP/s");
  CHECK(format_flops_per_s(pflop_per_s(2.25)) == "2.25 PFLOP/s");
  CHECK(format_seconds(milliseconds(12.34)) == "12.3 ms");
  CHECK(format_seconds(seconds(4.5)) == "4.50 s");
  CHECK(format_seconds(hours(30)) == "30.0 h");
  CHECK(format_seconds(days(12)) == "12.0 days");
  CHECK(format_usd(usd(1234.4)) == "$1,234");
  CHECK(format_usd(usd(1234567)) == "$1,234,567");
  CHECK(format_usd(usd(2.5)) == "$2.50");
  CHECK(format_usd(usd(0.0421)) == "$0.0421");
  CHECK(format_usd_per_hour(usd_per_hour(2.49)) == "$2.49/h");
  CHECK(format_watts(watts(700)) == "700 W");
  CHECK(fmt::format("{} at {}", gib(16), tb_per_s(2)) == "16.0 GiB at 2.00 TB/s");
}

// Whether `a / b` compiles: the laws that exist, and those that do not.
template <class A, class B, class = void> struct Divides : std::false_type {};
template <class A, class B>
struct Divides<A, B, std::void_t<decltype(std::declval<A>() / std::declval<B>())>>
    : std::true_type {};

TEST_CASE("units: a price per hour over the items an hour makes is a price per item",
          "[units][pricing]") {
  // $36/h at 1,000 tokens/s: 3.6 million tokens an hour, $10 per million.
  CHECK(items_per_s(1000).si() == 3.6e6);
  CHECK(to_usd_per_million(usd_per_hour(36) / items_per_s(1000)) == Approx(10.0));
  // $7.20/h at 2 images/s: 7,200 images an hour, $1 per thousand.
  CHECK(to_usd_per_thousand(usd_per_hour(7.2) / items_per_s(2)) == Approx(1.0));
  // $3/h transcribing 60 audio seconds per second: 60 audio hours an hour, $0.05 per audio hour.
  CHECK((usd_per_hour(3) / items_per_hour(60)).si() == Approx(0.05));
  CHECK(to_usd_per_million(UsdPerItem(2e-6)) == Approx(2.0));
  CHECK(to_usd_per_thousand(UsdPerItem(0.004)) == Approx(4.0));
}

TEST_CASE("units: the pricing law keeps the arithmetic of per_hour / (rate x 3600)",
          "[units][pricing]") {
  // Reports print 17 significant digits and lock files record them: the law must give the very
  // bits the formula it replaced gave.
  for (const double per_hour : {2.95, 31.46, 98.32, 0.7}) {
    for (const double rate : {1.0, 37.5, 1234.5678, 9876.54321, 0.123}) {
      INFO(per_hour << " $/h at " << rate << "/s");
      CHECK(to_usd_per_million(usd_per_hour(per_hour) / items_per_s(rate)) ==
            per_hour / (rate * 3600.0) * 1e6);
      CHECK(to_usd_per_thousand(usd_per_hour(per_hour) / items_per_s(rate)) ==
            per_hour / (rate * 3600.0) * 1e3);
      CHECK((usd_per_hour(per_hour) / items_per_hour(rate)).si() == per_hour / rate);
    }
  }
}

TEST_CASE("units: prices and rates convert into nothing else", "[units][pricing]") {
  STATIC_REQUIRE(std::is_same_v<decltype(usd_per_hour(1) / items_per_s(1)), UsdPerItem>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<UsdPerItem, Usd>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<UsdPerItem, UsdPerHour>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<ItemsPerHour, double>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<double, ItemsPerHour>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<ItemsPerHour, UsdPerHour>);
  STATIC_REQUIRE(Divides<UsdPerHour, ItemsPerHour>::value);
  // A total is not a price per hour, and a bare number or a byte rate is not a rate of items.
  STATIC_REQUIRE_FALSE(Divides<Usd, ItemsPerHour>::value);
  STATIC_REQUIRE_FALSE(Divides<UsdPerItem, ItemsPerHour>::value);
  STATIC_REQUIRE_FALSE(Divides<UsdPerHour, BytesPerSecond>::value);
  STATIC_REQUIRE_FALSE(Divides<UsdPerHour, Seconds>::value);
  STATIC_REQUIRE_FALSE(Divides<ItemsPerHour, UsdPerHour>::value);
  // Scaling by a plain number keeps the dimension.
  STATIC_REQUIRE(std::is_same_v<decltype(usd_per_hour(1) / 2.0), UsdPerHour>);
}
