#pragma once

// What plan, deploy and check share: the options that shape a plan (check/settings.hpp's
// PlanSettings, mapped from flags here), --catalog, and the run that loads the data and plans.

#include "cli/calibration_option.hpp"
#include "cli/common_options.hpp"
#include "cli/context.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/check/settings.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/App.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace rightsize::cli {

struct PlanCliOptions {
  CommonOptions common;
  std::string spec;
  PlanSettings settings;
  // Published runs beside the candidates (plan only): load the index (--published FILE, else the
  // bundled one) and, when the spec's model is one of its models, the results.
  bool with_published = false;
  std::string published;
  // Simulate every candidate's latency distribution (PlanOptions::simulate): the report shows it.
  bool simulate = true;
  // Rank disaggregated configurations (PlanOptions::disaggregate).
  bool disaggregate = true;
};

// Adds --objective, --confidence, --share-gpus, --assume and the deployment overrides to `sub`,
// each setting its field of `settings` (not --catalog: each command adds it).
void add_plan_options(CLI::App& sub, PlanSettings& settings);

// The settings given on `sub`'s command line (options counted by CLI11), as settings_to_json
// writes them: what overrides a lock's.
nlohmann::json given_settings(const CLI::App& sub, const PlanSettings& settings);

// A plan and everything it was made from (PlanOptions points into this struct).
struct PlanRun {
  Spec spec;
  // Of the spec as written, before the settings (check/lock.hpp); only when asked for (a lock).
  std::string spec_digest;
  Catalog catalog;
  Constants constants;
  Efficiency efficiency;
  Uncertainty uncertainty;
  EngineSupport engines;
  std::optional<PublishedData> published;
  std::optional<SiteCalibration> calibration; // --calibration
  PlanOptions options;
  Plan plan;
};

// Loads the spec (its warnings logged), applies `adjust` and the settings, loads the catalog and
// the model data, and plans. `digest`: also set spec_digest (plan --lock), which a plain plan
// does not need.
std::unique_ptr<PlanRun> run_plan(const PlanCliOptions& o,
                                  Context& ctx,
                                  const std::function<void(Spec&)>& adjust = {},
                                  bool digest = false);

} // namespace rightsize::cli
