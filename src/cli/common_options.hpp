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

// The one check of every number option, shared so that no flag is forgotten: a finite number
// within [min, max] (whole_number_in: a whole one, "1e3" read as 1000). CLI11's Range lets NaN
// through, every comparison with NaN being false, so `--growth nan` was accepted. A bad value is
// refused with the flag's name: "--growth: must be a finite number between -0.5 and 10, got nan".
// tests/cli/test_number_flags.cpp checks that every number option of every command has one.
CLI::Validator number_in(double min, double max);
CLI::Validator whole_number_in(long long min, long long max);
// The name both validators carry, by which that test finds them.
inline constexpr const char* k_number_validator = "NUMBER";

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
