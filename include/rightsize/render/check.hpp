#pragma once

// Rendering `rightsize check` results: table, JSON, a Markdown pull-request comment, and HTML or
// SVG with the before/after chart (docs/reports.md). Computing stays in check.

#include <rightsize/check/result.hpp>

#include <ostream>
#include <vector>

namespace rightsize {

// A summary first (verdict, specs by outcome, the monthly bill), then each spec that moved.
void render_check_table(const std::vector<CheckResult>& results, int exit_code, std::ostream& out);
// data/check-report.schema.json describes it.
void render_check_json(const std::vector<CheckResult>& results, int exit_code, std::ostream& out);
// A pull-request comment, marked <!-- rightsize-check --> so that CI updates one comment.
void render_check_markdown(const std::vector<CheckResult>& results,
                           int exit_code,
                           std::ostream& out);
// One self-contained HTML page: the verdict and the summary, then per spec each figure that moved
// as before/after bars with its threshold, every charted number also in a table, then the details.
void render_check_html(const std::vector<CheckResult>& results, int exit_code, std::ostream& out);
// The before/after chart alone, headed by the verdict, as a standalone SVG file.
void render_check_svg(const std::vector<CheckResult>& results, int exit_code, std::ostream& out);

} // namespace rightsize
