// catalog refresh (catalog/refresh.hpp): Azure's Retail Prices pages and AWS's offer file read
// into instance prices, the pages followed, and the overlay a plan loads. The network side runs
// against a replay server in tests/catalog/test_refresh.sh.

#include "fixtures.hpp"

#include <rightsize/catalog/instances.hpp>
#include <rightsize/catalog/refresh.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <map>

namespace rightsize {

namespace {

// A table of three shapes, against the bundled catalog.
const InstanceTable& table() {
  static const InstanceTable t = parse_instances(nlohmann::json::parse(R"({
    "schema_version": 1,
    "sources": {"T": {"name": "test", "location": "here"}},
    "instances": [
      {"provider": "Azure", "name": "Standard_ND96isr_H100_v5", "gpu": "H100", "gpus": 8,
       "vcpus": 96, "memory_gib": 1769.5, "network_gbit_per_s": 80, "source": "T"},
      {"provider": "AWS", "name": "p5.48xlarge", "gpu": "H100-SXM-80GB", "gpus": 8,
       "vcpus": 192, "memory_gib": 2048, "local_nvme_gb": 30400, "network_gbit_per_s": 3200,
       "source": "T"},
      {"provider": "AWS", "name": "g5.12xlarge", "gpu": "A10G", "gpus": 4, "vcpus": 48,
       "memory_gib": 192, "local_nvme_gb": 3800, "network_gbit_per_s": 40, "source": "T"}
    ]})"),
                                                 "instances.json",
                                                 test::catalog());
  return t;
}

// One item of the Retail Prices API with every key, in the API's order.
nlohmann::json azure_item(const std::string& sku_name,
                          const std::string& product,
                          double price,
                          const std::string& type = "Consumption",
                          const std::string& term = "") {
  nlohmann::ordered_json i;
  i["currencyCode"] = "USD";
  i["tierMinimumUnits"] = 0.0;
  if (!term.empty()) {
    i["reservationTerm"] = term;
  }
  i["retailPrice"] = price;
  i["unitPrice"] = price;
  i["armRegionName"] = "eastus";
  i["location"] = "US East";
  i["effectiveStartDate"] = "2024-04-01T00:00:00Z";
  i["meterId"] = "00000000-0000-0000-0000-000000000001";
  i["meterName"] = sku_name;
  i["productId"] = "DZH318Z0TEST";
  i["skuId"] = "DZH318Z0TEST/0001";
  i["productName"] = product;
  i["skuName"] = sku_name;
  i["serviceName"] = "Virtual Machines";
  i["serviceId"] = "DZH313Z7MMC8";
  i["serviceFamily"] = "Compute";
  i["unitOfMeasure"] = "1 Hour";
  i["type"] = type;
  i["isPrimaryMeterRegion"] = true;
  i["armSkuName"] = "Standard_ND96isr_H100_v5";
  return nlohmann::json(i);
}

std::string azure_page(const std::vector<nlohmann::json>& items, const std::string& next) {
  nlohmann::json page{
      {"BillingCurrency", "USD"},
      {"CustomerEntityId", "Default"},
      {"CustomerEntityType", "Retail"},
      {"Items", items},
      {"NextPageLink", next.empty() ? nlohmann::json(nullptr) : nlohmann::json(next)},
      {"Count", items.size()}};
  return page.dump();
}

std::map<std::string, double> by_kind(const std::vector<InstancePrice>& prices) {
  std::map<std::string, double> out;
  for (const auto& p : prices) {
    out[p.instance + " " + p.kind] = p.usd_per_instance_hour;
  }
  return out;
}

const std::string k_product = "Virtual Machines NDsr H100 v5 Series";

// The offer file's metadata lines and a header with the columns read (and others between).
const std::string k_aws_head =
    "\"FormatVersion\",\"v1.0\"\n"
    "\"Disclaimer\",\"This pricing list is for informational purposes only.\"\n"
    "\"Publication Date\",\"2025-09-12T22:53:08Z\"\n"
    "\"Version\",\"20250912225308\"\n"
    "\"OfferCode\",\"AmazonEC2\"\n"
    "\"SKU\",\"TermType\",\"PriceDescription\",\"Unit\",\"PricePerUnit\",\"Currency\","
    "\"LeaseContractLength\",\"PurchaseOption\",\"OfferingClass\",\"Product Family\","
    "\"Instance Type\",\"Tenancy\",\"Operating System\",\"License Model\",\"CapacityStatus\","
    "\"MarketOption\",\"Pre Installed S/W\",\"Region Code\"\n";

std::string aws_row(const std::string& instance,
                    const std::string& term,
                    const std::string& price,
                    const std::string& extra = "") {
  // extra: "tenancy=Dedicated", "os=Windows", "market=CapacityBlock", "lease=1yr", "option=..."
  std::map<std::string, std::string> f{{"tenancy", "Shared"},
                                       {"os", "Linux"},
                                       {"market", "OnDemand"},
                                       {"lease", ""},
                                       {"option", ""},
                                       {"class", ""},
                                       {"unit", "Hrs"},
                                       {"region", "us-east-1"}};
  std::size_t start = 0;
  while (start < extra.size()) {
    const auto end = extra.find(';', start);
    const std::string kv = extra.substr(start, end == std::string::npos ? end : end - start);
    f[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    start = end == std::string::npos ? extra.size() : end + 1;
  }
  const auto q = [](const std::string& v) { return v.empty() ? v : "\"" + v + "\""; };
  return q("SKU1") + "," + q(term) + "," + q("$" + price + " per \"\"thing\"\", Linux") + "," +
         q(f["unit"]) + "," + q(price) + "," + q("USD") + "," + q(f["lease"]) + "," +
         q(f["option"]) + "," + q(f["class"]) + "," + q("Compute Instance") + "," + q(instance) +
         "," + q(f["tenancy"]) + "," + q(f["os"]) + "," + q("No License required") + "," +
         q("Used") + "," + q(f["market"]) + "," + q("NA") + "," + q(f["region"]) + "\n";
}

} // namespace

TEST_CASE("refresh: an Azure page keeps the Linux prices of listed sizes, per hour",
          "[catalog][refresh]") {
  const std::string page = azure_page(
      {azure_item("ND96isr H100 v5", k_product, 98.32),
       azure_item("ND96isr H100 v5", k_product + " Windows", 102.736),
       azure_item("ND96isr H100 v5 Spot", k_product, 18.169536),
       azure_item("ND96isr H100 v5 Low Priority", k_product, 41.094),
       azure_item("ND96isr H100 v5", k_product, 98.32, "DevTestConsumption"),
       azure_item("ND96isr H100 v5", "NDsr H100 v5 Series Cloud Services", 90.0),
       azure_item("ND96isr H100 v5", k_product, 8760.0 * 60, "Reservation", "1 Year"),
       azure_item("ND96isr H100 v5", k_product, 8760.0 * 3 * 40, "Reservation", "3 Years"),
       azure_item("ND96isr H100 v5", k_product, 123.0, "Reservation", "5 Years")},
      "https://prices.azure.com/api/retail/prices?$skip=100");
  const AzurePage p = parse_azure_page(page, "URL", table(), "eastus");
  CHECK(p.items == 9);
  CHECK(p.next_page == "https://prices.azure.com/api/retail/prices?$skip=100");
  const auto prices = by_kind(p.prices);
  REQUIRE(prices.size() == 4);
  CHECK(prices.at("Standard_ND96isr_H100_v5 on_demand") == Approx(98.32));
  CHECK(prices.at("Standard_ND96isr_H100_v5 spot") == Approx(18.169536));
  // A reservation's retailPrice is the whole term's.
  CHECK(prices.at("Standard_ND96isr_H100_v5 committed_1y") == Approx(60.0));
  CHECK(prices.at("Standard_ND96isr_H100_v5 committed_3y") == Approx(40.0));
  // Another region, or a size the table does not list, is skipped.
  CHECK(parse_azure_page(page, "URL", table(), "westus").prices.empty());
}

TEST_CASE("refresh: what is not a Retail Prices page is one error naming the URL",
          "[catalog][refresh]") {
  const auto fails = [](const std::string& body, const std::string& says) {
    REQUIRE_THROWS_WITH(parse_azure_page(body, "https://p/api", table(), "eastus"),
                        Catch::StartsWith("https://p/api: ") && Catch::Contains(says));
  };
  fails("<html>sign in</html>", "is not a JSON object");
  fails(R"({"Items": [], "NextPageLink": null)", "is not a JSON object"); // truncated
  fails(R"({"items": [], "NextPageLink": null})", "no \"Items\" array");
  fails(R"({"Items": []})", "no \"NextPageLink\"");
  nlohmann::json renamed = azure_item("ND96isr H100 v5", k_product, 98.32);
  renamed["retail_price"] = renamed["retailPrice"];
  renamed.erase("retailPrice");
  fails(azure_page({renamed}, ""), "Items[0] has no \"retailPrice\" number");
  nlohmann::json euros = azure_item("ND96isr H100 v5", k_product, 98.32);
  euros["currencyCode"] = "EUR";
  fails(azure_page({euros}, ""), "priced in EUR, not USD");
  fails(azure_page({azure_item("ND96isr H100 v5", k_product, -1.0)}, ""), "is not a price");
}

TEST_CASE("refresh: AWS's offer file, fed in any chunks, keeps Linux shared on-demand and "
          "no-upfront standard reserved rows",
          "[catalog][refresh]") {
  const std::string file =
      k_aws_head + aws_row("p5.48xlarge", "OnDemand", "98.3200000000") +
      aws_row("p5.48xlarge", "OnDemand", "0.0000000000", "market=CapacityBlock") +
      aws_row("p5.48xlarge", "OnDemand", "104.3700000000", "os=Windows") +
      aws_row("p5.48xlarge", "OnDemand", "108.1500000000", "tenancy=Dedicated") +
      aws_row("p5.48xlarge",
              "Reserved",
              "61.9430000000",
              "lease=1yr;option=No Upfront;class=standard") +
      aws_row("p5.48xlarge",
              "Reserved",
              "42.2750000000",
              "lease=3yr;option=No Upfront;class=standard") +
      aws_row("p5.48xlarge",
              "Reserved",
              "519000",
              "lease=1yr;option=All Upfront;class=standard;unit=Quantity") +
      aws_row("g5.12xlarge", "OnDemand", "5.6720000000") +
      aws_row("m5.large", "OnDemand", "0.0960000000");
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, file.size()}) {
    AwsOfferReader reader(table(), "URL", "us-east-1");
    for (std::size_t at = 0; at < file.size(); at += chunk) {
      reader.feed(std::string_view(file).substr(at, chunk));
    }
    reader.finish();
    INFO("chunk " << chunk);
    CHECK(reader.publication_date() == "2025-09-12");
    CHECK(reader.rows() == 9);
    const auto prices = by_kind(reader.prices());
    REQUIRE(prices.size() == 4);
    CHECK(prices.at("p5.48xlarge on_demand") == Approx(98.32));
    CHECK(prices.at("p5.48xlarge committed_1y") == Approx(61.943));
    CHECK(prices.at("p5.48xlarge committed_3y") == Approx(42.275));
    CHECK(prices.at("g5.12xlarge on_demand") == Approx(5.672));
  }
}

TEST_CASE("refresh: an offer file that is not one, renamed or cut short is one error",
          "[catalog][refresh]") {
  const auto fails = [](const std::string& text, const std::string& says) {
    AwsOfferReader reader(table(), "https://p/index.csv", "us-east-1");
    REQUIRE_THROWS_WITH(
        [&] {
          reader.feed(text);
          reader.finish();
        }(),
        Catch::StartsWith("https://p/index.csv: ") && Catch::Contains(says));
  };
  fails("<html>denied</html>\n", "no \"SKU\",... header");
  std::string renamed = k_aws_head;
  renamed.replace(renamed.find("\"PricePerUnit\""), 14, "\"Price Per Unit\"");
  fails(renamed, "the header has no \"PricePerUnit\" column");
  const std::string row = aws_row("p5.48xlarge", "OnDemand", "98.32");
  fails(k_aws_head + row.substr(0, row.size() / 2), "fewer than the header's columns");
  fails(k_aws_head + row.substr(0, row.find("\"Compute") + 3), "ends inside a quoted field");
  fails(k_aws_head + aws_row("p5.48xlarge", "OnDemand", "98.3x"), "PricePerUnit \"98.3x\"");
  fails(k_aws_head + std::string(70 * 1024, 'x'), "longer than 64 KiB");
}

TEST_CASE("refresh: pages are followed to the end, on one server, into an overlay plan loads",
          "[catalog][refresh]") {
  const std::string base = "http://127.0.0.1:9";
  std::vector<std::string> asked;
  const auto serve = [&](const std::map<std::string, std::string>& pages) {
    return
        [&asked, pages](const std::string& url, const std::function<void(std::string_view)>& sink) {
          asked.push_back(url);
          const auto it = pages.find(url.find("$skip") == std::string::npos ? "first" : url);
          if (it == pages.end()) {
            throw InputError(url, "HTTP 404");
          }
          sink(it->second);
        };
  };
  const std::string second = base + "/api/retail/prices?$skip=100";
  RefreshRequest r;
  r.api = PriceApi::azure;
  r.base_url = base + "/";
  r.today = "2026-12-07";
  const RefreshResult out = refresh_prices(
      table(),
      r,
      serve(
          {{"first", azure_page({azure_item("ND96isr H100 v5", k_product, 98.32)}, second)},
           {second, azure_page({azure_item("ND96isr H100 v5 Spot", k_product, 18.169536)}, "")}}));
  REQUIRE(asked.size() == 2);
  CHECK(asked[0].rfind(base + "/api/retail/prices?api-version=2023-01-01-preview&$filter="
                              "serviceName%20eq%20%27Virtual%20Machines%27%20and%20armRegionName"
                              "%20eq%20%27eastus%27%20and%20%28armSkuName%20eq%20%27Standard_"
                              "ND96isr_H100_v5%27%29",
                       0) == 0);
  CHECK(out.prices.size() == 2);
  CHECK(out.as_of == "2026-12-07");
  CHECK_FALSE(out.as_of_stated);
  const auto& gpus = out.overlay.at("gpus");
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0].at("name") == "H100-SXM-80GB");
  const auto& od = gpus[0].at("prices")[0];
  CHECK(od.at("provider") == "Azure");
  CHECK(od.at("kind") == "on_demand");
  CHECK(od.at("usd_per_gpu_hour").get<double>() == Approx(12.29));
  CHECK(od.at("gpus_per_instance") == 8);
  CHECK(od.at("instance") == "Standard_ND96isr_H100_v5");
  // The overlay loads over the bundled catalog as `plan --catalog` loads it.
  const std::string path = "refresh-overlay-test.json";
  std::ofstream(path) << out.overlay.dump(2);
  const Catalog merged = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json", path);
  std::remove(path.c_str());
  const Gpu& h100 = merged.resolve("H100", "test");
  const auto azure = std::count_if(h100.prices.begin(), h100.prices.end(), [](const Price& p) {
    return p.provider == "Azure" && p.shape_stated && p.gpus_per_instance == 8;
  });
  CHECK(azure == 2);

  // A NextPageLink to itself, or to another server, is an error, not a loop or a redirect.
  asked.clear();
  const std::string self = base + "/api/retail/prices?$skip=100";
  CHECK_THROWS_WITH(
      refresh_prices(
          table(), r, serve({{"first", azure_page({}, self)}, {self, azure_page({}, self)}})),
      Catch::Contains("NextPageLink is the page itself"));
  CHECK_THROWS_WITH(
      refresh_prices(table(), r, serve({{"first", azure_page({}, "https://elsewhere/p?$skip=1")}})),
      Catch::Contains("NextPageLink points to another server"));
  // No price of a listed shape: nothing to write.
  CHECK_THROWS_WITH(refresh_prices(table(), r, serve({{"first", azure_page({}, "")}})),
                    Catch::Contains("no price of a GPU instance that instances.json lists for "
                                    "Azure in eastus: nothing to write"));
  r.region = "East US";
  CHECK_THROWS_WITH(refresh_prices(table(), r, serve({})),
                    Catch::StartsWith("--region: \"East US\" is not a region name"));
}

TEST_CASE("refresh: the AWS file's URL is the region's offer file", "[catalog][refresh]") {
  RefreshRequest r;
  r.api = PriceApi::aws;
  r.region = "us-east-2";
  r.base_url = "http://mirror";
  r.today = "2026-12-07";
  std::string asked;
  const RefreshResult out =
      refresh_prices(table(), r, [&](const std::string& url, const auto& sink) {
        asked = url;
        sink(k_aws_head);
        sink(aws_row("g5.12xlarge", "OnDemand", "5.6720000000", "region=us-east-2"));
        sink(aws_row("p5.48xlarge", "OnDemand", "98.3200000000")); // us-east-1's row
      });
  CHECK(asked == "http://mirror/offers/v1.0/aws/AmazonEC2/current/us-east-2/index.csv");
  // The file's Publication Date, stated; p5.48xlarge was not priced.
  CHECK(out.as_of == "2025-09-12");
  CHECK(out.as_of_stated);
  CHECK(out.unpriced == std::vector<std::string>{"p5.48xlarge"});
  CHECK(out.overlay.at("gpus")[0].at("prices")[0].at("usd_per_gpu_hour").get<double>() ==
        Approx(1.418));
}

} // namespace rightsize
