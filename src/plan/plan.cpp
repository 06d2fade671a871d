// rightsize plan: requirements, the best configuration of every GPU or its rejection, verdicts,
// ranking. The searches and costing live beside this file. Rules: docs/plan.md.

#include "search.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

std::string_view to_string(Objective o) {
  switch (o) {
  case Objective::tco:
    return "tco";
  case Objective::cost_per_token:
    return "cost_per_token";
  case Objective::latency:
    return "latency";
  case Objective::gpus:
    return "gpus";
  case Objective::power:
    return "power";
  }
  return "tco";
}

namespace {

using detail::allowed_by_constraints;
using detail::Miss;
using detail::precision_label;
using detail::Search;
using detail::search_inference;
using detail::search_training;

constexpr double k_tight_headroom = 0.10;        // under 10% memory or latency headroom: tight
constexpr double k_overprovisioned_use = 0.40;   // under 40% of memory used...
constexpr double k_overprovisioned_margin = 2.0; // ...and every latency target met twice over

double score(const Candidate& c, Objective o, const Spec& spec) {
  switch (o) {
  case Objective::tco:
    return c.cost.tco.si();
  case Objective::cost_per_token:
    return c.cost.usd_per_million_output_tokens.value_or(1e300);
  case Objective::latency:
    if (c.inference) {
      return (c.inference->ttft +
              c.inference->tpot * static_cast<double>(spec.workload.inference.output_tokens))
          .si();
    }
    return c.training && c.training->time_to_train ? c.training->time_to_train->si()
                                                   : c.training->step.si();
  case Objective::gpus:
    return c.total_gpus() + c.cost.tco.si() * 1e-12;
  case Objective::power:
    return c.gpu->tdp.si() * c.total_gpus() + c.cost.tco.si() * 1e-12;
  }
  return c.cost.tco.si();
}

void set_verdict(Candidate& c, const Spec& spec) {
  const double used = c.memory.per_gpu.total() / c.memory.budget;
  double latency_margin = 1e9; // target / achieved, the worse of the two
  if (c.inference) {
    const auto& t = spec.workload.inference.targets;
    if (t.ttft) {
      latency_margin = std::min(latency_margin, *t.ttft / c.inference->ttft);
    }
    if (t.tpot) {
      latency_margin = std::min(latency_margin, *t.tpot / c.inference->tpot);
    }
  }
  if (c.training && c.training->meets_deadline && spec.workload.training.deadline) {
    latency_margin = *spec.workload.training.deadline / *c.training->time_to_train;
  }
  const bool serving_offline = c.inference && !spec.workload.inference.concurrency;
  if (1.0 - used < k_tight_headroom && !serving_offline) {
    c.verdict = "tight";
    c.verdict_reason = fmt::format("{:.0f}% of the usable memory is used", 100.0 * used);
  } else if (latency_margin < 1.0 + k_tight_headroom) {
    c.verdict = "tight";
    c.verdict_reason = fmt::format("within {:.0f}% of a latency or deadline target",
                                   100.0 * (latency_margin - 1.0));
  } else if (used < k_overprovisioned_use && latency_margin >= k_overprovisioned_margin &&
             c.replicas == 1 && !serving_offline) {
    c.verdict = "over-provisioned";
    c.verdict_reason = fmt::format("uses {:.0f}% of the memory and beats every latency target "
                                   "{:.1f}x over",
                                   100.0 * used,
                                   std::min(latency_margin, 99.0));
  } else {
    c.verdict = "right-sized";
    c.verdict_reason = fmt::format("{:.0f}% of the memory used", 100.0 * used);
  }
}

// Demand grows as (1 + growth)^(month - 1). Beyond a million-fold over the horizon, fleet sizes
// and bills stop meaning anything (and would overflow the counts), so such input is refused.
constexpr double k_max_demand_factor = 1e6;

void check_demand(const Spec& spec) {
  if (spec.workload.is_training()) {
    return;
  }
  const Deployment& d = spec.deployment;
  const double factor =
      std::pow(1.0 + d.growth_per_month, static_cast<double>(d.horizon_months - 1));
  if (!(factor <= k_max_demand_factor)) {
    throw InputError(spec.file + ":/deployment/growth_per_month",
                     fmt::format("demand would grow {:.3g}-fold over {} months at {:g} per month "
                                 "(more than {:.0e}-fold); growth is a fraction per month: "
                                 "0.05 means +5%",
                                 factor,
                                 d.horizon_months,
                                 d.growth_per_month,
                                 k_max_demand_factor));
  }
}

// What the workload needs whatever the GPU: parameters, weight bytes, KV cache per request, FLOPs
// per token.
Requirements requirements_of(const Spec& spec, const Constants& constants) {
  Requirements r;
  r.params_total = spec.model.params_total;
  r.params_active = spec.model.params_active;
  r.weights = weight_bytes(spec.model, spec.weights).total();
  if (!spec.workload.is_training()) {
    const auto& inf = spec.workload.inference;
    r.kv_per_request = kv_cache_geometry(spec, Parallelism{}, constants)
                           .per_sequence(inf.input_tokens + inf.output_tokens);
    r.flops_per_token = forward_flops(spec.model,
                                      1,
                                      static_cast<double>(inf.input_tokens) +
                                          static_cast<double>(inf.output_tokens) / 2.0);
  } else {
    r.flops_per_token =
        forward_flops(spec.model, 1, static_cast<double>(spec.workload.training.seq_len)) * 3.0;
  }
  return r;
}

// A GPU with no configuration: the closest miss, with the change that would most likely fix it.
Rejection rejection_from_miss(const Gpu& g, const Miss& miss) {
  Rejection r{g.name,
              miss.code.empty() ? "constraint" : miss.code,
              miss.reason.empty() ? "no layout within the constraints" : miss.reason,
              miss.fix};
  if (r.code == "memory_capacity" && r.nearest_fix.empty()) {
    // What would fit: a wider layout across nodes, or a smaller format.
    const DType smaller = g.rate(TensorPrecision::fp8) ? DType::fp8 : DType::int4;
    r.nearest_fix = fmt::format("more GPUs per replica (tensor parallel across nodes with "
                                "constraints.allow_cross_node_tp), or {} weights "
                                "(precision.allow)",
                                to_string(smaller));
  } else if (r.code == "latency_target" && r.nearest_fix.empty()) {
    r.nearest_fix = "a GPU with more memory bandwidth, or fewer concurrent requests per replica";
  } else if (r.code == "throughput_target" && r.nearest_fix.empty()) {
    r.nearest_fix = "raise constraints.max_gpus";
  } else if (r.code == "deadline" && r.nearest_fix.empty()) {
    r.nearest_fix = "more GPUs (constraints.max_gpus) or a later deadline";
  }
  return r;
}

// The best configuration found on one GPU by the objective, with its verdict, and a note when an
// allowed precision changed the answer.
Candidate best_candidate(std::vector<Candidate>& found, const Spec& spec, Objective objective) {
  for (auto& c : found) {
    c.score = score(c, objective, spec);
  }
  auto best =
      std::min_element(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
        return a.score < b.score;
      });
  if (best->spec.precision.weights != spec.precision.weights ||
      best->spec.precision.kv_cache != spec.precision.kv_cache) {
    best->precision_note = fmt::format("uses {} (allowed by precision.allow) instead of {}",
                                       precision_label(best->spec),
                                       precision_label(spec));
  }
  set_verdict(*best, spec);
  return std::move(*best);
}

// One GPU: excluded by a constraint, rejected with its closest miss, or its best configuration.
void plan_gpu(const Search& S, const Gpu& g, Plan& plan) {
  std::string why;
  if (!allowed_by_constraints(g, S.spec, S.catalog, why)) {
    plan.rejected.push_back({g.name, "constraint", why, ""});
    return;
  }
  std::vector<Candidate> found;
  Miss miss;
  if (S.spec.workload.is_training()) {
    search_training(S, g, found, miss);
  } else {
    search_inference(S, g, found, miss);
  }
  if (found.empty()) {
    plan.rejected.push_back(rejection_from_miss(g, miss));
    return;
  }
  plan.candidates.push_back(best_candidate(found, S.spec, S.options.objective));
}

// Candidates by score (then name, for stable output), real misses before constraint exclusions.
void rank(Plan& plan) {
  std::stable_sort(
      plan.candidates.begin(), plan.candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.score != b.score ? a.score < b.score : a.gpu->name < b.gpu->name;
      });
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    plan.candidates[i].rank = static_cast<int>(i + 1);
  }
  // Real misses first (they are what a person can act on), exclusions by constraint last.
  std::stable_partition(plan.rejected.begin(), plan.rejected.end(), [](const Rejection& r) {
    return r.code != "constraint";
  });
  // Over-provisioned means a cheaper configuration meets the same targets: the best-ranked one
  // cannot be, whatever its headroom.
  if (!plan.candidates.empty() && plan.candidates.front().verdict == "over-provisioned") {
    auto& best = plan.candidates.front();
    best.verdict = "right-sized";
    best.verdict_reason =
        "the cheapest configuration that meets every target; " + best.verdict_reason;
  }
}

} // namespace

// requirements → for each GPU, its best configuration or a rejection → ranking.
Plan make_plan(const Spec& spec,
               const Catalog& catalog,
               const Constants& constants,
               const Efficiency& efficiency,
               const PlanOptions& options) {
  Plan plan;
  plan.spec = spec;
  plan.objective = options.objective;
  plan.catalog_version = catalog.version;
  plan.catalog_digest = catalog.digest;
  check_demand(spec);
  plan.requirements = requirements_of(spec, constants);
  // Validate constraint names up front: a typo is an input error, not a rejection.
  for (const auto& name : spec.constraints.gpus) {
    (void)catalog.resolve(name, spec.constraints.where + "/gpus");
  }
  const Search S{spec, catalog, constants, efficiency, options};
  for (const Gpu& g : catalog.gpus) {
    plan_gpu(S, g, plan);
  }
  rank(plan);
  if (!plan.candidates.empty()) {
    for (const auto& a : plan.candidates.front().memory.assumptions) {
      plan.assumptions.push_back(a);
    }
  }
  return plan;
}

} // namespace rightsize
