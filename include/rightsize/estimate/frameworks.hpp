#pragma once

// What each training framework runs (docs/model.md, "Training frameworks"): one sourced row per
// framework in src/estimate/frameworks.cpp. The training search skips the layouts a framework
// cannot run, and `estimate` refuses them with one line naming the framework and what it lacks.

#include <rightsize/estimate/memory.hpp>
#include <rightsize/spec/spec.hpp>

#include <string>
#include <string_view>

namespace rightsize {

struct FrameworkRow {
  Framework framework = Framework::megatron;
  // Tensor parallelism: any, or only over fully sharded data parallelism (zero_stage 3, FSDP2)
  // or a single replica; the search tries TP > 1 only where `search_tensor_parallel`.
  bool tensor_parallel = true;
  bool tensor_parallel_needs_zero3 = false;
  bool search_tensor_parallel = true;
  bool pipeline_parallel = true;
  int max_zero_stage_with_pipeline = 1; // the highest zero_stage pipeline stages compose with
  bool interleaved_pipeline = true;     // pipeline_interleave > 1
  bool qlora = true;                    // bitsandbytes 4-bit base weights (method qlora)
  bool qlora_model_parallel = false;    // QLoRA with TP or PP > 1
  bool lora_pipeline = true;            // LoRA with PP > 1
  std::string_view sources;             // where the row comes from
};

const FrameworkRow& framework_row(Framework framework);

// Why the spec's training framework cannot run layout `p`, or empty when it can (or the spec is
// not training). `option` is the estimate flag the refusal is about ("--pp", "--tp").
struct FrameworkRefusal {
  std::string option;
  std::string reason;
  [[nodiscard]] bool refused() const { return !reason.empty(); }
};
FrameworkRefusal framework_refusal(const Spec& spec, const Parallelism& p);

} // namespace rightsize
