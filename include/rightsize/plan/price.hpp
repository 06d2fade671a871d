#pragma once

// The cloud price a deployment pays for a GPU, as plan picks it and estimate reports it.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/spec/spec.hpp>

#include <string>

namespace rightsize {

// The cheapest price of the deployment's kind (and provider, when set), or null.
const Price* pick_price(const Gpu& g, const Deployment& d);
// "$2.95/h Nebius on_demand (retrieved 2026-11-21)".
std::string cloud_price_label(const Price& p);

} // namespace rightsize
