// JsonWriter writes what dump_json writes for the same tree: every report rendered through it
// must stay byte-identical to the nlohmann dump it replaced.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/json_writer.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using rightsize::detail::dump_json;
using rightsize::detail::JsonWriter;

namespace {

std::string written(const nlohmann::json& j, int indent) {
  std::string out;
  JsonWriter(out, indent).value(j);
  return out;
}

void require_same_as_dump(const nlohmann::json& j) {
  for (const int indent : {-1, 0, 2, 4}) {
    CAPTURE(indent);
    REQUIRE(written(j, indent) == dump_json(j, indent));
  }
}

} // namespace

TEST_CASE("json_writer: nesting and empty containers as dump writes them", "[core][json_writer]") {
  require_same_as_dump(nlohmann::json::object());
  require_same_as_dump(nlohmann::json::array());
  require_same_as_dump(nullptr);
  require_same_as_dump(nlohmann::json::parse(
      R"({"a": {}, "b": [], "c": [[], {}, [1, [2, {"x": null}]]], "d": {"e": {"f": [true, false]}}})"));
  std::string out;
  JsonWriter w(out);
  w.begin_object().member("a", 1).key("b").begin_array().value("x").end_array().end_object();
  REQUIRE(out == "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ]\n}");
}

TEST_CASE("json_writer: an empty view, whose data may be null, is an empty string",
          "[core][json_writer]") {
  // A plan writes std::string_view() for a missing bottleneck: the scan and the key's copy must
  // not hand its null data to memcpy (undefined behaviour the sanitizer build aborts on).
  std::string out;
  JsonWriter w(out, -1);
  w.begin_object().key(std::string_view()).value(std::string_view()).end_object();
  CHECK(out == R"({"":""})");
}

TEST_CASE("json_writer: strings escaped as dump escapes them", "[core][json_writer]") {
  const std::vector<std::string> strings{"",
                                         "plain text",
                                         "quote \" and backslash \\",
                                         "controls \b\f\n\r\t and \x01\x1f\x7f",
                                         std::string("nul \0 inside", 12),
                                         "UTF-8: \xe2\x89\xa4 \xc3\x97 \xf0\x9f\x9a\x80",
                                         "invalid UTF-8: \xff, \xc3 alone, \xe2\x89 cut",
                                         "/ is not escaped"};
  for (const auto& s : strings) {
    CAPTURE(s);
    require_same_as_dump(s);
    require_same_as_dump(nlohmann::json{{s, s}});
  }
}

TEST_CASE("json_writer: each byte that needs escaping is found wherever it is in a string",
          "[core][json_writer]") {
  // The scan reads sixteen or eight bytes at a time, the last ones overlapping, and pads a short
  // string: every such byte at every offset of strings up to three blocks of sixteen long, and
  // the bytes just beside the ranges that need escaping (0x1f/0x20, 0x7f/0x80, and the
  // neighbours of '"' and '\\'), which must not be taken for them.
  const std::string bytes{'\x00',
                          '\x01',
                          '\x1f',
                          '\x20',
                          '!',
                          '"',
                          '#',
                          '[',
                          '\\',
                          ']',
                          '\x7f',
                          '\x80',
                          '\xc3',
                          '\xff',
                          'a'};
  for (const char b : bytes) {
    for (std::size_t length = 1; length <= 48; ++length) {
      for (std::size_t at = 0; at < length; ++at) {
        std::string s(length, 'x');
        s[at] = b;
        CAPTURE(static_cast<int>(static_cast<unsigned char>(b)), length, at);
        require_same_as_dump(s);
      }
    }
  }
}

TEST_CASE("json_writer: keys escaped, long and nested as dump writes them", "[core][json_writer]") {
  nlohmann::json deep = 1;
  for (int i = 0; i < 60; ++i) {
    deep = nlohmann::json{{"level " + std::to_string(i), deep}}; // indentation past 256 bytes
  }
  require_same_as_dump(deep);
  require_same_as_dump(nlohmann::json{
      {std::string(300, 'k'), 1}, {"a \"quoted\" key", 2}, {"\xe2\x89\xa4 unicode", 3}, {"", 4}});
}

TEST_CASE("json_writer: numbers formatted as dump formats them", "[core][json_writer]") {
  const std::vector<double> doubles{0.0,
                                    -0.0,
                                    1.0,
                                    -1.5,
                                    0.1,
                                    0.30000000000000004,
                                    1e-7,
                                    123456789012345680.0,
                                    1e21,
                                    1e300,
                                    5e-324,
                                    std::numeric_limits<double>::max(),
                                    std::numeric_limits<double>::lowest(),
                                    869224.4736000004,
                                    43242532044.8};
  for (const double x : doubles) {
    CAPTURE(x);
    require_same_as_dump(x);
  }
  // nlohmann writes non-finite numbers as null.
  for (const double x : {std::nan(""),
                         std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity()}) {
    REQUIRE(written(nlohmann::json(x), 2) == "null");
    REQUIRE(dump_json(nlohmann::json(x), 2) == "null");
  }
  require_same_as_dump(std::numeric_limits<std::int64_t>::min());
  require_same_as_dump(std::numeric_limits<std::int64_t>::max());
  require_same_as_dump(std::numeric_limits<std::uint64_t>::max());
  require_same_as_dump(0);
  require_same_as_dump(-42);

  std::mt19937_64 random(17);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = random();
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    if (!std::isfinite(x)) {
      continue;
    }
    CAPTURE(bits);
    REQUIRE(written(x, -1) == dump_json(x));
    const double scaled = static_cast<double>(bits % 1000000007) / 1000.0;
    REQUIRE(written(scaled, -1) == dump_json(scaled));
  }
}

// value(double) writes a whole number below 10^15 from its integer instead of through nlohmann's
// grisu2: the same bytes, checked on the edges and on 200,000 random ones (48.5 million were
// compared once, none differed).
TEST_CASE("json_writer: whole numbers below 10^15 as dump formats them", "[core][json_writer]") {
  std::vector<double> edges{0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            9.0,
                            10.0,
                            99.0,
                            100.0,
                            1e14,
                            999999999999999.0,
                            -999999999999999.0,
                            1e15,
                            -1e15,
                            1e15 + 2,
                            48305799168.0};
  for (int k = 0; k < 50; ++k) {
    for (const double d : {-1.0, 0.0, 1.0}) {
      edges.push_back(std::ldexp(1.0, k) + d);
    }
  }
  for (int j = 0; j <= 15; ++j) {
    const double p = std::pow(10.0, j);
    for (const double x : {p - 1, p, p + 1, -p, std::nextafter(p, 0.0)}) {
      edges.push_back(x);
    }
  }
  for (const double x : edges) {
    CAPTURE(x);
    REQUIRE(written(x, -1) == dump_json(x));
  }
  std::mt19937_64 random(29);
  for (int i = 0; i < 100000; ++i) {
    const auto whole = static_cast<double>(random() % 1000000000000000ULL);
    const double round = static_cast<double>(random() % 100000000) *
                         std::pow(10.0, static_cast<double>(random() % 8));
    CAPTURE(whole, round);
    REQUIRE(written(whole, -1) == dump_json(whole));
    REQUIRE(written(-whole, -1) == dump_json(-whole));
    REQUIRE(written(round, -1) == dump_json(round));
  }
}

TEST_CASE("json_writer: value overloads pick nlohmann's types", "[core][json_writer]") {
  std::string out;
  JsonWriter w(out, -1);
  w.begin_object()
      .member("bool", true)
      .member("double", 2.0)
      .member("int", 2)
      .member("list", std::vector<std::string>{"a", "b"})
      .member("none", std::optional<double>{})
      .member("some", std::optional<double>{0.5})
      .member("unsigned", std::size_t{3})
      .end_object();
  REQUIRE(out == dump_json(nlohmann::json{{"bool", true},
                                          {"double", 2.0},
                                          {"int", 2},
                                          {"list", {"a", "b"}},
                                          {"none", nullptr},
                                          {"some", 0.5},
                                          {"unsigned", std::size_t{3}}}));
}
