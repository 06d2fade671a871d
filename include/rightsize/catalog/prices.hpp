#pragma once

// Names of providers and price kinds, resolved against the catalog the way GPU names are
// (Catalog::resolve): case-insensitively, with did-you-mean suggestions. A plan that asks for
// prices the catalog does not have at all is the user's input to fix (exit 2), not a workload
// that no GPU can serve (exit 3); docs/catalog.md, "Prices".

#include <rightsize/catalog/catalog.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// The price kinds a catalog may list, in the order messages name them.
const std::vector<std::string>& price_kind_names();

// The providers with at least one price in `catalog`, in its own spelling, sorted
// case-insensitively, each once.
std::vector<std::string> providers(const Catalog& catalog);

// The kinds of the prices in `catalog` (only `provider`'s when given), in price_kind_names()
// order.
std::vector<std::string> price_kinds(const Catalog& catalog,
                                     const std::optional<std::string>& provider = std::nullopt);

// The catalog's spelling of the provider a person typed ("aws", "core-weave" -> "AWS",
// "CoreWeave"): letters and digits compared case-insensitively, as GPU names are. An unknown
// provider throws InputError at `where` ("--provider" or "spec.json:/deployment/provider"),
// listing the known ones with a did-you-mean.
std::string
resolve_provider(const Catalog& catalog, const std::string& name, const std::string& where);

// "on_demand" for "On-Demand", "on_demand" or "ondemand"; unknown kinds throw InputError at
// `where` with a did-you-mean.
std::string resolve_price_kind(const std::string& name, const std::string& where);

// Throws InputError at `where` when the catalog has no price of `kind` at all (or none from
// `provider`, a name already resolved): a data gap to fill with --catalog FILE, which would
// otherwise reject every GPU as "no price". Says which kinds the catalog does have.
void check_price_kind(const Catalog& catalog,
                      const std::string& kind,
                      const std::optional<std::string>& provider,
                      const std::string& where);

} // namespace rightsize
