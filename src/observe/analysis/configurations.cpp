// What a workload could run on, and whether it covers the need. docs/observe.md, "The
// recommendation".

#include "configurations.hpp"

#include <rightsize/catalog/mig.hpp>
#include <rightsize/catalog/price_pick.hpp>

#include <cmath>

namespace rightsize::analysis {

namespace {

std::vector<Option>
options_for(const Catalog& catalog, const Gpu& current, int current_gpus, const ObserveOptions& o) {
  std::vector<Option> out;
  int max_count = 1;
  while (max_count * 2 <= std::max(o.max_gpus, current_gpus)) {
    max_count *= 2;
  }
  for (const auto& g : catalog.gpus) {
    if (!o.gpus.empty()) {
      const bool listed = std::any_of(o.gpus.begin(), o.gpus.end(), [&](const std::string& name) {
        return catalog.find(name) == &g;
      });
      if (!listed) {
        continue;
      }
    } else if (g.vendor != current.vendor) {
      continue; // a CUDA workload stays on NVIDIA unless --gpus says otherwise
    }
    for (int n = 1; n <= max_count; n *= 2) {
      if (const auto usd = monthly(g, n, o)) {
        out.push_back(Option{&g, g, "", n, *usd});
      }
    }
    // Slices only of the model it runs on: re-partitioning GPUs one has. A slice of another
    // model would mean buying or renting that GPU to share it, which plan prices, not observe.
    if (o.mig && g.mig && &g == &current) {
      for (const auto& profile : g.mig->profiles) {
        if (auto slice = mig_slice(g, profile, true)) {
          if (const auto usd = monthly(*slice, 1, o)) {
            out.push_back(Option{&g, std::move(*slice), profile, 1, *usd});
          }
        }
      }
    }
  }
  return out;
}

} // namespace

double work_rate(const Gpu& g) {
  for (const auto p : {TensorPrecision::bf16,
                       TensorPrecision::fp16,
                       TensorPrecision::tf32,
                       TensorPrecision::fp32}) {
    if (const auto r = g.rate(p)) {
      return r->si();
    }
  }
  return 0;
}

double share_of_gpu(const Gpu& whole, const Gpu& shape) {
  const double whole_price = whole.prices.empty() ? 0 : whole.prices.front().per_gpu.si();
  const double shape_price = shape.prices.empty() ? 0 : shape.prices.front().per_gpu.si();
  if (whole_price > 0 && shape_price > 0) {
    return shape_price / whole_price;
  }
  return shape.memory.si() / whole.memory.si();
}

std::optional<double> monthly(const Gpu& shape, int count, const ObserveOptions& o) {
  // The instances that hold `count` GPUs, as plan and estimate price them (catalog/price_pick.hpp).
  const auto fleet =
      pick_fleet(shape, o.pricing.price_kind, o.pricing.provider, ReplicaGpus{}, count);
  if (!fleet) {
    return std::nullopt;
  }
  return fleet->per_hour().si() * o.pricing.hours_per_month;
}

bool covers(const Option& o, const Need& need) {
  const double n = o.count;
  const double capacity = o.shape.plannable_memory().si();
  if (need.memory_bytes) {
    if (*need.memory_bytes / n > capacity) {
      return false;
    }
  } else if (capacity < need.memory_per_gpu_floor) {
    return false;
  }
  // Spreading work over more GPUs than it runs on now costs communication: each doubling
  // delivers `scale_out_efficiency` of the added GPUs' rate (docs/observe.md).
  double delivered = n;
  if (o.count > need.current_gpus) {
    delivered *=
        std::pow(need.scale_out_efficiency, std::log2(n / static_cast<double>(need.current_gpus)));
  }
  if (delivered * work_rate(o.shape) < need.flops ||
      delivered * o.shape.memory_bandwidth.si() < need.bytes_per_s) {
    return false;
  }
  // More than one GPU without NVLink: only where the workload already runs that way, or needs
  // neither the link (its memory fits one GPU) nor is bound by it.
  if (o.count > 1 && !o.shape.has_nvlink()) {
    const bool split = need.memory_bytes && *need.memory_bytes > capacity;
    if (need.needs_link || (split && need.runs_on_nvlink)) {
      return false;
    }
  }
  return true;
}

const std::vector<Option>& cached_options(OptionsCache& cache,
                                          const Catalog& catalog,
                                          const Gpu& current,
                                          int current_gpus,
                                          const ObserveOptions& o) {
  auto [it, inserted] = cache.try_emplace({&current, current_gpus});
  if (inserted) {
    it->second = options_for(catalog, current, current_gpus, o);
  }
  return it->second;
}

} // namespace rightsize::analysis
