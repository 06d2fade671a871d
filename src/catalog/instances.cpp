// data/instances.json: the instance shapes clouds sell GPUs in, read and checked against the
// catalog. instances.hpp; docs/catalog.md, "Instance shapes".

#include "names.hpp"
#include "problems.hpp"

#include <rightsize/catalog/instances.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <set>
#include <utility>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

std::string InstanceShape::describe() const {
  std::string out = fmt::format("{} x {}, {} vCPU, {:g} GiB", gpus, gpu, vcpus, memory_gib);
  if (local_nvme_gb > 0) {
    out += local_nvme_gb >= 1000 ? fmt::format(", {:g} TB NVMe", local_nvme_gb / 1000)
                                 : fmt::format(", {:g} GB NVMe", local_nvme_gb);
  }
  if (network_gbit_per_s > 0) {
    out += fmt::format(", {:g} Gb/s", network_gbit_per_s);
  }
  return out;
}

const InstanceShape* InstanceTable::find(const std::string& provider,
                                         const std::string& name) const {
  const std::string key = detail::squash(provider);
  for (const auto& s : shapes) {
    if (s.name == name && detail::squash(s.provider) == key) {
      return &s;
    }
  }
  return nullptr;
}

namespace {

InstanceShape read_shape(const FieldReader& e,
                         const std::map<std::string, CatalogSource>& sources,
                         const Catalog& catalog) {
  e.reject_unknown({"provider",
                    "name",
                    "gpu",
                    "gpus",
                    "vcpus",
                    "memory_gib",
                    "local_nvme_gb",
                    "network_gbit_per_s",
                    "source",
                    "note",
                    "confidence"});
  InstanceShape s;
  s.provider = e.string("provider");
  s.name = e.string("name");
  s.gpu = catalog.resolve(e.string("gpu"), e.where("gpu")).name;
  s.gpus = static_cast<int>(e.integer("gpus", Range::between(1, 72)));
  s.vcpus = static_cast<int>(e.integer("vcpus", Range::between(1, 4096)));
  s.memory_gib = e.number("memory_gib", Range::positive(65536));
  s.local_nvme_gb = e.optional_number("local_nvme_gb", Range::non_negative(1e6)).value_or(0);
  s.network_gbit_per_s = e.optional_number("network_gbit_per_s", Range::positive(1e5)).value_or(0);
  detail::read_provenance(e, sources, s.provenance);
  return s;
}

// A catalog price naming a listed shape must state its GPU count, and the same one.
void check_prices(const InstanceTable& table,
                  const Catalog& catalog,
                  const std::string& file,
                  detail::Problems& problems) {
  for (const auto& g : catalog.gpus) {
    for (const auto& p : g.prices) {
      const InstanceShape* s = p.instance.empty() ? nullptr : table.find(p.provider, p.instance);
      if (s == nullptr) {
        continue;
      }
      if (s->gpu != g.name || !p.shape_stated || s->gpus != p.gpus_per_instance) {
        problems.add(file + ":/instances",
                     fmt::format("{} {} holds {} x {}, but the catalog prices it for {} with "
                                 "{} GPUs per instance",
                                 s->provider,
                                 s->name,
                                 s->gpus,
                                 s->gpu,
                                 g.name,
                                 p.shape_stated ? std::to_string(p.gpus_per_instance)
                                                : std::string("unstated")));
      }
    }
  }
}

} // namespace

InstanceTable
parse_instances(const nlohmann::json& json, const std::string& file, const Catalog& catalog) {
  detail::Problems problems;
  const FieldReader root(json, file);
  InstanceTable table;
  table.file = file;
  problems.guard([&] {
    if (!json.is_object()) {
      root.fail("must be an object with schema_version, sources and instances");
    }
    root.reject_unknown({"schema_version", "description", "sources", "instances"});
    if (root.integer("schema_version", Range::between(1, 1)) != 1) {
      root.member("schema_version").fail("must be 1");
    }
  });
  problems.throw_if_any();
  table.sources = detail::read_sources(root, problems);
  std::set<std::pair<std::string, std::string>> seen;
  problems.guard([&] {
    for (const auto& e : root.array("instances")) {
      problems.guard([&] {
        InstanceShape s = read_shape(e, table.sources, catalog);
        if (!seen.emplace(detail::squash(s.provider), s.name).second) {
          e.member("name").fail(fmt::format("{} {} is listed twice", s.provider, s.name));
        }
        table.shapes.push_back(std::move(s));
      });
    }
  });
  if (problems.count() == 0) {
    check_prices(table, catalog, file, problems);
  }
  problems.throw_if_any();
  return table;
}

InstanceTable load_instances(const std::string& path, const Catalog& catalog) {
  return parse_instances(detail::load_json_file(path), path, catalog);
}

} // namespace rightsize
