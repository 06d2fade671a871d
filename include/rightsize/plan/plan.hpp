#pragma once

// rightsize plan: for every GPU the spec allows, the cheapest configuration (layout, replicas,
// precision) that meets every target, its cost and TCO, a verdict, and for each GPU that cannot
// serve the workload a structured reason. Search, cost and ranking: docs/plan.md.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/published.hpp>
#include <rightsize/spec/spec.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

enum class Objective { tco, cost_per_token, latency, gpus, power };
std::string_view to_string(Objective o);

// Which value targets are held to: the pessimistic edge of the prediction's uncertainty band
// (default), or the point estimate (--confidence point). docs/plan.md, "Margins".
enum class Confidence { band, point };
std::string_view to_string(Confidence c);

struct PlanOptions {
  Objective objective = Objective::tco;
  std::string today; // YYYY-MM-DD, for stale prices
  long stale_days = 180;
  Confidence confidence = Confidence::band;
  // The bands (data/uncertainty.json); null: no bands, targets held to the point estimate.
  // Must outlive make_plan.
  const Uncertainty* uncertainty = nullptr;
  // Which formats each engine runs on each GPU generation (data/engines.json); null: every
  // format the GPU has a rate for. Must outlive make_plan.
  const EngineSupport* engines = nullptr;
  // Rank MIG slices in the cloud too, priced at their share of the GPU (--share-gpus): for a
  // platform team that fills the other slices. On-prem always ranks them.
  bool share_gpus = false;
  // Skip serving layouts whose cost cannot beat the best found so far on the same GPU (an exact
  // lower bound; the plan is the same either way). false: evaluate every layout, for the test
  // that proves the two identical.
  bool prune = true;
  // Simulate the latency distribution of each candidate kept (InferencePerformance::simulated,
  // JSON's inference.percentiles); false where the report does not show it (the table), which
  // saves the simulations. Percentile targets simulate regardless.
  bool simulate = true;
  // Rank disaggregated prefill/decode configurations beside the aggregated ones where the engine
  // splits them (docs/plan.md, "Disaggregated serving"); false where they cannot be used (deploy
  // writes aggregated serving only).
  bool disaggregate = true;
};

struct MonthCost {
  int month = 0; // 1-based
  long long replicas = 0;
  long long gpus = 0;                   // replicas x GPUs per replica
  std::optional<long long> concurrency; // the month's concurrent requests (online serving)
  Usd cost;
};

struct CostBreakdown {
  UsdPerHour per_hour; // the whole deployment at the start
  // $ per million tokens of the workload's unit at the planned load: output tokens (generation),
  // tokens embedded (embedding), trained tokens (training).
  std::optional<double> usd_per_million_tokens;
  std::optional<double>
      usd_per_million_at_full_load; // the same, every replica at its largest batch
  // An image embedding workload (Spec::embeds_images): $ per thousand images, at the planned
  // load and at full load: the per-token figures x tokens per image / 1000.
  std::optional<double> usd_per_thousand_images;
  std::optional<double> usd_per_thousand_images_full_load;
  // Transcription: $ per hour of audio transcribed at the planned load, and at full load.
  std::optional<double> usd_per_audio_hour;
  std::optional<double> usd_per_audio_hour_at_full_load;
  Usd tco; // over the horizon (training: the whole run)
  std::vector<MonthCost> months;
  // The first month the planned replicas fall short of the grown load (the cost adds replicas
  // from then on, months[]); none when they serve the whole horizon.
  std::optional<int> stops_meeting_targets_month;
  std::string price_label; // "$2.95/h Nebius on_demand (retrieved ..., undated)"
  bool price_stale = false;
  // The cloud price its source gives with low confidence (a third party's quote): the ranking
  // table marks the row, as it does a stale one.
  bool price_low_confidence = false;
  std::string basis; // how the cost was computed, one line; names the same counts as below

  // On-prem only (zero in the cloud). Whole servers are bought for the horizon's peak month:
  // gpus_bought = servers x gpus_per_server >= gpus_needed_peak >= ... The month-by-month
  // cost is amortization_per_month + operations_per_month + power_per_month, every month.
  int gpus_per_server = 0;         // one server: HGX/OAM board, NVL72 rack, PCIe server
  long long servers = 0;           // whole servers bought
  long long gpus_bought = 0;       // servers x gpus_per_server
  long long gpus_needed_peak = 0;  // GPUs the peak month's replicas occupy
  long long gpus_needed_first = 0; // GPUs month 1's replicas occupy (training: the job's)
  int peak_month = 0;              // the month the purchase is sized for (training: 0)
  Usd purchase;                    // capex: gpus_bought x (GPU + server share per GPU)
  Usd amortization_per_month;      // purchase / (12 x amortization_years)
  Usd operations_per_month;        // purchase x operations_share / 12
  Usd power_per_month;             // power_per_hour x hours_per_month
  UsdPerHour power_per_hour;       // gpus_bought x TDP x utilization x PUE x electricity price
};

// A candidate that serves disaggregated (docs/plan.md, "Disaggregated serving"): its pools and
// what it beat, the best aggregated configuration on the same GPU.
struct DisaggregatedChoice {
  DisaggregatedPerformance pools;
  // The best aggregated configuration of the GPU that met the targets: its GPUs, cost per hour
  // and TPOT (none when no aggregated layout met them).
  std::optional<long long> aggregated_gpus;
  std::optional<UsdPerHour> aggregated_per_hour;
  std::optional<Seconds> aggregated_tpot;
  std::optional<long long> aggregated_batch; // sequences each aggregated replica runs
  std::optional<Seconds> aggregated_ttft;
  std::optional<Parallelism> aggregated_layout; // one aggregated replica's
  std::optional<int> aggregated_replicas;
  std::string why; // one sentence: why it wins
};

struct Candidate {
  int rank = 0;
  const Gpu* gpu = nullptr;
  // A MIG slice ("3g.40gb") of `whole_gpu`; `gpu` is then the slice as a GPU of its own (scaled
  // compute, memory, bandwidth and price), kept alive by `slice`.
  std::string partition;
  const Gpu* whole_gpu = nullptr;
  std::shared_ptr<const Gpu> slice;
  Parallelism layout; // one replica (training: the whole job)
  int replicas = 1;
  // The spec as evaluated (precision may be an allowed cheaper one), shared with the plan's
  // precision variants and every other candidate evaluated on it: a Spec is about 2.5 KB and its
  // model's strings. Never null in a candidate make_plan or evaluate_candidate returns.
  std::shared_ptr<const Spec> spec;
  MemoryEstimate memory;
  std::optional<InferencePerformance> inference;
  std::optional<TrainingPerformance> training;
  std::optional<InferenceBands> inference_bands; // set when the plan has bands
  std::optional<TrainingBands> training_bands;
  std::optional<Band> memory_band; // total bytes per GPU
  CostBreakdown cost;
  std::string verdict; // right-sized, over-provisioned, tight
  std::string verdict_reason;
  std::string precision_note; // set when an allowed precision changed the answer
  // Why an attention data-parallel layout (docs/plan.md, "Search"): the sequences each way of
  // holding the MLA cache leaves room for, and the band it is held at; "" for other layouts.
  std::string layout_note;
  // What its GPU family's (and engine's) efficiencies were fitted on; unset without bands.
  std::optional<Calibration> calibration;
  // The published run nearest this configuration and rightsize's prediction of that run
  // (nearest_published, docs/published.md); null when nothing published is near. Held apart (it
  // is 1 KB, and most candidates have none): a candidate is copied and moved through the search.
  std::shared_ptr<const PublishedPrediction> published;
  // Disaggregated prefill/decode: `layout` is each replica's of both pools, `replicas` the two
  // pools' replicas together; null for an aggregated configuration.
  std::shared_ptr<const DisaggregatedChoice> disaggregation;
  double score = 0; // the objective's value, lower is better
  [[nodiscard]] int gpus_per_replica() const { return layout.gpus(); }
  [[nodiscard]] int total_gpus() const { return gpus_per_replica() * replicas; }
};

// One change to the spec, as a JSON pointer and the value to put there.
struct SpecChange {
  std::string pointer; // "/precision/allow", "/constraints/allow_cross_node_tp", ...
  nlohmann::json value;
};

struct Rejection {
  std::string gpu;
  std::string code; // memory_capacity, latency_target, throughput_target, deadline,
                    // interconnect, engine_support, compute_rate, constraint, no_price,
                    // saturated, growth (the grown load outruns the replicas allowed)
  std::string reason;
  std::string nearest_fix;       // prose; says so when no change within the spec helps
  std::optional<SpecChange> fix; // the change that was tried and makes this GPU feasible
};

struct Requirements {
  Bytes weights;         // the whole model as stored
  Bytes kv_per_request;  // one request at the spec's input + output length (bf16/fp8 as set)
  Flops flops_per_token; // serving: forward, per output token at the average context; training:
                         // per trained token (training_model_flops: LoRA 2x forward + adapters)
  Flops flops_per_image; // an image embedding workload: image_flops; 0 otherwise
  Flops encoder_flops_per_window; // transcription: one window's encoder pass (0 otherwise)
  double params_total = 0;
  double params_active = 0;
};

struct Plan {
  Spec spec;
  // What the workload counts and is priced by, workload_units(spec): made once by make_plan, read
  // by every renderer. A Plan put together by hand sets it.
  WorkloadUnits units;
  Requirements requirements;
  std::vector<Candidate> candidates; // ranked, best first
  std::vector<Rejection> rejected;   // every GPU without a feasible configuration
  std::vector<Assumption> assumptions;
  std::vector<std::string> notes;
  // How predictions carry bands and which edge targets were held to, for a person; empty when
  // the plan has no bands.
  std::string uncertainty_note;
  Confidence confidence = Confidence::band;
  std::string catalog_version;
  std::string catalog_digest;
  Objective objective = Objective::tco;
  [[nodiscard]] bool feasible() const { return !candidates.empty(); }
};

Plan make_plan(const Spec& spec,
               const Catalog& catalog,
               const Constants& constants,
               const Efficiency& efficiency,
               const PlanOptions& options);

// Gives each serving candidate of a plan the published run nearest its configuration, re-predicted
// on the plan's model (Candidate::published, docs/published.md). Reads the results of the plan's
// model only when the plan has a candidate and the model is one of `data`'s.
void attach_published(Plan& plan,
                      PublishedData& data,
                      const Catalog& catalog,
                      const Constants& constants,
                      const Efficiency& efficiency,
                      const PlanOptions& options);

} // namespace rightsize
