#include "cli/plan_setup.hpp"

#include "cli/commands.hpp"
#include "cli/common_options.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/plan/published.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

namespace rightsize::cli {

namespace {

// A choice among `names` (a table that lives as long as the program), checked by CLI11 against
// them, stored in `into` (an E, or an optional E).
template <class E, class Into>
CLI::Option* add_choice(CLI::App& sub,
                        const std::string& flag,
                        const std::vector<std::pair<std::string, E>>& names,
                        Into& into,
                        const std::string& description) {
  std::vector<std::string> choices;
  choices.reserve(names.size());
  for (const auto& [name, value] : names) {
    choices.push_back(name);
  }
  return sub
      .add_option_function<std::string>(
          flag,
          [&names, &into](const std::string& given) {
            for (const auto& [name, value] : names) {
              if (name == given) {
                into = value;
              }
            }
          },
          description)
      ->check(CLI::IsMember(std::move(choices)));
}

// A value that, given, replaces the spec's (or the lock's).
template <class T>
CLI::Option* add_override(CLI::App& sub,
                          const std::string& flag,
                          std::optional<T>& into,
                          const std::string& description) {
  return sub.add_option_function<T>(
      flag, [&into](const T& value) { into = value; }, description);
}

// An empty text is no override.
CLI::Option* add_text_override(CLI::App& sub,
                               const std::string& flag,
                               std::optional<std::string>& into,
                               const std::string& description) {
  return sub.add_option_function<std::string>(
      flag,
      [&into](const std::string& value) {
        into = value.empty() ? std::nullopt : std::optional<std::string>(value);
      },
      description);
}

} // namespace

void add_plan_options(CLI::App& sub, PlanSettings& s) {
  add_choice(sub,
             "--objective",
             objective_names(),
             s.objective,
             "Rank by tco, cost_per_token, latency, gpus or power")
      ->default_str("tco");
  add_choice(sub,
             "--confidence",
             confidence_names(),
             s.confidence,
             "Hold targets at the pessimistic edge of each prediction's uncertainty band "
             "(band) or at the point estimate (point); docs/plan.md")
      ->default_str("band");
  sub.add_flag("--share-gpus",
               s.share_gpus,
               "Rank MIG slices in the cloud too, at their share of the GPU's price (on-prem "
               "always does)");
  sub.add_option("--assume", s.assume, "Override a model constant: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  auto* dep = "Deployment (override the spec's deployment)";
  add_choice(sub, "--mode", mode_names(), s.mode, "cloud or onprem")->group(dep);
  add_override(sub, "--horizon-months", s.horizon_months, "TCO horizon")
      ->transform(whole_number_in(1, 240))
      ->group(dep);
  add_override(sub, "--growth", s.growth, "Demand growth per month (0.05 = 5%)")
      ->check(number_in(-0.5, 10.0))
      ->group(dep);
  add_override(sub, "--hours-per-month", s.hours_per_month, "Billed hours per month (730)")
      ->check(number_in(1.0, 744.0))
      ->group(dep);
  add_text_override(sub, "--provider", s.provider, "Use this provider's prices")->group(dep);
  add_text_override(
      sub, "--price-kind", s.price_kind, "on_demand, spot, committed_1y, committed_3y or committed")
      ->group(dep);
  add_override(sub, "--pue", s.pue, "Power usage effectiveness (1.3)")
      ->check(number_in(1.0, 5.0))
      ->group(dep);
  add_override(sub, "--electricity", s.electricity_usd_per_kwh, "USD per kWh (0.12)")
      ->check(number_in(0.0, 10.0))
      ->group(dep);
  add_override(sub, "--amortization-years", s.amortization_years, "On-prem amortization (4)")
      ->check(number_in(0.1, 20.0))
      ->group(dep);
  add_override(sub, "--utilization", s.utilization, "Average power draw as a share of TDP (0.7)")
      ->check(number_in(0.01, 1.0))
      ->group(dep);
  add_text_override(sub,
                    "--calibration",
                    s.calibration,
                    "A site's calibration (rightsize calibrate -o FILE): its fitted factors and "
                    "bands replace the bundled ones for the GPU families, engine and model kind "
                    "its runs measured")
      ->type_name("FILE");
}

nlohmann::json given_settings(const CLI::App& sub, const PlanSettings& settings) {
  const nlohmann::json all = settings_to_json(settings);
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
      {"--utilization", "utilization"},
      {"--calibration", "calibration"}};
  nlohmann::json given = nlohmann::json::object();
  for (const auto& [flag, key] : names) {
    const CLI::Option* opt = sub.get_option_no_throw(flag);
    if (opt != nullptr && opt->count() > 0 && all.contains(key)) {
      given[key] = all[key];
    }
  }
  return given;
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
  run->catalog = load_catalog(
      bundled_catalog_path(o.common), user_catalog_path(o.common), CatalogDetail::figures);
  apply_settings(o.settings, run->catalog, spec);
  run->constants = load_constants(o.common, o.settings.assume);
  run->efficiency = Efficiency::load(bundled_data_dir(o.common) + "/efficiency.json");
  run->uncertainty = Uncertainty::load(bundled_data_dir(o.common) + "/uncertainty.json");
  run->engines = load_engine_support(bundled_data_dir(o.common) + "/engines.json");
  if (o.settings.calibration) {
    run->calibration = install_calibration(
        *o.settings.calibration, spec, run->efficiency, run->uncertainty, *ctx.log);
  }
  run->options = plan_options_for(o.settings, spec, run->uncertainty, run->engines, today());
  run->options.simulate = o.simulate;
  run->options.disaggregate = o.disaggregate;
  run->plan = make_plan(spec, run->catalog, run->constants, run->efficiency, run->options);
  if (run->calibration) {
    run->plan.notes.push_back(calibration_note(*run->calibration, spec));
  }
  if (o.with_published) {
    run->published = load_published_index(published_index_path(o.common, o.published));
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

} // namespace rightsize::cli
