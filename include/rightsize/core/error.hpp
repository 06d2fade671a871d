#pragma once

// Error categories (see docs/architecture.md):
//  1. InputError: a bad spec, catalog, lock file or argument. Thrown, carries where it happened as
//     "file:/json/pointer"; the CLI prints it on one line and exits with ExitCode::input.
//  2. An infeasible GPU is not an error: it is a Rejection value inside a report.
//  3. A bug is an InternalError (ExitCode::internal).

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// The process exit codes, documented in docs/cli.md.
enum class ExitCode : int {
  ok = 0,         // success
  regression = 1, // `check` found a regression beyond its thresholds
  input = 2,      // usage or input error (bad flags, bad spec, bad catalog, unreadable file)
  infeasible = 3, // no GPU configuration satisfies the spec
  internal = 4,   // a bug in rightsize
};

constexpr int to_int(ExitCode code) {
  return static_cast<int>(code);
}

// A problem with something the user gave us. what() is the full one-line message
// "<where>: <detail>"; where is "file:/json/pointer" or "file" or "--flag".
class InputError : public std::runtime_error {
public:
  InputError(std::string where, std::string detail);

  [[nodiscard]] const std::string& where() const { return m_where; }
  [[nodiscard]] const std::string& detail() const { return m_detail; }

private:
  std::string m_where;
  std::string m_detail;
};

// A violated invariant inside rightsize.
class InternalError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

// Several input problems reported at once (catalog validation). what() joins them with newlines.
class InputErrors : public std::runtime_error {
public:
  explicit InputErrors(std::vector<InputError> errors);
  [[nodiscard]] const std::vector<InputError>& errors() const { return m_errors; }

private:
  std::vector<InputError> m_errors;
};

// Damerau-free Levenshtein distance, case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates closest to `given` (distance at most max(2, |given|/3)), best first, at most 3.
std::vector<std::string> closest_matches(std::string_view given,
                                         const std::vector<std::string>& candidates);

// " (did you mean "x"?)" or " (did you mean "x" or "y"?)", or "" when nothing is close.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

// A JSON value shown inside an error message: compact, at most 60 characters.
std::string quote_value_for_error(std::string_view json_dump);

} // namespace rightsize
