// Provider price lists (rightsize catalog refresh, docs/catalog.md "Fresh prices"): an input that
// starts with '{' is a page of Azure's Retail Prices API, read against the bundled instance table
// (and, as a whole, as an instance table itself); any other an AWS EC2 offer file, fed to the
// streaming reader in chunks whose sizes the input's first byte picks. No input may crash, hang or
// throw anything but an input error.

#include "fuzz_common.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/instances.hpp>
#include <rightsize/catalog/refresh.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace {

struct World {
  rightsize::Catalog catalog;
  rightsize::InstanceTable table;
};

const World& world() {
  static const World w = [] {
    World x;
    x.catalog = rightsize::load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    x.table =
        rightsize::load_instances(std::string(RIGHTSIZE_DATA_DIR) + "/instances.json", x.catalog);
    return x;
  }();
  return w;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const World& w = world();
  const std::string_view text = rightsize::fuzz::as_text(data, size);
  if (!text.empty() && text.front() == '{') {
    rightsize::fuzz::expect_input_errors_only(
        [&] { (void)rightsize::parse_azure_page(text, "page", w.table, "eastus"); });
    rightsize::fuzz::expect_input_errors_only([&] {
      const auto json = nlohmann::json::parse(text, nullptr, false);
      if (!json.is_discarded()) {
        (void)rightsize::parse_instances(json, "instances.json", w.catalog);
      }
    });
    return 0;
  }
  const std::size_t chunk = text.empty() ? 1 : 1 + static_cast<unsigned char>(text.front()) % 64;
  rightsize::fuzz::expect_input_errors_only([&] {
    rightsize::AwsOfferReader reader(w.table, "index.csv", "us-east-1");
    for (std::size_t at = 0; at < text.size(); at += chunk) {
      reader.feed(text.substr(at, chunk));
    }
    reader.finish();
  });
  return 0;
}
