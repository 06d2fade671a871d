// The Gemma decoders (GemmaConfig, Gemma2Config, Gemma3TextConfig, Gemma3Config): tied
// embeddings; Gemma 2 and 3 with four norms a layer and a sliding window on most layers; Gemma 3
// with per-head q and k norms and, in its multimodal config, a SigLIP vision tower.

#include "decoder.hpp"
#include "vision.hpp"

namespace rightsize::hf {

namespace {

// Even layers are local (Gemma2Config: layer_types alternate sliding and full attention).
void gemma2_sliding(ConfigFields& f, ModelArch& m, long long window, std::vector<Layer>& layers) {
  record_local_layers(
      f, m, slide_layers(m, window, layers, [](long long i) { return i % 2 == 0; }));
}

// Every sliding_window_pattern-th layer is global, the others local (Gemma3TextConfig).
void gemma3_sliding(ConfigFields& f, ModelArch& m, long long window, std::vector<Layer>& layers) {
  const long long pattern =
      f.find({"sliding_window_pattern"}, Range::positive(k_max_layers), "sliding_window_pattern")
          .value_or(6);
  record_local_layers(f, m, slide_layers(m, window, layers, [pattern](long long i) {
                        return (i + 1) % pattern != 0;
                      }));
}

// Gemma 3's vision tower: SigLIP (SiglipVisionTransformer: patch convolution, learned positions,
// pre-norm blocks of LayerNorm, biased q/k/v/o and a GELU MLP, a final LayerNorm) and
// Gemma3MultiModalProjector (a vision x text projection and an RMSNorm), each image resized to
// image_size and pooled to mm_tokens_per_image tokens.
VisionTower read_siglip_tower(const FieldReader& top, long long text_hidden) {
  const FieldReader v = top.object("vision_config");
  VisionTower t = read_fixed_vit(v, "siglip");
  if (v.has("vision_use_head") && v.boolean("vision_use_head")) {
    v.member("vision_use_head")
        .fail("the SigLIP pooling head is not modelled (Gemma 3 sets false)");
  }
  t.tokens_per_image = top.has("mm_tokens_per_image")
                           ? top.integer("mm_tokens_per_image", Range::positive(1e6))
                           : 256;
  const auto h = static_cast<double>(t.hidden);
  const auto i = static_cast<double>(t.intermediate);
  const double embeddings = vit_embeddings(t, "siglip").embedding_params(t.hidden);
  const double block = vit_block_params(h, i);
  const double projector = h * static_cast<double>(text_hidden) + h;
  t.params = embeddings + static_cast<double>(t.layers) * block + 2.0 * h + projector;
  return t;
}

void gemma3_vision(const ConfigInput& in, ModelArch& m) {
  if (in.top.has("vision_config")) {
    m.vision = read_siglip_tower(in.top, m.hidden);
  }
}

DecoderFamily gemma_family(int norms_per_layer) {
  DecoderFamily d;
  d.tie_embeddings = true;
  d.norms_per_layer = norms_per_layer;
  return d;
}

DecoderFamily gemma3_family() {
  DecoderFamily d = gemma_family(4);
  d.qk_norm = true;
  d.sliding = gemma3_sliding;
  return d;
}

} // namespace

void read_gemma(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = gemma_family(2);
  read_decoder(in, m, family);
}

void read_gemma2(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = gemma_family(4);
    d.sliding = gemma2_sliding;
    return d;
  }();
  read_decoder(in, m, family);
}

// The multimodal Gemma3Config: the text model under text_config, the SigLIP tower beside it.
void read_gemma3(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = gemma3_family();
    d.vision = gemma3_vision;
    return d;
  }();
  read_decoder(in, m, family);
}

void read_gemma3_text(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = gemma3_family();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
