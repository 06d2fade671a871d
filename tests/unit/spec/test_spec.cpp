#include "test_paths.hpp"

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
using rightsize::test::ScratchDir;

namespace {

// A spec file beside a copy of the Llama-3.1-8B config, so relative paths resolve.
std::string write_spec(const ScratchDir& dir, const std::string& body) {
  std::ifstream in(config_path("llama-3.1-8b"));
  std::stringstream config;
  config << in.rdbuf();
  dir.write("models/llama/config.json", config.str());
  return dir.write("spec.json", body);
}

std::string spec_error(const std::string& body) {
  ScratchDir dir;
  const auto path = write_spec(dir, body);
  try {
    load_spec(path);
  } catch (const InputError& e) {
    // Make the message independent of the scratch directory.
    std::string m = e.what();
    const auto pos = m.find(path);
    return pos == std::string::npos ? m : m.replace(pos, path.size(), "spec.json");
  }
  return "no error";
}

} // namespace

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

TEST_CASE("spec: precision as one string, inline config and generic model", "[spec]") {
  ScratchDir dir;
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "fp8"})"));
  CHECK(s.precision.weights == DType::fp8);
  CHECK(s.precision.kv_cache == DType::fp8);
  CHECK(s.precision.activations == DType::bf16);
  CHECK(s.weights.method == "fp8");
  // No engine caches keys and values in 4 bits: "int4" and "nf4" keep the 16-bit KV cache, fp4
  // weights get fp8 (an audit found "int4" asking for an int4 KV cache that rejected every GPU).
  for (const char* four : {"int4", "nf4"}) {
    s = load_spec(
        write_spec(dir, fmt::format(R"({{"model": "models/llama", "precision": "{}"}})", four)));
    CHECK(s.precision.kv_cache == DType::bf16);
    CHECK(element_bits(s.precision.weights) == 4);
  }
  s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "fp4"})"));
  CHECK(s.precision.kv_cache == DType::fp8);
  s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "int8"})"));
  CHECK(s.precision.kv_cache == DType::int8);

  s = load_spec(write_spec(dir, R"({"model": {"model_type": "llama", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "bfloat16"}})"));
  CHECK(s.model.params_total == Approx(8.03e9).epsilon(0.001));

  s = load_spec(write_spec(dir, R"({"model": {"params": 13e9, "layers": 40, "hidden_size": 5120,
      "heads": 40, "vocab_size": 32000, "intermediate_size": 13824}})"));
  CHECK(s.model.params_total == 13e9);
  CHECK(s.model.param_source == "spec");
  CHECK(s.model.family == "generic");
  CHECK(s.model.kv_heads == 40);
}

TEST_CASE("spec: activations are stated or defaulted; 4-bit only as float W4A4", "[spec]") {
  ScratchDir dir;
  // The "fp8" shorthand keeps bf16 activations for storage but states nothing: the math stays
  // W8A8 (docs/model.md, "Compute precision").
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "fp8"})"));
  CHECK_FALSE(s.precision.activations_stated());
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "fp8", "activations": "bf16"}})"));
  CHECK(s.precision.activations_stated());
  CHECK(s.precision.kv_cache == DType::bf16);
  // Stated for fp8 weights: a variant the planner tries with other weights deploys as usual.
  Spec variant = s;
  variant.precision.weights = DType::fp4;
  CHECK_FALSE(variant.precision.activations_stated());
  // NVFP4 and MXFP4 W4A4: the KV cache defaults to fp8, activation tensors count as bf16.
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "fp4", "activations": "nvfp4"}})"));
  CHECK(s.precision.activations == DType::fp4);
  CHECK(s.precision.kv_cache == DType::fp8);
  CHECK(activation_element_bytes(s.precision).si() == 2.0);
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "mxfp4", "activations": "mxfp4", "kv_cache": "bf16"}})"));
  CHECK(s.precision.activations == DType::mxfp4);
  CHECK(s.precision.kv_cache == DType::bf16);
  CHECK(activation_element_bytes(s.precision).si() == 2.0);
  // fp8 activations are stored as one byte, as before.
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "fp8", "activations": "fp8"}})"));
  CHECK(activation_element_bytes(s.precision).si() == 1.0);
  // Integer and nf4 activations have no tensor-core path; 4-bit floats need 4-bit float weights.
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "int4", "activations": "int4"}})") ==
        "spec.json:/precision/activations: must be at least 8-bit, or fp4/mxfp4 with fp4 or mxfp4 "
        "weights (W4A4), got \"int4\"");
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "fp4", "activations": "nf4"}})") ==
        "spec.json:/precision/activations: must be at least 8-bit, or fp4/mxfp4 with fp4 or mxfp4 "
        "weights (W4A4), got \"nf4\"");
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "bf16", "activations": "fp4"}})") ==
        "spec.json:/precision/activations: 4-bit activations need fp4 or mxfp4 weights (W4A4), "
        "not bf16, got \"fp4\"");
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "int4", "activations": "mxfp4"}})") ==
        "spec.json:/precision/activations: 4-bit activations need fp4 or mxfp4 weights (W4A4), "
        "not int4, got \"mxfp4\"");
}

TEST_CASE("spec: the fp8 training recipe", "[spec]") {
  ScratchDir dir;
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 4096, "global_batch": 64, "training_precision": "fp8"}})"));
  const TrainingPrecision& fp8 = s.workload.training.precision;
  CHECK(fp8.name == "fp8");
  CHECK(fp8.compute == DType::fp8);
  CHECK(fp8.weights == DType::bf16); // Transformer Engine keeps mixed's states
  CHECK(fp8.gradients == DType::fp32);
  CHECK(fp8.master_weights == DType::fp32);
  CHECK(fp8.optimizer_states == DType::fp32);
  CHECK(training_precision_preset("mixed")->compute == DType::bf16);
  s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 4096, "global_batch": 64, "training_precision": {"gradients": "bf16",
      "compute": "fp8"}}})"));
  CHECK(s.workload.training.precision.compute == DType::fp8);
  CHECK(s.workload.training.precision.gradients == DType::bf16);
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 4096, "global_batch": 64, "training_precision": {"compute": "fp32"}}})") ==
        "spec.json:/workload/training_precision/compute: must be bf16, fp16 or fp8 (the GEMM "
        "inputs), got \"fp32\"");
}

TEST_CASE("spec: training and fine-tuning workloads", "[spec]") {
  ScratchDir dir;
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "training",
      "seq_len": 8192, "global_batch": 512, "micro_batch": 1, "optimizer": "adamw",
      "zero_stage": 1, "recompute": "selective", "tokens": 1e12, "deadline_hours": 720}})"));
  CHECK(s.workload.type == WorkloadType::training);
  CHECK(s.workload.training.seq_len == 8192);
  CHECK(s.workload.training.zero_stage == 1);
  CHECK(*s.workload.training.tokens == 1e12);
  CHECK(to_hours(*s.workload.training.deadline) == Approx(720));

  s = load_spec(write_spec(dir, R"({"model": "models/llama", "workload": {"type": "finetune",
      "method": "qlora", "lora_rank": 64, "lora_targets": ["q_proj", "v_proj", "down_proj"],
      "seq_len": 2048, "micro_batch": 4}})"));
  CHECK(s.workload.training.method == FinetuneMethod::qlora);
  CHECK(s.precision.weights == DType::nf4); // QLoRA's base weights
  CHECK(s.weights.method == "bitsandbytes");
  CHECK(s.workload.training.global_batch == 4);
  CHECK(s.workload.training.lora_targets.size() == 3);
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
        "spec.json:/workload/input_tokens: must be an integer, got 1e+30");
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
TEST_CASE("spec: encoder-only models are planned as embedding workloads", "[spec][embedding]") {
  const std::string bert = config_path("encoder/bert-base-uncased");
  const Spec bare = load_spec(bert);
  CHECK(bare.workload.type == WorkloadType::embedding);
  CHECK(bare.workload.inference.input_tokens == 512);
  CHECK(bare.workload.inference.output_tokens == 0);
  CHECK_FALSE(bare.workload.inference.concurrency);
  CHECK(bare.model.params_total == 109'482'240);
  CHECK(bare.model.torch_dtype == DType::fp32); // no torch_dtype: transformers loads fp32
  CHECK(std::find(bare.defaults.begin(),
                  bare.defaults.end(),
                  "workload.input_tokens = 512 (default for an embedding workload: 512-token "
                  "chunks)") != bare.defaults.end());
  ScratchDir dir;
  // A shorter context cuts the default.
  std::ifstream in(bert);
  auto small = nlohmann::json::parse(in);
  small["max_position_embeddings"] = 128;
  const Spec cut = load_spec(dir.write("config.json", small.dump()));
  CHECK(cut.workload.inference.input_tokens == 128);
  // Generation or training of an encoder is refused at the workload's type.
  const std::string refusal =
      "bert is an encoder-only model (embeddings, reranking, classification): it does not "
      "generate and rightsize does not plan its training; plan it as an embedding workload "
      "(\"type\": \"embedding\")";
  const auto inference = dir.write(
      "s.json",
      R"({"model": ")" + bert + R"(", "workload": {"type": "inference", "input_tokens": 256}})");
  CHECK_THROWS_WITH(load_spec(inference), inference + ":/workload/type: " + refusal);
  CHECK_THROWS_WITH(load_spec(inference, SpecUse::describe),
                    inference + ":/workload/type: " + refusal);
  // No workload: an embedding one with defaults.
  const Spec without = load_spec(dir.write("t.json", R"({"model": ")" + bert + R"("})"));
  CHECK(without.workload.is_embedding());
  // The embedding workload's own fields and targets.
  const auto full =
      dir.write("e.json", R"({"model": ")" + bert + R"(", "workload": {"type": "embedding",
      "input_tokens": 256, "concurrency": 32, "engine": "sglang",
      "targets": {"sequences_per_s": 500, "latency_ms": 80}}})");
  const Spec e = load_spec(full);
  CHECK(e.workload.inference.input_tokens == 256);
  CHECK(e.workload.inference.concurrency == 32);
  CHECK(e.workload.inference.engine == Engine::sglang);
  CHECK(e.workload.inference.targets.requests_per_s == 500.0);
  CHECK(e.workload.inference.targets.ttft == milliseconds(80));
  CHECK_FALSE(e.workload.inference.targets.tpot);
}

TEST_CASE("spec: an embedding workload refuses what it does not have", "[spec][embedding]") {
  const std::string bert = config_path("encoder/bert-base-uncased");
  const auto error = [&](const std::string& workload) {
    ScratchDir dir;
    const auto path =
        dir.write("s.json", R"({"model": ")" + bert + R"(", "workload": )" + workload + "}");
    try {
      load_spec(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK_THAT(error(R"({"type": "embedding", "output_tokens": 10})"),
             Catch::StartsWith(":/workload/output_tokens: unknown field"));
  CHECK_THAT(error(R"({"type": "embedding", "targets": {"tpot_ms": 10}})"),
             Catch::StartsWith(":/workload/targets/tpot_ms: unknown field"));
  CHECK(error(R"({"type": "embedding", "input_tokens": 600})") ==
        ":/workload/input_tokens: 600 tokens per sequence exceed the model's context of 512 "
        "tokens (max_position_embeddings), past its learned position embeddings: split the text "
        "into shorter chunks or plan a model with a longer context");
  CHECK(error(R"({"type": "embedding", "engine": "tensorrt-llm"})") ==
        ":/workload/engine: rightsize does not model TensorRT-LLM for embedding workloads: use "
        "vllm, sglang or transformers, got \"tensorrt-llm\"");
  CHECK_THAT(error(R"({"type": "embedding", "targets": {"sequences_per_s": -1}})"),
             Catch::StartsWith(":/workload/targets/sequences_per_s: "));
}

// Issue 16: T5 is planned as text-to-text generation (until 2026-11-28 it was refused with
// "not planned yet"); Whisper is planned as a transcription workload only.
TEST_CASE("spec: encoder-decoder models: T5 generates, Whisper transcribes", "[spec]") {
  const std::string t5_refusal =
      "t5 is a text-to-text encoder-decoder model (translation, summarization): rightsize plans "
      "its generation (\"type\": \"inference\"), not its training, which is not modelled (the "
      "encoder's and cross-attention's activations and FLOPs)";
  const std::string flan = config_path("encdec/flan-t5-base");
  // A bare config.json: generation on transformers with T5's default lengths.
  const Spec t5 = load_spec(flan);
  CHECK(t5.workload.type == WorkloadType::inference);
  CHECK(t5.workload.inference.engine == Engine::transformers);
  CHECK(t5.model.encoder_positions == 512);
  CHECK(t5.workload.inference.input_tokens == 1);
  CHECK(t5.workload.inference.output_tokens == 128);
  CHECK(t5.defaults.front() == "input is a bare config.json of a text-to-text encoder-decoder "
                               "model: generation workload with defaults");
  CHECK(t5.warnings.empty());
  const Spec described = load_spec(flan, SpecUse::describe);
  CHECK(described.model.params_total == 247'577'856);
  CHECK(described.model.encoder_positions == 0);
  CHECK(described.defaults.front() ==
        "input is a bare config.json of an encoder-decoder model: no workload");
  ScratchDir dir;
  const auto spec = [&](const std::string& workload) {
    return dir.write("t5.json", R"({"model": ")" + flan + R"(", "workload": )" + workload + "}");
  };
  // Training, fine-tuning and the other workloads: one line at /workload/type.
  for (const char* type : {"training", "finetune", "embedding"}) {
    const auto file = spec(fmt::format(R"({{"type": "{}"}})", type));
    CHECK_THROWS_WITH(load_spec(file), file + ":/workload/type: " + t5_refusal);
  }
  const auto transcribing = spec(R"({"type": "transcription"})");
  CHECK_THROWS_WITH(load_spec(transcribing),
                    transcribing + ":/workload/type: a transcription workload needs a "
                                   "speech-recognition model (Whisper), got t5 (a text-to-text "
                                   "encoder-decoder)");
  // Engines that do not run T5: one line each, naming the engine and why.
  const auto vllm = spec(R"({"type": "inference", "engine": "vllm"})");
  CHECK_THROWS_WITH(load_spec(vllm),
                    vllm + ":/workload/engine: rightsize plans t5 text-to-text generation on "
                           "transformers only (vLLM has no T5 model: its registry lists no "
                           "T5ForConditionalGeneration and dropped every encoder-decoder but "
                           "Whisper with its V0 engine (vllm/model_executor/models/registry.py)), "
                           "got \"vllm\"");
  const auto sglang = spec(R"({"type": "inference", "engine": "sglang"})");
  CHECK_THROWS_WITH(load_spec(sglang),
                    Catch::Contains(":/workload/engine: rightsize plans t5 text-to-text "
                                    "generation on transformers only (SGLang has no T5 model"));
  const auto trt = spec(R"({"type": "inference", "engine": "tensorrt-llm"})");
  CHECK_THROWS_WITH(load_spec(trt), Catch::Contains("cross_kv_cache_fraction"));
  const auto images = spec(R"({"type": "inference", "images_per_request": 1})");
  CHECK_THROWS_WITH(load_spec(images),
                    images + ":/workload/images_per_request: t5 reads text: a text-to-text "
                             "workload has no images");
  // Given lengths: the input is the encoder's; past T5's 512 pre-training tokens, a warning.
  const Spec long_input = load_spec(spec(
      R"({"type": "inference", "input_tokens": 2048, "output_tokens": 64, "concurrency": 8})"));
  CHECK(long_input.model.encoder_positions == 2048);
  CHECK(long_input.workload.inference.output_tokens == 64);
  CHECK(long_input.workload.inference.concurrency == 8);
  REQUIRE(long_input.warnings.size() == 1);
  CHECK_THAT(long_input.warnings.front(),
             Catch::StartsWith("2048 input tokens: T5 was pre-trained on 512-token inputs"));
  // A spec without a workload: generation with T5's defaults.
  const auto no_workload = dir.write("b.json", R"({"model": ")" + flan + R"("})");
  CHECK(load_spec(no_workload).model.encoder_positions == 512);

  // A bare Whisper config.json: a transcription workload with defaults.
  const std::string whisper = config_path("encdec/whisper-tiny");
  const Spec bare = load_spec(whisper);
  CHECK(bare.workload.is_transcription());
  const auto& inf = bare.workload.inference;
  REQUIRE(inf.transcription);
  CHECK(inf.transcription->window_seconds == 30);
  CHECK(inf.transcription->audio_seconds == 30);
  CHECK(inf.transcription->windows == 1);
  CHECK(inf.input_tokens == 4);
  CHECK(inf.output_tokens == 100);
  CHECK_FALSE(inf.concurrency);
  CHECK(bare.defaults.front() == "input is a bare config.json of a speech-recognition model: "
                                 "transcription workload with defaults");
  const auto without = dir.write("t.json", R"({"model": ")" + whisper + R"("})");
  CHECK(load_spec(without).workload.is_transcription());

  // Another workload on Whisper, or transcription on a model that is not Whisper.
  const auto generating = dir.write(
      "s.json",
      R"({"model": ")" + whisper + R"(", "workload": {"type": "inference", "input_tokens": 256}})");
  CHECK_THROWS_WITH(load_spec(generating),
                    generating + ":/workload/type: whisper is a speech-recognition model: plan "
                                 "it as a transcription workload (\"type\": \"transcription\")");
  const auto llama = dir.write("l.json",
                               R"({"model": ")" + config_path("llama-3.1-8b") +
                                   R"(", "workload": {"type": "transcription"}})");
  CHECK_THROWS_WITH(load_spec(llama),
                    llama + ":/workload/type: a transcription workload needs a "
                            "speech-recognition model (Whisper), got llama");
}

TEST_CASE("spec: transcription workload fields, targets and refusals", "[spec]") {
  const std::string whisper = config_path("encdec/whisper-large-v3");
  const auto read = [&](const std::string& workload) {
    ScratchDir dir;
    return load_spec(
        dir.write("s.json", R"({"model": ")" + whisper + R"(", "workload": )" + workload + "}"));
  };
  const auto error = [&](const std::string& workload) {
    ScratchDir dir;
    const auto path =
        dir.write("s.json", R"({"model": ")" + whisper + R"(", "workload": )" + workload + "}");
    try {
      load_spec(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  // 5-minute calls: ten windows, one after another; concurrency counts requests.
  const Spec calls = read(R"({"type": "transcription", "audio_seconds": 300, "output_tokens": 120,
      "concurrency": 32, "targets": {"audio_seconds_per_s": 300, "latency_ms": 20000}})");
  const auto& w = calls.workload.inference;
  REQUIRE(w.transcription);
  CHECK(w.transcription->windows == 10);
  CHECK(w.transcription->audio_per_window() == 30);
  CHECK(w.transcription->requests_in_flight == 32);
  CHECK(*w.concurrency == 32);
  CHECK(w.output_tokens == 120);
  // Held as windows per second: 300 audio s/s of 30 s windows.
  CHECK(*w.targets.requests_per_s == 10);
  CHECK(*w.transcription->audio_seconds_per_s == 300);
  CHECK(w.targets.ttft->si() == 20);
  CHECK_FALSE(w.targets.tpot);
  // Shorter than a window: one padded window carrying 10 s.
  const Spec clip = read(R"({"type": "transcription", "audio_seconds": 10})");
  CHECK(clip.workload.inference.transcription->windows == 1);
  CHECK(clip.workload.inference.transcription->audio_per_window() == 10);

  CHECK(error(R"({"type": "transcription", "input_tokens": 512})") ==
        ":/workload/input_tokens: a transcription request sends audio, not a prompt: give "
        "audio_seconds (the decoder's prompt is Whisper's 4 task tokens)");
  CHECK(error(R"({"type": "transcription", "images_per_request": 1})") ==
        ":/workload/images_per_request: whisper transcribes audio: a transcription workload has "
        "no images");
  CHECK(error(R"({"type": "transcription", "targets": {"ttft_ms": 500}})") ==
        ":/workload/targets/ttft_ms: a transcription request's latency is latency_ms (arrival to "
        "the whole transcript); Whisper streams no first token");
  CHECK(error(R"({"type": "transcription", "targets": {"tpot_ms": 20}})") ==
        ":/workload/targets/tpot_ms: a transcription request's latency is latency_ms (arrival to "
        "the whole transcript)");
  CHECK(error(R"({"type": "transcription", "targets": {"output_tokens_per_s": 1000}})") ==
        ":/workload/targets/output_tokens_per_s: a transcription workload's throughput is "
        "audio_seconds_per_s");
  CHECK(error(R"({"type": "transcription", "targets": {"requests_per_s": 10}})") ==
        ":/workload/targets/requests_per_s: a transcription workload's throughput is "
        "audio_seconds_per_s (requests per second x audio_seconds)");
  CHECK(error(R"({"type": "transcription", "output_tokens": 445})") ==
        ":/workload/output_tokens: 445 output tokens per 30 s window exceed what whisper's "
        "decoder holds: 448 positions (max_target_positions) less its 4 task tokens, at most 444");
  CHECK(error(R"({"type": "transcription", "engine": "sglang"})") ==
        ":/workload/engine: rightsize models Whisper transcription on vllm and transformers (how "
        "SGLang holds Whisper's cross-attention keys and values is not modelled), got \"sglang\"");
  CHECK_THAT(error(R"({"type": "transcription", "engine": "tensorrt-llm"})"),
             Catch::StartsWith(":/workload/engine: rightsize models Whisper transcription on "
                               "vllm and transformers (TensorRT-LLM runs Whisper"));
  CHECK_THAT(error(R"({"type": "transcription", "audio_seconds": 0})"),
             Catch::StartsWith(":/workload/audio_seconds: "));
  CHECK_THAT(error(R"({"type": "transcription", "audio_seconds": -30})"),
             Catch::StartsWith(":/workload/audio_seconds: "));
  CHECK_THAT(error(R"({"type": "transcription", "output_tokens": 0})"),
             Catch::StartsWith(":/workload/output_tokens: "));
  CHECK_THAT(error(R"({"type": "transcription", "concurrency": 0})"),
             Catch::StartsWith(":/workload/concurrency: "));
  CHECK_THAT(error(R"({"type": "transcription", "targets": {"audio_seconds_per_s": 0}})"),
             Catch::StartsWith(":/workload/targets/audio_seconds_per_s: "));
  CHECK_THAT(error(R"({"type": "transcription", "audio_secs": 30})"),
             Catch::Contains("unknown field \"audio_secs\" (did you mean \"audio_seconds\"?)"));
}

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

namespace {

// A small Llama-style config.json with the given extra fields, for context tests.
std::string tiny_config(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
      "torch_dtype": "bfloat16")" +
         extra + "}";
}

bool has_default(const Spec& s, const std::string& text) {
  return std::any_of(
      s.defaults.begin(), s.defaults.end(), [&](const std::string& d) { return d == text; });
}

} // namespace

TEST_CASE("spec: a bare config.json's default lengths fit the model's context", "[spec]") {
  // The user trial: 4096 in + 1024 out exceeds Llama-2, GPT-J and Phi-3-4k and was only a
  // warning. The defaults now shrink to the context, keeping 4:1.
  ScratchDir dir;
  const auto s = load_spec(
      dir.write("m2048/config.json", tiny_config(R"(, "max_position_embeddings": 2048)")));
  CHECK(s.workload.inference.input_tokens == 1638);
  CHECK(s.workload.inference.output_tokens == 410);
  CHECK(has_default(s,
                    "workload.input_tokens = 1638, output_tokens = 410 (default for a bare "
                    "config.json: 4096 + 1024 cut to fit the model's context of 2048 tokens "
                    "(max_position_embeddings), keeping 4:1)"));
  CHECK(s.warnings.empty());

  for (const auto& [model, input, output] : std::vector<std::tuple<std::string, int, int>>{
           {"llama-2-7b", 3276, 820}, // max_position_embeddings 4096
           {"phi-3-mini", 3276, 820}, // 4096
           {"gpt-j-6b", 1638, 410},   // n_positions 2048
           {"gpt2", 819, 205},        // n_positions 1024
           {"falcon-7b", 1638, 410},  // omitted: FalconConfig's 2048
           {"llama-3.1-8b", 4096, 1024}}) {
    CAPTURE(model);
    const auto bare = load_spec(config_path(model));
    CHECK(bare.workload.inference.input_tokens == input);
    CHECK(bare.workload.inference.output_tokens == output);
    CHECK(bare.workload.inference.input_tokens + bare.workload.inference.output_tokens <=
          bare.model.max_position);
  }
}

TEST_CASE("spec: a context the config omits is a recorded assumption", "[spec]") {
  // The user trial: Gemma-3-27B printed a longest context of 16,090,240 tokens, since its config
  // omits max_position_embeddings.
  const auto gemma = load_spec(config_path("gemma-3-27b"));
  CHECK(gemma.model.max_position == 131072);
  CHECK(has_default(gemma,
                    "model context = 131072 tokens, Gemma3TextConfig's default in transformers "
                    "(config.json omits max_position_embeddings)"));
  CHECK(gemma.workload.inference.input_tokens == 4096);
  // A generic model description has no family default to assume: the limit stays unknown.
  ScratchDir dir;
  const auto unknown = load_spec(dir.write("spec.json", R"({"model": {"layers": 2,
      "hidden_size": 256, "heads": 4, "intermediate_size": 512, "vocab_size": 1000}})"));
  CHECK(unknown.model.max_position == 0);
  CHECK(unknown.workload.inference.input_tokens == 4096);
}

TEST_CASE("spec: explicit lengths past the model's context are an error", "[spec]") {
  ScratchDir dir;
  dir.write("m/config.json", tiny_config(R"(, "max_position_embeddings": 2048)"));
  dir.write("old/config.json", tiny_config("")); // LlamaConfig's default: 2048
  const auto spec = [&](const std::string& workload, const std::string& model = "m") {
    return dir.write("spec.json", R"({"model": ")" + model + R"(", "workload": )" + workload + "}");
  };
  const auto error_of = [&](const std::string& path) -> std::string {
    try {
      load_spec(path);
    } catch (const InputError& e) {
      std::string m = e.what();
      return m.replace(0, path.size(), "spec.json");
    }
    return "no error";
  };
  CHECK(error_of(spec(R"({"type": "inference", "input_tokens": 2000, "output_tokens": 100})")) ==
        "spec.json:/workload/input_tokens: 2000 input + 100 output tokens exceed the model's "
        "context of 2048 tokens (max_position_embeddings), which vllm refuses: shorten the "
        "request or plan a model with a longer context");
  CHECK(error_of(spec(R"({"type": "inference", "engine": "sglang", "output_tokens": 2048})")) ==
        "spec.json:/workload/output_tokens: 4096 input + 2048 output tokens exceed the model's "
        "context of 2048 tokens (max_position_embeddings), which sglang refuses: shorten the "
        "request or plan a model with a longer context");
  CHECK_THAT(
      error_of(spec(R"({"type": "inference", "input_tokens": 2000, "output_tokens": 100})", "old")),
      Catch::Contains("the model's context of 2048 tokens (assumed: LlamaConfig's default "
                      "in transformers (config.json omits max_position_embeddings)), "
                      "which vllm refuses"));
  // Exactly the context fits.
  CHECK(error_of(spec(R"({"type": "inference", "input_tokens": 2000, "output_tokens": 48})")) ==
        "no error");

  // One length given: the other, left to its default, takes what remains.
  auto s = load_spec(spec(R"({"type": "inference", "input_tokens": 2000})"));
  CHECK(s.workload.inference.output_tokens == 48);
  CHECK(has_default(s,
                    "workload.output_tokens = 48 (default: 1024 cut to fit the model's context "
                    "of 2048 tokens (max_position_embeddings) after input_tokens)"));
  s = load_spec(spec(R"({"type": "inference", "output_tokens": 100})"));
  CHECK(s.workload.inference.input_tokens == 1948);
  // No workload at all: both defaults shrink.
  s = load_spec(dir.write("nowork.json", R"({"model": "m"})"));
  CHECK(s.workload.inference.input_tokens == 1638);
  CHECK(s.workload.inference.output_tokens == 410);
  // TensorRT-LLM serves up to its build's max_seq_len (NVIDIA measured GPT-J 6B, a 2048-token
  // model, at 2048 + 2048): only a warning.
  s = load_spec(spec(R"({"type": "inference", "engine": "tensorrt-llm", "input_tokens": 2048,
      "output_tokens": 2048})"));
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings.front() == "2048 input + 2048 output tokens exceed the model's context of "
                              "2048 tokens (max_position_embeddings)");
  // Learned position embeddings have no row past the last, whatever the engine.
  ScratchDir gpt2;
  std::ifstream in(config_path("gpt2"));
  std::stringstream text;
  text << in.rdbuf();
  gpt2.write("gpt2/config.json", text.str());
  const auto learned = gpt2.write("spec.json", R"({"model": "gpt2", "workload": {"type":
      "inference", "engine": "transformers", "input_tokens": 1000, "output_tokens": 100}})");
  CHECK_THROWS_WITH(load_spec(learned),
                    Catch::EndsWith("/workload/input_tokens: 1000 input + 100 output tokens "
                                    "exceed the model's context of 1024 tokens "
                                    "(max_position_embeddings), past its learned position "
                                    "embeddings: shorten the request or plan a model with a "
                                    "longer context"));
  // Training past the context is how a context is extended: a warning, as before.
  s = load_spec(spec(R"({"type": "training", "seq_len": 4096, "global_batch": 8})"));
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings.front() == "seq_len of 4096 tokens exceeds the model's context of 2048 "
                              "tokens (max_position_embeddings)");
}

TEST_CASE("spec: YaRN rope scaling stretches the context", "[spec]") {
  // Qwen2.5 cards: add rope_scaling yarn with factor 4 to serve 131072 tokens.
  ScratchDir dir;
  dir.write("q/config.json", tiny_config(R"(, "max_position_embeddings": 32768,
      "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})"));
  const auto s = load_spec(dir.write("spec.json", R"({"model": "q", "workload": {"type":
      "inference", "input_tokens": 100000, "output_tokens": 1000}})"));
  CHECK(s.model.max_position == 131072);
  CHECK(s.workload.inference.input_tokens == 100000);
}

TEST_CASE("spec: images per request join the prompt of a vision-language model", "[spec]") {
  ScratchDir dir;
  const auto qwen = [&](const std::string& workload) {
    dir.write("m/config.json", [] {
      std::ifstream in(config_path("vision/qwen2-vl-7b"));
      std::stringstream s;
      s << in.rdbuf();
      return s.str();
    }());
    auto w = nlohmann::json::parse(workload);
    w["type"] = "inference";
    return load_spec(dir.write("s.json", R"({"model": "m", "workload": )" + w.dump() + "}"));
  };
  auto s = qwen(R"({"input_tokens": 1000, "output_tokens": 200, "images_per_request": 2,
                    "image_width": 448, "image_height": 448})");
  CHECK(s.workload.inference.image_tokens == 512);
  CHECK(s.workload.inference.prompt_tokens() == 1512);
  CHECK(has_default(s,
                    "2 image(s) x 256 tokens per request (448 x 448 pixels, 14-pixel patches "
                    "merged 2 x 2)"));
  s = qwen(R"({"input_tokens": 1000})");
  CHECK(s.workload.inference.image_tokens == 0);
  CHECK(has_default(s,
                    "workload.images_per_request = 0: text-only prompts (the qwen2_vl vision "
                    "tower is loaded)"));
  // Past the context with the images: named, as vLLM would refuse it.
  CHECK_THROWS_WITH(qwen(R"({"input_tokens": 30000, "output_tokens": 1000,
                             "images_per_request": 4})"),
                    Catch::Contains("s.json:/workload/input_tokens: 30000 input + 5476 image + "
                                    "1000 output tokens exceed"));
  // Lengths left to their defaults make room for the images (32768-token context, 1369 tokens
  // per image at the default 1024 x 1024).
  s = qwen(R"({"input_tokens": 27000, "images_per_request": 4})");
  CHECK(s.workload.inference.output_tokens == 32768 - 27000 - 4 * 1369);
  s = qwen(R"({"output_tokens": 1000, "images_per_request": 22})");
  CHECK(s.workload.inference.input_tokens == 32768 - 1000 - 22 * 1369);
  CHECK(has_default(s,
                    "workload.input_tokens = 1650 (default: 4096 cut to fit the model's context of "
                    "32768 tokens (max_position_embeddings) after output_tokens and the images)"));
  s = qwen(R"({"images_per_request": 22})");
  CHECK(s.workload.inference.input_tokens == (32768 - 22 * 1369) * 4 / 5);
  CHECK(s.workload.inference.prompt_tokens() + s.workload.inference.output_tokens == 32768);
  CHECK_THROWS_WITH(qwen(R"({"images_per_request": 24})"),
                    Catch::EndsWith("s.json:/workload/images_per_request: 32856 image tokens "
                                    "leave no room for text in the model's context of 32768 "
                                    "tokens (max_position_embeddings), got 24"));
  // Llava-NeXT: the tokens follow each image's size (tests/unit/model/test_model.cpp derives
  // 2340 for 1024 x 768 by hand).
  const auto llava_next = load_spec(dir.write(
      "ln.json",
      R"({"model": ")" + config_path("vision/llava-v1.6-mistral-7b") +
          R"(", "workload": {"type": "inference", "input_tokens": 1000, "output_tokens": 200,
          "images_per_request": 2, "image_width": 1024, "image_height": 768}})"));
  CHECK(llava_next.workload.inference.image_tokens == 2 * 2340);
  CHECK(llava_next.workload.inference.prompt_tokens() == 1000 + 4680);
  CHECK(has_default(llava_next,
                    "2 image(s) x 2340 tokens per request (1024 x 768 pixels fitted into 672 x "
                    "672: 4 tiles of 336 px and the whole image)"));
  // Images for a model without a vision tower.
  CHECK_THROWS_WITH(
      load_spec(dir.write("t.json",
                          R"({"model": ")" + config_path("llama-3.1-8b") +
                              R"(", "workload": {"type": "inference", "images_per_request": 1}})")),
      Catch::EndsWith("t.json:/workload/images_per_request: the model (llama) has no "
                      "vision tower, got 1"));
}
