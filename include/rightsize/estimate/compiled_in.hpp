#pragma once

// The data files the estimate stage compiled into the binary, for a run without a data directory
// (core/compiled_in.hpp; docs/cli.md, "Where the data comes from").

#include <string_view>

namespace rightsize {

// The text of a data file the estimate stage compiled in, by its name below the data directory:
// "memory.json", "efficiency.json" or "uncertainty.json"; empty for any other name or a file the
// build could not load.
std::string_view compiled_in_estimate_data(std::string_view name);

} // namespace rightsize
