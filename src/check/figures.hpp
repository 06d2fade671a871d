#pragma once

// The check stage's own: the figures of a locked configuration compared with those of another.

#include <rightsize/check/result.hpp>

namespace rightsize::detail {

// Every figure both configurations record, `was` (the lock's) against `now`, in the order of
// the metric table (figures.cpp): a Change where its text moved, a crossing or a warning where
// it moved the wrong way, then the memory headroom of `now`.
void compare_figures(CheckResult& r,
                     const LockedConfiguration& was,
                     const LockedConfiguration& now,
                     const CheckThresholds& t);

} // namespace rightsize::detail
