#pragma once

// Rendering a plan: table (a terminal, 100 columns), JSON (schema_version 1, docs/plan.md),
// Markdown (a pull-request comment or design doc), CSV, and HTML or SVG with charts
// (docs/reports.md). Computing stays in plan.

#include <rightsize/plan/plan.hpp>

#include <ostream>

namespace rightsize {

struct RenderOptions {
  int top = 0;        // 0: all candidates
  bool color = false; // ANSI colour in the table
  bool wide = false;  // every column; default: the table fits 80 columns
};

// JSON (schema_version 1), written without building a tree (detail::JsonWriter).
void render_plan_json(const Plan& plan, const RenderOptions& o, std::ostream& out);
void render_plan_table(const Plan& plan, const RenderOptions& o, std::ostream& out);
void render_plan_markdown(const Plan& plan, const RenderOptions& o, std::ostream& out);
void render_plan_csv(const Plan& plan, const RenderOptions& o, std::ostream& out);
// One self-contained HTML page: the cost-latency trade-off with bands and the Pareto front, memory
// per GPU by term, cost month by month, the rejections; every charted number also in a table.
void render_plan_html(const Plan& plan, const RenderOptions& o, std::ostream& out);
// The trade-off chart alone, as a standalone SVG file (docs, pull-request comments).
void render_plan_svg(const Plan& plan, const RenderOptions& o, std::ostream& out);

} // namespace rightsize
