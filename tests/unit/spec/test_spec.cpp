// The spec reader: the example spec, bare configs, the model reference, bad input.

#include "spec_test_helpers.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::has_default;
using rightsize::test::ScratchDir;
using rightsize::test::spec_error;
using rightsize::test::tiny_config;
using rightsize::test::write_spec;

TEST_CASE("spec: the design's example spec", "[spec]") {
  ScratchDir dir;
  const auto path = write_spec(dir, R"({
    "name": "llama-3.1-8b-chat",
    "model": "models/llama/config.json",
    "precision": {"weights": "bf16", "kv_cache": "fp8", "activations": "bf16"},
    "workload": {"type": "inference", "input_tokens": 2048, "output_tokens": 512, "concurrency": 32,
                 "targets": {"output_tokens_per_s": 5000, "ttft_ms": 1000, "tpot_ms": 50,
                             "requests_per_s": 4}},
    "deployment": {"mode": "cloud", "horizon_months": 24, "growth_per_month": 0.05}
  })");
  const Spec s = load_spec(path);
  CHECK(s.name == "llama-3.1-8b-chat");
  CHECK_FALSE(s.bare_hf_config);
  CHECK(s.model.params_total == Approx(8.03e9).epsilon(0.001));
  CHECK(s.precision.weights == DType::bf16);
  CHECK(s.precision.kv_cache == DType::fp8);
  CHECK(s.workload.type == WorkloadType::inference);
  const auto& i = s.workload.inference;
  CHECK(i.input_tokens == 2048);
  CHECK(i.output_tokens == 512);
  CHECK(i.concurrency == 32);
  CHECK(i.engine == Engine::vllm);
  CHECK(to_ms(*i.targets.ttft) == Approx(1000));
  CHECK(to_ms(*i.targets.tpot) == Approx(50));
  CHECK(*i.targets.requests_per_s == 4);
  CHECK(*i.targets.output_tokens_per_s == 5000);
  CHECK(s.deployment.horizon_months == 24);
  CHECK(s.deployment.growth_per_month == Approx(0.05));
}

TEST_CASE("spec: a bare config.json takes documented defaults", "[spec]") {
  const Spec s = load_spec(config_path("llama-3.1-8b"));
  CHECK(s.bare_hf_config);
  CHECK(s.workload.type == WorkloadType::inference);
  CHECK(s.workload.inference.input_tokens == 4096);
  CHECK(s.workload.inference.output_tokens == 1024);
  CHECK_FALSE(s.workload.inference.concurrency.has_value());
  CHECK(s.precision.weights == DType::bf16); // torch_dtype
  CHECK(s.precision.kv_cache == DType::bf16);
  CHECK_FALSE(s.workload.inference.targets.ttft.has_value()); // targets are never invented
  CHECK_FALSE(s.defaults.empty());
  // vLLM serves fp32 checkpoints in fp16.
  CHECK(load_spec(config_path("gpt-j-6b")).precision.weights == DType::fp16);
}

TEST_CASE("spec: bad input is one InputError naming file, field and value", "[spec]") {
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
        "concurrency": 0}})") ==
        "spec.json:/workload/concurrency: must be between 1 and 1e+06, got 0");
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inferense"}})") ==
        "spec.json:/workload/type: must be one of inference, training, finetune, embedding, "
        "transcription, image_generation (did you mean \"inference\"?), got \"inferense\"");
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
        "input_tokens": 1e30}})") ==
        "spec.json:/workload/input_tokens: must be between 1 and 1e+07, got 1e+30");
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
        "input_tokens": 1e308}})") ==
        "spec.json:/workload/input_tokens: must be between 1 and 1e+07, got 1e+308");
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
        "input_tokens": 2.5}})") ==
        "spec.json:/workload/input_tokens: must be an integer, got 2.5");
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
        "input_tokens": -5}})") ==
        "spec.json:/workload/input_tokens: must be between 1 and 1e+07, got -5");
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
        "targets": {"ttft_ms": "fast"}}})") ==
        "spec.json:/workload/targets/ttft_ms: must be a number, got \"fast\"");
  CHECK(spec_error(R"({"model": "models/llama", "precison": "bf16"})") ==
        "spec.json:/precison: unknown field \"precison\" (did you mean \"precision\"?)");
  CHECK(
      spec_error(R"({"model": "models/llama", "precision": "bf17"})") ==
      "spec.json:/precision: unknown precision (expected one of fp32, bf16, fp16, fp8, int8, int4, "
      "nf4, fp4, mxfp4) (did you mean \"bf16\"?), got \"bf17\"");
  CHECK(spec_error(R"({"name": "x"})") ==
        "spec.json:/: neither a rightsize spec (no \"model\" field) nor a Hugging Face config.json "
        "(no \"model_type\" or \"architectures\")");
  CHECK_THAT(spec_error(R"({"model": "models/missing/config.json"})"),
             Catch::StartsWith("spec.json:/model: model path does not exist"));
  CHECK(spec_error(R"({"model": 42})") ==
        "spec.json:/model: must be a path to a config.json, an inline config object or a generic "
        "model description, got 42");
  CHECK(spec_error(
            R"({"model": "models/llama", "workload": {"type": "training", "seq_len": 4096}})") ==
        "spec.json:/workload/global_batch: required field is missing");
  CHECK(
      spec_error(R"({"model": "models/llama", "workload": {"type": "finetune", "method": "lora",
        "seq_len": 512, "lora_targets": ["q_projj"]}})") ==
      "spec.json:/workload/lora_targets/0: unknown LoRA target module (did you mean \"q_proj\"?), "
      "got \"q_projj\"");
  CHECK(spec_error(R"({"model": "models/llama", "schema_version": 2})") ==
        "spec.json:/schema_version: unsupported schema version (this rightsize reads 1), got 2");
  CHECK(spec_error(R"({"model": "models/llama", "deployment": {"pue": 0.5}})") ==
        "spec.json:/deployment/pue: must be between 1 and 5, got 0.5");
  CHECK(
      spec_error(R"({"model": {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 5, "intermediate_size": 14336,
        "vocab_size": 32000}})") ==
      "spec.json:/model/num_key_value_heads: must divide num_attention_heads (32), got 5");
  CHECK(spec_error(R"({"model": {"model_type": "llama", "hidden_size": 0, "num_hidden_layers": 32,
        "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000}})") ==
        "spec.json:/model/hidden_size: must be > 0 and <= 1e+07, got 0");
  CHECK(spec_error(R"({"model": {"model_type": "llama", "num_hidden_layers": 32,
        "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000}})") ==
        "spec.json:/model/hidden_size: required field is missing");
  CHECK(spec_error(R"({"model": {"layers": 2, "hidden_size": 64, "heads": 4, "vocab_size": 100,
        "hiden": 3}})") ==
        "spec.json:/model/hiden: unknown field \"hiden\" (did you mean \"hidden_size\"?)");
}

TEST_CASE("spec: unreadable and malformed files", "[spec]") {
  ScratchDir dir;
  CHECK_THROWS_WITH(load_spec(dir.write("empty.json", "")),
                    Catch::EndsWith("empty.json: file is empty, expected a JSON object"));
  CHECK_THROWS_WITH(load_spec(dir.path()),
                    dir.path() + ": a directory with neither config.json nor model_index.json: "
                                 "give a spec file, a Hugging Face model folder (config.json) or "
                                 "a diffusers pipeline folder (model_index.json)");
  CHECK_THROWS_WITH(load_spec(dir.write("bin.json", std::string("\x89PNG\r\n\x1a\n\0\0", 10))),
                    Catch::Contains("bin.json:1:1: not a JSON text file"));
  CHECK_THROWS_WITH(load_spec(dir.write("bad.json", "{\n  \"model\": \"x\",\n}")),
                    Catch::Contains("bad.json:3:1: invalid JSON"));
  CHECK_THROWS_WITH(load_spec(dir.path() + "/nope.json"),
                    Catch::EndsWith("nope.json: cannot read file: no such file or directory"));
  CHECK_THROWS_WITH(load_spec(dir.write("arr.json", "[1, 2]")),
                    Catch::EndsWith("arr.json:/: a spec must be a JSON object, got an array"));
}

// A model folder as the spec itself, resolved as the "model" field resolves one: config.json
// first, else a diffusers pipeline's model_index.json.
TEST_CASE("spec: a model folder reads as its config.json or model_index.json", "[spec]") {
  namespace fs = std::filesystem;
  const fs::path llama = fs::path(config_path("llama-3.1-8b")).parent_path();
  const Spec folder = load_spec(llama.string());
  CHECK(folder.file == (llama / "config.json").lexically_normal().string());
  CHECK(folder.bare_hf_config);
  CHECK(folder.model.params_total ==
        load_spec((llama / "config.json").string()).model.params_total);
  const Spec sdxl =
      load_spec(std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs/diffusion/sdxl-base-1.0");
  CHECK(sdxl.generates_images());
  CHECK(fs::path(sdxl.file).filename() == "model_index.json");
}

// Issue 16: every family rightsize does not model is refused with one line naming it, instead of
// being planned as a Llama (Jamba came out at 91.8B parameters with KV cache on all 32 layers;
// BERT as a gated decoder) or failing on a field (T5, Mamba, Whisper, diffusers).
TEST_CASE("spec: architectures not supported are refused by name", "[spec]") {
  const std::string dir = std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs/unsupported/";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases{
      {"deberta-v3-base/config.json", "deberta-v2 (no architectures given)", "encoder-only"},
      {"bart-large/config.json", "bart (BartModel)", "encoder-decoder"},
      {"wav2vec2-base-960h/config.json", "wav2vec2 (Wav2Vec2ForCTC)", "speech model"},
      {"convnext-tiny-224/config.json",
       "convnext (ConvNextForImageClassification)",
       "vision model"},
      {"sdxl-refiner-1.0/model_index.json",
       "StableDiffusionXLImg2ImgPipeline (diffusers)",
       "image-conditioned pipeline"},
      {"stable-video-diffusion-img2vid-xt/model_index.json",
       "StableVideoDiffusionPipeline (diffusers)",
       "video pipeline"},
  };
  for (const auto& [file, named, kind] : cases) {
    CAPTURE(file);
    const std::string field =
        file.find("model_index") != std::string::npos ? "/_class_name" : "/model_type";
    CHECK_THROWS_WITH(load_spec(dir + file),
                      Catch::StartsWith(dir + file + ":" + field +
                                        ": architecture not supported: " + named + ": ") &&
                          Catch::Contains(kind) &&
                          Catch::EndsWith("supported: rightsize model --list"));
  }
}

// Issue 16: an encoder-only model is planned as an embedding workload (its bare config.json
// takes one with defaults); generation or training of it is refused by name instead of planning
// a decoder.

TEST_CASE("spec: unknown families are refused, with a suggestion and the generic route", "[spec]") {
  ScratchDir dir;
  // Standard Llama fields under an unknown model_type: once read as a Llama with a warning.
  CHECK_THROWS_WITH(
      load_spec(dir.write("config.json", R"({"model_type": "mylama", "hidden_size": 1024,
      "num_hidden_layers": 4, "num_attention_heads": 8, "intermediate_size": 2816,
      "vocab_size": 32000, "torch_dtype": "bfloat16", "architectures": ["MyLamaForCausalLM"]})")),
      Catch::Contains("config.json:/model_type: architecture not supported: mylama "
                      "(MyLamaForCausalLM): not a family rightsize reads (did you mean "
                      "\"llama\"?); describe another decoder-only transformer with the spec's "
                      "generic model fields (docs/spec.md)"));
  CHECK_THROWS_WITH(load_spec(dir.write("c2.json", R"({"model_type": "weird", "foo": 1})")),
                    Catch::Contains("c2.json:/model_type: architecture not supported: weird "
                                    "(no architectures given)"));
  // Without model_type the first architecture names the family.
  CHECK_THROWS_WITH(load_spec(dir.write("c3.json", R"({"architectures": ["DebertaV2Model"]})")),
                    Catch::Contains("c3.json:/architectures: architecture not supported: "
                                    "DebertaV2 (DebertaV2Model): an encoder-only model"));
  // Vision-language models it does not read yet.
  CHECK_THROWS_WITH(
      load_spec(dir.write("ml.json", R"({"model_type": "mllama", "architectures":
          ["MllamaForConditionalGeneration"]})")),
      Catch::Contains("ml.json:/model_type: architecture not supported: mllama "
                      "(MllamaForConditionalGeneration): a vision-language model: its vision "
                      "tower and image tokens are not modelled"));
  // Hybrids rightsize does not read yet (it reads mamba, mamba2, jamba, nemotron_h,
  // granitemoehybrid, bamba, falcon_h1 and qwen3_next).
  CHECK_THROWS_WITH(load_spec(dir.write("z2.json", R"({"model_type": "zamba2", "architectures":
          ["Zamba2ForCausalLM"]})")),
                    Catch::Contains("z2.json:/model_type: architecture not supported: zamba2 "
                                    "(Zamba2ForCausalLM): a hybrid or state-space model"));
  // Inline in a spec, the pointer is the model's.
  CHECK_THROWS_WITH(
      load_spec(dir.write("spec.json", R"({"model": {"model_type": "bart"}})")),
      Catch::Contains("spec.json:/model/model_type: architecture not supported: bart"));
  // A spec pointing at a diffusers pipeline directory (model_index.json, no config.json) of a
  // pipeline that is not text-to-image.
  dir.write("inpaint/model_index.json",
            R"({"_class_name": "FluxFillPipeline", "_diffusers_version": "0.32.0"})");
  CHECK_THROWS_WITH(load_spec(dir.write("sd.json", R"({"model": "inpaint"})")),
                    Catch::Contains("model_index.json:/_class_name: architecture not supported: "
                                    "FluxFillPipeline (diffusers): an image-conditioned pipeline"));
  // A component's config.json read on its own: the pipeline's folder is what is planned.
  CHECK_THROWS_WITH(
      load_spec(
          dir.write("unet/config.json",
                    R"({"_class_name": "UNet2DConditionModel", "_diffusers_version": "0.19.0"})")),
      Catch::Contains("config.json:/_class_name: architecture not supported: UNet2DConditionModel "
                      "(diffusers): a diffusers pipeline or component config: plan the "
                      "pipeline's folder"));
}

TEST_CASE("spec: quantization configs", "[spec]") {
  ScratchDir dir;
  const auto with_quant = [&](const std::string& q) {
    return load_spec(dir.write("q/config.json", R"({"model_type": "llama", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "float16",
        "quantization_config": )" + q + "}"));
  };
  auto s = with_quant(R"({"quant_method": "gptq", "bits": 4, "group_size": 128})");
  CHECK(s.weights.bits_per_weight == Approx(4.0 + 20.0 / 128.0));
  s = with_quant(R"({"quant_method": "bitsandbytes", "load_in_4bit": true,
                     "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": false})");
  CHECK(s.weights.bits_per_weight == Approx(4.5));
  CHECK(s.precision.weights == DType::nf4);
  s = with_quant(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
      "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
      "targets": ["Linear"]}}, "ignore": ["lm_head"]})");
  CHECK(s.weights.method == "nvfp4");
  CHECK(s.weights.bits_per_weight == Approx(4.5));
  CHECK_THROWS_WITH(with_quant(R"({"quant_method": "gptqq", "bits": 4})"),
                    Catch::Contains("/quantization_config/quant_method: unsupported quantization "
                                    "method"));

  // A ModelOpt export: hf_quant_config.json beside config.json.
  dir.write("mo/hf_quant_config.json", R"({"producer": {"name": "modelopt"}, "quantization":
      {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8", "group_size": 16,
       "exclude_modules": ["lm_head"]}})");
  const auto mo =
      load_spec(dir.write("mo/config.json", R"({"model_type": "llama", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "bfloat16"})"));
  CHECK(mo.weights.method == "nvfp4");
  CHECK(mo.precision.weights == DType::fp4);
  CHECK(mo.precision.kv_cache == DType::fp8);
}
