// Loading and validating the GPU catalog (docs/catalog.md).

#include "bundled.hpp"
#include "problems.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <set>
#include <string_view>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

using detail::Problems;

const std::vector<std::pair<std::string, TensorPrecision>>& precision_names() {
  static const std::vector<std::pair<std::string, TensorPrecision>> names{
      {"fp32", TensorPrecision::fp32},
      {"tf32", TensorPrecision::tf32},
      {"bf16", TensorPrecision::bf16},
      {"fp16", TensorPrecision::fp16},
      {"fp8", TensorPrecision::fp8},
      {"int8", TensorPrecision::int8},
      {"fp4", TensorPrecision::fp4}};
  return names;
}

// "H100 SXM", "h100-sxm" and "H100_SXM" are the same name.
std::string squash(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// squash(s) == key, without building squash(s): find() compares every name and alias of the
// catalog, and a plan looks its constrained GPUs up once per GPU.
bool squashes_to(const std::string& s, std::string_view key) {
  std::size_t matched = 0;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      continue;
    }
    if (matched == key.size() ||
        key[matched] != static_cast<char>(std::tolower(static_cast<unsigned char>(c)))) {
      return false;
    }
    ++matched;
  }
  return matched == key.size();
}

std::vector<std::string> precision_keys() {
  std::vector<std::string> keys;
  for (const auto& [name, p] : precision_names()) {
    keys.push_back(name);
  }
  return keys;
}

// A sparse figure listed as dense is the most common catalog mistake: rates must keep the
// ratios of the hardware (fp8 = 2 x bf16, bf16 = 2 x tf32, fp16 = bf16).
struct RateRatio {
  TensorPrecision hi;
  TensorPrecision lo;
  double lo_bound;
  double hi_bound;
  const char* expected;
};

constexpr std::array<RateRatio, 4> k_rate_ratios{{
    {TensorPrecision::fp8, TensorPrecision::bf16, 1.8, 2.2, "about 2x"},
    {TensorPrecision::bf16, TensorPrecision::tf32, 1.8, 2.2, "about 2x"},
    {TensorPrecision::fp16, TensorPrecision::bf16, 0.95, 1.05, "1x"},
    {TensorPrecision::fp4, TensorPrecision::fp8, 1.8, 3.2, "2x to 3x"},
}};

// Reads one entry of /gpus. Each field is read under its own guard, so that one entry reports
// all of its problems, in the order of the steps in read().
class GpuReader {
public:
  GpuReader(const FieldReader& r,
            const std::map<std::string, CatalogSource>& sources,
            Problems& problems)
      : m_r(r), m_sources(sources), m_problems(problems) {}

  Gpu read() {
    Gpu g;
    m_problems.guard([&] { reject_unknown_keys(); });
    read_identity(g);
    read_memory(g);
    m_problems.guard([&] { read_compute_rates(g); });
    m_problems.guard([&] { read_power(g); });
    read_interconnect(g);
    m_problems.guard([&] { read_mig(g); });
    m_problems.guard([&] { read_prices(g); });
    m_problems.guard([&] { read_purchase(g); });
    check_cross_fields(g);
    return g;
  }

private:
  void reject_unknown_keys() {
    m_r.reject_unknown({"name",
                        "aliases",
                        "vendor",
                        "architecture",
                        "generation",
                        "release_year",
                        "form_factor",
                        "memory_gib",
                        "usable_memory_mib",
                        "memory_bandwidth_gb_per_s",
                        "dense_tflop_per_s",
                        "sparse_tflop_per_s",
                        "tdp_watts",
                        "host_link",
                        "gpu_link",
                        "nvlink_domain",
                        "network_gbit_per_s",
                        "mig",
                        "prices",
                        "purchase",
                        "notes"});
  }

  void read_identity(Gpu& g) {
    m_problems.guard([&] { g.name = m_r.string("name"); });
    m_problems.guard([&] {
      if (m_r.has("aliases")) {
        g.aliases = m_r.string_array("aliases");
      }
    });
    m_problems.guard([&] {
      g.vendor = m_r.choice<std::string>("vendor", {{"nvidia", "nvidia"}, {"amd", "amd"}});
    });
    m_problems.guard([&] { g.architecture = m_r.string("architecture"); });
    m_problems.guard([&] { g.generation = m_r.string("generation"); });
    m_problems.guard([&] { g.form_factor = m_r.string("form_factor"); });
    m_problems.guard([&] {
      g.release_year = static_cast<int>(m_r.integer("release_year", Range::between(2010, 2035)));
    });
  }

  void read_memory(Gpu& g) {
    m_problems.guard(
        [&] { g.memory = gib(sourced(m_r, "memory_gib", Range::positive(4096), g.provenance)); });
    m_problems.guard([&] {
      if (m_r.has("usable_memory_mib")) {
        g.usable_memory =
            mib(sourced(m_r, "usable_memory_mib", Range::positive(4e6), g.provenance));
      }
    });
    m_problems.guard([&] {
      g.memory_bandwidth =
          gb_per_s(sourced(m_r, "memory_bandwidth_gb_per_s", Range::positive(1e5), g.provenance));
    });
  }

  void read_compute_rates(Gpu& g) {
    const auto dense = m_r.object("dense_tflop_per_s");
    dense.reject_unknown(precision_keys());
    read_dense_rates(dense, g);
    if (!g.rate(TensorPrecision::bf16) && !g.rate(TensorPrecision::fp16)) {
      dense.fail_plain("needs a bf16 or fp16 rate");
    }
    for (const auto& ratio : k_rate_ratios) {
      check_rate_ratio(dense, g, ratio);
    }
    if (m_r.has("sparse_tflop_per_s")) {
      check_dense_against_sparse(dense, g);
    }
  }

  void read_dense_rates(const FieldReader& dense, Gpu& g) {
    for (const auto& [name, p] : precision_names()) {
      if (dense.has(name)) {
        m_problems.guard([&, p = p, name = name] {
          g.dense[p] = tflop_per_s(sourced(
              dense, name, Range::positive(1e5), g.provenance, "dense_tflop_per_s." + name));
        });
      }
    }
  }

  void check_rate_ratio(const FieldReader& dense, const Gpu& g, const RateRatio& r) {
    const auto a = g.rate(r.hi);
    const auto b = g.rate(r.lo);
    if (a && b) {
      const double ratio = *a / *b;
      if (ratio < r.lo_bound || ratio > r.hi_bound) {
        m_problems.add(dense.where(std::string(to_string(r.hi))),
                       fmt::format("is {:.2f}x the {} rate, expected {}: one of them may be a "
                                   "sparse figure listed as dense",
                                   ratio,
                                   to_string(r.lo),
                                   r.expected));
      }
    }
  }

  // When the sparse figures are listed too, dense must be half of them.
  void check_dense_against_sparse(const FieldReader& dense, const Gpu& g) {
    const auto sparse = m_r.object("sparse_tflop_per_s");
    sparse.reject_unknown(precision_keys());
    for (const auto& [name, p] : precision_names()) {
      const auto d = g.rate(p);
      if (!sparse.has(name) || !d) {
        continue;
      }
      m_problems.guard([&, name = name] { check_sparse_rate(dense, sparse, name, *d); });
    }
  }

  void check_sparse_rate(const FieldReader& dense,
                         const FieldReader& sparse,
                         const std::string& name,
                         FlopsPerSecond d) {
    std::map<std::string, Provenance> ignored;
    const double s = sourced(sparse, name, Range::positive(2e5), ignored);
    if (to_tflop_per_s(d) > 0.55 * s) {
      m_problems.add(dense.where(name),
                     fmt::format("dense {} TFLOP/s is more than half the sparse {} "
                                 "TFLOP/s: the sparse figure is listed as dense",
                                 to_tflop_per_s(d),
                                 s));
    }
  }

  void read_power(Gpu& g) {
    g.tdp = watts(sourced(m_r, "tdp_watts", Range::positive(5000), g.provenance));
  }

  void read_interconnect(Gpu& g) {
    m_problems.guard([&] { read_host_link(g); });
    m_problems.guard([&] { read_gpu_link(g); });
    m_problems.guard([&] { read_nvlink_domain(g); });
    m_problems.guard([&] {
      g.network =
          gbit_per_s(sourced(m_r, "network_gbit_per_s", Range::positive(1e4), g.provenance));
    });
  }

  void read_host_link(Gpu& g) {
    const auto f = m_r.object("host_link");
    f.reject_unknown(
        {"pcie_generation", "lanes", "nvlink_c2c", "gb_per_s", "source", "note", "confidence"});
    Provenance p;
    check_source(f, p);
    g.provenance["host_link"] = p;
    const double rate = f.number("gb_per_s", Range::positive(2000));
    g.host_link = gb_per_s(rate);
    if (f.optional_boolean("nvlink_c2c").value_or(false)) {
      return;
    }
    read_pcie(f, rate, g);
  }

  void read_pcie(const FieldReader& f, double rate, Gpu& g) {
    g.pcie_generation = static_cast<int>(f.integer("pcie_generation", Range::between(1, 7)));
    const auto lanes = f.optional_integer("lanes", Range::between(1, 32)).value_or(16);
    // PCIe x16 moves about 2^(gen-1) GB/s per lane-group: Gen3 16, Gen4 32, Gen5 64 GB/s.
    const double expected =
        16.0 * std::pow(2.0, g.pcie_generation - 3) * static_cast<double>(lanes) / 16.0;
    if (std::fabs(rate - expected) > 0.1 * expected) {
      f.member("gb_per_s")
          .fail(fmt::format("does not match PCIe Gen{} x{} ({:g} GB/s per "
                            "direction)",
                            g.pcie_generation,
                            lanes,
                            expected));
    }
  }

  void read_gpu_link(Gpu& g) {
    const auto f = m_r.object("gpu_link");
    f.reject_unknown({"kind", "gb_per_s", "source", "note", "confidence"});
    g.gpu_link_kind = f.choice<std::string>("kind",
                                            {{"nvlink3", "nvlink3"},
                                             {"nvlink4", "nvlink4"},
                                             {"nvlink4-bridge", "nvlink4-bridge"},
                                             {"nvlink5", "nvlink5"},
                                             {"infinity-fabric", "infinity-fabric"},
                                             {"none", "none"}});
    g.gpu_link = gb_per_s(f.number("gb_per_s", Range::positive(10000)));
    Provenance p;
    check_source(f, p);
    g.provenance["gpu_link"] = p;
  }

  void read_nvlink_domain(Gpu& g) {
    g.nvlink_domain =
        static_cast<int>(sourced(m_r, "nvlink_domain", Range::between(1, 576), g.provenance));
    const auto f = m_r.object("nvlink_domain");
    if (std::floor(f.number("value", Range::positive())) != f.number("value", Range::positive())) {
      f.member("value").fail("must be an integer");
    }
  }

  void read_mig(Gpu& g) {
    if (!m_r.has("mig")) {
      return; // null or absent: no MIG
    }
    const auto f = m_r.object("mig");
    f.reject_unknown({"max_instances", "profiles", "source", "note", "confidence"});
    Mig mig;
    mig.max_instances = static_cast<int>(f.integer("max_instances", Range::between(1, 7)));
    mig.profiles = f.string_array("profiles");
    Provenance p;
    check_source(f, p);
    g.provenance["mig"] = p;
    g.mig = mig;
  }

  void read_prices(Gpu& g) {
    for (const auto& e : m_r.array("prices")) {
      const std::size_t before = m_errors_seen;
      const Price price = read_price(e);
      // A price with a bad field is reported but left out.
      if (m_errors_seen == before) {
        g.prices.push_back(price);
      }
    }
  }

  Price read_price(const FieldReader& e) {
    Price price;
    guard_price_field([&] {
      e.reject_unknown({"provider",
                        "kind",
                        "usd_per_gpu_hour",
                        "as_of",
                        "as_of_kind",
                        "source",
                        "note",
                        "confidence"});
    });
    guard_price_field([&] { price.provider = e.string("provider"); });
    guard_price_field([&] {
      price.kind = e.choice<std::string>(
          "kind", {{"on_demand", "on_demand"}, {"spot", "spot"}, {"committed", "committed"}});
    });
    guard_price_field(
        [&] { price.per_gpu = usd_per_hour(e.number("usd_per_gpu_hour", Range::positive(1000))); });
    guard_price_field([&] { read_date(e, "as_of", price.as_of); });
    guard_price_field([&] {
      if (e.has("as_of_kind")) {
        price.as_of_stated = e.choice<bool>("as_of_kind", {{"stated", true}, {"retrieved", false}});
      }
    });
    guard_price_field([&] { check_source(e, price.provenance); });
    return price;
  }

  // Like Problems::guard, and counts the failures so that read_prices can tell a bad price.
  void guard_price_field(const std::function<void()>& read) {
    m_problems.guard([&] {
      try {
        read();
      } catch (const InputError&) {
        ++m_errors_seen;
        throw;
      }
    });
  }

  void read_purchase(Gpu& g) {
    if (!m_r.has("purchase")) {
      return;
    }
    const auto f = m_r.object("purchase");
    f.reject_unknown({"usd_per_gpu",
                      "server_share_usd_per_gpu",
                      "gpus_per_server",
                      "as_of",
                      "source",
                      "note",
                      "confidence"});
    Purchase p;
    p.gpu = usd(f.number("usd_per_gpu", Range::positive(1e7)));
    p.server_share =
        usd(f.optional_number("server_share_usd_per_gpu", Range::non_negative(1e7)).value_or(0.0));
    read_date(f, "as_of", p.as_of);
    check_source(f, p.provenance);
    read_gpus_per_server(f, p);
    g.purchase = p;
  }

  // A sourced integer, {"value": 8, "source": ...}: the server's size is a fact of the platform,
  // sourced apart from the price estimate beside it.
  void read_gpus_per_server(const FieldReader& purchase, Purchase& p) {
    const auto f = purchase.object("gpus_per_server");
    f.reject_unknown({"value", "source", "note", "confidence"});
    p.gpus_per_server = static_cast<int>(f.integer("value", Range::between(1, 576)));
    check_source(f, p.server_provenance);
  }

  // Checks that need several fields; run after all of them are read.
  void check_cross_fields(const Gpu& g) {
    if (g.gpu_link_kind == "none" && g.nvlink_domain != 1 && !g.name.empty()) {
      m_problems.add(
          m_r.where("nvlink_domain"),
          fmt::format("must be 1 for a GPU without a GPU-to-GPU link, got {}", g.nvlink_domain));
    }
  }

  void read_date(const FieldReader& f, const char* key, std::string& out) {
    out = f.string(key);
    if (!parse_date(out)) {
      f.member(key).fail("must be a date YYYY-MM-DD");
    }
  }

  void check_source(const FieldReader& field, Provenance& p) {
    p.source = field.string("source");
    if (m_sources.find(p.source) == m_sources.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : m_sources) {
        keys.push_back(k);
      }
      field.member("source").fail("is not a key of /sources" + did_you_mean(p.source, keys));
    }
    p.note = field.optional_string("note").value_or("");
    if (field.has("confidence")) {
      p.confidence = field.choice<std::string>(
          "confidence", {{"low", "low"}, {"medium", "medium"}, {"high", "high"}});
    }
  }

  // {"value": ..., "source": ..., "note": ..., "confidence": ...}
  double sourced(const FieldReader& parent,
                 const std::string& key,
                 Range range,
                 std::map<std::string, Provenance>& provenance,
                 const std::string& label = "") {
    const auto f = parent.object(key);
    f.reject_unknown({"value", "source", "note", "confidence"});
    const double value = f.number("value", range);
    Provenance p;
    check_source(f, p);
    provenance[label.empty() ? key : label] = p;
    return value;
  }

  const FieldReader& m_r;
  const std::map<std::string, CatalogSource>& m_sources;
  Problems& m_problems;
  std::size_t m_errors_seen = 0;
};

std::map<std::string, CatalogSource> read_sources(const FieldReader& root, Problems& problems) {
  std::map<std::string, CatalogSource> sources;
  problems.guard([&] {
    const auto s = root.object("sources");
    for (const auto& [key, value] : s.json().items()) {
      problems.guard([&, key = key] {
        const auto f = s.object(key);
        f.reject_unknown({"name", "location", "kind"});
        sources[key] = CatalogSource{
            f.string("name"), f.string("location"), f.optional_string("kind").value_or("")};
      });
    }
  });
  return sources;
}

// Where each catalog entry came from, so that errors name the file the user edited.
struct Origin {
  std::string file;
  std::string pointer;
};

Catalog parse_entries(const nlohmann::json& doc,
                      const std::vector<Origin>& origins,
                      const std::string& top_file,
                      std::string digest) {
  Problems problems;
  const FieldReader root(doc, top_file);
  if (!doc.is_object()) {
    root.fail("a catalog must be a JSON object");
  }
  Catalog c;
  problems.guard([&] {
    root.reject_unknown(
        {"schema_version", "catalog_version", "description", "sources", "gpus", "extends"});
  });
  problems.guard([&] {
    const auto v = root.integer("schema_version", Range::positive(1e6));
    if (v != 1) {
      root.member("schema_version")
          .fail("unsupported catalog schema version (this rightsize "
                "reads 1)");
    }
  });
  problems.guard([&] { c.version = root.string("catalog_version"); });
  c.sources = read_sources(root, problems);
  std::vector<FieldReader> entries;
  problems.guard([&] { entries = root.array("gpus"); });
  std::map<std::string, std::string> seen; // squashed name/alias -> where
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const FieldReader entry(entries[i].json(), origins[i].file, origins[i].pointer);
    if (!entry.is_object()) {
      problems.guard([&] { entry.fail("must be an object"); });
      continue;
    }
    GpuReader reader(entry, c.sources, problems);
    Gpu g = reader.read();
    std::vector<std::string> names{g.name};
    names.insert(names.end(), g.aliases.begin(), g.aliases.end());
    for (const auto& n : names) {
      if (n.empty()) {
        continue;
      }
      const auto [it, inserted] = seen.emplace(squash(n), entry.where());
      if (!inserted && it->second != entry.where()) {
        problems.add(entry.where("name"),
                     fmt::format("name or alias \"{}\" is already used at {}", n, it->second));
      }
    }
    c.gpus.push_back(std::move(g));
  }
  problems.throw_if_any();
  c.digest = std::move(digest);
  return c;
}

// A complete catalog document read from `file`; `digest` is that of what was read.
Catalog parse_complete(const nlohmann::json& json, const std::string& file, std::string digest) {
  std::vector<Origin> origins;
  if (json.is_object() && json.contains("gpus") && json["gpus"].is_array()) {
    for (std::size_t i = 0; i < json["gpus"].size(); ++i) {
      origins.push_back({file, "/gpus/" + std::to_string(i)});
    }
  }
  auto c = parse_entries(json, origins, file, std::move(digest));
  c.files = {file};
  return c;
}

// Prices merge by (provider, kind), so those two must be readable before merging; the rest of
// each price is validated with the merged catalog.
void check_overlay_prices(const FieldReader& entry) {
  if (!entry.has("prices")) {
    return;
  }
  for (const auto& price : entry.array("prices")) {
    if (!price.is_object()) {
      price.fail("a price must be an object {provider, kind, usd_per_gpu_hour, as_of, source}");
    }
    (void)price.optional_string("provider");
    (void)price.optional_string("kind");
  }
}

// Overlay semantics (docs/catalog.md): objects merge field by field, prices merge by
// (provider, kind), other arrays and values replace.
void merge_into(nlohmann::json& base, const nlohmann::json& over) {
  for (const auto& [key, value] : over.items()) {
    if (key == "prices" && base.contains(key) && base[key].is_array() && value.is_array()) {
      for (const auto& p : value) {
        auto& prices = base[key];
        const auto same = std::find_if(prices.begin(), prices.end(), [&](const auto& q) {
          return q.value("provider", "") == p.value("provider", "") &&
                 q.value("kind", "") == p.value("kind", "");
        });
        if (same != prices.end()) {
          *same = p;
        } else {
          prices.insert(prices.begin(), p);
        }
      }
    } else if (value.is_object() && base.contains(key) && base[key].is_object()) {
      merge_into(base[key], value);
    } else {
      base[key] = value;
    }
  }
}

} // namespace

std::string_view to_string(TensorPrecision p) {
  for (const auto& [name, value] : precision_names()) {
    if (value == p) {
      return name;
    }
  }
  return "bf16";
}

const std::vector<TensorPrecision>& all_tensor_precisions() {
  static const std::vector<TensorPrecision> all{TensorPrecision::fp32,
                                                TensorPrecision::tf32,
                                                TensorPrecision::bf16,
                                                TensorPrecision::fp16,
                                                TensorPrecision::fp8,
                                                TensorPrecision::int8,
                                                TensorPrecision::fp4};
  return all;
}

std::optional<FlopsPerSecond> GpuFigures::rate(TensorPrecision p) const {
  const auto it = dense.find(p);
  if (it == dense.end()) {
    return std::nullopt;
  }
  return it->second;
}

const Gpu* Catalog::find(const std::string& name) const {
  const std::string key = squash(name);
  for (const auto& g : gpus) {
    if (squashes_to(g.name, key)) {
      return &g;
    }
    for (const auto& a : g.aliases) {
      if (squashes_to(a, key)) {
        return &g;
      }
    }
  }
  return nullptr;
}

const Gpu& Catalog::resolve(const std::string& name, const std::string& where) const {
  if (const Gpu* g = find(name)) {
    return *g;
  }
  // Not an exact name: a unique name that starts with it is accepted ("B300-SXM").
  const std::string key = squash(name);
  std::vector<const Gpu*> prefixed;
  for (const auto& g : gpus) {
    if (key.size() >= 2 && squash(g.name).rfind(key, 0) == 0) {
      prefixed.push_back(&g);
    }
  }
  if (prefixed.size() == 1) {
    return *prefixed.front();
  }
  if (prefixed.size() > 1) {
    std::vector<std::string> options;
    for (const auto* g : prefixed) {
      options.push_back(g->name);
    }
    throw InputError(where,
                     fmt::format("GPU name \"{}\" is ambiguous: it could be {}",
                                 name,
                                 FieldReader::join(options)));
  }
  throw InputError(where,
                   fmt::format("unknown GPU \"{}\"{}; see 'rightsize catalog list'",
                               name,
                               did_you_mean(name, names())));
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const auto& g : gpus) {
    out.push_back(g.name);
    out.insert(out.end(), g.aliases.begin(), g.aliases.end());
  }
  return out;
}

Catalog parse_catalog(const nlohmann::json& json, const std::string& file) {
  return parse_complete(json, file, detail::fnv1a_hex(json.dump()));
}

namespace {
std::string read_json_text(const std::string& file) {
  return read_input_file(file, k_max_json_file_bytes, "JSON input");
}

Catalog load_complete(const std::string& file, CatalogDetail wanted) {
  // The bundled catalog, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_catalog_file();
  const auto text =
      read_input_file_unless(file, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_catalog(bundled.value, file, wanted);
  }
  return parse_complete(detail::parse_json_text(*text, file), file, detail::fnv1a_hex(*text));
}
} // namespace

Catalog load_catalog(const std::string& bundled_path,
                     const std::string& overlay_path,
                     CatalogDetail wanted) {
  if (overlay_path.empty()) {
    return load_complete(bundled_path, wanted);
  }
  const std::string overlay_text = read_json_text(overlay_path);
  const auto overlay = detail::parse_json_text(overlay_text, overlay_path);
  const FieldReader over(overlay, overlay_path);
  if (!overlay.is_object()) {
    over.fail("a catalog must be a JSON object");
  }
  if (!over.has("extends")) {
    return parse_complete(overlay, overlay_path, detail::fnv1a_hex(overlay_text));
  }
  if (over.string("extends") != "bundled") {
    over.member("extends").fail("must be \"bundled\" (or absent for a complete catalog)");
  }
  over.reject_unknown(
      {"schema_version", "extends", "sources", "gpus", "catalog_version", "description"});
  const std::string base_text = read_json_text(bundled_path);
  nlohmann::json merged = detail::parse_json_text(base_text, bundled_path);
  // The bundled catalog must itself be sound before anything is merged into it.
  auto bundled = detail::bundled_catalog(base_text, bundled_path);
  const Catalog base = bundled ? std::move(*bundled) : parse_complete(merged, bundled_path, "");
  const std::string base_version = merged.value("catalog_version", "");
  std::vector<Origin> origins;
  for (std::size_t i = 0; i < merged["gpus"].size(); ++i) {
    origins.push_back({bundled_path, "/gpus/" + std::to_string(i)});
  }
  if (over.has("sources")) {
    for (const auto& [key, value] : over.object("sources").json().items()) {
      merged["sources"][key] = value;
    }
  }
  if (over.has("catalog_version")) {
    merged["catalog_version"] = base_version + "+" + over.string("catalog_version");
  }
  if (over.has("gpus")) {
    const auto entries = over.array("gpus");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      const std::string pointer = "/gpus/" + std::to_string(i);
      const std::string name = e.string("name");
      const Gpu* existing = base.find(name);
      if (existing == nullptr) {
        merged["gpus"].push_back(e.json());
        origins.push_back({overlay_path, pointer});
        continue;
      }
      const auto index = static_cast<std::size_t>(existing - base.gpus.data());
      check_overlay_prices(e);
      nlohmann::json patch = e.json();
      patch.erase("name"); // the overlay may use an alias; the bundled name stays
      merge_into(merged["gpus"][index], patch);
      origins[index] = {overlay_path, pointer};
    }
  }
  auto c =
      parse_entries(merged, origins, overlay_path, detail::fnv1a_hex(base_text + overlay_text));
  c.files = {bundled_path, overlay_path};
  return c;
}

std::optional<long> parse_date(const std::string& text) {
  int y = 0;
  unsigned m = 0;
  unsigned d = 0;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  for (const std::size_t i : {0U, 1U, 2U, 3U, 5U, 6U, 8U, 9U}) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      return std::nullopt;
    }
  }
  y = std::stoi(text.substr(0, 4));
  m = static_cast<unsigned>(std::stoi(text.substr(5, 2)));
  d = static_cast<unsigned>(std::stoi(text.substr(8, 2)));
  static const std::array<unsigned, 12> month_days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > month_days[m - 1] + ((m == 2 && leap) ? 1U : 0U)) {
    return std::nullopt;
  }
  // days_from_civil (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  y -= m <= 2 ? 1 : 0;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

bool is_stale(const std::string& as_of, const std::string& today, long max_age_days) {
  const auto a = parse_date(as_of);
  const auto t = parse_date(today);
  return a && t && (*t - *a) > max_age_days;
}

} // namespace rightsize
