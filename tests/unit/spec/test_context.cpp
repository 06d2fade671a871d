// Lengths against the model's context, and the images of a vision-language model's prompts.

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
