#include <rightsize/observe/telemetry.hpp>

#include <iterator>

namespace rightsize {

std::string_view to_string(Metric m) {
  switch (m) {
  case Metric::gpu_utilization:
    return "gpu_utilization";
  case Metric::memory_utilization:
    return "memory_utilization";
  case Metric::memory_used:
    return "memory_used";
  case Metric::memory_total:
    return "memory_total";
  case Metric::power:
    return "power";
  case Metric::power_limit:
    return "power_limit";
  case Metric::sm_clock:
    return "sm_clock";
  case Metric::sm_clock_max:
    return "sm_clock_max";
  case Metric::temperature:
    return "temperature";
  case Metric::sm_active:
    return "sm_active";
  case Metric::sm_occupancy:
    return "sm_occupancy";
  case Metric::tensor_active:
    return "tensor_active";
  case Metric::dram_active:
    return "dram_active";
  case Metric::pcie_tx:
    return "pcie_tx";
  case Metric::pcie_rx:
    return "pcie_rx";
  case Metric::nvlink_tx:
    return "nvlink_tx";
  case Metric::nvlink_rx:
    return "nvlink_rx";
  case Metric::throttled:
    return "throttled";
  case Metric::count:
    break;
  }
  return "unknown";
}

std::string GpuIdentity::label() const {
  std::string out = host.empty() ? std::string("?") : host;
  out += "/gpu";
  out += index.empty() ? (uuid.empty() ? std::string("?") : uuid) : index;
  if (!mig_profile.empty()) {
    out += "/" + mig_profile;
  }
  if (!mig_instance.empty()) {
    out += (mig_profile.empty() ? "/#" : "#") + mig_instance;
  }
  return out;
}

std::optional<double> SeriesSummary::at(double percentile) const {
  if (percentile >= 100) {
    return max;
  }
  if (const auto it = percentiles.find(percentile); it != percentiles.end()) {
    return it->second;
  }
  return std::nullopt;
}

void Telemetry::merge(Telemetry&& other) {
  gpus.insert(gpus.end(),
              std::make_move_iterator(other.gpus.begin()),
              std::make_move_iterator(other.gpus.end()));
  warnings.insert(warnings.end(),
                  std::make_move_iterator(other.warnings.begin()),
                  std::make_move_iterator(other.warnings.end()));
  samples += other.samples;
  engine_pods.insert(engine_pods.end(),
                     std::make_move_iterator(other.engine_pods.begin()),
                     std::make_move_iterator(other.engine_pods.end()));
}

} // namespace rightsize
