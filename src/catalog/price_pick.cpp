// The price a GPU is paid at, and its label. docs/catalog.md, "Choosing prices".

#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

namespace rightsize {

const Price*
pick_price(const Gpu& g, const std::string& kind, const std::optional<std::string>& provider) {
  const Price* best = nullptr;
  for (const auto& p : g.prices) {
    if (p.kind != kind) {
      continue;
    }
    if (provider && p.provider != *provider) {
      continue;
    }
    if (best == nullptr || p.per_gpu < best->per_gpu) {
      best = &p;
    }
  }
  return best;
}

std::string cloud_price_label(const Price& p) {
  return fmt::format("{} {} {} ({} {})",
                     format_usd_per_hour(p.per_gpu),
                     p.provider,
                     p.kind,
                     p.as_of_stated ? "as of" : "retrieved",
                     p.as_of);
}

} // namespace rightsize
