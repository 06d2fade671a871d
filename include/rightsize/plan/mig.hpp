#pragma once

// MIG slices as GPUs of their own, as plan searches them and observe recommends them.

#include <rightsize/catalog/catalog.hpp>

#include <optional>
#include <string>

namespace rightsize {

// A MIG profile of `g` as a GPU of its own ("3g.40gb": 3 compute slices, its share of memory and
// bandwidth), priced at its share when `priced`; nullopt for the whole GPU or a bad profile.
std::optional<Gpu> mig_slice(const Gpu& g, const std::string& profile, bool priced);

} // namespace rightsize
