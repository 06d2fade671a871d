#pragma once

// Rendering one evaluated configuration (`rightsize estimate`). Computing stays in estimate (and
// in the CLI, which judges the targets and prices the configuration); this file only formats.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/json_writer.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// One of the spec's targets against the prediction. Values are in the unit the target's name
// carries (the spec's own field: ttft_ms, tpot_ms, requests_per_s, output_tokens_per_s,
// deadline_hours).
struct TargetCheck {
  std::string target;
  bool at_most = true;  // a ceiling (latency, deadline); false: a floor (throughput)
  double limit = 0;     // the spec's value
  double predicted = 0; // the point estimate
  std::optional<Band> band;
  double held = 0;           // the value judged: the band's pessimistic edge, or the point
  bool met = false;          // at `held`
  bool met_at_point = false; // at `predicted`
  // Share of the limit to spare at `held`: (limit - held) / limit for a ceiling, (held - limit) /
  // limit for a floor; negative when missed.
  double margin = 0;
};

// What the configuration costs at the catalog's price (cloud): per hour = price x GPUs.
struct EstimateCost {
  Price price; // the cheapest of the deployment's kind (and provider, when the spec names one)
  std::string price_label; // "$2.95/h Nebius on_demand (retrieved 2026-11-21)", as plan says it
  bool price_stale = false;
  UsdPerHour per_hour;
  std::optional<double> usd_per_million_tokens;  // output tokens (serving), trained tokens
  std::optional<double> usd_per_thousand_images; // an image embedding workload
  std::optional<double> usd_per_audio_hour;      // transcription: per hour of audio transcribed
  std::optional<Usd> to_train;                   // training: per hour x time to train
};

// One evaluated configuration as an estimate shows it: the evaluation's parts, held by the
// caller (estimate's, or a plan's candidate, which is not copied to render it), and what judging
// and pricing them adds. A null part is one the evaluation has none of.
struct EstimateReport {
  const Spec& spec; // as evaluated: --weights and --kv-cache applied
  const Gpu& gpu;
  Parallelism parallelism; // serving: one replica (dp 1); training: the whole job
  const MemoryEstimate& memory;
  const InferencePerformance* inference = nullptr; // rates over all replicas
  const TrainingPerformance* training = nullptr;
  int replicas = 1; // serving: copies of the layout sharing the load (estimate's --dp)
  // Bands and the edge targets are judged at; no bands: none loaded.
  const InferenceBands* inference_bands = nullptr;
  const TrainingBands* training_bands = nullptr;
  std::optional<Band> memory_band{}; // total bytes per GPU
  double band_coverage = 0;          // share of held-out runs inside a band (0.8)
  bool judged_at_band_edge = false;
  // What the GPU family's (and engine's) efficiencies were fitted on, with the bands.
  const Calibration* calibration = nullptr;
  std::vector<TargetCheck> targets{};
  std::optional<EstimateCost> cost{};
  std::string cost_note{}; // why there is no cost, when there is none
};

// The value an optional holds, or null: what EstimateReport points at.
template <class T> const T* held(const std::optional<T>& value) {
  return value ? &*value : nullptr;
}

// JSON (schema_version 1), written without building a tree (detail::JsonWriter).
void render_estimate_json(const EstimateReport& r, std::ostream& out);

// The sections of an estimate that a plan's candidates repeat, each written as the value of the
// key the caller has just written: "parallelism" (dp over all replicas), "memory" (with
// bands.total_bytes), "inference" (serving specs; with its bands) or "training" (training specs;
// with its bands), "precision" and "calibration".
void write_parallelism_json(detail::JsonWriter& w, const EstimateReport& r);
void write_memory_json(detail::JsonWriter& w, const EstimateReport& r);
void write_inference_json(detail::JsonWriter& w, const EstimateReport& r);
void write_training_json(detail::JsonWriter& w, const EstimateReport& r);
void write_precision_json(detail::JsonWriter& w, const Spec& spec);
void write_calibration_json(detail::JsonWriter& w, const Calibration& c);

// What limits the configuration, and one sentence saying why; none without a performance estimate.
struct Bottleneck {
  std::string_view name;
  std::string_view explanation;
};
std::optional<Bottleneck> bottleneck(const EstimateReport& r);
void render_estimate_table(const EstimateReport& r, std::ostream& out);

} // namespace rightsize
