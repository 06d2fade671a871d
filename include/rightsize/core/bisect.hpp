#pragma once

// Bisection over a monotone predicate, shared by the searches that size a batch or a fleet, and
// the crossing of an increasing function that the serving model solves its request rate with.

#include <cmath>
#include <optional>

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

// An estimate of where an increasing f with f(0) = 0 crosses `target` on (0, hi), or nullopt: the
// secant method on h(x) = x / f(x) - x / target, which is 1 / g(x) - x / target where f(x) =
// x g(x). For the serving model's requests in flight (a rate times a cycle time that grows with
// it, steeply near saturation) h is nearly straight where f is not, so a handful of evaluations
// reach the crossing from g near 0 (x = hi 2^-30) and its first guess, target / g. Stops when a
// step is under 1e-10 of x; nullopt when f is not positive or 16 steps do not get there.
template <class F> std::optional<double> crossing_estimate(double hi, double target, const F& f) {
  double before = hi * 0x1p-30;
  const double f_before = f(before);
  if (!(f_before > 0.0)) {
    return std::nullopt;
  }
  double h_before = before / f_before - before / target;
  double x = target * before / f_before;
  if (!(x < hi)) {
    x = hi / 2.0;
  }
  for (int i = 0; i < 16; ++i) {
    const double fx = f(x);
    if (!(fx > 0.0)) {
      return std::nullopt;
    }
    const double hx = x / fx - x / target;
    if (hx == h_before) {
      return x;
    }
    double next = x - hx * (x - before) / (hx - h_before);
    if (!(next > 0.0)) {
      next = x / 2.0;
    } else if (next >= hi) {
      next = (x + hi) / 2.0;
    }
    if (std::abs(next - x) <= 1e-10 * x) {
      return next;
    }
    before = x;
    h_before = hx;
    x = next;
  }
  return std::nullopt;
}

// The same value as bisect_crossing(hi, target, f), bit for bit, with about two fifths of the
// evaluations of f. The halvings are replayed with f evaluated only between L and U, margins
// around the crossing: a midpoint at or below L is below the crossing, at or above U above it,
// without evaluating f. This is exact when `noise` bounds the relative rounding error of f
// (|computed / exact - 1| <= noise), the exact f is non-decreasing, and f(L) <= target x
// (1 - 4 noise) and f(U) >= target x (1 + 4 noise) as computed: every computed f(m) with m <= L
// is then below target, and at m >= U at or above it. L and U are first put around
// crossing_estimate(); when that fails or their checks do, a regula falsi (Illinois variant)
// brackets the crossing within [a, b] from [0, hi] and L and U are put just outside it; when
// those checks fail too (f flat, target beyond f(hi), ...), every halving evaluates f.
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
  constexpr double k_width = 1e-12; // the margins, relative to the crossing
  // Whether midpoints outside (below, above) are decided: the checks above, where a midpoint can
  // fall (none is <= 0 or >= hi).
  const auto margins_hold = [&](double below, double above) {
    return (below <= 0.0 || f(below) <= target * (1.0 - 4.0 * noise)) &&
           (above >= hi || f(above) >= target * (1.0 + 4.0 * noise));
  };
  if (!(hi > 0.0) || !(target > 0.0)) {
    return plain();
  }
  if (const auto x = crossing_estimate(hi, target, f)) {
    const double below = *x - k_width * *x;
    const double above = *x + k_width * *x;
    if (margins_hold(below, above)) {
      return replay(below, above);
    }
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
  return margins_hold(below, above) ? replay(below, above) : plain();
}

} // namespace rightsize
