#pragma once

// The fixtures of tests/data/calibrate (SOURCES.md there: every number illustrative), for the
// tests of the benchmark result readers.

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/core/files.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace rightsize::test {

inline std::string calibrate_fixture(const std::string& name) {
  return std::string(RIGHTSIZE_TESTS_DIR) + "/data/calibrate/" + name;
}

inline std::string calibrate_text(const std::string& name) {
  return read_input_file(calibrate_fixture(name), k_max_json_file_bytes, "test fixture");
}

inline nlohmann::json calibrate_json(const std::string& name) {
  return nlohmann::json::parse(calibrate_text(name));
}

// One run read from JSON built in the test, named `file` in errors.
inline BenchRun one_run(const nlohmann::json& j,
                        const std::string& file = "x.json",
                        std::optional<BenchClient> forced = std::nullopt) {
  const auto runs = parse_bench_results(j.dump(), file, forced);
  REQUIRE(runs.size() == 1);
  return runs[0];
}

inline double per_s(ItemsPerHour r) {
  return r.si() / units::k_seconds_per_hour;
}

inline double per_s(const std::optional<ItemsPerHour>& r) {
  REQUIRE(r.has_value());
  return per_s(*r);
}

// A statistic in milliseconds; it must be there.
inline double ms(const std::optional<Seconds>& s) {
  REQUIRE(s.has_value());
  return to_ms(*s);
}

} // namespace rightsize::test
