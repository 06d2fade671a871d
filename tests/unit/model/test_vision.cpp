// Issue 16, vision models: the image encoders rightsize reads (ViT, CLIP, SigLIP), their exact
// parameter counts, hand-derived term by term, and their tokens per image (docs/model.md,
// "Vision encoders"). The configs and the sources of the published totals are listed in
// tests/data/configs/vision/README.md.

#include "provenance.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::provenance_of;

namespace {

ModelArch model_of(const std::string& name) {
  return load_spec(config_path(name), SpecUse::describe).model;
}

nlohmann::json config_of(const std::string& name) {
  std::ifstream in(config_path(name));
  return nlohmann::json::parse(in);
}

// One pre-norm block of width h and MLP width i, biases everywhere: q, k, v, o 4(h^2 + h), fc1
// h*i + i, fc2 i*h + h, two LayerNorms 2 x 2h.
constexpr double block(double h, double i) {
  return 4.0 * (h * h + h) + (h * i + i) + (i * h + h) + 4.0 * h;
}

} // namespace

TEST_CASE("vision: ViT, CLIP and SigLIP parameter counts, term by term", "[model][vision]") {
  struct Case {
    const char* model;
    double exact;     // hand-derived below
    double published; // tests/data/configs/vision/README.md
    double text;      // a dual encoder's text tower and its projection
    long long tokens; // per image
  };
  // ViT-B/16 (ViTForImageClassification): patch conv 3 x 16^2 x 768 + 768 bias = 590,592; class
  // token 768; 197 positions x 768 = 151,296; 12 blocks of 7,087,872 = 85,054,464; final
  // LayerNorm 1,536; classifier 768 x 1000 + 1000 = 769,000.
  constexpr double vit = 590'592 + 768 + 151'296 + 12 * block(768, 3072) + 1'536 + 769'000;
  static_assert(vit == 86'567'656);
  // ViTModel (in21k): the same without the classifier, with the pooler 768 x 768 + 768.
  constexpr double vit_in21k = vit - 769'000 + 590'592;
  // CLIP vision towers: patch conv without bias 3 x p^2 x h, class token h, (side^2 + 1) x h
  // positions, pre- and post-LayerNorm 2 x 2h, blocks, visual projection h x projection_dim.
  // Text towers: 49,408 x h_t tokens, 77 x h_t positions, 12 blocks, final LayerNorm 2 h_t,
  // text projection h_t x projection_dim; logit_scale 1.
  // ViT-B/32: 2,359,296 + 768 + 50 x 768 + 3,072 + 12 blocks + 768 x 512 = 87,849,216.
  constexpr double clip_b32_vision =
      3.0 * 32 * 32 * 768 + 768 + 50 * 768 + 4 * 768 + 12 * block(768, 3072) + 768 * 512;
  constexpr double clip_b32_text =
      49'408.0 * 512 + 77 * 512 + 12 * block(512, 2048) + 2 * 512 + 512 * 512;
  static_assert(clip_b32_vision == 87'849'216);
  static_assert(clip_b32_text == 63'428'096);
  // ViT-L/14: 257 tokens of 1024, 24 blocks of (1024, 4096), projection 1024 x 768; text of 768
  // (3072), projection 768 x 768.
  constexpr double clip_l14_vision =
      3.0 * 14 * 14 * 1024 + 1024 + 257 * 1024 + 4 * 1024 + 24 * block(1024, 4096) + 1024 * 768;
  constexpr double clip_l14_text =
      49'408.0 * 768 + 77 * 768 + 12 * block(768, 3072) + 2 * 768 + 768 * 768;
  static_assert(clip_l14_vision + clip_l14_text + 1 == 427'616'513);
  // OpenCLIP ViT-H/14 as CLIPVisionModelWithProjection: 257 tokens of 1280, 32 blocks of (1280,
  // 5120), projection 1280 x 1024; no text tower.
  constexpr double clip_h14 =
      3.0 * 14 * 14 * 1280 + 1280 + 257 * 1280 + 4 * 1280 + 32 * block(1280, 5120) + 1280 * 1024;
  static_assert(clip_h14 == 632'076'800);
  // SigLIP vision towers: biased patch conv 3 x p^2 x h + h, side^2 positions (no class token),
  // blocks, post-LayerNorm 2h, attention-pooling head: probe h, in_proj 3h x h + 3h, out_proj
  // h x h + h, LayerNorm 2h, MLP h x i + i + i x h + h. Text towers: 32,000 x h tokens, 64
  // positions, blocks, final LayerNorm 2h, head h x h + h; logit_scale and logit_bias 2.
  constexpr auto siglip_head = [](double h, double i) {
    return h + 4 * h * h + 4 * h + 2 * h + (h * i + i + i * h + h);
  };
  constexpr auto siglip_text = [](double h, double i, double layers) {
    return 32'000 * h + 64 * h + layers * block(h, i) + 2 * h + h * h + h;
  };
  // Base/16 at 224: 196 patches of 768, 12 blocks; every text dimension but vocab_size, and
  // the vision tower's layers and image size, are SiglipTextConfig's and SiglipVisionConfig's
  // defaults.
  constexpr double siglip_base_vision = 3.0 * 16 * 16 * 768 + 768 + 196 * 768 +
                                        12 * block(768, 3072) + 2 * 768 + siglip_head(768, 3072);
  static_assert(siglip_base_vision == 92'884'224);
  static_assert(siglip_text(768, 3072, 12) == 110'271'744);
  // So400m/14 at 384: 384 // 14 = 27, 27 x 27 = 729 patches of 1152 (the convolution drops the
  // last 6 pixels), 27 blocks of (1152, 4304).
  constexpr double so400m_vision = 3.0 * 14 * 14 * 1152 + 1152 + 729 * 1152 +
                                   27 * block(1152, 4304) + 2 * 1152 + siglip_head(1152, 4304);
  static_assert(so400m_vision == 428'225'600);
  static_assert(siglip_text(1152, 4304, 27) == 449'734'896);

  const Case cases[] = {
      {"vision/vit-base-patch16-224", vit, 86'567'656, 0, 197},
      {"vision/vit-base-patch16-224-in21k", vit_in21k, 86.4e6, 0, 197},
      {"vision/clip-vit-base-patch32",
       clip_b32_vision + clip_b32_text + 1,
       151'277'313,
       clip_b32_text,
       50},
      {"vision/clip-vit-large-patch14",
       clip_l14_vision + clip_l14_text + 1,
       427'616'513,
       clip_l14_text,
       257},
      {"vision/clip-vit-h-14-image-encoder", clip_h14, 632'076'800, 0, 257},
      {"vision/siglip-base-patch16-224",
       siglip_base_vision + siglip_text(768, 3072, 12) + 2,
       203.16e6,
       siglip_text(768, 3072, 12),
       196},
      {"vision/siglip-so400m-patch14-384",
       so400m_vision + siglip_text(1152, 4304, 27) + 2,
       878e6,
       siglip_text(1152, 4304, 27),
       729},
  };
  for (const auto& c : cases) {
    CAPTURE(c.model);
    const auto m = model_of(c.model);
    REQUIRE(m.image);
    CHECK(m.encoder_only);
    CHECK_FALSE(m.vision);
    CHECK(m.params_total == c.exact);
    CHECK(m.params_total == Approx(c.published).epsilon(0.005));
    CHECK(m.params.text_tower == c.text);
    // An image runs through the vision tower (and the logit scalars), never the text tower.
    CHECK(m.params_active == c.exact - c.text);
    CHECK(m.image->tokens() == c.tokens);
    CHECK(m.max_position == c.tokens);
    CHECK(m.params.lm_head == 0);
  }
}

TEST_CASE("vision: the parts of an image encoder", "[model][vision]") {
  const auto vit = model_of("vision/vit-base-patch16-224");
  CHECK(vit.family == "vit");
  CHECK(vit.layers == 12);
  CHECK(vit.hidden == 768);
  CHECK(vit.heads == 12);
  CHECK(vit.head_dim == 64);
  CHECK_FALSE(vit.gated_mlp);
  CHECK(vit.image->patches() == 196);
  CHECK(vit.image->class_token);
  CHECK(vit.params.embedding == 590'592 + 768 + 151'296);
  CHECK(vit.params.pooler == 769'000); // the classifier
  CHECK(provenance_of(vit, "num_labels") ==
        config_path("vision/vit-base-patch16-224") + ":/id2label (its entries)");
  CHECK(provenance_of(vit, "max_position") ==
        "derived: tokens per image: (image_size / patch_size)^2 patches + the class token");

  // SigLIP base states neither its layers nor its image size: SiglipVisionConfig's defaults.
  const auto siglip = model_of("vision/siglip-base-patch16-224");
  CHECK_FALSE(siglip.image->class_token);
  CHECK(provenance_of(siglip, "layers") ==
        "assumed: SiglipVisionConfig's default num_hidden_layers = 12 (config.json omits it)");
  CHECK(provenance_of(siglip, "image_size") ==
        "assumed: SiglipVisionConfig's default image_size = 224 (config.json omits it)");
  CHECK(provenance_of(siglip, "text positions") ==
        "assumed: SiglipTextConfig's default max_position_embeddings = 64 (config.json omits "
        "it)");
  CHECK(provenance_of(siglip, "text vocab") ==
        config_path("vision/siglip-base-patch16-224") + ":/text_config/vocab_size");

  // SiglipVisionModel alone: So400m's tower, with and without the attention-pooling head.
  auto tower = config_of("vision/siglip-so400m-patch14-384")["vision_config"];
  tower["architectures"] = nlohmann::json::array({"SiglipVisionModel"});
  const auto alone = parse_hf_config(tower, "tower.json");
  CHECK(alone.params_total == 428'225'600);
  CHECK(alone.params.text_tower == 0);
  tower["vision_use_head"] = false;
  // Without the head: 1152 + 4(1152^2 + 1152) + 2 x 1152 + (2 x 1152 x 4304 + 4304 + 1152) less.
  CHECK(parse_hf_config(tower, "tower.json").params_total == 428'225'600 - 15'238'352);

  // CLIPVisionModel has no projection; CLIPVisionModelWithProjection does.
  auto h14 = config_of("vision/clip-vit-h-14-image-encoder");
  h14["architectures"] = nlohmann::json::array({"CLIPVisionModel"});
  CHECK(parse_hf_config(h14, "h14.json").params_total == 632'076'800 - 1280 * 1024);

  // ViT without q, k, v biases: 3 x 768 fewer per layer.
  auto no_bias = config_of("vision/vit-base-patch16-224-in21k");
  no_bias["qkv_bias"] = false;
  CHECK(parse_hf_config(no_bias, "v.json").params_total == 86'389'248 - 12 * 3 * 768);
}

// docs/model.md "Vision encoders": ViT-B/16, 197 tokens: 2 x (86,567,656 - 197 x 768 positions -
// 768 class token) x 197 + 4 x 197^2 x 768 x 12 = 35.48 GFLOP; timm's model cards state 17.6
// GMACs (35.2 GFLOP) for a ViT-B/16 at 224 (deit3_base_patch16_224.fb_in22k_ft_in1k).
TEST_CASE("vision: FLOPs per image", "[model][vision]") {
  const auto vit = model_of("vision/vit-base-patch16-224");
  CHECK(image_flops(vit) == 2.0 * 86'415'592 * 197 + 4.0 * 197 * 197 * 768 * 12);
  CHECK(image_flops(vit) == Approx(35.2e9).epsilon(0.01));
  CHECK(image_flops(model_of("llama-3.1-8b")) == 0);
}

TEST_CASE("vision: refusals name the field", "[model][vision]") {
  auto vit = config_of("vision/vit-base-patch16-224-in21k");
  vit["architectures"] = nlohmann::json::array({"ViTForMaskedImageModeling"});
  CHECK_THROWS_WITH(parse_hf_config(vit, "v.json"),
                    "v.json:/architectures: architecture not supported: vit "
                    "(ViTForMaskedImageModeling): rightsize reads vit as ViTModel, "
                    "ViTForImageClassification; supported: rightsize model --list");
  vit["architectures"] = nlohmann::json::array({"ViTModel"});
  // The convolution drops the pixels past the last whole patch: 224 px of 15, 14 per side.
  vit["patch_size"] = 15;
  CHECK(parse_hf_config(vit, "v.json").image->tokens() == 14 * 14 + 1);
  vit["patch_size"] = 300;
  CHECK_THROWS_WITH(parse_hf_config(vit, "v.json"),
                    "v.json:/image_size: must be at least patch_size (300), got 224");
  CHECK_THROWS_WITH(
      parse_hf_config(nlohmann::json{{"model_type", "dinov2"}}, "d.json"),
      Catch::StartsWith("d.json:/model_type: architecture not supported: dinov2") &&
          Catch::Contains("a vision model of a family rightsize does not read (it reads the "
                          "vit, clip and siglip image encoders and the resnet CNN)"));
  // plan: an image encoder is planned as image embeddings (tests/unit/plan/
  // test_image_embeddings.cpp), never as generation.
  CHECK(load_spec(config_path("vision/clip-vit-base-patch32"), SpecUse::plan).embeds_images());
  const Spec described = load_spec(config_path("vision/clip-vit-base-patch32"), SpecUse::describe);
  CHECK(described.model.params_total == 151'277'313);
}
