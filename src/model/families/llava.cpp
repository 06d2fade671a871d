// Llava 1.5 (llava) and Llava-NeXT (llava_next): a CLIP vision tower and a projector beside a
// Llama (or, for Llava-NeXT, a Mistral) under text_config, completed with its configuration
// class's defaults as transformers completes it.

#include "decoder.hpp"
#include "vision.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

// Llava's text_config often names only what differs from its configuration class (llava-1.5-7b-hf
// gives vocab_size and max_position_embeddings of a LlamaConfig; llava-v1.6-mistral-7b-hf the
// intermediate_size, kv heads and vocabulary of a MistralConfig): the rest takes the class's
// defaults, which is what transformers builds. Llava 1.5 is read with Llama, Llava-NeXT with Llama
// or Mistral (LlavaNextConfig's default text_config is Llama's). Returns the completed config;
// `assumed` lists the keys filled in and `config_class` names the class they came from.
nlohmann::json llava_text_config(const FieldReader& top,
                                 const std::string& family,
                                 std::vector<std::string>& assumed,
                                 std::string& config_class) {
  const FieldReader t = top.object("text_config");
  const std::string text_type = t.has("model_type") ? t.string("model_type") : "llama";
  const bool next = family == "llava_next";
  if (text_type != "llama" && !(next && text_type == "mistral")) {
    t.member("model_type")
        .fail(fmt::format("architecture not supported: {} with a {} language model (rightsize "
                          "reads {}); supported: rightsize model --list",
                          family,
                          text_type,
                          next ? "llava_next with llama or mistral" : "llava with llama"));
  }
  nlohmann::json full;
  if (text_type == "mistral") {
    // MistralConfig.__init__ defaults (transformers/models/mistral/configuration_mistral.py).
    config_class = "MistralConfig";
    full = {{"hidden_size", 4096},
            {"intermediate_size", 14336},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 8},
            {"vocab_size", 32000},
            {"max_position_embeddings", 131072},
            {"sliding_window", 4096}};
  } else {
    // LlamaConfig.__init__ defaults (transformers/models/llama/configuration_llama.py).
    config_class = "LlamaConfig";
    full = {{"hidden_size", 4096},
            {"intermediate_size", 11008},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"vocab_size", 32000},
            {"max_position_embeddings", 2048}};
  }
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (!t.has(it.key())) {
      assumed.push_back(it.key());
    }
  }
  full.update(t.json());
  return full;
}

// Llava 1.5's vision tower: CLIP (CLIPVisionTransformer: a patch convolution without bias, a class
// embedding, learned positions, a pre- and a post-LayerNorm, blocks of biased q/k/v/o and a GELU
// MLP) and LlavaMultiModalProjector (vision -> text -> text, with biases). Each image is resized
// to image_size; its patches are its tokens (the class token too when
// vision_feature_select_strategy is "full").
VisionTower read_clip_tower(const FieldReader& top, long long text_hidden) {
  // CLIPVisionConfig's defaults are ViT-B/32's; Llava's published configs state their own.
  VisionTower t = read_fixed_vit(top.object("vision_config"), "clip");
  const long long side = t.image_size / t.patch;
  const bool with_cls = top.has("vision_feature_select_strategy") &&
                        top.string("vision_feature_select_strategy") == "full";
  t.tokens_per_image = side * side + (with_cls ? 1 : 0);
  const auto h = static_cast<double>(t.hidden);
  const auto i = static_cast<double>(t.intermediate);
  const auto text = static_cast<double>(text_hidden);
  const double embeddings = vit_embeddings(t, "clip").embedding_params(t.hidden);
  const double block = vit_block_params(h, i);
  const bool bias =
      !top.has("multimodal_projector_bias") || top.boolean("multimodal_projector_bias");
  const double projector = h * text + text * text + (bias ? 2.0 * text : 0.0);
  t.params = embeddings + 2.0 * h + static_cast<double>(t.layers) * block + 2.0 * h + projector;
  return t;
}

// LlavaNextConfig's default image_grid_pinpoints, {height, width}
// (transformers/models/llava_next/configuration_llava_next.py).
const std::vector<std::pair<long long, long long>>& llava_next_default_pinpoints() {
  static const std::vector<std::pair<long long, long long>> pinpoints{
      {336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}};
  return pinpoints;
}

// Llava-NeXT (LlavaNextModel, transformers/models/llava_next/modeling_llava_next.py): Llava 1.5's
// CLIP tower and projector, plus image_newline (one vector of the text width, appended after each
// row of an image's tiles), and "anyres" images: resized to the best of image_grid_pinpoints, cut
// into image_size tiles, the whole image one more tile (VisionTower::tokens). The unpadding of
// pack_image_features lays out 24 x 24 patches per tile, so the class token must be dropped
// (vision_feature_select_strategy "default", as every published config has it).
VisionTower read_llava_next_vision(const FieldReader& top, long long text_hidden) {
  if (top.has("vision_feature_select_strategy") &&
      top.string("vision_feature_select_strategy") != "default") {
    top.member("vision_feature_select_strategy")
        .fail("must be \"default\": Llava-NeXT lays each tile's patches out without the class "
              "token");
  }
  if (top.has("vision_feature_layer") && !top.member("vision_feature_layer").json().is_number()) {
    top.member("vision_feature_layer")
        .fail("must be one layer: a projector over several layers is not modelled");
  }
  VisionTower t = read_clip_tower(top, text_hidden);
  // The tokens depend on the image's size; image_newline is one more vector of the text width.
  t.tokens_per_image = 0;
  t.params += static_cast<double>(text_hidden);
  if (!top.has("image_grid_pinpoints")) {
    t.grid_pinpoints = llava_next_default_pinpoints();
    return t;
  }
  const std::vector<FieldReader> list = top.array("image_grid_pinpoints");
  if (list.empty()) {
    top.member("image_grid_pinpoints").fail_plain("must list at least one [height, width] pair");
  }
  for (const FieldReader& pair : list) {
    if (!pair.json().is_array() || pair.json().size() != 2) {
      pair.fail("must be a [height, width] pair");
    }
    const std::vector<FieldReader> sides = pair.elements();
    const long long ph = sides[0].as_integer(Range::positive(k_max_width));
    const long long pw = sides[1].as_integer(Range::positive(k_max_width));
    if (ph % t.image_size != 0 || pw % t.image_size != 0) {
      pair.fail_plain(
          fmt::format("must be multiples of the vision tower's image_size ({}), got [{}, {}]",
                      t.image_size,
                      ph,
                      pw));
    }
    t.grid_pinpoints.emplace_back(ph, pw);
  }
  return t;
}

// Reads the completed text_config as a plain decoder, then the tower; what the completion
// supplied is its class's default, not a field of the file, and its provenance says so.
void read_llava_family(const ConfigInput& in, ModelArch& m, const DecoderFamily& family) {
  std::vector<std::string> assumed;
  std::string text_class;
  const nlohmann::json completed = llava_text_config(in.top, m.family, assumed, text_class);
  const FieldReader text(completed, in.top.file(), in.top.pointer() + "/text_config");
  read_decoder(ConfigInput{in.top, text}, m, family);
  for (auto& [label, where] : m.provenance) {
    for (const auto& key : assumed) {
      if (where == text.where(key)) {
        where = fmt::format("assumed: {}'s default {} = {} (text_config omits it)",
                            text_class,
                            key,
                            completed[key].dump());
      }
    }
  }
}

void clip_vision(const ConfigInput& in, ModelArch& m) {
  m.vision = read_clip_tower(in.top, m.hidden);
}

void llava_next_vision(const ConfigInput& in, ModelArch& m) {
  m.vision = read_llava_next_vision(in.top, m.hidden);
}

DecoderFamily with_vision(void (*vision)(const ConfigInput&, ModelArch&)) {
  DecoderFamily d;
  d.vision = vision;
  return d;
}

} // namespace

void read_llava(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = with_vision(clip_vision);
  read_llava_family(in, m, family);
}

void read_llava_next(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = with_vision(llava_next_vision);
  read_llava_family(in, m, family);
}

} // namespace rightsize::hf
