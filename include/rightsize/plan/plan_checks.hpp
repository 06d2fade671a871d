#pragma once

// What plan refuses of a spec that other commands refuse the same way: `validate` resolves the
// spec's GPU names as plan does.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <string>

namespace rightsize {

// Resolves each name of the spec's constraints.gpus in the catalog as a person types it; an unknown
// or ambiguous one is an InputError naming the spec's file and field. make_plan calls it first,
// and `validate` too (check_against_catalog), so that both refuse the same names with one text.
void check_constraint_gpus(const Spec& spec, const Catalog& catalog);

} // namespace rightsize
