#pragma once

// What `rightsize validate` checks of a spec beyond the spec itself: what plan refuses once it has
// the catalog, without planning.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/spec/spec.hpp>

namespace rightsize {

// The deployment's provider and price kind resolved against the catalog (apply_settings with no
// overrides), each GPU of constraints.gpus (check_constraint_gpus) and the demand growth over the
// horizon (check_demand_growth), with plan's own errors.
void check_as_plan(Spec spec, const Catalog& catalog);

} // namespace rightsize
