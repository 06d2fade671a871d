#pragma once

// rightsize plan: for every GPU the spec allows, the cheapest configuration (layout, replicas,
// precision) that meets every target, its cost and TCO, a verdict, and for each GPU that cannot
// serve the workload a structured reason. Search, cost and ranking: docs/plan.md.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

enum class Objective { tco, cost_per_token, latency, gpus, power };
std::string_view to_string(Objective o);

struct PlanOptions {
  Objective objective = Objective::tco;
  std::string today; // YYYY-MM-DD, for stale prices
  long stale_days = 180;
};

struct MonthCost {
  int month = 0; // 1-based
  long long replicas = 0;
  Usd cost;
};

struct CostBreakdown {
  UsdPerHour per_hour;                                 // the whole deployment at the start
  std::optional<double> usd_per_million_output_tokens; // at the planned load
  std::optional<double> usd_per_million_at_full_load;  // every replica at its largest batch
  Usd tco;                                             // over the horizon (training: the whole run)
  std::vector<MonthCost> months;
  std::optional<int> stops_meeting_targets_month; // when growth outruns the recommended size
  std::string price_label; // "$2.95/h Nebius on_demand (retrieved ..., undated)"
  bool price_stale = false;
  std::string basis;         // how the cost was computed, one line
  Usd purchase;              // on-prem: GPUs + server share bought
  UsdPerHour power_per_hour; // on-prem
};

struct Candidate {
  int rank = 0;
  const Gpu* gpu = nullptr;
  Parallelism layout; // one replica (training: the whole job)
  int replicas = 1;
  Spec spec; // the spec as evaluated (precision may be an allowed cheaper one)
  MemoryEstimate memory;
  std::optional<InferencePerformance> inference;
  std::optional<TrainingPerformance> training;
  CostBreakdown cost;
  std::string verdict; // right-sized, over-provisioned, tight
  std::string verdict_reason;
  std::string precision_note; // set when an allowed precision changed the answer
  double score = 0;           // the objective's value, lower is better
  [[nodiscard]] int gpus_per_replica() const { return layout.tp * layout.pp * layout.dp; }
  [[nodiscard]] int total_gpus() const { return gpus_per_replica() * replicas; }
};

struct Rejection {
  std::string gpu;
  std::string code; // memory_capacity, latency_target, throughput_target, deadline,
                    // interconnect, constraint, no_price
  std::string reason;
  std::string nearest_fix;
};

struct Requirements {
  Bytes weights;         // the whole model as stored
  Bytes kv_per_request;  // one request at the spec's input + output length (bf16/fp8 as set)
  Flops flops_per_token; // forward, per output token at the average context
  double params_total = 0;
  double params_active = 0;
};

struct Plan {
  Spec spec;
  Requirements requirements;
  std::vector<Candidate> candidates; // ranked, best first
  std::vector<Rejection> rejected;   // every GPU without a feasible configuration
  std::vector<Assumption> assumptions;
  std::vector<std::string> notes;
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

} // namespace rightsize
