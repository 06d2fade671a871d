#pragma once

// The memory lines of ../shared/validation/measurements.jsonl, each turned into a rightsize spec
// and estimated, or set aside with the reason it cannot be expressed. Shared by the accuracy
// benchmark (bench/) and the reference test (tests/reference/).

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>

#include <string>
#include <vector>

namespace rightsize::accuracy {

struct MemoryCase {
  std::string id;
  std::string what;     // the workload in a few words
  std::string compared; // which predicted quantity is compared with the measurement
  double measured = 0;  // bytes, or for outcome lines 1 = fits, 0 = out of memory
  double predicted = 0;
  bool outcome = false;  // a fits / OOM line rather than a number
  bool held_out = false; // not used to choose any constant
  [[nodiscard]] double error() const { return (predicted - measured) / measured; }
};

struct Skipped {
  std::string id;
  std::string reason;
};

struct MemoryResults {
  std::vector<MemoryCase> cases;
  std::vector<Skipped> skipped;
};

// `validation_dir` holds measurements.jsonl; `configs_dir` the config.json files of
// tests/data/configs.
MemoryResults run_memory_cases(const std::string& validation_dir,
                               const std::string& configs_dir,
                               const Catalog& catalog,
                               const Constants& constants);

} // namespace rightsize::accuracy
