#include "cli/commands.hpp"
#include "cli/common_options.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/precision.hpp>
#include <rightsize/plan/price.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

namespace rightsize::cli {

namespace {

struct EstimateOptions {
  CommonOptions common;
  std::string spec;
  std::string gpu;
  int gpus = 0;
  int tp = 0;
  int cp = 0;
  int pp = 0;
  int dp = 0;
  int ep = 0;
  long long batch = 0;
  std::string weights;
  std::string kv_cache;
  std::string confidence = "band";
  std::vector<std::string> assume;
};

constexpr long long k_max_gpus = 100000;

// What --gpus and the parts given make: --gpus alone is tensor parallelism over all of them;
// with --tp (and --cp, --pp) the rest are data-parallel replicas; given parts must multiply to
// --gpus.
Parallelism split_gpus(const EstimateOptions& o) {
  Parallelism p;
  p.cp = o.cp > 0 ? o.cp : 1;
  p.pp = o.pp > 0 ? o.pp : 1;
  p.dp = o.dp > 0 ? o.dp : 1;
  p.tp = o.tp > 0 ? o.tp : 1;
  p.ep = o.ep > 0 ? o.ep : 1;
  // "tp 2 x pp 4", with cp only when given: the parts that multiply, for the messages below.
  const auto parts = [&](bool with_dp) {
    std::string s = fmt::format("tp {}", p.tp);
    if (p.cp > 1) {
      s += fmt::format(" x cp {}", p.cp);
    }
    s += fmt::format(" x pp {}", p.pp);
    if (with_dp) {
      s += fmt::format(" x dp {}", p.dp);
    }
    return s;
  };
  // Checked in 64 bits before anything multiplies the parts as int.
  const long long total = static_cast<long long>(p.tp) * p.cp * p.pp * p.dp;
  if (total > k_max_gpus) {
    throw InputError(
        "--tp",
        fmt::format(
            "{} = {} GPUs, more than the {} rightsize estimates", parts(true), total, k_max_gpus));
  }
  if (o.gpus == 0) {
    return p;
  }
  if (o.tp > 0 && o.dp == 0) {
    const int replica = p.tp * p.cp * p.pp;
    if (o.gpus % replica != 0) {
      throw InputError("--gpus",
                       fmt::format("{} GPUs cannot be split into replicas of {} = {} GPUs",
                                   o.gpus,
                                   parts(false),
                                   replica));
    }
    p.dp = o.gpus / replica;
  } else if (o.tp == 0) {
    const int rest = p.cp * p.pp * p.dp;
    if (o.gpus % rest != 0) {
      std::string what = p.cp > 1 ? fmt::format("cp {} x ", p.cp) : std::string();
      throw InputError(
          "--gpus",
          fmt::format("{} GPUs cannot be split into {}pp {} x dp {}", o.gpus, what, p.pp, p.dp));
    }
    p.tp = o.gpus / rest;
  }
  if (p.gpus() != o.gpus) {
    throw InputError("--gpus",
                     fmt::format("{} GPUs do not match {} = {}", o.gpus, parts(true), p.gpus()));
  }
  return p;
}

// --cp: Megatron-Core's context parallelism for training, which splits each sequence into
// 2 x cp chunks (a load-balanced causal split).
void check_context_parallelism(const Parallelism& p, const Spec& spec) {
  if (p.cp == 1) {
    return;
  }
  if (const std::string why = context_parallel_unsupported(spec); !why.empty()) {
    throw InputError("--cp", why);
  }
  const long long seq = spec.workload.training.seq_len;
  if (seq % (2LL * p.cp) != 0) {
    throw InputError("--cp",
                     fmt::format("context parallelism splits each sequence into 2 x cp = {} equal "
                                 "chunks; seq_len {} does not divide into them",
                                 2 * p.cp,
                                 seq));
  }
}

// Serving replicas do not share experts: expert parallelism stays inside a replica's
// tensor-parallel group. Training spreads experts over tp x dp.
void check_expert_parallelism(const Parallelism& p, const Spec& spec) {
  if (p.ep == 1) {
    return;
  }
  const bool serving = !spec.workload.is_training();
  const int group = serving ? p.tp : p.tp * p.dp;
  if (group % p.ep != 0 || !spec.model.is_moe() || spec.model.experts % p.ep != 0) {
    throw InputError("--ep",
                     fmt::format("expert parallelism needs a mixture of experts whose "
                                 "experts it divides, and must divide {} = {}, got {}",
                                 serving ? "tp (serving replicas do not share experts)" : "tp x dp",
                                 group,
                                 p.ep));
  }
}

Parallelism layout(const EstimateOptions& o, const Spec& spec) {
  const Parallelism p = split_gpus(o);
  if (const auto parts = spec.model.tp_indivisible(p.tp); !parts.empty()) {
    if (o.tp == 0 && o.gpus > 0) {
      // --gpus alone made the tensor-parallel size: say so, not a flag the user did not give.
      throw InputError("--gpus",
                       fmt::format("{} GPUs as one tensor-parallel group must divide the {}; give "
                                   "--tp (the rest are data-parallel replicas) or --dp",
                                   o.gpus,
                                   parts));
    }
    throw InputError("--tp",
                     fmt::format("tensor parallelism must divide the {}, got {}", parts, p.tp));
  }
  if (p.pp > 1 && spec.model.encoder_decoder) {
    throw InputError("--pp",
                     fmt::format("pipeline stages are not modelled for an encoder-decoder ({}): "
                                 "its layers all sit on each GPU; use --tp",
                                 spec.model.family));
  }
  if (p.pp > spec.model.layers) {
    throw InputError("--pp",
                     fmt::format("pipeline stages cannot exceed the {} layers, got {}",
                                 spec.model.layers,
                                 p.pp));
  }
  check_expert_parallelism(p, spec);
  check_context_parallelism(p, spec);
  return p;
}

DType read_dtype_option(const std::string& name, const std::string& option) {
  const auto d = parse_dtype(name);
  if (!d) {
    std::string names;
    for (const auto& n : dtype_names()) {
      names += (names.empty() ? "" : ", ") + n;
    }
    throw InputError(option,
                     fmt::format("unknown precision \"{}\" (expected one of {}){}",
                                 name,
                                 names,
                                 did_you_mean(name, dtype_names())));
  }
  return *d;
}

// --weights and --kv-cache: the precision a plan reports for a candidate, applied the way plan
// applies an allowed format.
Spec with_requested_precision(const EstimateOptions& o, const Spec& spec) {
  if (o.weights.empty() && o.kv_cache.empty()) {
    return spec;
  }
  const DType weights =
      o.weights.empty() ? spec.precision.weights : read_dtype_option(o.weights, "--weights");
  const DType kv_cache =
      o.kv_cache.empty() ? spec.precision.kv_cache : read_dtype_option(o.kv_cache, "--kv-cache");
  const bool qlora = spec.workload.type == WorkloadType::finetune &&
                     spec.workload.training.method == FinetuneMethod::qlora;
  if (qlora && weights != DType::nf4 && weights != DType::int4) {
    throw InputError(
        "--weights",
        fmt::format("qlora needs 4-bit base weights (nf4 or int4), got {}", to_string(weights)));
  }
  return with_precision(spec, weights, kv_cache);
}

// Serving: the batch of one replica. --batch as given; else the spec's concurrency shared among
// the replicas as plan shares it, ceil(concurrency / replicas); else (offline) the largest that
// fits.
std::optional<long long> replica_batch(const EstimateOptions& o, const Spec& spec, int replicas) {
  if (o.batch > 0) {
    return o.batch;
  }
  const auto& concurrency = spec.workload.inference.concurrency;
  if (!spec.workload.is_training() && concurrency) {
    return (*concurrency + replicas - 1) / replicas;
  }
  return std::nullopt;
}

// The value a target is judged at: the pessimistic edge of its band, or the point.
TargetCheck judge(std::string target,
                  bool at_most,
                  double limit,
                  double predicted,
                  std::optional<Band> band,
                  bool at_edge) {
  TargetCheck t;
  t.target = std::move(target);
  t.at_most = at_most;
  t.limit = limit;
  t.predicted = predicted;
  t.band = band;
  t.held = band && at_edge ? (at_most ? band->high : band->low) : predicted;
  const auto meets = [&](double v) { return at_most ? v <= limit : v >= limit; };
  t.met = meets(t.held);
  t.met_at_point = meets(predicted);
  t.margin = (at_most ? limit - t.held : t.held - limit) / limit;
  return t;
}

// The spec's targets, held to the band's pessimistic edge (or the point with --confidence point)
// as plan holds them (docs/plan.md, "Margins").
std::vector<TargetCheck> judge_targets(const EstimateReport& r) {
  std::vector<TargetCheck> out;
  const bool edge = r.judged_at_band_edge;
  if (r.inference && r.inference->concurrency > 0) {
    const auto& t = r.spec.workload.inference.targets;
    const auto& i = *r.inference;
    const auto& b = r.inference_bands;
    const auto ms = [](Band x) { return Band{x.low * 1e3, x.high * 1e3}; };
    // An embedding workload's latency and sequences per second are held to the same figures
    // under their own names.
    const bool embedding = i.prefill_only;
    const auto& audio = r.spec.workload.inference.transcription;
    if (t.ttft) {
      out.push_back(judge(embedding || audio ? "latency_ms" : "ttft_ms",
                          true,
                          to_ms(*t.ttft),
                          to_ms(i.ttft),
                          b ? std::optional<Band>(ms(b->ttft)) : std::nullopt,
                          edge));
    }
    if (t.tpot) {
      out.push_back(judge("tpot_ms",
                          true,
                          to_ms(*t.tpot),
                          to_ms(i.tpot),
                          b ? std::optional<Band>(ms(b->tpot)) : std::nullopt,
                          edge));
    }
    if (t.requests_per_s && audio && audio->audio_seconds_per_s) {
      // A transcription's windows per second, held as audio seconds per second.
      const double k = audio->audio_per_window();
      out.push_back(
          judge("audio_seconds_per_s",
                false,
                *audio->audio_seconds_per_s,
                i.audio_seconds_per_s,
                b ? std::optional<Band>(Band{b->requests_per_s.low * k, b->requests_per_s.high * k})
                  : std::nullopt,
                edge));
    } else if (t.requests_per_s) {
      out.push_back(judge(r.spec.per_image() ? "images_per_s"
                          : embedding        ? "sequences_per_s"
                                             : "requests_per_s",
                          false,
                          *t.requests_per_s,
                          i.requests_per_s,
                          b ? std::optional<Band>(b->requests_per_s) : std::nullopt,
                          edge));
    }
    if (t.output_tokens_per_s) {
      out.push_back(judge("output_tokens_per_s",
                          false,
                          *t.output_tokens_per_s,
                          i.output_tokens_per_s,
                          b ? std::optional<Band>(b->output_tokens_per_s) : std::nullopt,
                          edge));
    }
  }
  const auto& deadline = r.spec.workload.training.deadline;
  if (r.training && r.training->time_to_train && deadline) {
    const auto& b = r.training_bands;
    const auto h = [](Band x) { return Band{x.low / 3600.0, x.high / 3600.0}; };
    out.push_back(judge("deadline_hours",
                        true,
                        to_hours(*deadline),
                        to_hours(*r.training->time_to_train),
                        b ? std::optional<Band>(h(b->time_to_train)) : std::nullopt,
                        edge));
  }
  return out;
}

// Cloud: per hour = price x GPUs, and per million tokens at this load. On-prem ownership (whole
// servers, power, amortization over a horizon) is plan's to compute.
void price_report(EstimateReport& r, int gpus) {
  const Deployment& d = r.spec.deployment;
  if (d.mode == DeploymentMode::onprem) {
    r.cost_note = "on-prem: the ownership cost (whole servers, power, amortization) is computed "
                  "by rightsize plan (docs/plan.md, \"Cost\")";
    return;
  }
  const Price* p = pick_price(r.gpu, d);
  if (p == nullptr) {
    r.cost_note = fmt::format("no {} price{} for {} in the catalog; add one with --catalog "
                              "(docs/catalog.md)",
                              d.price_kind,
                              d.provider ? " from " + *d.provider : std::string(),
                              r.gpu.name);
    return;
  }
  EstimateCost c;
  c.price = *p;
  c.price_label = cloud_price_label(*p);
  c.price_stale = is_stale(p->as_of, today(), d.stale_price_days);
  c.per_hour = p->per_gpu * static_cast<double>(gpus);
  const double tokens_per_s = r.inference  ? r.inference->priced_tokens_per_s()
                              : r.training ? r.training->tokens_per_s
                                           : 0.0;
  if (tokens_per_s > 0) {
    c.usd_per_million_tokens = c.per_hour.si() / (tokens_per_s * 3600.0) * 1e6;
  }
  if (r.spec.per_image() && r.inference && r.inference->requests_per_s > 0) {
    c.usd_per_thousand_images = c.per_hour.si() / (r.inference->requests_per_s * 3600.0) * 1e3;
  }
  if (r.training && r.training->time_to_train) {
    c.to_train = c.per_hour * *r.training->time_to_train;
  }
  if (r.inference && r.inference->audio_seconds_per_s > 0) {
    c.usd_per_audio_hour = c.per_hour.si() / r.inference->audio_seconds_per_s;
  }
  r.cost = c;
}

// The provider named in the spec, in the catalog's spelling ("aws" -> "AWS"), as plan reads it.
void resolve_spec_provider(const Catalog& catalog, Spec& spec) {
  auto& d = spec.deployment;
  if (d.mode == DeploymentMode::cloud && d.provider) {
    d.provider = resolve_provider(catalog, *d.provider, spec.file + ":/deployment/provider");
  }
}

} // namespace

Constants load_constants(const std::vector<std::string>& assume) {
  Constants c = Constants::load(bundled_data_dir() + "/memory.json");
  c.assume(assume);
  return c;
}

void register_estimate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EstimateOptions>();
  auto* sub = app.add_subcommand("estimate",
                                 "Evaluate one fixed GPU configuration: memory per "
                                 "GPU term by term, whether it fits, the largest "
                                 "batch and the longest context, speed, the spec's targets "
                                 "and the cost");
  sub->add_option("SPEC", o->spec, "A rightsize spec, a Hugging Face config.json or a model folder")
      ->required();
  sub->add_option("--gpu", o->gpu, "GPU name or alias (H100, L40S, ...)")->required();
  sub->add_option("--gpus",
                  o->gpus,
                  "GPUs in total (default: tp x cp x pp x dp); with --tp, the rest are "
                  "data-parallel replicas")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--tp", o->tp, "Tensor-parallel size")->check(CLI::Range(1, 1024));
  sub->add_option("--cp",
                  o->cp,
                  "Context-parallel size (training, Megatron): each sequence split over this "
                  "many GPUs")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--pp", o->pp, "Pipeline-parallel stages")->check(CLI::Range(1, 1024));
  sub->add_option("--dp",
                  o->dp,
                  "Data-parallel size; serving: replicas sharing the load (a plan's replicas)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--ep", o->ep, "Expert-parallel size")->check(CLI::Range(1, 100000));
  sub->add_option("--batch",
                  o->batch,
                  "Concurrent sequences per replica (inference) or micro-batch (training); "
                  "default: the spec's concurrency shared among the replicas, or for inference "
                  "without concurrency the largest that fits")
      ->check(CLI::Range(1LL, 100000000LL));
  sub->add_option("--weights",
                  o->weights,
                  "Store the weights in this format (a plan's precision.weights: fp8, int4, ...)")
      ->type_name("DTYPE");
  sub->add_option("--kv-cache",
                  o->kv_cache,
                  "Keep the KV cache in this format (a plan's precision.kv_cache)")
      ->type_name("DTYPE");
  sub->add_option("--confidence",
                  o->confidence,
                  "Judge targets at the pessimistic edge of each prediction's uncertainty band "
                  "(band) or at the point estimate (point); docs/plan.md")
      ->check(CLI::IsMember({"band", "point"}))
      ->default_str("band");
  sub->add_option("--assume", o->assume, "Override a model constant: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, {"table", "json"});
  sub->callback([&ctx, o]() {
    ctx.action = [&ctx, o]() {
      const Spec loaded = load_spec(o->spec);
      for (const auto& w : loaded.warnings) {
        ctx.log->warn("{}: {}", loaded.file, w);
      }
      const Catalog catalog = load_catalog(
          bundled_catalog_path(), user_catalog_path(o->common), CatalogDetail::figures);
      const Gpu& gpu = catalog.resolve(o->gpu, "--gpu");
      Spec spec = with_requested_precision(*o, loaded);
      resolve_spec_provider(catalog, spec);
      if (const auto missing = missing_compute_rate(spec, gpu)) {
        throw InputError("--gpu",
                         *missing + "; try --weights bf16 (or fp16), or add the rate with "
                                    "--catalog (docs/catalog.md)");
      }
      const Constants constants = load_constants(o->assume);
      const Parallelism whole = layout(*o, spec);
      // Serving replicas are copies of one layout: each is estimated alone and the rates add up.
      const bool serving = !spec.workload.is_training();
      Parallelism p = whole;
      int replicas = 1;
      if (serving) {
        replicas = whole.dp;
        p.dp = 1;
      }
      const auto batch = serving
                             ? replica_batch(*o, spec, replicas)
                             : (o->batch > 0 ? std::optional<long long>(o->batch) : std::nullopt);
      const MemoryEstimate memory = estimate_memory(spec, gpu, p, constants, batch);
      const Efficiency efficiency = Efficiency::load(bundled_data_dir() + "/efficiency.json");
      const Uncertainty uncertainty = Uncertainty::load(bundled_data_dir() + "/uncertainty.json");
      const Calibration calibration = uncertainty.calibration(
          efficiency.family_name(gpu), engine_name(spec), !serving, unmeasured_workload(spec));
      std::optional<InferencePerformance> inference;
      std::optional<InferenceBands> serving_bands;
      std::optional<TrainingPerformance> training;
      std::optional<TrainingBands> train_bands;
      if (serving) {
        inference = estimate_inference(spec, gpu, p, memory, efficiency, constants, replicas);
        if (inference->concurrency > 0) {
          serving_bands = inference_bands(
              *inference, uncertainty, efficiency.family_name(gpu), engine_name(spec));
        }
      } else {
        training = estimate_training(spec, gpu, p, memory, efficiency);
        train_bands = training_bands(*training, uncertainty, efficiency.family_name(gpu));
      }
      EstimateReport report{spec,
                            gpu,
                            p,
                            memory,
                            held(inference),
                            held(training),
                            replicas,
                            held(serving_bands),
                            held(train_bands),
                            memory_band(memory.per_gpu.total(), uncertainty),
                            uncertainty.coverage,
                            o->confidence == "band",
                            &calibration};
      report.targets = judge_targets(report);
      price_report(report, whole.gpus());
      if (o->common.format == "json") {
        render_estimate_json(report, ctx.out);
      } else {
        render_estimate_table(report, ctx.out);
      }
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
