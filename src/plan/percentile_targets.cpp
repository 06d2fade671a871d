// Latency targets on percentiles (targets.ttft_ms: {"p99": 2000}): the search holds them on the
// candidates it keeps, simulated (estimate/latency_distribution.hpp). Rules: docs/plan.md,
// "Percentile targets".

#include "search.hpp"
#include "serving_search.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/latency_distribution.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::detail {

namespace {

// Rounds of re-search with tighter typical-request targets before a GPU is given up on.
constexpr int k_rounds = 4;

// How a candidate's simulated percentiles, at the slow edge of their bands, stand against the
// targets: the worst held / limit of each latency (1 or less: met), and which target that is.
struct PercentileStanding {
  double ttft = 0;
  double tpot = 0;
  std::string worst; // "p99 TTFT 2.31 s against 2 s"
  double worst_ratio = 0;
};

PercentileStanding standing(const Search& S, const Candidate& c) {
  const InferenceTargets& t = S.spec.workload.inference.targets;
  const SimulatedLatency& sim = *c.inference->simulated;
  const Spec& spec = *c.spec;
  const PercentileHold ttft = worst_percentile(
      t.ttft_percentiles,
      sim.ttft,
      layout_high_ratio(S, *c.gpu, spec, c.layout, latency_band_metric(S.units)).value_or(1.0));
  const PercentileHold tpot =
      worst_percentile(t.tpot_percentiles,
                       sim.tpot,
                       layout_high_ratio(S, *c.gpu, spec, c.layout, "tpot").value_or(1.0));
  PercentileStanding s{ttft.ratio, tpot.ratio, "", 0.0};
  // The worse of the two, TTFT's on a tie.
  const bool tpot_worse = tpot.ratio > ttft.ratio;
  const PercentileHold& worst = tpot_worse ? tpot : ttft;
  if (worst.target != nullptr) {
    s.worst_ratio = worst.ratio;
    s.worst = fmt::format("{} {} {} against {}",
                          statistic_name(worst.target->percentile),
                          tpot_worse ? "TPOT" : "TTFT",
                          format_seconds(worst.held),
                          format_seconds(worst.target->limit));
  }
  return s;
}

} // namespace

void simulate_candidates(Plan& plan, const Constants& constants, const Efficiency& eff) {
  for (Candidate& c : plan.candidates) {
    // The simulation is of one engine's scheduler: not of disaggregated pools.
    if (c.inference && !c.inference->simulated && !c.disaggregation) {
      c.inference->simulated =
          simulate_percentiles(*c.spec, *c.gpu, c.layout, constants, eff, c.memory, *c.inference);
    }
  }
}

void search_inference_held(const Search& S,
                           const Gpu& g,
                           std::vector<Candidate>& found,
                           Miss& miss) {
  const InferenceTargets& targets = S.spec.workload.inference.targets;
  if (!targets.names_percentiles() || !S.spec.workload.inference.output_tokens) {
    search_inference(S, g, found, miss);
    return;
  }
  // The candidates keep the spec's own targets: the variants are made from it, once.
  std::vector<std::shared_ptr<const Spec>> own_variants;
  if (S.variants == nullptr) {
    own_variants = precision_variants(S.spec);
  }
  const auto* variants = S.variants != nullptr ? S.variants : &own_variants;
  Spec tightened = S.spec;
  InferenceTargets& held = tightened.workload.inference.targets;
  const std::optional<Seconds> ttft = strictest(targets.ttft, targets.ttft_percentiles);
  const std::optional<Seconds> tpot = strictest(targets.tpot, targets.tpot_percentiles);
  double ttft_scale = 1.0;
  double tpot_scale = 1.0;
  PercentileStanding last;
  for (int round = 0; round < k_rounds; ++round) {
    held.ttft = ttft ? std::optional<Seconds>(*ttft * ttft_scale) : std::nullopt;
    held.tpot = tpot ? std::optional<Seconds>(*tpot * tpot_scale) : std::nullopt;
    const Search T{tightened, S.catalog, S.constants, S.eff, S.options, S.any, S.cache, variants};
    std::vector<Candidate> got;
    Miss round_miss;
    round_miss.discard = miss.discard;
    search_inference(T, g, got, round_miss);
    if (got.empty()) {
      if (round == 0) {
        miss = std::move(round_miss);
        return;
      }
      break;
    }
    PercentileStanding worst;
    std::vector<Candidate> meeting;
    for (Candidate& c : got) {
      if (!c.inference->simulated) {
        c.inference->simulated = simulate_percentiles(
            *c.spec, *c.gpu, c.layout, S.constants, S.eff, c.memory, *c.inference);
      }
      if (!c.inference->simulated) {
        continue;
      }
      const PercentileStanding s = standing(S, c);
      if (s.ttft <= 1.0 && s.tpot <= 1.0) {
        meeting.push_back(std::move(c));
      } else if (s.worst_ratio > worst.worst_ratio) {
        worst = s;
      }
    }
    if (!meeting.empty()) {
      std::move(meeting.begin(), meeting.end(), std::back_inserter(found));
      return;
    }
    last = worst;
    // Tighter typical-request targets by what the percentiles missed by, and a little more: the
    // next round's candidates run at a lower load, whose tails are no longer.
    ttft_scale /= std::max(1.0, worst.ttft) * 1.02;
    tpot_scale /= std::max(1.0, worst.tpot) * 1.02;
  }
  if (last.worst.empty()) {
    last.worst = "the percentile targets";
    last.worst_ratio = 2.0;
  }
  miss.consider("latency_target", last.worst_ratio, [&] {
    return fmt::format("misses the latency target by {:.0f}% (simulated {}, at the slow edge of "
                       "its band) after {} rounds of a tighter search",
                       100.0 * (last.worst_ratio - 1.0),
                       last.worst,
                       k_rounds);
  });
}

} // namespace rightsize::detail
