#pragma once

// The configurations a workload could run on (whole GPUs of the catalog in powers of two, and
// MIG slices of the GPU it runs on), what each costs a month, and the cheapest that covers what
// the workload needs. docs/observe.md, "The recommendation".

#include <rightsize/observe/observe.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace rightsize::analysis {

// The rate a GPU's work is measured in: its dense 16-bit tensor rate (fp32 on cards without one).
double work_rate(const Gpu& g);

// A configuration a workload could run on, and what it costs.
struct Option {
  const Gpu* gpu = nullptr; // the whole GPU (for a slice, the GPU it is cut from)
  Gpu shape;                // what the workload gets per GPU: the GPU or the slice
  std::string partition;
  int count = 0;
  double usd_per_month = 0;
};

// The share of a whole GPU a slice takes, as plan prices it; 1 for a whole GPU.
double share_of_gpu(const Gpu& whole, const Gpu& shape);

// What `count` of `shape` cost a month at the options' price kind and provider; nullopt when the
// catalog has no such price.
std::optional<double> monthly(const Gpu& shape, int count, const ObserveOptions& o);

// What the workload needs, buffer included, in absolute terms.
struct Need {
  std::optional<double> memory_bytes; // over all its GPUs
  double memory_per_gpu_floor = 0;    // when memory is unknown: keep at least the current capacity
  double flops = 0;                   // bf16-equivalent FLOP/s
  double bytes_per_s = 0;             // memory bandwidth
  bool needs_link = false;            // interconnect-bound: more than one GPU needs NVLink
  bool runs_on_nvlink = false;        // the current GPUs have NVLink
  int current_gpus = 1;
  double scale_out_efficiency = 0.9;
};

// Whether `o` holds the need's memory and delivers its work and bandwidth (scale-out costed),
// with NVLink where the need requires it.
bool covers(const Option& o, const Need& need);

// The options of workloads on `current` x count, built once per plan of a fleet: they depend on
// nothing else, and a fleet runs few GPU models.
using OptionsCache = std::map<std::pair<const Gpu*, int>, std::vector<Option>>;

// The options of a workload on `current_gpus` x `current`: the catalog's GPUs (those of --gpus,
// else of its vendor) with a price, 1, 2, 4, ... up to --max-gpus, and MIG slices of `current`;
// made once per (GPU, count) in `cache`.
const std::vector<Option>& cached_options(OptionsCache& cache,
                                          const Catalog& catalog,
                                          const Gpu& current,
                                          int current_gpus,
                                          const ObserveOptions& o);

// The cheapest option that covers the need and that `allowed` keeps: ties go to fewer GPUs, then
// more memory per GPU.
template <class Allowed>
const Option*
cheapest_covering(const std::vector<Option>& options, const Need& need, Allowed&& allowed) {
  const Option* best = nullptr;
  for (const auto& o : options) {
    if (!allowed(o) || !covers(o, need)) {
      continue;
    }
    if (best == nullptr) {
      best = &o;
      continue;
    }
    // Prices that differ in the last bits (2 x $0.43 and $0.86) are the same price.
    const double tolerance = 1e-9 * std::max(o.usd_per_month, best->usd_per_month);
    if (o.usd_per_month < best->usd_per_month - tolerance) {
      best = &o;
    } else if (o.usd_per_month <= best->usd_per_month + tolerance &&
               std::make_tuple(o.count, -o.shape.plannable_memory().si()) <
                   std::make_tuple(best->count, -best->shape.plannable_memory().si())) {
      best = &o;
    }
  }
  return best;
}

} // namespace rightsize::analysis
