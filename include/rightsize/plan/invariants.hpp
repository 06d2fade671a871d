#pragma once

// The last check before a plan is rendered: every figure a buyer reads is finite, non-negative
// where a negative makes no sense, and totals agree with their parts. A violation is a bug in
// rightsize (InternalError, exit 4), never a printed number. docs/reliability.md, "Invariants".

#include <rightsize/plan/plan.hpp>

namespace rightsize {

// Throws InternalError naming the candidate, the figure and its value.
void check_invariants(const Plan& plan);

} // namespace rightsize
