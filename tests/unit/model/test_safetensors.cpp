#include "test_paths.hpp"

#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

constexpr const char* k_tiny_config = R"({"model_type": "llama", "hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 128, "vocab_size": 1000, "torch_dtype": "bfloat16",
    "tie_word_embeddings": false})";

// A safetensors file: 8-byte little-endian header length, the JSON header, then zero bytes.
std::string safetensors(const nlohmann::json& header,
                        std::size_t data_bytes,
                        std::optional<std::uint64_t> claimed_length = std::nullopt) {
  const std::string text = header.dump();
  const std::uint64_t n = claimed_length.value_or(text.size());
  std::string out;
  for (int i = 0; i < 8; ++i) {
    out += static_cast<char>((n >> (8U * static_cast<unsigned>(i))) & 0xFFU);
  }
  return out + text + std::string(data_bytes, '\0');
}

// Tensors of the tiny config, with `extra` more bf16 elements than the architecture derives.
nlohmann::json tiny_header(std::size_t& data_bytes, std::size_t extra = 0) {
  nlohmann::json h;
  std::size_t offset = 0;
  const auto add = [&](const std::string& name, std::vector<std::size_t> shape) {
    std::size_t n = 1;
    for (auto d : shape) {
      n *= d;
    }
    h[name] = {{"dtype", "BF16"}, {"shape", shape}, {"data_offsets", {offset, offset + 2 * n}}};
    offset += 2 * n;
  };
  add("model.embed_tokens.weight", {1000, 64});
  add("lm_head.weight", {1000, 64});
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "self_attn.q_proj.weight", {64, 64});
    add(p + "self_attn.k_proj.weight", {32, 64});
    add(p + "self_attn.v_proj.weight", {32, 64});
    add(p + "self_attn.o_proj.weight", {64, 64});
    add(p + "mlp.gate_proj.weight", {128, 64});
    add(p + "mlp.up_proj.weight", {128, 64});
    add(p + "mlp.down_proj.weight", {64, 128});
    add(p + "input_layernorm.weight", {64});
    add(p + "post_attention_layernorm.weight", {64});
  }
  add("model.norm.weight", {64});
  if (extra > 0) {
    add("model.extra.weight", {extra});
  }
  h["__metadata__"] = {{"format", "pt"}};
  data_bytes = offset;
  return h;
}

} // namespace

TEST_CASE("safetensors: exact counts from headers are preferred over the config", "[safetensors]") {
  ScratchDir dir;
  std::size_t data = 0;
  const auto header = tiny_header(data, 100);
  dir.write("model.safetensors", safetensors(header, data));
  const auto s = load_spec(dir.write("config.json", k_tiny_config));
  const double derived =
      2.0 * 1000 * 64 + 2 * (64 * 64 * 2 + 32 * 64 * 2 + 3 * 64 * 128 + 128) + 64;
  CHECK(s.model.param_source == "safetensors");
  CHECK(s.model.params_total == derived + 100);
  CHECK(s.model.safetensors_bytes->si() == 2.0 * (derived + 100));
}

TEST_CASE("safetensors: sharded checkpoints through the index", "[safetensors]") {
  ScratchDir dir;
  std::size_t data = 0;
  const auto header = tiny_header(data);
  nlohmann::json first;
  nlohmann::json second;
  bool to_first = true;
  nlohmann::json weight_map;
  std::size_t first_bytes = 0;
  std::size_t second_bytes = 0;
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__") {
      continue;
    }
    auto& shard = to_first ? first : second;
    auto& bytes = to_first ? first_bytes : second_bytes;
    const std::size_t size =
        t["data_offsets"][1].get<std::size_t>() - t["data_offsets"][0].get<std::size_t>();
    shard[name] = {
        {"dtype", t["dtype"]}, {"shape", t["shape"]}, {"data_offsets", {bytes, bytes + size}}};
    bytes += size;
    weight_map[name] =
        to_first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    to_first = !to_first;
  }
  dir.write("model-00001-of-00002.safetensors", safetensors(first, first_bytes));
  dir.write("model-00002-of-00002.safetensors", safetensors(second, second_bytes));
  dir.write(
      "model.safetensors.index.json",
      nlohmann::json{{"metadata", {{"total_size", data}}}, {"weight_map", weight_map}}.dump());
  const auto s = load_spec(dir.write("config.json", k_tiny_config));
  CHECK(s.model.param_source == "safetensors");
  CHECK(s.model.safetensors_bytes->si() == static_cast<double>(data));
}

TEST_CASE("safetensors: truncated or lying headers are input errors", "[safetensors]") {
  ScratchDir dir;
  dir.write("config.json", k_tiny_config);
  std::size_t data = 0;
  const auto header = tiny_header(data);

  dir.write("model.safetensors", std::string("\x10\x00\x00", 3));
  CHECK_THROWS_WITH(load_spec(dir.path() + "/config.json"),
                    Catch::Contains("model.safetensors: truncated safetensors file: 3 bytes"));

  dir.write("model.safetensors", safetensors(header, data, 1U << 30U));
  CHECK_THROWS_WITH(
      load_spec(dir.path() + "/config.json"),
      Catch::Contains("safetensors header length 1073741824 does not fit in the file"));

  dir.write("model.safetensors", safetensors(header, data / 2)); // data cut short
  CHECK_THROWS_WITH(load_spec(dir.path() + "/config.json"),
                    Catch::Contains("lies outside the") && Catch::Contains("bytes of tensor data"));

  auto wrong = header;
  wrong["lm_head.weight"]["shape"] = {1000, 65};
  dir.write("model.safetensors", safetensors(wrong, data));
  CHECK_THROWS_WITH(load_spec(dir.path() + "/config.json"),
                    Catch::Contains("/lm_head.weight/data_offsets: span 128000 bytes but shape and "
                                    "dtype need 130000"));

  dir.write(
      "model.safetensors",
      safetensors(
          nlohmann::json{{"x", {{"dtype", "Q7"}, {"shape", {1}}, {"data_offsets", {0, 1}}}}}, 1));
  CHECK_THROWS_WITH(load_spec(dir.path() + "/config.json"),
                    Catch::Contains("/x/dtype: unknown safetensors dtype, got \"Q7\""));
}
