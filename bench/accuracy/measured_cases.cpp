#include "measured_cases.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>

namespace rightsize::accuracy {

namespace {

// The model a row names, from tests/data/configs, built with `layers` layers when the
// measurement built fewer than the config has (the 70B on one GPU, bench/gpu/README.md).
std::string config_path(const std::string& configs_dir, const std::string& model) {
  return configs_dir + "/" + model + "/config.json";
}

nlohmann::json model_config(const std::string& configs_dir, const std::string& model, int layers) {
  const std::string path = config_path(configs_dir, model);
  std::ifstream in(path);
  if (!in) {
    throw InputError(path, "cannot read the model a measurement names");
  }
  nlohmann::json config = nlohmann::json::parse(in);
  if (layers > 0) {
    config["num_hidden_layers"] = layers;
  }
  return config;
}

std::shared_ptr<Prepared> prepare(const nlohmann::json& spec_json,
                                  const std::string& id,
                                  const Gpu& gpu,
                                  const Constants& constants) {
  Spec spec = parse_spec(spec_json, id);
  Parallelism p;
  MemoryEstimate memory = estimate_memory(spec, gpu, p, constants);
  return std::make_shared<Prepared>(Prepared{std::move(spec), gpu, p, std::move(memory)});
}

} // namespace

nlohmann::json read_measured(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    throw InputError(file, "cannot read the measurements");
  }
  return nlohmann::json::parse(in);
}

bool measured(const nlohmann::json& row, const char* field) {
  return !row.contains("error") && row.contains(field);
}

nlohmann::json measured_generate_spec(const nlohmann::json& row, const std::string& configs_dir) {
  return {{"model", config_path(configs_dir, row.at("model").get<std::string>())},
          {"precision", "bf16"},
          {"workload",
           {{"type", "inference"},
            {"engine", "transformers"},
            {"input_tokens", row.at("input_tokens")},
            {"output_tokens", row.at("output_tokens")},
            {"concurrency", row.at("batch")}}}};
}

nlohmann::json measured_training_spec(const nlohmann::json& row, const std::string& configs_dir) {
  const std::string method = row.at("method");
  nlohmann::json w{{"type", "finetune"},
                   {"method", method},
                   {"seq_len", row.at("seq_len")},
                   {"micro_batch", row.at("micro_batch")},
                   {"global_batch", row.at("micro_batch")},
                   {"optimizer", "adamw"},
                   {"recompute", row.at("recompute")},
                   {"framework", "transformers"},
                   {"tokens", 1e6}};
  if (method == "full") {
    w["training_precision"] = "amp";
  } else {
    w["lora_rank"] = 16;
    w["lora_targets"] = {"q_proj", "k_proj", "v_proj", "o_proj"};
  }
  return {{"model", config_path(configs_dir, row.at("model").get<std::string>())},
          {"precision", "bf16"},
          {"workload", w}};
}

void append_measured_cases(PerfCases& out,
                           const std::string& measured_file,
                           const std::string& configs_dir,
                           const Catalog& catalog,
                           const Constants& constants,
                           const Efficiency& efficiency) {
  const nlohmann::json j = read_measured(measured_file);
  const Gpu& gpu = catalog.resolve("H200-SXM-141GB", measured_file);
  const std::string family = efficiency.family_name(gpu);
  const std::string tag = "h200";

  // transformers' generate: a static batch, all prompts prefilled at once, then decoded together.
  for (const auto& row : j.at("generate")) {
    if (!measured(row, "ttft_ms")) {
      continue;
    }
    const std::string model = row.at("model");
    const long long batch = row.at("batch");
    const long long isl = row.at("input_tokens");
    const long long osl = row.at("output_tokens");
    const std::string id = fmt::format("{}-generate:{}|b{}|{}/{}", tag, model, batch, isl, osl);
    auto prepared = prepare(measured_generate_spec(row, configs_dir), id, gpu, constants);
    const bool held = held_out_key(id);
    for (const bool ttft : {true, false}) {
      out.cases.push_back(
          {id,
           ttft ? "ttft" : "tpot",
           tag + "-generate",
           family,
           "transformers",
           row.at(ttft ? "ttft_ms" : "tpot_ms").get<double>(),
           held,
           [prepared, &constants, ttft](const Efficiency& eff) {
             const auto r = estimate_inference(
                 prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff, constants);
             return to_ms(ttft ? r.ttft : r.tpot);
           },
           {}});
      describe_serving(out.cases.back(), *prepared, efficiency, constants);
    }
  }

  // The GPU work of one decode step (CUDA graph replay) and of one prefill step: the step physics
  // alone, no engine's fixed costs (bench/gpu/steps.py).
  for (const bool decode : {true, false}) {
    for (const auto& row : j.at(decode ? "decode" : "prefill")) {
      if (!measured(row, decode ? "step_ms" : "prefill_ms")) {
        continue;
      }
      const std::string model = row.at("model");
      const int layers = row.at("layers");
      const long long batch = row.at("batch");
      const long long tokens = row.at(decode ? "context" : "input_tokens");
      const std::string id = fmt::format("{}-steps:{}|L{}|{}|b{}|{}",
                                         tag,
                                         model,
                                         layers,
                                         decode ? "decode" : "prefill",
                                         batch,
                                         tokens);
      auto prepared = prepare({{"model", model_config(configs_dir, model, layers)},
                               {"precision", "bf16"},
                               {"workload",
                                {{"type", "inference"},
                                 {"input_tokens", tokens},
                                 {"output_tokens", 1},
                                 {"concurrency", batch}}}},
                              id,
                              gpu,
                              constants);
      const auto b = static_cast<double>(batch);
      const auto n = static_cast<double>(tokens);
      out.cases.push_back(
          {id,
           decode ? "decode_step" : "prefill",
           tag + "-steps",
           family,
           "none",
           row.at(decode ? "step_ms" : "prefill_ms").get<double>(),
           held_out_key(id),
           [prepared, &constants, decode, b, n](const Efficiency& eff) {
             const StepTime s =
                 decode
                     ? decode_step_time(
                           prepared->spec, prepared->gpu, prepared->p, eff, constants, b, n)
                     : prefill_step_time(prepared->spec, prepared->gpu, prepared->p, eff, b * n, n);
             return to_ms(s.gpu_work());
           },
           {}});
    }
  }

  // Training steps: full fine-tuning with fp32 master weights and bf16 autocast, and LoRA.
  for (const auto& row : j.at("train")) {
    if (!measured(row, "step_ms_median")) {
      continue;
    }
    const std::string model = row.at("model");
    const std::string method = row.at("method");
    const long long mb = row.at("micro_batch");
    const long long seq = row.at("seq_len");
    const std::string recompute = row.at("recompute");
    const std::string id =
        fmt::format("{}-train:{}|{}|mb{}|{}|recompute {}", tag, model, method, mb, seq, recompute);
    auto prepared = prepare(measured_training_spec(row, configs_dir), id, gpu, constants);
    out.cases.push_back(
        {id,
         "step_time",
         tag + "-train",
         family,
         "pytorch",
         row.at("step_ms_median").get<double>(),
         held_out_key(id),
         [prepared](const Efficiency& eff) {
           return to_ms(
               estimate_training(prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff)
                   .step);
         },
         {}});
  }
}

} // namespace rightsize::accuracy
