#include "dcgm_fields.hpp"

#include <algorithm>

namespace rightsize::dcgm {

namespace {
constexpr double k_mib = 1024.0 * 1024.0;
constexpr double k_percent = 0.01;
constexpr double k_mhz = 1e6;
} // namespace

const std::vector<Field>& fields() {
  static const std::vector<Field> all = {
      {"DCGM_FI_DEV_GPU_UTIL", Role::metric, Metric::gpu_utilization, k_percent},
      {"DCGM_FI_DEV_MEM_COPY_UTIL", Role::metric, Metric::memory_utilization, k_percent},
      {"DCGM_FI_DEV_FB_USED", Role::metric, Metric::memory_used, k_mib},
      {"DCGM_FI_DEV_FB_FREE", Role::fb_free, Metric::memory_total, k_mib},
      {"DCGM_FI_DEV_FB_RESERVED", Role::fb_reserved, Metric::memory_total, k_mib},
      {"DCGM_FI_DEV_POWER_USAGE", Role::metric, Metric::power, 1.0},
      {"DCGM_FI_DEV_POWER_MGMT_LIMIT", Role::metric, Metric::power_limit, 1.0},
      {"DCGM_FI_DEV_SM_CLOCK", Role::metric, Metric::sm_clock, k_mhz},
      {"DCGM_FI_DEV_GPU_TEMP", Role::metric, Metric::temperature, 1.0},
      {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", Role::metric, Metric::gpu_utilization, 1.0},
      {"DCGM_FI_PROF_SM_ACTIVE", Role::metric, Metric::sm_active, 1.0},
      {"DCGM_FI_PROF_SM_OCCUPANCY", Role::metric, Metric::sm_occupancy, 1.0},
      {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", Role::metric, Metric::tensor_active, 1.0},
      {"DCGM_FI_PROF_DRAM_ACTIVE", Role::metric, Metric::dram_active, 1.0},
      {"DCGM_FI_PROF_PCIE_TX_BYTES", Role::metric, Metric::pcie_tx, 1.0},
      {"DCGM_FI_PROF_PCIE_RX_BYTES", Role::metric, Metric::pcie_rx, 1.0},
      {"DCGM_FI_PROF_NVLINK_TX_BYTES", Role::metric, Metric::nvlink_tx, 1.0},
      {"DCGM_FI_PROF_NVLINK_RX_BYTES", Role::metric, Metric::nvlink_rx, 1.0},
      {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", Role::throttle_mask, Metric::throttled, 1.0},
      {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", Role::throttle_mask, Metric::throttled, 1.0},
  };
  return all;
}

const Field* find_field(std::string_view name) {
  const auto& all = fields();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Field& f) { return f.name == name; });
  return it == all.end() ? nullptr : &*it;
}

GpuIdentity identity_from_labels(const std::vector<std::pair<std::string, std::string>>& labels,
                                 const std::string& source) {
  GpuIdentity id;
  id.source = source;
  std::string host_fallback;
  // exported_* labels win: Prometheus renames the exporter's own pod labels to them when the
  // scrape target (the exporter's pod) has labels of the same name.
  std::string exported_namespace;
  std::string exported_pod;
  std::string exported_container;
  for (const auto& [key, value] : labels) {
    if (key == "gpu") {
      id.index = value;
    } else if (key == "UUID" || (key == "uuid" && id.uuid.empty())) {
      // "uuid" with --use-old-namespace (internal/pkg/collector/gpu_collector.go)
      id.uuid = value;
    } else if (key == "modelName") {
      id.model_name = value;
    } else if (key == "Hostname" || key == "hostname") {
      // "hostname" since dcgm-exporter commit d5e5f51 (#655, "Rename Hostname label")
      id.host = value;
    } else if ((key == "host" || key == "instance") && host_fallback.empty()) {
      host_fallback = value;
    } else if (key == "GPU_I_PROFILE") {
      id.mig_profile = value;
    } else if (key == "GPU_I_ID") {
      id.mig_instance = value;
    } else if (key == "namespace" || (key == "pod_namespace" && id.namespace_name.empty())) {
      // pod_namespace, pod_name, container_name: --use-old-namespace
      // (internal/pkg/transformation/const.go)
      id.namespace_name = value;
    } else if (key == "pod" || (key == "pod_name" && id.pod.empty())) {
      id.pod = value;
    } else if (key == "container" || (key == "container_name" && id.container.empty())) {
      id.container = value;
    } else if (key == "exported_namespace") {
      exported_namespace = value;
    } else if (key == "exported_pod") {
      exported_pod = value;
    } else if (key == "exported_container") {
      exported_container = value;
    }
  }
  if (id.host.empty()) {
    id.host = host_fallback;
  }
  if (!exported_pod.empty()) {
    id.namespace_name = exported_namespace;
    id.pod = exported_pod;
    id.container = exported_container;
  }
  return id;
}

} // namespace rightsize::dcgm
