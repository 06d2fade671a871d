#include "cli/common_options.hpp"

#include "cli/commands.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/compiled_in.hpp>
#include <rightsize/core/compiled_in.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/compiled_in.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace rightsize::cli {

namespace fs = std::filesystem;

void add_catalog_option(CLI::App& sub, CommonOptions& options) {
  sub.add_option("--catalog",
                 options.catalog,
                 "GPU catalog file: overrides or extends the bundled catalog "
                 "(default: $RIGHTSIZE_CATALOG)")
      ->type_name("FILE")
      ->group("Global options");
  sub.add_option("--data",
                 options.data,
                 "Data directory (gpus.json, engines.json, memory.json, deploy.json ...) "
                 "(default: $RIGHTSIZE_DATA, else the installed data, else the data compiled in)")
      ->type_name("DIR")
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

namespace {

// "must be a finite number between 1 and 744"
std::string expectation(const char* what, const std::string& min, const std::string& max) {
  return fmt::format("must be a {} between {} and {}", what, min, max);
}

// `text` as a double, the whole of it; nullopt when it is no number at all.
std::optional<double> read_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) {
    return std::nullopt;
  }
  // Overflow reads as infinity, refused below with the rest.
  return errno == ERANGE && std::fabs(v) < 1.0 ? 0.0 : v;
}

// Help text as CLI::Range writes it: "FLOAT in [1 - 744]".
template <class T> std::string range_description(const char* type, T min, T max) {
  std::ostringstream out;
  out << type << " in [" << min << " - " << max << "]";
  return out.str();
}

} // namespace

CLI::Validator number_in(double min, double max) {
  return {[min, max](std::string& text) -> std::string {
            const std::optional<double> v = read_number(text);
            if (!v || !std::isfinite(*v) || *v < min || *v > max) {
              return expectation(
                         "finite number", fmt::format("{:g}", min), fmt::format("{:g}", max)) +
                     ", got " + text;
            }
            return {};
          },
          range_description("FLOAT", min, max),
          k_number_validator};
}

CLI::Validator whole_number_in(long long min, long long max) {
  return {[min, max](std::string& text) -> std::string {
            const std::optional<double> v = read_number(text);
            if (!v || !std::isfinite(*v) || *v != std::floor(*v) || *v < static_cast<double>(min) ||
                *v > static_cast<double>(max)) {
              return expectation("whole number", std::to_string(min), std::to_string(max)) +
                     ", got " + text;
            }
            text = fmt::format("{}", static_cast<long long>(*v)); // "1e3" -> "1000"
            return {};
          },
          range_description("INT", min, max),
          k_number_validator};
}

namespace {

// `dir`, given by `where` (--data or RIGHTSIZE_DATA), when it is a readable directory.
std::string given_data_dir(const std::string& dir, const std::string& where) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  std::string problem;
  if (!fs::exists(status)) {
    problem = "no such directory";
  } else if (!fs::is_directory(status)) {
    problem = "not a directory";
  } else if (::access(dir.c_str(), R_OK | X_OK) != 0) {
    problem = "permission denied";
  }
  if (!problem.empty()) {
    throw InputError(where, fmt::format("data directory \"{}\": {}", dir, problem));
  }
  return dir;
}

// Whether `path` lies inside the directory `dir` (both absolute, as written).
bool is_inside(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_relative(dir);
  return !dir.empty() && !rel.empty() && *rel.begin() != "..";
}

std::string_view compiled_in_data(std::string_view name) {
  const std::string_view catalog = compiled_in_catalog_data(name);
  return catalog.empty() ? compiled_in_estimate_data(name) : catalog;
}

} // namespace

std::string find_data_dir(const DataDirSearch& search) {
  if (!search.option.empty()) {
    return given_data_dir(search.option, "--data");
  }
  if (!search.env.empty()) {
    return given_data_dir(search.env, "RIGHTSIZE_DATA");
  }
  std::error_code ec;
  if (!search.executable.empty()) {
    const fs::path exe(search.executable);
    const fs::path installed = exe.parent_path().parent_path() / search.install_subdir;
    if (fs::exists(installed / "gpus.json", ec)) {
      return installed.string();
    }
    // A copy of the binary elsewhere, its source tree there or not, takes what it carries.
    if (is_inside(exe, search.build_dir) && fs::exists(fs::path(search.source_dir), ec)) {
      return search.source_dir;
    }
  }
  return std::string(k_compiled_in_data_dir);
}

std::string bundled_data_dir(const CommonOptions& options) {
  DataDirSearch search;
  search.option = options.data;
  if (const char* env = std::getenv("RIGHTSIZE_DATA"); env != nullptr) {
    search.env = env;
  }
  std::error_code ec;
  search.executable = fs::read_symlink("/proc/self/exe", ec).string();
  search.build_dir = RIGHTSIZE_BUILD_DIR;
  search.source_dir = RIGHTSIZE_SOURCE_DATA_DIR;
  search.install_subdir = RIGHTSIZE_INSTALL_DATA_SUBDIR;
  return find_data_dir(search);
}

std::string bundled_catalog_path(const CommonOptions& options) {
  return bundled_data_dir(options) + "/gpus.json";
}

void register_compiled_in_data() {
  set_compiled_in_data(&compiled_in_data);
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

Constants load_constants(const CommonOptions& common, const std::vector<std::string>& assume) {
  Constants c = Constants::load(bundled_data_dir(common) + "/memory.json");
  c.assume(assume);
  return c;
}

} // namespace rightsize::cli
