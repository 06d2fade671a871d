#pragma once

// The sentences a plan's renderers share (table, Markdown, HTML): one line each for the workload,
// its targets and its requirements, a layout ("TP2 PP2") and an amount of money. plan.cpp.

#include <rightsize/plan/plan.hpp>

#include <string>

namespace rightsize {

std::string layout_text(const Candidate& c);
// "$2.95", "$48k", "$1.20M".
std::string money(double usd);
std::string workload_line(const Spec& s);
std::string targets_line(const Spec& s);
std::string requirements_line(const Plan& p);

} // namespace rightsize
