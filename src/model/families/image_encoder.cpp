// Standalone image encoders (docs/model.md "Vision encoders"), as transformers builds them:
// - ViT (ViTModel, ViTForImageClassification): a biased patch convolution, a class token, a
//   learned position per token, pre-norm blocks (q, k and v biased when qkv_bias, o, a GELU MLP,
//   two LayerNorms), a final LayerNorm; ViTModel's pooler (hidden -> pooler_output_size, biased),
//   or ViTForImageClassification's classifier (hidden -> labels, biased) and no pooler.
// - CLIP (CLIPVisionModel, CLIPVisionModelWithProjection, CLIPModel): a patch convolution without
//   bias, a class token, learned positions, a LayerNorm before the blocks and one after; the
//   projection to projection_dim (no bias) with a projection; CLIPModel adds the text tower, its
//   projection and logit_scale.
// - SigLIP (SiglipVisionModel, SiglipModel): a biased patch convolution, learned positions, no
//   class token, a final LayerNorm and, with vision_use_head, the attention-pooling head
//   (SiglipMultiheadAttentionPoolingHead: a probe, nn.MultiheadAttention, a LayerNorm, an MLP);
//   SiglipModel adds the text tower, its head (hidden -> projection_size, biased), logit_scale
//   and logit_bias.
// The encoder stack goes in the model's own fields, an encoder-only stack of MHA blocks.

#include "vision.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

// One image encoder family: the tower's kind, whether a text tower sits beside it (CLIPModel,
// SiglipModel), the class AutoModel builds for the model_type, the classes rightsize counts, and
// the defaults of the vision configuration class.
struct ImageFamily {
  const char* kind;
  bool dual;
  const char* automodel;
  std::vector<std::string> classes;
  VitDefaults defaults;
};

// A dual encoder's text tower (CLIPTextTransformer, SiglipTextTransformer): token and learned
// position embeddings, pre-norm blocks like the vision tower's, a final LayerNorm. Missing fields
// take the configuration class's defaults, recorded as assumed.
struct TextTowerDefaults {
  const char* config_class;
  long long vocab;
  long long hidden;
  long long intermediate;
  long long layers;
  long long positions;
};

struct TextTower {
  long long hidden = 0;
  double params = 0; // without its projection
};

TextTower read_text_tower(const FieldReader& t, const TextTowerDefaults& d, ConfigFields& f) {
  const auto get = [&](const char* name, long long fallback, const char* label) {
    if (t.has(name)) {
      f.record(label, t.where(name));
      return t.integer(name, Range::positive(k_max_vocab));
    }
    f.record(label,
             fmt::format("assumed: {}'s default {} = {} (config.json omits it)",
                         d.config_class,
                         name,
                         fallback));
    return fallback;
  };
  TextTower out;
  out.hidden = get("hidden_size", d.hidden, "text hidden");
  const auto h = static_cast<double>(out.hidden);
  const auto i = static_cast<double>(get("intermediate_size", d.intermediate, "text intermediate"));
  const auto layers = static_cast<double>(get("num_hidden_layers", d.layers, "text layers"));
  const auto vocab = static_cast<double>(get("vocab_size", d.vocab, "text vocab"));
  const auto positions =
      static_cast<double>(get("max_position_embeddings", d.positions, "text positions"));
  out.params = vocab * h + positions * h + layers * vit_block_params(h, i) + 2.0 * h;
  return out;
}

// The config's member `key`, or an empty object where it would be.
FieldReader sub_config(const FieldReader& top, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  return top.has(key) ? top.object(key) : FieldReader(empty, top.file(), top.pointer() + "/" + key);
}

// The encoder stack, in the model's own fields.
ImageEncoder read_tower(const FieldReader& v, ConfigFields& f, ModelArch& m, const ImageFamily& d) {
  const VisionTower t = read_fixed_vit(v, d.kind, &d.defaults, &f);
  ImageEncoder e = vit_embeddings(t, d.kind);
  e.channels = f.find({"num_channels"}, Range::positive(1000), "num_channels").value_or(3);
  m.encoder_only = true;
  m.layers = t.layers;
  m.hidden = t.hidden;
  m.heads = m.kv_heads = t.heads;
  m.head_dim = m.v_head_dim = t.hidden / t.heads;
  m.intermediate = t.intermediate;
  m.attention = AttentionKind::mha;
  m.gated_mlp = false;
  m.qkv_bias = std::string(d.kind) != "vit" || f.flag("qkv_bias", true);
  m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.max_position = e.tokens();
  f.derived("max_position",
            e.class_token
                ? "tokens per image: (image_size / patch_size)^2 patches + the class token"
                : "tokens per image: (image_size / patch_size)^2 patches");
  m.stack = LayerStack(m.layers, Layer{});
  return e;
}

// ViTForImageClassification's classifier, or ViTModel's pooler.
void read_vit_head(const FieldReader& top,
                   ConfigFields& f,
                   const ModelArch& m,
                   const std::string& arch,
                   ImageEncoder& e) {
  const auto h = static_cast<double>(m.hidden);
  if (arch == "ViTForImageClassification") {
    const auto labels = static_cast<double>(read_num_labels(top, f));
    e.head = h * labels + labels;
  } else if (arch == "ViTModel") {
    const auto out = static_cast<double>(
        f.find({"pooler_output_size"}, Range::positive(k_max_width), "pooler_output_size")
            .value_or(m.hidden));
    e.head = h * out + out;
  }
}

// CLIP's projection (all but CLIPVisionModel), and CLIPModel's text tower.
void read_clip_head(const FieldReader& top,
                    const FieldReader& v,
                    ConfigFields& f,
                    const ModelArch& m,
                    const ImageFamily& d,
                    ImageEncoder& e) {
  const FieldReader& holder = d.dual ? top : v;
  const auto projection = static_cast<double>(
      holder.has("projection_dim") ? holder.integer("projection_dim", Range::positive(k_max_width))
                                   : 512);
  f.record("projection_dim",
           holder.has("projection_dim")
               ? holder.where("projection_dim")
               : fmt::format("assumed: {}'s default projection_dim = 512 (config.json omits it)",
                             d.dual ? "CLIPConfig" : "CLIPVisionConfig"));
  e.head = static_cast<double>(m.hidden) * projection;
  if (d.dual) {
    static const TextTowerDefaults text_defaults{"CLIPTextConfig", 49408, 512, 2048, 12, 77};
    const TextTower text = read_text_tower(sub_config(top, "text_config"), text_defaults, f);
    e.text = text.params + static_cast<double>(text.hidden) * projection;
    e.logits = 1; // logit_scale
  }
}

// SigLIP's attention-pooling head (with vision_use_head), and SiglipModel's text tower.
void read_siglip_head(const FieldReader& top,
                      ConfigFields& f,
                      const ModelArch& m,
                      const ImageFamily& d,
                      ImageEncoder& e) {
  const auto h = static_cast<double>(m.hidden);
  const auto i = static_cast<double>(m.intermediate);
  if (f.flag("vision_use_head", true)) {
    e.head = h + (4.0 * h * h + 4.0 * h) + 2.0 * h + (h * i + i + i * h + h);
  }
  if (d.dual) {
    static const TextTowerDefaults text_defaults{"SiglipTextConfig", 32000, 768, 3072, 12, 64};
    const FieldReader tc = sub_config(top, "text_config");
    const TextTower text = read_text_tower(tc, text_defaults, f);
    const auto projection = static_cast<double>(
        tc.has("projection_size") ? tc.integer("projection_size", Range::positive(k_max_width))
                                  : text.hidden);
    e.text = text.params + static_cast<double>(text.hidden) * projection + projection;
    e.logits = 2; // logit_scale, logit_bias
  }
}

void read_image_encoder(const ConfigInput& in, ModelArch& m, const ImageFamily& d) {
  const FieldReader& top = in.top;
  const std::string arch = image_architecture(top, d.automodel);
  check_image_architecture(top, m.family, arch, d.classes);
  const FieldReader v = d.dual ? sub_config(top, "vision_config") : top;
  ConfigFields f(v, m);
  ImageEncoder e = read_tower(v, f, m, d);
  const std::string kind = d.kind;
  if (kind == "vit") {
    read_vit_head(top, f, m, arch, e);
  } else if (kind == "clip" && arch != "CLIPVisionModel") {
    read_clip_head(top, v, f, m, d, e);
  } else if (kind == "siglip") {
    read_siglip_head(top, f, m, d, e);
  }
  m.image = e;
}

// The defaults of ViTConfig, CLIPVisionConfig and SiglipVisionConfig.
constexpr VitDefaults k_vit_defaults{"ViTConfig", 768, 3072, 12, 12, 16, 224};
constexpr VitDefaults k_clip_defaults{"CLIPVisionConfig", 768, 3072, 12, 12, 32, 224};
constexpr VitDefaults k_siglip_defaults{"SiglipVisionConfig", 768, 3072, 12, 12, 16, 224};

} // namespace

void read_vit(const ConfigInput& in, ModelArch& m) {
  static const ImageFamily family{
      "vit", false, "ViTModel", {"ViTModel", "ViTForImageClassification"}, k_vit_defaults};
  read_image_encoder(in, m, family);
}

void read_clip(const ConfigInput& in, ModelArch& m) {
  static const ImageFamily family{"clip", true, "CLIPModel", {"CLIPModel"}, k_clip_defaults};
  read_image_encoder(in, m, family);
}

void read_clip_vision_model(const ConfigInput& in, ModelArch& m) {
  static const ImageFamily family{"clip",
                                  false,
                                  "CLIPVisionModel",
                                  {"CLIPVisionModel", "CLIPVisionModelWithProjection"},
                                  k_clip_defaults};
  read_image_encoder(in, m, family);
}

void read_siglip(const ConfigInput& in, ModelArch& m) {
  static const ImageFamily family{
      "siglip", true, "SiglipModel", {"SiglipModel"}, k_siglip_defaults};
  read_image_encoder(in, m, family);
}

void read_siglip_vision_model(const ConfigInput& in, ModelArch& m) {
  static const ImageFamily family{
      "siglip", false, "SiglipVisionModel", {"SiglipVisionModel"}, k_siglip_defaults};
  read_image_encoder(in, m, family);
}

} // namespace rightsize::hf
