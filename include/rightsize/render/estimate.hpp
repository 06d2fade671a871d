#pragma once

// Rendering one evaluated configuration (`rightsize estimate`), and the sections of it a plan's
// candidates repeat. Computing stays in estimate and plan (plan/estimate_report.hpp judges the
// targets and prices the configuration); this file only formats. The JSON sections are in
// src/render/estimate_sections.cpp, the whole JSON in estimate_json.cpp, the table in
// estimate_table.cpp.

#include <rightsize/core/json_writer.hpp>
#include <rightsize/plan/estimate_report.hpp>

#include <optional>
#include <ostream>
#include <string_view>

namespace rightsize {

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
// Disaggregated pools as JSON: {prefill: {gpu, gpus_per_replica, tp, ep, attention_dp,
// replicas, utilization}, decode: {..., batch, max_batch}, kv_transfer_ms, kv_transfer_bytes,
// kv_link, limited_by, why}.
void write_disaggregation_json(detail::JsonWriter& w,
                               const Gpu& gpu,
                               const DisaggregatedPerformance& d,
                               std::string_view why);
// The pools in one line: "1 prefill replica (TP8, 62% busy) + 4 decode replicas (TP8, 97
// sequences each of 256); each prompt's KV cache, 309 MiB a GPU, crosses NVLink in 1.2 ms".
std::string disaggregation_text(const DisaggregatedPerformance& d);

// What limits the configuration, and one sentence saying why; none without a performance estimate.
struct Bottleneck {
  std::string_view name;
  std::string_view explanation;
};
std::optional<Bottleneck> bottleneck(const EstimateReport& r);
void render_estimate_table(const EstimateReport& r, std::ostream& out);

} // namespace rightsize
