// One page of Azure's Retail Prices API (https://prices.azure.com/api/retail/prices) read into the
// prices of listed instance shapes. refresh.hpp; the format and its sources: docs/catalog.md,
// "Fresh prices".

#include <rightsize/catalog/refresh.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace rightsize {

namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A string field of an item; a missing or mistyped one is the API's format changing.
std::string
text_of(const nlohmann::json& item, const char* key, const std::string& where, std::size_t index) {
  const auto it = item.find(key);
  if (it == item.end() || !it->is_string()) {
    throw InputError(where,
                     fmt::format("Items[{}] has no \"{}\" string: not a Retail Prices API answer "
                                 "rightsize reads (did the format change?)",
                                 index,
                                 key));
  }
  return it->get<std::string>();
}

double price_of(const nlohmann::json& item, const std::string& where, std::size_t index) {
  const auto it = item.find("retailPrice");
  if (it == item.end() || !it->is_number()) {
    throw InputError(where,
                     fmt::format("Items[{}] has no \"retailPrice\" number: not a Retail Prices "
                                 "API answer rightsize reads (did the format change?)",
                                 index));
  }
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || v > 1e7) {
    throw InputError(where, fmt::format("Items[{}].retailPrice: {} is not a price", index, v));
  }
  return v;
}

// The kind of a consumption or reservation row, and its price per hour; empty kind: not a
// price rightsize keeps (Windows, low priority, dev/test, another unit).
struct Kind {
  std::string kind;
  double per_hour = 0;
  std::string note;
};

Kind kind_of(const nlohmann::json& item, double price, const std::string& where, std::size_t i) {
  const std::string type = text_of(item, "type", where, i);
  const std::string sku = text_of(item, "skuName", where, i);
  const std::string product = text_of(item, "productName", where, i);
  const std::string unit = text_of(item, "unitOfMeasure", where, i);
  // Linux rows carry no OS marker; Windows ones end " Windows", with the same skuName. Low
  // Priority is not Spot; legacy Cloud Services and dedicated hosts are other products.
  if (product.rfind("Virtual Machines ", 0) != 0 || ends_with(product, " Windows") ||
      product.find("Dedicated") != std::string::npos ||
      product.find("Cloud Services") != std::string::npos || ends_with(sku, " Low Priority")) {
    return {};
  }
  if (type == "Consumption") {
    if (unit != "1 Hour") {
      return {};
    }
    const bool spot = ends_with(sku, " Spot");
    return {spot ? "spot" : "on_demand", price, spot ? "Spot, Linux" : "pay as you go, Linux"};
  }
  if (type == "Reservation") {
    // A reservation's retailPrice is the whole term's, paid over it: per hour, / (8760 x years).
    const auto term = item.find("reservationTerm");
    if (term == item.end() || !term->is_string()) {
      throw InputError(where,
                       fmt::format("Items[{}] is a Reservation without a reservationTerm", i));
    }
    const std::string t = term->get<std::string>();
    const int years = t == "1 Year" ? 1 : t == "3 Years" ? 3 : 0;
    if (years == 0) {
      return {};
    }
    return {years == 1 ? "committed_1y" : "committed_3y",
            price / (8760.0 * years),
            fmt::format("{}-year reservation, ${:.0f} for the term, Linux", years, price)};
  }
  return {};
}

} // namespace

AzurePage parse_azure_page(std::string_view body,
                           const std::string& where,
                           const InstanceTable& table,
                           const std::string& region) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    throw InputError(where,
                     fmt::format("the answer ({} bytes) is not a JSON object: truncated, or not "
                                 "the Retail Prices API",
                                 body.size()));
  }
  const auto items = json.find("Items");
  if (items == json.end() || !items->is_array()) {
    throw InputError(where, "the answer has no \"Items\" array: not a Retail Prices API page");
  }
  const auto next = json.find("NextPageLink");
  if (next == json.end() || !(next->is_string() || next->is_null())) {
    throw InputError(where,
                     "the answer has no \"NextPageLink\" (a URL or null): not a Retail Prices "
                     "API page");
  }
  AzurePage page;
  page.next_page = next->is_string() ? next->get<std::string>() : "";
  page.items = static_cast<int>(items->size());
  for (std::size_t i = 0; i < items->size(); ++i) {
    const auto& item = (*items)[i];
    if (!item.is_object()) {
      throw InputError(where, fmt::format("Items[{}] is not an object", i));
    }
    const std::string sku = text_of(item, "armSkuName", where, i);
    const InstanceShape* shape = table.find("Azure", sku);
    if (shape == nullptr) {
      continue;
    }
    if (text_of(item, "armRegionName", where, i) != region) {
      continue;
    }
    const std::string currency = text_of(item, "currencyCode", where, i);
    if (currency != "USD") {
      throw InputError(
          where,
          fmt::format("Items[{}] is priced in {}, not USD (rightsize asks for USD)", i, currency));
    }
    const double price = price_of(item, where, i);
    const Kind k = kind_of(item, price, where, i);
    if (k.kind.empty() || price <= 0) {
      continue;
    }
    page.prices.push_back(
        InstancePrice{sku, k.kind, k.per_hour, fmt::format("{}, {}", k.note, region)});
  }
  return page;
}

} // namespace rightsize
