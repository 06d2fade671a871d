// AWS's EC2 price list offer file (CSV) of one region, read as it streams in: a small CSV state
// machine (quoted fields, "" escapes, newlines inside quotes), the metadata lines before the
// header, the columns rightsize needs found by name, and the rows of listed shapes kept.
// refresh.hpp; the format and its sources: docs/catalog.md, "Fresh prices".

#include <rightsize/catalog/refresh.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

namespace rightsize {

namespace {

// The columns read, by their header names in the offer file.
enum Column {
  c_term_type,
  c_unit,
  c_price,
  c_currency,
  c_lease,
  c_purchase_option,
  c_offering_class,
  c_product_family,
  c_instance_type,
  c_tenancy,
  c_os,
  c_license,
  c_preinstalled,
  c_capacity,
  c_count,
  // Optional: newer files have them, and then they must say OnDemand and the region.
  c_market_option = c_count,
  c_region_code,
  c_all
};

constexpr std::array<const char*, c_all> k_column_names{"TermType",
                                                        "Unit",
                                                        "PricePerUnit",
                                                        "Currency",
                                                        "LeaseContractLength",
                                                        "PurchaseOption",
                                                        "OfferingClass",
                                                        "Product Family",
                                                        "Instance Type",
                                                        "Tenancy",
                                                        "Operating System",
                                                        "License Model",
                                                        "Pre Installed S/W",
                                                        "CapacityStatus",
                                                        "MarketOption",
                                                        "Region Code"};

// A field longer than this is not an offer file (the longest, a disclaimer, is ~200 bytes).
constexpr std::size_t k_max_field = 64 * 1024;
constexpr std::size_t k_max_fields = 1024;

} // namespace

AwsOfferReader::AwsOfferReader(const InstanceTable& table, std::string where, std::string region)
    : m_table(table), m_where(std::move(where)), m_region(std::move(region)) {}

void AwsOfferReader::feed(std::string_view chunk) {
  for (const char c : chunk) {
    if (m_quoted) {
      if (c == '"') {
        m_quoted = false;
        m_quote_seen = true;
      } else {
        if (c == '\n') {
          ++m_line;
        }
        m_field += c;
      }
    } else if (c == '"') {
      if (m_quote_seen) {
        m_field += '"'; // "" inside a quoted field
      }
      m_quoted = true;
      m_quote_seen = false;
      m_record_open = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n') {
      end_record();
      ++m_line;
    } else if (c != '\r') {
      m_field += c;
      m_quote_seen = false;
      m_record_open = true;
    }
    if (m_field.size() > k_max_field) {
      throw InputError(m_where,
                       fmt::format("line {}: a field longer than {} KiB: not an EC2 offer file",
                                   m_line,
                                   k_max_field / 1024));
    }
  }
}

void AwsOfferReader::end_field() {
  if (m_record.size() >= k_max_fields) {
    throw InputError(
        m_where,
        fmt::format("line {}: more than {} fields: not an EC2 offer file", m_line, k_max_fields));
  }
  m_record.push_back(std::move(m_field));
  m_field.clear();
  m_quote_seen = false;
  m_record_open = true;
}

void AwsOfferReader::end_record() {
  if (!m_record_open && m_field.empty()) {
    return; // a blank line
  }
  end_field();
  std::vector<std::string> fields;
  fields.swap(m_record);
  m_record_open = false;
  if (!m_have_header) {
    if (!fields.empty() && fields[0] == "SKU") {
      header(fields);
    } else if (fields.size() >= 2 && fields[0] == "Publication Date") {
      m_published = fields[1].substr(0, 10);
    }
    if (m_line > 20 && !m_have_header) {
      throw InputError(m_where,
                       "no \"SKU\",... header in the first 20 lines: not an EC2 offer file (CSV)");
    }
    return;
  }
  row(fields);
}

void AwsOfferReader::header(const std::vector<std::string>& fields) {
  m_columns.assign(c_all, -1);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    for (std::size_t k = 0; k < c_all; ++k) {
      if (fields[i] == k_column_names[k]) {
        m_columns[k] = static_cast<int>(i);
      }
    }
  }
  for (std::size_t k = 0; k < c_count; ++k) {
    if (m_columns[k] < 0) {
      throw InputError(m_where,
                       fmt::format("line {}: the header has no \"{}\" column (did the offer "
                                   "file's format change?)",
                                   m_line,
                                   k_column_names[k]));
    }
  }
  m_have_header = true;
}

void AwsOfferReader::row(const std::vector<std::string>& fields) {
  ++m_rows;
  if (fields.size() <
      static_cast<std::size_t>(*std::max_element(m_columns.begin(), m_columns.end()) + 1)) {
    throw InputError(m_where,
                     fmt::format("line {}: {} fields, fewer than the header's columns "
                                 "(truncated?)",
                                 m_line,
                                 fields.size()));
  }
  const auto at = [&](Column c) -> const std::string& {
    return fields[static_cast<std::size_t>(m_columns[c])];
  };
  const auto optional_is = [&](Column c, const std::string& value) {
    return m_columns[c] < 0 || at(c) == value;
  };
  const InstanceShape* shape = m_table.find("AWS", at(c_instance_type));
  // Capacity Block rows (MarketOption CapacityBlock) are $0.00 twins of the on-demand ones.
  if (shape == nullptr || !optional_is(c_market_option, "OnDemand") ||
      !optional_is(c_region_code, m_region) ||
      at(c_product_family).rfind("Compute Instance", 0) != 0 || at(c_tenancy) != "Shared" ||
      at(c_os) != "Linux" || at(c_preinstalled) != "NA" || at(c_license) != "No License required" ||
      at(c_capacity) != "Used" || at(c_unit) != "Hrs") {
    return;
  }
  std::string kind;
  std::string note = "Linux, shared tenancy";
  if (at(c_term_type) == "OnDemand") {
    kind = "on_demand";
  } else if (at(c_term_type) == "Reserved" && at(c_purchase_option) == "No Upfront" &&
             at(c_offering_class) == "standard") {
    kind = at(c_lease) == "1yr" ? "committed_1y" : at(c_lease) == "3yr" ? "committed_3y" : "";
    note = fmt::format("{} standard reserved, no upfront, Linux", at(c_lease));
  }
  if (kind.empty()) {
    return;
  }
  if (at(c_currency) != "USD") {
    throw InputError(m_where,
                     fmt::format("line {}: priced in {}, not USD", m_line, at(c_currency)));
  }
  char* end = nullptr;
  const std::string& text = at(c_price);
  const double price = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(price) || price < 0 ||
      price > 1e7) {
    throw InputError(m_where,
                     fmt::format("line {}: PricePerUnit \"{}\" is not a price", m_line, text));
  }
  if (price <= 0) {
    return;
  }
  m_prices.push_back(
      InstancePrice{shape->name, kind, price, fmt::format("{}, {}", note, m_region)});
}

void AwsOfferReader::finish() {
  if (m_quoted) {
    throw InputError(
        m_where, fmt::format("line {}: the file ends inside a quoted field (truncated)", m_line));
  }
  if (m_record_open || !m_field.empty()) {
    end_record();
  }
  if (!m_have_header) {
    throw InputError(m_where, "no \"SKU\",... header: not an EC2 offer file (CSV)");
  }
}

} // namespace rightsize
