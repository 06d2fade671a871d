// The disaggregated search: prefill and decode pools sized to the targets, their growth, cost
// and explanation. Rules: docs/plan.md, "Disaggregated serving".

#include "serving_search.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::detail {

namespace {

// Decode replicas tried past the fewest whose TPOT holds: a wider decode pool rarely needs fewer
// prefill replicas, so a few more decide.
constexpr int k_decode_widenings = 4;

using Highs = DisaggregatedHighs;

// Whether `prefills` x `decodes` replicas meet the goal (every target at the band's edge, and
// neither pool full).
bool meets(const DisaggregatedEstimator& e,
           const Highs& h,
           const ServingGoal& goal,
           int prefills,
           int decodes) {
  const DisaggregatedPerformance d = e(prefills, decodes, *goal.concurrency, Detail::numbers);
  if (!d.limited_by.empty() || d.prefill_utilization > k_prefill_utilization) {
    return false;
  }
  const Targets& t = goal.targets;
  const InferencePerformance& r = d.perf;
  return !(t.ttft && r.ttft.si() * h.ttft > t.ttft->si()) &&
         !(t.tpot && r.tpot.si() * h.tpot > t.tpot->si()) &&
         !(t.rps && r.requests_per_s / h.rate < *t.rps) &&
         !(t.tokens && r.output_tokens_per_s / h.rate < *t.tokens);
}

// The fewest replicas in all (prefill, decode) that meet `goal`, at most `most` in all; none
// when no split does. The decode pool's fewest is where TPOT and its capacity hold with
// prefill to spare (more decode replicas only lower their batch); each of the next few decode
// counts takes the fewest prefill replicas that then meet every target. `worth(total)`: whether
// a split of `total` replicas in all could still win (the search's cost bound); none is tried
// past the fewest decode replicas when one more could not.
template <class Worth>
std::optional<std::pair<int, int>> size_pools(const DisaggregatedEstimator& e,
                                              const Highs& h,
                                              const ServingGoal& goal,
                                              int most,
                                              const Worth& worth) {
  if (most < 2) {
    return std::nullopt;
  }
  const auto decode_holds = [&](int y) { return meets(e, h, goal, most, y); };
  if (!decode_holds(most - 1)) {
    return std::nullopt;
  }
  const int fewest_decodes = decode_holds(1) ? 1 : first_holding(1, most - 1, decode_holds);
  if (!worth(fewest_decodes + 1)) {
    return std::nullopt;
  }
  std::optional<std::pair<int, int>> best;
  for (int y = fewest_decodes; y <= fewest_decodes + k_decode_widenings; ++y) {
    const int limit = (best ? best->first + best->second - 1 : most) - y;
    if (limit < 1) {
      break;
    }
    const auto prefill_holds = [&](int x) { return meets(e, h, goal, x, y); };
    if (!prefill_holds(limit)) {
      continue;
    }
    const int x = prefill_holds(1) ? 1 : first_holding(1, limit, prefill_holds);
    best = std::pair(x, y);
  }
  return best;
}

// The split of exactly `total` replicas with the fewest prefill replicas that meets `goal`; none
// when no split of them does.
std::optional<std::pair<int, int>>
split_of(const DisaggregatedEstimator& e, const Highs& h, const ServingGoal& goal, int total) {
  for (int x = 1; x < total; ++x) {
    if (meets(e, h, goal, x, total - x)) {
      return std::pair(x, total - x);
    }
  }
  return std::nullopt;
}

// Each month's pools in all: month 1's while they meet the grown load, then the fewest that do
// (never fewer than before).
GrowthSeries pools_growth(const Search& S,
                          const DisaggregatedEstimator& e,
                          const Highs& h,
                          const ServingGoal& goal,
                          std::pair<int, int> planned,
                          int most) {
  const std::vector<double>& demand = demand_curve(S);
  GrowthSeries out;
  out.replicas.assign(demand.size(), planned.first + planned.second);
  std::pair<int, int> now = planned;
  for (std::size_t m = 0; m < demand.size(); ++m) {
    const ServingGoal month = grown_goal(goal, std::max(1.0, demand[m]));
    out.concurrency.push_back(*month.concurrency);
    if (demand[m] > 1.0 + 1e-12 && !meets(e, h, month, now.first, now.second)) {
      // The fewest that serve the month, never fewer than before: the rest go to the prefill
      // pool, which only shortens TTFT.
      const int total = now.first + now.second;
      const auto sized = size_pools(e, h, month, most, [](int) { return true; });
      if (!sized) {
        out.unmet_month = static_cast<int>(m) + 1;
        out.unmet_reason = fmt::format("demand grown {:.3g}-fold by month {} ({} concurrent "
                                       "requests) needs more than {} replicas in both pools",
                                       demand[m],
                                       m + 1,
                                       *month.concurrency,
                                       most);
        std::fill(out.replicas.begin() + static_cast<std::ptrdiff_t>(m), out.replicas.end(), most);
        break;
      }
      now = sized->first + sized->second > total
                ? *sized
                : std::pair(sized->first + total - sized->first - sized->second, sized->second);
    }
    out.replicas[m] = now.first + now.second;
  }
  return out;
}

// The most replicas in all the pools of one layout may have (the spec's GPUs, the search's
// replicas).
int most_replicas(const ServingGoal& goal, const Parallelism& p) {
  return static_cast<int>(std::min<long long>(k_max_replicas, goal.max_gpus / p.gpus()));
}

} // namespace

// The disaggregated band's slow edges (Uncertainty::disaggregated) over the point; 1 without
// bands or with --confidence point. Rates are held at TPOT's (rate_band_metric).
DisaggregatedHighs
disaggregated_highs(const Search& S, const Gpu& g, const Spec& spec, const Parallelism& p) {
  if (S.options.uncertainty == nullptr || S.options.confidence != Confidence::band) {
    return {};
  }
  const DisaggregatedBands b = disaggregated_bands(
      *S.options.uncertainty, S.eff.family_name(g), engine_band_key(spec, S.eff), p.attention_dp);
  return {b.ttft.high_ratio, b.tpot.high_ratio, b.tpot.high_ratio};
}

std::optional<DisaggregatedPerformance> disaggregated_pools(const Search& S,
                                                            const Spec& spec,
                                                            const Gpu& g,
                                                            const Parallelism& p,
                                                            int replicas,
                                                            int prefills) {
  const DisaggregatedEstimator e(spec, g, p, p, S.constants, S.eff);
  if (!e.holds() || replicas < 2) {
    return std::nullopt;
  }
  if (prefills < 1 || prefills >= replicas) {
    const auto split =
        split_of(e, disaggregated_highs(S, g, spec, p), serving_goal(spec), replicas);
    prefills = split ? split->first : replicas / 2;
  }
  return e(prefills, replicas - prefills, *spec.workload.inference.concurrency, Detail::full);
}

GrowthSeries disaggregated_growth(const Search& S,
                                  const Spec& spec,
                                  const Gpu& g,
                                  const Parallelism& p,
                                  std::pair<int, int> planned) {
  const DisaggregatedEstimator e(spec, g, p, p, S.constants, S.eff);
  const ServingGoal goal = serving_goal(spec);
  if (!e.holds()) {
    return flat_growth(S, planned.first + planned.second);
  }
  const int most = std::max(most_replicas(goal, p), planned.first + planned.second);
  return pools_growth(S, e, disaggregated_highs(S, g, spec, p), goal, planned, most);
}

std::optional<DisaggregatedFound> search_disaggregated(const Search& S,
                                                       const Spec& spec,
                                                       const Gpu& g,
                                                       const std::vector<Parallelism>& layouts,
                                                       const ServingGoal& goal,
                                                       std::optional<long long> gpu_limit,
                                                       std::optional<double> to_beat) {
  if (S.any || !S.options.disaggregate || disaggregation_refusal(spec) ||
      spec.workload.inference.targets.names_percentiles()) {
    return std::nullopt;
  }
  // A GPU the catalog has no price for (nor shape to hold a replica) is costed by nothing here.
  if (layouts.empty()) {
    return std::nullopt;
  }
  if (!flat_score(S, g, layouts.front(), 1)) {
    return std::nullopt;
  }
  std::optional<DisaggregatedFound> best;
  double best_score = 0;
  for (const Parallelism& p : layouts) {
    const Highs h = disaggregated_highs(S, g, spec, p);
    const int per_replica = p.gpus();
    // Strictly fewer GPUs than the aggregated configuration it has to beat (a cost that only
    // grows with the GPUs cannot be lower otherwise), within the spec's and the search's limits.
    int most = most_replicas(goal, p);
    if (gpu_limit) {
      most = static_cast<int>(std::min<long long>(most, (*gpu_limit - 1) / per_replica));
    }
    // The KV cache crosses the link of every GPU of both pools: no more of them than a link the
    // catalog has a rate for joins (link_published: an unpublished network keeps them in one
    // server).
    while (most >= 2 && !link_published(spec, g, most * per_replica)) {
      --most;
    }
    if (most < 2) {
      continue;
    }
    const DisaggregatedEstimator e(spec, g, p, p, S.constants, S.eff);
    if (!e.holds()) {
      continue;
    }
    // Month 1's pools every month cost no more than their growth (cost_inference's terms only
    // grow with the replicas): a split whose flat cost cannot beat the score to beat is not
    // sized further, nor grown.
    const bool bounded = to_beat && score_grows_with_cost(S.options.objective);
    const auto worth = [&](int total) {
      if (!bounded) {
        return true;
      }
      const std::optional<double> flat = flat_score(S, g, p, total);
      return flat && *flat < *to_beat;
    };
    const auto sized = size_pools(e, h, goal, most, worth);
    if (!sized) {
      continue;
    }
    if (!worth(sized->first + sized->second)) {
      continue;
    }
    DisaggregatedFound found;
    found.growth = pools_growth(S, e, h, goal, *sized, most_replicas(goal, p));
    if (found.growth.unmet_month) {
      continue;
    }
    Candidate& c = found.candidate;
    c.gpu = &g;
    c.layout = p;
    c.replicas = sized->first + sized->second;
    const DisaggregatedPerformance d =
        e(sized->first, sized->second, *goal.concurrency, Detail::numbers);
    auto choice = std::make_shared<DisaggregatedChoice>();
    choice->pools = d;
    c.disaggregation = choice;
    c.inference = d.perf;
    c.memory = estimate_memory(spec,
                               g,
                               p,
                               S.constants,
                               static_cast<long long>(std::ceil(d.decode_batch - 1e-9)),
                               Detail::numbers);
    std::string why;
    if (!cost_inference(S, c, found.growth, why, Detail::numbers)) {
      continue;
    }
    if (d.perf.output_tokens_per_s > 0) {
      // At the load the spec asks for (share_at_target), as the aggregated search prices it.
      c.cost.usd_per_million_tokens =
          to_usd_per_million(c.cost.per_hour / items_per_s(d.perf.output_tokens_per_s *
                                                           share_at_target(d.perf, spec)));
    }
    const double sc = score(c, S.options.objective, S);
    if ((!best || sc < best_score) && (!to_beat || sc < *to_beat)) {
      const MemoryEstimate& m = c.memory;
      found.room = 1.0 - m.per_gpu.total() / m.budget;
      gpu_limit = c.total_gpus();
      best = std::move(found);
      best_score = sc;
      to_beat = sc;
    }
  }
  return best;
}

void explain_disaggregated(const Search& S, const Spec& spec, Candidate& c) {
  const DisaggregatedChoice& was = *c.disaggregation;
  const DisaggregatedLayout& l = was.pools.layout;
  const DisaggregatedEstimator e(
      spec, *c.gpu, l.prefill.layout, l.decode.layout, S.constants, S.eff);
  auto choice = std::make_shared<DisaggregatedChoice>(was);
  choice->pools =
      e(l.prefill.replicas, l.decode.replicas, *spec.workload.inference.concurrency, Detail::full);
  const DisaggregatedPerformance& d = choice->pools;
  c.memory = d.decode_memory;
  c.inference = d.perf;
  if (S.options.uncertainty != nullptr) {
    const DisaggregatedBands b = disaggregated_bands(*S.options.uncertainty,
                                                     S.eff.family_name(*c.gpu),
                                                     engine_band_key(spec, S.eff),
                                                     l.decode.layout.attention_dp);
    c.inference_bands = inference_bands(d.perf, b.ttft, b.tpot);
  }
  const long long prompt = spec.workload.inference.prompt_tokens();
  const auto layout_words = [](const Parallelism& p) {
    return fmt::format("TP{}{}{}",
                       p.tp,
                       p.pp > 1 ? fmt::format(" PP{}", p.pp) : std::string(),
                       p.ep > 1 ? fmt::format(" EP{}", p.ep) : std::string());
  };
  std::string reason;
  if (was.aggregated_gpus && was.aggregated_per_hour && was.aggregated_batch &&
      was.aggregated_layout && was.aggregated_replicas && was.aggregated_ttft) {
    reason = fmt::format(
        "{} GPUs at {} against {} GPUs at {} aggregated ({} x {}): there each replica's decode "
        "steps stall for the prefills of {}-token prompts, so the targets hold with only {} "
        "sequences a replica (TPOT {}); split, each decode replica runs {:.0f} on average (TPOT "
        "{}). The price: TTFT {} against {} aggregated",
        l.gpus(),
        format_usd_per_hour(c.cost.per_hour),
        *was.aggregated_gpus,
        format_usd_per_hour(*was.aggregated_per_hour),
        *was.aggregated_replicas,
        layout_words(*was.aggregated_layout),
        prompt,
        *was.aggregated_batch,
        was.aggregated_tpot ? format_seconds(*was.aggregated_tpot) : std::string("-"),
        d.decode_batch,
        format_seconds(d.perf.tpot),
        format_seconds(d.perf.ttft),
        format_seconds(*was.aggregated_ttft));
  } else {
    reason = fmt::format("no aggregated layout meets the targets on this GPU: its decode steps "
                         "would stall for the prefills of {}-token prompts",
                         prompt);
  }
  choice->why = reason;
  c.disaggregation = choice;
}

} // namespace rightsize::detail
