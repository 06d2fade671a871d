#include "cli/commands.hpp"
#include "cli/common_options.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/render/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <unistd.h>

namespace rightsize::cli {

namespace {

struct PlanCliOptions {
  CommonOptions common;
  std::string spec;
  std::string output;
  std::string objective = "tco";
  std::string color = "auto";
  int top = 0;
  std::vector<std::string> assume;
  std::string lock;
  bool lock_given = false;
  // Deployment overrides.
  std::string mode;
  long long horizon_months = 0;
  double growth = -1;
  double hours_per_month = 0;
  std::string provider;
  std::string price_kind;
  std::string confidence = "band";
  bool wide = false;
  bool share_gpus = false;
  double pue = 0;
  double electricity = -1;
  double amortization_years = 0;
  double utilization = 0;
};

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

void register_plan(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<PlanCliOptions>();
  auto* sub = app.add_subcommand("plan",
                                 "Rank GPU configurations for a workload: which GPUs, how "
                                 "many, in what layout, at what cost, and why not the others");
  sub->add_option("SPEC", o->spec, "A rightsize spec or a Hugging Face config.json")->required();
  add_format_option(*sub, o->common, {"table", "json", "markdown", "csv"});
  add_catalog_option(*sub, o->common);
  sub->add_option("--top", o->top, "Show only the best N candidates")->check(CLI::Range(1, 1000));
  sub->add_option("-o,--output", o->output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");
  sub->add_option(
         "--objective", o->objective, "Rank by tco, cost_per_token, latency, gpus or power")
      ->check(CLI::IsMember({"tco", "cost_per_token", "latency", "gpus", "power"}))
      ->default_str("tco");
  sub->add_option("--confidence",
                  o->confidence,
                  "Hold targets at the pessimistic edge of each prediction's uncertainty band "
                  "(band) or at the point estimate (point); docs/plan.md")
      ->check(CLI::IsMember({"band", "point"}))
      ->default_str("band");
  sub->add_flag("--wide", o->wide, "Table: every column (default: fits 80 columns)");
  sub->add_flag("--share-gpus",
                o->share_gpus,
                "Rank MIG slices in the cloud too, at their share of the GPU's price (on-prem "
                "always does)");
  sub->add_option("--color", o->color, "Colour in the table: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
  sub->add_option("--assume", o->assume, "Override a model constant: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  CLI::Option* lock_option =
      sub->add_option("--lock",
                      o->lock,
                      "Also write a lock file for rightsize check (default: rightsize.lock.json "
                      "beside the spec)")
          ->expected(0, 1)
          ->type_name("[FILE]");
  auto* dep = "Deployment (override the spec's deployment)";
  sub->add_option("--mode", o->mode, "cloud or onprem")
      ->check(CLI::IsMember({"cloud", "onprem"}))
      ->group(dep);
  sub->add_option("--horizon-months", o->horizon_months, "TCO horizon")
      ->check(CLI::Range(1LL, 240LL))
      ->group(dep);
  sub->add_option("--growth", o->growth, "Demand growth per month (0.05 = 5%)")
      ->check(CLI::Range(-0.5, 10.0))
      ->group(dep);
  sub->add_option("--hours-per-month", o->hours_per_month, "Billed hours per month (730)")
      ->check(CLI::Range(1.0, 744.0))
      ->group(dep);
  sub->add_option("--provider", o->provider, "Use this provider's prices")->group(dep);
  sub->add_option("--price-kind", o->price_kind, "on_demand, spot or committed")->group(dep);
  sub->add_option("--pue", o->pue, "Power usage effectiveness (1.3)")
      ->check(CLI::Range(1.0, 5.0))
      ->group(dep);
  sub->add_option("--electricity", o->electricity, "USD per kWh (0.12)")
      ->check(CLI::Range(0.0, 10.0))
      ->group(dep);
  sub->add_option("--amortization-years", o->amortization_years, "On-prem amortization (4)")
      ->check(CLI::Range(0.1, 20.0))
      ->group(dep);
  sub->add_option("--utilization", o->utilization, "Average power draw as a share of TDP (0.7)")
      ->check(CLI::Range(0.01, 1.0))
      ->group(dep);
  sub->callback([&ctx, o, lock_option]() {
    o->lock_given = lock_option->count() > 0;
    ctx.action = [&ctx, o]() {
      if (!o->output.empty() && same_file(o->output, o->spec)) {
        throw InputError("--output",
                         "is the spec itself (" + o->spec +
                             "); refusing to overwrite an input with the report");
      }
      Spec spec = load_spec(o->spec);
      for (const auto& w : spec.warnings) {
        ctx.log->warn("{}: {}", spec.file, w);
      }
      apply_overrides(*o, spec);
      const Catalog catalog = load_catalog(bundled_catalog_path(), user_catalog_path(o->common));
      resolve_prices(*o, catalog, spec);
      const Constants constants = load_constants(o->assume);
      const Efficiency efficiency = Efficiency::load(bundled_data_dir() + "/efficiency.json");
      const Uncertainty uncertainty = Uncertainty::load(bundled_data_dir() + "/uncertainty.json");
      PlanOptions options;
      options.uncertainty = &uncertainty;
      const EngineSupport engines = load_engine_support(bundled_data_dir() + "/engines.json");
      options.engines = &engines;
      options.share_gpus = o->share_gpus;
      options.confidence = o->confidence == "point" ? Confidence::point : Confidence::band;
      options.today = today();
      options.stale_days = spec.deployment.stale_price_days;
      const std::map<std::string, Objective> objectives{
          {"tco", Objective::tco},
          {"cost_per_token", Objective::cost_per_token},
          {"latency", Objective::latency},
          {"gpus", Objective::gpus},
          {"power", Objective::power}};
      options.objective = objectives.at(o->objective);
      const Plan plan = make_plan(spec, catalog, constants, efficiency, options);
      for (const auto& note : plan.notes) {
        if (note.find("did you mean") != std::string::npos) {
          ctx.log->warn("{}: {}", spec.file, note);
        }
      }
      RenderOptions render;
      render.top = o->top;
      render.wide = o->wide;
      render.color =
          o->color == "always" || (o->color == "auto" && o->output.empty() && ctx.out_is_terminal);
      std::ostringstream rendered;
      if (o->common.format == "json") {
        render_plan_json(plan, render, rendered);
      } else if (o->common.format == "markdown") {
        render_plan_markdown(plan, render, rendered);
      } else if (o->common.format == "csv") {
        render_plan_csv(plan, render, rendered);
      } else {
        render_plan_table(plan, render, rendered);
      }
      if (o->output.empty()) {
        ctx.out << rendered.str();
      } else {
        write_file_atomically(o->output, rendered.str());
      }
      if (o->lock_given) {
        const std::string path =
            o->lock.empty()
                ? (std::filesystem::path(o->spec).parent_path() / "rightsize.lock.json").string()
                : o->lock;
        write_lock_entry(plan, o->spec, path);
        ctx.log->info("wrote lock {}", path);
      }
      if (!plan.feasible()) {
        ctx.log->error("nothing feasible: no GPU configuration satisfies {}", spec.file);
        return ExitCode::infeasible;
      }
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
