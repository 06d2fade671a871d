#pragma once

// The project's own GPU measurements (data/measured/*.json, bench/gpu/README.md) turned into
// predictions beside the validation data's: transformers' generate (TTFT, TPOT), the GPU work of
// decode and prefill steps (the step physics without engine costs), and training steps.

#include "perf_cases.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace rightsize::accuracy {

// data/measured/<gpu>.json, read whole (an InputError naming the file when it cannot be read).
nlohmann::json read_measured(const std::string& file);

// Whether `row` holds `field`: a measurement bench/gpu took, not one it recorded as failed.
bool measured(const nlohmann::json& row, const char* field);

// The rightsize spec of one measured row (bench/gpu/measure.py), shared by the speed and memory
// comparisons. generate: transformers, bf16, concurrency = batch, the measured lengths. train:
// finetune at global batch = micro-batch, AdamW, the measured recompute, framework transformers;
// full fine-tuning in the "amp" recipe (fp32 weights, gradients and moments, bf16 autocast), LoRA
// r 16 on q, k, v, o.
nlohmann::json measured_generate_spec(const nlohmann::json& row, const std::string& configs_dir);
nlohmann::json measured_training_spec(const nlohmann::json& row, const std::string& configs_dir);

// Appends the cases of one measurement file to `out`. One configuration in four is held out by
// the same hash as the validation rows.
void append_measured_cases(PerfCases& out,
                           const std::string& measured_file,
                           const std::string& configs_dir,
                           const Catalog& catalog,
                           const Constants& constants,
                           const Efficiency& efficiency);

} // namespace rightsize::accuracy
