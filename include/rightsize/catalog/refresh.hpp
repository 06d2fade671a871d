#pragma once

// `rightsize catalog refresh`: a provider's public price data read into a dated catalog overlay
// of GPU instance prices (docs/catalog.md, "Fresh prices"). Azure's Retail Prices API, page by
// page; AWS's EC2 price list offer file (CSV) of one region, streamed row by row, never held whole.
// Rows map to catalog GPUs through the instance table (instances.hpp). The fetching is the
// caller's (a Fetch: the CLI gives libcurl's, tests a replay): this stage reads no network.
//
// Nothing partial: every page is read and every row checked before an overlay exists; a fault
// (an HTTP error, a truncated body, a renamed field, no GPU price at all) is an InputError naming
// the URL, and the caller writes nothing.

#include <rightsize/catalog/instances.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

enum class PriceApi { azure, aws };

struct RefreshRequest {
  PriceApi api = PriceApi::azure;
  std::string region;   // "eastus", "us-east-1"; empty: the API's default (default_region)
  std::string base_url; // empty: the provider's public endpoint (default_base_url)
  std::string today;    // YYYY-MM-DD: the retrieval date prices carry
};

// Streams the body of `url` to the sink, chunk by chunk; throws InputError naming the URL.
using Fetch =
    std::function<void(const std::string& url, const std::function<void(std::string_view)>& sink)>;

// One provider price, per instance-hour, as read.
struct InstancePrice {
  std::string instance;
  std::string kind; // on_demand, spot, committed_1y, committed_3y
  double usd_per_instance_hour = 0;
  std::string note; // what the row said: "Linux, shared tenancy, us-east-1"
};

struct RefreshResult {
  nlohmann::ordered_json overlay; // a catalog overlay: "extends": "bundled"
  std::vector<InstancePrice> prices;
  std::vector<std::string> urls;     // every URL read, in order
  std::string as_of;                 // the date the prices carry
  bool as_of_stated = false;         // the source states it (AWS's Publication Date)
  std::vector<std::string> unpriced; // shapes of the table the source had no price for
};

std::string default_region(PriceApi api);
std::string default_base_url(PriceApi api);
// "Azure", "AWS": the provider as the catalog spells it.
std::string provider_name(PriceApi api);

RefreshResult
refresh_prices(const InstanceTable& table, const RefreshRequest& request, const Fetch& fetch);

// The parsers, on their own for tests and fuzzing. One page of Azure's Retail Prices API: the
// prices of listed shapes, and the next page's URL (empty at the end). `where` is the page's URL.
struct AzurePage {
  std::vector<InstancePrice> prices;
  std::string next_page;
  int items = 0;
};
AzurePage parse_azure_page(std::string_view body,
                           const std::string& where,
                           const InstanceTable& table,
                           const std::string& region);

// AWS's offer file CSV, fed in chunks as it arrives: the metadata lines, the header (its
// columns checked), then rows kept when they price a listed shape, Linux, shared tenancy.
class AwsOfferReader {
public:
  AwsOfferReader(const InstanceTable& table, std::string where, std::string region);
  void feed(std::string_view chunk);
  // Ends the file: checks it had a header and ended on a row boundary.
  void finish();
  [[nodiscard]] const std::vector<InstancePrice>& prices() const { return m_prices; }
  [[nodiscard]] const std::string& publication_date() const { return m_published; }
  [[nodiscard]] long long rows() const { return m_rows; }

private:
  void end_field();
  void end_record();
  void header(const std::vector<std::string>& fields);
  void row(const std::vector<std::string>& fields);

  const InstanceTable& m_table;
  std::string m_where;
  std::string m_region;
  std::vector<std::string> m_record;
  std::string m_field;
  bool m_quoted = false;     // inside a quoted field
  bool m_quote_seen = false; // the previous byte closed a quote (or is the first of "")
  bool m_record_open = false;
  long long m_line = 1;
  long long m_rows = 0;
  std::vector<int> m_columns; // index of each needed column in the header
  bool m_have_header = false;
  std::string m_published;
  std::vector<InstancePrice> m_prices;
};

} // namespace rightsize
