#include "cli/plan_setup.hpp"

#include "cli/commands.hpp"

#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/json_reader.hpp>

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
  sub.add_option("--objective", o.objective, "Rank by tco, cost_per_token, latency, gpus or power")
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

void apply_settings(const PlanCliOptions& o, const Catalog& catalog, Spec& spec) {
  apply_overrides(o, spec);
  resolve_prices(o, catalog, spec);
}

PlanOptions plan_options_for(const PlanCliOptions& o,
                             const Spec& spec,
                             const Uncertainty& uncertainty,
                             const EngineSupport& engines) {
  PlanOptions options;
  options.uncertainty = &uncertainty;
  options.engines = &engines;
  options.share_gpus = o.share_gpus;
  options.confidence = o.confidence == "point" ? Confidence::point : Confidence::band;
  options.today = today();
  options.stale_days = spec.deployment.stale_price_days;
  static const std::map<std::string, Objective> objectives{
      {"tco", Objective::tco},
      {"cost_per_token", Objective::cost_per_token},
      {"latency", Objective::latency},
      {"gpus", Objective::gpus},
      {"power", Objective::power}};
  options.objective = objectives.at(o.objective);
  return options;
}

std::unique_ptr<PlanRun> run_plan(const PlanCliOptions& o,
                                  Context& ctx,
                                  const std::function<void(Spec&)>& adjust,
                                  bool digest) {
  auto run = std::make_unique<PlanRun>();
  Spec& spec = run->spec;
  spec = load_spec(o.spec);
  for (const auto& w : spec.warnings) {
    ctx.log->warn("{}: {}", spec.file, w);
  }
  if (adjust) {
    adjust(spec);
  }
  if (digest) {
    run->spec_digest = digest_spec(spec);
  }
  run->catalog =
      load_catalog(bundled_catalog_path(), user_catalog_path(o.common), CatalogDetail::figures);
  apply_settings(o, run->catalog, spec);
  run->constants = load_constants(o.assume);
  run->efficiency = Efficiency::load(bundled_data_dir() + "/efficiency.json");
  run->uncertainty = Uncertainty::load(bundled_data_dir() + "/uncertainty.json");
  run->engines = load_engine_support(bundled_data_dir() + "/engines.json");
  run->options = plan_options_for(o, spec, run->uncertainty, run->engines);
  run->plan = make_plan(spec, run->catalog, run->constants, run->efficiency, run->options);
  if (o.with_published) {
    run->published = load_published_index(published_index_path(o.published));
    attach_published(
        run->plan, *run->published, run->catalog, run->constants, run->efficiency, run->options);
  }
  for (const auto& note : run->plan.notes) {
    if (note.find("did you mean") != std::string::npos) {
      ctx.log->warn("{}: {}", spec.file, note);
    }
  }
  return run;
}

nlohmann::json settings_to_json(const PlanCliOptions& o) {
  nlohmann::json j{{"objective", o.objective},
                   {"confidence", o.confidence},
                   {"share_gpus", o.share_gpus},
                   {"assume", o.assume}};
  if (!o.mode.empty()) {
    j["mode"] = o.mode;
  }
  if (o.horizon_months > 0) {
    j["horizon_months"] = o.horizon_months;
  }
  if (o.growth >= -0.5) {
    j["growth"] = o.growth;
  }
  if (o.hours_per_month > 0) {
    j["hours_per_month"] = o.hours_per_month;
  }
  if (!o.provider.empty()) {
    j["provider"] = o.provider;
  }
  if (!o.price_kind.empty()) {
    j["price_kind"] = o.price_kind;
  }
  if (o.pue > 0) {
    j["pue"] = o.pue;
  }
  if (o.electricity >= 0) {
    j["electricity"] = o.electricity;
  }
  if (o.amortization_years > 0) {
    j["amortization_years"] = o.amortization_years;
  }
  if (o.utilization > 0) {
    j["utilization"] = o.utilization;
  }
  return j;
}

PlanCliOptions
settings_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer) {
  using detail::Range;
  const detail::FieldReader r(j, file, pointer);
  r.reject_unknown({"objective",
                    "confidence",
                    "share_gpus",
                    "assume",
                    "mode",
                    "horizon_months",
                    "growth",
                    "hours_per_month",
                    "provider",
                    "price_kind",
                    "pue",
                    "electricity",
                    "amortization_years",
                    "utilization"});
  PlanCliOptions o;
  if (r.has("objective")) {
    o.objective = r.choice<std::string>("objective",
                                        {{"tco", "tco"},
                                         {"cost_per_token", "cost_per_token"},
                                         {"latency", "latency"},
                                         {"gpus", "gpus"},
                                         {"power", "power"}});
  }
  if (r.has("confidence")) {
    o.confidence = r.choice<std::string>("confidence", {{"band", "band"}, {"point", "point"}});
  }
  o.share_gpus = r.optional_boolean("share_gpus").value_or(false);
  if (r.has("assume")) {
    o.assume = r.string_array("assume");
  }
  if (r.has("mode")) {
    o.mode = r.choice<std::string>("mode", {{"cloud", "cloud"}, {"onprem", "onprem"}});
  }
  o.horizon_months = r.optional_integer("horizon_months", Range{1, 240}).value_or(0);
  o.growth = r.optional_number("growth", Range{-0.5, 10.0}).value_or(-1);
  o.hours_per_month = r.optional_number("hours_per_month", Range{1.0, 744.0}).value_or(0);
  o.provider = r.optional_string("provider").value_or("");
  o.price_kind = r.optional_string("price_kind").value_or("");
  o.pue = r.optional_number("pue", Range{1.0, 5.0}).value_or(0);
  o.electricity = r.optional_number("electricity", Range{0.0, 10.0}).value_or(-1);
  o.amortization_years = r.optional_number("amortization_years", Range{0.1, 20.0}).value_or(0);
  o.utilization = r.optional_number("utilization", Range{0.01, 1.0}).value_or(0);
  return o;
}

nlohmann::json given_settings(const CLI::App& sub, const PlanCliOptions& o) {
  const nlohmann::json all = settings_to_json(o);
  static const std::vector<std::pair<const char*, const char*>> names{
      {"--objective", "objective"},
      {"--confidence", "confidence"},
      {"--share-gpus", "share_gpus"},
      {"--assume", "assume"},
      {"--mode", "mode"},
      {"--horizon-months", "horizon_months"},
      {"--growth", "growth"},
      {"--hours-per-month", "hours_per_month"},
      {"--provider", "provider"},
      {"--price-kind", "price_kind"},
      {"--pue", "pue"},
      {"--electricity", "electricity"},
      {"--amortization-years", "amortization_years"},
      {"--utilization", "utilization"}};
  nlohmann::json given = nlohmann::json::object();
  for (const auto& [flag, key] : names) {
    const CLI::Option* opt = sub.get_option_no_throw(flag);
    if (opt != nullptr && opt->count() > 0 && all.contains(key)) {
      given[key] = all[key];
    }
  }
  return given;
}

std::string model_digest(const std::vector<std::string>& assume) {
  std::string text;
  for (const char* file : {"memory.json", "efficiency.json", "uncertainty.json", "engines.json"}) {
    std::string content;
    detail::load_json_file(bundled_data_dir() + "/" + file, content);
    text += detail::fnv1a_hex(content);
  }
  for (const auto& a : assume) {
    text += "\n" + a;
  }
  return detail::fnv1a_hex(text);
}

} // namespace rightsize::cli
