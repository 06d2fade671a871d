#include "cli/layout_options.hpp"

#include "cli/common_options.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/estimate/frameworks.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/model/dtype.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace rightsize::cli {

namespace {

constexpr long long k_max_gpus = 100000;

// What --gpus and the parts given make: --gpus alone is tensor parallelism over all of them;
// with --tp (and --cp, --pp) the rest are data-parallel replicas; given parts must multiply to
// --gpus.
Parallelism split_gpus(const LayoutOptions& o) {
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

} // namespace

Parallelism read_layout(const LayoutOptions& o, const Spec& spec) {
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

void add_layout_options(CLI::App& sub, LayoutOptions& o) {
  sub.add_option("--gpus",
                 o.gpus,
                 "GPUs in total (default: tp x cp x pp x dp); with --tp, the rest are "
                 "data-parallel replicas")
      ->transform(whole_number_in(1, 100000));
  sub.add_option("--tp", o.tp, "Tensor-parallel size")->transform(whole_number_in(1, 1024));
  sub.add_option("--cp",
                 o.cp,
                 "Context-parallel size (training, Megatron): each sequence split over this "
                 "many GPUs")
      ->transform(whole_number_in(1, 1024));
  sub.add_option("--pp", o.pp, "Pipeline-parallel stages")->transform(whole_number_in(1, 1024));
  sub.add_option(
         "--dp", o.dp, "Data-parallel size; serving: replicas sharing the load (a plan's replicas)")
      ->transform(whole_number_in(1, 100000));
  sub.add_option("--ep", o.ep, "Expert-parallel size (serving: ep groups of tp / ep GPUs)")
      ->transform(whole_number_in(1, 100000));
  sub.add_option("--attention-dp",
                 o.attention_dp,
                 "Serving: attention data-parallel groups of tp / N GPUs, each holding the KV "
                 "cache of its own requests (SGLang --enable-dp-attention --dp-size N)")
      ->transform(whole_number_in(1, 1024));
}

std::optional<DType> dtype_option(const std::string& name, const std::string& option) {
  if (name.empty()) {
    return std::nullopt;
  }
  return read_dtype_option(name, option);
}

void check_layout_links(const Spec& spec, const Gpu& gpu, const Parallelism& p, int pool_replicas) {
  const bool pools = pool_replicas > 0;
  const int group = spec.workload.is_training() ? p.gpus()
                    : pools                     ? p.tp * p.cp * p.pp * pool_replicas
                                                : p.tp * p.cp * p.pp;
  if (link_published(spec, gpu, group)) {
    return;
  }
  const bool network =
      group > gpus_per_server(spec, gpu) && !(gpu.has_nvlink() && group <= gpu.nvlink_domain);
  throw InputError(
      pools                         ? "--prefill-replicas"
      : spec.workload.is_training() ? "--gpus"
                                    : "--tp",
      fmt::format("{} GPUs of {} would communicate over its {}, whose rate the "
                  "catalog does not publish (docs/catalog.md): keep them within {}",
                  group,
                  gpu.name,
                  network ? "network, between servers" : "host link (PCIe)",
                  network
                      ? fmt::format("one server of {}", gpus_per_server(spec, gpu))
                      : fmt::format("its {}-GPU {} domain", gpu.nvlink_domain, gpu.gpu_link_kind)));
}

} // namespace rightsize::cli
