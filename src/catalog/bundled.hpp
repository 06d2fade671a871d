#pragma once

// Inside the catalog stage: data/gpus.json, data/engines.json and the published measurements
// (data/published/: the index and each model's results table) compiled into the binary
// (core/bundle.hpp; docs/catalog.md, "How the bundled data is loaded"). At build time
// rightsize_bundle_data (bundle/) loads them through the normal validating loaders and writes
// bundled_data.cpp. Not a public header.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/core/bundle.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::detail {

// Defined in the generated bundled_data.cpp; the generator links a version without data.
BundledFile bundled_catalog_file();
BundledFile bundled_engines_file();
BundledFile bundled_published_index_file();
// data/deploy.json's text alone (read by load_gpu_products and the deploy stage, which parse it
// each time): `value` is empty.
BundledFile bundled_deploy_file();
// data/instances.json's text alone (load_instances parses it each time).
BundledFile bundled_instances_file();
// The digest (PublishedData::digest) of the embedded index, whose tables are embedded with it.
std::string_view bundled_published_index_digest();
// The results table of the embedded index's model `model`; empty when none is embedded.
BundledFile bundled_published_table(std::string_view model);

// The embedded value when `text`, read from `file`, is byte for byte the embedded file; nullopt
// otherwise. `file` takes the place of the build's path wherever the value names its file
// (Catalog::files, EngineSupport::files, EngineFormatRow::where), as a parse of `file` would.
// CatalogDetail::figures leaves every Gpu::provenance empty.
std::optional<Catalog> bundled_catalog(std::string_view text,
                                       const std::string& file,
                                       CatalogDetail wanted = CatalogDetail::sources);
std::optional<EngineSupport> bundled_engine_support(std::string_view text, const std::string& file);
// Each model's results_file is resolved beside `file`, as a parse of `file` would.
std::optional<PublishedData> bundled_published_index(std::string_view text,
                                                     const std::string& file);
// The rows of `model`'s table when `data` is the embedded index (by its digest) and `text` is
// byte for byte that model's embedded table; nullopt otherwise.
std::optional<std::vector<PublishedResult>>
bundled_published_results(const PublishedData& data, std::string_view model, std::string_view text);

// A compact binary form of the loaded values: every field but those naming the file read, which
// the deserializers set from `file`. Doubles keep their bits, so a value comes back identical.
// Malformed input (never produced by serialize_*) throws InternalError.
std::string serialize_catalog(const Catalog& catalog);
Catalog deserialize_catalog(std::string_view blob,
                            const std::string& file,
                            CatalogDetail wanted = CatalogDetail::sources);
// `file` is the path the value was loaded from: each row's `where` is stored after it.
std::string serialize_engine_support(const EngineSupport& support, const std::string& file);
EngineSupport deserialize_engine_support(std::string_view blob, const std::string& file);
// The index without its results: each model's results_file relative to the index's folder.
std::string serialize_published_index(const PublishedData& data);
PublishedData deserialize_published_index(std::string_view blob, const std::string& file);
std::string serialize_published_results(const std::vector<PublishedResult>& results);
std::vector<PublishedResult> deserialize_published_results(std::string_view blob);
// Only the rows `keep` accepts, the others read past without being copied.
std::vector<PublishedResult>
deserialize_published_results(std::string_view blob,
                              const std::function<bool(const PublishedResult&)>& keep);

} // namespace rightsize::detail
