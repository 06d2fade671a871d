#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/estimate/frameworks.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>

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
  int attention_dp = 0;
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
  p.attention_dp = o.attention_dp > 0 ? o.attention_dp : 1;
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
  Parallelism p = split_gpus(o);
  p.expert_tp = !spec.workload.is_training() && p.tp % p.ep == 0 ? p.tp / p.ep : 1; // engines'
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
  if (const auto no = attention_dp_refusal(spec, p)) { // docs/model.md, "Attention data ..."
    throw InputError("--attention-dp", *no);
  }
  check_context_parallelism(p, spec);
  if (const FrameworkRefusal no = framework_refusal(spec, p); no.refused()) {
    throw InputError(no.option, no.reason);
  }
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

// --weights or --kv-cache: a format by name, or none when the option is not given.
std::optional<DType> dtype_option(const std::string& name, const std::string& option) {
  if (name.empty()) {
    return std::nullopt;
  }
  return read_dtype_option(name, option);
}

using EstimateRenderer = void (*)(const EstimateReport&, std::ostream&);
constexpr std::array<Format<EstimateRenderer>, 2> k_formats{
    {{"table", render_estimate_table}, {"json", render_estimate_json}}};

} // namespace

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
      ->transform(whole_number_in(1, 100000));
  sub->add_option("--tp", o->tp, "Tensor-parallel size")->transform(whole_number_in(1, 1024));
  sub->add_option("--cp",
                  o->cp,
                  "Context-parallel size (training, Megatron): each sequence split over this "
                  "many GPUs")
      ->transform(whole_number_in(1, 1024));
  sub->add_option("--pp", o->pp, "Pipeline-parallel stages")->transform(whole_number_in(1, 1024));
  sub->add_option("--dp",
                  o->dp,
                  "Data-parallel size; serving: replicas sharing the load (a plan's replicas)")
      ->transform(whole_number_in(1, 100000));
  sub->add_option("--ep", o->ep, "Expert-parallel size (serving: ep groups of tp / ep GPUs)")
      ->transform(whole_number_in(1, 100000));
  sub->add_option("--attention-dp",
                  o->attention_dp,
                  "Serving: attention data-parallel groups of tp / N GPUs, each holding the KV "
                  "cache of its own requests (SGLang --enable-dp-attention --dp-size N)")
      ->transform(whole_number_in(1, 1024));
  sub->add_option("--batch",
                  o->batch,
                  "Concurrent sequences per replica (inference) or micro-batch (training); "
                  "default: the spec's concurrency shared among the replicas, or for inference "
                  "without concurrency the largest that fits")
      ->transform(whole_number_in(1, 100000000));
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
  add_format_option(*sub, o->common, format_names(k_formats));
  sub->callback([&ctx, o]() {
    ctx.action = [&ctx, o]() {
      const Spec loaded = load_spec(o->spec);
      const Catalog catalog = load_catalog(
          bundled_catalog_path(o->common), user_catalog_path(o->common), CatalogDetail::figures);
      const Gpu& gpu = catalog.resolve(o->gpu, "--gpu");
      const auto weights = dtype_option(o->weights, "--weights");
      const auto kv_cache = dtype_option(o->kv_cache, "--kv-cache");
      const EngineSupport engines = load_engine_support(bundled_data_dir(o->common) + "/engines.json");
      Spec spec = estimate_spec(loaded, catalog, gpu, weights, kv_cache, &engines);
      for (const auto& w : spec.warnings) {
        ctx.log->warn("{}: {}", spec.file, w);
      }
      const Constants constants = load_constants(o->common, o->assume);
      const Parallelism whole = layout(*o, spec);
      const Efficiency efficiency =
          Efficiency::load(bundled_data_dir(o->common) + "/efficiency.json");
      const Uncertainty uncertainty =
          Uncertainty::load(bundled_data_dir(o->common) + "/uncertainty.json");
      const auto batch = o->batch > 0 ? std::optional<long long>(o->batch) : std::nullopt;
      const EstimateEvaluation evaluation = estimate_configuration(
          std::move(spec), gpu, whole, batch, constants, efficiency, uncertainty);
      const EstimateReport report = estimate_report(
          evaluation, o->confidence == "band" ? Confidence::band : Confidence::point, today());
      renderer(k_formats, o->common.format)(report, ctx.out);
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
