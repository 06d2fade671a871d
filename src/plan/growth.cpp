// The replicas a serving configuration needs month by month as demand grows (GrowthSeries,
// search.hpp). Rules: docs/plan.md, "Growth".

#include "serving_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::detail {

namespace {

// The spec's goal with demand grown `factor`-fold: the concurrency and the rate targets together.
ServingGoal grown(const ServingGoal& goal, double factor) {
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
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (meets(mid) ? hi : lo) = mid;
  }
  return hi;
}

} // namespace

// Month by month, the replicas that meet the grown goal (GrowthSeries, search.hpp): month 1 is
// the replica search's answer, `planned`.
GrowthSeries growth_series(const Search& S,
                           LayoutEvaluator& eval,
                           const At& probe,
                           const ServingGoal& goal,
                           int planned,
                           int max_replicas) {
  const std::vector<double>& demand = demand_curve(S);
  GrowthSeries out;
  out.replicas.reserve(demand.size());
  if (goal.concurrency) {
    out.concurrency.reserve(demand.size());
  }
  int last = planned;
  for (std::size_t i = 0; i < demand.size(); ++i) {
    const double factor = demand[i];
    const ServingGoal month = grown(goal, std::max(1.0, factor));
    if (goal.concurrency) {
      out.concurrency.push_back(*month.concurrency);
    }
    if (factor > 1.0 + 1e-12 && !out.unmet_month) {
      std::optional<int> needed;
      if (goal.concurrency) {
        needed = fewest_replicas_from(S, eval, probe, month, last, max_replicas);
      } else {
        const ReplicaSearch r = offline_replicas(S, eval, probe, month, max_replicas);
        if (r.found) {
          needed = std::max(last, r.replicas);
        }
      }
      if (needed) {
        last = *needed;
      } else {
        out.unmet_month = static_cast<int>(i) + 1;
        last = max_replicas;
        out.unmet_reason = fmt::format(
            "demand grown {:.3g}-fold by month {}{} needs more than {} replicas",
            factor,
            i + 1,
            month.concurrency ? fmt::format(" ({} concurrent requests)", *month.concurrency)
                              : std::string(),
            max_replicas);
      }
    }
    out.replicas.push_back(last);
  }
  return out;
}

GrowthSeries
serving_growth(const Search& S, const Spec& spec, const Gpu& g, const Parallelism& p, int planned) {
  const ServingGoal goal = serving_goal(spec);
  const Bands bands{band_high_ratio(S, g, spec, latency_band_metric(S.units)),
                    band_high_ratio(S, g, spec, "tpot"),
                    band_high_ratio(S, g, spec, rate_band_metric(S.units))};
  LayoutEvaluator eval(S, spec, g, p, bands);
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
