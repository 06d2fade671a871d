#pragma once

// The sentences a check report's renderers share (table, Markdown, HTML, SVG): the verdict, the
// change that matters most in a spec's row, its configuration and monthly cost, and what its
// figures compare. check.cpp.

#include <rightsize/check/result.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// "FAIL: 2 specs: 1 regression; $34,675/month (+$518.30 on locked specs)".
std::string verdict_line(const std::vector<CheckResult>& results, int exit_code);
// The one change that matters most in a summary row: the first crossed, else the largest move.
std::string headline(const CheckResult& r);
// "+25.4%"; empty when the locked figure was zero.
std::string percent_text(const Change& c);
// "2 x L40S-48GB"; "-" when there is none.
std::string config_short(const std::optional<LockedConfiguration>& c);
// The monthly cost of what the spec deploys ("$2,555"), "-" when unknown.
std::string monthly_text(const CheckResult& r);
// What the figures compare, as a clause; empty when there are none.
std::string basis_text(const CheckResult& r);

} // namespace rightsize
