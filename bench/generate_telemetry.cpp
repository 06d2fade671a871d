// Writes deterministic GPU telemetry files (bench/telemetry_generator.hpp) into DIR: per host,
// NAME.csv (nvidia-smi --format=csv log) and NAME.prom (dcgm-exporter scrapes), for timing
// `rightsize observe` on large inputs (bench/bench_observe.cpp, docs/performance.md).
// Usage: rightsize_generate_telemetry [options] DIR
//   --hosts N        hosts, one file of each format per host (default 1)
//   --gpus N         GPUs per host (default 8)
//   --duration T     how long each file covers: seconds, or with s, m, h or d (default 1h)
//   --interval T     seconds between samples (default 30)
//   --format F       nvidia-smi, dcgm or both (default both)
//   --seed N         (default 1)

#include "telemetry_generator.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace {

using rightsize::bench::TelemetryPlan;

int usage() {
  std::cerr << "usage: rightsize_generate_telemetry [--hosts N] [--gpus N] [--duration T] "
               "[--interval T] [--format nvidia-smi|dcgm|both] [--seed N] DIR\n"
               "  writes, per host, DIR/node-NNN.csv (nvidia-smi --format=csv) and\n"
               "  DIR/node-NNN.prom (dcgm-exporter scrapes); T is seconds or a number with\n"
               "  s, m, h or d (defaults: 1 host, 8 GPUs, 1h at 30 s, both formats, seed 1)\n";
  return 2;
}

// A whole number in [lo, hi], else nullopt.
std::optional<long long> parse_count(std::string_view text, long long lo, long long hi) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

// "90", "90s", "15m", "6h", "1d" in seconds (> 0), else nullopt.
std::optional<double> parse_duration(std::string_view text) {
  double scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
    case 's':
      scale = 1;
      text.remove_suffix(1);
      break;
    case 'm':
      scale = 60;
      text.remove_suffix(1);
      break;
    case 'h':
      scale = 3600;
      text.remove_suffix(1);
      break;
    case 'd':
      scale = 86400;
      text.remove_suffix(1);
      break;
    default:
      break;
    }
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(v > 0) || v * scale > 3.2e7) {
    return std::nullopt;
  }
  return v * scale;
}

} // namespace

int main(int argc, char** argv) {
  TelemetryPlan plan;
  plan.duration_s = 3600;
  std::string format = "both";
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    std::optional<long long> count;
    std::optional<double> seconds;
    if (arg == "--hosts" && has_value && (count = parse_count(argv[++i], 1, 10000))) {
      plan.hosts = static_cast<int>(*count);
    } else if (arg == "--gpus" && has_value && (count = parse_count(argv[++i], 1, 64))) {
      plan.gpus_per_host = static_cast<int>(*count);
    } else if (arg == "--duration" && has_value && (seconds = parse_duration(argv[++i]))) {
      plan.duration_s = *seconds;
    } else if (arg == "--interval" && has_value && (seconds = parse_duration(argv[++i]))) {
      plan.interval_s = *seconds;
    } else if (arg == "--seed" && has_value && (count = parse_count(argv[++i], 0, 0xffffffffLL))) {
      plan.seed = static_cast<unsigned>(*count);
    } else if (arg == "--format" && has_value) {
      format = argv[++i];
      if (format != "nvidia-smi" && format != "dcgm" && format != "both") {
        return usage();
      }
    } else if (!arg.empty() && arg[0] != '-' && dir.empty()) {
      dir = arg;
    } else {
      return usage();
    }
  }
  if (dir.empty()) {
    return usage();
  }
  try {
    std::filesystem::create_directories(dir);
    std::size_t samples = 0;
    std::size_t bytes = 0;
    for (int h = 0; h < plan.hosts; ++h) {
      const std::string stem =
          (std::filesystem::path(dir) / rightsize::bench::host_name(h)).string();
      if (format != "dcgm") {
        const std::string csv = rightsize::bench::nvidia_smi_csv(plan, h);
        rightsize::write_file_atomically(stem + ".csv", csv);
        samples += rightsize::bench::nvidia_smi_samples_per_host(plan);
        bytes += csv.size();
      }
      if (format != "nvidia-smi") {
        const std::string prom = rightsize::bench::dcgm_text(plan, h);
        rightsize::write_file_atomically(stem + ".prom", prom);
        samples += rightsize::bench::dcgm_samples_per_host(plan);
        bytes += prom.size();
      }
    }
    std::cout << fmt::format(
        "wrote {} host{} x {} GPUs x {} samples ({} samples, {:.1f} MB) to {}\n",
        plan.hosts,
        plan.hosts == 1 ? "" : "s",
        plan.gpus_per_host,
        plan.ticks(),
        samples,
        static_cast<double>(bytes) / 1e6,
        dir);
  } catch (const rightsize::InputError& e) {
    std::cerr << "rightsize_generate_telemetry: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rightsize_generate_telemetry: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
