#pragma once

// Options shared by several subcommands, and where the bundled data lives.

#include <CLI/App.hpp>

#include <string>
#include <vector>

namespace rightsize::cli {

struct CommonOptions {
  std::string catalog; // --catalog FILE (else $RIGHTSIZE_CATALOG, else the bundled catalog)
  std::string format = "table";
};

// Adds --catalog to `sub`, in the "Global options" group.
void add_catalog_option(CLI::App& sub, CommonOptions& options);
// Adds --format with the given choices (the first is the default).
void add_format_option(CLI::App& sub,
                       CommonOptions& options,
                       const std::vector<std::string>& choices);

// The directory holding the bundled data: <prefix>/share/rightsize next to an installed binary,
// or the source tree's data/ for a binary run from its build tree.
std::string bundled_data_dir();

// The bundled catalog file, bundled_data_dir()/gpus.json.
std::string bundled_catalog_path();

// Today as YYYY-MM-DD: $RIGHTSIZE_TODAY when set (reproducible reports and tests), else the
// system's UTC date.
std::string today();

// The catalog overlay the user asked for: --catalog, else $RIGHTSIZE_CATALOG, else "".
std::string user_catalog_path(const CommonOptions& options);

} // namespace rightsize::cli
