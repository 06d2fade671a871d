#include "cli/common_options.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace rightsize::cli {

namespace fs = std::filesystem;

void add_catalog_option(CLI::App& sub, CommonOptions& options) {
  sub.add_option("--catalog",
                 options.catalog,
                 "GPU catalog file: overrides or extends the bundled catalog "
                 "(default: $RIGHTSIZE_CATALOG)")
      ->type_name("FILE")
      ->group("Global options");
}

void add_format_option(CLI::App& sub,
                       CommonOptions& options,
                       const std::vector<std::string>& choices) {
  options.format = choices.front();
  // A transform, not a check: "JSON" becomes "json", the name a command's renderer table has.
  sub.add_option("--format", options.format, "Output format")
      ->transform(CLI::IsMember(choices, CLI::ignore_case))
      ->default_str(choices.front())
      ->group("Global options");
}

std::string bundled_data_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / RIGHTSIZE_INSTALL_DATA_SUBDIR;
    if (fs::exists(installed / "gpus.json", ec)) {
      return installed.string();
    }
  }
  return RIGHTSIZE_SOURCE_DATA_DIR;
}

std::string bundled_catalog_path() {
  return bundled_data_dir() + "/gpus.json";
}

std::string today() {
  if (const char* fixed = std::getenv("RIGHTSIZE_TODAY"); fixed != nullptr && *fixed != '\0') {
    if (!parse_date(fixed)) {
      throw InputError("RIGHTSIZE_TODAY",
                       fmt::format("must be a date YYYY-MM-DD, got \"{}\"", fixed));
    }
    return fixed;
  }
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 16> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%d", &utc);
  return buffer.data();
}

std::string user_catalog_path(const CommonOptions& options) {
  if (!options.catalog.empty()) {
    return options.catalog;
  }
  const char* env = std::getenv("RIGHTSIZE_CATALOG");
  return env != nullptr ? std::string(env) : std::string();
}

} // namespace rightsize::cli
