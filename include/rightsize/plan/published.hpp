#pragma once

// Published measurements beside rightsize's predictions: a published run re-predicted on the
// spec's model (rightsize compare, and the nearest published run of a plan's candidate). How a
// model matches, how each scenario is predicted and what "near" means: docs/published.md.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// One published run and rightsize's prediction of that same run.
struct PublishedPrediction {
  PublishedResult result;
  PublishedSource source;
  // rightsize's output tokens/s for all of the run's GPUs, and its band; none with `unpredicted`
  // saying why (a GPU not in the catalog, an engine rightsize does not model, no fit).
  std::optional<double> predicted;
  std::optional<Band> band;
  std::string unpredicted;
  // What was predicted: the run's layout, or, where the source does not publish it, the layout
  // of the GPU count that predicts the most (layout_chosen).
  Parallelism layout;
  bool layout_chosen = false;
  int replicas = 1;
  long long batch = 0; // sequences per replica
  std::string weights; // the formats predicted with: the run's, "?" for weights it does not state
  std::string kv_cache;
  // The source does not state the KV cache's format: kv_cache is what the engine does by default
  // with the run's weights (docs/published.md).
  bool kv_cache_assumed = false;
  std::optional<Calibration> calibration;
  // predicted / published - 1; 0 without a prediction.
  [[nodiscard]] double error() const {
    return predicted ? *predicted / result.output_tokens_per_s - 1.0 : 0.0;
  }
};

// The published model whose architecture a spec's model has: the same layers, widths, heads,
// KV heads, MLP and expert sizes, and a parameter count within 2% (a fine-tune with a few added
// tokens still matches). None when no model matches.
const PublishedModel* match_published_model(const ModelArch& model, const PublishedData& data);

// Predicts one published run on `spec`'s model (its precision where the run states none): the
// run's GPU, layout, engine, formats and lengths, in its scenario. `uncertainty` may be null (no
// bands).
PublishedPrediction predict_published(const Spec& spec,
                                      const PublishedResult& result,
                                      const PublishedData& data,
                                      const Catalog& catalog,
                                      const Constants& constants,
                                      const Efficiency& efficiency,
                                      const Uncertainty* uncertainty);

// Of the published runs of the spec's model that rightsize can predict, the one nearest a
// configuration: the same GPU, the same GPUs per replica where the run publishes its layout, the
// same weight format, and input and output lengths each within a factor of 2.5 of the spec's;
// nearest in log length, offline before latency-bounded scenarios, then by id. None when nothing
// is near.
const PublishedResult* nearest_published(const Spec& spec,
                                         const std::string& gpu,
                                         const Parallelism& layout,
                                         DType weights,
                                         const PublishedData& data,
                                         const PublishedModel& model);

// Every published run of the spec's model (those of `gpus` and `scenario` when given),
// predicted, with the median error per scenario.
struct PublishedSummary {
  std::string scenario; // "offline", "server", ..., or "all"
  int runs = 0;         // runs predicted
  double median_abs_error = 0;
  double median_error = 0; // signed: above 0, rightsize predicts more than was published
};

struct CompareFilter {
  std::vector<std::string> gpus; // catalog names; empty: all
  std::optional<PublishedScenario> scenario;
};

struct Comparison {
  std::string spec_name;
  std::string spec_model;                    // the spec's model name
  std::optional<PublishedModel> model;       // none: no published model has this architecture
  std::vector<PublishedPrediction> rows;     // by GPU, GPUs, formats, scenario, lengths, id
  std::vector<PublishedSummary> summary;     // per scenario present, then "all"
  std::vector<PublishedSource> sources;      // those the rows cite, by key
  std::vector<std::string> published_models; // every model of the data, for "none matched"
};

Comparison compare_published(const Spec& spec,
                             PublishedData& data,
                             const Catalog& catalog,
                             const Constants& constants,
                             const Efficiency& efficiency,
                             const Uncertainty* uncertainty,
                             const CompareFilter& filter);

} // namespace rightsize
