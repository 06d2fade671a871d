// How many concurrent sequences one replica holds while the plan's latency targets hold: the
// engine's max-num-seqs and the autoscalers' per-replica target (docs/deploy.md, "Capacity per
// replica").

#include "serving.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/estimate/latency_distribution.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize::serving {

Capacity capacity_per_replica(const Candidate& c, const DeployInputs& in) {
  const Spec& spec = *c.spec;
  const Gpu& g = *c.gpu;
  const auto& targets = spec.workload.inference.targets;
  double ttft_high = 1.0;
  double tpot_high = 1.0;
  if (in.uncertainty != nullptr && in.confidence == Confidence::band) {
    const std::string family = in.efficiency.family_name(g);
    const std::string engine = engine_band_key(spec, in.efficiency);
    ttft_high = in.uncertainty->high_ratio("ttft", family, engine);
    tpot_high = in.uncertainty->high_ratio("tpot", family, engine);
    if (c.layout.attention_dp > 1) {
      // Never fitted: held at the measured attention-DP runs' band, as the plan held it.
      RatioBand edge;
      edge.high_ratio = ttft_high;
      ttft_high = in.uncertainty->attention_data_parallel(edge, "ttft").high_ratio;
      edge.high_ratio = tpot_high;
      tpot_high = in.uncertainty->attention_data_parallel(edge, "tpot").high_ratio;
    }
  }
  const auto evaluate = [&](long long batch) {
    const MemoryEstimate m =
        estimate_memory(spec, g, c.layout, in.constants, batch, Detail::numbers);
    return std::pair{
        m,
        estimate_inference(spec, g, c.layout, m, in.efficiency, in.constants, 1, Detail::numbers)};
  };
  // The mean targets on the estimate; percentile targets on the simulated distribution at that
  // load, as plan holds them (docs/plan.md, "Percentile targets").
  const auto holds = [&](long long batch) {
    const auto [m, p] = evaluate(batch);
    if ((targets.ttft && p.ttft.si() * ttft_high > targets.ttft->si()) ||
        (targets.tpot && p.tpot.si() * tpot_high > targets.tpot->si())) {
      return false;
    }
    if (!targets.names_percentiles()) {
      return true;
    }
    const auto d = simulate_percentiles(spec, g, c.layout, in.constants, in.efficiency, m, p);
    return !d || (worst_percentile(targets.ttft_percentiles, d->ttft, ttft_high).ratio <= 1.0 &&
                  worst_percentile(targets.tpot_percentiles, d->tpot, tpot_high).ratio <= 1.0);
  };
  // What the replica runs at once: its KV cache, capped by its engine's max_num_seqs (the
  // engine's memory policy, as plan's running_batch).
  const long long limit = running_batch(spec,
                                        std::numeric_limits<long long>::max(),
                                        c.memory.max_batch,
                                        engine_policy(spec, *c.gpu, in.constants));
  const long long planned = std::clamp<long long>(c.memory.batch, 1, std::max(1LL, limit));
  long long cap = limit;
  if ((targets.ttft || targets.tpot || targets.names_percentiles()) && !holds(limit)) {
    cap = holds(planned) ? first_holding(planned, limit, [&](long long b) { return !holds(b); }) - 1
                         : planned;
  }
  cap = std::max(1LL, cap);
  return {cap, evaluate(cap).second, cap < limit, cap == limit && limit < c.memory.max_batch};
}

PoolCapacity pool_capacity(const Candidate& c, const DeployInputs& in) {
  const Spec& spec = *c.spec;
  const Gpu& g = *c.gpu;
  const DisaggregatedPerformance& planned = c.disaggregation->pools;
  const DisaggregatedLayout& l = planned.layout;
  const auto& targets = spec.workload.inference.targets;
  double ttft_high = 1.0;
  double tpot_high = 1.0;
  if (in.uncertainty != nullptr && in.confidence == Confidence::band) {
    const DisaggregatedBands b = disaggregated_bands(*in.uncertainty,
                                                     in.efficiency.family_name(g),
                                                     engine_band_key(spec, in.efficiency),
                                                     l.decode.layout.attention_dp);
    ttft_high = b.ttft.high_ratio;
    tpot_high = b.tpot.high_ratio;
  }
  const DisaggregatedEstimator e(
      spec, g, l.prefill.layout, l.decode.layout, in.constants, in.efficiency);
  const auto at = [&](long long concurrency) {
    return e(l.prefill.replicas, l.decode.replicas, concurrency, Detail::numbers);
  };
  // Whether the pools take `concurrency` requests in flight with the targets held: no queue in
  // front of a full pool, TTFT and TPOT at the band's slow edge.
  const auto holds = [&](long long concurrency) {
    const DisaggregatedPerformance d = at(concurrency);
    return d.limited_by.empty() &&
           !(targets.ttft && d.perf.ttft.si() * ttft_high > targets.ttft->si()) &&
           !(targets.tpot && d.perf.tpot.si() * tpot_high > targets.tpot->si());
  };
  PoolCapacity cap;
  // A prefill replica holds a prompt's cache only, not its output's: the KV cache that holds
  // max_batch whole sequences holds that many more prompts.
  const auto& inf = spec.workload.inference;
  const double prompt = static_cast<double>(std::max(1LL, inf.prompt_tokens()));
  const double whole = prompt + static_cast<double>(inf.output_tokens);
  const auto prompts = static_cast<long long>(
      std::floor(static_cast<double>(planned.prefill_memory.max_batch) * whole / prompt + 1e-9));
  cap.prefill = std::max(1LL,
                         running_batch(spec,
                                       std::numeric_limits<long long>::max(),
                                       prompts,
                                       engine_policy(spec, g, in.constants)));
  const long long limit = std::max(1LL, planned.decode_max_batch);
  // The load at which every decode replica runs its limit: more queues in front of the pools.
  const long long full = limit * l.decode.replicas;
  const long long load = std::max(1LL, *spec.workload.inference.concurrency);
  long long most = full;
  if (load < full && !holds(full)) {
    most =
        holds(load) ? first_holding(load, full, [&](long long n) { return !holds(n); }) - 1 : load;
    cap.latency_bound = true;
  }
  const double batch = at(std::max(1LL, most)).decode_batch;
  cap.decode = std::clamp<long long>(static_cast<long long>(std::ceil(batch - 1e-9)), 1, limit);
  return cap;
}

} // namespace rightsize::serving
