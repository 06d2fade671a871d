#pragma once

// Rendering a plan: table (a terminal, 100 columns), JSON (schema_version 1, docs/plan.md),
// Markdown (a pull-request comment or design doc) and CSV. Computing stays in plan.

#include <rightsize/plan/plan.hpp>

#include <nlohmann/json.hpp>

#include <ostream>

namespace rightsize {

struct RenderOptions {
  int top = 0;        // 0: all candidates
  bool color = false; // ANSI colour in the table
  bool wide = false;  // every column; default: the table fits 80 columns
};

nlohmann::json plan_to_json(const Plan& plan, const RenderOptions& o);
void render_plan_json(const Plan& plan, const RenderOptions& o, std::ostream& out);
void render_plan_table(const Plan& plan, const RenderOptions& o, std::ostream& out);
void render_plan_markdown(const Plan& plan, const RenderOptions& o, std::ostream& out);
void render_plan_csv(const Plan& plan, const RenderOptions& o, std::ostream& out);

} // namespace rightsize
