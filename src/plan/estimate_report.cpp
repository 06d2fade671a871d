// One fixed configuration evaluated, its targets judged and its cost priced, as `rightsize
// estimate` reports it (include/rightsize/plan/estimate_report.hpp).

#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/latency_distribution.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/plan/generation_formats.hpp>
#include <rightsize/plan/precision.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <fmt/format.h>

namespace rightsize {

TargetCheck judge_target(std::string target,
                         bool at_most,
                         double limit,
                         double predicted,
                         std::optional<Band> band,
                         bool at_band_edge) {
  TargetCheck t;
  t.target = std::move(target);
  t.at_most = at_most;
  t.limit = limit;
  t.predicted = predicted;
  t.band = band;
  t.held = band && at_band_edge ? (at_most ? band->high : band->low) : predicted;
  const auto meets = [&](double v) { return at_most ? v <= limit : v >= limit; };
  t.met = meets(t.held);
  t.met_at_point = meets(predicted);
  t.margin = (at_most ? limit - t.held : t.held - limit) / limit;
  return t;
}

namespace {

// Percentile targets, held on the simulated distribution with the band of the mean around it
// (the same ratios: the search holds them so, docs/plan.md "Percentile targets").
void judge_percentile_targets(const EstimateReport& r,
                              const SimulatedLatency& sim,
                              std::vector<TargetCheck>& out) {
  const auto& t = r.spec.workload.inference.targets;
  const auto& i = *r.inference;
  const InferenceBands* b = r.inference_bands;
  const auto judge = [&](const std::vector<PercentileTarget>& targets,
                         const LatencyPercentiles& stats,
                         const char* name,
                         Seconds point,
                         const Band* band) {
    for (const PercentileTarget& p : targets) {
      const double predicted = to_ms(stats.at(p.percentile));
      std::optional<Band> scaled;
      if (band != nullptr && point.si() > 0) {
        // Seconds to milliseconds, and the band's ratios to its point.
        const double k = 1e3 * stats.at(p.percentile).si() / point.si();
        scaled = Band{band->low * k, band->high * k};
      }
      out.push_back(judge_target(fmt::format("{}_{}_ms", name, statistic_name(p.percentile)),
                                 true,
                                 to_ms(p.limit),
                                 predicted,
                                 scaled,
                                 r.judged_at_band_edge));
    }
  };
  judge(t.ttft_percentiles, sim.ttft, "ttft", i.ttft, b ? &b->ttft : nullptr);
  judge(t.tpot_percentiles, sim.tpot, "tpot", i.tpot, b ? &b->tpot : nullptr);
}

void judge_serving_targets(const EstimateReport& r, std::vector<TargetCheck>& out) {
  const bool edge = r.judged_at_band_edge;
  const auto& t = r.spec.workload.inference.targets;
  const auto& i = *r.inference;
  const InferenceBands* b = r.inference_bands;
  const auto ms = [](Band x) { return Band{x.low * 1e3, x.high * 1e3}; };
  // An embedding workload's latency and sequences per second are held to the same figures under
  // their own names.
  const bool embedding = i.prefill_only;
  const auto& audio = r.spec.workload.inference.transcription;
  if (t.ttft) {
    out.push_back(judge_target(embedding || audio ? "latency_ms" : "ttft_ms",
                               true,
                               to_ms(*t.ttft),
                               to_ms(i.ttft),
                               b ? std::optional<Band>(ms(b->ttft)) : std::nullopt,
                               edge));
  }
  if (t.tpot) {
    out.push_back(judge_target("tpot_ms",
                               true,
                               to_ms(*t.tpot),
                               to_ms(i.tpot),
                               b ? std::optional<Band>(ms(b->tpot)) : std::nullopt,
                               edge));
  }
  if (i.simulated) {
    judge_percentile_targets(r, *i.simulated, out);
  }
  if (t.requests_per_s && audio && audio->audio_seconds_per_s) {
    // A transcription's windows per second, held as audio seconds per second.
    const double k = audio->audio_per_window();
    out.push_back(judge_target(
        "audio_seconds_per_s",
        false,
        *audio->audio_seconds_per_s,
        i.audio_seconds_per_s,
        b ? std::optional<Band>(Band{b->requests_per_s.low * k, b->requests_per_s.high * k})
          : std::nullopt,
        edge));
  } else if (t.requests_per_s) {
    out.push_back(judge_target(r.spec.per_image() ? "images_per_s"
                               : embedding        ? "sequences_per_s"
                                                  : "requests_per_s",
                               false,
                               *t.requests_per_s,
                               i.requests_per_s,
                               b ? std::optional<Band>(b->requests_per_s) : std::nullopt,
                               edge));
  }
  if (t.output_tokens_per_s) {
    out.push_back(judge_target("output_tokens_per_s",
                               false,
                               *t.output_tokens_per_s,
                               i.output_tokens_per_s,
                               b ? std::optional<Band>(b->output_tokens_per_s) : std::nullopt,
                               edge));
  }
}

} // namespace

std::vector<TargetCheck> judge_targets(const EstimateReport& r) {
  std::vector<TargetCheck> out;
  if (r.inference && r.inference->concurrency > 0) {
    judge_serving_targets(r, out);
  }
  const auto& deadline = r.spec.workload.training.deadline;
  if (r.training && r.training->time_to_train && deadline) {
    const TrainingBands* b = r.training_bands;
    out.push_back(
        judge_target("deadline_hours",
                     true,
                     to_hours(*deadline),
                     to_hours(*r.training->time_to_train),
                     b ? std::optional<Band>(Band{to_hours(seconds(b->time_to_train.low)),
                                                  to_hours(seconds(b->time_to_train.high))})
                       : std::nullopt,
                     r.judged_at_band_edge));
  }
  return out;
}

void price_report(EstimateReport& r, const std::string& today) {
  const Deployment& d = r.spec.deployment;
  if (d.mode == DeploymentMode::onprem) {
    r.cost_note = "on-prem: the ownership cost (whole servers, power, amortization) is computed "
                  "by rightsize plan (docs/plan.md, \"Cost\")";
    return;
  }
  if (pick_price(r.gpu, d.price_kind, d.provider) == nullptr) {
    r.cost_note = fmt::format("no {} price{} for {} in the catalog; add one with --catalog "
                              "(docs/catalog.md)",
                              d.price_kind,
                              d.provider ? " from " + *d.provider : std::string(),
                              r.gpu.name);
    return;
  }
  // The instances that hold the replicas, as plan prices them (catalog/price_pick.hpp).
  std::string why;
  const auto fleet = pick_fleet(r.gpu,
                                d.price_kind,
                                d.provider,
                                ReplicaGpus{r.parallelism.gpus(), r.parallelism.tp},
                                r.replicas,
                                &why);
  if (!fleet) {
    r.cost_note = why + "; add a price for a shape that holds it with --catalog (docs/catalog.md)";
    return;
  }
  EstimateCost c;
  c.price = *fleet->price;
  c.price_label = cloud_fleet_label(*fleet);
  c.price_stale = is_stale(fleet->price->as_of, today, d.stale_price_days);
  c.per_hour = fleet->per_hour();
  // Serving: at the load the spec asks for (share_at_target).
  const double share = r.inference ? share_at_target(*r.inference, r.spec) : 1.0;
  const double tokens_per_s = r.inference  ? r.inference->priced_tokens_per_s() * share
                              : r.training ? r.training->tokens_per_s
                                           : 0.0;
  if (tokens_per_s > 0) {
    c.usd_per_million_tokens = to_usd_per_million(c.per_hour / items_per_s(tokens_per_s));
  }
  if (r.spec.per_image() && r.inference && r.inference->requests_per_s > 0) {
    c.usd_per_thousand_images =
        to_usd_per_thousand(c.per_hour / items_per_s(r.inference->requests_per_s * share));
  }
  if (r.training && r.training->time_to_train) {
    c.to_train = c.per_hour * *r.training->time_to_train;
  }
  if (r.inference && r.inference->audio_seconds_per_s > 0) {
    c.usd_per_audio_hour =
        (c.per_hour / items_per_hour(r.inference->audio_seconds_per_s * share)).si();
  }
  r.cost = c;
}

namespace {

// The formats asked for, applied the way plan applies an allowed format.
Spec with_requested_precision(const Spec& spec, DType weights, DType kv_cache) {
  const bool qlora = spec.workload.type == WorkloadType::finetune &&
                     spec.workload.training.method == FinetuneMethod::qlora;
  if (qlora && weights != DType::nf4 && weights != DType::int4) {
    throw InputError(
        "--weights",
        fmt::format("qlora needs 4-bit base weights (nf4 or int4), got {}", to_string(weights)));
  }
  return with_precision(spec, weights, kv_cache);
}

} // namespace

Spec estimate_spec(const Spec& loaded,
                   const Catalog& catalog,
                   const Gpu& gpu,
                   std::optional<DType> weights,
                   std::optional<DType> kv_cache,
                   const EngineSupport* engines) {
  Spec spec = weights || kv_cache
                  ? with_requested_precision(loaded,
                                             weights.value_or(loaded.precision.weights),
                                             kv_cache.value_or(loaded.precision.kv_cache))
                  : loaded;
  auto& d = spec.deployment;
  if (d.mode == DeploymentMode::cloud && d.provider) {
    d.provider = resolve_provider(catalog, *d.provider, spec.file + ":/deployment/provider");
  }
  // The rule plan's search applies (plan/generation_formats.hpp): bf16 runs in fp16 on a GPU
  // without it, and what the engine does not run on the GPU's generation is refused.
  FormatsOnGpu on_gpu = formats_on_gpu(spec, gpu, engines);
  spec = std::move(on_gpu.spec);
  if (!on_gpu.note.empty()) {
    spec.warnings.push_back(std::move(on_gpu.note));
  }
  if (const std::string why = engine_refusal(spec, gpu, engines, true); !why.empty()) {
    throw InputError("--gpu",
                     fmt::format("{}: {}; plan rejects it too: try other --weights or --kv-cache "
                                 "formats, or another GPU",
                                 gpu.name,
                                 why));
  }
  if (const auto missing = missing_compute_rate(spec, gpu)) {
    throw InputError("--gpu",
                     *missing + "; try --weights bf16 (or fp16), or add the rate with --catalog "
                                "(docs/catalog.md)");
  }
  return spec;
}

std::optional<long long>
replica_batch(const Spec& spec, std::optional<long long> given, int replicas) {
  if (given) {
    return given;
  }
  const auto& concurrency = spec.workload.inference.concurrency;
  if (!spec.workload.is_training() && concurrency) {
    return (*concurrency + replicas - 1) / replicas;
  }
  return std::nullopt;
}

EstimateEvaluation estimate_configuration(Spec spec,
                                          const Gpu& gpu,
                                          const Parallelism& layout,
                                          std::optional<long long> batch,
                                          const Constants& constants,
                                          const Efficiency& efficiency,
                                          const Uncertainty& uncertainty) {
  EstimateEvaluation e;
  e.spec = std::move(spec);
  e.gpu = &gpu;
  e.parallelism = layout;
  // Serving replicas are copies of one layout: each is estimated alone and the rates add up.
  const bool serving = !e.spec.workload.is_training();
  if (serving) {
    e.replicas = layout.dp;
    e.parallelism.dp = 1;
    batch = replica_batch(e.spec, batch, e.replicas);
  }
  e.memory = estimate_memory(e.spec, gpu, e.parallelism, constants, batch);
  // A replica asked more sequences than its KV cache holds or its engine runs at once
  // (running_batch) runs what it can and queues the rest: its memory is that of the running
  // batch, as plan sizes it (docs/plan.md, "Saturation").
  std::optional<long long> offered;
  if (serving && batch) {
    const long long running =
        running_batch(e.spec, *batch, e.memory.max_batch, engine_policy(e.spec, gpu, constants));
    if (running >= 1 && running < *batch) {
      offered = batch;
      e.memory = estimate_memory(e.spec, gpu, e.parallelism, constants, running);
    }
  }
  const std::string family = efficiency.family_name(gpu);
  e.calibration =
      serving && e.parallelism.attention_dp > 1
          ? uncertainty.attention_dp_calibration(family, engine_band_key(e.spec, efficiency))
          : uncertainty.calibration(
                family, engine_band_key(e.spec, efficiency), !serving, unmeasured_workload(e.spec));
  if (serving) {
    e.inference = estimate_inference(e.spec,
                                     gpu,
                                     e.parallelism,
                                     e.memory,
                                     efficiency,
                                     constants,
                                     e.replicas,
                                     Detail::full,
                                     offered);
    e.inference->simulated = simulate_percentiles(
        e.spec, gpu, e.parallelism, constants, efficiency, e.memory, *e.inference);
    if (e.inference->concurrency > 0) {
      const std::string engine = engine_band_key(e.spec, efficiency);
      // Inside what a site calibration measured: its own leave-one-run-out band.
      const auto* site =
          uncertainty.measured_site(family, engine, gpu, e.parallelism, e.spec, batch.value_or(0));
      e.inference_bands =
          site == nullptr
              ? inference_bands(
                    *e.inference, uncertainty, family, engine, e.parallelism.attention_dp)
          : e.inference->kv_overflow()
              ? inference_bands(*e.inference,
                                uncertainty.overflowing(site->measured_ttft, "ttft"),
                                uncertainty.overflowing(site->measured_tpot, "tpot"))
              : inference_bands(*e.inference, site->measured_ttft, site->measured_tpot);
    }
  } else {
    e.training = estimate_training(e.spec, gpu, e.parallelism, e.memory, efficiency);
    e.training_bands = training_bands(*e.training, uncertainty, family);
  }
  e.memory_band = memory_band(e.memory.per_gpu.total(), uncertainty);
  e.band_coverage = uncertainty.coverage;
  return e;
}

EstimateEvaluation estimate_disaggregated_configuration(Spec spec,
                                                        const Gpu& gpu,
                                                        const Parallelism& layout,
                                                        int prefills,
                                                        int decodes,
                                                        const Constants& constants,
                                                        const Efficiency& efficiency,
                                                        const Uncertainty& uncertainty) {
  if (const auto no = disaggregation_refusal(spec)) {
    throw InputError("--prefill-replicas", "cannot serve " + spec.file + " disaggregated: " + *no);
  }
  if (spec.workload.inference.targets.names_percentiles()) {
    throw InputError("--prefill-replicas",
                     "the spec's targets name percentiles, which rightsize holds on a simulation "
                     "of one engine's scheduler, not of disaggregated pools: give them as means "
                     "(docs/plan.md, \"Disaggregated serving\")");
  }
  if (layout.pp > 1) {
    throw InputError("--pp",
                     "disaggregated pools are estimated without pipeline stages (each replica "
                     "laid out by --tp, --ep and --attention-dp)");
  }
  EstimateEvaluation e;
  e.spec = std::move(spec);
  e.gpu = &gpu;
  e.parallelism = layout;
  e.parallelism.dp = 1;
  e.replicas = prefills + decodes;
  const DisaggregatedEstimator pools(
      e.spec, gpu, e.parallelism, e.parallelism, constants, efficiency);
  if (!pools.holds()) {
    throw InputError("--tp",
                     fmt::format("one replica of this layout on {} does not hold a sequence of "
                                 "the spec's length",
                                 gpu.name));
  }
  e.disaggregation = pools(prefills, decodes, *e.spec.workload.inference.concurrency);
  e.memory = e.disaggregation->decode_memory;
  e.inference = e.disaggregation->perf;
  const std::string family = efficiency.family_name(gpu);
  const std::string engine = engine_band_key(e.spec, efficiency);
  e.calibration = uncertainty.disaggregated_calibration(family, engine, layout.attention_dp);
  const DisaggregatedBands bands =
      disaggregated_bands(uncertainty, family, engine, layout.attention_dp);
  e.inference_bands = inference_bands(*e.inference, bands.ttft, bands.tpot);
  e.memory_band = memory_band(e.memory.per_gpu.total(), uncertainty);
  e.band_coverage = uncertainty.coverage;
  return e;
}

EstimateReport
estimate_report(const EstimateEvaluation& e, Confidence confidence, const std::string& today) {
  EstimateReport report{e.spec,
                        *e.gpu,
                        e.parallelism,
                        e.memory,
                        held(e.inference),
                        held(e.training),
                        e.replicas,
                        held(e.inference_bands),
                        held(e.training_bands),
                        e.memory_band,
                        e.band_coverage,
                        confidence == Confidence::band,
                        &e.calibration};
  report.disaggregation = held(e.disaggregation);
  report.targets = judge_targets(report);
  price_report(report, today);
  return report;
}

} // namespace rightsize
