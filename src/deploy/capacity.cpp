// How many concurrent sequences one replica holds while the plan's latency targets hold: the
// engine's max-num-seqs and the autoscalers' per-replica target (docs/deploy.md, "Capacity per
// replica").

#include "serving.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/estimate/latency_distribution.hpp>

#include <algorithm>
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
  return {cap, evaluate(cap).second, cap < limit};
}

} // namespace rightsize::serving
