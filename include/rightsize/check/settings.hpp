#pragma once

// The settings that shape a plan beyond its spec: the objective, the confidence targets are held
// to, MIG sharing, --assume overrides of the model constants and the deployment overrides. plan,
// deploy and check take them on the command line; a lock records them (settings_to_json) and
// check and deploy --lock replay them (docs/ci.md, "What a lock holds"). They live in the check
// stage because their JSON is the lock's schema; the plan stage's own input stays PlanOptions.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rightsize {

struct PlanSettings {
  Objective objective = Objective::tco;
  Confidence confidence = Confidence::band;
  bool share_gpus = false;         // rank MIG slices in the cloud too
  std::vector<std::string> assume; // NAME=VALUE each, over data/memory.json
  // Deployment overrides: each one set replaces the spec's (spec.hpp, Deployment).
  std::optional<DeploymentMode> mode;
  std::optional<long long> horizon_months;       // 1 to 240
  std::optional<double> growth;                  // demand growth per month, -0.5 to 10
  std::optional<double> hours_per_month;         // billed hours, 1 to 744
  std::optional<std::string> provider;           // as written; resolved against the catalog
  std::optional<std::string> price_kind;         // as written: on_demand, spot, committed
  std::optional<double> pue;                     // 1 to 5
  std::optional<double> electricity_usd_per_kwh; // 0 to 10
  std::optional<double> amortization_years;      // 0.1 to 20
  std::optional<double> utilization;             // average power draw as a share of TDP, 0.01 to 1
  // A site's calibration file (--calibration; docs/calibrate.md), as written: its factors and
  // bands replace the bundled ones where they apply. Locks record its digest beside.
  std::optional<std::string> calibration;
};

// The names of each choice, as the command line and a lock's settings write them, in the order
// the command line's help lists them.
const std::vector<std::pair<std::string, Objective>>& objective_names();
const std::vector<std::pair<std::string, Confidence>>& confidence_names();
const std::vector<std::pair<std::string, DeploymentMode>>& mode_names();

// The settings as a lock records them: objective, confidence, share_gpus and assume always,
// each deployment override only when set (keys "mode", "horizon_months", "growth",
// "hours_per_month", "provider", "price_kind", "pue", "electricity", "amortization_years",
// "utilization", "calibration").
nlohmann::json settings_to_json(const PlanSettings& s);
// The same settings read back; errors name `file` and the field under `pointer`, with the same
// ranges as the command line's options. An absent key is the default (no override).
PlanSettings
settings_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer);
// The settings a lock entry recorded (`recorded`: a settings object, as settings_to_json writes
// it), with `given` over them (settings_to_json's keys: the options given on the command line),
// read back. Errors name `lock_path` and the entry of `spec_file`.
PlanSettings replay_settings(const nlohmann::json& recorded,
                             const nlohmann::json& given,
                             const std::string& lock_path,
                             const std::string& spec_file);

// The deployment overrides applied to `spec`, then its provider and price kind resolved against
// the catalog ("aws" is the catalog's "AWS"): prices the catalog lacks altogether are bad input
// (InputError), not a plan with nothing feasible. On-prem plans price purchases, so neither
// applies there.
void apply_settings(const PlanSettings& s, const Catalog& catalog, Spec& spec);
// PlanOptions for these settings; `uncertainty` and `engines` must outlive the plan. `today`
// (YYYY-MM-DD) dates stale prices.
PlanOptions plan_options_for(const PlanSettings& s,
                             const Spec& spec,
                             const Uncertainty& uncertainty,
                             const EngineSupport& engines,
                             const std::string& today);
// Digest of rightsize's own model data (memory.json, efficiency.json, uncertainty.json and
// engines.json in `data_dir`) and the --assume overrides: a lock records it, and check says when
// it moved.
std::string model_digest(const std::string& data_dir, const std::vector<std::string>& assume);

} // namespace rightsize
