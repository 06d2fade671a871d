#pragma once

// The bundled data, loaded once per test binary.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>

#include <string>

namespace rightsize::test {

inline const Catalog& catalog() {
  static const Catalog c = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  return c;
}

inline const Constants& constants() {
  static const Constants c = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
  return c;
}

inline const Efficiency& efficiency() {
  static const Efficiency e =
      Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
  return e;
}

inline const EngineSupport& engines() {
  static const EngineSupport e =
      load_engine_support(std::string(RIGHTSIZE_DATA_DIR) + "/engines.json");
  return e;
}

inline const Uncertainty& uncertainty() {
  static const Uncertainty u =
      Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
  return u;
}

// The options `rightsize plan` uses with no flags (bands, the engine table), on a fixed day.
inline PlanOptions cli_plan_options(const std::string& today) {
  PlanOptions o;
  o.today = today;
  o.uncertainty = &uncertainty();
  o.engines = &engines();
  return o;
}

} // namespace rightsize::test
