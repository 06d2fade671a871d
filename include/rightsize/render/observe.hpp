#pragma once

// Rendering `rightsize observe` reports: the fleet summary first, then each workload. Table for a
// terminal, JSON (data/observe-report.schema.json) and YAML for programs, Markdown for a ticket
// or pull request, CSV one row per workload; and the patches of re-sized owners. docs/observe.md.

#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/patches.hpp>

#include <ostream>
#include <string>

namespace rightsize {

void render_observe_table(const ObserveReport& report, std::ostream& out);
void render_observe_json(const ObserveReport& report, std::ostream& out);
void render_observe_markdown(const ObserveReport& report, std::ostream& out);
void render_observe_csv(const ObserveReport& report, std::ostream& out);
// The JSON report's document as YAML.
void render_observe_yaml(const ObserveReport& report, std::ostream& out);
// One re-sized owner's strategic-merge patch, after comments that say why and how to apply it.
std::string owner_patch_yaml(const OwnerPatch& patch);
// One self-contained HTML page: the fleet by namespace or node as a chart, then each workload's
// work and memory over the window as percentile bands, its verdict, reasons and recommendation.
void render_observe_html(const ObserveReport& report, std::ostream& out);
// The fleet chart alone, as a standalone SVG file.
void render_observe_svg(const ObserveReport& report, std::ostream& out);

// --watch: one line per workload whose verdict or recommendation differs from `before`'s, and per
// workload that appeared or went; nothing when nothing changed.
void render_observe_changes(const ObserveReport& before,
                            const ObserveReport& after,
                            std::ostream& out);

} // namespace rightsize
