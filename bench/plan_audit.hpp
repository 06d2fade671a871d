#pragma once

// The invariant checker of issue 43 ("Done when"): every candidate a plan prints passes the
// project's own checks. For each candidate of a plan:
//  - its memory is within what the engine may use and within the GPU (per GPU total <= budget
//    <= capacity);
//  - `rightsize estimate` at the candidate's own check-it arguments (GPU, layout, replicas,
//    formats, the batch asked of a replica) reproduces its memory and speed, and finds every
//    target met;
//  - every month of cost.months, re-evaluated alone as `rightsize check` re-evaluates a locked
//    configuration (evaluate_configuration) with that month's concurrency and rate targets and
//    its replicas, meets every target with memory within the budget;
//  - the TCO is the sum of the months.
// rightsize_audit runs it over the bundled examples and generated specs (docs/reliability.md,
// "Invariants"); a test runs it over the examples and 100 generated specs.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>

#include <string>
#include <vector>

namespace rightsize::bench {

struct AuditData {
  const Catalog& catalog;
  const Constants& constants;
  const Efficiency& efficiency;
  const Uncertainty& uncertainty;
  PlanOptions options; // the plan's own (its uncertainty and confidence judge the targets)
};

struct AuditCounts {
  long long plans = 0;
  long long candidates = 0;
  long long estimates = 0; // candidates reproduced through estimate
  long long months = 0;    // months re-evaluated (equal months of a candidate once)
  std::vector<std::string> violations; // "<spec>: <candidate>: <what>"
};

// Checks every candidate of `plan` (made with `data.options`), adding to `counts`.
void audit_plan(const Plan& plan, const AuditData& data, AuditCounts& counts);

} // namespace rightsize::bench
