// The replicas a serving configuration needs month by month as demand grows (GrowthSeries,
// search.hpp). Rules: docs/plan.md, "Growth".

#include "serving_search.hpp"

#include <rightsize/core/bisect.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::detail {

namespace {

// The fewest replicas, `from` or more, that meet `goal` (online: more replicas, a smaller share
// each, as online_replicas assumes); none within `max_replicas`. Galloping from `from`: a month's
// answer is next to the month before's.
std::optional<int> fewest_replicas_from(const Search& S,
                                        LayoutEvaluator& eval,
                                        const At& probe,
                                        const ServingGoal& goal,
                                        int from,
                                        int max_replicas) {
  const auto meets = [&](int r) { return attempt_replicas(S, eval, probe, goal, r).code.empty(); };
  if (from > max_replicas) {
    return std::nullopt;
  }
  if (meets(from)) {
    return from;
  }
  int lo = from; // misses
  int step = 1;
  int hi = 0;
  for (;;) {
    hi = static_cast<int>(std::min<long long>(max_replicas, static_cast<long long>(lo) + step));
    if (meets(hi)) {
      break;
    }
    if (hi == max_replicas) {
      return std::nullopt;
    }
    lo = hi;
    step *= 2;
  }
  return first_holding(lo, hi, meets);
}

} // namespace

ServingGoal grown_goal(const ServingGoal& goal, double factor) {
  ServingGoal out = goal;
  if (goal.concurrency) {
    out.concurrency =
        static_cast<long long>(std::ceil(static_cast<double>(*goal.concurrency) * factor - 1e-9));
  }
  if (goal.targets.rps) {
    out.targets.rps = *goal.targets.rps * factor;
  }
  if (goal.targets.tokens) {
    out.targets.tokens = *goal.targets.tokens * factor;
  }
  return out;
}

// Month by month, the replicas that meet the grown goal (GrowthSeries, search.hpp): month 1 is
// the replica search's answer, `planned`.
GrowthSeries growth_series(const Search& S,
                           LayoutEvaluator& eval,
                           const At& probe,
                           const ServingGoal& goal,
                           int planned,
                           int max_replicas) {
  const std::vector<double>& demand = demand_curve(S);
  const std::size_t months = demand.size();
  GrowthSeries out;
  out.replicas.assign(months, planned);
  const auto month_goal = [&](std::size_t i) { return grown_goal(goal, std::max(1.0, demand[i])); };
  if (goal.concurrency) {
    out.concurrency.reserve(months);
    for (std::size_t i = 0; i < months; ++i) {
      out.concurrency.push_back(*month_goal(i).concurrency);
    }
  }
  // Months whose demand is no more than month 1's keep its replicas; demand grows month by month
  // after the first that exceeds it.
  std::size_t m = 0;
  while (m < months && demand[m] <= 1.0 + 1e-12) {
    ++m;
  }
  const auto unmet = [&](std::size_t i) {
    out.unmet_month = static_cast<int>(i) + 1;
    const ServingGoal g = month_goal(i);
    out.unmet_reason = fmt::format(
        "demand grown {:.3g}-fold by month {}{} needs more than {} replicas",
        demand[i],
        i + 1,
        g.concurrency ? fmt::format(" ({} concurrent requests)", *g.concurrency) : std::string(),
        max_replicas);
    std::fill(
        out.replicas.begin() + static_cast<std::ptrdiff_t>(i), out.replicas.end(), max_replicas);
  };
  if (!goal.concurrency) {
    // Offline: one evaluation a month decides (offline_replicas).
    int last = planned;
    for (; m < months; ++m) {
      const ReplicaSearch r = offline_replicas(S, eval, probe, month_goal(m), max_replicas);
      if (!r.found) {
        unmet(m);
        break;
      }
      last = std::max(last, r.replicas);
      out.replicas[m] = last;
    }
    return out;
  }
  // Online: whether r replicas meet month i's load falls with i (the load grows) and rises with
  // r. So a count, once it serves a month, is checked at the horizon's end and else bisected
  // over the months to the last it serves; the month after gets the fewest replicas that serve
  // it, galloping up from the count before. A few attempts per distinct count, not per month.
  const auto meets = [&](int r, std::size_t i) {
    return attempt_replicas(S, eval, probe, month_goal(i), r).code.empty();
  };
  int count = planned;
  while (m < months) {
    if (meets(count, m)) {
      std::size_t lo = m; // served
      std::size_t hi = months - 1;
      if (meets(count, hi)) {
        lo = hi;
      } else {
        // The last month served: one before the first it no longer serves.
        lo = first_holding(lo, hi, [&](std::size_t i) { return !meets(count, i); }) - 1;
      }
      std::fill(out.replicas.begin() + static_cast<std::ptrdiff_t>(m),
                out.replicas.begin() + static_cast<std::ptrdiff_t>(lo) + 1,
                count);
      m = lo + 1;
      continue;
    }
    const std::optional<int> next =
        fewest_replicas_from(S, eval, probe, month_goal(m), count + 1, max_replicas);
    if (!next) {
      unmet(m);
      break;
    }
    count = *next;
    out.replicas[m] = count;
    ++m;
  }
  return out;
}

GrowthSeries
serving_growth(const Search& S, const Spec& spec, const Gpu& g, const Parallelism& p, int planned) {
  const ServingGoal goal = serving_goal(spec);
  LayoutEvaluator eval(S, spec, g, p, layout_band_highs(S, serving_band_highs(S, g, spec), p));
  const At probe = eval(1, 1);
  const int per_replica = p.tp * p.pp;
  const int max_replicas = static_cast<int>(std::max<long long>(
      planned, std::min<long long>(k_max_replicas, goal.max_gpus / per_replica)));
  if (probe.memory().max_batch < 1) {
    return flat_growth(S, planned);
  }
  return growth_series(S, eval, probe, goal, planned, max_replicas);
}

} // namespace rightsize::detail
