#pragma once

// What the estimate's JSON, its sections and its table share (src/render/estimate_*.cpp): a band
// as JSON, the bands of an estimate, and how a target reads for a person.

#include <rightsize/core/json_writer.hpp>
#include <rightsize/plan/estimate_report.hpp>

#include <optional>
#include <string>

namespace rightsize::detail {

// [low, high], or null.
void write_band(JsonWriter& w, const std::optional<Band>& b);

// Which bands write_bands writes: every one (an estimate's "bands"), or those of one workload
// beside its figures (inference.bands, training.bands).
enum class BandFields { all, inference, training };
void write_bands(JsonWriter& w, const EstimateReport& r, BandFields fields);

// A target's value in its unit, for a person: "38.2 ms", "6.2 h", "1234", "0.5".
std::string target_value(const std::string& target, double v);
// "TPOT 38.2 ms vs 50 ms: met, 24% under": the value judged against the limit, and by how much.
std::string target_summary(const TargetCheck& t, int replicas);

} // namespace rightsize::detail
