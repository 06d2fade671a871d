// MIG slices as GPUs of their own. Rules: docs/plan.md, "MIG slices as candidates".

#include <rightsize/catalog/mig.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace rightsize {

std::optional<Gpu> mig_slice(const Gpu& g, const std::string& profile, bool priced) {
  const auto parsed = detail::parse_mig_profile(profile);
  if (!parsed) {
    return std::nullopt;
  }
  return detail::mig_slice(g, profile, *parsed, detail::largest_mig_gb(g), priced);
}

namespace detail {

// What sscanf(name, "%dg.%lfgb") reads, without its format interpretation (about 700 instead of
// 1,800 instructions a name; a plan of slices parses every profile of a GPU for each one): strtol
// and strtod, which %d and %lf are defined by, and the two literal characters between them. Like
// sscanf, it does not look past the number of gigabytes.
std::optional<MigProfile> parse_mig_profile(const std::string& name) {
  const char* text = name.c_str();
  char* end = nullptr;
  const long compute = std::strtol(text, &end, 10);
  if (end == text || end[0] != 'g' || end[1] != '.') {
    return std::nullopt;
  }
  const char* gb_text = end + 2;
  const double gb = std::strtod(gb_text, &end);
  if (end == gb_text) {
    return std::nullopt;
  }
  return MigProfile{static_cast<int>(compute), gb};
}

double largest_mig_gb(const Gpu& g) {
  double largest_gb = 0;
  if (g.mig) {
    for (const auto& p : g.mig->profiles) {
      if (const auto m = parse_mig_profile(p)) {
        largest_gb = std::max(largest_gb, m->gb);
      }
    }
  }
  return largest_gb;
}

// A MIG profile of `g` as a GPU of its own: "3g.40gb" has 3 of the GPU's compute slices and its
// share of memory and bandwidth (NVIDIA's MIG user guide: memory slices carry their share of the
// bandwidth). The largest profile stands for the whole GPU's memory.
std::optional<Gpu> mig_slice(const Gpu& g,
                             const std::string& profile,
                             const MigProfile& parsed,
                             double largest_gb,
                             bool priced) {
  if (!g.mig || g.mig->max_instances < 1) {
    return std::nullopt;
  }
  const int compute = parsed.compute;
  const double gb = parsed.gb;
  if (gb <= 0 || largest_gb <= 0 || compute >= g.mig->max_instances) {
    return std::nullopt; // the whole GPU is not a smaller shape
  }
  const double memory_share = gb / largest_gb;
  const double compute_share = static_cast<double>(compute) / g.mig->max_instances;
  // Every figure but the sources: a slice's are derived from its GPU's (not copying the GPU's
  // sources is a good part of planning slices).
  Gpu s{static_cast<const GpuFigures&>(g), {}};
  s.name = g.name + " " + profile;
  s.memory = g.memory * memory_share;
  if (s.usable_memory) {
    s.usable_memory = *s.usable_memory * memory_share;
  }
  s.memory_bandwidth = g.memory_bandwidth * memory_share;
  for (auto& [precision, rate] : s.dense) {
    rate = rate * compute_share;
  }
  s.tdp = g.tdp * compute_share;
  s.gpu_link_kind = "none";
  s.nvlink_domain = 1;
  s.mig.reset();
  // Rented, a slice costs the share of the GPU it takes: the larger of its compute and memory
  // shares (a 1g.10gb slice of an 80 GB GPU: max(1/7, 1/8) = 1/7).
  const double share = std::max(compute_share, memory_share);
  if (priced) {
    for (auto& price : s.prices) {
      price.per_gpu = price.per_gpu * share;
      price.listed_per_gpu = price.listed_per_gpu * share;
      // A slice is rented by itself at its share (docs/catalog.md, "MIG slices"), not packed into
      // its GPU's instance shape.
      price.gpus_per_instance = 1;
      if (price.host) {
        price.host->per_instance = price.host->per_instance * share;
      }
    }
    if (s.purchase) {
      // Bought, a GPU holds floor(1 / share) such slices: each costs that fraction of it.
      const int per_gpu = std::max(1, static_cast<int>(std::floor(1.0 / share + 1e-9)));
      s.purchase->gpu = s.purchase->gpu / static_cast<double>(per_gpu);
      s.purchase->server_share = s.purchase->server_share / static_cast<double>(per_gpu);
      s.purchase->gpus_per_server *= per_gpu;
      s.purchase->units_per_gpu = per_gpu;
      s.purchase->unit_tdp = g.tdp / static_cast<double>(per_gpu);
    }
  } else {
    s.prices.clear();
    s.purchase.reset();
  }
  return s;
}

} // namespace detail

} // namespace rightsize
