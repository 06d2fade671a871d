// The serving search: layouts, fit probe, replica search, cost, candidate. Rules: docs/plan.md.

#include "search.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize::detail {

namespace {

constexpr int k_max_replicas = 4096;

struct Targets {
  std::optional<Seconds> ttft;
  std::optional<Seconds> tpot;
  std::optional<double> rps;
  std::optional<double> tokens;
};

// The values targets are held to: the pessimistic edge of each band (slow latency, low
// throughput), or the point estimate with --confidence point or without bands.
struct Held {
  double ttft = 0; // seconds
  double tpot = 0; // seconds
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
};

// A one-replica evaluation as `replicas` replicas: rates scale (as with_replicas() does),
// latencies and memory do not. Points into the layout's memo.
struct At {
  const Evaluated* one = nullptr;
  int replicas = 1;
  [[nodiscard]] const MemoryEstimate& memory() const { return one->memory; }
  [[nodiscard]] double requests_per_s() const {
    return one->perf.requests_per_s * static_cast<double>(replicas);
  }
  [[nodiscard]] double output_tokens_per_s() const {
    return one->perf.output_tokens_per_s * static_cast<double>(replicas);
  }
};

// The slow edges of the TTFT and TPOT bands over the point, and of the band rates are held to
// (rate_band_metric: TPOT's, or an embedding workload's TTFT), as the search holds targets
// (band_high_ratio); none without bands.
struct Bands {
  std::optional<double> ttft_high;
  std::optional<double> tpot_high;
  std::optional<double> rate_high;
};

// Every evaluation of one layout (spec variant, GPU, parallelism), memoized by batch: memory does
// not depend on the replica count and performance only scales with it (with_replicas), so the
// searches over batch and replicas below re-use each one-replica evaluation.
class LayoutEvaluator {
public:
  LayoutEvaluator(
      const Search& S, const Spec& spec, const Gpu& g, const Parallelism& p, const Bands& bands)
      : m_s(S), m_spec(spec), m_gpu(g), m_p(p), m_ttft_high(bands.ttft_high),
        m_tpot_high(bands.tpot_high), m_rate_high(bands.rate_high),
        m_shared(S.cache != nullptr && S.cache->holds(g)),
        m_memo(m_shared
                   ? &S.cache->memo(
                         {&g, spec.precision.weights, spec.precision.kv_cache, p.tp, p.pp, p.ep})
                   : &m_own_memo) {}
  LayoutEvaluator(const LayoutEvaluator&) = delete;
  LayoutEvaluator& operator=(const LayoutEvaluator&) = delete;

  // `batch` concurrent sequences per replica (nullopt: the spec's concurrency, or all that fit).
  At operator()(std::optional<long long> batch, int replicas) {
    const long long key = batch.value_or(-1);
    const auto hit = std::find_if(
        m_memo->begin(), m_memo->end(), [&](const auto& entry) { return entry.first == key; });
    return {hit != m_memo->end() ? hit->second : compute(key, batch), replicas};
  }

  // As inference_bands() would hold them, without building the bands: a time's slow edge is
  // point x high_ratio, a rate's low edge point / its band's high_ratio (docs/plan.md).
  [[nodiscard]] Held held(const At& e) const {
    const InferencePerformance& one = e.one->perf;
    if (m_ttft_high) {
      return {one.ttft.si() * *m_ttft_high,
              one.tpot.si() * *m_tpot_high,
              e.requests_per_s() / *m_rate_high,
              e.output_tokens_per_s() / *m_rate_high};
    }
    return {one.ttft.si(), one.tpot.si(), e.requests_per_s(), e.output_tokens_per_s()};
  }

  // Each batch evaluated so far (not the spec's own concurrency), with its evaluation.
  template <class Visit> void each_known(const Visit& visit) const {
    for (const auto& [batch, evaluated] : *m_memo) {
      if (batch >= 0) {
        visit(batch, *evaluated);
      }
    }
  }

private:
  const Evaluated* compute(long long key, std::optional<long long> batch) {
    if (!m_layout) {
      m_layout = serving_layout(m_spec, m_gpu, m_p, m_s.constants, m_s.eff);
    }
    const Evaluated* kept =
        m_shared ? &m_s.cache->keep(*m_layout, batch) : &m_own.emplace(*m_layout, batch);
    m_memo->emplace_back(key, kept);
    return kept;
  }

  const Search& m_s;
  const Spec& m_spec;
  const Gpu& m_gpu;
  const Parallelism& m_p;
  std::optional<double> m_ttft_high;
  std::optional<double> m_tpot_high;
  std::optional<double> m_rate_high;
  // What the layout's evaluations share, worked out at its first (none when the plan's cache
  // holds every batch the search asks for).
  std::optional<ServingLayout> m_layout;
  bool m_shared; // kept in the plan's cache
  EvaluationCache::Memo m_own_memo;
  EvaluationCache::Memo* m_memo; // the cache's for this layout, or m_own_memo
  EvaluationStore m_own{16};     // when the plan's cache does not hold this GPU
};

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
// across the TP group when the experts divide, and pipeline stages only at the widest TP size
// (none for an encoder-decoder: rightsize does not split its two stacks into stages; none for a
// diffusers pipeline, which runs on one GPU).
std::vector<Parallelism> inference_layouts(const Spec& spec, const std::vector<int>& tps) {
  std::vector<Parallelism> out;
  out.reserve(2 * tps.size() + 4); // each TP size and its EP layout, the PP layouts of the widest
  for (const int tp : tps) {
    for (const int pp : {1, 2, 4}) {
      if (pp > 1 && (tp < tps.back() || spec.model.encoder_decoder || spec.model.diffusion)) {
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

// One layout at one replica count: the evaluation, and which target it misses.
struct Attempt {
  At result;
  std::string code;    // empty when every target holds; else latency_target or throughput_target
  double distance = 0; // achieved / target of the missed constraint
};

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

// The most sequences a replica of the layout runs at once: what its KV cache holds, capped by
// the engine's max_num_seqs (running_batch).
long long running_cap(const Search& S, const At& probe) {
  return running_batch(std::numeric_limits<long long>::max(),
                       probe.memory().max_batch,
                       S.constants.engine(S.spec.workload.inference.engine));
}

// Offline serving: the largest batch per replica that meets the latency targets (all that fits,
// or less, found by bisection).
long long largest_batch_meeting_latency(
    const Search& S, LayoutEvaluator& eval, const At& probe, const Targets& t, int replicas) {
  const auto misses = [&](long long batch) {
    return latency_ratio(t, eval.held(eval(batch, replicas))) > 1.0;
  };
  const long long hi = running_cap(S, probe);
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
  const long long cap = running_cap(S, probe);
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

// One replica count: the batch per replica (online_batch, or offline the largest that meets the
// latency targets), evaluated, and the target it misses.
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

// The fewest replicas of one layout that meet every target, or the most tried and why they miss.
struct ReplicaSearch {
  bool found = false;
  int replicas = 0;
  At best;          // found: the evaluation at `replicas`
  std::string code; // not found: the target missed, as in Attempt
  double distance = 0;
};

// Offline: each replica runs its own largest batch that meets the latency targets, independent of
// how many replicas there are, so throughput adds up and one evaluation decides.
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

// Online: replicas share the concurrency, so more replicas lower each one's batch. Double until
// every target holds, then bisect down to the fewest.
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

// A layout's candidate as the search scores it: the figures of the replica search, no sentences,
// and no spec until it is kept (a copy of the spec per layout tried was a good part of the search).
Candidate serving_candidate(const Gpu& g, const Parallelism& p, const ReplicaSearch& r) {
  Candidate c;
  c.gpu = &g;
  c.layout = p;
  c.replicas = r.replicas;
  c.memory = r.best.memory();
  c.inference = with_replicas(r.best.one->perf, r.best.replicas);
  return c;
}

// A configuration the search keeps: its candidate, its spec variant and the load headroom it was
// costed with. The candidate gets the variant's spec only when it leaves the search (a copy when
// the plan did not make the variant): a GPU's search keeps a better configuration many times.
struct Kept {
  Candidate candidate;
  double headroom = 1;
  const Variant* variant = nullptr;
};

// The candidate re-evaluated and re-costed with every sentence and band (Detail::full) at the
// batch and replicas the search settled on: the same figures, now explained. Only the candidates
// kept are.
void explain(const Search& S, Kept& kept) {
  Candidate& c = kept.candidate;
  const Spec& spec = *kept.variant->spec;
  const long long offered = c.inference->offered;
  c.memory = estimate_memory(spec, *c.gpu, c.layout, S.constants, c.memory.batch);
  c.inference = estimate_inference(
      spec, *c.gpu, c.layout, c.memory, S.eff, S.constants, c.replicas, Detail::full, offered);
  if (S.options.uncertainty != nullptr) {
    c.inference_bands = serving_bands(S, *c.gpu, engine_name(spec), *c.inference);
  }
  // The cost figures do not depend on the detail; the prices per token are the search's.
  const CostBreakdown priced = c.cost;
  c.cost = CostBreakdown{};
  std::string why;
  cost_inference(S, c, kept.headroom, why, Detail::full);
  c.cost.usd_per_million_tokens = priced.usd_per_million_tokens;
  c.cost.usd_per_million_at_full_load = priced.usd_per_million_at_full_load;
  c.cost.usd_per_thousand_images = priced.usd_per_thousand_images;
  c.cost.usd_per_thousand_images_full_load = priced.usd_per_thousand_images_full_load;
  c.cost.usd_per_audio_hour = priced.usd_per_audio_hour;
  c.cost.usd_per_audio_hour_at_full_load = priced.usd_per_audio_hour_at_full_load;
}

// The lowest score any number of replicas of a layout with `per_replica` GPUs can have: its cost
// with one replica every month, which cost_inference computes the same way as for more (every
// term grows with the replicas). Only where the objective's score grows with the cost or the GPU
// count (tco, gpus, power); nullopt otherwise, and when the GPU has no price.
std::optional<double> score_lower_bound(const Search& S, const Gpu& g, const Parallelism& p) {
  const Objective o = S.options.objective;
  if (!S.options.prune || (o != Objective::tco && o != Objective::gpus && o != Objective::power)) {
    return std::nullopt;
  }
  Candidate one;
  one.gpu = &g;
  one.layout = p;
  one.replicas = 1;
  std::string why;
  if (!cost_inference(S, one, 1e300, why, Detail::numbers)) {
    return std::nullopt;
  }
  return score(one, o, S);
}

// score_lower_bound of one GPU's layouts, by GPUs per replica: the only term of the layout it
// depends on (a replica's cost, power and GPU count), the same for every precision variant.
class ScoreBounds {
public:
  std::optional<double> of(const Search& S, const Gpu& g, const Parallelism& p) {
    const int per_replica = p.tp * p.pp;
    for (const auto& [gpus, bound] : m_known) {
      if (gpus == per_replica) {
        return bound;
      }
    }
    return m_known.emplace_back(per_replica, score_lower_bound(S, g, p)).second;
  }

private:
  std::vector<std::pair<int, std::optional<double>>> m_known;
};

// Load headroom: how far demand may grow before these replicas stop meeting targets (1 when no
// target bounds it).
double load_headroom(const LayoutEvaluator& eval,
                     const ServingGoal& goal,
                     const ReplicaSearch& r,
                     long long cap) {
  const Targets& t = goal.targets;
  const Held h = eval.held(r.best);
  double headroom = 1e9;
  if (t.rps) {
    headroom = std::min(headroom, h.requests_per_s / *t.rps);
  }
  if (t.tokens) {
    headroom = std::min(headroom, h.output_tokens_per_s / *t.tokens);
  }
  if (goal.concurrency) {
    headroom = std::min(headroom,
                        static_cast<double>(cap * r.replicas) /
                            static_cast<double>(*goal.concurrency));
  }
  return headroom > 1e8 ? 1.0 : headroom;
}

// $ per million output tokens (an embedding workload: tokens embedded) at the planned load and
// with every replica running full, once cost_inference has priced the candidate.
void price_per_token(LayoutEvaluator& eval,
                     Candidate& c,
                     const WorkloadUnits& units,
                     const Spec& spec) {
  const double tokens_per_s = c.inference->priced_tokens_per_s();
  if (tokens_per_s <= 0) {
    return;
  }
  c.cost.usd_per_million_tokens = to_usd_per_million(c.cost.per_hour / items_per_s(tokens_per_s));
  const At full = eval(std::nullopt, c.replicas);
  const double full_tokens_per_s =
      full.one->perf.priced_tokens_per_s() * static_cast<double>(full.replicas);
  if (full_tokens_per_s > 0) {
    c.cost.usd_per_million_at_full_load =
        to_usd_per_million(c.cost.per_hour / items_per_s(full_tokens_per_s));
  }
  if (units.price == PriceBasis::per_thousand_images) {
    // Every image is input_tokens tokens: $ per image = $ per token x tokens per image.
    const auto per_thousand = static_cast<double>(spec.workload.inference.input_tokens) / 1e3;
    c.cost.usd_per_thousand_images = *c.cost.usd_per_million_tokens * per_thousand;
    if (c.cost.usd_per_million_at_full_load) {
      c.cost.usd_per_thousand_images_full_load =
          *c.cost.usd_per_million_at_full_load * per_thousand;
    }
  }
  // Transcription: audio hours transcribed per hour are the audio seconds per second.
  if (c.inference->audio_seconds_per_s > 0) {
    c.cost.usd_per_audio_hour =
        (c.cost.per_hour / items_per_hour(c.inference->audio_seconds_per_s)).si();
    const double full_audio =
        full.one->perf.audio_seconds_per_s * static_cast<double>(full.replicas);
    if (full_audio > 0) {
      c.cost.usd_per_audio_hour_at_full_load = (c.cost.per_hour / items_per_hour(full_audio)).si();
    }
  }
}

} // namespace

EvaluationCache::Memo& EvaluationCache::memo(const Layout& l) {
  Memo& m = m_layouts[l];
  if (m.capacity() == 0) {
    m.reserve(16); // a layout's batches: about ten in a serving search
  }
  return m;
}

bool EvaluationCache::holds(const Gpu& g) const {
  const auto& gpus = m_catalog.gpus;
  return !gpus.empty() && &g >= gpus.data() && &g < gpus.data() + gpus.size();
}

std::size_t EvaluationCache::Hash::operator()(const Layout& l) const {
  std::size_t h = std::hash<const Gpu*>{}(l.gpu);
  for (const int v :
       {static_cast<int>(l.weights), static_cast<int>(l.kv_cache), l.tp, l.pp, l.ep}) {
    h = h * 1'000'003 ^ std::hash<int>{}(v);
  }
  return h;
}

// For each precision and layout: fit probe (one request, one replica) → replica search → cost →
// score. Layouts that fail leave the closest miss, to explain a rejection. `found` gets the first
// configuration that meets the spec and the best by score (the first of the lowest, as plan.cpp
// ranks) when that is another; a layout whose lowest possible score cannot beat the best so far is
// skipped after its fit probe (PlanOptions::prune).
void search_inference(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss) {
  const ServingGoal goal = serving_goal(S.spec);
  std::optional<Kept> first; // the first configuration that meets the spec
  std::optional<Kept> best;  // a later one that scores strictly lower, if any
  double best_score = 0;     // of the best so far: `best`, else `first`
  ScoreBounds bounds;
  std::vector<Spec> made;
  std::deque<Spec> fp16_copies;
  const std::vector<Variant> variants = variants_of(S, g, made, fp16_copies);
  for (const Variant& variant : variants) {
    const Spec& spec = *variant.spec;
    if (!engine_runs(S, spec, g, miss) || !compute_rate_known(spec, g, miss)) {
      continue;
    }
    // The band ratios of the GPU's family and the engine, the same for every layout.
    const Bands bands{band_high_ratio(S, g, spec, latency_band_metric(S.units)),
                      band_high_ratio(S, g, spec, "tpot"),
                      band_high_ratio(S, g, spec, rate_band_metric(S.units))};
    const std::vector<int> tps = tp_options(spec, g);
    bool widest_fits = false;
    for (const Parallelism& p : inference_layouts(spec, tps)) {
      // Pipeline stages only when the widest tensor-parallel layout does not fit: they add GPUs
      // and latency, never speed, to a replica.
      const int per_replica = p.tp * p.pp;
      if ((p.pp > 1 && widest_fits) || per_replica > goal.max_gpus) {
        continue;
      }
      // Before the fit probe, which costs an evaluation: once the GPU has a candidate, a layout
      // that cannot beat it is skipped whether it fits or not (its miss would not be shown, and
      // a deeper pipeline has more GPUs per replica, so its bound is no lower).
      if (first) {
        if (const auto bound = bounds.of(S, g, p); bound && *bound >= best_score) {
          continue;
        }
      }
      LayoutEvaluator eval(S, spec, g, p, bands);
      const At probe = eval(1, 1);
      if (probe.memory().max_batch < 1) {
        consider_memory_miss(probe, p, miss);
        continue;
      }
      widest_fits = widest_fits || (p.tp == tps.back() && p.pp == 1);
      const int max_replicas =
          static_cast<int>(std::min<long long>(k_max_replicas, goal.max_gpus / per_replica));
      const ReplicaSearch r = goal.concurrency
                                  ? online_replicas(S, eval, probe, goal, max_replicas)
                                  : offline_replicas(S, eval, probe, goal, max_replicas);
      if (!r.found) {
        consider_target_miss(r, p, miss);
        continue;
      }
      Kept k{serving_candidate(g, p, r), std::max(1.0, load_headroom(eval, goal, r, running_cap(S, probe))), &variant};
      Candidate& c = k.candidate;
      std::string why;
      if (!cost_inference(S, c, k.headroom, why, Detail::numbers)) {
        miss.consider({"no_price", why, "add a price with --catalog (docs/catalog.md)", 1e299});
        continue;
      }
      price_per_token(eval, c, S.units, spec);
      if (S.any) {
        c.spec = spec_for_candidate(variant);
        found.push_back(std::move(c));
        return;
      }
      const double sc = score(c, S.options.objective, S);
      if (first && sc >= best_score) {
        continue;
      }
      (first ? best : first) = std::move(k);
      best_score = sc;
    }
  }
  // best_candidate() takes `best` when there is one (it scores strictly lower, and explaining
  // changes no figure): only the configuration it takes is explained. `first` still comes first
  // in `found`, with the figures the search gave it (smallest_slice reads them).
  if (auto& taken = best ? best : first) {
    explain(S, *taken);
  }
  // One allocation, no candidate moved twice.
  found.reserve(found.size() + (first ? 1U : 0U) + (best ? 1U : 0U));
  for (auto* kept : {&first, &best}) {
    if (*kept) {
      (*kept)->candidate.spec = spec_for_candidate(*(*kept)->variant);
      found.push_back(std::move((*kept)->candidate));
    }
  }
}

std::optional<double>
band_high_ratio(const Search& S, const Gpu& g, const Spec& spec, const char* metric) {
  if (S.options.uncertainty == nullptr || S.options.confidence != Confidence::band) {
    return std::nullopt;
  }
  // Each GPU's search asks for three; a family's answer is the same for each of its GPUs.
  const std::string family = S.eff.family_name(g);
  const std::string engine = engine_name(spec);
  const auto matches = [&](const Search::FamilyRatio& k) {
    return k.metric == metric && k.family == family && k.engine == engine;
  };
  const auto make = [&] {
    return Search::FamilyRatio{
        family, engine, metric, S.options.uncertainty->high_ratio(metric, family, engine)};
  };
  return remembered(S.high_ratios, matches, make).high_ratio;
}

} // namespace rightsize::detail
