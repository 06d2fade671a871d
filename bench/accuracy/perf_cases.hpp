#pragma once

// Measured speed in ../shared/validation turned into predictions: serving TTFT/TPOT
// (serving_measured.csv, aggregated rows, de-duplicated), TensorRT-LLM tables, Megatron MFU.
// Each case keeps a predictor so that the fitter can re-evaluate it under other efficiencies.

#include "memory_cases.hpp"

#include <rightsize/estimate/performance.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rightsize::accuracy {

// What the leave-one-group-out derivation groups serving lines by (bench/accuracy/logo.hpp): the
// model's kind (dense, moe, mla, hybrid), the lengths, and whether the KV cache overflows
// (InferencePerformance::kv_overflow under the efficiencies the cases were built with).
struct Prepared;

struct ServingTraits {
  std::string model_kind;
  long long input_tokens = 0;
  long long output_tokens = 0;
  bool queueing = false;
  // What the predictor evaluates, for the site-calibration check (bench/calibration_loo.cpp).
  std::shared_ptr<const Prepared> prepared;
};

struct PerfCase {
  std::string id;
  std::string metric; // ttft, tpot, throughput, first_token, achieved_tflops, mfu
  std::string group;  // serving, trtllm-table, megatron
  std::string family; // GPU family
  std::string engine;
  double measured = 0;
  bool held_out = false;
  std::function<double(const Efficiency&)> predict;
  ServingTraits serving; // set by describe_serving (serving lines)
};

// What a predictor keeps of its case: the spec, the GPU, the layout and its memory estimate.
struct Prepared {
  Spec spec;
  Gpu gpu;
  Parallelism p;
  MemoryEstimate memory;
};

// Sets `c`'s model kind, lengths and queueing from its prepared spec (serving lines).
void describe_serving(PerfCase& c,
                      const Prepared& prepared,
                      const Efficiency& efficiency,
                      const Constants& constants);

// One in four configurations is held out of every fit, chosen by a hash (FNV-1a) of its key.
bool held_out_key(const std::string& key);

struct PerfCases {
  std::vector<PerfCase> cases;
  // Serving lines with data-parallel attention: predicted and reported, never fitted, and kept out
  // of the bands and coverage (docs/accuracy.md, "Attention data parallelism").
  std::vector<PerfCase> attention_dp;
  // Disaggregated prefill/decode runs (disaggregated_cases.hpp): predicted and reported, never
  // fitted; their measured / predicted ratios are the disaggregated layout's band.
  std::vector<PerfCase> disaggregated;
  std::vector<Skipped> skipped;   // grouped reasons with counts
  int serving_rows_read = 0;      // aggregated rows before de-duplication
  int serving_configurations = 0; // after
};

// serving_measured.csv's names as this repository's: model_path -> the model's folder under
// tests/data/configs, system -> the catalog's GPU, backend -> rightsize's engine; and the spec's
// precision for a row's precision and GEMM quantization columns.
extern const std::map<std::string, std::string> k_serving_models;
extern const std::map<std::string, std::string> k_serving_systems;
extern const std::map<std::string, std::string> k_serving_engines;
nlohmann::json serving_precision(const std::string& prec, const std::string& gemm);

// `efficiency` names each case's GPU family (its generations table); the fit changes only its
// factors.
PerfCases build_perf_cases(const std::string& validation_dir,
                           const std::string& configs_dir,
                           const Catalog& catalog,
                           const Constants& constants,
                           const Efficiency& efficiency);

// Median and worst absolute relative error of `cases` with `metric` under `eff`.
struct ErrorSummary {
  int count = 0;
  double median = 0;
  double worst = 0;
  double mean_absolute_log = 0; // the fit's objective: robust to the few queueing outliers
  // Quantiles of measured / predicted: 80% of the lines' true values lie within
  // [predicted x ratio_p10, predicted x ratio_p90] (the uncertainty band, docs/accuracy.md).
  double ratio_p10 = 1;
  double ratio_p90 = 1;
};
ErrorSummary summarize(const std::vector<const PerfCase*>& cases, const Efficiency& eff);

} // namespace rightsize::accuracy
