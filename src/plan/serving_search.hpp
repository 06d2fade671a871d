#pragma once

// Inside the plan stage: the serving search's evaluator of one layout and its replica search, for
// search_inference.cpp (layouts to candidates), replica_search.cpp (batch and replicas) and
// growth.cpp (the replicas each month needs). Not a public header.

#include "search.hpp"

#include <optional>
#include <string>

namespace rightsize::detail {

inline constexpr int k_max_replicas = 4096;

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
  // The same where the KV cache overflows (Uncertainty::overflowing): no narrower.
  std::optional<double> ttft_overflow_high;
  std::optional<double> tpot_overflow_high;
  std::optional<double> rate_overflow_high;
};

// The band ratios of a GPU's family and the spec's engine, the same for every layout.
Bands serving_band_highs(const Search& S, const Gpu& g, const Spec& spec);
// `family`'s ratios for layout `p`: attention data-parallel layouts were never fitted, and their
// targets are held at the slow edge of the band enveloped with their measured runs'
// (Uncertainty::attention_data_parallel), as their reports show it.
Bands layout_band_highs(const Search& S, const Bands& family, const Parallelism& p);

// Every evaluation of one layout (spec variant, GPU, parallelism), memoized by batch: memory does
// not depend on the replica count and performance only scales with it (with_replicas), so the
// searches over batch and replicas below re-use each one-replica evaluation.
class LayoutEvaluator {
public:
  LayoutEvaluator(
      const Search& S, const Spec& spec, const Gpu& g, const Parallelism& p, const Bands& bands)
      : m_s(S), m_spec(spec), m_gpu(g), m_p(p), m_ttft_high(bands.ttft_high),
        m_tpot_high(bands.tpot_high), m_rate_high(bands.rate_high),
        m_ttft_overflow_high(bands.ttft_overflow_high),
        m_tpot_overflow_high(bands.tpot_overflow_high),
        m_rate_overflow_high(bands.rate_overflow_high),
        m_shared(S.cache != nullptr && S.cache->holds(g)),
        m_memo(m_shared ? &S.cache->memo({&g,
                                          spec.precision.weights,
                                          spec.precision.kv_cache,
                                          p.tp,
                                          p.pp,
                                          p.ep,
                                          p.attention_dp})
                        : &m_own_memo) {}
  LayoutEvaluator(const LayoutEvaluator&) = delete;
  LayoutEvaluator& operator=(const LayoutEvaluator&) = delete;
  [[nodiscard]] const Gpu& gpu() const { return m_gpu; }
  [[nodiscard]] const Spec& spec() const { return m_spec; }

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
      const bool over = one.kv_overflow() && m_ttft_overflow_high;
      const double rate_high = over ? *m_rate_overflow_high : *m_rate_high;
      return {one.ttft.si() * (over ? *m_ttft_overflow_high : *m_ttft_high),
              one.tpot.si() * (over ? *m_tpot_overflow_high : *m_tpot_high),
              e.requests_per_s() / rate_high,
              e.output_tokens_per_s() / rate_high};
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
  std::optional<double> m_ttft_overflow_high;
  std::optional<double> m_tpot_overflow_high;
  std::optional<double> m_rate_overflow_high;
  // What the layout's evaluations share, worked out at its first (none when the plan's cache
  // holds every batch the search asks for).
  std::optional<ServingLayout> m_layout;
  bool m_shared; // kept in the plan's cache
  EvaluationCache::Memo m_own_memo;
  EvaluationCache::Memo* m_memo; // the cache's for this layout, or m_own_memo
  EvaluationStore m_own{16};     // when the plan's cache does not hold this GPU
};

// What the replica search must meet, read once from the spec.
struct ServingGoal {
  Targets targets;
  std::optional<long long> concurrency; // total concurrent requests; none: offline (batch) serving
  long long max_gpus = 0;
};

// One layout at one replica count: the evaluation, and which target it misses.
struct Attempt {
  At result;
  std::string code;    // empty when every target holds; else latency_target or throughput_target
  double distance = 0; // achieved / target of the missed constraint
};

// The fewest replicas of one layout that meet every target, or the most tried and why they miss.
struct ReplicaSearch {
  bool found = false;
  int replicas = 0;
  At best;          // found: the evaluation at `replicas`
  std::string code; // not found: the target missed, as in Attempt
  double distance = 0;
};

// The tightest of a latency's targets, the typical request's and its percentiles': what the
// analytical search holds first (the percentiles of a request's latency lie above its typical
// value but for p50 of a skewed distribution, which is then held a little harder).
std::optional<Seconds> strictest(const std::optional<Seconds>& mean,
                                 const std::vector<PercentileTarget>& percentiles);
// The spec's targets, its latency targets at their strictest, its concurrency and GPU limit.
ServingGoal serving_goal(const Spec& s);
// Whether latency targets hold, and by how much (held value / target, the worse of the two).
double latency_ratio(const Targets& t, const Held& h);
// How far throughput falls short of the targets (target / held value, the worse; <= 1: met).
double throughput_ratio(const Targets& t, const Held& h);
// The most sequences a replica of the layout runs at once: what its KV cache holds, capped by
// the engine's max_num_seqs (running_batch).
long long running_cap(const Search& S, const LayoutEvaluator& eval, const At& probe);
// One replica count: the batch per replica (the spec's share, or more for a throughput target;
// offline the largest that meets the latency targets), evaluated, and the target it misses.
Attempt attempt_replicas(
    const Search& S, LayoutEvaluator& eval, const At& probe, const ServingGoal& goal, int replicas);
// Offline: each replica runs its own largest batch that meets the latency targets, independent
// of how many replicas there are, so throughput adds up and one evaluation decides.
ReplicaSearch offline_replicas(const Search& S,
                               LayoutEvaluator& eval,
                               const At& probe,
                               const ServingGoal& goal,
                               int max_replicas);
// Online: the fewest replicas that meet every target (doubling, then bisection).
ReplicaSearch online_replicas(const Search& S,
                              LayoutEvaluator& eval,
                              const At& probe,
                              const ServingGoal& goal,
                              int max_replicas);
void consider_memory_miss(const At& at, const Parallelism& p, Miss& miss);
void consider_target_miss(const ReplicaSearch& r, const Parallelism& p, Miss& miss);
// Whether the objective's score only grows with the cost or the GPU count (tco, gpus, power):
// where flat_score bounds every series that starts at its replicas.
bool score_grows_with_cost(Objective o);
// `replicas` replicas of `p` on `g` every month, costed (cost_inference, Detail::numbers) and
// scored under the plan's objective: a lower bound of the score of any growth series starting at
// them (every term of the cost grows with the replicas). None when the catalog has no price for
// the GPU or no shape that holds the layout.
std::optional<double>
flat_score(const Search& S, const Gpu& g, const Parallelism& p, long long replicas);
// The spec's goal with demand grown `factor`-fold: the concurrency and the rate targets together
// (growth.cpp; docs/plan.md, "Growth").
ServingGoal grown_goal(const ServingGoal& goal, double factor);
// The replicas each month of the horizon needs (GrowthSeries, search.hpp), month 1 being the
// replica search's `planned` (growth.cpp).
GrowthSeries growth_series(const Search& S,
                           LayoutEvaluator& eval,
                           const At& probe,
                           const ServingGoal& goal,
                           int planned,
                           int max_replicas);

// --- Disaggregated prefill/decode (disaggregated_search.cpp; docs/plan.md, "Disaggregated
// serving")

// The busiest a planned prefill pool may be: past it a queue of prompts parks the requests the
// decode pool would otherwise hold (a closed loop's TTFT absorbs them), and a burst has no room.
// At 85% the M/D/1 wait is 2.8 prefills.
inline constexpr double k_prefill_utilization = 0.85;

// A disaggregated configuration the search found: its candidate with the figures only
// (Detail::numbers) and costed, `layout` each replica's of both pools, `replicas` both pools';
// the replicas each month needs; the memory it has to spare.
struct DisaggregatedFound {
  Candidate candidate;
  GrowthSeries growth;
  double room = 0;
};
// The best-scoring disaggregated configuration of `spec` on `g`, both pools of one of `layouts`
// (those whose fit probe holds a sequence), with fewer GPUs than `gpu_limit` (the aggregated
// configuration to beat; none: any) and a lower score than `to_beat` (its score), meeting every
// target at the disaggregated band's edge with neither pool full, month by month. None when the
// spec cannot be split (disaggregation_refusal), names percentile targets (the simulation is of one
// engine), or nothing meets it.
std::optional<DisaggregatedFound> search_disaggregated(const Search& S,
                                                       const Spec& spec,
                                                       const Gpu& g,
                                                       const std::vector<Parallelism>& layouts,
                                                       const ServingGoal& goal,
                                                       std::optional<long long> gpu_limit,
                                                       std::optional<double> to_beat);
// The pools of a given disaggregated configuration (evaluate.cpp): `replicas` in all,
// `prefills` of them prefill (0: the split of them that meets the goal with the fewest prefill
// replicas, else an even one), with their estimate at Detail::full; none when a replica of the
// layout does not hold a sequence or the spec cannot be split.
std::optional<DisaggregatedPerformance> disaggregated_pools(const Search& S,
                                                            const Spec& spec,
                                                            const Gpu& g,
                                                            const Parallelism& p,
                                                            int replicas,
                                                            int prefills);
// The band ratios a disaggregated candidate's targets are held at (1 at the point).
struct DisaggregatedHighs {
  double ttft = 1;
  double tpot = 1;
  double rate = 1;
};
DisaggregatedHighs
disaggregated_highs(const Search& S, const Gpu& g, const Spec& spec, const Parallelism& p);
// Its growth month by month from `planned` pools (search_disaggregated's series).
GrowthSeries disaggregated_growth(const Search& S,
                                  const Spec& spec,
                                  const Gpu& g,
                                  const Parallelism& p,
                                  std::pair<int, int> planned);
// The kept candidate's pools at Detail::full, its memory, bands (Uncertainty::disaggregated) and
// the sentence that says why it wins (DisaggregatedChoice::why).
void explain_disaggregated(const Search& S, const Spec& spec, Candidate& c);

} // namespace rightsize::detail
