#pragma once

// Rendering `rightsize check` results: table, JSON, and a Markdown pull-request comment.

#include <rightsize/check/lock.hpp>

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

} // namespace rightsize
