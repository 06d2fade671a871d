#pragma once

// The cloud price a GPU is paid at: the cheapest of a kind (and provider, when one is named), as
// plan costs a configuration, estimate reports it and observe prices what runs and what it
// recommends; and the label that names it in reports. docs/catalog.md, "Choosing prices".

#include <rightsize/catalog/catalog.hpp>

#include <optional>
#include <string>

namespace rightsize {

// The cheapest price of `g` of `kind` (on_demand, spot, committed), from `provider` when set
// (names as the catalog spells them: resolve_provider, resolve_price_kind); null when it has
// none. Points into g.prices.
const Price*
pick_price(const Gpu& g, const std::string& kind, const std::optional<std::string>& provider);
// "$2.95/h Nebius on_demand (retrieved 2026-11-21)": "as of" when the source states its date.
std::string cloud_price_label(const Price& p);

} // namespace rightsize
