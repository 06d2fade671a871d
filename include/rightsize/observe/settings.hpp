#pragma once

// The judgement settings of `rightsize observe` as a person writes them (percentages, GPU names,
// NAME=GPU pairs, a provider and price kind) made into the analysis' ObserveOptions: fractions,
// catalog names, prices resolved against the catalog. docs/observe.md, "Options".

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/observe/observe.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

struct ObserveSettings {
  // Percentiles, 1..100.
  double work_percentile = 95;
  double memory_percentile = 100;
  // Percentages, 0..100 (the buffer up to 500).
  double buffer_percent = 20;
  double idle_below_percent = 5;
  double low_below_percent = 40;
  double min_saving_percent = 10;
  double scale_out_percent = 90;
  std::string min_window = "10m"; // --min-window: the shortest telemetry window judged
  long min_samples = 10;          // --min-samples: the fewest work samples per GPU judged
  std::string group_by = "auto";  // auto, owner, pod, host, gpu
  std::string gpus;               // --gpus: catalog names, comma-separated
  bool gpus_given = false;        // --gpus was given (an empty list is then an error)
  long max_gpus = 8;              // most GPUs per workload in a recommendation
  bool mig = true;
  std::vector<std::string> gpu_models; // NAME=GPU: an observed name and a catalog name
  std::string provider;                // empty: any
  std::string price_kind = "on_demand";
  double hours_per_month = 730;
};

// `s` checked and resolved against `catalog`. Throws InputError naming the option: --idle-below
// above --low-below, a --gpus list that names no GPU or an unknown one, a --gpu-model that is not
// NAME=GPU, an unknown provider or price kind, or a price kind the catalog has none of.
ObserveOptions resolve_observe_options(const ObserveSettings& s, const Catalog& catalog);

// The --group-by names, in the order the help lists them ("auto", "owner", "pod", "host",
// "gpu"), and back:
// nullopt for a name that is none of them.
const std::vector<std::string>& group_by_names();
std::optional<GroupBy> group_by_named(std::string_view name);

} // namespace rightsize
