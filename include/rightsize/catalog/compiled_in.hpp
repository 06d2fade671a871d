#pragma once

// The data files the catalog stage compiled into the binary, for a run without a data directory
// (core/compiled_in.hpp; docs/cli.md, "Where the data comes from").

#include <string_view>

namespace rightsize {

// The text of a data file the catalog stage compiled in, by its name below the data directory:
// "gpus.json", "engines.json", "deploy.json", "instances.json" or "published/published.json" (the
// published results tables are read through their index's embedded value); empty for any other
// name, or a file the build could not load.
std::string_view compiled_in_catalog_data(std::string_view name);

} // namespace rightsize
