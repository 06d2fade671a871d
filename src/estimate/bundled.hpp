#pragma once

// Inside the estimate stage: data/memory.json, data/efficiency.json and data/uncertainty.json
// compiled into the binary (core/bundle.hpp; docs/catalog.md, "How the bundled data is loaded").
// At build time rightsize_bundle_estimate_data (bundle/) loads them through the normal validating
// loaders and writes bundled_data.cpp; Constants::load, Efficiency::load and Uncertainty::load
// return the embedded value for a file whose bytes are the embedded text. Not a public header.

#include <rightsize/core/bundle.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace rightsize::detail {

// Defined in the generated bundled_data.cpp; the generator links a version without data.
BundledFile bundled_memory_file();
BundledFile bundled_efficiency_file();
BundledFile bundled_uncertainty_file();

// The embedded value when `text` is byte for byte the embedded file; nullopt otherwise.
std::optional<Constants> bundled_constants(std::string_view text);
std::optional<Efficiency> bundled_efficiency(std::string_view text);
std::optional<Uncertainty> bundled_uncertainty(std::string_view text);

// The values in the blob form of core/bundle.hpp; doubles keep their bits, so a value comes back
// identical. Malformed input (never produced by serialize_*) throws InternalError.
std::string serialize_constants(const Constants& constants);
Constants deserialize_constants(std::string_view blob);
std::string serialize_efficiency(const Efficiency& efficiency);
Efficiency deserialize_efficiency(std::string_view blob);
std::string serialize_uncertainty(const Uncertainty& uncertainty);
Uncertainty deserialize_uncertainty(std::string_view blob);

} // namespace rightsize::detail
