#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/names.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::detail::FieldReader;

namespace {

enum class Mode { cloud, onprem, hybrid };
constexpr NameRow<Mode> k_mode_rows[] = {
    {Mode::cloud, "cloud"}, {Mode::onprem, "onprem"}, {Mode::onprem, "on-prem"}};
constexpr NameTable<Mode> k_mode_names{k_mode_rows};

} // namespace

TEST_CASE("names: a value prints as its first row, parses from any", "[names]") {
  STATIC_REQUIRE(k_mode_names.name(Mode::onprem) == "onprem");
  STATIC_REQUIRE(k_mode_names.find("on-prem") == Mode::onprem);
  CHECK(k_mode_names.name(Mode::cloud) == "cloud");
  CHECK(k_mode_names.find("ONPREM") == Mode::onprem);
  CHECK(k_mode_names.find("On-Prem") == Mode::onprem);
  CHECK_FALSE(k_mode_names.find("onprem ").has_value());
  CHECK_FALSE(k_mode_names.find("").has_value());
  // A value the table forgot falls back to the first row, as the switches it replaces did.
  CHECK(k_mode_names.name(Mode::hybrid) == "cloud");
  CHECK(k_mode_names.size() == 3);
}

TEST_CASE("names: every name, the primary names and the values, in order", "[names]") {
  CHECK(k_mode_names.names() == std::vector<std::string>{"cloud", "onprem", "on-prem"});
  CHECK(k_mode_names.primary_names() == std::vector<std::string>{"cloud", "onprem"});
  CHECK(k_mode_names.values() == std::vector<Mode>{Mode::cloud, Mode::onprem});
  for (const Mode m : k_mode_names.values()) {
    CHECK(k_mode_names.find(k_mode_names.name(m)) == m);
  }
}

TEST_CASE("names: FieldReader::choice reads through a table", "[names][json]") {
  const auto json = nlohmann::json::parse(R"({"a": "On-Prem", "b": "onprim", "c": 3})");
  const FieldReader r(json, "s.json");
  CHECK(r.choice("a", k_mode_names) == Mode::onprem);
  CHECK_THROWS_WITH(r.choice("b", k_mode_names),
                    "s.json:/b: must be one of cloud, onprem, on-prem (did you mean \"onprem\"?), "
                    "got \"onprim\"");
  // The same text as a choice from a list of pairs.
  std::string from_list;
  try {
    (void)r.choice<Mode>(
        "b", {{"cloud", Mode::cloud}, {"onprem", Mode::onprem}, {"on-prem", Mode::onprem}});
  } catch (const InputError& e) {
    from_list = e.what();
  }
  CHECK_THROWS_WITH(r.choice("b", k_mode_names), from_list);
  CHECK_THROWS_AS(r.choice("c", k_mode_names), InputError);
}
