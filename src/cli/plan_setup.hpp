#pragma once

// What plan and deploy share: the options that shape a plan (objective, confidence, deployment
// overrides, --assume, --catalog) and the run that loads the data and plans.

#include "cli/common_options.hpp"
#include "cli/context.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/check/lock.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/App.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rightsize::cli {

struct PlanCliOptions {
  CommonOptions common;
  std::string spec;
  std::string objective = "tco";
  std::string confidence = "band";
  bool share_gpus = false;
  std::vector<std::string> assume;
  // Deployment overrides.
  std::string mode;
  long long horizon_months = 0;
  double growth = -1;
  double hours_per_month = 0;
  std::string provider;
  std::string price_kind;
  double pue = 0;
  double electricity = -1;
  double amortization_years = 0;
  double utilization = 0;
  // Published runs beside the candidates (plan only): load the index (--published FILE, else the
  // bundled one) and, when the spec's model is one of its models, the results.
  bool with_published = false;
  std::string published;
};

// Adds --objective, --confidence, --share-gpus, --assume and the deployment overrides to `sub`
// (not --catalog: each command adds it).
void add_plan_options(CLI::App& sub, PlanCliOptions& o);

// The settings a lock records and check replays: objective, confidence, share_gpus, assume, and
// each deployment override that is set. JSON, so that the check stage stores it as it is.
nlohmann::json settings_to_json(const PlanCliOptions& o);
// The same settings read back (`where` names the lock entry in errors); the spec and catalog
// paths are left empty.
PlanCliOptions
settings_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer);
// The settings given on `sub`'s command line (options counted by CLI11), as settings_to_json
// writes them: what overrides a lock's.
nlohmann::json given_settings(const CLI::App& sub, const PlanCliOptions& o);
// The overrides and the provider and price kind resolved against the catalog, applied to `spec`.
void apply_settings(const PlanCliOptions& o, const Catalog& catalog, Spec& spec);
// PlanOptions for these settings; the pointers must outlive the plan.
PlanOptions plan_options_for(const PlanCliOptions& o,
                             const Spec& spec,
                             const Uncertainty& uncertainty,
                             const EngineSupport& engines);
// Digest of rightsize's own model data (the bundled memory, efficiency, uncertainty and engine
// files) and the --assume overrides: a lock records it, and check says when it moved.
std::string model_digest(const std::vector<std::string>& assume);

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
  PlanOptions options;
  Plan plan;
};

// Loads the spec (its warnings logged), applies the overrides and `adjust`, loads the catalog
// and the model data, and plans. `digest`: also set spec_digest (plan --lock), which a plain
// plan does not need.
std::unique_ptr<PlanRun> run_plan(const PlanCliOptions& o,
                                  Context& ctx,
                                  const std::function<void(Spec&)>& adjust = {},
                                  bool digest = false);

} // namespace rightsize::cli
