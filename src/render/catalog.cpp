#include "csv.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/catalog.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

namespace rightsize {

namespace {

// "$1.42/GPU-h AWS on_demand, g5.12xlarge (4 GPUs, instance $5.67/h) (retrieved ...)"; a GPU-only
// price shows its host and the completed price, or that it is not used without one.
std::string price_label(const Price& p, const CatalogView& view) {
  std::string s = fmt::format("{}/GPU-h {} {}, {}{} GPU{}",
                              format_usd(usd(p.per_gpu.si())),
                              p.provider,
                              p.kind,
                              p.instance.empty() ? std::string() : p.instance + " (",
                              p.gpus_per_instance,
                              p.gpus_per_instance == 1 ? "" : "s");
  if (p.host) {
    s += fmt::format(", GPU only {}/GPU-h + host {} {}/h [{}]",
                     format_usd(usd(p.listed_per_gpu.si())),
                     p.host->name,
                     format_usd(usd(p.host->per_instance.si())),
                     p.host->provenance.source);
  } else if (p.gpu_only) {
    s += ", GPU only, no host: not used";
  } else {
    s += fmt::format(", instance {}", format_usd_per_hour(p.per_instance()));
  }
  s += p.instance.empty() ? "" : ")";
  s += p.as_of_stated ? fmt::format(" (as of {})", p.as_of)
                      : fmt::format(" (retrieved {}, source undated)", p.as_of);
  if (is_stale(p.as_of, view.today, view.stale_days)) {
    s += " STALE";
  }
  return s;
}

// The listed shape of a price's instance, when the instance table has it.
const InstanceShape* shape_of(const Price& p, const CatalogView& view) {
  return view.instances == nullptr || p.instance.empty()
             ? nullptr
             : view.instances->find(p.provider, p.instance);
}

nlohmann::json provenance_json(const Provenance& p, const Catalog& c) {
  nlohmann::json j{{"source", p.source}};
  const auto it = c.sources.find(p.source);
  if (it != c.sources.end()) {
    j["source_name"] = it->second.name;
    j["source_location"] = it->second.location;
  }
  if (!p.note.empty()) {
    j["note"] = p.note;
  }
  if (!p.confidence.empty()) {
    j["confidence"] = p.confidence;
  }
  return j;
}

std::string tflops_or_dash(const Gpu& g, TensorPrecision p) {
  const auto r = g.rate(p);
  return r ? fmt::format("{:.0f}", to_tflop_per_s(*r)) : "-";
}

// A short label that fits the list table.
std::string link_label(const Gpu& g) {
  if (g.gpu_link_kind == "none") {
    return fmt::format("PCIe{}", g.pcie_generation);
  }
  if (g.gpu_link_kind == "infinity-fabric") {
    return "InfFabric";
  }
  if (g.gpu_link_kind == "ici" || g.gpu_link_kind == "roce") {
    return g.gpu_link_kind == "ici" ? "ICI" : "RoCE";
  }
  if (g.gpu_link_kind == "neuronlink") {
    return "NeuronLink";
  }
  if (g.gpu_link_kind == "nvlink4-bridge") {
    return "NVL4-bridge";
  }
  return "NVLink" + g.gpu_link_kind.substr(6);
}

// The 16-bit tensor rate: bf16, or fp16 on GPUs without bf16 (T4).
std::string sixteen_bit(const Gpu& g) {
  const auto r =
      g.rate(TensorPrecision::bf16) ? g.rate(TensorPrecision::bf16) : g.rate(TensorPrecision::fp16);
  return r ? fmt::format("{:.0f}", to_tflop_per_s(*r)) : "-";
}

// The catalog views below show every field's source: a catalog loaded without them
// (CatalogDetail::figures) would show none, silently.
void require_sources(const CatalogView& view) {
  if (view.catalog.sources_dropped) {
    throw InternalError("catalog view: the catalog was loaded without its sources");
  }
}

} // namespace

std::string vendor_label(const std::string& vendor) {
  static const std::map<std::string, std::string> labels{{"nvidia", "NVIDIA"},
                                                         {"amd", "AMD"},
                                                         {"intel", "Intel"},
                                                         {"google", "Google"},
                                                         {"aws", "AWS"}};
  const auto it = labels.find(vendor);
  return it != labels.end() ? it->second : vendor;
}

const Price* cheapest_on_demand(const Gpu& g) {
  const Price* best = nullptr;
  for (const auto& p : g.prices) {
    if (p.kind == "on_demand" && p.usable() && (best == nullptr || p.per_gpu < best->per_gpu)) {
      best = &p;
    }
  }
  return best;
}

nlohmann::json gpu_to_json(const Gpu& g, const CatalogView& view) {
  require_sources(view);
  nlohmann::json dense = nlohmann::json::object();
  for (const auto& [p, rate] : g.dense) {
    dense[std::string(to_string(p))] = rate.si();
  }
  nlohmann::json prices = nlohmann::json::array();
  for (const auto& p : g.prices) {
    nlohmann::json host(nullptr);
    if (p.host) {
      host = {{"name", p.host->name},
              {"usd_per_hour", p.host->per_instance.si()},
              {"source", p.host->provenance.source}};
    }
    prices.push_back({{"provider", p.provider},
                      {"kind", p.kind},
                      {"usd_per_gpu_hour", p.listed_per_gpu.si()},
                      {"includes", p.gpu_only ? "gpu_only" : "instance"},
                      {"instance", p.instance},
                      {"gpus_per_instance", p.gpus_per_instance},
                      {"host", host},
                      {"effective_usd_per_gpu_hour", p.per_gpu.si()},
                      {"used", p.usable()},
                      {"as_of", p.as_of},
                      {"as_of_kind", p.as_of_stated ? "stated" : "retrieved"},
                      {"stale", is_stale(p.as_of, view.today, view.stale_days)},
                      {"source", p.provenance.source},
                      {"note", p.provenance.note}});
    if (const InstanceShape* s = shape_of(p, view)) {
      prices.back()["instance_shape"] = {{"gpus", s->gpus},
                                         {"vcpus", s->vcpus},
                                         {"memory_bytes", s->memory_gib * 1073741824.0},
                                         {"local_nvme_bytes", s->local_nvme_gb * 1e9},
                                         {"network_bits_per_s", s->network_gbit_per_s * 1e9},
                                         {"source", s->provenance.source}};
    }
  }
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [field, p] : g.provenance) {
    sources[field] = provenance_json(p, view.catalog);
  }
  nlohmann::json j{
      {"name", g.name},
      {"aliases", g.aliases},
      {"vendor", g.vendor},
      {"architecture", g.architecture},
      {"generation", g.generation},
      {"release_year", g.release_year},
      {"form_factor", g.form_factor},
      {"memory_bytes", g.memory.si()},
      {"usable_memory_bytes",
       g.usable_memory ? nlohmann::json(g.usable_memory->si()) : nlohmann::json(nullptr)},
      {"memory_bandwidth_bytes_per_s", g.memory_bandwidth.si()},
      {"dense_flops_per_s", dense},
      {"tdp_watts", g.tdp.si() > 0 ? nlohmann::json(g.tdp.si()) : nlohmann::json(nullptr)},
      {"host_link_bytes_per_s",
       g.host_link.si() > 0 ? nlohmann::json(g.host_link.si()) : nlohmann::json(nullptr)},
      {"pcie_generation",
       g.pcie_generation > 0 ? nlohmann::json(g.pcie_generation) : nlohmann::json(nullptr)},
      {"gpu_link", g.gpu_link_kind},
      {"gpu_link_bytes_per_s", g.gpu_link.si()},
      {"nvlink_domain", g.nvlink_domain},
      {"network_bytes_per_s",
       g.network.si() > 0 ? nlohmann::json(g.network.si()) : nlohmann::json(nullptr)},
      {"mig",
       g.mig
           ? nlohmann::json{{"max_instances", g.mig->max_instances}, {"profiles", g.mig->profiles}}
           : nlohmann::json(nullptr)},
      {"prices", prices},
      {"not_rentable",
       g.not_rentable.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.not_rentable)},
      {"sources", sources},
  };
  if (g.purchase) {
    j["purchase"] = {
        {"usd_per_gpu", g.purchase->gpu.si()},
        {"server_share_usd_per_gpu", g.purchase->server_share.si()},
        {"gpus_per_server", g.purchase->gpus_per_server},
        {"usd_per_server",
         (g.purchase->gpu.si() + g.purchase->server_share.si()) * g.purchase->gpus_per_server},
        {"as_of", g.purchase->as_of},
        {"source", g.purchase->provenance.source},
        {"confidence", g.purchase->provenance.confidence},
        {"note", g.purchase->provenance.note}};
  } else {
    j["purchase"] = nullptr;
  }
  return j;
}

void render_catalog_list_table(const CatalogView& view, std::ostream& out) {
  out << fmt::format("{:<18} {:<6} {:>7} {:>5} {:>5} {:>5} {:>5} {:>5} {:<11} {:>3}  {}\n",
                     "GPU",
                     "VENDOR",
                     "MEMORY",
                     "TB/s",
                     "16BIT",
                     "FP8",
                     "FP4",
                     "TDP W",
                     "GPU LINK",
                     "DOM",
                     "CHEAPEST $/GPU-h");
  for (const auto& g : view.catalog.gpus) {
    const Price* p = cheapest_on_demand(g);
    std::string price = "-";
    if (p != nullptr) {
      price = fmt::format("{} {}{}",
                          format_usd_per_hour(p->per_gpu),
                          p->provider,
                          is_stale(p->as_of, view.today, view.stale_days) ? " (stale)" : "");
    } else if (!g.not_rentable.empty()) {
      price = "not rentable";
    } else if (g.purchase) {
      price = "on-prem only";
    }
    out << fmt::format("{:<18} {:<6} {:>7} {:>5.2f} {:>5} {:>5} {:>5} {:>5} {:<11} {:>3}  {}\n",
                       g.name,
                       vendor_label(g.vendor),
                       fmt::format("{:.0f} GiB", to_gib(g.memory)),
                       to_gb_per_s(g.memory_bandwidth) / 1000.0,
                       sixteen_bit(g),
                       tflops_or_dash(g, TensorPrecision::fp8),
                       tflops_or_dash(g, TensorPrecision::fp4),
                       g.tdp.si() > 0 ? fmt::format("{:.0f}", g.tdp.si()) : std::string("-"),
                       link_label(g),
                       g.nvlink_domain,
                       price);
  }
  std::set<std::string> vendors;
  for (const auto& g : view.catalog.gpus) {
    vendors.insert(vendor_label(g.vendor));
  }
  out << fmt::format("\n{} GPUs of {} vendors, catalog {}. Dense tensor TFLOP/s; DOM: GPUs (chips) "
                     "per NVLink, Infinity Fabric, ICI or NeuronLink domain; on-demand prices.\n"
                     "'rightsize catalog show NAME' gives every field with its source, and why a "
                     "GPU is not rentable.\n",
                     view.catalog.gpus.size(),
                     vendors.size(),
                     view.catalog.version);
}

void render_catalog_list_json(const CatalogView& view, std::ostream& out) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : view.catalog.gpus) {
    gpus.push_back(gpu_to_json(g, view));
  }
  const nlohmann::json list{{"schema_version", 1},
                            {"catalog_version", view.catalog.version},
                            {"catalog_digest", view.catalog.digest},
                            {"gpus", gpus}};
  out << detail::dump_json(list, 2) << '\n';
}

void render_catalog_list_csv(const CatalogView& view, std::ostream& out) {
  out << "name,vendor,architecture,memory_bytes,memory_bandwidth_bytes_per_s,bf16_flops_per_s,"
         "fp8_flops_per_s,fp4_flops_per_s,tdp_watts,gpu_link,gpu_link_bytes_per_s,nvlink_domain,"
         "cheapest_usd_per_gpu_hour,cheapest_provider,price_as_of,price_stale,not_rentable\n";
  for (const auto& g : view.catalog.gpus) {
    const auto rate = [&](TensorPrecision p) {
      const auto r = g.rate(p);
      return r ? fmt::format("{:.6g}", r->si()) : std::string();
    };
    const Price* p = cheapest_on_demand(g);
    out << fmt::format("{},{},{},{:.0f},{:.0f},{},{},{},{},{},{:.0f},{},{},{},{},{},{}\n",
                       csv_escape(g.name),
                       g.vendor,
                       csv_escape(g.architecture),
                       g.memory.si(),
                       g.memory_bandwidth.si(),
                       rate(TensorPrecision::bf16),
                       rate(TensorPrecision::fp8),
                       rate(TensorPrecision::fp4),
                       g.tdp.si() > 0 ? fmt::format("{:.0f}", g.tdp.si()) : std::string(),
                       g.gpu_link_kind,
                       g.gpu_link.si(),
                       g.nvlink_domain,
                       p ? fmt::format("{:.4g}", p->per_gpu.si()) : "",
                       p ? csv_escape(p->provider) : "",
                       p ? p->as_of : "",
                       p ? (is_stale(p->as_of, view.today, view.stale_days) ? "true" : "false")
                         : "",
                       csv_escape(g.not_rentable));
  }
}

void render_gpu_table(const Gpu& g, const CatalogView& view, std::ostream& out) {
  require_sources(view);
  const auto source = [&](const std::string& field) {
    const auto it = g.provenance.find(field);
    if (it == g.provenance.end()) {
      return std::string();
    }
    std::string s = "[" + it->second.source + "]";
    if (!it->second.confidence.empty()) {
      s += " confidence " + it->second.confidence;
    }
    if (!it->second.note.empty()) {
      s += ": " + it->second.note;
    }
    return s;
  };
  const auto row = [&](const std::string& k, const std::string& v, const std::string& field) {
    out << fmt::format("  {:<22} {:<16} {}\n", k, v, source(field));
  };
  out << fmt::format("{} ({} {}, {}, {})\n",
                     g.name,
                     vendor_label(g.vendor),
                     g.architecture,
                     g.form_factor,
                     g.release_year);
  if (!g.aliases.empty()) {
    out << "  aliases: " << fmt::format("{}", fmt::join(g.aliases, ", ")) << '\n';
  }
  row("memory", format_bytes(g.memory), "memory_gib");
  if (g.usable_memory) {
    row("usable memory", format_bytes(*g.usable_memory), "usable_memory_mib");
  }
  row("memory bandwidth", format_bytes_per_s(g.memory_bandwidth), "memory_bandwidth_gb_per_s");
  for (const auto& [p, rate] : g.dense) {
    row(fmt::format("dense {}", to_string(p)),
        format_flops_per_s(rate),
        "dense_tflop_per_s." + std::string(to_string(p)));
  }
  const std::string unpublished = "not published";
  row("TDP", g.tdp.si() > 0 ? format_watts(g.tdp) : unpublished, "tdp_watts");
  row("host link",
      g.host_link.si() <= 0 ? unpublished
      : g.pcie_generation > 0
          ? fmt::format("PCIe Gen{} {}", g.pcie_generation, format_bytes_per_s(g.host_link))
          : fmt::format("C2C {}", format_bytes_per_s(g.host_link)),
      "host_link");
  row("GPU link",
      fmt::format("{} {}", g.gpu_link_kind, format_bytes_per_s(g.gpu_link)),
      "gpu_link");
  row("NVLink domain", std::to_string(g.nvlink_domain), "nvlink_domain");
  row("network per GPU",
      g.network.si() > 0 ? format_bytes_per_s(g.network) : unpublished,
      "network_gbit_per_s");
  if (g.mig) {
    row("MIG",
        fmt::format("{} instances: {}", g.mig->max_instances, fmt::join(g.mig->profiles, " ")),
        "mig");
  } else {
    out << fmt::format("  {:<22} {}\n", "MIG", "no");
  }
  out << "  prices per GPU-hour\n";
  if (!g.not_rentable.empty()) {
    out << fmt::format("    none: not rentable: {} {}\n", g.not_rentable, source("not_rentable"));
  } else if (g.prices.empty()) {
    out << "    none in the catalog: add yours with --catalog (docs/catalog.md)\n";
  }
  for (const auto& p : g.prices) {
    out << fmt::format("    {:<52} [{}]{}\n",
                       price_label(p, view),
                       p.provenance.source,
                       p.provenance.note.empty() ? "" : ": " + p.provenance.note);
    if (const InstanceShape* s = shape_of(p, view)) {
      out << fmt::format("      {}: {} [{}]\n", s->name, s->describe(), s->provenance.source);
    }
  }
  if (g.purchase) {
    const Purchase& b = *g.purchase;
    out << fmt::format(
        "  purchase (on-prem)     {} per GPU + {} server share = {} per {}-GPU {}, "
        "as of {} [{}] confidence {}: {}\n",
        format_usd(b.gpu),
        format_usd(b.server_share),
        format_usd((b.gpu + b.server_share) * static_cast<double>(b.gpus_per_server)),
        b.gpus_per_server,
        b.gpus_per_server >= 72 ? "rack" : "server",
        g.purchase->as_of,
        g.purchase->provenance.source,
        g.purchase->provenance.confidence,
        g.purchase->provenance.note);
  }
  out << "  sources\n";
  std::set<std::string> used;
  for (const auto& [field, p] : g.provenance) {
    used.insert(p.source);
  }
  for (const auto& p : g.prices) {
    used.insert(p.provenance.source);
  }
  for (const auto& key : used) {
    const auto it = view.catalog.sources.find(key);
    if (it != view.catalog.sources.end()) {
      out << fmt::format("    [{}] {}: {}\n", key, it->second.name, it->second.location);
    }
  }
}

void render_catalog_summary(const CatalogView& view, std::ostream& out) {
  std::size_t prices = 0;
  std::size_t stale = 0;
  for (const auto& g : view.catalog.gpus) {
    for (const auto& p : g.prices) {
      ++prices;
      stale += is_stale(p.as_of, view.today, view.stale_days) ? 1 : 0;
    }
  }
  out << fmt::format("{}: ok: {} GPUs, {} prices ({} older than {} days), {} sources; catalog {}, "
                     "digest {}\n",
                     fmt::join(view.catalog.files, " + "),
                     view.catalog.gpus.size(),
                     prices,
                     stale,
                     view.stale_days,
                     view.catalog.sources.size(),
                     view.catalog.version,
                     view.catalog.digest);
}

} // namespace rightsize
