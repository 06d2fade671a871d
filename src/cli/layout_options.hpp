#pragma once

// The flags that name one fixed GPU configuration, shared by the commands that take one
// (estimate, and calibrate's runs): the layout (--gpus, --tp, --cp, --pp, --dp, --ep,
// --attention-dp) read into a Parallelism with every check estimate makes, and the formats
// (--weights, --kv-cache).

#include <rightsize/estimate/performance.hpp>
#include <rightsize/model/dtype.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/App.hpp>

#include <optional>
#include <string>

namespace rightsize::cli {

// 0: the flag was not given.
struct LayoutOptions {
  int gpus = 0;
  int tp = 0;
  int cp = 0;
  int pp = 0;
  int dp = 0;
  int ep = 0;
  int attention_dp = 0;
};

// Adds the seven layout flags to `sub`, in the order estimate's help lists them.
void add_layout_options(CLI::App& sub, LayoutOptions& options);

// The layout the flags give for `spec`: --gpus alone is tensor parallelism over all of them, with
// --tp the rest are data-parallel replicas, given parts must multiply to --gpus; then every check
// (heads divisible by tp, pipeline stages, expert and context parallelism, attention data
// parallelism, the training framework's refusals): an InputError naming the flag otherwise.
Parallelism read_layout(const LayoutOptions& options, const Spec& spec);

// The GPUs of `p` that communicate (a training layout's all; a serving replica's tensor, context
// and pipeline group, or, with `pool_replicas` > 0, every GPU of a disaggregated configuration's
// pools) must meet over a link the catalog rates (link_published): an unpublished host link or
// network (docs/catalog.md) would time the layout at an infinite transfer. InputError at --tp,
// --gpus or --prefill-replicas otherwise.
void check_layout_links(const Spec& spec, const Gpu& gpu, const Parallelism& p, int pool_replicas);

// --weights or --kv-cache: a format by name, or none when the option is not given; an unknown
// name is an InputError naming `option` with the names known and a did-you-mean.
std::optional<DType> dtype_option(const std::string& name, const std::string& option);

} // namespace rightsize::cli
