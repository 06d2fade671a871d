#pragma once

// One evaluated configuration as `rightsize estimate` reports it, and as a plan's candidates
// repeat its sections: the evaluation's parts (held by the caller, not copied), the spec's targets
// judged against the predictions, and the configuration priced at the catalog's cloud price.
// Judging and pricing happen here; render only formats the result (render/estimate.hpp).

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// One of the spec's targets against the prediction. Values are in the unit the target's name
// carries (the spec's own field: ttft_ms, tpot_ms, requests_per_s, output_tokens_per_s,
// deadline_hours; an embedding's latency_ms and sequences_per_s, an image workload's
// images_per_s, a transcription's audio_seconds_per_s).
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
  // Disaggregated prefill/decode (estimate's --prefill-replicas and --decode-replicas, a plan's
  // disaggregated candidate): the pools; `parallelism` is each replica's, `replicas` both pools',
  // `memory` a decode GPU's and `inference` the two pools' figures. Null: aggregated.
  const DisaggregatedPerformance* disaggregation = nullptr;
  std::string disaggregation_why{}; // a plan's: why it beat the aggregated configuration
};

// The value an optional holds, or null: what EstimateReport points at.
template <class T> const T* held(const std::optional<T>& value) {
  return value ? &*value : nullptr;
}

// One target judged: at the band's pessimistic edge (a ceiling's high end, a floor's low end) when
// there is a band and `at_band_edge`, else at the point.
TargetCheck judge_target(std::string target,
                         bool at_most,
                         double limit,
                         double predicted,
                         std::optional<Band> band,
                         bool at_band_edge);

// The spec's targets, in the order ttft (an embedding's or a transcription's latency), tpot, the
// request rate (images, sequences or audio seconds per second), output tokens per second and a
// training deadline, held to the band's pessimistic edge when r.judged_at_band_edge as plan holds
// them (docs/plan.md, "Margins"). None for serving without concurrency.
std::vector<TargetCheck> judge_targets(const EstimateReport& r);

// The report's cost, or the note saying why it has none. Cloud: per hour = the picked price x
// the GPUs of every replica, and per item at this load through the pricing law (core/units.hpp):
// per million priced tokens (output, embedded or trained), per thousand images (an image workload),
// per audio hour (transcription), and a training run's total. On-prem ownership (whole servers,
// power, amortization over a horizon) is plan's to compute: a note says so. `today` (YYYY-MM-DD)
// dates the price's staleness.
void price_report(EstimateReport& r, const std::string& today);

// --- One fixed configuration as `rightsize estimate` evaluates it. ---

// The spec as estimate evaluates it on `gpu`: the formats asked for (estimate's --weights and
// --kv-cache; none: the spec's own) applied as plan applies an allowed format (with_precision), the
// spec's cloud provider in the catalog's spelling ("aws" -> "AWS"), as plan reads it. Throws an
// InputError when QLoRA is asked for base weights other than nf4 or int4 (`--weights`), when the
// provider is unknown (`<spec>:/deployment/provider`), and when the catalog has no rate for the
// precision the GPU would compute in (`--gpu`). The formats on the GPU follow plan's rule
// (plan/generation_formats.hpp): bf16 becomes fp16 on a GPU without bf16, with a warning in the
// spec's warnings, and formats the spec's engine does not run on the GPU's generation
// (`engines`, data/engines.json; null: not checked) are an InputError naming `--gpu` with plan's
// reason.
Spec estimate_spec(const Spec& loaded,
                   const Catalog& catalog,
                   const Gpu& gpu,
                   std::optional<DType> weights,
                   std::optional<DType> kv_cache,
                   const EngineSupport* engines);

// Serving: the batch of one of `replicas` replicas: `given` (--batch) when set; else the spec's
// concurrency shared among the replicas as plan shares it, ceil(concurrency / replicas); else none
// (offline: the largest that fits).
std::optional<long long>
replica_batch(const Spec& spec, std::optional<long long> given, int replicas);

// One fixed configuration evaluated: what its EstimateReport points at.
struct EstimateEvaluation {
  Spec spec;                // as evaluated (estimate_spec)
  const Gpu* gpu = nullptr; // the catalog's, which outlives this
  Parallelism parallelism;  // serving: one replica (dp 1); training: the whole job
  int replicas = 1;         // serving: the layout's dp, copies sharing the load
  MemoryEstimate memory;
  std::optional<InferencePerformance> inference; // serving: rates over all replicas
  std::optional<InferenceBands> inference_bands; // serving with concurrency
  std::optional<TrainingPerformance> training;
  std::optional<TrainingBands> training_bands;
  Band memory_band;         // total bytes per GPU
  double band_coverage = 0; // share of held-out runs inside a band
  Calibration calibration;  // of the GPU family's (and engine's) efficiencies
  // Disaggregated (estimate_disaggregated_configuration): the pools; none aggregated.
  std::optional<DisaggregatedPerformance> disaggregation;
};

// `spec` on `gpu` in `layout` (every GPU: serving's dp are replicas, each estimated alone, the
// rates adding up), at `batch` sequences per replica (serving; none: replica_batch) or micro-batch
// (training; none: the largest that fits): memory term by term, speed and the bands around it.
EstimateEvaluation estimate_configuration(Spec spec,
                                          const Gpu& gpu,
                                          const Parallelism& layout,
                                          std::optional<long long> batch,
                                          const Constants& constants,
                                          const Efficiency& efficiency,
                                          const Uncertainty& uncertainty);

// `spec` on `gpu` served disaggregated (docs/model.md, "Disaggregated serving"): `prefills`
// prefill and `decodes` decode replicas, each laid out as `layout` (dp 1), serving the spec's
// concurrency. The bands are the pair's enveloped with the disaggregated runs'
// (Uncertainty::disaggregated), the calibration not measured. An InputError naming
// `--prefill-replicas` when the spec cannot be split (disaggregation_refusal) or a pool does not
// hold a sequence.
EstimateEvaluation estimate_disaggregated_configuration(Spec spec,
                                                        const Gpu& gpu,
                                                        const Parallelism& layout,
                                                        int prefills,
                                                        int decodes,
                                                        const Constants& constants,
                                                        const Efficiency& efficiency,
                                                        const Uncertainty& uncertainty);

// The report estimate renders: `e`'s parts (which must outlive it), its targets judged at the
// band's pessimistic edge (Confidence::band) or at the point, and its cost (price_report).
EstimateReport
estimate_report(const EstimateEvaluation& e, Confidence confidence, const std::string& today);

} // namespace rightsize
