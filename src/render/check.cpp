#include <rightsize/core/json_reader.hpp>
#include <rightsize/render/check.hpp>

#include <fmt/format.h>

namespace rightsize {

namespace {

std::string relative_text(const Change& c) {
  return c.relative ? fmt::format("{:+.1f}%", 100.0 * *c.relative) : "";
}

std::string verdict_line(const std::vector<CheckResult>& results) {
  int regressions = 0;
  int infeasible = 0;
  int warnings = 0;
  for (const auto& r : results) {
    regressions += r.status == "regression" ? 1 : 0;
    infeasible += r.status == "infeasible" ? 1 : 0;
    warnings += r.status == "warning" ? 1 : 0;
  }
  if (infeasible > 0) {
    return fmt::format("{} of {} spec{} no longer feasible",
                       infeasible,
                       results.size(),
                       results.size() == 1 ? " is" : "s are");
  }
  if (regressions > 0) {
    return fmt::format("sizing regression in {} of {} spec{}",
                       regressions,
                       results.size(),
                       results.size() == 1 ? "" : "s");
  }
  if (warnings > 0) {
    return fmt::format("within thresholds; {} spec{} changed", warnings, warnings == 1 ? "" : "s");
  }
  return fmt::format(
      "no sizing change in {} spec{}", results.size(), results.size() == 1 ? "" : "s");
}

} // namespace

void render_check_table(const std::vector<CheckResult>& results, std::ostream& out) {
  out << verdict_line(results) << '\n';
  for (const auto& r : results) {
    out << fmt::format("\n{}: {} ({}; lock {})\n", r.spec_file, r.status, r.cause, r.lock_file);
    for (const auto& c : r.crossed) {
      out << "  FAIL " << c << '\n';
    }
    for (const auto& w : r.warnings) {
      out << "  warning: " << w << '\n';
    }
    if (!r.changes.empty()) {
      out << fmt::format("  {:<16} {:>26} {:>26} {:>9}\n", "figure", "locked", "now", "change");
      for (const auto& c : r.changes) {
        out << fmt::format(
            "  {:<16} {:>26} {:>26} {:>9}\n", c.figure, c.before, c.after, relative_text(c));
      }
    }
  }
}

void render_check_json(const std::vector<CheckResult>& results, int exit_code, std::ostream& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& c : r.changes) {
      changes.push_back(
          {{"figure", c.figure},
           {"before", c.before},
           {"after", c.after},
           {"relative", c.relative ? nlohmann::json(*c.relative) : nlohmann::json(nullptr)}});
    }
    list.push_back({{"spec", r.spec_file},
                    {"lock", r.lock_file},
                    {"status", r.status},
                    {"cause", r.cause},
                    {"crossed", r.crossed},
                    {"warnings", r.warnings},
                    {"changes", changes},
                    {"exit_code", r.exit_code}});
  }
  const nlohmann::json report{{"schema_version", 1},
                              {"verdict", verdict_line(results)},
                              {"exit_code", exit_code},
                              {"results", list}};
  out << detail::dump_json(report, 2) << '\n';
}

void render_check_markdown(const std::vector<CheckResult>& results, std::ostream& out) {
  bool failed = false;
  for (const auto& r : results) {
    failed = failed || r.status == "regression" || r.status == "infeasible";
  }
  out << "### " << (failed ? "rightsize: :x: " : "rightsize: :white_check_mark: ")
      << verdict_line(results) << "\n\n";
  for (const auto& r : results) {
    out << fmt::format("**{}**: {} ({})\n\n", r.spec_file, r.status, r.cause);
    for (const auto& c : r.crossed) {
      out << "- :x: " << c << '\n';
    }
    for (const auto& w : r.warnings) {
      out << "- :warning: " << w << '\n';
    }
    if (!r.crossed.empty() || !r.warnings.empty()) {
      out << '\n';
    }
    if (!r.changes.empty()) {
      out << "| Figure | Locked | Now | Change |\n|---|---|---|---|\n";
      for (const auto& c : r.changes) {
        out << fmt::format(
            "| {} | {} | {} | {} |\n", c.figure, c.before, c.after, relative_text(c));
      }
      out << '\n';
    }
  }
  out << "<sub>Update the lock after an intended change: `rightsize check --update "
         "SPEC...`</sub>\n";
}

} // namespace rightsize
