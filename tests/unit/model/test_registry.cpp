// The registry of families (src/model/registry.cpp): one row and one reader per model_type, the
// context each assumes, and the refusal of any other model_type.

#include "model/registry.hpp"
#include "test_paths.hpp"

#include <rightsize/model/model.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <string>

using namespace rightsize;

// README.md's `rightsize model --list` line states how many families rightsize reads: the count
// must be the code's list, so that adding a family without updating README fails here.
TEST_CASE("model: README's count of families is supported_families()'s", "[model]") {
  std::ifstream in(std::string(RIGHTSIZE_DATA_DIR) + "/../README.md");
  REQUIRE(in);
  std::string stated;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.find("rightsize model --list") != std::string::npos &&
        std::regex_search(line, m, std::regex(R"(#\D*(\d+) )"))) {
      stated = m[1];
    }
  }
  CAPTURE(stated);
  REQUIRE_FALSE(stated.empty());
  CHECK(std::stoul(stated) == supported_families().size());
}

TEST_CASE("registry: every family has one row, a reader and a context", "[model][registry]") {
  std::set<std::string_view> seen;
  for (const hf::Family& f : hf::families()) {
    CAPTURE(f.model_type);
    CHECK(seen.insert(f.model_type).second); // one row per model_type
    CHECK_FALSE(f.models.empty());
    CHECK_FALSE(f.config_class.empty());
    CHECK(f.default_context >= 0);
    // A config.json family has a config reader; a diffusers pipeline, the pipeline reader.
    const bool pipeline = f.config_class == "model_index.json";
    CHECK((f.read != nullptr) == !pipeline);
    CHECK((f.read_pipeline != nullptr) == pipeline);
    CHECK(hf::find_family(f.model_type) == &f);
  }
  // supported_families() lists the same rows, in the same order.
  REQUIRE(supported_families().size() == hf::families().size());
  for (std::size_t i = 0; i < hf::families().size(); ++i) {
    CHECK(supported_families()[i].model_type == hf::families()[i].model_type);
    CHECK(supported_families()[i].default_context == hf::families()[i].default_context);
  }
  CHECK(hf::find_family("no_such_family") == nullptr);
}

TEST_CASE("registry: a config without max_position_embeddings takes its row's context",
          "[model][registry]") {
  // Each decoder row's context, assumed for a minimal config of its family.
  for (const char* type : {"llama", "mistral", "qwen2", "gemma2", "phi3", "deepseek_v3"}) {
    CAPTURE(type);
    const auto m = parse_hf_config(nlohmann::json{{"model_type", type},
                                                  {"hidden_size", 256},
                                                  {"num_hidden_layers", 2},
                                                  {"num_attention_heads", 4},
                                                  {"intermediate_size", 512},
                                                  {"vocab_size", 1000},
                                                  {"torch_dtype", "bfloat16"}},
                                   "config.json");
    CHECK(m.max_position == hf::find_family(type)->default_context);
  }
}

TEST_CASE("registry: a model_type of no row is refused with its exact error", "[model][registry]") {
  CHECK_THROWS_WITH(parse_hf_config(nlohmann::json::parse(R"({"model_type": "lama",
      "architectures": ["LlamaForCausalLM"]})"),
                                    "c.json"),
                    "c.json:/model_type: architecture not supported: lama (LlamaForCausalLM): not "
                    "a family rightsize reads (did you mean \"llama\"?); describe another "
                    "decoder-only transformer with the spec's generic model fields (docs/spec.md); "
                    "supported: rightsize model --list");
  // A known family rightsize does not model is named for what it is.
  CHECK_THROWS_WITH(
      parse_hf_config(nlohmann::json::parse(R"({"model_type": "rwkv"})"), "c.json"),
      "c.json:/model_type: architecture not supported: rwkv (no architectures given): a hybrid or "
      "state-space model: the recurrent state of its Mamba or linear-attention layers is not "
      "modelled; supported: rightsize model --list");
  // A pipeline's class is a row, but not of a config.json.
  CHECK_THROWS_WITH(
      parse_hf_config(nlohmann::json::parse(R"({"model_type": "FluxPipeline"})"), "c.json"),
      Catch::StartsWith("c.json:/model_type: architecture not supported: FluxPipeline"));
}
