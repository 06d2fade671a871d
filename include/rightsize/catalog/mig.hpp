#pragma once

// MIG slices as GPUs of their own: a profile of a GPU's MIG list ("3g.40gb") made into a Gpu with
// its share of the GPU's compute, memory, bandwidth and price, as plan searches slices and
// observe recommends them. The rules: docs/plan.md, "MIG slices as candidates".

#include <rightsize/catalog/catalog.hpp>

#include <optional>
#include <string>

namespace rightsize {

// A MIG profile of `g` as a GPU of its own ("3g.40gb": 3 compute slices, its share of memory and
// bandwidth), priced at its share when `priced` (else without prices or purchase); nullopt for
// the whole GPU, a GPU without MIG or a profile name that does not read.
std::optional<Gpu> mig_slice(const Gpu& g, const std::string& profile, bool priced);

namespace detail {

// A MIG profile name, "3g.40gb": compute slices and memory in GB; nullopt when not of that form.
struct MigProfile {
  int compute = 0;
  double gb = 0;
};
// Reads `name` as sscanf(name, "%dg.%lfgb") would (strtol, then strtod), without sscanf's cost.
std::optional<MigProfile> parse_mig_profile(const std::string& name);
// The memory of `g`'s largest MIG profile in GB, which stands for the whole GPU's memory; 0 when
// it has none that reads.
double largest_mig_gb(const Gpu& g);
// mig_slice with `profile` read (`parsed`) and largest_mig_gb(g) known: a plan of slices reads
// each of a GPU's profiles once, not once for each of its slices.
std::optional<Gpu> mig_slice(const Gpu& g,
                             const std::string& profile,
                             const MigProfile& parsed,
                             double largest_gb,
                             bool priced);

} // namespace detail

} // namespace rightsize
