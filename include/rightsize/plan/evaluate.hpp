#pragma once

// One given configuration (a GPU, a layout, replicas, formats) evaluated on a spec as the plan
// would cost and judge it, without searching: what rightsize check uses to re-evaluate a locked
// configuration on the spec and catalog as they are now.

#include <rightsize/plan/plan.hpp>

#include <optional>
#include <string>

namespace rightsize {

struct ConfigurationRef {
  std::string gpu; // a catalog name, or "<catalog name> <MIG profile>" for a slice
  Parallelism layout;
  int replicas = 1;
  DType weights = DType::bf16;
  DType kv_cache = DType::bf16;
  // Serving: sequences per replica; none: as the search sizes online serving, the spec's
  // concurrency shared among the replicas or more when the throughput targets need it.
  std::optional<long long> batch;
  // Serving disaggregated (docs/plan.md, "Disaggregated serving"): `replicas` are both pools',
  // `prefill_replicas` of them prefill (0: the split that serves the spec best, as the search
  // sizes it); `batch` is then not read.
  bool disaggregated = false;
  int prefill_replicas = 0;
};

struct ConfigurationEvaluation {
  // Absent when the configuration cannot be evaluated at all (its GPU left the catalog, its
  // layout does not divide the model).
  std::optional<Candidate> candidate;
  // Empty when the configuration meets the spec; else why not, one line ("no longer fits: ...",
  // "misses the TPOT target: ...", "GPU ... is no longer in the catalog").
  std::string problem;
  // "memory", "latency", "throughput", "deadline", "gone", "price", "precision" (the catalog has
  // no rate for the precision it computes in on the GPU): what the problem is about.
  std::string problem_kind;
};

ConfigurationEvaluation evaluate_configuration(const Spec& spec,
                                               const Catalog& catalog,
                                               const Constants& constants,
                                               const Efficiency& efficiency,
                                               const PlanOptions& options,
                                               const ConfigurationRef& ref);

} // namespace rightsize
