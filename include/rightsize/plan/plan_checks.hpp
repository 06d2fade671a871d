#pragma once

// What plan refuses of a spec, or says of a plan with nothing feasible, that other commands say
// the same way: `validate` checks the spec's GPU names and growth as plan does, and every renderer
// of a plan and the CLI's error line give the one cause that explains an empty plan.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <string>

namespace rightsize {

// Resolves each name of the spec's constraints.gpus in the catalog as a person types it; an unknown
// or ambiguous one is an InputError naming the spec's file and field. make_plan calls it first,
// and `validate` too (check_as_plan), so that both refuse the same names with one text.
void check_constraint_gpus(const Spec& spec, const Catalog& catalog);

// A serving spec's demand growth over its horizon, refused beyond a million-fold (growth_per_month
// 1.0 over 120 months) with plan's error naming /deployment/growth_per_month; make_plan and
// `validate` both check it.
void check_demand_growth(const Spec& spec);

// Why nothing is feasible, in one sentence with its fixes, where a single cause explains it: every
// GPU the spec allows was rejected only for want of a price in the deployment's mode
// (constraints.vendors ["amd"] in the cloud). "" when the plan is feasible or its rejections
// differ; then they say why, GPU by GPU.
std::string infeasible_because(const Plan& plan);

} // namespace rightsize
