// The name table of each enum of the spec (spec.hpp) and of DType (model/dtype.hpp): every value
// prints and parses back, a spec reads every name, and an unknown name keeps its did-you-mean
// error.

#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::config_path;

namespace {

template <class E> void check_round_trip(const NameTable<E>& table, std::size_t values) {
  CHECK(table.values().size() == values);
  for (const E value : table.values()) {
    CAPTURE(table.name(value));
    CHECK(table.find(table.name(value)) == value);
  }
  // Every row, aliases included, parses to its own value.
  for (const NameRow<E>& row : table) {
    CAPTURE(row.name);
    CHECK(table.find(row.name) == row.value);
  }
}

// The spec's reading of `workload` on Llama-3.1-8B (without a type: merged over an inference
// workload).
Spec read(const nlohmann::json& workload, const nlohmann::json& deployment = nullptr) {
  nlohmann::json j = {{"model", config_path("llama-3.1-8b")}, {"workload", workload}};
  if (!workload.contains("type")) {
    j["workload"] = {{"type", "inference"}, {"input_tokens", 512}};
    if (workload.is_object()) {
      j["workload"].update(workload);
    }
  }
  if (!deployment.is_null()) {
    j["deployment"] = deployment;
  }
  return parse_spec(j, "spec.json");
}

std::string error_of(const nlohmann::json& workload, const nlohmann::json& deployment = nullptr) {
  try {
    (void)read(workload, deployment);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

nlohmann::json training(const nlohmann::json& extra) {
  nlohmann::json w = {{"type", "training"}, {"seq_len", 4096}, {"global_batch", 8}};
  w.update(extra);
  return w;
}

} // namespace

TEST_CASE("names: every enum of the spec prints and parses back", "[spec][names]") {
  check_round_trip(k_workload_type_names, 6);
  check_round_trip(k_engine_names, 4);
  check_round_trip(k_optimizer_names, 5);
  check_round_trip(k_recompute_names, 3);
  check_round_trip(k_finetune_method_names, 3);
  check_round_trip(k_framework_names, 3);
  check_round_trip(k_deployment_mode_names, 2);
  check_round_trip(k_dtype_names, 9);
  // to_string is the table's first row.
  CHECK(to_string(Engine::tensorrt_llm) == "tensorrt-llm");
  CHECK(to_string(WorkloadType::image_generation) == "image_generation");
  CHECK(to_string(Optimizer::adam_8bit) == "adam-8bit");
  CHECK(to_string(DeploymentMode::onprem) == "onprem");
  CHECK(to_string(DType::fp8) == "fp8");
  CHECK(parse_dtype("Float8_E4M3FN") == DType::fp8);
  CHECK(dtype_names() == std::vector<std::string>{
                             "fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4", "fp4", "mxfp4"});
}

TEST_CASE("names: a spec reads every name of each table", "[spec][names]") {
  for (const NameRow<Engine>& row : k_engine_names) {
    CHECK(read({{"engine", row.name}}).workload.inference.engine == row.value);
  }
  for (const NameRow<Optimizer>& row : k_optimizer_names) {
    CHECK(read(training({{"optimizer", row.name}})).workload.training.optimizer == row.value);
  }
  for (const NameRow<Recompute>& row : k_recompute_names) {
    CHECK(read(training({{"recompute", row.name}})).workload.training.recompute == row.value);
  }
  for (const NameRow<Framework>& row : k_framework_names) {
    CHECK(read(training({{"framework", row.name}})).workload.training.framework == row.value);
  }
  for (const NameRow<DeploymentMode>& row : k_deployment_mode_names) {
    CHECK(read({}, {{"mode", row.name}}).deployment.mode == row.value);
  }
  // Case does not matter.
  CHECK(read({{"engine", "SGLang"}}).workload.inference.engine == Engine::sglang);
}

TEST_CASE("names: an unknown name lists every row and suggests the nearest", "[spec][names]") {
  CHECK(error_of({{"engine", "vlm"}}) ==
        "spec.json:/workload/engine: must be one of vllm, sglang, tensorrt-llm, transformers (did "
        "you mean \"vllm\"?), got \"vlm\"");
  CHECK(error_of(training({{"optimizer", "adamw8bit"}})) ==
        "spec.json:/workload/optimizer: must be one of adamw, adam, sgd, adafactor, adam-8bit, "
        "8-bit adam, adamw-8bit (did you mean \"adam-8bit\" or \"adamw-8bit\"?), got "
        "\"adamw8bit\"");
  CHECK(error_of(training({{"recompute", "ful"}})) ==
        "spec.json:/workload/recompute: must be one of none, selective, full (did you mean "
        "\"full\"?), got \"ful\"");
  CHECK(error_of(training({{"framework", "megatorn"}})) ==
        "spec.json:/workload/framework: must be one of megatron, deepspeed, transformers (did you "
        "mean \"megatron\"?), got \"megatorn\"");
  CHECK(error_of({}, {{"mode", "on_prem"}}) ==
        "spec.json:/deployment/mode: must be one of cloud, onprem, on-prem (did you mean "
        "\"onprem\" or \"on-prem\"?), got \"on_prem\"");
  CHECK(error_of({{"type", "finetun"}, {"seq_len", 2048}}) ==
        "spec.json:/workload/type: must be one of inference, training, finetune, embedding, "
        "transcription, image_generation (did you mean \"finetune\"?), got \"finetun\"");
  nlohmann::json finetune = {{"type", "finetune"}, {"seq_len", 2048}, {"method", "lorra"}};
  CHECK(error_of(finetune) == "spec.json:/workload/method: must be one of full, lora, qlora (did "
                              "you mean \"lora\"?), got \"lorra\"");
}
