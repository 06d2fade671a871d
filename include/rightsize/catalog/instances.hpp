#pragma once

// The instance shapes clouds sell GPUs in (data/instances.json, docs/catalog.md "Instance
// shapes"): per provider and instance type, the catalog GPU, how many, and the host that comes with
// them (vCPUs, RAM, local NVMe, network), each row sourced. `catalog show` prints a price's shape
// from it, and `catalog refresh` maps a provider's price rows to catalog GPUs with it: it is the
// documented table of which instance type holds which GPU.

#include <rightsize/catalog/catalog.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace rightsize {

struct InstanceShape {
  std::string provider; // as the catalog spells it: "AWS", "Azure", "GCP"
  std::string
      name; // as the provider's price data spells it: "p5.48xlarge", "Standard_ND96isr_H100_v5"
  std::string gpu; // the catalog GPU's name
  int gpus = 1;
  int vcpus = 0;
  double memory_gib = 0;         // host RAM
  double local_nvme_gb = 0;      // 0: none (network storage only)
  double network_gbit_per_s = 0; // the instance's network, all interfaces; 0: not documented
  Provenance provenance;

  // "8 x H100-SXM-80GB, 192 vCPU, 2048 GiB, 30.4 TB NVMe, 3200 Gb/s"
  [[nodiscard]] std::string describe() const;
};

struct InstanceTable {
  std::string file;
  std::map<std::string, CatalogSource> sources;
  std::vector<InstanceShape> shapes;

  // The shape `provider` sells as `name` (exact spelling, provider case-insensitive), or null.
  [[nodiscard]] const InstanceShape* find(const std::string& provider,
                                          const std::string& name) const;
};

// Reads and checks data/instances.json against `catalog`: every field typed and in range, sources
// known, GPU names resolved to the catalog's spelling, each (provider, name) once, and every
// catalog price that names one of these shapes stating the same GPU count. Every problem at once
// (InputErrors), each naming the file and JSON pointer.
InstanceTable
parse_instances(const nlohmann::json& json, const std::string& file, const Catalog& catalog);
InstanceTable load_instances(const std::string& path, const Catalog& catalog);

} // namespace rightsize
