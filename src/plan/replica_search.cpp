// The serving search's batch and replica search for one layout (serving_search.hpp). Rules:
// docs/plan.md.

#include "serving_search.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize::detail {

double latency_ratio(const Targets& t, const Held& h) {
  double worst = 0.0;
  if (t.ttft) {
    worst = std::max(worst, h.ttft / t.ttft->si());
  }
  if (t.tpot) {
    worst = std::max(worst, h.tpot / t.tpot->si());
  }
  return worst;
}

double throughput_ratio(const Targets& t, const Held& h) {
  double worst = 0.0;
  if (t.rps) {
    worst = std::max(worst, *t.rps / std::max(1e-12, h.requests_per_s));
  }
  if (t.tokens) {
    worst = std::max(worst, *t.tokens / std::max(1e-12, h.output_tokens_per_s));
  }
  return worst;
}

std::optional<Seconds> strictest(const std::optional<Seconds>& mean,
                                 const std::vector<PercentileTarget>& percentiles) {
  std::optional<Seconds> s = mean;
  for (const PercentileTarget& p : percentiles) {
    s = s ? min(*s, p.limit) : p.limit;
  }
  return s;
}

ServingGoal serving_goal(const Spec& s) {
  const auto& inf = s.workload.inference;
  // Percentile targets are held by the analytical search at the strictest of them first
  // (percentile_targets.cpp), and so are the months of growth of a configuration check
  // re-evaluates: the same replicas month by month as the plan costed.
  return {{strictest(inf.targets.ttft, inf.targets.ttft_percentiles),
           strictest(inf.targets.tpot, inf.targets.tpot_percentiles),
           inf.targets.requests_per_s,
           inf.targets.output_tokens_per_s},
          inf.concurrency,
          s.constraints.max_gpus.value_or(1'000'000)};
}

long long running_cap(const Search& S, const LayoutEvaluator& eval, const At& probe) {
  return running_batch(eval.spec(),
                       std::numeric_limits<long long>::max(),
                       probe.memory().max_batch,
                       engine_policy(eval.spec(), eval.gpu(), S.constants));
}

namespace {

// Whether the latency targets miss even at a batch of one sequence per replica, the probe (the
// replica count does not change a replica's latency). Time to first token and per output token
// grow with the batch, so no batch and no replica count of the layout can meet them then: the
// searches below skip the batches and replica counts whose attempts would all miss and go to
// the attempt whose miss they report (PlanOptions::prune; tests/unit/plan/test_pruning.cpp
// checks the answers are the same as without).
bool latency_floor_misses(const Search& S,
                          const Targets& t,
                          const LayoutEvaluator& eval,
                          const At& probe) {
  return S.options.prune && (t.ttft || t.tpot) && latency_ratio(t, eval.held(probe)) > 1.0;
}

// Offline serving: the largest batch per replica that meets the latency targets (all that fits,
// or less, found by bisection).
long long largest_batch_meeting_latency(
    const Search& S, LayoutEvaluator& eval, const At& probe, const Targets& t, int replicas) {
  const auto misses = [&](long long batch) {
    return latency_ratio(t, eval.held(eval(batch, replicas))) > 1.0;
  };
  const long long hi = running_cap(S, eval, probe);
  if (!(t.ttft || t.tpot)) {
    return hi;
  }
  // A batch of one (the probe) already too slow: every larger batch misses too
  // (latency_floor_misses), so the bisection below would end at 1.
  if (latency_floor_misses(S, t, eval, probe)) {
    return 1;
  }
  if (!misses(hi)) {
    return hi;
  }
  // One below the smallest batch that misses; 1 at least (a batch of 1 is not re-checked).
  return hi <= 1 ? 1LL : first_holding(1LL, hi, misses) - 1;
}

// Online serving: the requests in flight per replica (online_batch_from, search.hpp).
long long online_batch(const Search& S,
                       LayoutEvaluator& eval,
                       const At& probe,
                       const ServingGoal& goal,
                       int replicas) {
  const Targets& t = goal.targets;
  const long long share = (*goal.concurrency + replicas - 1) / replicas;
  if (!t.rps && !t.tokens) {
    return share;
  }
  const long long cap = running_cap(S, eval, probe);
  const auto rated = [&](const At& at) { return throughput_ratio(t, eval.held(at)); };
  const auto ratio = [&](long long batch) { return rated(eval(batch, replicas)); };
  if (!S.options.prune) {
    return online_batch_from(share, cap, [&](long long batch) { return ratio(batch) <= 1.0; });
  }
  // The batches this layout has evaluated for other replica counts narrow the search.
  return online_batch_rated(share, cap, ratio, [&](RatedBatch lo, long long hi) {
    KnownBatches known{lo, std::nullopt};
    eval.each_known([&](long long batch, const Evaluated& e) {
      if (batch > known.misses.batch && batch < hi) {
        const RatedBatch b{batch, rated(At{&e, replicas})};
        if (b.ratio <= 1.0) {
          hi = batch;
          known.meets = b;
        } else {
          known.misses = b;
        }
      }
    });
    return known;
  });
}

} // namespace

Attempt attempt_replicas(const Search& S,
                         LayoutEvaluator& eval,
                         const At& probe,
                         const ServingGoal& goal,
                         int replicas) {
  const Targets& t = goal.targets;
  const long long batch = goal.concurrency
                              ? online_batch(S, eval, probe, goal, replicas)
                              : largest_batch_meeting_latency(S, eval, probe, t, replicas);
  Attempt a{eval(batch, replicas), "", 0.0};
  const Held h = eval.held(a.result);
  const double lat = latency_ratio(t, h);
  if (lat > 1.0) {
    a.code = "latency_target";
    a.distance = lat;
    return a;
  }
  const double thr = throughput_ratio(t, h);
  if (thr > 1.0) {
    a.code = "throughput_target";
    a.distance = thr;
    return a;
  }
  // A replica that queues requests of a decode workload without a time-to-first-token target
  // to bound the wait is saturated: more replicas share the load (docs/plan.md, "Saturation").
  const InferencePerformance& one = a.result.one->perf;
  if (one.queueing && !t.ttft && !one.prefill_only) {
    a.code = "saturated";
    a.distance =
        static_cast<double>(one.offered) / static_cast<double>(std::max(1LL, one.concurrency));
  }
  return a;
}

ReplicaSearch offline_replicas(const Search& S,
                               LayoutEvaluator& eval,
                               const At& probe,
                               const ServingGoal& goal,
                               int max_replicas) {
  const Attempt one = attempt_replicas(S, eval, probe, goal, 1);
  ReplicaSearch r{one.code.empty(), 1, one.result, one.code, one.distance};
  if (!r.found && one.code == "throughput_target") {
    r.replicas =
        static_cast<int>(std::min<double>(max_replicas + 1.0, std::ceil(one.distance - 1e-9)));
    if (r.replicas <= max_replicas) {
      r.best = eval(one.result.memory().batch, r.replicas);
      r.found = true;
    }
  }
  if (!r.found) {
    r.replicas = std::min(r.replicas, max_replicas);
  }
  return r;
}

ReplicaSearch online_replicas(const Search& S,
                              LayoutEvaluator& eval,
                              const At& probe,
                              const ServingGoal& goal,
                              int max_replicas) {
  int lo = 0; // misses
  int hi = 1;
  Attempt last;
  bool found = false;
  if (latency_floor_misses(S, goal.targets, eval, probe)) {
    // Every doubling would miss the latency targets: only the last, the most replicas tried, is
    // reported. Should it meet them after all, the search starts over as usual.
    while (hi * 2 <= max_replicas) {
      hi *= 2;
    }
    last = attempt_replicas(S, eval, probe, goal, hi);
    if (!last.code.empty()) {
      return {false, std::min(hi * 2, max_replicas), last.result, last.code, last.distance};
    }
    hi = 1;
  }
  while (hi <= max_replicas) {
    last = attempt_replicas(S, eval, probe, goal, hi);
    if (last.code.empty()) {
      found = true;
      break;
    }
    lo = hi;
    hi = hi * 2;
  }
  if (!found) {
    return {false, std::min(hi, max_replicas), last.result, last.code, last.distance};
  }
  ReplicaSearch r{true, hi, last.result, "", 0.0};
  while (r.replicas - lo > 1) {
    const int mid = lo + (r.replicas - lo) / 2;
    Attempt a = attempt_replicas(S, eval, probe, goal, mid);
    if (a.code.empty()) {
      r.replicas = mid;
      r.best = a.result;
    } else {
      lo = mid;
    }
  }
  return r;
}

void consider_target_miss(const ReplicaSearch& r, const Parallelism& p, Miss& miss) {
  miss.consider(r.code, r.distance, [&] {
    if (r.code == "saturated") {
      const InferencePerformance& one = r.best.one->perf;
      return fmt::format("saturated even with {} replicas (the most searched): each is asked "
                         "{} concurrent sequences and runs {} at once ({}); the rest queue "
                         "without a TTFT target to bound the wait",
                         r.replicas,
                         one.offered,
                         one.concurrency,
                         one.running_limit == "max_num_seqs" ? "the engine's max_num_seqs"
                                                             : "what its KV cache holds");
    }
    return r.code == "latency_target"
               ? fmt::format("misses the latency target by {:.0f}% even at TP={}",
                             100.0 * (r.distance - 1.0),
                             p.tp)
               : fmt::format("reaches {:.0f}% of the throughput target with {} GPUs",
                             100.0 / r.distance,
                             r.replicas * p.tp * p.pp);
  });
}

void consider_memory_miss(const At& at, const Parallelism& p, Miss& miss) {
  const MemoryEstimate& m = at.memory();
  const int per_replica = p.tp * p.pp;
  const Bytes need = m.per_gpu.total() - m.per_gpu.kv_cache;
  miss.consider("memory_capacity", need / m.budget, [&] {
    return fmt::format("needs {} per GPU at {} GPU{} (TP={}{}), has {}",
                       format_bytes(need),
                       per_replica,
                       per_replica > 1 ? "s" : "",
                       p.tp,
                       p.pp > 1 ? fmt::format(", PP={}", p.pp) : "",
                       format_bytes(m.budget));
  });
}

} // namespace rightsize::detail
