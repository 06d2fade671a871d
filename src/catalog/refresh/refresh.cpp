// A provider's prices fetched, read and written as a catalog overlay. refresh.hpp;
// docs/catalog.md, "Fresh prices".

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/refresh.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace rightsize {

std::string default_region(PriceApi api) {
  return api == PriceApi::azure ? "eastus" : "us-east-1";
}

std::string default_base_url(PriceApi api) {
  return api == PriceApi::azure ? "https://prices.azure.com"
                                : "https://pricing.us-east-1.amazonaws.com";
}

std::string provider_name(PriceApi api) {
  return api == PriceApi::azure ? "Azure" : "AWS";
}

namespace {

// At most this many pages of the Retail Prices API (100 items each at most by the API's
// default): a server that pages forever is an error, not a hang.
constexpr int k_max_pages = 200;

// A page size that stays small however the server answers.
constexpr std::size_t k_max_page_bytes = std::size_t{64} << 20;

// A URL for messages: without any user:password@, at most 200 characters (a Retail Prices URL
// carries a filter of every listed VM size), as the HTTP side names them (net::shown_url).
std::string shown(const std::string& url) {
  std::string out = url;
  if (const auto scheme = out.find("://"); scheme != std::string::npos) {
    const auto host = scheme + 3;
    const auto end = std::min(out.find_first_of("/?#", host), out.size());
    if (const auto at = out.substr(host, end - host).rfind('@'); at != std::string::npos) {
      out.erase(host, at + 1);
    }
  }
  if (out.size() > 200) {
    std::size_t cut = 200;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) {
      --cut;
    }
    out = out.substr(0, cut) + "...";
  }
  return out;
}

bool valid_region(const std::string& region) {
  return !region.empty() && region.size() <= 40 &&
         std::all_of(region.begin(), region.end(), [](unsigned char c) {
           return std::islower(c) != 0 || std::isdigit(c) != 0 || c == '-';
         });
}

std::string without_trailing_slash(std::string url) {
  while (!url.empty() && url.back() == '/') {
    url.pop_back();
  }
  return url;
}

// scheme://host[:port] of a URL, to keep a next page on the server asked.
std::string origin_of(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) {
    return "";
  }
  const auto end = url.find_first_of("/?#", scheme + 3);
  return url.substr(0, end == std::string::npos ? url.size() : end);
}

std::string
azure_first_page(const InstanceTable& table, const std::string& base, const std::string& region) {
  // Only the listed VM sizes of the region: one request per few pages instead of the whole
  // Virtual Machines catalog (about 500,000 items).
  std::string names;
  for (const auto& s : table.shapes) {
    if (s.provider == "Azure") {
      names += fmt::format("{}armSkuName eq '{}'", names.empty() ? "" : " or ", s.name);
    }
  }
  const std::string filter = fmt::format(
      "serviceName eq 'Virtual Machines' and armRegionName eq '{}' and ({})", region, names);
  std::string escaped;
  for (const char c : filter) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      escaped += c;
    } else {
      escaped += fmt::format("%{:02X}", u);
    }
  }
  return base + "/api/retail/prices?api-version=2023-01-01-preview&$filter=" + escaped;
}

std::vector<InstancePrice> read_azure(const InstanceTable& table,
                                      const RefreshRequest& r,
                                      const std::string& base,
                                      const Fetch& fetch,
                                      RefreshResult& out) {
  std::vector<InstancePrice> prices;
  std::string url = azure_first_page(table, base, r.region);
  const std::string origin = origin_of(url);
  for (int page = 1; !url.empty(); ++page) {
    if (page > k_max_pages) {
      throw InputError(shown(out.urls.back()),
                       fmt::format("more than {} pages: the API pages without end", k_max_pages));
    }
    if (origin_of(url) != origin) {
      throw InputError(shown(out.urls.back()),
                       "NextPageLink points to another server (" + shown(origin_of(url)) + ")");
    }
    out.urls.push_back(url);
    std::string body;
    fetch(url, [&](std::string_view chunk) {
      if (body.size() + chunk.size() > k_max_page_bytes) {
        throw InputError(shown(url),
                         fmt::format("a page larger than {} MiB", k_max_page_bytes >> 20));
      }
      body.append(chunk);
    });
    AzurePage p = parse_azure_page(body, shown(url), table, r.region);
    prices.insert(prices.end(), p.prices.begin(), p.prices.end());
    if (!p.next_page.empty() && p.next_page == url) {
      throw InputError(shown(url), "NextPageLink is the page itself");
    }
    url = p.next_page;
  }
  out.as_of = r.today;
  out.as_of_stated = false;
  return prices;
}

std::vector<InstancePrice> read_aws(const InstanceTable& table,
                                    const RefreshRequest& r,
                                    const std::string& base,
                                    const Fetch& fetch,
                                    RefreshResult& out) {
  const std::string url =
      fmt::format("{}/offers/v1.0/aws/AmazonEC2/current/{}/index.csv", base, r.region);
  out.urls.push_back(url);
  AwsOfferReader reader(table, shown(url), r.region);
  fetch(url, [&](std::string_view chunk) { reader.feed(chunk); });
  reader.finish();
  if (parse_date(reader.publication_date())) {
    out.as_of = reader.publication_date();
    out.as_of_stated = true;
  } else {
    out.as_of = r.today;
    out.as_of_stated = false;
  }
  return reader.prices();
}

// One price per (instance, kind): the lowest, when a source lists several.
std::vector<InstancePrice> lowest(std::vector<InstancePrice> prices) {
  std::map<std::pair<std::string, std::string>, InstancePrice> best;
  for (auto& p : prices) {
    const auto key = std::make_pair(p.instance, p.kind);
    const auto it = best.find(key);
    if (it == best.end() || p.usd_per_instance_hour < it->second.usd_per_instance_hour) {
      best[key] = std::move(p);
    }
  }
  std::vector<InstancePrice> out;
  for (auto& [key, p] : best) {
    out.push_back(std::move(p));
  }
  return out;
}

nlohmann::ordered_json overlay_of(const InstanceTable& table,
                                  const RefreshRequest& r,
                                  const RefreshResult& result,
                                  const std::string& base) {
  const std::string provider = provider_name(r.api);
  const std::string source = provider == "Azure" ? "AZURE_RETAIL_PRICES" : "AWS_PRICE_LIST";
  nlohmann::ordered_json overlay;
  overlay["schema_version"] = 1;
  overlay["extends"] = "bundled";
  overlay["catalog_version"] = fmt::format("refresh-{}-{}-{}", r.region, provider, r.today);
  overlay["description"] =
      fmt::format("{} GPU instance prices in {}, read by rightsize catalog refresh on {} from {}",
                  provider,
                  r.region,
                  r.today,
                  shown(base));
  overlay["sources"][source] = {
      {"name",
       provider == "Azure" ? "Azure Retail Prices API (public, unauthenticated)"
                           : "AWS Price List, EC2 offer file (public, unauthenticated)"},
      {"location", shown(result.urls.front())}, // never a user:password@ of --url
      {"kind", fmt::format("provider price list, region {}, retrieved {}", r.region, r.today)}};
  std::map<std::string, nlohmann::ordered_json> by_gpu;
  for (const auto& p : result.prices) {
    const InstanceShape* s = table.find(provider, p.instance);
    const double per_gpu = std::round(p.usd_per_instance_hour / s->gpus * 1e6) / 1e6;
    nlohmann::ordered_json price{
        {"provider", provider},
        {"kind", p.kind},
        {"usd_per_gpu_hour", per_gpu},
        {"includes", "instance"},
        {"instance", s->name},
        {"gpus_per_instance", s->gpus},
        {"as_of", result.as_of},
        {"as_of_kind", result.as_of_stated ? "stated" : "retrieved"},
        {"source", source},
        {"note",
         fmt::format(
             "${:.4f}/h per instance ({}), {}", p.usd_per_instance_hour, s->describe(), p.note)}};
    by_gpu[s->gpu].push_back(std::move(price));
  }
  overlay["gpus"] = nlohmann::ordered_json::array();
  for (auto& [gpu, prices] : by_gpu) {
    overlay["gpus"].push_back({{"name", gpu}, {"prices", std::move(prices)}});
  }
  return overlay;
}

} // namespace

RefreshResult
refresh_prices(const InstanceTable& table, const RefreshRequest& request, const Fetch& fetch) {
  RefreshRequest r = request;
  if (r.region.empty()) {
    r.region = default_region(r.api);
  }
  if (!valid_region(r.region)) {
    throw InputError("--region",
                     fmt::format("\"{}\" is not a region name (lower-case letters, digits and "
                                 "dashes: {})",
                                 r.region,
                                 default_region(r.api)));
  }
  const std::string base =
      without_trailing_slash(r.base_url.empty() ? default_base_url(r.api) : r.base_url);
  const std::string provider = provider_name(r.api);
  if (std::none_of(table.shapes.begin(), table.shapes.end(), [&](const InstanceShape& s) {
        return s.provider == provider;
      })) {
    throw InputError(table.file, "lists no " + provider + " instance shape to price");
  }
  RefreshResult out;
  out.prices = lowest(r.api == PriceApi::azure ? read_azure(table, r, base, fetch, out)
                                               : read_aws(table, r, base, fetch, out));
  if (out.prices.empty()) {
    throw InputError(shown(out.urls.front()),
                     fmt::format("no price of a GPU instance that {} lists for {} in {}: "
                                 "nothing to write",
                                 table.file,
                                 provider,
                                 r.region));
  }
  std::set<std::string> priced;
  for (const auto& p : out.prices) {
    priced.insert(p.instance);
  }
  for (const auto& s : table.shapes) {
    if (s.provider == provider && priced.count(s.name) == 0) {
      out.unpriced.push_back(s.name);
    }
  }
  out.overlay = overlay_of(table, r, out, base);
  return out;
}

} // namespace rightsize
