#pragma once

// What plan and deploy share: the options that shape a plan (objective, confidence, deployment
// overrides, --assume, --catalog) and the run that loads the data and plans.

#include "cli/common_options.hpp"
#include "cli/context.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/App.hpp>

#include <functional>
#include <memory>
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
};

// Adds --objective, --confidence, --share-gpus, --assume and the deployment overrides to `sub`.
void add_plan_options(CLI::App& sub, PlanCliOptions& o);

// A plan and everything it was made from (PlanOptions points into this struct).
struct PlanRun {
  Spec spec;
  Catalog catalog;
  Constants constants;
  Efficiency efficiency;
  Uncertainty uncertainty;
  EngineSupport engines;
  PlanOptions options;
  Plan plan;
};

// Loads the spec (its warnings logged), applies the overrides and `adjust`, loads the catalog
// and the model data, and plans.
std::unique_ptr<PlanRun> run_plan(const PlanCliOptions& o,
                                  Context& ctx,
                                  const std::function<void(Spec&)>& adjust = {});

} // namespace rightsize::cli
