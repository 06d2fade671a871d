#pragma once

// The sentences and cells a plan's renderers share (table, Markdown, CSV, JSON, HTML): one line
// each for the workload, its targets and its requirements, a layout ("TP2 PP2"), an amount of
// money, the candidates shown. Each reads the plan's description of its units (plan.units,
// spec/workload_units.hpp); the sentences that truly differ by kind are a table of functions in
// plan_lines.cpp.

#include <rightsize/plan/plan.hpp>
#include <rightsize/render/plan.hpp>

#include <string>
#include <vector>

namespace rightsize {

std::string layout_text(const Candidate& c);
// The replicas and their layout: "TP8", "4 x TP8", or disaggregated "1P+4D x TP8".
std::string replicas_text(const Candidate& c);
// "$2.95", "$48k", "$1.20M".
std::string money(double usd);
// "image embeddings on vllm, 224 x 224 pixels, ...": what the workload is, in its kind's words.
std::string workload_line(const Plan& p);

// ", speculative eagle: 3 draft tokens at acceptance 0.80 (2.95 tokens per step), prefix cache
// hit rate 50%", or "" for a workload with neither (plan_lines.cpp).
std::string decoding_features(const InferenceWorkload& i);
// "TTFT <= 500ms, >= 2 images/s", or "none: ranked by $ per ... at full load".
std::string targets_line(const Plan& p);
// What the plan is ranked by, in the workload's own unit where it has one: "$ per thousand
// images" (an image workload) or "$ per audio hour" (transcription) for cost_per_token, else the
// objective's name ("tco", "cost_per_token").
std::string objective_text(const Plan& p);
// Weights, parameters, and what each request keeps and costs in FLOPs, in its kind's words.
std::string requirements_line(const Plan& p);
// One line per GPU family (and engine) among `rows` without measured calibration, naming its
// GPUs in rank order: "cdna3/vllm: no measured runs: ... (MI300X-192GB, MI325X-256GB)".
std::vector<std::string> uncalibrated_lines(const std::vector<const Candidate*>& rows);
// Words of `text` wrapped at `width` columns, its leading spaces (and those aligning a column
// after a "label:") kept; continuation lines start with `indent` spaces.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent);

// A simulated latency distribution as the table and estimate's text show it: "latency
// distribution (simulated, N requests in the steady state, at the estimate): TTFT p50 ...".
std::string latency_distribution_text(const SimulatedLatency& d);

// The candidates a report shows: the first o.top (all when 0).
std::vector<const Candidate*> shown(const Plan& plan, const RenderOptions& o);
// "over", "right", or the verdict as it is.
std::string short_verdict(const std::string& v);
// The `rightsize estimate` arguments that reproduce a candidate exactly (after "rightsize ").
std::string estimate_args(const Plan& plan, const Candidate& c);

} // namespace rightsize
