// What each training framework runs: one row per framework, each with its sources (read for
// issue 43; the quotes are in docs/model.md, "Training frameworks").

#include <rightsize/core/error.hpp>
#include <rightsize/estimate/frameworks.hpp>

#include <fmt/format.h>

#include <array>

namespace rightsize {

namespace {

// megatron: Megatron-LM / Megatron Core 0.20 (NVIDIA/Megatron-LM@d98e8a64): TP, PP, CP, EP and
//   the interleaved schedule; with PP only the distributed optimizer (ZeRO-1): torch FSDP2 "is
//   not supported with pipeline parallelism" (arguments.py:1034-1035), Megatron-FSDP is
//   documented with TP, CP and EP (docs/user-guide/parallelism-guide.md:77); LoRA through
//   Megatron Bridge, no QLoRA.
// deepspeed: DeepSpeed 0.19.6 (deepspeedai/DeepSpeed@edaa7221): the pipeline engine asserts
//   "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism" (runtime/pipe/engine.py:76-77)
//   and runs only TrainSchedule, plain 1F1B (runtime/pipe/schedule.py:189); TP through
//   Megatron-DeepSpeed or AutoTP; QLoRA only as PEFT's single-GPU-per-replica path (peft
//   docs/source/accelerate/deepspeed.md); LoRA inside a PipelineModule: no source, refused.
// transformers: HF Trainer / Accelerate 1.15 / PEFT 0.20: Accelerate's ParallelismConfig has no
//   pipeline dimension (src/accelerate/parallelism_config.py:34-78) and its DeepSpeed
//   integration "doesn't support Pipeline Parallelism" (docs/source/usage_guides/deepspeed.md:709);
//   TP composes with data parallelism only over FSDP2: "composing DDP + TP is currently not
//   supported" (parallelism_config.py:336-341), needs transformers v5 and a model with a tp_plan,
//   so the search keeps TP 1 (the common Trainer/PEFT recipe); bitsandbytes 4-bit layers have no
//   TP hooks (QLoRA: TP 1).
constexpr std::array<FrameworkRow, 3> k_rows{{
    {Framework::megatron,
     true,
     false,
     true,
     true,
     1,
     true,
     false,
     false,
     true,
     "Megatron-LM arguments.py, parallelism-guide.md"},
    {Framework::deepspeed,
     true,
     false,
     true,
     true,
     1,
     false,
     true,
     false,
     false,
     "DeepSpeed runtime/pipe/engine.py, schedule.py; PEFT deepspeed.md"},
    {Framework::transformers,
     true,
     true,
     false,
     false,
     -1,
     false,
     true,
     false,
     true,
     "Accelerate parallelism_config.py, usage_guides/deepspeed.md"},
}};

std::string name_of(Framework f) {
  return std::string(to_string(f));
}

} // namespace

const FrameworkRow& framework_row(Framework framework) {
  for (const FrameworkRow& r : k_rows) {
    if (r.framework == framework) {
      return r;
    }
  }
  throw InternalError(fmt::format("no framework row for {}", to_string(framework)));
}

FrameworkRefusal framework_refusal(const Spec& spec, const Parallelism& p) {
  if (!spec.workload.is_training()) {
    return {};
  }
  const TrainingWorkload& w = spec.workload.training;
  const FrameworkRow& row = framework_row(w.framework);
  const std::string name = name_of(w.framework);
  const bool qlora = w.method == FinetuneMethod::qlora;
  const bool lora = w.method == FinetuneMethod::lora;
  if (qlora && !row.qlora) {
    return {"--gpu",
            fmt::format("framework {} has no QLoRA (bitsandbytes 4-bit base weights): use method "
                        "lora, or framework transformers",
                        name)};
  }
  if (qlora && !row.qlora_model_parallel && (p.tp > 1 || p.pp > 1)) {
    return {p.tp > 1 ? "--tp" : "--pp",
            fmt::format("framework {} runs QLoRA (bitsandbytes 4-bit) without tensor or pipeline "
                        "parallelism: use --tp 1 --pp 1 with zero_stage 3 to spread the base model",
                        name)};
  }
  if (p.pp > 1 && !row.pipeline_parallel) {
    return {"--pp",
            fmt::format("framework {} has no pipeline parallelism (HF Trainer/Accelerate have no "
                        "pipeline dimension; their DeepSpeed integration \"doesn't support "
                        "Pipeline Parallelism\"): use --pp 1, or framework deepspeed (zero_stage "
                        "<= 1) or megatron",
                        name)};
  }
  if (p.pp > 1 && w.zero_stage > row.max_zero_stage_with_pipeline) {
    return {"--pp",
            fmt::format("framework {} runs pipeline stages with zero_stage <= {}, not {} ({}): "
                        "use --pp 1, or zero_stage {}",
                        name,
                        row.max_zero_stage_with_pipeline,
                        w.zero_stage,
                        w.framework == Framework::deepspeed
                            ? "\"ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism\", "
                              "deepspeed/runtime/pipe/engine.py"
                            : "Megatron shards gradients and weights with TP, CP and EP only",
                        row.max_zero_stage_with_pipeline)};
  }
  if (p.pp > 1 && w.pipeline_interleave > 1 && !row.interleaved_pipeline) {
    return {"--pp",
            fmt::format("framework {} runs its pipeline as plain 1F1B, without interleaved "
                        "stages: use pipeline_interleave 1, or framework megatron",
                        name)};
  }
  if (p.pp > 1 && lora && !row.lora_pipeline) {
    return {"--pp",
            fmt::format("framework {} runs LoRA without pipeline stages: use --pp 1", name)};
  }
  if (p.tp > 1 && row.tensor_parallel_needs_zero3 && p.dp > 1 && w.zero_stage != 3) {
    return {"--tp",
            fmt::format("framework {} composes tensor parallelism with data parallelism only over "
                        "FSDP2 (accelerate: \"composing DDP + TP is currently not supported\"): "
                        "use zero_stage 3, or --tp 1",
                        name)};
  }
  return {};
}

} // namespace rightsize
