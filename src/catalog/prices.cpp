// Resolving providers and price kinds against the catalog (docs/catalog.md, "Prices").

#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace rightsize {

namespace {

// "Core-Weave", "coreweave" and "CoreWeave" are the same provider, as "H100 SXM" and "h100-sxm"
// are the same GPU (catalog.cpp).
std::string squash(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// "a", "a and b", "a, b and c" (or "a, b or c").
std::string and_list(const std::vector<std::string>& items, const char* last = " and ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += i + 1 == items.size() ? last : ", ";
    }
    out += items[i];
  }
  return out;
}

} // namespace

const std::vector<std::string>& price_kind_names() {
  static const std::vector<std::string> names{
      "on_demand", "spot", "committed_1y", "committed_3y", "committed"};
  return names;
}

std::vector<std::string> providers(const Catalog& catalog) {
  std::vector<std::string> out;
  for (const auto& g : catalog.gpus) {
    for (const auto& p : g.prices) {
      if (std::find(out.begin(), out.end(), p.provider) == out.end()) {
        out.push_back(p.provider);
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    const auto ka = squash(a);
    const auto kb = squash(b);
    return ka != kb ? ka < kb : a < b;
  });
  return out;
}

std::vector<std::string> price_kinds(const Catalog& catalog,
                                     const std::optional<std::string>& provider) {
  std::vector<std::string> out;
  for (const auto& kind : price_kind_names()) {
    const bool listed = std::any_of(catalog.gpus.begin(), catalog.gpus.end(), [&](const Gpu& g) {
      return std::any_of(g.prices.begin(), g.prices.end(), [&](const Price& p) {
        return p.kind == kind && (!provider || p.provider == *provider);
      });
    });
    if (listed) {
      out.push_back(kind);
    }
  }
  return out;
}

std::string
resolve_provider(const Catalog& catalog, const std::string& name, const std::string& where) {
  const auto known = providers(catalog);
  if (std::find(known.begin(), known.end(), name) != known.end()) {
    return name;
  }
  const std::string key = squash(name);
  std::vector<std::string> same;
  std::copy_if(known.begin(), known.end(), std::back_inserter(same), [&](const std::string& p) {
    return !key.empty() && squash(p) == key;
  });
  if (same.size() == 1) {
    return same.front();
  }
  if (same.size() > 1) {
    throw InputError(where,
                     fmt::format("provider \"{}\" is ambiguous: the catalog spells it {}",
                                 name,
                                 and_list(same)));
  }
  if (known.empty()) {
    throw InputError(where,
                     fmt::format("unknown provider \"{}\": the catalog has no prices; add them "
                                 "with --catalog FILE (docs/catalog.md)",
                                 name));
  }
  throw InputError(where,
                   fmt::format("unknown provider \"{}\"{}; the catalog has prices from {}",
                               name,
                               did_you_mean(name, known),
                               and_list(known)));
}

std::string resolve_price_kind(const std::string& name, const std::string& where) {
  const std::string key = squash(name);
  for (const auto& kind : price_kind_names()) {
    if (squash(kind) == key) {
      return kind;
    }
  }
  throw InputError(where,
                   fmt::format("unknown price kind \"{}\"{}; expected {}",
                               name,
                               did_you_mean(name, price_kind_names()),
                               and_list(price_kind_names(), " or ")));
}

void check_price_kind(const Catalog& catalog,
                      const std::string& kind,
                      const std::optional<std::string>& provider,
                      const std::string& where) {
  const auto kinds = price_kinds(catalog, provider);
  if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) {
    return;
  }
  const std::string from = provider ? " from " + *provider : std::string();
  if (kinds.empty()) {
    throw InputError(where,
                     fmt::format("the catalog has no prices{}: add {} prices with --catalog FILE "
                                 "(docs/catalog.md)",
                                 from,
                                 kind));
  }
  throw InputError(where,
                   fmt::format("the catalog has no {} prices{}, only {}: add {} prices with "
                               "--catalog FILE (docs/catalog.md), or choose {}",
                               kind,
                               from,
                               and_list(kinds),
                               kind,
                               kinds.size() == 1 ? "that kind" : "one of those kinds"));
}

} // namespace rightsize
