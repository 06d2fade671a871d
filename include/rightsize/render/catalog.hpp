#pragma once

// Rendering the catalog for `rightsize catalog list|show|validate`. Computing stays in catalog.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/instances.hpp>

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace rightsize {

struct CatalogView {
  const Catalog& catalog;
  std::string today; // YYYY-MM-DD, for stale-price flags
  long stale_days = 180;
  // The instance shapes (data/instances.json) that `show` describes prices with; may be null.
  const InstanceTable* instances = nullptr;
};

// "NVIDIA", "AMD", "Intel", "Google", "AWS": a catalog vendor as people write it.
std::string vendor_label(const std::string& vendor);

// The cheapest on-demand price, if any.
const Price* cheapest_on_demand(const Gpu& g);

// One GPU with SI units in the key names and a source for every field.
nlohmann::json gpu_to_json(const Gpu& g, const CatalogView& view);

void render_catalog_list_table(const CatalogView& view, std::ostream& out);
void render_catalog_list_json(const CatalogView& view, std::ostream& out);
void render_catalog_list_csv(const CatalogView& view, std::ostream& out);
void render_gpu_table(const Gpu& g, const CatalogView& view, std::ostream& out);
void render_catalog_summary(const CatalogView& view, std::ostream& out);

} // namespace rightsize
