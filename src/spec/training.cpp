// Training and fine-tuning workloads (docs/spec.md, "Training"), and the training precision
// presets.

#include "reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rightsize {

std::optional<TrainingPrecision> training_precision_preset(std::string_view name) {
  TrainingPrecision p;
  p.name = std::string(name);
  if (name == "mixed") {
    return p; // bf16 weights, fp32 gradients, fp32 master weights, fp32 states (Megatron-LM)
  }
  if (name == "mixed-bf16-grads") {
    p.gradients = DType::bf16; // ZeRO paper's 2 + 2 + 12 bytes
    return p;
  }
  if (name == "pure-bf16") {
    p.gradients = DType::bf16; // bf16 parameters updated in place, torch optimizer states in bf16
    p.master_weights = std::nullopt;
    p.optimizer_states = DType::bf16;
    return p;
  }
  if (name == "fp8") {
    // Transformer Engine: mixed's bf16 weights, fp32 gradients, master weights and states, with
    // the GEMM inputs cast to fp8 (NVIDIA Transformer Engine, fp8 autocast; Megatron-LM --fp8).
    p.compute = DType::fp8;
    return p;
  }
  if (name == "fp32" || name == "amp") {
    p.weights = DType::fp32; // amp: fp32 parameters, bf16 autocast compute
    p.gradients = DType::fp32;
    p.master_weights = std::nullopt;
    p.optimizer_states = DType::fp32;
    return p;
  }
  return std::nullopt;
}

std::vector<std::string> training_precision_presets() {
  return {"mixed", "mixed-bf16-grads", "pure-bf16", "fp8", "fp32", "amp"};
}

} // namespace rightsize

namespace rightsize::spec_reader {

using detail::Range;

namespace {

const std::vector<std::string>& lora_target_names() {
  static const std::vector<std::string> names{
      "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "all-linear"};
  return names;
}

} // namespace

void read_training(const FieldReader& r,
                   WorkloadType type,
                   TrainingWorkload& w,
                   std::vector<std::string>& defaults) {
  std::vector<std::string> known{"type",
                                 "seq_len",
                                 "global_batch",
                                 "micro_batch",
                                 "optimizer",
                                 "zero_stage",
                                 "recompute",
                                 "sequence_parallel",
                                 "pipeline_interleave",
                                 "flash_attention",
                                 "tokens",
                                 "deadline_hours",
                                 "framework",
                                 "training_precision",
                                 "dropout"};
  if (type == WorkloadType::finetune) {
    known.insert(known.end(), {"method", "lora_rank", "lora_targets"});
  }
  r.reject_unknown(known);
  w.seq_len = r.integer("seq_len", Range{1, limits::k_max_tokens});
  w.micro_batch = r.optional_integer("micro_batch", Range{1, limits::k_max_batch}).value_or(1);
  if (auto gb = r.optional_integer("global_batch", Range{1, limits::k_max_batch})) {
    w.global_batch = *gb;
  } else if (type == WorkloadType::finetune) {
    w.global_batch = w.micro_batch;
    defaults.push_back("workload.global_batch = micro_batch (default for finetune)");
  } else {
    throw InputError(r.where("global_batch"), "required field is missing");
  }
  if (w.global_batch % w.micro_batch != 0) {
    r.member("global_batch")
        .fail(fmt::format("must be a multiple of micro_batch ({})", w.micro_batch));
  }
  if (r.has("optimizer")) {
    w.optimizer = r.choice("optimizer", k_optimizer_names);
  }
  w.zero_stage =
      static_cast<int>(r.optional_integer("zero_stage", Range::between(0, 3)).value_or(0));
  if (r.has("recompute")) {
    w.recompute = r.choice("recompute", k_recompute_names);
  }
  w.sequence_parallel = r.optional_boolean("sequence_parallel").value_or(true);
  w.pipeline_interleave = static_cast<int>(
      r.optional_integer("pipeline_interleave", Range::between(1, 64)).value_or(1));
  w.flash_attention = r.optional_boolean("flash_attention").value_or(true);
  w.dropout = r.optional_boolean("dropout").value_or(false);
  w.framework = type == WorkloadType::finetune ? Framework::transformers : Framework::megatron;
  if (r.has("framework")) {
    w.framework = r.choice("framework", k_framework_names);
  }
  if (r.has("training_precision")) {
    const auto field = r.member("training_precision");
    if (field.json().is_string()) {
      const auto name = field.as_string();
      const auto preset = training_precision_preset(name);
      if (!preset) {
        field.fail("unknown training precision preset (expected one of " +
                   FieldReader::join(training_precision_presets()) + ")" +
                   did_you_mean(name, training_precision_presets()));
      }
      w.precision = *preset;
    } else {
      const auto o = r.object("training_precision");
      o.reject_unknown({"weights", "gradients", "master_weights", "optimizer_states", "compute"});
      const auto dtype_of = [&](const char* key, DType fallback) {
        if (!o.has(key)) {
          return fallback;
        }
        const auto name = o.string(key);
        const auto d = parse_dtype(name);
        if (!d || element_bits(*d) < 8) {
          o.member(key).fail("must be fp32, bf16, fp16 or fp8" + did_you_mean(name, dtype_names()));
        }
        return *d;
      };
      TrainingPrecision p;
      p.name = "custom";
      p.weights = dtype_of("weights", p.weights);
      p.gradients = dtype_of("gradients", p.gradients);
      p.optimizer_states = dtype_of("optimizer_states", p.optimizer_states);
      if (o.has("master_weights") && o.member("master_weights").json() == "none") {
        p.master_weights = std::nullopt;
      } else {
        p.master_weights = dtype_of("master_weights", DType::fp32);
      }
      p.compute = dtype_of("compute", p.compute);
      if (p.compute == DType::fp32) {
        o.member("compute").fail("must be bf16, fp16 or fp8 (the GEMM inputs)");
      }
      w.precision = p;
    }
  } else {
    defaults.push_back("workload.training_precision = mixed: bf16 weights, fp32 gradients, fp32 "
                       "master weights, fp32 optimizer states (default)");
  }
  w.tokens = r.optional_number("tokens", Range::positive(limits::k_max_train_tokens));
  if (auto h = r.optional_number("deadline_hours", Range::positive(1e6))) {
    w.deadline = hours(*h);
  }
  if (type == WorkloadType::finetune) {
    w.method = r.choice("method", k_finetune_method_names);
    if (w.method != FinetuneMethod::full) {
      w.lora_rank = r.optional_integer("lora_rank", Range::between(1, 65536)).value_or(16);
      if (r.has("lora_targets")) {
        for (const auto& e : r.array("lora_targets")) {
          const auto name = e.as_string();
          const auto& valid = lora_target_names();
          if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
            e.fail("unknown LoRA target module" + did_you_mean(name, valid));
          }
          w.lora_targets.push_back(name);
        }
      } else {
        w.lora_targets = {"q_proj", "v_proj"};
        defaults.push_back("workload.lora_targets = [q_proj, v_proj] (PEFT's default for "
                           "Llama-style models)");
      }
    } else if (r.has("lora_rank") || r.has("lora_targets")) {
      r.member(r.has("lora_rank") ? "lora_rank" : "lora_targets")
          .fail_plain("only applies to method lora or qlora");
    }
  }
}

// Training past the context is how context is extended (long-context fine-tuning), so it is
// only worth a warning.
void warn_long_training(Spec& spec) {
  const long long seq_len = spec.workload.training.seq_len;
  if (spec.workload.is_training() && spec.model.max_position > 0 &&
      seq_len > spec.model.max_position) {
    spec.warnings.push_back(
        fmt::format("seq_len of {} tokens exceeds {}", seq_len, describe_context(spec.model)));
  }
}

} // namespace rightsize::spec_reader
