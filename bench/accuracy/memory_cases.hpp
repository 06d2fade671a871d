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

// Appends the peak memory the project measured on one H200 (data/measured/h200-sxm.json,
// bench/gpu/README.md): transformers' generate and full and LoRA fine-tuning steps, each
// estimated on H200-SXM-141GB at tp = 1. torch's peak reserved bytes are compared with
// rightsize's per-GPU total less the CUDA context, which the allocator does not see. No
// constant was chosen with these lines in view: all are held out.
void append_measured_memory_cases(MemoryResults& out,
                                  const std::string& measured_file,
                                  const std::string& configs_dir,
                                  const Catalog& catalog,
                                  const Constants& constants);

} // namespace rightsize::accuracy
