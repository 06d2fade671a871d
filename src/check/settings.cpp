// The settings that shape a plan: their JSON (a lock's schema), and their effect on a spec and
// on the plan's options.

#include <rightsize/catalog/prices.hpp>
#include <rightsize/check/lock.hpp>
#include <rightsize/check/settings.hpp>
#include <rightsize/check/validate.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/plan/plan_checks.hpp>

namespace rightsize {

namespace {

template <class T> void set_if(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  if (v) {
    j[key] = *v;
  }
}

void apply_overrides(const PlanSettings& s, Deployment& d) {
  d.mode = s.mode.value_or(d.mode);
  d.horizon_months = s.horizon_months.value_or(d.horizon_months);
  d.growth_per_month = s.growth.value_or(d.growth_per_month);
  d.hours_per_month = s.hours_per_month.value_or(d.hours_per_month);
  d.pue = s.pue.value_or(d.pue);
  d.electricity_usd_per_kwh = s.electricity_usd_per_kwh.value_or(d.electricity_usd_per_kwh);
  d.amortization_years = s.amortization_years.value_or(d.amortization_years);
  d.utilization = s.utilization.value_or(d.utilization);
}

void resolve_prices(const PlanSettings& s, const Catalog& catalog, Spec& spec) {
  auto& d = spec.deployment;
  const std::string field = spec.file + ":/deployment/";
  if (s.price_kind) {
    d.price_kind = resolve_price_kind(*s.price_kind, "--price-kind");
  }
  if (d.mode != DeploymentMode::cloud) {
    return;
  }
  if (s.provider) {
    d.provider = resolve_provider(catalog, *s.provider, "--provider");
  } else if (d.provider) {
    d.provider = resolve_provider(catalog, *d.provider, field + "provider");
  }
  check_price_kind(
      catalog, d.price_kind, d.provider, s.price_kind ? "--price-kind" : field + "price_kind");
}

// An empty text is no override, on the command line as in a lock.
std::optional<std::string> non_empty(std::optional<std::string> text) {
  return text && !text->empty() ? text : std::nullopt;
}

} // namespace

const std::vector<std::pair<std::string, Objective>>& objective_names() {
  static const std::vector<std::pair<std::string, Objective>> names{
      {"tco", Objective::tco},
      {"cost_per_token", Objective::cost_per_token},
      {"latency", Objective::latency},
      {"gpus", Objective::gpus},
      {"power", Objective::power}};
  return names;
}

const std::vector<std::pair<std::string, Confidence>>& confidence_names() {
  static const std::vector<std::pair<std::string, Confidence>> names{{"band", Confidence::band},
                                                                     {"point", Confidence::point}};
  return names;
}

const std::vector<std::pair<std::string, DeploymentMode>>& mode_names() {
  static const std::vector<std::pair<std::string, DeploymentMode>> names{
      {"cloud", DeploymentMode::cloud}, {"onprem", DeploymentMode::onprem}};
  return names;
}

nlohmann::json settings_to_json(const PlanSettings& s) {
  nlohmann::json j{{"objective", std::string(to_string(s.objective))},
                   {"confidence", std::string(to_string(s.confidence))},
                   {"share_gpus", s.share_gpus},
                   {"assume", s.assume}};
  if (s.mode) {
    j["mode"] = std::string(to_string(*s.mode));
  }
  set_if(j, "horizon_months", s.horizon_months);
  set_if(j, "growth", s.growth);
  set_if(j, "hours_per_month", s.hours_per_month);
  set_if(j, "provider", s.provider);
  set_if(j, "price_kind", s.price_kind);
  set_if(j, "pue", s.pue);
  set_if(j, "electricity", s.electricity_usd_per_kwh);
  set_if(j, "amortization_years", s.amortization_years);
  set_if(j, "utilization", s.utilization);
  set_if(j, "calibration", s.calibration);
  return j;
}

PlanSettings
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
                    "utilization",
                    "calibration"});
  PlanSettings s;
  if (r.has("objective")) {
    s.objective = r.choice("objective", objective_names());
  }
  if (r.has("confidence")) {
    s.confidence = r.choice("confidence", confidence_names());
  }
  s.share_gpus = r.optional_boolean("share_gpus").value_or(false);
  if (r.has("assume")) {
    s.assume = r.string_array("assume");
  }
  if (r.has("mode")) {
    s.mode = r.choice("mode", mode_names());
  }
  s.horizon_months = r.optional_integer("horizon_months", Range{1, 240});
  s.growth = r.optional_number("growth", Range{-0.5, 10.0});
  s.hours_per_month = r.optional_number("hours_per_month", Range{1.0, 744.0});
  s.provider = non_empty(r.optional_string("provider"));
  s.price_kind = non_empty(r.optional_string("price_kind"));
  s.pue = r.optional_number("pue", Range{1.0, 5.0});
  s.electricity_usd_per_kwh = r.optional_number("electricity", Range{0.0, 10.0});
  s.amortization_years = r.optional_number("amortization_years", Range{0.1, 20.0});
  s.utilization = r.optional_number("utilization", Range{0.01, 1.0});
  s.calibration = non_empty(r.optional_string("calibration"));
  return s;
}

PlanSettings replay_settings(const nlohmann::json& recorded,
                             const nlohmann::json& given,
                             const std::string& lock_path,
                             const std::string& spec_file) {
  nlohmann::json settings = recorded;
  for (const auto& [key, value] : given.items()) {
    settings[key] = value;
  }
  return settings_from_json(settings, lock_path, lock_pointer(spec_file) + "/settings");
}

void apply_settings(const PlanSettings& s, const Catalog& catalog, Spec& spec) {
  apply_overrides(s, spec.deployment);
  resolve_prices(s, catalog, spec);
}

void check_as_plan(Spec spec, const Catalog& catalog) {
  apply_settings(PlanSettings{}, catalog, spec);
  check_constraint_gpus(spec, catalog);
  check_demand_growth(spec);
}

PlanOptions plan_options_for(const PlanSettings& s,
                             const Spec& spec,
                             const Uncertainty& uncertainty,
                             const EngineSupport& engines,
                             const std::string& today) {
  PlanOptions options;
  options.uncertainty = &uncertainty;
  options.engines = &engines;
  options.share_gpus = s.share_gpus;
  options.confidence = s.confidence;
  options.today = today;
  options.stale_days = spec.deployment.stale_price_days;
  options.objective = s.objective;
  return options;
}

std::string model_digest(const std::string& data_dir, const std::vector<std::string>& assume) {
  std::string text;
  for (const char* file : {"memory.json", "efficiency.json", "uncertainty.json", "engines.json"}) {
    std::string content;
    detail::load_json_file(data_dir + "/" + file, content);
    text += detail::fnv1a_hex(content);
  }
  for (const auto& a : assume) {
    text += "\n" + a;
  }
  return detail::fnv1a_hex(text);
}

} // namespace rightsize
