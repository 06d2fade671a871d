#pragma once

// Rendering `rightsize compare`: published runs of the spec's model beside rightsize's
// prediction of each (table, JSON, Markdown, CSV), and the published models (--list).
// Computing stays in plan/published.

#include <rightsize/catalog/published.hpp>
#include <rightsize/plan/published.hpp>

#include <ostream>

namespace rightsize {

void render_compare_table(const Comparison& c, std::ostream& out);
void render_compare_json(const Comparison& c, std::ostream& out);
void render_compare_markdown(const Comparison& c, std::ostream& out);
void render_compare_csv(const Comparison& c, std::ostream& out);

// The published models and how many runs each has (--list).
void render_published_models_table(const PublishedData& data, std::ostream& out);
void render_published_models_json(const PublishedData& data, std::ostream& out);

} // namespace rightsize
