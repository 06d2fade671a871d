#pragma once

// Options shared by several subcommands, and where the bundled data lives.

#include <CLI/App.hpp>

#include <string>
#include <vector>

namespace rightsize::cli {

struct CommonOptions {
  std::string catalog; // --catalog FILE (else $RIGHTSIZE_CATALOG, else the bundled catalog)
  std::string data;    // --data DIR (else $RIGHTSIZE_DATA, else bundled_data_dir's search)
  std::string format = "table";
};

// Adds --catalog and --data to `sub`, in the "Global options" group.
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

// Where a run finds its data, in order (docs/cli.md, "Where the data comes from"): the
// directory --data gives, else $RIGHTSIZE_DATA's (either must be a readable directory: an
// InputError naming the flag or variable and the directory otherwise), else
// <prefix>/share/rightsize next to an installed binary (when it holds gpus.json), else the source
// tree's data/ for a binary inside its build tree, else the data compiled into the binary
// (k_compiled_in_data_dir, core/files.hpp).
struct DataDirSearch {
  std::string option;         // --data
  std::string env;            // $RIGHTSIZE_DATA
  std::string executable;     // the running binary's path ("" when unknown)
  std::string build_dir;      // the build tree the binary was built in
  std::string source_dir;     // the source tree's data/
  std::string install_subdir; // share/rightsize, below the installed binary's prefix
};
std::string find_data_dir(const DataDirSearch& search);

// find_data_dir for this process and `options`.
std::string bundled_data_dir(const CommonOptions& options);

// The bundled catalog file, bundled_data_dir(options)/gpus.json.
std::string bundled_catalog_path(const CommonOptions& options);

// Registers the data compiled into the binary with core (set_compiled_in_data): the catalog and
// estimate stages' embedded files.
void register_compiled_in_data();

// Today as YYYY-MM-DD: $RIGHTSIZE_TODAY when set (reproducible reports and tests), else the
// system's UTC date.
std::string today();

// The catalog overlay the user asked for: --catalog, else $RIGHTSIZE_CATALOG, else "".
std::string user_catalog_path(const CommonOptions& options);

} // namespace rightsize::cli
