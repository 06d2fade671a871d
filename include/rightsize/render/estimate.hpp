#pragma once

// Rendering one evaluated configuration (`rightsize estimate`). Computing stays in estimate.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>

namespace rightsize {

struct EstimateReport {
  const Spec& spec;
  const Gpu& gpu;
  Parallelism parallelism;
  MemoryEstimate memory;
  std::optional<InferencePerformance> inference;
  std::optional<TrainingPerformance> training;
};

nlohmann::json estimate_to_json(const EstimateReport& r);
void render_estimate_json(const EstimateReport& r, std::ostream& out);
void render_estimate_table(const EstimateReport& r, std::ostream& out);

} // namespace rightsize
