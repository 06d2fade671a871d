// MIG profile names ("3g.40gb") are read as sscanf(name, "%dg.%lfgb") read them, without sscanf
// (issue 17: a plan of slices parses every profile of a GPU for each of its slices).

#include "plan/search.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

using rightsize::detail::parse_mig_profile;

TEST_CASE("mig profile: the same reading as sscanf's %dg.%lfgb", "[plan][mig]") {
  const std::vector<std::string> names = {// the catalog's forms
                                          "1g.5gb",
                                          "1g.10gb",
                                          "2g.20gb",
                                          "3g.40gb",
                                          "4g.71gb",
                                          "7g.80gb",
                                          "7g.141gb",
                                          "1g.12gb+me",
                                          "1g.18gb",
                                          "3g.135gb",
                                          "7g.269gb",
                                          // what people and tools type
                                          "1g.5",
                                          "1g.5GB",
                                          "1G.5gb",
                                          " 1g.5gb",
                                          "1 g.5gb",
                                          "1g. 5gb",
                                          "1g .5gb",
                                          "+1g.5gb",
                                          "-1g.5gb",
                                          "1g.-5gb",
                                          "1g.+5gb",
                                          "01g.05gb",
                                          "1g.5.5gb",
                                          "1g.2.5gb",
                                          "1g.1e1gb",
                                          "1g.0x10gb",
                                          "1g.inf",
                                          "1g.nangb",
                                          "1g.",
                                          "1g",
                                          "g.5gb",
                                          ".5gb",
                                          "",
                                          "gb",
                                          "1x.5gb",
                                          "1g,5gb",
                                          "12345678901g.5gb",
                                          "2147483647g.1gb",
                                          "1g.1e400gb",
                                          "1g.1e-400gb",
                                          "7g.80gb trailing"};
  for (const auto& name : names) {
    int compute = 0;
    double gb = 0;
    const bool read = std::sscanf(name.c_str(), "%dg.%lfgb", &compute, &gb) == 2;
    const auto parsed = parse_mig_profile(name);
    INFO('"' << name << '"');
    REQUIRE(parsed.has_value() == read);
    if (read) {
      CHECK(parsed->compute == compute);
      // the same double, NaN included
      CHECK((parsed->gb == gb || (parsed->gb != parsed->gb && gb != gb)));
    }
  }
}
