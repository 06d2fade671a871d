// Vision-language models: their vision towers (Gemma 3, Qwen2-VL, Llava, Llava-NeXT) and image
// tokens.

#include "provenance.hpp"
#include "test_paths.hpp"

#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::provenance_of;

namespace {

ModelArch model_of(const std::string& name) {
  return load_spec(config_path(name), SpecUse::describe).model;
}

} // namespace

// Issue 16: the vision towers of vision-language models are counted (Gemma 3's SigLIP was left
// out, Qwen2-VL refused), and their published totals come out to the parameter.
TEST_CASE("model: vision-language models count their vision tower", "[model]") {
  struct Case {
    const char* model;
    double total;  // published, from the safetensors files
    double vision; // hand-computed
    long long tokens_per_image;
  };
  const Case cases[] = {
      // SigLIP: patch conv 3x14x14x1152 + 1152, positions 64^2 x 1152, 27 blocks of 4(h^2+h) +
      // (h*4304 + 4304) + (4304*h + h) + 2 LayerNorms, post-LayerNorm; projector 1152 x 5376 +
      // 1152 (google/gemma-3-27b-it: 27,432,406,640).
      {"gemma-3-27b", 27'432'406'640, 423'060'336, 256},
      // Conv3d 3x2x14x14x1280; 32 blocks of 2 LayerNorms, qkv + proj with biases, fc 1280 -> 5120
      // -> 1280; merger LayerNorm + 5120x5120 + 5120x3584 (Qwen/Qwen2-VL-7B-Instruct:
      // 8,291,375,616). 1024 x 1024 px: sides rounded to 28 px, 74 x 74 patches, 1369 tokens.
      {"vision/qwen2-vl-7b", 8'291'375'616, 675'759'104, 1369},
      // RMSNorms and a gated 3420-wide MLP (Qwen/Qwen2.5-VL-7B-Instruct: 8,292,166,656).
      {"vision/qwen2.5-vl-7b", 8'292'166'656, 676'550'144, 1369},
      // CLIP ViT-L/14-336: conv 3x14x14x1024 (no bias) + class 1024 + 577 positions, pre- and
      // post-LayerNorm, 24 blocks of 12,596,224 = 303,507,456; projector 1024x4096 + 4096x4096 +
      // 2 biases = 20,979,712. The Llama under text_config takes LlamaConfig's defaults for what it
      // omits (llava-hf/llava-1.5-7b-hf: 7,063,427,072). 336 px: 24 x 24 = 576 tokens.
      {"vision/llava-1.5-7b", 7'063'427'072, 324'487'168, 576},
  };
  for (const auto& c : cases) {
    CAPTURE(c.model);
    const auto m = model_of(c.model);
    REQUIRE(m.vision);
    CHECK(m.params_total == c.total);
    CHECK(m.params.vision == c.vision);
    CHECK(m.params_active == m.params_total - c.vision); // the tower runs per image, not per token
    CHECK(m.vision->tokens(1024, 1024) == c.tokens_per_image);
  }
  const auto llava = model_of("vision/llava-1.5-7b");
  CHECK(llava.hidden == 4096);
  CHECK(provenance_of(llava, "hidden") ==
        "assumed: LlamaConfig's default hidden_size = 4096 (text_config omits it)");
  CHECK(provenance_of(llava, "vocab") ==
        config_path("vision/llava-1.5-7b") + ":/text_config/vocab_size");
  CHECK_THROWS_WITH(
      parse_hf_config(nlohmann::json::parse(R"({"model_type": "llava", "text_config":
          {"model_type": "mistral"}, "vision_config": {}})"),
                      "c.json"),
      Catch::StartsWith("c.json:/text_config/model_type: architecture not supported: llava with "
                        "a mistral language model"));
  const auto qwen = model_of("vision/qwen2-vl-7b");
  CHECK(qwen.vision->patches(448, 448) == 32 * 32);
  CHECK(qwen.vision->tokens(448, 448) == 256);
  CHECK(qwen.vision->tokens(10, 10) == 1); // at least one merged token
  // Gemma 3 resizes every image to 896 px: 4096 patches, 2 x params x patches + attention
  // 4 x patches^2 x width x layers = 5.55 TFLOP.
  const auto gemma = model_of("gemma-3-27b");
  CHECK(gemma.vision->flops(300, 200) ==
        Approx(2.0 * 423'060'336 * 4096 + 4.0 * 4096.0 * 4096 * 1152 * 27));
}

// Issue 16: Llava-NeXT (llava_next) was refused by name. Its CLIP tower and projector are Llava
// 1.5's, plus image_newline; its image tokens follow the image's size ("anyres").
TEST_CASE("model: Llava-NeXT counts its tower exactly and its anyres image tokens", "[model]") {
  const auto m = model_of("vision/llava-v1.6-mistral-7b");
  REQUIRE(m.vision);
  // Text, MistralConfig with the text_config's fields (vocab 32064, 8 KV heads, 14336):
  //   embed_tokens and the untied lm_head: 2 x 32064 x 4096         =   262,668,288
  //   32 layers x (q, o 4096^2 each + k, v 4096 x 1024 each = 41,943,040
  //                + gated MLP 3 x 4096 x 14336 = 176,160,768 + 2 RMSNorms 8,192)
  //                                                                   = 6,979,584,000
  //   final norm                                                     =         4,096
  //   (Mistral-7B-Instruct-v0.2's 7,241,732,096 with 64 more rows in each of embed and head.)
  // Vision, Llava 1.5's CLIP ViT-L/14-336 and projector:
  //   conv 3 x 14 x 14 x 1024 = 602,112 + class 1,024 + 577 x 1024 positions = 590,848,
  //   pre- and post-LayerNorm 2 x 2,048, 24 blocks of 12,596,224        =   303,507,456
  //   projector 1024 x 4096 + 4096 + 4096 x 4096 + 4096                 =    20,979,712
  //   image_newline                                                     =         4,096
  // Total 7,566,747,648: llava-hf/llava-v1.6-mistral-7b-hf's model page, "7.57B params"
  // (tests/data/configs/vision/README.md says what of it was checked).
  CHECK(m.params.vision == 324'491'264);
  CHECK(m.params_total == 7'566'747'648);
  CHECK(m.params_active == m.params_total - 324'491'264);
  CHECK(m.kv_heads == 8);
  CHECK(m.intermediate == 14336);
  CHECK(m.sliding_window == 0); // text_config's "sliding_window": null
  CHECK(m.max_position == 32768);
  CHECK(provenance_of(m, "hidden") ==
        "assumed: MistralConfig's default hidden_size = 4096 (text_config omits it)");
  CHECK(provenance_of(m, "kv_heads") ==
        config_path("vision/llava-v1.6-mistral-7b") + ":/text_config/num_key_value_heads");

  // A 1024 x 768 image (width x height), by hand as transformers' LlavaNextProcessor counts:
  // select_best_resolution over the pinpoints {height, width}:
  //   336 x 672: scale min(672/1024, 336/768) = 0.4375 -> 448 x 336 = 150,528 kept
  //   672 x 336: scale 0.328125 -> 336 x 252 = 84,672
  //   672 x 672: scale 0.65625 -> 672 x 504 = 338,688 kept  <- the most
  //   1008 x 336: 84,672; 336 x 1008: 150,528
  // 672 x 672 is 2 x 2 tiles: 48 x 48 patches. The image is wider than the grid (1024/768 > 1),
  // so rows are unpadded: 768 x 48 / 1024 = 36 rows kept ((48 - 36) / 2 = 6 cut at each edge).
  // 36 x 48 patches + 36 newline tokens + the whole image's 24 x 24 = 1728 + 36 + 576 = 2340.
  CHECK(m.vision->anyres_resolution(1024, 768) == std::pair<long long, long long>{672, 672});
  CHECK(m.vision->tokens(1024, 768) == 2340);
  // The encoder sees 4 tiles and the whole image, 576 patches each.
  CHECK(m.vision->patches(1024, 768) == 5 * 576);
  // A square image fills its 2 x 2 tiles: 48 x 48 + 48 + 576 = 2928 (the largest count).
  CHECK(m.vision->tokens(672, 672) == 2928);
  // 336 x 1008 (width x height) fits the 1008 x 336 pinpoint exactly: 72 x 24 + 72 + 576.
  CHECK(m.vision->anyres_resolution(336, 1008) == std::pair<long long, long long>{1008, 336});
  CHECK(m.vision->tokens(336, 1008) == 72 * 24 + 72 + 576);
  // A small image keeps all of its 10,000 pixels at every pinpoint: the least padding wins, the
  // first of the two 2-tile pinpoints (336 x 672). The square image is narrower than the 24 x 48
  // grid: 24 of the 48 columns kept, 24 x 24 + 24 + 576 = 1176.
  CHECK(m.vision->anyres_resolution(100, 100) == std::pair<long long, long long>{336, 672});
  CHECK(m.vision->tokens(100, 100) == 1176);

  // The config's faults, each named.
  const auto next = [](const std::string& extra) {
    auto j = nlohmann::json::parse(R"({"model_type": "llava_next", "text_config":
        {"model_type": "llama", "num_hidden_layers": 2}, "vision_config": {"hidden_size": 64,
        "intermediate_size": 128, "num_hidden_layers": 2, "patch_size": 14, "image_size": 336}})");
    j.update(nlohmann::json::parse(extra));
    return parse_hf_config(j, "c.json");
  };
  CHECK(next("{}").vision->grid_pinpoints.size() == 5); // LlavaNextConfig's default pinpoints
  CHECK(provenance_of(next("{}"), "hidden") ==
        "assumed: LlamaConfig's default hidden_size = 4096 (text_config omits it)");
  CHECK(next(R"({"image_grid_pinpoints": [[336, 336]]})").vision->tokens(1000, 500) ==
        24 * 12 + 12 + 576);
  CHECK_THROWS_WITH(next(R"({"image_grid_pinpoints": [[336, 500]]})"),
                    "c.json:/image_grid_pinpoints/0: must be multiples of the vision tower's "
                    "image_size (336), got [336, 500]");
  CHECK_THROWS_WITH(next(R"({"image_grid_pinpoints": [336, 672]})"),
                    "c.json:/image_grid_pinpoints/0: must be a [height, width] pair, got 336");
  CHECK_THROWS_WITH(next(R"({"image_grid_pinpoints": []})"),
                    "c.json:/image_grid_pinpoints: must list at least one [height, width] pair");
  CHECK_THROWS_WITH(next(R"({"vision_feature_select_strategy": "full"})"),
                    Catch::StartsWith("c.json:/vision_feature_select_strategy: must be "
                                      "\"default\": Llava-NeXT lays each tile's patches out"));
  CHECK_THROWS_WITH(next(R"({"vision_feature_layer": [-2, -5]})"),
                    Catch::StartsWith("c.json:/vision_feature_layer: must be one layer"));
  CHECK_THROWS_WITH(next(R"({"text_config": {"model_type": "qwen2"}})"),
                    Catch::StartsWith("c.json:/text_config/model_type: architecture not "
                                      "supported: llava_next with a qwen2 language model"));
}
