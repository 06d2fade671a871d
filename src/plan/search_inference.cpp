// The serving search: layouts, fit probe, replica search, cost, candidate. Rules: docs/plan.md.

#include "serving_search.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/unit_values.hpp>
#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace rightsize::detail {

namespace {

// The layouts to try on one GPU, narrowest first: every tensor-parallel size, expert parallelism
// across the TP group when the experts divide, and pipeline stages only at the widest TP size
// (none for an encoder-decoder: rightsize does not split its two stacks into stages; none for a
// diffusers pipeline, which runs on one GPU). `attention_dp`: whether attention data-parallel
// layouts are tried (attention_dp_searched).
std::vector<Parallelism>
inference_layouts(const Spec& spec, const std::vector<int>& tps, bool attention_dp) {
  std::vector<Parallelism> out;
  out.reserve(3 * tps.size() + 4); // each TP size, its EP and attention-DP layouts, the PP ones
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
      // MLA keeps one latent cache that every attention rank would hold whole: on engines whose
      // plans choose it, attention data-parallel over all tp GPUs, each holding its own
      // requests' cache (docs/plan.md, "Search").
      const Parallelism adp = serving_parallelism(tp, pp, eps.back(), tp);
      if (attention_dp && tp > 1 && spec.model.attention == AttentionKind::mla &&
          engine_traits(spec.workload.inference.engine).attention_dp.planned &&
          !attention_dp_refusal(spec, adp)) {
        out.push_back(adp);
      }
    }
  }
  return out;
}

// Attention data-parallel layouts were never fitted: their band is the measured runs' (up to
// 3.3x slower TPOT than the point; docs/accuracy.md, "Attention data parallelism"), and a plan
// tries them only where targets hold every candidate at the slow edge of its own band. Ranked at
// the point (no targets, or --confidence point), their optimistic estimates would win unheld.
bool attention_dp_searched(const Search& S, const Spec& spec) {
  return S.options.uncertainty != nullptr && S.options.confidence == Confidence::band &&
         has_targets(spec, S.units);
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

// A configuration the search keeps: its candidate, its spec variant and the replicas each month
// of the horizon needs, which it was costed with. The candidate gets the variant's spec only when
// it leaves the search (a copy when the plan did not make the variant): a GPU's search keeps a
// better configuration many times.
struct Kept {
  Candidate candidate;
  GrowthSeries growth;
  const Variant* variant = nullptr;
  // What it has to spare: the smaller of the memory left and the latency slack at the band's
  // edge (target / held - 1). Under k_tight_room the plan calls it tight (plan.cpp, set_verdict).
  double room = 0;
};

constexpr double k_tight_room = 0.10;

double room_of(const LayoutEvaluator& eval, const ServingGoal& goal, const At& at) {
  const MemoryEstimate& m = at.memory();
  double room = 1.0 - m.per_gpu.total() / m.budget;
  const double ratio = latency_ratio(goal.targets, eval.held(at));
  if (ratio > 0) {
    room = std::min(room, 1.0 / ratio - 1.0);
  }
  return room;
}

// The candidate re-evaluated and re-costed with every sentence and band (Detail::full) at the
// batch and replicas the search settled on: the same figures, now explained. Only the candidates
// kept are.
// Why an attention data-parallel candidate: its groups each hold their own requests' latent
// cache where tensor parallelism alone replicates it on every GPU (docs/model.md, "Attention
// data parallelism"); "" for other layouts.
std::string attention_dp_note(const Search& S, const Spec& spec, const Candidate& c) {
  const Parallelism& p = c.layout;
  if (p.attention_dp == 1) {
    return "";
  }
  const Parallelism plain = serving_parallelism(p.tp, p.pp, p.ep, 1);
  const long long without =
      estimate_memory(spec, *c.gpu, plain, S.constants, c.memory.batch).max_batch;
  std::string note = fmt::format(
      "each of the {} attention groups holds only its own requests' KV cache, so a replica "
      "holds up to {} sequences; TP{}{} without it keeps the whole cache on every GPU and holds "
      "{}",
      p.attention_dp,
      c.memory.max_batch,
      p.tp,
      p.ep > 1 ? fmt::format(" EP{}", p.ep) : std::string(),
      without);
  if (c.inference_bands) {
    note += fmt::format(". Never fitted: the targets hold at the slow edge of the band of the "
                        "measured attention-DP runs (TPOT up to {:.2f}x the estimate)",
                        c.inference_bands->tpot_ratio.high_ratio);
  }
  return note;
}

void explain(const Search& S, Kept& kept) {
  Candidate& c = kept.candidate;
  const Spec& spec = *kept.variant->spec;
  if (c.disaggregation) {
    explain_disaggregated(S, spec, c);
  } else {
    const long long offered = c.inference->offered;
    c.memory = estimate_memory(spec, *c.gpu, c.layout, S.constants, c.memory.batch);
    c.inference = estimate_inference(
        spec, *c.gpu, c.layout, c.memory, S.eff, S.constants, c.replicas, Detail::full, offered);
    if (S.options.uncertainty != nullptr) {
      c.inference_bands = serving_bands(
          S, *c.gpu, engine_band_key(spec, S.eff), *c.inference, c.layout.attention_dp);
    }
    c.layout_note = attention_dp_note(S, spec, c);
  }
  // The cost figures do not depend on the detail; the prices per token are the search's.
  const CostBreakdown priced = c.cost;
  c.cost = CostBreakdown{};
  std::string why;
  cost_inference(S, c, kept.growth, why, Detail::full);
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
  if (!S.options.prune || !score_grows_with_cost(S.options.objective)) {
    return std::nullopt;
  }
  return flat_score(S, g, p, 1);
}

// Whether `replicas` replicas of the layout every month (a lower bound of its cost with growth)
// already score above the best so far, or the same with no more room than it: the tie rule of
// search_inference (Kept::room) could not keep it either.
bool score_can_only_lose(const Search& S,
                         const Gpu& g,
                         const Parallelism& p,
                         int replicas,
                         double room,
                         double best_score,
                         double best_room) {
  if (!score_grows_with_cost(S.options.objective)) {
    return false;
  }
  const std::optional<double> bound = flat_score(S, g, p, replicas);
  return bound && (*bound > best_score ||
                   (*bound == best_score && !(best_room < k_tight_room && room > best_room)));
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

// $ per million output tokens (an embedding workload: tokens embedded) at the planned load and
// with every replica running full, once cost_inference has priced the candidate.
void price_per_token(LayoutEvaluator& eval,
                     Candidate& c,
                     const WorkloadUnits& units,
                     const Spec& spec) {
  // At the load the spec asks for (share_at_target), not all the fleet could serve.
  const double share = share_at_target(*c.inference, spec);
  const double tokens_per_s = c.inference->priced_tokens_per_s() * share;
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
        (c.cost.per_hour / items_per_hour(c.inference->audio_seconds_per_s * share)).si();
    const double full_audio =
        full.one->perf.audio_seconds_per_s * static_cast<double>(full.replicas);
    if (full_audio > 0) {
      c.cost.usd_per_audio_hour_at_full_load = (c.cost.per_hour / items_per_hour(full_audio)).si();
    }
  }
}
// The disaggregated configuration of each precision variant that scores strictly lower than
// the best aggregated one (with fewer GPUs), kept as `best` (or `first` when no aggregated one
// met the spec), with what it beat.
void consider_disaggregated(
    const Search& S,
    const Gpu& g,
    const std::vector<std::pair<const Variant*, std::vector<Parallelism>>>& fits,
    const ServingGoal& goal,
    std::optional<Kept>& first,
    std::optional<Kept>& best,
    double& best_score) {
  const Kept* aggregated = best ? &*best : first ? &*first : nullptr;
  std::optional<long long> gpu_limit;
  auto beaten = std::make_shared<DisaggregatedChoice>();
  if (aggregated != nullptr) {
    const Candidate& a = aggregated->candidate;
    gpu_limit = a.total_gpus();
    beaten->aggregated_gpus = a.total_gpus();
    beaten->aggregated_per_hour = a.cost.per_hour;
    beaten->aggregated_tpot = a.inference->tpot;
    beaten->aggregated_batch = a.inference->concurrency;
    beaten->aggregated_ttft = a.inference->ttft;
    beaten->aggregated_layout = a.layout;
    beaten->aggregated_replicas = a.replicas;
  }
  for (const auto& [variant, layouts] : fits) {
    if (layouts.empty()) {
      continue;
    }
    auto found = search_disaggregated(S,
                                      *variant->spec,
                                      g,
                                      layouts,
                                      goal,
                                      gpu_limit,
                                      first || best ? std::optional(best_score) : std::nullopt);
    if (!found) {
      continue;
    }
    const double sc = score(found->candidate, S.options.objective, S);
    if ((first || best) && sc >= best_score) {
      continue;
    }
    auto choice = std::make_shared<DisaggregatedChoice>(*beaten);
    choice->pools = found->candidate.disaggregation->pools;
    found->candidate.disaggregation = choice;
    gpu_limit = found->candidate.total_gpus();
    (first ? best : first) =
        Kept{std::move(found->candidate), std::move(found->growth), variant, found->room};
    best_score = sc;
  }
}

} // namespace

bool score_grows_with_cost(Objective o) {
  return o == Objective::tco || o == Objective::gpus || o == Objective::power;
}

std::optional<double>
flat_score(const Search& S, const Gpu& g, const Parallelism& p, long long replicas) {
  Candidate flat;
  flat.gpu = &g;
  flat.layout = p;
  flat.replicas = static_cast<int>(replicas);
  std::string why;
  if (!cost_inference(S, flat, flat_growth(S, replicas), why, Detail::numbers)) {
    return std::nullopt;
  }
  return score(flat, S.options.objective, S);
}

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
  for (const int v : {static_cast<int>(l.weights),
                      static_cast<int>(l.kv_cache),
                      l.tp,
                      l.pp,
                      l.ep,
                      l.attention_dp}) {
    h = h * 1'000'003 ^ std::hash<int>{}(v);
  }
  return h;
}

// For each precision and layout: fit probe (one request, one replica) → replica search → cost →
// score. Layouts that fail leave the closest miss, to explain a rejection. `found` gets the first
// configuration that meets the spec and the best by score (of the lowest, the roomiest: Kept::room)
// when that is another; a layout whose lowest possible score cannot beat the best so far is
// skipped after its fit probe (PlanOptions::prune).
void search_inference(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss) {
  const ServingGoal goal = serving_goal(S.spec);
  std::optional<Kept> first; // the first configuration that meets the spec
  std::optional<Kept> best;  // a later one that scores lower (or the same, roomier), if any
  double best_score = 0;     // of the best so far: `best`, else `first`
  ScoreBounds bounds;
  std::vector<Spec> made;
  std::deque<Spec> fp16_copies;
  const std::vector<Variant> variants = variants_of(S, g, made, fp16_copies);
  // Each variant's layouts that hold a sequence, for the disaggregated search after.
  std::vector<std::pair<const Variant*, std::vector<Parallelism>>> fits;
  for (const Variant& variant : variants) {
    const Spec& spec = *variant.spec;
    if (!engine_runs(S, spec, g, miss) || !compute_rate_known(spec, g, miss)) {
      continue;
    }
    // The band ratios of the GPU's family and the engine, the same for every layout.
    const Bands bands = serving_band_highs(S, g, spec);
    const std::vector<int> tps = tp_options(spec, g);
    bool widest_fits = false;
    std::vector<Parallelism>& fitting =
        fits.emplace_back(&variant, std::vector<Parallelism>{}).second;
    for (const Parallelism& p : inference_layouts(spec, tps, attention_dp_searched(S, spec))) {
      // Pipeline stages only when the widest tensor-parallel layout does not fit: they add GPUs
      // and latency, never speed, to a replica.
      const int per_replica = p.tp * p.pp;
      if ((p.pp > 1 && widest_fits) || per_replica > goal.max_gpus ||
          !link_published(spec, g, per_replica)) {
        continue;
      }
      // Before the fit probe, which costs an evaluation: once the GPU has a candidate, a layout
      // that cannot beat it is skipped whether it fits or not (its miss would not be shown, and
      // a deeper pipeline has more GPUs per replica, so its bound is no lower).
      if (first) {
        if (const auto bound = bounds.of(S, g, p); bound && *bound > best_score) {
          continue;
        }
      }
      LayoutEvaluator eval(S, spec, g, p, layout_band_highs(S, bands, p));
      const At probe = eval(1, 1);
      if (probe.memory().max_batch < 1) {
        consider_memory_miss(probe, p, miss);
        continue;
      }
      widest_fits = widest_fits || (p.tp == tps.back() && p.pp == 1);
      if (p.pp == 1) {
        fitting.push_back(p);
      }
      const int max_replicas =
          static_cast<int>(std::min<long long>(k_max_replicas, goal.max_gpus / per_replica));
      const ReplicaSearch r = goal.concurrency
                                  ? online_replicas(S, eval, probe, goal, max_replicas)
                                  : offline_replicas(S, eval, probe, goal, max_replicas);
      if (!r.found) {
        consider_target_miss(r, p, miss);
        continue;
      }
      const double room = room_of(eval, goal, r.best);
      // Month 1's replicas every month cost no more than the growth series (never fewer
      // replicas): a layout that cannot beat (or tie, roomier) the best at that cost is skipped
      // before its series is worked out, month by month the costliest step of a layout.
      if (first && S.options.prune &&
          score_can_only_lose(
              S, g, p, r.replicas, room, best_score, best ? best->room : first->room)) {
        continue;
      }
      Kept k{serving_candidate(g, p, r),
             growth_series(S, eval, probe, goal, r.replicas, max_replicas),
             &variant,
             room};
      if (k.growth.unmet_month) {
        miss.consider("growth", 1.0 / (1.0 + *k.growth.unmet_month), [&] {
          return fmt::format("serves month 1 with {} replica{}, but {} (TP={}{})",
                             r.replicas,
                             r.replicas == 1 ? "" : "s",
                             k.growth.unmet_reason,
                             p.tp,
                             p.pp > 1 ? fmt::format(", PP={}", p.pp) : "");
        });
        continue;
      }
      Candidate& c = k.candidate;
      std::string why;
      if (!cost_inference(S, c, k.growth, why, Detail::numbers)) {
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
      // A tie goes to the earlier (the spec's own formats before an allowed one) unless that is
      // tight and this one has more to spare: a right-sized fp8 layout over a tight bf16 one at
      // the same cost, never an fp8 one for nothing.
      const Kept* kept = first ? (best ? &*best : &*first) : nullptr;
      const bool roomier_tie =
          kept != nullptr && sc == best_score && kept->room < k_tight_room && k.room > kept->room;
      if (first && sc >= best_score && !roomier_tie) {
        continue;
      }
      (first ? best : first) = std::move(k);
      best_score = sc;
    }
  }
  consider_disaggregated(S, g, fits, goal, first, best, best_score);
  // best_candidate() takes `best` when there is one (it scores strictly lower, and explaining
  // changes no figure): only the configuration it takes is explained. `first` still comes first
  // in `found`, with the figures the search gave it (smallest_slice reads them).
  if (auto& taken = best ? best : first) {
    explain(S, *taken);
  }
  // Under percentile targets the held search takes the configurations that meet them once
  // simulated (percentile_targets.cpp), `first` when `best` misses: it is explained too.
  if (best && first && S.spec.workload.inference.targets.names_percentiles()) {
    explain(S, *first);
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

Bands serving_band_highs(const Search& S, const Gpu& g, const Spec& spec) {
  Bands b;
  b.ttft_high = band_high_ratio(S, g, spec, latency_band_metric(S.units));
  b.tpot_high = band_high_ratio(S, g, spec, "tpot");
  b.rate_high = band_high_ratio(S, g, spec, rate_band_metric(S.units));
  if (b.ttft_high) {
    const auto overflow = [&](const char* metric, double high) {
      RatioBand base;
      base.high_ratio = high;
      return S.options.uncertainty->overflowing(base, metric).high_ratio;
    };
    b.ttft_overflow_high = overflow(latency_band_metric(S.units), *b.ttft_high);
    b.tpot_overflow_high = overflow("tpot", *b.tpot_high);
    b.rate_overflow_high = overflow(rate_band_metric(S.units), *b.rate_high);
  }
  return b;
}

namespace {

// A band's slow edge `high` for `metric`, enveloped with the measured attention-DP runs'.
double attention_dp_high(const Search& S, double high, const char* metric) {
  RatioBand base;
  base.high_ratio = high;
  return S.options.uncertainty->attention_data_parallel(base, metric).high_ratio;
}

} // namespace

std::optional<double> layout_high_ratio(
    const Search& S, const Gpu& g, const Spec& spec, const Parallelism& p, const char* metric) {
  const std::optional<double> high = band_high_ratio(S, g, spec, metric);
  if (high && p.attention_dp > 1) {
    return attention_dp_high(S, *high, metric);
  }
  return high;
}

Bands layout_band_highs(const Search& S, const Bands& family, const Parallelism& p) {
  if (p.attention_dp == 1 || !family.ttft_high) {
    return family;
  }
  Bands b = family;
  const auto widened = [&](const char* metric, std::optional<double>& high) {
    high = attention_dp_high(S, *high, metric);
  };
  for (auto [metric, high, overflow] :
       {std::tuple{latency_band_metric(S.units), &b.ttft_high, &b.ttft_overflow_high},
        std::tuple{"tpot", &b.tpot_high, &b.tpot_overflow_high},
        std::tuple{rate_band_metric(S.units), &b.rate_high, &b.rate_overflow_high}}) {
    widened(metric, *high);
    widened(metric, *overflow);
  }
  return b;
}

std::optional<double>
band_high_ratio(const Search& S, const Gpu& g, const Spec& spec, const char* metric) {
  if (S.options.uncertainty == nullptr || S.options.confidence != Confidence::band) {
    return std::nullopt;
  }
  // Each GPU's search asks for three; a family's answer is the same for each of its GPUs.
  const std::string family = S.eff.family_name(g);
  const std::string engine = engine_band_key(spec, S.eff);
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
