#include "cli/plan_setup.hpp"

#include "cli/commands.hpp"

#include <rightsize/catalog/prices.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <map>

namespace rightsize::cli {

namespace {

void apply_overrides(const PlanCliOptions& o, Spec& spec) {
  auto& d = spec.deployment;
  if (!o.mode.empty()) {
    d.mode = o.mode == "cloud" ? DeploymentMode::cloud : DeploymentMode::onprem;
  }
  if (o.horizon_months > 0) {
    d.horizon_months = o.horizon_months;
  }
  if (o.growth >= -0.5) {
    d.growth_per_month = o.growth;
  }
  if (o.hours_per_month > 0) {
    d.hours_per_month = o.hours_per_month;
  }
  if (o.pue > 0) {
    d.pue = o.pue;
  }
  if (o.electricity >= 0) {
    d.electricity_usd_per_kwh = o.electricity;
  }
  if (o.amortization_years > 0) {
    d.amortization_years = o.amortization_years;
  }
  if (o.utilization > 0) {
    d.utilization = o.utilization;
  }
}

// The provider and price kind, from the options or the spec, resolved against the catalog: "aws"
// is the catalog's "AWS", and prices the catalog lacks altogether are bad input (exit 2), not a
// plan with nothing feasible (exit 3). On-prem plans price purchases, so neither applies there.
void resolve_prices(const PlanCliOptions& o, const Catalog& catalog, Spec& spec) {
  auto& d = spec.deployment;
  const std::string field = spec.file + ":/deployment/";
  if (!o.price_kind.empty()) {
    d.price_kind = resolve_price_kind(o.price_kind, "--price-kind");
  }
  if (d.mode != DeploymentMode::cloud) {
    return;
  }
  if (!o.provider.empty()) {
    d.provider = resolve_provider(catalog, o.provider, "--provider");
  } else if (d.provider) {
    d.provider = resolve_provider(catalog, *d.provider, field + "provider");
  }
  check_price_kind(catalog,
                   d.price_kind,
                   d.provider,
                   o.price_kind.empty() ? field + "price_kind" : "--price-kind");
}

} // namespace

void add_plan_options(CLI::App& sub, PlanCliOptions& o) {
  add_catalog_option(sub, o.common);
  sub.add_option(
         "--objective", o.objective, "Rank by tco, cost_per_token, latency, gpus or power")
      ->check(CLI::IsMember({"tco", "cost_per_token", "latency", "gpus", "power"}))
      ->default_str("tco");
  sub.add_option("--confidence",
                 o.confidence,
                 "Hold targets at the pessimistic edge of each prediction's uncertainty band "
                 "(band) or at the point estimate (point); docs/plan.md")
      ->check(CLI::IsMember({"band", "point"}))
      ->default_str("band");
  sub.add_flag("--share-gpus",
               o.share_gpus,
               "Rank MIG slices in the cloud too, at their share of the GPU's price (on-prem "
               "always does)");
  sub.add_option("--assume", o.assume, "Override a model constant: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  auto* dep = "Deployment (override the spec's deployment)";
  sub.add_option("--mode", o.mode, "cloud or onprem")
      ->check(CLI::IsMember({"cloud", "onprem"}))
      ->group(dep);
  sub.add_option("--horizon-months", o.horizon_months, "TCO horizon")
      ->check(CLI::Range(1LL, 240LL))
      ->group(dep);
  sub.add_option("--growth", o.growth, "Demand growth per month (0.05 = 5%)")
      ->check(CLI::Range(-0.5, 10.0))
      ->group(dep);
  sub.add_option("--hours-per-month", o.hours_per_month, "Billed hours per month (730)")
      ->check(CLI::Range(1.0, 744.0))
      ->group(dep);
  sub.add_option("--provider", o.provider, "Use this provider's prices")->group(dep);
  sub.add_option("--price-kind", o.price_kind, "on_demand, spot or committed")->group(dep);
  sub.add_option("--pue", o.pue, "Power usage effectiveness (1.3)")
      ->check(CLI::Range(1.0, 5.0))
      ->group(dep);
  sub.add_option("--electricity", o.electricity, "USD per kWh (0.12)")
      ->check(CLI::Range(0.0, 10.0))
      ->group(dep);
  sub.add_option("--amortization-years", o.amortization_years, "On-prem amortization (4)")
      ->check(CLI::Range(0.1, 20.0))
      ->group(dep);
  sub.add_option("--utilization", o.utilization, "Average power draw as a share of TDP (0.7)")
      ->check(CLI::Range(0.01, 1.0))
      ->group(dep);
}

std::unique_ptr<PlanRun> run_plan(const PlanCliOptions& o,
                                  Context& ctx,
                                  const std::function<void(Spec&)>& adjust) {
  auto run = std::make_unique<PlanRun>();
  Spec& spec = run->spec;
  spec = load_spec(o.spec);
  for (const auto& w : spec.warnings) {
    ctx.log->warn("{}: {}", spec.file, w);
  }
  apply_overrides(o, spec);
  if (adjust) {
    adjust(spec);
  }
  run->catalog = load_catalog(bundled_catalog_path(), user_catalog_path(o.common));
  resolve_prices(o, run->catalog, spec);
  run->constants = load_constants(o.assume);
  run->efficiency = Efficiency::load(bundled_data_dir() + "/efficiency.json");
  run->uncertainty = Uncertainty::load(bundled_data_dir() + "/uncertainty.json");
  run->engines = load_engine_support(bundled_data_dir() + "/engines.json");
  PlanOptions& options = run->options;
  options.uncertainty = &run->uncertainty;
  options.engines = &run->engines;
  options.share_gpus = o.share_gpus;
  options.confidence = o.confidence == "point" ? Confidence::point : Confidence::band;
  options.today = today();
  options.stale_days = spec.deployment.stale_price_days;
  const std::map<std::string, Objective> objectives{{"tco", Objective::tco},
                                                    {"cost_per_token", Objective::cost_per_token},
                                                    {"latency", Objective::latency},
                                                    {"gpus", Objective::gpus},
                                                    {"power", Objective::power}};
  options.objective = objectives.at(o.objective);
  run->plan = make_plan(spec, run->catalog, run->constants, run->efficiency, options);
  for (const auto& note : run->plan.notes) {
    if (note.find("did you mean") != std::string::npos) {
      ctx.log->warn("{}: {}", spec.file, note);
    }
  }
  return run;
}

} // namespace rightsize::cli
