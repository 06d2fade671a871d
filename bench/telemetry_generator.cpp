#include "telemetry_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <vector>

namespace rightsize::bench {

namespace {

// H100 SXM 80GB as nvidia-smi and DCGM report it.
constexpr int k_memory_total_mib = 81559;
constexpr int k_memory_reserved_mib = 584;
constexpr int k_max_sm_mhz = 1980;
constexpr int k_idle_sm_mhz = 345;
constexpr double k_power_limit_w = 700;
constexpr std::string_view k_model = "NVIDIA H100 80GB HBM3";
constexpr std::string_view k_driver = "550.54.15";

// splitmix64 (Steele, Lea, Flood 2014): the same numbers on every platform, and any sample can
// be drawn without drawing those before it.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t key(unsigned seed, int host, int gpu, std::uint64_t tick, int channel) {
  std::uint64_t h = mix(seed);
  h = mix(h ^ static_cast<std::uint64_t>(host));
  h = mix(h ^ static_cast<std::uint64_t>(gpu));
  h = mix(h ^ tick);
  return mix(h ^ static_cast<std::uint64_t>(channel));
}

// Uniform in [0, 1).
double uniform(unsigned seed, int host, int gpu, std::uint64_t tick, int channel) {
  return static_cast<double>(key(seed, host, gpu, tick, channel) >> 11) * 0x1p-53;
}

int round_int(double v) {
  return static_cast<int>(std::lround(v));
}

struct Reading {
  int util = 0;     // %
  int mem_util = 0; // %
  int used_mib = 0;
  double power_w = 0;
  int sm_mhz = 0;
  int temp_c = 0;
  unsigned mask = 0; // clocks_event_reasons
  double gr = 0;     // DCGM_FI_PROF_GR_ENGINE_ACTIVE
  double tensor = 0;
  double dram = 0;
  long long pcie_tx = 0; // bytes per second
  long long pcie_rx = 0;
};

Reading read_gpu(const TelemetryPlan& p, int host, int gpu, std::uint64_t tick) {
  const auto u = [&](int channel) { return uniform(p.seed, host, gpu, tick, channel); };
  // Per GPU, not per sample: how much memory its job holds.
  const double held = uniform(p.seed, host, gpu, 0, 99);
  Reading r;
  switch (shape_of(p, host, gpu)) {
  case WorkloadShape::idle:
    r.power_w = 68 + 4 * u(0);
    r.sm_mhz = k_idle_sm_mhz;
    r.temp_c = 30 + round_int(3 * u(1));
    r.mask = 0x1; // GPU idle
    r.pcie_tx = 18000 + round_int(500 * u(2));
    r.pcie_rx = 20000 + round_int(500 * u(3));
    break;
  case WorkloadShape::low_utilization: {
    const bool burst = u(0) < 0.3;
    r.util = burst ? 20 + round_int(25 * u(1)) : round_int(10 * u(1));
    r.mem_util = r.util * 3 / 10;
    r.used_mib = 18000 + round_int(4000 * held);
    r.power_w = 90 + 4 * r.util + 10 * u(2);
    r.sm_mhz = k_max_sm_mhz;
    r.temp_c = 38 + r.util / 5 + round_int(2 * u(3));
    r.mask = r.util == 0 ? 0x1 : 0x0;
    r.gr = r.util / 100.0 * (0.9 + 0.1 * u(4));
    r.tensor = r.gr * 0.3;
    r.dram = r.gr * 0.25;
    r.pcie_tx = 700000 + round_int(300000 * u(5));
    r.pcie_rx = 1000000 + round_int(400000 * u(6));
    break;
  }
  case WorkloadShape::saturated:
    r.util = std::min(100, 95 + round_int(5 * u(0)));
    r.mem_util = 35 + round_int(15 * u(1));
    r.used_mib = 76000 + round_int(3000 * held);
    r.power_w = 600 + 100 * u(2);
    r.sm_mhz = k_max_sm_mhz;
    if (r.power_w > 695) { // at the cap: software power cap, clocks down
      r.power_w = k_power_limit_w;
      r.mask = 0x4;
      r.sm_mhz = 1755;
    }
    r.temp_c = 62 + round_int(10 * u(3));
    r.gr = r.util / 100.0 * 0.97;
    r.tensor = 0.45 + 0.1 * u(4);
    r.dram = 0.35 + 0.1 * u(5);
    r.pcie_tx = 1400000 + round_int(200000 * u(6));
    r.pcie_rx = 2200000 + round_int(200000 * u(7));
    break;
  case WorkloadShape::memory_pressure:
    r.util = 40 + round_int(35 * u(0));
    r.mem_util = 45 + round_int(20 * u(1));
    r.used_mib = 80500 + round_int(400 * u(2)); // 98.7 % to 99.2 % of 81559 MiB
    r.power_w = 350 + 150 * u(3);
    r.sm_mhz = k_max_sm_mhz;
    r.temp_c = 50 + round_int(10 * u(4));
    r.gr = r.util / 100.0 * 0.95;
    r.tensor = 0.2 + 0.1 * u(5);
    r.dram = 0.5 + 0.2 * u(6);
    r.pcie_tx = 3000000 + round_int(1000000 * u(7));
    r.pcie_rx = 5000000 + round_int(2000000 * u(8));
    break;
  case WorkloadShape::throttled:
    r.util = 100;
    r.mem_util = 40 + round_int(10 * u(0));
    r.used_mib = 60000 + round_int(8000 * held);
    r.power_w = 695 + 5 * u(1);
    r.sm_mhz = 1400 + 15 * round_int(20 * u(2));
    r.temp_c = 84 + round_int(4 * u(3));
    // power cap + software thermal slowdown, sometimes hardware thermal slowdown too
    r.mask = u(4) < 0.15 ? 0x64 : 0x24;
    r.gr = 0.98;
    r.tensor = 0.5 + 0.05 * u(5);
    r.dram = 0.4 + 0.05 * u(6);
    r.pcie_tx = 1400000 + round_int(200000 * u(7));
    r.pcie_rx = 2200000 + round_int(200000 * u(8));
    break;
  }
  return r;
}

std::string gpu_uuid(const TelemetryPlan& p, int host, int gpu) {
  const std::uint64_t a = key(p.seed, host, gpu, 0, 1000);
  const std::uint64_t b = key(p.seed, host, gpu, 0, 1001);
  return fmt::format("GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                     a >> 32,
                     (a >> 16) & 0xffff,
                     a & 0xffff,
                     b >> 48,
                     b & 0xffffffffffffULL);
}

std::string pci_bus_id(int gpu) {
  return fmt::format("00000000:{:02X}:00.0", 0x19 + 0x11 * gpu % 0xe0);
}

// "2024/05/21 14:03:07.123" for `t` seconds since the epoch (UTC).
void format_timestamp(double t, std::string& out) {
  const auto ms_total = static_cast<long long>(std::llround(t * 1000));
  const long long secs = ms_total / 1000;
  const auto ms = static_cast<int>(ms_total % 1000);
  long long days = secs / 86400;
  const auto sod = static_cast<int>(secs % 86400);
  // civil_from_days (Howard Hinnant, http://howardhinnant.github.io/date_algorithms.html)
  days += 719468;
  const long long era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const long long y = static_cast<long long>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
  fmt::format_to(std::back_inserter(out),
                 "{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}",
                 y,
                 m,
                 d,
                 sod / 3600,
                 sod / 60 % 60,
                 sod % 60,
                 ms);
}

struct Family {
  std::string_view name;
  std::string_view type;
  std::string_view help;
};

// The default-counters.csv fields (dcgm-exporter etc/default-counters.csv) with their help
// texts, plus the power limit and the clock event reasons.
constexpr std::array<Family, 20> k_families = {{
    {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."},
    {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz)."},
    {"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C)."},
    {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W)."},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
     "counter",
     "Total energy consumption since boot (in mJ)."},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries."},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %)."},
    {"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."},
    {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB)."},
    {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."},
    {"DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB)."},
    {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons (bit mask)."},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active."},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
     "gauge",
     "Ratio of cycles the tensor (HMMA) pipe is active."},
    {"DCGM_FI_PROF_DRAM_ACTIVE",
     "gauge",
     "Ratio of cycles the device memory interface is active sending or receiving data."},
    {"DCGM_FI_PROF_PCIE_TX_BYTES",
     "gauge",
     "The rate of data transmitted over the PCIe bus - including both protocol headers and data "
     "payloads - in bytes per second."},
    {"DCGM_FI_PROF_PCIE_RX_BYTES",
     "gauge",
     "The rate of data received over the PCIe bus - including both protocol headers and data "
     "payloads - in bytes per second."},
}};

// Family `f`'s value in reading `r`, as dcgm-exporter prints it (%d or %f).
void format_value(std::size_t f, const Reading& r, double energy_mj, std::string& out) {
  auto out_it = std::back_inserter(out);
  switch (f) {
  case 0:
    fmt::format_to(out_it, "{}", r.sm_mhz);
    break;
  case 1:
    fmt::format_to(out_it, "2619");
    break;
  case 2:
    fmt::format_to(out_it, "{}", r.temp_c - 3);
    break;
  case 3:
    fmt::format_to(out_it, "{}", r.temp_c);
    break;
  case 4:
    fmt::format_to(out_it, "{:f}", r.power_w);
    break;
  case 5:
    fmt::format_to(out_it, "{:f}", k_power_limit_w);
    break;
  case 6:
    fmt::format_to(out_it, "{}", static_cast<long long>(energy_mj));
    break;
  case 7:
    fmt::format_to(out_it, "0");
    break;
  case 8:
    fmt::format_to(out_it, "{}", r.util);
    break;
  case 9:
    fmt::format_to(out_it, "{}", r.mem_util);
    break;
  case 10:
    fmt::format_to(out_it, "0");
    break;
  case 11:
    fmt::format_to(out_it, "{}", k_memory_total_mib - r.used_mib - k_memory_reserved_mib);
    break;
  case 12:
    fmt::format_to(out_it, "{}", r.used_mib);
    break;
  case 13:
    fmt::format_to(out_it, "{}", k_memory_reserved_mib);
    break;
  case 14:
    fmt::format_to(out_it, "{}", r.mask);
    break;
  case 15:
    fmt::format_to(out_it, "{:f}", r.gr);
    break;
  case 16:
    fmt::format_to(out_it, "{:f}", r.tensor);
    break;
  case 17:
    fmt::format_to(out_it, "{:f}", r.dram);
    break;
  case 18:
    fmt::format_to(out_it, "{}", r.pcie_tx);
    break;
  case 19:
    fmt::format_to(out_it, "{}", r.pcie_rx);
    break;
  default:
    break;
  }
}

} // namespace

std::string_view to_string(WorkloadShape s) {
  switch (s) {
  case WorkloadShape::idle:
    return "idle";
  case WorkloadShape::low_utilization:
    return "low_utilization";
  case WorkloadShape::saturated:
    return "saturated";
  case WorkloadShape::memory_pressure:
    return "memory_pressure";
  case WorkloadShape::throttled:
    return "throttled";
  }
  return "unknown";
}

std::size_t TelemetryPlan::ticks() const {
  if (!(interval_s > 0) || !(duration_s > 0)) {
    return 0;
  }
  return static_cast<std::size_t>(std::ceil(duration_s / interval_s - 1e-9));
}

std::string host_name(int host) {
  return fmt::format("node-{:03}", host);
}

WorkloadShape shape_of(const TelemetryPlan& plan, int host, int gpu) {
  const auto first = static_cast<int>(key(plan.seed, host, 0, 0, 7) % k_workload_shapes);
  return static_cast<WorkloadShape>((first + gpu) % k_workload_shapes);
}

std::string nvidia_smi_csv(const TelemetryPlan& plan, int host) {
  std::string out;
  const std::size_t ticks = plan.ticks();
  out.reserve(static_cast<std::size_t>(plan.gpus_per_host) * ticks * 200 + 400);
  out += "timestamp, index, uuid, name, pci.bus_id, utilization.gpu [%], utilization.memory [%], "
         "memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W], clocks.sm "
         "[MHz], clocks.max.sm [MHz], temperature.gpu, clocks_event_reasons.active\n";
  std::vector<std::string> prefix; // ", index, uuid, name, bus id, " per GPU
  prefix.reserve(static_cast<std::size_t>(plan.gpus_per_host));
  for (int g = 0; g < plan.gpus_per_host; ++g) {
    prefix.push_back(
        fmt::format(", {}, {}, {}, {}, ", g, gpu_uuid(plan, host, g), k_model, pci_bus_id(g)));
  }
  for (std::size_t tick = 0; tick < ticks; ++tick) {
    const double t = plan.start_s + static_cast<double>(tick) * plan.interval_s;
    for (int g = 0; g < plan.gpus_per_host; ++g) {
      const Reading r = read_gpu(plan, host, g, tick);
      // nvidia-smi queries the GPUs one after the other: a few milliseconds apart.
      format_timestamp(t + 0.002 * g, out);
      out += prefix[static_cast<std::size_t>(g)];
      fmt::format_to(std::back_inserter(out),
                     "{} %, {} %, {} MiB, {} MiB, {:.2f} W, {:.2f} W, {} MHz, {} MHz, {}, "
                     "0x{:016X}\n",
                     r.util,
                     r.mem_util,
                     r.used_mib,
                     k_memory_total_mib,
                     r.power_w,
                     k_power_limit_w,
                     r.sm_mhz,
                     k_max_sm_mhz,
                     r.temp_c,
                     r.mask);
    }
  }
  return out;
}

std::string dcgm_text(const TelemetryPlan& plan, int host) {
  const std::size_t ticks = plan.ticks();
  std::string out;
  out.reserve(static_cast<std::size_t>(plan.gpus_per_host) * ticks * k_families.size() * 290);
  std::vector<std::string> labels;
  labels.reserve(static_cast<std::size_t>(plan.gpus_per_host));
  for (int g = 0; g < plan.gpus_per_host; ++g) {
    const WorkloadShape shape = shape_of(plan, host, g);
    std::string l =
        fmt::format("gpu=\"{}\",UUID=\"{}\",pci_bus_id=\"{}\",device=\"nvidia{}\",modelName=\"{}\","
                    "Hostname=\"{}\",DCGM_FI_DRIVER_VERSION=\"{}\"",
                    g,
                    gpu_uuid(plan, host, g),
                    pci_bus_id(g),
                    g,
                    k_model,
                    host_name(host),
                    k_driver);
    if (shape != WorkloadShape::idle) {
      // Kubernetes names are DNS labels: "memory-pressure", not "memory_pressure".
      std::string workload(to_string(shape));
      std::replace(workload.begin(), workload.end(), '_', '-');
      l += fmt::format(R"(,container="main",namespace="team-{}",pod="{}-{}-gpu{}")",
                       workload,
                       workload,
                       host_name(host),
                       g);
    }
    labels.push_back(std::move(l));
  }
  std::vector<Reading> readings(static_cast<std::size_t>(plan.gpus_per_host));
  std::vector<double> energy_mj(readings.size(), 0);
  for (std::size_t tick = 0; tick < ticks; ++tick) {
    for (std::size_t g = 0; g < readings.size(); ++g) {
      readings[g] = read_gpu(plan, host, static_cast<int>(g), tick);
      energy_mj[g] += readings[g].power_w * plan.interval_s * 1000;
    }
    for (std::size_t f = 0; f < k_families.size(); ++f) {
      const Family& family = k_families[f];
      fmt::format_to(std::back_inserter(out),
                     "# HELP {} {}\n# TYPE {} {}\n",
                     family.name,
                     family.help,
                     family.name,
                     family.type);
      for (std::size_t g = 0; g < readings.size(); ++g) {
        out += family.name;
        out += '{';
        out += labels[g];
        out += "} ";
        format_value(f, readings[g], energy_mj[g], out);
        out += '\n';
      }
    }
  }
  return out;
}

std::size_t nvidia_smi_samples_per_host(const TelemetryPlan& plan) {
  return plan.ticks() * static_cast<std::size_t>(plan.gpus_per_host) * 10;
}

std::size_t dcgm_samples_per_host(const TelemetryPlan& plan) {
  return plan.ticks() * static_cast<std::size_t>(plan.gpus_per_host) * 13;
}

} // namespace rightsize::bench
