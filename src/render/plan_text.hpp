#pragma once

// The sentences a plan's renderers share (table, Markdown, HTML): one line each for the workload,
// its targets and its requirements, a layout ("TP2 PP2") and an amount of money. plan.cpp.

#include <rightsize/plan/plan.hpp>

#include <string>
#include <vector>

namespace rightsize {

std::string layout_text(const Candidate& c);
// "$2.95", "$48k", "$1.20M".
std::string money(double usd);
std::string workload_line(const Spec& s);
std::string targets_line(const Spec& s);
// What the plan is ranked by, in the workload's own unit where it has one: "$ per thousand
// images" (an image workload) or "$ per audio hour" (transcription) for cost_per_token, else the
// objective's name ("tco", "cost_per_token").
std::string objective_text(const Plan& p);
std::string requirements_line(const Plan& p);
// One line per GPU family (and engine) among `rows` without measured calibration, naming its
// GPUs in rank order: "cdna3/vllm: no measured runs: ... (MI300X-192GB, MI325X-256GB)".
std::vector<std::string> uncalibrated_lines(const std::vector<const Candidate*>& rows);
// Words of `text` wrapped at `width` columns, its leading spaces (and those aligning a column
// after a "label:") kept; continuation lines start with `indent` spaces.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent);

} // namespace rightsize
