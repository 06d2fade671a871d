// rightsize check as an HTML page, and its before/after chart alone as SVG. The chart draws what
// check computed: per spec, each figure that moved as a pair of bars (locked, now) on the
// figure's own scale, with its threshold as a tick. Every number drawn is also in a table.
// docs/reports.md.

#include "check_text.hpp"
#include "html.hpp"
#include "svg.hpp"

#include <rightsize/render/check.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

namespace {

// The chart's geometry: metric labels end at k_left, where the bars start; the longest bar (or
// threshold) of a row reaches k_right; the value follows each bar; the change is right-aligned
// at k_change_x.
constexpr double k_width = 780;
constexpr double k_margin = 14;
constexpr double k_left = 150;
constexpr double k_right = 590;
constexpr double k_change_x = k_width - k_margin;
constexpr double k_top = 34;
constexpr double k_heading_h = 30;
constexpr double k_note_h = 17;
constexpr double k_figure_h = 38;
constexpr double k_bar_h = 11;
// Text of the chart's 11 px classes is about 6.5 px per character (svg.hpp's estimate).
constexpr double k_char_px = 6.5;
constexpr std::size_t k_note_chars = 112;
// Headings are 12 px bold: about 7.5 px per character.
constexpr std::size_t k_heading_chars = 98;

// Whether a figure is worse when it falls (tokens/s) rather than when it rises (cost, latency,
// GPUs, memory); lock.cpp's compare_figures decides the same way.
bool is_drop_metric(const Change& c) {
  return c.metric == "output_tokens_per_s";
}

// The figure at which the threshold is crossed: the locked figure times 1 + threshold (a rise)
// or 1 - threshold (a drop); none without a threshold or a locked figure to scale.
std::optional<double> threshold_value(const Change& c) {
  if (!c.threshold || !(c.before > 0)) {
    return std::nullopt;
  }
  return c.before * (is_drop_metric(c) ? 1 - *c.threshold : 1 + *c.threshold);
}

// Past its threshold the wrong way, whether or not its check fails the job.
bool over_threshold(const Change& c) {
  const auto rel = c.relative();
  if (!rel || !c.threshold) {
    return false;
  }
  return (is_drop_metric(c) ? -*rel : *rel) > *c.threshold + 1e-12;
}

std::string threshold_text(const Change& c) {
  if (!c.threshold) {
    return "";
  }
  return fmt::format("{:.0f}% {}", 100.0 * *c.threshold, is_drop_metric(c) ? "drop" : "rise");
}

std::string crossed_text(const Change& c) {
  if (c.crossed) {
    return "yes: fails";
  }
  if (over_threshold(c)) {
    return "yes: warning only";
  }
  return c.threshold ? "no" : "";
}

// A crossing that one of the spec's figures states (drawn as its bars), not a check of its own.
bool is_figure_crossing(const CheckResult& r, const Crossing& x) {
  return std::any_of(r.changes.begin(), r.changes.end(), [&](const Change& c) {
    return c.crossed &&
           x.text.find(fmt::format("{} {} -> {}", c.label, c.before_text, c.after_text)) !=
               std::string::npos;
  });
}

// `text` in lines of at most `width` characters, broken at spaces.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) {
    lines.push_back(line);
  }
  return lines;
}

// A long path keeps its end: "...specs/chat.json".
std::string shortened(const std::string& text, std::size_t most) {
  return text.size() <= most ? text : "..." + text.substr(text.size() - (most - 3));
}

bool compared_with_lock(const CheckResult& r) {
  return r.status != "added" && r.status != "error" && r.status != "removed";
}

std::string spec_heading(const CheckResult& r) {
  std::string s = fmt::format("{}: {}", r.spec_file, r.status);
  if (compared_with_lock(r)) {
    s += fmt::format(" ({})", r.cause.text());
  }
  return s;
}

// One line of the chart, laid out before drawing: the chart's height depends on them all.
struct ChartLine {
  enum class Kind { heading, heading_more, note, figure }; // heading_more: a heading's next line
  Kind kind = Kind::note;
  std::string text; // a figure's: its spec file
  std::string cls;
  const Change* change = nullptr;
};

// What the chart says of a spec besides its figures: why it has none (nothing moved, added,
// removed, infeasible, an error), or the checks that are not figures (a locked configuration
// that no longer serves, another configuration now best).
std::vector<std::pair<std::string, std::string>> spec_notes(const CheckResult& r) {
  std::vector<std::pair<std::string, std::string>> notes;
  const std::string failing = r.exit_code != 0 ? "target-text" : "note";
  if (r.status == "error") {
    notes.emplace_back("error: " + r.error, "target-text");
    return notes;
  }
  if (r.status == "removed") {
    notes.emplace_back(
        "removed: the lock has an entry for this spec, whose file is gone" +
            (r.locked ? " (it locked " + configuration_text(*r.locked) + ")" : std::string()),
        failing);
    return notes;
  }
  if (r.status == "added") {
    notes.emplace_back(r.now ? fmt::format(r.written ? "new spec, locked: {}, {}/month"
                                                     : "new spec, not locked yet: would lock {}, "
                                                       "{}/month",
                                           configuration_text(*r.now),
                                           monthly_text(r))
                             : "new spec, not locked yet: nothing feasible",
                       failing);
    return notes;
  }
  if (r.changes.empty() && r.crossed.empty()) {
    notes.emplace_back(r.compared ? fmt::format("nothing moved: {}, {}/month",
                                                configuration_text(*r.compared),
                                                monthly_text(r))
                                  : "nothing moved",
                       "note");
  } else if (!r.changes.empty()) {
    notes.emplace_back("compared: " + basis_text(r), "note");
  }
  bool gpu_change_said = false;
  bool locked_problem_said = r.locked_problem.empty();
  for (const auto& x : r.crossed) {
    if (!is_figure_crossing(r, x)) {
      notes.emplace_back("FAIL " + x.text, "target-text");
      gpu_change_said = gpu_change_said || x.check == "gpu-change";
      locked_problem_said =
          locked_problem_said || x.text.find(r.locked_problem) != std::string::npos;
    }
  }
  if (!locked_problem_said) {
    notes.emplace_back("the locked configuration " + r.locked_problem, "note");
  }
  if (r.recommendation_changed && r.now && !gpu_change_said) {
    notes.emplace_back("now best: " + configuration_text(*r.now), "note");
  }
  return notes;
}

// `verdict`, when given, heads the chart (the standalone SVG, which has no page around it).
std::vector<ChartLine> chart_lines(const std::vector<CheckResult>& results,
                                   const std::string& verdict) {
  std::vector<ChartLine> lines;
  for (auto& line : wrap(verdict, k_heading_chars)) {
    lines.push_back({lines.empty() ? ChartLine::Kind::heading : ChartLine::Kind::heading_more,
                     std::move(line),
                     "label-strong",
                     nullptr});
  }
  const bool any_moved = std::any_of(
      results.begin(), results.end(), [](const CheckResult& r) { return !r.changes.empty(); });
  if (results.empty()) {
    lines.push_back({ChartLine::Kind::heading, "No specs checked.", "label-strong", nullptr});
    return lines;
  }
  if (!any_moved) {
    lines.push_back({ChartLine::Kind::heading,
                     "No figure moved since the locks: nothing to draw as bars.",
                     "label-strong",
                     nullptr});
  }
  for (const auto& r : results) {
    lines.push_back({ChartLine::Kind::heading,
                     shortened(spec_heading(r), k_heading_chars),
                     "label-strong",
                     nullptr});
    for (const auto& [text, cls] : spec_notes(r)) {
      for (auto& line : wrap(text, k_note_chars)) {
        lines.push_back({ChartLine::Kind::note, std::move(line), cls, nullptr});
      }
    }
    for (const auto& c : r.changes) {
      lines.push_back({ChartLine::Kind::figure, r.spec_file, "label", &c});
    }
  }
  return lines;
}

double line_height(const ChartLine& l) {
  switch (l.kind) {
  case ChartLine::Kind::heading:
    return k_heading_h;
  case ChartLine::Kind::figure:
    return k_figure_h;
  case ChartLine::Kind::heading_more:
  case ChartLine::Kind::note:
    break;
  }
  return k_note_h;
}

// One figure's row: locked above, now below, on the row's own scale from zero (the largest of
// the two figures and the threshold reaches k_right); the threshold a tick across both bars.
void draw_figure(svg::Chart& chart, const std::string& spec, const Change& c, double y0) {
  const auto limit = threshold_value(c);
  const double most = std::max({c.before, c.after, limit.value_or(0.0)});
  const auto x = [&](double v) {
    return most > 0 ? k_left + (k_right - k_left) * v / most : k_left;
  };
  const double before_y = y0 + 5;
  const double after_y = before_y + k_bar_h + 3;

  chart.text({k_left - 10, before_y + 9}, c.label, "label", svg::Anchor::end);
  if (c.threshold) {
    chart.text({k_left - 10, after_y + 10},
               fmt::format("limit {}{:.0f}%", is_drop_metric(c) ? "-" : "+", 100.0 * *c.threshold),
               "tick",
               svg::Anchor::end);
  }
  chart.rect(k_left,
             before_y,
             x(c.before) - k_left,
             k_bar_h,
             "before",
             fmt::format("{}: {} locked {}", spec, c.label, c.before_text));
  chart.rect(k_left,
             after_y,
             x(c.after) - k_left,
             k_bar_h,
             c.crossed ? "after-bad" : "after",
             fmt::format("{}: {} now {}", spec, c.label, c.after_text));
  double tick_x = k_left;
  if (limit) {
    tick_x = x(*limit);
    chart.line({tick_x, before_y - 3},
               {tick_x, after_y + k_bar_h + 3},
               "threshold",
               fmt::format("{}: {} threshold, {}", spec, c.label, threshold_text(c)));
  }
  // Each value after its bar, or after the tick where the tick is further right.
  chart.text({std::max(x(c.before), tick_x) + 5, before_y + 9}, c.before_text, "tick");
  chart.text({std::max(x(c.after), tick_x) + 5, after_y + 9}, c.after_text, "label");
  const std::string change = percent_text(c);
  if (!change.empty() || c.crossed) {
    chart.text({k_change_x, after_y + 9},
               c.crossed ? change + " FAIL" : change,
               c.crossed ? "target-text" : "label",
               svg::Anchor::end);
  }
}

// The legend: the bars' swatches, with the threshold's tick (a line, not a swatch) before the
// colour of a bar past it.
void draw_legend(svg::Chart& chart, double y) {
  chart.legend({k_margin, y}, {{"before", "locked"}, {"after", "now"}});
  double x = k_margin;
  for (const char* label : {"locked", "now"}) {
    x += 16 + k_char_px * static_cast<double>(std::string_view(label).size()) + 18;
  }
  chart.line({x + 6, y - 10}, {x + 6, y + 4}, "threshold");
  chart.text({x + 16, y + 1}, "threshold", "legend");
  chart.legend({x + 16 + k_char_px * 9 + 18, y},
               {{"after-bad", "now, past a threshold that fails"}});
}

svg::Chart before_after_chart(const std::vector<CheckResult>& results,
                              const std::string& verdict = {}) {
  const auto lines = chart_lines(results, verdict);
  const bool any_moved = std::any_of(
      results.begin(), results.end(), [](const CheckResult& r) { return !r.changes.empty(); });
  double height = any_moved ? k_top : 8;
  for (const auto& l : lines) {
    height += line_height(l);
  }
  height += any_moved ? 30 : 12;
  svg::Chart chart(k_width,
                   height,
                   "rightsize check: before and after",
                   "Per spec, each figure that moved since the lock: the locked figure and the "
                   "figure now as bars on the figure's own scale, its threshold as a tick.");
  if (any_moved) {
    draw_legend(chart, 18);
  }
  double y = any_moved ? k_top : 8;
  bool first_heading = true;
  for (const auto& l : lines) {
    switch (l.kind) {
    case ChartLine::Kind::heading:
      if (!first_heading) {
        chart.line({k_margin, y + 4}, {k_width - k_margin, y + 4}, "grid");
      }
      first_heading = false;
      chart.text({k_margin, y + 22}, l.text, l.cls);
      break;
    case ChartLine::Kind::heading_more:
      chart.text({k_margin, y + 13}, l.text, l.cls);
      break;
    case ChartLine::Kind::note:
      chart.text({k_margin + 12, y + 12}, l.text, l.cls);
      break;
    case ChartLine::Kind::figure:
      draw_figure(chart, l.text, *l.change, y);
      break;
    }
    y += line_height(l);
  }
  if (any_moved) {
    chart.text({k_margin, height - 10},
               "Each figure on its own scale from zero. The tick is the threshold: a rise for "
               "cost, latency and GPUs, a drop for tokens/s.",
               "note");
  }
  return chart;
}

std::string exit_code_text(int exit_code) {
  switch (exit_code) {
  case 0:
    return "Exit code 0: no threshold that fails the job was crossed.";
  case 1:
    return "Exit code 1: a threshold was crossed (a sizing regression), listed below.";
  case 2:
    return "Exit code 2: a spec, its lock file or its lock entry could not be read or planned.";
  case 3:
    return "Exit code 3: a spec has no feasible GPU configuration any more.";
  default:
    break;
  }
  return fmt::format("Exit code {}.", exit_code);
}

std::string subtitle(const std::vector<CheckResult>& results) {
  std::vector<std::string> locks;
  std::set<std::string> seen;
  for (const auto& r : results) {
    if (!r.lock_file.empty() && seen.insert(r.lock_file).second) {
      locks.push_back(r.lock_file);
    }
  }
  std::string s = fmt::format(
      "{} spec{} re-planned and compared with ", results.size(), results.size() == 1 ? "" : "s");
  if (locks.empty()) {
    return s + "their locks";
  }
  for (std::size_t i = 0; i < locks.size(); ++i) {
    s += (i == 0 ? "" : ", ") + locks[i];
  }
  return s;
}

html::Table summary_table(const std::vector<CheckResult>& results) {
  html::Table t;
  t.header = {"Spec", "Status", "Configuration", "$/month", "Change"};
  t.numeric = {false, false, false, true, false};
  for (const auto& r : results) {
    t.rows.push_back({r.spec_file,
                      r.status,
                      config_short(r.status == "removed" ? r.locked : r.compared),
                      monthly_text(r),
                      headline(r)});
    t.row_class.emplace_back(r.exit_code != 0 ? "failed-row" : "");
  }
  return t;
}

html::Table figures_table(const std::vector<CheckResult>& results) {
  html::Table t;
  t.header = {"Spec", "Figure", "Locked", "Now", "Change", "Threshold", "Crossed"};
  t.numeric = {false, false, true, true, true, true, false};
  t.caption = "Every figure that moved, as drawn above; the threshold is relative to the locked "
              "figure.";
  for (const auto& r : results) {
    for (const auto& c : r.changes) {
      t.rows.push_back({r.spec_file,
                        c.label,
                        c.before_text,
                        c.after_text,
                        percent_text(c),
                        threshold_text(c),
                        crossed_text(c)});
      t.row_class.emplace_back(c.crossed ? "failed-row" : "");
    }
  }
  return t;
}

// Each spec that moved, as the table report details it: what the figures compare, the locked
// and the best configuration, each crossing, warning and error.
void spec_details(html::Page& page, const CheckResult& r) {
  page.subsection(r.spec_file);
  std::string status = r.status;
  if (compared_with_lock(r)) {
    status += r.lock_file.empty() ? fmt::format(" ({})", r.cause.text())
                                  : fmt::format(" ({}; lock {})", r.cause.text(), r.lock_file);
  }
  page.lead("Status:", status, r.exit_code != 0 ? "bad" : "");
  std::vector<std::string> items;
  if (const auto b = basis_text(r); !b.empty() && !r.changes.empty()) {
    items.push_back("compared: " + b);
  }
  if (r.locked && r.now && r.recommendation_changed) {
    items.push_back("locked: " + configuration_text(*r.locked));
    items.push_back("now best: " + configuration_text(*r.now));
  } else if (r.status == "added" && r.now) {
    items.push_back((r.written ? "locked: " : "would lock: ") + configuration_text(*r.now));
  } else if (r.status == "removed" && r.locked) {
    items.push_back("locked: " + configuration_text(*r.locked));
  }
  page.list(items);
  for (const auto& c : r.crossed) {
    page.lead("FAIL", c.text, "bad");
  }
  for (const auto& w : r.warnings) {
    page.lead("warning:", w, "warn");
  }
  if (!r.error.empty()) {
    page.lead("error:", r.error, "bad");
  }
}

} // namespace

void render_check_html(const std::vector<CheckResult>& results, int exit_code, std::ostream& out) {
  html::Page page("rightsize check", subtitle(results));
  page.section("Verdict", "verdict");
  const std::string verdict = verdict_line(results, exit_code);
  const auto colon = verdict.find(": ");
  page.lead(verdict.substr(0, colon + 1),
            colon == std::string::npos ? "" : verdict.substr(colon + 2),
            exit_code == 0 ? "good" : "bad");
  page.paragraph(exit_code_text(exit_code));
  page.table(summary_table(results));

  page.section("Before and after", "before-after");
  const bool any_moved = std::any_of(
      results.begin(), results.end(), [](const CheckResult& r) { return !r.changes.empty(); });
  if (any_moved) {
    page.figure(before_after_chart(results),
                "Per spec, each figure that moved since the lock: locked (grey) and now (blue; "
                "red when past a threshold that fails the job), each on its own scale from zero, "
                "the threshold as a tick.");
    page.table(figures_table(results));
  } else {
    page.figure(before_after_chart(results), "");
  }

  const bool any_details = std::any_of(results.begin(), results.end(), [](const CheckResult& r) {
    return !(r.status == "ok" && r.changes.empty());
  });
  if (any_details) {
    page.section("Details", "details");
    for (const auto& r : results) {
      if (!(r.status == "ok" && r.changes.empty())) {
        spec_details(page, r);
      }
    }
  }
  page.paragraph("Accept an intended change: rightsize check --update SPEC..., then commit the "
                 "lock file.",
                 "muted");
  out << page.finish();
}

void render_check_svg(const std::vector<CheckResult>& results, int exit_code, std::ostream& out) {
  const std::string verdict = "rightsize check: " + verdict_line(results, exit_code);
  out << before_after_chart(results, verdict).standalone(html::chart_stylesheet());
}

} // namespace rightsize
