// One given configuration evaluated and costed as the plan would, without a search
// (include/rightsize/plan/evaluate.hpp). Targets are held as the search holds them: the slow edge
// of each band unless --confidence point (docs/plan.md, "Margins").

#include "serving_search.hpp"

#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/latency_distribution.hpp>
#include <rightsize/plan/evaluate.hpp>
#include <rightsize/plan/precision.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace rightsize {

namespace {

// The catalog GPU, or the MIG slice "<name> <profile>" of one; null when neither.
std::shared_ptr<const Gpu> find_gpu(const Catalog& catalog, const std::string& name) {
  if (const Gpu* g = catalog.find(name)) {
    return {std::shared_ptr<const Gpu>(), g}; // not owned: the catalog outlives the result
  }
  const auto space = name.rfind(' ');
  if (space == std::string::npos) {
    return nullptr;
  }
  const Gpu* whole = catalog.find(name.substr(0, space));
  if (whole == nullptr) {
    return nullptr;
  }
  auto slice = detail::mig_slice(*whole, name.substr(space + 1), true);
  return slice ? std::make_shared<const Gpu>(std::move(*slice)) : nullptr;
}

// The sequences per replica the search gives online serving (online_batch_from, search.hpp).
// Judging a locked configuration at the bare concurrency share would fail one that the plan sized
// at a larger batch for its throughput targets.
long long online_batch(const detail::Search& S, const Candidate& c) {
  const Spec& spec = *c.spec;
  const auto& inf = spec.workload.inference;
  const auto& t = inf.targets;
  const long long share = (*inf.concurrency + c.replicas - 1) / c.replicas;
  if (!t.requests_per_s && !t.output_tokens_per_s) {
    return share;
  }
  const double high =
      detail::layout_high_ratio(S, *c.gpu, spec, c.layout, detail::rate_band_metric(S.units))
          .value_or(1.0);
  const auto fits = estimate_memory(spec, *c.gpu, c.layout, S.constants, share).max_batch;
  const long long cap = running_batch(
      spec, std::numeric_limits<long long>::max(), fits, engine_policy(spec, *c.gpu, S.constants));
  return detail::online_batch_from(share, cap, [&](long long batch) {
    const auto memory = estimate_memory(spec, *c.gpu, c.layout, S.constants, std::min(batch, cap));
    if (memory.max_batch < 1) {
      return false;
    }
    const auto perf = estimate_inference(
        spec, *c.gpu, c.layout, memory, S.eff, S.constants, c.replicas, Detail::numbers, batch);
    return (!t.requests_per_s || perf.requests_per_s / high >= *t.requests_per_s) &&
           (!t.output_tokens_per_s || perf.output_tokens_per_s / high >= *t.output_tokens_per_s);
  });
}

// The serving configuration costed month by month as `growth` says; a month it stops meeting the
// targets, or no price for it, is `out`'s problem when it has none yet. False without a cost.
bool cost_growth(const detail::Search& S,
                 Candidate& c,
                 const detail::GrowthSeries& growth,
                 ConfigurationEvaluation& out) {
  if (growth.unmet_month && out.problem.empty()) {
    out.problem_kind = "latency";
    out.problem = "misses the targets as demand grows: " + growth.unmet_reason;
  }
  std::string why;
  if (!detail::cost_inference(S, c, growth, why)) {
    if (out.problem.empty()) {
      out.problem_kind = "price";
      out.problem = why;
    }
    return false;
  }
  return true;
}

// The spec's serving targets against the candidate's figures held at `*_high` times the point
// (the band's slow edge, or 1): the first missed, as `out`'s problem.
void judge_serving_targets(const detail::Search& S,
                           const Candidate& c,
                           double ttft_high,
                           double tpot_high,
                           double rate_high,
                           ConfigurationEvaluation& out) {
  const Spec& spec = *c.spec;
  const InferencePerformance& p = *c.inference;
  const auto& t = spec.workload.inference.targets;
  const WorkloadUnits& u = S.units;
  if (t.ttft && p.ttft.si() * ttft_high > t.ttft->si()) {
    out.problem_kind = "latency";
    out.problem = fmt::format("misses the {} target: {} > {}",
                              names(u.latency).words,
                              format_seconds(seconds(p.ttft.si() * ttft_high)),
                              format_seconds(*t.ttft));
  } else if (t.tpot && p.tpot.si() * tpot_high > t.tpot->si()) {
    out.problem_kind = "latency";
    out.problem = fmt::format("misses the TPOT target: {} > {}",
                              format_seconds(seconds(p.tpot.si() * tpot_high)),
                              format_seconds(*t.tpot));
  } else if (t.output_tokens_per_s && p.output_tokens_per_s / rate_high < *t.output_tokens_per_s) {
    out.problem_kind = "throughput";
    out.problem = fmt::format("misses the throughput target: {:.0f} < {:.0f} output tokens/s",
                              p.output_tokens_per_s / rate_high,
                              *t.output_tokens_per_s);
  } else if (t.requests_per_s && p.requests_per_s / rate_high < *t.requests_per_s) {
    out.problem_kind = "throughput";
    // A transcription's requests_per_s counts windows: its target is told in audio seconds.
    out.problem = u.rate == RateUnit::audio_seconds
                      ? fmt::format("misses the audio-rate target: {:.1f} < {:.1f} {}",
                                    rate_of(p, u.rate) / rate_high,
                                    *t.requests_per_s *
                                        spec.workload.inference.transcription->audio_per_window(),
                                    names(u.rate).words)
                      : fmt::format("misses the {}-rate target: {:.2f} < {:.2f} {}/s",
                                    u.item,
                                    p.requests_per_s / rate_high,
                                    *t.requests_per_s,
                                    u.items);
  }
}

// A disaggregated configuration (ConfigurationRef::disaggregated): its pools at the spec's
// concurrency, judged at the disaggregated band's edge, its growth and cost as the search's.
void evaluate_disaggregated(const detail::Search& S,
                            Candidate& c,
                            const ConfigurationRef& ref,
                            ConfigurationEvaluation& out) {
  const Spec& spec = *c.spec;
  if (const auto no = disaggregation_refusal(spec)) {
    out.problem_kind = "gone";
    out.problem = "cannot be served disaggregated any more: " + *no;
    return;
  }
  const auto pools =
      detail::disaggregated_pools(S, spec, *c.gpu, c.layout, c.replicas, ref.prefill_replicas);
  if (!pools) {
    out.problem_kind = "memory";
    out.problem = "no longer fits: a replica does not hold a sequence of the spec's length";
    return;
  }
  auto choice = std::make_shared<DisaggregatedChoice>();
  choice->pools = *pools;
  c.disaggregation = choice;
  c.memory = pools->decode_memory;
  c.inference = pools->perf;
  const detail::DisaggregatedHighs h = detail::disaggregated_highs(S, *c.gpu, spec, c.layout);
  if (S.options.uncertainty != nullptr) {
    const DisaggregatedBands b = disaggregated_bands(*S.options.uncertainty,
                                                     S.eff.family_name(*c.gpu),
                                                     engine_band_key(spec, S.eff),
                                                     c.layout.attention_dp);
    c.inference_bands = inference_bands(*c.inference, b.ttft, b.tpot);
  }
  if (!pools->limited_by.empty()) {
    out.problem_kind = "throughput";
    out.problem =
        fmt::format("the {} pool is full: requests queue in front of it", pools->limited_by);
  } else if (pools->prefill_utilization > detail::k_prefill_utilization) {
    out.problem_kind = "throughput";
    out.problem = fmt::format("the prefill pool is {:.0f}% busy, more than the {:.0f}% a plan "
                              "allows",
                              100.0 * pools->prefill_utilization,
                              100.0 * detail::k_prefill_utilization);
  } else {
    judge_serving_targets(S, c, h.ttft, h.tpot, h.rate, out);
  }
  const DisaggregatedLayout& l = pools->layout;
  const detail::GrowthSeries growth = detail::disaggregated_growth(
      S, spec, *c.gpu, c.layout, {l.prefill.replicas, l.decode.replicas});
  if (!cost_growth(S, c, growth, out)) {
    return;
  }
  const InferencePerformance& p = *c.inference;
  if (!c.cost.price_label.empty() && p.output_tokens_per_s > 0) {
    c.cost.usd_per_million_tokens = to_usd_per_million(
        c.cost.per_hour / items_per_s(p.output_tokens_per_s * share_at_target(p, spec)));
  }
}

void evaluate_inference(const detail::Search& S,
                        Candidate& c,
                        const ConfigurationRef& ref,
                        ConfigurationEvaluation& out) {
  const Spec& spec = *c.spec;
  const auto& inf = spec.workload.inference;
  // A locked fp32 configuration on a GPU whose catalog entry has no FP32 figure (an edited lock,
  // or a catalog that lost it): nothing to estimate it with.
  if (const auto missing = missing_compute_rate(spec, *c.gpu)) {
    out.problem_kind = "precision";
    out.problem = *missing;
    return;
  }
  if (ref.disaggregated) {
    evaluate_disaggregated(S, c, ref, out);
    return;
  }
  std::optional<long long> batch = ref.batch;
  if (!batch && inf.concurrency) {
    batch = online_batch(S, c);
  }
  // Memory at the batch a replica runs; the rest of the batch asked of it queues, as the search
  // judges it (search.hpp, Evaluated).
  const InferenceMemoryLayout layout = inference_memory_layout(spec, *c.gpu, c.layout, S.constants);
  const long long offered = detail::offered_batch(layout, batch);
  c.memory = estimate_memory(layout, detail::planned_batch(layout, offered));
  // As the search judges it: a configuration serves when one sequence fits beside the weights;
  // requests beyond what the KV cache holds queue (and show in TTFT).
  if (c.memory.max_batch < 1) {
    const Bytes need = c.memory.per_gpu.total() - c.memory.per_gpu.kv_cache;
    out.problem_kind = "memory";
    out.problem = fmt::format("no longer fits: needs {} per GPU before the KV cache, has {}",
                              format_bytes(need),
                              format_bytes(c.memory.budget));
    return;
  }
  c.inference = estimate_inference(
      spec, *c.gpu, c.layout, c.memory, S.eff, S.constants, c.replicas, Detail::full, offered);
  c.inference->simulated =
      simulate_percentiles(spec, *c.gpu, c.layout, S.constants, S.eff, c.memory, *c.inference);
  double ttft_high = 1.0;
  double tpot_high = 1.0;
  double rate_high = 1.0; // the band rates are held to (TPOT's, or an embedding's TTFT)
  if (S.options.uncertainty != nullptr) {
    c.inference_bands = inference_bands(*c.inference,
                                        *S.options.uncertainty,
                                        S.eff.family_name(*c.gpu),
                                        engine_name(spec),
                                        c.layout.attention_dp);
    if (S.options.confidence == Confidence::band) {
      ttft_high = c.inference_bands->ttft.high / std::max(1e-300, c.inference->ttft.si());
      tpot_high = c.inference_bands->tpot.high / std::max(1e-300, c.inference->tpot.si());
      // inference_bands chose the rates' band: their point over its low edge.
      rate_high =
          c.inference->requests_per_s / std::max(1e-300, c.inference_bands->requests_per_s.low);
    }
  }
  judge_serving_targets(S, c, ttft_high, tpot_high, rate_high, out);
  const InferencePerformance& p = *c.inference;
  const WorkloadUnits& u = S.units;
  // The replicas each month of the horizon needs, as the search works them out (search.hpp,
  // GrowthSeries); the cost adds them month by month.
  const detail::GrowthSeries growth = detail::serving_growth(S, spec, *c.gpu, c.layout, c.replicas);
  if (!cost_growth(S, c, growth, out)) {
    return;
  }
  // At the load the spec asks for (share_at_target), as the search prices it.
  const double share = share_at_target(p, spec);
  if (!c.cost.price_label.empty() && p.priced_tokens_per_s() > 0) {
    c.cost.usd_per_million_tokens =
        to_usd_per_million(c.cost.per_hour / items_per_s(p.priced_tokens_per_s() * share));
    if (u.price == PriceBasis::per_thousand_images) {
      c.cost.usd_per_thousand_images =
          to_usd_per_thousand(c.cost.per_hour / items_per_s(p.requests_per_s * share));
    }
  }
  if (!c.cost.price_label.empty() && p.audio_seconds_per_s > 0) {
    c.cost.usd_per_audio_hour =
        (c.cost.per_hour / items_per_hour(p.audio_seconds_per_s * share)).si();
  }
}

void evaluate_training(const detail::Search& S, Candidate& c, ConfigurationEvaluation& out) {
  const Spec& spec = *c.spec;
  c.memory = estimate_memory(spec, *c.gpu, c.layout, S.constants);
  if (!c.memory.fits) {
    out.problem_kind = "memory";
    out.problem = fmt::format("no longer fits: {} per GPU, has {}",
                              format_bytes(c.memory.per_gpu.total()),
                              format_bytes(c.memory.budget));
    return;
  }
  c.training = estimate_training(spec, *c.gpu, c.layout, c.memory, S.eff);
  if (S.options.uncertainty != nullptr) {
    c.training_bands =
        training_bands(*c.training, *S.options.uncertainty, S.eff.family_name(*c.gpu));
  }
  const auto& w = spec.workload.training;
  if (w.deadline && c.training->time_to_train) {
    double high = 1.0;
    if (c.training_bands && S.options.confidence == Confidence::band && c.training->step.si() > 0) {
      high = c.training_bands->step.high / c.training->step.si();
    }
    if (c.training->time_to_train->si() * high > w.deadline->si()) {
      out.problem_kind = "deadline";
      out.problem = fmt::format("misses the deadline: {} > {}",
                                format_seconds(seconds(c.training->time_to_train->si() * high)),
                                format_seconds(*w.deadline));
    }
  }
  const Price* price = pick_price(*c.gpu, spec.deployment.price_kind, spec.deployment.provider);
  if (spec.deployment.mode == DeploymentMode::cloud && price == nullptr) {
    if (out.problem.empty()) {
      out.problem_kind = "price";
      out.problem = "no price for it in the catalog";
    }
    return;
  }
  if (!detail::cost_training(S, price, c) && out.problem.empty()) {
    std::string why;
    (void)pick_fleet(*c.gpu,
                     spec.deployment.price_kind,
                     spec.deployment.provider,
                     ReplicaGpus{c.layout.gpus(), c.layout.tp},
                     1,
                     &why);
    out.problem_kind = "price";
    out.problem = why;
  }
}

} // namespace

ConfigurationEvaluation evaluate_configuration(const Spec& spec,
                                               const Catalog& catalog,
                                               const Constants& constants,
                                               const Efficiency& efficiency,
                                               const PlanOptions& options,
                                               const ConfigurationRef& ref) {
  ConfigurationEvaluation out;
  const auto gpu = find_gpu(catalog, ref.gpu);
  if (!gpu) {
    out.problem_kind = "gone";
    out.problem = fmt::format("GPU {} is no longer in the catalog", ref.gpu);
    return out;
  }
  Parallelism p = ref.layout;
  if (p.tp < 1 || p.pp < 1 || p.ep < 1 || p.dp < 1 || !spec.model.tp_indivisible(p.tp).empty()) {
    out.problem_kind = "gone";
    out.problem = fmt::format(
        "TP={} does not divide the model's {} any more", p.tp, spec.model.tp_indivisible(p.tp));
    return out;
  }
  if (!spec.workload.is_training()) {
    p = serving_parallelism(p.tp, p.pp, p.ep, p.attention_dp);
    p.dp = ref.layout.dp;
  }
  if (const auto no = attention_dp_refusal(spec, p)) {
    out.problem_kind = "gone";
    out.problem =
        fmt::format("attention DP={} cannot serve the spec any more: {}", p.attention_dp, *no);
    return out;
  }
  Candidate c;
  c.gpu = gpu.get();
  if (gpu.use_count() > 0) { // a MIG slice, kept alive by the candidate
    c.slice = gpu;
    const auto space = ref.gpu.rfind(' ');
    c.partition = ref.gpu.substr(space + 1);
    c.whole_gpu = catalog.find(ref.gpu.substr(0, space));
  }
  c.layout = p;
  c.replicas = std::max(1, ref.replicas);
  c.spec = std::make_shared<const Spec>(
      (ref.weights == spec.precision.weights && ref.kv_cache == spec.precision.kv_cache)
          ? spec
          : with_precision(spec, ref.weights, ref.kv_cache));
  const detail::Search S{*c.spec, catalog, constants, efficiency, options};
  if (S.units.serving) {
    evaluate_inference(S, c, ref, out);
  } else {
    evaluate_training(S, c, out);
  }
  if (out.problem_kind != "gone") {
    out.candidate = std::move(c);
  }
  return out;
}

} // namespace rightsize
