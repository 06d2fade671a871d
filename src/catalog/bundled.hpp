#pragma once

// Inside the catalog stage: the bundled data files compiled into the binary (docs/catalog.md,
// "How the bundled data is loaded"). At build time rightsize_bundle_data (bundle/) loads
// data/gpus.json and data/engines.json through the normal validating loaders and writes
// bundled_data.cpp: each file's exact text and the loaded value, serialized. At run time a loader
// that reads a file whose bytes equal the embedded text returns the embedded value instead of
// parsing and validating the text again; any other file (edited data, an overlay) is parsed as
// before. Not a public header.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace rightsize::detail {

// One data file as the build embedded it. Both empty when the build could not load the file:
// it is then read at run time like any other, and reports its problems there.
struct BundledFile {
  std::string_view text;  // the file's bytes
  std::string_view value; // serialize_*() of what the loader made of them
};

// Defined in the generated bundled_data.cpp; the generator links a version without data.
BundledFile bundled_catalog_file();
BundledFile bundled_engines_file();

// The embedded value when `text`, read from `file`, is byte for byte the embedded file; nullopt
// otherwise. `file` takes the place of the build's path wherever the value names its file
// (Catalog::files, EngineSupport::files, EngineFormatRow::where), as a parse of `file` would.
std::optional<Catalog> bundled_catalog(std::string_view text, const std::string& file);
std::optional<EngineSupport> bundled_engine_support(std::string_view text, const std::string& file);

// A compact binary form of the loaded values: every field but those naming the file read, which
// the deserializers set from `file`. Doubles keep their bits, so a value comes back identical.
// Malformed input (never produced by serialize_*) throws InternalError.
std::string serialize_catalog(const Catalog& catalog);
Catalog deserialize_catalog(std::string_view blob, const std::string& file);
// `file` is the path the value was loaded from: each row's `where` is stored after it.
std::string serialize_engine_support(const EngineSupport& support, const std::string& file);
EngineSupport deserialize_engine_support(std::string_view blob, const std::string& file);

} // namespace rightsize::detail
