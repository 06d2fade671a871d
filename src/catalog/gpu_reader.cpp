// Reading and validating one GPU entry of a catalog (docs/catalog.md, "Validation").

#include "gpu_reader.hpp"

#include "names.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <functional>

namespace rightsize::detail {

namespace {

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
    m_problems.guard([&] { read_not_rentable(g); });
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
                        "not_rentable",
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
    m_problems.guard([&] { g.vendor = m_r.choice<std::string>("vendor", vendor_choices()); });
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
    // The ratios are those of NVIDIA's and AMD's tensor cores. Other accelerators keep others
    // (Gaudi 3 runs fp8 at its bf16 rate, TPU v5p lists one figure for both, Inferentia2 one for
    // all), so only the sparse-against-dense check applies to them.
    if (g.vendor == "nvidia" || g.vendor == "amd") {
      for (const auto& ratio : k_rate_ratios) {
        check_rate_ratio(dense, g, ratio);
      }
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

  // Optional for accelerators only rented, whose makers publish no TDP (TPUs, Trainium): 0 then.
  // On-prem costs charge it and MIG slices share it, so a purchase or MIG profiles need it.
  void read_power(Gpu& g) {
    if (!m_r.has("tdp_watts")) {
      if (m_r.has("purchase") || (m_r.has("mig") && !m_r.member("mig").json().is_null())) {
        m_problems.add(m_r.where("tdp_watts"),
                       "required field is missing: a purchase price or MIG profiles need the TDP");
      }
      return;
    }
    g.tdp = watts(sourced(m_r, "tdp_watts", Range::positive(5000), g.provenance));
  }

  void read_interconnect(Gpu& g) {
    m_problems.guard([&] { read_host_link(g); });
    m_problems.guard([&] { read_gpu_link(g); });
    m_problems.guard([&] { read_nvlink_domain(g); });
    m_problems.guard([&] {
      if (!m_r.has("network_gbit_per_s")) {
        return; // not published (TPU v6e): 0, shown as unknown; no estimate reads it
      }
      g.network =
          gbit_per_s(sourced(m_r, "network_gbit_per_s", Range::positive(1e4), g.provenance));
    });
  }

  // Optional where the maker does not publish it (TPU v5e/v5p, Trainium2): 0, shown as unknown.
  void read_host_link(Gpu& g) {
    if (!m_r.has("host_link")) {
      return;
    }
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
                                             {"ici", "ici"},
                                             {"neuronlink", "neuronlink"},
                                             {"roce", "roce"},
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

  // {"reason": "...", "source": KEY}: why no cloud price is listed. Only on a GPU without one:
  // a price and this reason would contradict each other.
  void read_not_rentable(Gpu& g) {
    if (!m_r.has("not_rentable")) {
      return;
    }
    const auto f = m_r.object("not_rentable");
    f.reject_unknown({"reason", "source", "note", "confidence"});
    g.not_rentable = f.string("reason");
    if (g.not_rentable.empty()) {
      f.member("reason").fail("must say why no cloud rents it");
    }
    Provenance p;
    check_source(f, p);
    g.provenance["not_rentable"] = p;
    if (m_r.has("prices") && !m_r.array("prices").empty()) {
      f.fail_plain("is for a GPU without cloud prices, and this one has prices: remove one");
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
                        "includes",
                        "instance",
                        "gpus_per_instance",
                        "host",
                        "as_of",
                        "as_of_kind",
                        "source",
                        "note",
                        "confidence"});
    });
    guard_price_field([&] { price.provider = e.string("provider"); });
    guard_price_field([&] {
      price.kind = e.choice<std::string>("kind",
                                         {{"on_demand", "on_demand"},
                                          {"spot", "spot"},
                                          {"committed_1y", "committed_1y"},
                                          {"committed_3y", "committed_3y"},
                                          {"committed", "committed"}});
    });
    guard_price_field([&] {
      price.listed_per_gpu = usd_per_hour(e.number("usd_per_gpu_hour", Range::positive(1000)));
    });
    read_price_shape(e, price);
    guard_price_field([&] { read_date(e, "as_of", price.as_of); });
    guard_price_field([&] {
      if (e.has("as_of_kind")) {
        price.as_of_stated = e.choice<bool>("as_of_kind", {{"stated", true}, {"retrieved", false}});
      }
    });
    guard_price_field([&] { check_source(e, price.provenance); });
    return price;
  }

  // What a price includes and the shape it is for (docs/catalog.md, "Prices"): absent, a whole
  // instance of one GPU. A gpu_only price is completed with its host, per GPU of the instance.
  void read_price_shape(const FieldReader& e, Price& price) {
    guard_price_field([&] {
      if (e.has("includes")) {
        price.gpu_only = e.choice<bool>("includes", {{"instance", false}, {"gpu_only", true}});
      }
    });
    guard_price_field([&] { price.instance = e.optional_string("instance").value_or(""); });
    price.shape_stated = e.has("gpus_per_instance");
    guard_price_field([&] {
      price.gpus_per_instance = static_cast<int>(
          e.optional_integer("gpus_per_instance", Range::between(1, 72)).value_or(1));
    });
    guard_price_field([&] {
      if (!e.has("host")) {
        return;
      }
      const auto h = e.object("host");
      h.reject_unknown({"name", "usd_per_hour", "source", "note", "confidence"});
      PriceHost host;
      host.name = h.string("name");
      host.per_instance = usd_per_hour(h.number("usd_per_hour", Range::positive(1000)));
      check_source(h, host.provenance);
      if (!price.gpu_only) {
        e.member("host").fail("a host completes a \"gpu_only\" price; this price includes "
                              "the instance (set \"includes\": \"gpu_only\" or drop the host)");
      }
      price.host = host;
    });
    price.per_gpu = price.listed_per_gpu;
    if (price.host) {
      const double n = price.gpus_per_instance;
      price.per_gpu = (price.listed_per_gpu * n + price.host->per_instance) / n;
    }
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
    read_provenance(field, m_sources, p);
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

} // namespace

Gpu read_gpu(const FieldReader& entry,
             const std::map<std::string, CatalogSource>& sources,
             Problems& problems) {
  return GpuReader(entry, sources, problems).read();
}

} // namespace rightsize::detail
