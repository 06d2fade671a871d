// The serving search: layouts, fit probe, replica search, cost, candidate. Rules: docs/plan.md.

#include "search.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::detail {

namespace {

constexpr int k_max_replicas = 4096;

struct Targets {
  std::optional<Seconds> ttft;
  std::optional<Seconds> tpot;
  std::optional<double> rps;
  std::optional<double> tokens;
};

struct Evaluated {
  MemoryEstimate memory;
  InferencePerformance perf;
  std::optional<InferenceBands> bands;
};

Evaluated evaluate(const Search& S,
                   const Spec& spec,
                   const Gpu& g,
                   const Parallelism& p,
                   std::optional<long long> batch,
                   int replicas) {
  Evaluated e{estimate_memory(spec, g, p, S.constants, batch), {}, {}};
  e.perf = estimate_inference(spec, g, p, e.memory, S.eff, S.constants, replicas);
  if (S.options.uncertainty != nullptr) {
    e.bands = inference_bands(e.perf, *S.options.uncertainty, g, spec.workload.inference.engine);
  }
  return e;
}

// The values targets are held to: the pessimistic edge of each band (slow latency, low
// throughput), or the point estimate with --confidence point or without bands.
struct Held {
  double ttft = 0; // seconds
  double tpot = 0; // seconds
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
};

Held held(const Search& S, const Evaluated& e) {
  if (e.bands && S.options.confidence == Confidence::band) {
    return {e.bands->ttft.high,
            e.bands->tpot.high,
            e.bands->requests_per_s.low,
            e.bands->output_tokens_per_s.low};
  }
  return {e.perf.ttft.si(), e.perf.tpot.si(), e.perf.requests_per_s, e.perf.output_tokens_per_s};
}

// Whether latency targets hold, and by how much (held value / target, the worse of the two).
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

// How far throughput falls short of the targets (target / held value, the worse; <= 1: met).
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

// What the replica search must meet, read once from the spec.
struct ServingGoal {
  Targets targets;
  std::optional<long long> concurrency; // total concurrent requests; none: offline (batch) serving
  long long max_gpus = 0;
};

ServingGoal serving_goal(const Spec& s) {
  const auto& inf = s.workload.inference;
  return {{inf.targets.ttft,
           inf.targets.tpot,
           inf.targets.requests_per_s,
           inf.targets.output_tokens_per_s},
          inf.concurrency,
          s.constraints.max_gpus.value_or(1'000'000)};
}

// The layouts to try on one GPU, narrowest first: every tensor-parallel size, expert parallelism
// across the TP group when the experts divide, and pipeline stages only at the widest TP size.
std::vector<Parallelism> inference_layouts(const Spec& spec, const std::vector<int>& tps) {
  std::vector<Parallelism> out;
  for (const int tp : tps) {
    for (const int pp : {1, 2, 4}) {
      if (pp > 1 && tp < tps.back()) {
        continue;
      }
      std::vector<int> eps{1};
      if (spec.model.is_moe() && tp > 1 && spec.model.experts % tp == 0) {
        eps.push_back(tp);
      }
      for (const int ep : eps) {
        Parallelism p;
        p.tp = tp;
        p.pp = pp;
        p.ep = ep;
        out.push_back(p);
      }
    }
  }
  return out;
}

Miss memory_miss(const Evaluated& probe, const Parallelism& p) {
  const int per_replica = p.tp * p.pp;
  const Bytes need = probe.memory.per_gpu.total() - probe.memory.per_gpu.kv_cache;
  return {"memory_capacity",
          fmt::format("needs {} per GPU at {} GPU{} (TP={}{}), has {}",
                      format_bytes(need),
                      per_replica,
                      per_replica > 1 ? "s" : "",
                      p.tp,
                      p.pp > 1 ? fmt::format(", PP={}", p.pp) : "",
                      format_bytes(probe.memory.budget)),
          "",
          need / probe.memory.budget};
}

// One layout at one replica count: the evaluation, and which target it misses.
struct Attempt {
  Evaluated result;
  std::string code;    // empty when every target holds; else latency_target or throughput_target
  double distance = 0; // achieved / target of the missed constraint
};

// Offline serving: the largest batch per replica that meets the latency targets (all that fits,
// or less, found by bisection).
long long largest_batch_meeting_latency(const Search& S,
                                        const Spec& spec,
                                        const Gpu& g,
                                        const Parallelism& p,
                                        const Evaluated& probe,
                                        const Targets& t,
                                        int replicas) {
  const auto misses = [&](long long batch) {
    return latency_ratio(t, held(S, evaluate(S, spec, g, p, batch, replicas))) > 1.0;
  };
  const long long hi = probe.memory.max_batch;
  if (!(t.ttft || t.tpot) || !misses(hi)) {
    return hi;
  }
  // One below the smallest batch that misses; 1 at least (a batch of 1 is not re-checked).
  return hi <= 1 ? 1LL : first_holding(1LL, hi, misses) - 1;
}

// Online serving: the requests in flight per replica. At least the spec's concurrency shared among
// the replicas; more when the throughput targets need it, since by Little's law a replica serving
// rate r with requests of duration d holds r x d of them at once. The smallest such batch, by
// bisection (throughput grows with the batch), capped at what fits.
long long online_batch(const Search& S,
                       const Spec& spec,
                       const Gpu& g,
                       const Parallelism& p,
                       const Evaluated& probe,
                       const ServingGoal& goal,
                       int replicas) {
  const Targets& t = goal.targets;
  long long lo = (*goal.concurrency + replicas - 1) / replicas;
  if ((!t.rps && !t.tokens) ||
      throughput_ratio(t, held(S, evaluate(S, spec, g, p, lo, replicas))) <= 1.0) {
    return lo;
  }
  long long hi = std::min<long long>(probe.memory.max_batch,
                                     static_cast<long long>(S.constants.get("max_num_seqs")));
  if (hi <= lo || throughput_ratio(t, held(S, evaluate(S, spec, g, p, hi, replicas))) > 1.0) {
    return std::max(lo, hi);
  }
  return first_holding(lo, hi, [&](long long batch) {
    return throughput_ratio(t, held(S, evaluate(S, spec, g, p, batch, replicas))) <= 1.0;
  });
}

// One replica count: the batch per replica (online_batch, or offline the largest that meets the
// latency targets), evaluated, and the target it misses.
Attempt attempt_replicas(const Search& S,
                         const Spec& spec,
                         const Gpu& g,
                         const Parallelism& p,
                         const Evaluated& probe,
                         const ServingGoal& goal,
                         int replicas) {
  const Targets& t = goal.targets;
  const long long batch = goal.concurrency
                              ? online_batch(S, spec, g, p, probe, goal, replicas)
                              : largest_batch_meeting_latency(S, spec, g, p, probe, t, replicas);
  Attempt a{evaluate(S, spec, g, p, batch, replicas), "", 0.0};
  const Held h = held(S, a.result);
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
  }
  return a;
}

// The fewest replicas of one layout that meet every target, or the most tried and why they miss.
struct ReplicaSearch {
  bool found = false;
  int replicas = 0;
  Evaluated best;   // found: the evaluation at `replicas`
  std::string code; // not found: the target missed, as in Attempt
  double distance = 0;
};

// Offline: each replica runs its own largest batch that meets the latency targets, independent of
// how many replicas there are, so throughput adds up and one evaluation decides.
ReplicaSearch offline_replicas(const Search& S,
                               const Spec& spec,
                               const Gpu& g,
                               const Parallelism& p,
                               const Evaluated& probe,
                               const ServingGoal& goal,
                               int max_replicas) {
  const Attempt one = attempt_replicas(S, spec, g, p, probe, goal, 1);
  ReplicaSearch r{one.code.empty(), 1, one.result, one.code, one.distance};
  if (!r.found && one.code == "throughput_target") {
    r.replicas =
        static_cast<int>(std::min<double>(max_replicas + 1.0, std::ceil(one.distance - 1e-9)));
    if (r.replicas <= max_replicas) {
      r.best = evaluate(S, spec, g, p, one.result.memory.batch, r.replicas);
      r.found = true;
    }
  }
  if (!r.found) {
    r.replicas = std::min(r.replicas, max_replicas);
  }
  return r;
}

// Online: replicas share the concurrency, so more replicas lower each one's batch. Double until
// every target holds, then bisect down to the fewest.
ReplicaSearch online_replicas(const Search& S,
                              const Spec& spec,
                              const Gpu& g,
                              const Parallelism& p,
                              const Evaluated& probe,
                              const ServingGoal& goal,
                              int max_replicas) {
  int lo = 0; // misses
  int hi = 1;
  Attempt last;
  bool found = false;
  while (hi <= max_replicas) {
    last = attempt_replicas(S, spec, g, p, probe, goal, hi);
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
    Attempt a = attempt_replicas(S, spec, g, p, probe, goal, mid);
    if (a.code.empty()) {
      r.replicas = mid;
      r.best = std::move(a.result);
    } else {
      lo = mid;
    }
  }
  return r;
}

Miss target_miss(const ReplicaSearch& r, const Parallelism& p) {
  return {r.code,
          r.code == "latency_target"
              ? fmt::format("misses the latency target by {:.0f}% even at TP={}",
                            100.0 * (r.distance - 1.0),
                            p.tp)
              : fmt::format("reaches {:.0f}% of the throughput target with {} GPUs",
                            100.0 / r.distance,
                            r.replicas * p.tp * p.pp),
          "",
          r.distance};
}

Candidate
serving_candidate(const Gpu& g, const Parallelism& p, const Spec& spec, const ReplicaSearch& r) {
  Candidate c;
  c.gpu = &g;
  c.layout = p;
  c.replicas = r.replicas;
  c.spec = spec;
  c.memory = r.best.memory;
  c.inference = r.best.perf;
  c.inference_bands = r.best.bands;
  return c;
}

// Load headroom: how far demand may grow before these replicas stop meeting targets (1 when no
// target bounds it).
double load_headroom(const Search& S, const ServingGoal& goal, const ReplicaSearch& r) {
  const Targets& t = goal.targets;
  const Held h = held(S, r.best);
  double headroom = 1e9;
  if (t.rps) {
    headroom = std::min(headroom, h.requests_per_s / *t.rps);
  }
  if (t.tokens) {
    headroom = std::min(headroom, h.output_tokens_per_s / *t.tokens);
  }
  if (goal.concurrency) {
    headroom = std::min(headroom,
                        static_cast<double>(r.best.memory.max_batch * r.replicas) /
                            static_cast<double>(*goal.concurrency));
  }
  return headroom > 1e8 ? 1.0 : headroom;
}

// $ per million output tokens at the planned load and with every replica running full.
void price_per_token(const Search& S, Candidate& c) {
  if (c.cost.price_label.empty() || c.inference->output_tokens_per_s <= 0) {
    return;
  }
  c.cost.usd_per_million_output_tokens =
      c.cost.per_hour.si() / (c.inference->output_tokens_per_s * 3600.0) * 1e6;
  const Evaluated full = evaluate(S, c.spec, *c.gpu, c.layout, std::nullopt, c.replicas);
  if (full.perf.output_tokens_per_s > 0) {
    c.cost.usd_per_million_at_full_load =
        c.cost.per_hour.si() / (full.perf.output_tokens_per_s * 3600.0) * 1e6;
  }
}

} // namespace

// For each precision and layout: fit probe (one request, one replica) → replica search → cost →
// candidate. Layouts that fail leave the closest miss, to explain a rejection.
void search_inference(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss) {
  const ServingGoal goal = serving_goal(S.spec);
  for (const Spec& spec : precision_variants(S.spec)) {
    if (!engine_runs(S, spec, g, miss)) {
      continue;
    }
    const std::vector<int> tps = tp_options(spec, g);
    bool widest_fits = false;
    for (const Parallelism& p : inference_layouts(spec, tps)) {
      // Pipeline stages only when the widest tensor-parallel layout does not fit: they add GPUs
      // and latency, never speed, to a replica.
      const int per_replica = p.tp * p.pp;
      if ((p.pp > 1 && widest_fits) || per_replica > goal.max_gpus) {
        continue;
      }
      const Evaluated probe = evaluate(S, spec, g, p, 1, 1);
      if (probe.memory.max_batch < 1) {
        miss.consider(memory_miss(probe, p));
        continue;
      }
      widest_fits = widest_fits || (p.tp == tps.back() && p.pp == 1);
      const int max_replicas =
          static_cast<int>(std::min<long long>(k_max_replicas, goal.max_gpus / per_replica));
      const ReplicaSearch r = goal.concurrency
                                  ? online_replicas(S, spec, g, p, probe, goal, max_replicas)
                                  : offline_replicas(S, spec, g, p, probe, goal, max_replicas);
      if (!r.found) {
        miss.consider(target_miss(r, p));
        continue;
      }
      Candidate c = serving_candidate(g, p, spec, r);
      std::string why;
      if (!cost_inference(S, c, std::max(1.0, load_headroom(S, goal, r)), why)) {
        miss.consider({"no_price", why, "add a price with --catalog (docs/catalog.md)", 1e299});
        continue;
      }
      price_per_token(S, c);
      found.push_back(std::move(c));
    }
  }
}

} // namespace rightsize::detail
