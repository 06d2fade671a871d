#pragma once

// dcgm-exporter's field names and labels, shared by the file parser (dcgm_text.cpp) and the live
// Prometheus reader (prometheus.cpp), which see the same series. Sources: dcgm-exporter's
// etc/default-counters.csv and dcp-metrics-included.csv (field, type, unit), NVML's
// nvmlClocksThrottleReasons bits (nvml.h); docs/observe.md, "Inputs".

#include <rightsize/observe/telemetry.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize::dcgm {

enum class Role : std::uint8_t {
  metric,        // the value, times `scale`, is `metric`
  fb_free,       // MiB free: memory_total = used + free (+ reserved)
  fb_reserved,   // MiB reserved by the driver
  throttle_mask, // an nvmlClocksThrottleReasons bit mask: throttled = mask & k_limiting_reasons
};

struct Field {
  std::string_view name;
  Role role;
  Metric metric; // for Role::metric
  double scale;  // exporter unit -> SI (MiB -> bytes, % -> fraction, MHz -> Hz)
};

// Power cap (0x4), hardware slowdown (0x8), software thermal (0x20), hardware thermal (0x40),
// power brake (0x80). Not idle (0x1), application clocks (0x2), sync boost (0x10), display (0x100).
inline constexpr unsigned long long k_limiting_reasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

// Every field observe reads, each once.
const std::vector<Field>& fields();
// The field named `name` (exact, as the exporter spells it), or null.
const Field* find_field(std::string_view name);

// A GPU's identity from the exporter's labels: gpu, UUID, modelName, Hostname or hostname (or
// host, instance as a fallback for the host), GPU_I_PROFILE, GPU_I_ID, namespace, pod, container
// (and exported_namespace, exported_pod, exported_container, which Prometheus writes when the
// scrape target has its own).
GpuIdentity identity_from_labels(const std::vector<std::pair<std::string, std::string>>& labels,
                                 const std::string& source);

} // namespace rightsize::dcgm
