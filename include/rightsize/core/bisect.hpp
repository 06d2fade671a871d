#pragma once

// Bisection over a monotone predicate, shared by the searches that size a batch or a fleet.

namespace rightsize {

// `holds` is false at `lo` and true at `hi` (callers check both ends) and flips once in between:
// the smallest value in (lo, hi] at which it holds.
template <class T, class Holds> T first_holding(T lo, T hi, const Holds& holds) {
  while (hi - lo > 1) {
    const T mid = lo + (hi - lo) / 2;
    (holds(mid) ? hi : lo) = mid;
  }
  return hi;
}

} // namespace rightsize
