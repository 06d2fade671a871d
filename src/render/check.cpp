// rightsize check's report: a summary first (the verdict, the specs by outcome, the monthly bill
// now), then each spec. Table for a terminal, JSON (data/check-report.schema.json) for programs,
// Markdown for a pull-request comment. docs/ci.md.

#include "check_text.hpp"

#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/check.hpp>

#include <fmt/format.h>

#include <map>

namespace rightsize {

namespace {

const std::vector<std::string>& status_order() {
  static const std::vector<std::string> order{
      "error", "infeasible", "regression", "warning", "updated", "added", "removed", "ok"};
  return order;
}

std::map<std::string, int> by_status(const std::vector<CheckResult>& results) {
  std::map<std::string, int> n;
  for (const auto& r : results) {
    ++n[r.status];
  }
  return n;
}

// The monthly cost of what each spec deploys now (its compared configuration), summed; and
// what the locks recorded. nullopt when no spec has one.
struct Bill {
  std::optional<double> now;        // every spec deployed now
  std::optional<double> now_locked; // the specs the locks hold, now
  std::optional<double> locked;     // the same, as locked
  std::optional<double> added;      // specs without a lock entry yet
};

Bill bill(const std::vector<CheckResult>& results) {
  Bill b;
  const auto add = [](std::optional<double>& sum, double v) { sum = sum.value_or(0) + v; };
  for (const auto& r : results) {
    const bool deployed = r.status != "removed" && r.compared && r.compared->usd_per_month;
    if (deployed) {
      add(b.now, *r.compared->usd_per_month);
    }
    if (r.locked && r.locked->usd_per_month && r.status != "removed") {
      add(b.locked, *r.locked->usd_per_month);
      if (deployed) {
        add(b.now_locked, *r.compared->usd_per_month);
      }
    }
    if (r.status == "added" && deployed) {
      add(b.added, *r.compared->usd_per_month);
    }
  }
  return b;
}

std::string money(double usd_amount) {
  return format_usd(usd(usd_amount));
}

std::string plural(int n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

} // namespace

std::string verdict_line(const std::vector<CheckResult>& results, int exit_code) {
  const auto n = by_status(results);
  const auto count = [&](const char* s) {
    const auto it = n.find(s);
    return it == n.end() ? 0 : it->second;
  };
  std::vector<std::string> parts;
  for (const auto& s : status_order()) {
    if (count(s.c_str()) > 0 && s != "ok") {
      parts.push_back(fmt::format("{} {}", count(s.c_str()), s));
    }
  }
  std::string line = exit_code == 0 ? "pass" : "FAIL";
  line += fmt::format(": {}", plural(static_cast<int>(results.size()), "spec"));
  if (parts.empty()) {
    line += ", no sizing change";
  } else {
    line += ": ";
    for (std::size_t i = 0; i < parts.size(); ++i) {
      line += (i == 0 ? "" : ", ") + parts[i];
    }
  }
  const Bill b = bill(results);
  if (b.now) {
    line += fmt::format("; {}/month", money(*b.now));
    std::vector<std::string> notes;
    if (b.locked && b.now_locked && std::abs(*b.now_locked - *b.locked) >= 0.5) {
      notes.push_back(fmt::format("{}{} on locked specs",
                                  *b.now_locked >= *b.locked ? "+" : "-",
                                  money(std::abs(*b.now_locked - *b.locked))));
    }
    if (b.added) {
      notes.push_back(fmt::format("{} for new specs", money(*b.added)));
    }
    if (!notes.empty()) {
      line += " (" + notes.front() + (notes.size() > 1 ? ", " + notes[1] : "") + ")";
    }
  }
  return line;
}

std::string percent_text(const Change& c) {
  const auto rel = c.relative();
  return rel ? fmt::format("{:+.1f}%", 100.0 * *rel) : "";
}

std::string headline(const CheckResult& r) {
  if (!r.error.empty()) {
    return r.error;
  }
  for (const auto& c : r.changes) {
    if (c.crossed) {
      return fmt::format(
          "{} {} (> {:.0f}%)", c.label, percent_text(c), 100.0 * c.threshold.value_or(0));
    }
  }
  if (!r.crossed.empty()) {
    return r.crossed.front().text;
  }
  if (!r.locked_problem.empty()) {
    return "locked configuration " + r.locked_problem;
  }
  const Change* largest = nullptr;
  for (const auto& c : r.changes) {
    if (c.relative() &&
        (largest == nullptr || std::abs(*c.relative()) > std::abs(*largest->relative()))) {
      largest = &c;
    }
  }
  if (largest != nullptr) {
    return fmt::format("{} {}", largest->label, percent_text(*largest));
  }
  if (r.recommendation_changed) {
    return "a different configuration is now best";
  }
  return r.status == "added" ? "new spec" : "";
}

std::string config_short(const std::optional<LockedConfiguration>& c) {
  if (!c) {
    return "-";
  }
  return fmt::format("{} x {}", c->gpus, c->gpu);
}

std::string monthly_text(const CheckResult& r) {
  const auto& c = r.status == "removed" ? r.locked : r.compared;
  return c && c->usd_per_month ? money(*c->usd_per_month) : "-";
}

std::string basis_text(const CheckResult& r) {
  if (r.basis == "locked configuration") {
    return "the locked configuration re-evaluated: same configuration, new figures";
  }
  if (r.basis == "new recommendation" && r.locked) {
    return "the new recommendation against the lock: a different configuration";
  }
  return "";
}

namespace {

nlohmann::json change_json(const Change& c) {
  const auto rel = c.relative();
  return {{"metric", c.metric},
          {"label", c.label},
          {"unit", c.unit},
          {"before", c.before},
          {"after", c.after},
          {"delta", c.delta()},
          {"percent", rel ? nlohmann::json(100.0 * *rel) : nlohmann::json(nullptr)},
          {"threshold_percent",
           c.threshold ? nlohmann::json(100.0 * *c.threshold) : nlohmann::json(nullptr)},
          {"crossed", c.crossed},
          {"before_text", c.before_text},
          {"after_text", c.after_text}};
}

nlohmann::json optional_config(const std::optional<LockedConfiguration>& c) {
  return c ? configuration_to_json(*c) : nlohmann::json(nullptr);
}

} // namespace

void render_check_table(const std::vector<CheckResult>& results, int exit_code, std::ostream& out) {
  out << "rightsize check: " << verdict_line(results, exit_code) << "\n\n";
  std::size_t width = 4;
  for (const auto& r : results) {
    width = std::max(width, r.spec_file.size());
  }
  out << fmt::format("{:<{}}  {:<10}  {:<28}  {:>10}  {}\n",
                     "SPEC",
                     width,
                     "STATUS",
                     "CONFIGURATION",
                     "$/MONTH",
                     "CHANGE");
  for (const auto& r : results) {
    out << fmt::format("{:<{}}  {:<10}  {:<28}  {:>10}  {}\n",
                       r.spec_file,
                       width,
                       r.status,
                       config_short(r.status == "removed" ? r.locked : r.compared),
                       monthly_text(r),
                       headline(r));
  }
  for (const auto& r : results) {
    if (r.status == "ok" && r.changes.empty()) {
      continue;
    }
    out << fmt::format("\n{}: {}", r.spec_file, r.status);
    if (r.status != "added" && r.status != "error" && r.status != "removed") {
      out << fmt::format(" ({}; lock {})", r.cause.text(), r.lock_file);
    }
    out << '\n';
    if (const auto b = basis_text(r); !b.empty() && !r.changes.empty()) {
      out << "  compared: " << b << '\n';
    }
    if (r.locked && r.now && r.recommendation_changed) {
      out << fmt::format("  locked: {}\n  now best: {}\n",
                         configuration_text(*r.locked),
                         configuration_text(*r.now));
    } else if (r.status == "added" && r.now) {
      out << (r.written ? "  locked: " : "  would lock: ") << configuration_text(*r.now) << '\n';
    }
    for (const auto& c : r.crossed) {
      out << "  FAIL " << c.text << '\n';
    }
    for (const auto& w : r.warnings) {
      out << "  warning: " << w << '\n';
    }
    if (!r.error.empty()) {
      out << "  error: " << r.error << '\n';
    }
    if (!r.changes.empty()) {
      out << fmt::format(
          "  {:<16} {:>16} {:>16} {:>9} {:>9}\n", "figure", "locked", "now", "change", "limit");
      for (const auto& c : r.changes) {
        out << fmt::format("  {:<16} {:>16} {:>16} {:>9} {:>9}{}\n",
                           c.label,
                           c.before_text,
                           c.after_text,
                           percent_text(c),
                           c.threshold ? fmt::format("{:.0f}%", 100.0 * *c.threshold) : "",
                           c.crossed ? "  FAIL" : "");
      }
    }
  }
}

void render_check_json(const std::vector<CheckResult>& results, int exit_code, std::ostream& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& c : r.changes) {
      changes.push_back(change_json(c));
    }
    nlohmann::json crossed = nlohmann::json::array();
    for (const auto& c : r.crossed) {
      crossed.push_back({{"check", c.check}, {"text", c.text}});
    }
    list.push_back(
        {{"spec", r.spec_file},
         {"lock", r.lock_file},
         {"status", r.status},
         {"exit_code", r.exit_code},
         {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
         {"cause",
          {{"spec", r.cause.spec},
           {"catalog", r.cause.catalog},
           {"model", r.cause.model},
           {"settings", r.cause.settings},
           {"calibration", r.cause.calibration},
           {"unknown", r.cause.unknown},
           {"text", r.cause.text()}}},
         {"basis", r.basis.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.basis)},
         {"recommendation_changed", r.recommendation_changed},
         {"locked_problem",
          r.locked_problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.locked_problem)},
         {"locked", optional_config(r.locked)},
         {"now", optional_config(r.now)},
         {"compared", optional_config(r.compared)},
         {"crossed", crossed},
         {"warnings", r.warnings},
         {"changes", changes}});
  }
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [status, n] : by_status(results)) {
    counts[status] = n;
  }
  const Bill b = bill(results);
  const nlohmann::json report{
      {"schema_version", 2},
      {"rightsize_version", RIGHTSIZE_VERSION},
      {"verdict", verdict_line(results, exit_code)},
      {"exit_code", exit_code},
      {"summary",
       {{"specs", results.size()},
        {"by_status", counts},
        {"usd_per_month_now", b.now ? nlohmann::json(*b.now) : nlohmann::json(nullptr)},
        {"usd_per_month_locked", b.locked ? nlohmann::json(*b.locked) : nlohmann::json(nullptr)},
        {"usd_per_month_added", b.added ? nlohmann::json(*b.added) : nlohmann::json(nullptr)}}},
      {"results", list}};
  out << detail::dump_json(report, 2) << '\n';
}

void render_check_markdown(const std::vector<CheckResult>& results,
                           int exit_code,
                           std::ostream& out) {
  // The marker lets a CI job find and update its one comment (docs/ci.md).
  out << "<!-- rightsize-check -->\n";
  out << "### rightsize " << (exit_code == 0 ? ":white_check_mark: " : ":x: ")
      << verdict_line(results, exit_code) << "\n\n";
  out << "| Spec | Status | Configuration | $/month | Change |\n|---|---|---|---:|---|\n";
  const auto icon = [](const std::string& status) {
    if (status == "ok" || status == "updated") {
      return ":white_check_mark:";
    }
    if (status == "warning" || status == "added" || status == "removed") {
      return ":warning:";
    }
    return ":x:";
  };
  for (const auto& r : results) {
    out << fmt::format("| `{}` | {} {} | {} | {} | {} |\n",
                       r.spec_file,
                       icon(r.status),
                       r.status,
                       config_short(r.status == "removed" ? r.locked : r.compared),
                       monthly_text(r),
                       headline(r));
  }
  out << '\n';
  for (const auto& r : results) {
    if (r.status == "ok" && r.changes.empty()) {
      continue;
    }
    std::string summary = fmt::format("<code>{}</code>: {}", r.spec_file, r.status);
    if (r.status != "added" && r.status != "error" && r.status != "removed") {
      summary += " — " + r.cause.text();
    }
    out << "<details><summary>" << summary << "</summary>\n\n";
    if (const auto b = basis_text(r); !b.empty() && !r.changes.empty()) {
      out << "Compared: " << b << ".\n\n";
    }
    if (r.locked && r.now && r.recommendation_changed) {
      out << fmt::format("- locked: {}\n- now best: {}\n",
                         configuration_text(*r.locked),
                         configuration_text(*r.now));
    } else if (r.status == "added" && r.now) {
      out << (r.written ? "- locked: " : "- would lock: ") << configuration_text(*r.now) << '\n';
    }
    for (const auto& c : r.crossed) {
      out << "- :x: " << c.text << '\n';
    }
    for (const auto& w : r.warnings) {
      out << "- :warning: " << w << '\n';
    }
    if (!r.error.empty()) {
      out << "- :x: " << r.error << '\n';
    }
    if (!r.changes.empty()) {
      out << "\n| Figure | Locked | Now | Change | Threshold |\n|---|---:|---:|---:|---:|\n";
      for (const auto& c : r.changes) {
        out << fmt::format("| {} | {} | {} | {}{} | {} |\n",
                           c.label,
                           c.before_text,
                           c.after_text,
                           percent_text(c),
                           c.crossed ? " :x:" : "",
                           c.threshold ? fmt::format("{:.0f}%", 100.0 * *c.threshold) : "");
      }
    }
    out << "\n</details>\n\n";
  }
  out << "<sub>Accept an intended change: <code>rightsize check --update SPEC...</code>, then "
         "commit the lock file.</sub>\n";
}

} // namespace rightsize
