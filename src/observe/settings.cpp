// The judgement settings as written, made into the analysis' options. docs/observe.md, "Options".

#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/observe/inputs.hpp>
#include <rightsize/observe/settings.hpp>

#include <fmt/format.h>

#include <array>
#include <sstream>
#include <utility>

namespace rightsize {

namespace {

// One name per GroupBy, for parsing and printing.
constexpr std::array<std::pair<GroupBy, std::string_view>, 5> k_group_by_names{{
    {GroupBy::automatic, "auto"},
    {GroupBy::owner, "owner"},
    {GroupBy::pod, "pod"},
    {GroupBy::host, "host"},
    {GroupBy::gpu, "gpu"},
}};

} // namespace

std::string_view to_string(GroupBy g) {
  for (const auto& [value, name] : k_group_by_names) {
    if (value == g) {
      return name;
    }
  }
  return "auto";
}

const std::vector<std::string>& group_by_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& row : k_group_by_names) {
      out.emplace_back(row.second);
    }
    return out;
  }();
  return names;
}

std::optional<GroupBy> group_by_named(std::string_view name) {
  for (const auto& [value, row_name] : k_group_by_names) {
    if (row_name == name) {
      return value;
    }
  }
  return std::nullopt;
}

ObserveOptions resolve_observe_options(const ObserveSettings& s, const Catalog& catalog) {
  ObserveOptions a;
  a.work_percentile = s.work_percentile;
  a.memory_percentile = s.memory_percentile;
  a.buffer = s.buffer_percent / 100;
  a.idle_below = s.idle_below_percent / 100;
  a.low_utilization_below = s.low_below_percent / 100;
  a.min_saving = s.min_saving_percent / 100;
  a.scale_out_efficiency = s.scale_out_percent / 100;
  a.min_window_s = parse_duration(s.min_window, "--min-window");
  a.min_samples_per_gpu = static_cast<int>(s.min_samples);
  if (a.idle_below > a.low_utilization_below) {
    throw InputError(
        "--idle-below",
        fmt::format("{:g}% is above --low-below {:g}%", s.idle_below_percent, s.low_below_percent));
  }
  a.group_by = group_by_named(s.group_by).value_or(GroupBy::automatic);
  a.max_gpus = static_cast<int>(s.max_gpus);
  a.mig = s.mig;
  if (s.gpus_given) {
    std::stringstream list(s.gpus);
    for (std::string name; std::getline(list, name, ',');) {
      a.gpus.push_back(catalog.resolve(name, "--gpus").name);
    }
    if (a.gpus.empty()) {
      throw InputError("--gpus", "names no GPU: give catalog names, comma-separated (L4,L40S)");
    }
  }
  for (const auto& mapping : s.gpu_models) {
    const auto eq = mapping.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == mapping.size()) {
      throw InputError(
          "--gpu-model",
          fmt::format("\"{}\" is not NAME=GPU (\"NVIDIA H100 80GB HBM3=H100\")", mapping));
    }
    a.gpu_models[mapping.substr(0, eq)] =
        catalog.resolve(mapping.substr(eq + 1), "--gpu-model").name;
  }
  a.pricing.price_kind = resolve_price_kind(s.price_kind, "--price-kind");
  if (!s.provider.empty()) {
    a.pricing.provider = resolve_provider(catalog, s.provider, "--provider");
  }
  check_price_kind(catalog, a.pricing.price_kind, a.pricing.provider, "--price-kind");
  a.pricing.hours_per_month = s.hours_per_month;
  return a;
}

} // namespace rightsize
