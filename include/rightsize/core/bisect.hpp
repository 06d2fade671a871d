#pragma once

// Bisection over a monotone predicate, shared by the searches that size a batch or a fleet, and
// the crossing of an increasing function that the serving model solves its request rate with.

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

// Where an increasing f crosses `target` on [0, hi], by halving: mid = (lo + hi) / 2 becomes lo
// when f(mid) < target, else hi, until lo and hi are adjacent doubles (at most 100 halvings).
// Returns the last lo. f is evaluated at every midpoint.
template <class F> double bisect_crossing(double hi, double target, const F& f) {
  double lo = 0.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2.0;
    if (mid == lo || mid == hi) {
      break; // adjacent doubles: further halvings change nothing
    }
    (f(mid) < target ? lo : hi) = mid;
  }
  return lo;
}

// The same value as bisect_crossing(hi, target, f), bit for bit, with about half the evaluations
// of f. A regula falsi (Illinois variant) first brackets the crossing within [a, b]; f is then
// evaluated at L just below a and U just above b, and the halvings are replayed: a midpoint at or
// below L is below the crossing, at or above U above it, without evaluating f; only midpoints
// between L and U evaluate f. This is exact when `noise` bounds the relative rounding error of f
// (|computed / exact - 1| <= noise) and the exact f is non-decreasing: if f(L) <= target x
// (1 - 4 noise), every computed f(m) with m <= L is below target (and symmetrically for U).
// When a check fails (f flat, target beyond f(hi), ...), every halving evaluates f.
template <class F> double bisect_crossing_fast(double hi, double target, double noise, const F& f) {
  const auto plain = [&] { return bisect_crossing(hi, target, f); };
  // The halvings of bisect_crossing, with f evaluated only strictly between below and above.
  const auto replay = [&](double below, double above) {
    double lo = 0.0;
    double top = hi;
    for (int i = 0; i < 100; ++i) {
      const double mid = (lo + top) / 2.0;
      if (mid == lo || mid == top) {
        break;
      }
      const bool under = mid <= below ? true : mid >= above ? false : f(mid) < target;
      (under ? lo : top) = mid;
    }
    return lo;
  };
  if (!(hi > 0.0) || !(target > 0.0)) {
    return plain();
  }
  double a = 0.0;
  double fa = f(a) - target;
  double b = hi;
  double fb = f(b) - target;
  if (!(fa < 0.0)) {
    return plain();
  }
  if (!(fb >= 0.0)) {
    // No crossing: when f(hi) is clearly below target, every midpoint is, and lo climbs to hi.
    return fb + target <= target * (1.0 - 4.0 * noise) ? replay(hi, hi) : plain();
  }
  constexpr double k_width = 1e-12; // bracket width relative to b, and the margin around it
  int side = 0;
  for (int i = 0; i < 64 && b - a > k_width * b; ++i) {
    double x = b - fb * (b - a) / (fb - fa);
    if (!(x > a && x < b)) {
      x = a + (b - a) / 2.0;
    }
    const double fx = f(x) - target;
    if (fx < 0.0) {
      a = x;
      fa = fx;
      if (side < 0) {
        fb /= 2.0; // Illinois: the same end kept twice, halve the other's weight
      }
      side = -1;
    } else {
      b = x;
      fb = fx;
      if (side > 0) {
        fa /= 2.0;
      }
      side = 1;
    }
  }
  const double below = a - k_width * b;
  const double above = b + k_width * b;
  if (below > 0.0 && !(f(below) <= target * (1.0 - 4.0 * noise))) {
    return plain();
  }
  if (above < hi && !(f(above) >= target * (1.0 + 4.0 * noise))) {
    return plain();
  }
  return replay(below, above);
}

} // namespace rightsize
