#pragma once

// Rendering `rightsize check` results: table, JSON, and a Markdown pull-request comment.

#include <rightsize/check/lock.hpp>

#include <ostream>
#include <vector>

namespace rightsize {

void render_check_table(const std::vector<CheckResult>& results, std::ostream& out);
void render_check_json(const std::vector<CheckResult>& results, int exit_code, std::ostream& out);
void render_check_markdown(const std::vector<CheckResult>& results, std::ostream& out);

} // namespace rightsize
