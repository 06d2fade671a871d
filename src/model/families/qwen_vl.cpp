// Qwen2-VL and Qwen2.5-VL (Qwen2VLConfig, Qwen2_5_VLConfig): a Qwen2 decoder and its vision
// transformer, whose images are read at their own resolution (dynamic resolution).

#include "qwen.hpp"
#include "vision.hpp"

namespace rightsize::hf {

namespace {

// Qwen2-VL and Qwen2.5-VL's vision transformer: a 3D patch convolution (2 frames of patch x
// patch), blocks of q/k/v/o with biases and an MLP (Qwen2-VL: LayerNorm and a GELU MLP of
// embed_dim x mlp_ratio; Qwen2.5-VL: RMSNorm and a gated MLP of intermediate_size), and a merger
// that concatenates merge x merge patches into one token (PatchMerger: a norm and two linears).
VisionTower
read_qwen_vision(const FieldReader& top, const std::string& family, long long text_hidden) {
  const FieldReader v = top.object("vision_config");
  const auto get = [&](std::initializer_list<const char*> names, long long fallback) {
    for (const char* name : names) {
      if (v.has(name)) {
        return v.integer(name, Range::positive(k_max_width));
      }
    }
    if (fallback > 0) {
      return fallback;
    }
    v.member(*names.begin()).fail_plain("required field is missing");
  };
  VisionTower t;
  t.kind = family;
  const bool v25 = family == "qwen2_5_vl";
  t.layers = get({"depth"}, 0);
  t.hidden = v25 ? get({"hidden_size"}, 0) : get({"embed_dim"}, 0);
  t.patch = get({"patch_size"}, 14);
  t.merge = get({"spatial_merge_size"}, 2);
  const long long frames = get({"temporal_patch_size"}, 2);
  const long long channels = get({"in_chans", "in_channels"}, 3);
  const long long out = v25 ? get({"out_hidden_size"}, text_hidden) : text_hidden;
  const auto h = static_cast<double>(t.hidden);
  double block = 0;
  if (v25) {
    t.intermediate = get({"intermediate_size"}, 0);
    const auto i = static_cast<double>(t.intermediate);
    block = 2.0 * h + (3.0 * h * h + 3.0 * h) + (h * h + h) + 2.0 * (h * i + i) + (i * h + h);
  } else {
    const double ratio = v.has("mlp_ratio") ? v.number("mlp_ratio", Range::positive(64)) : 4.0;
    t.intermediate = static_cast<long long>(h * ratio);
    block = vit_block_params(h, static_cast<double>(t.intermediate)); // qkv fused, same count
  }
  const double merged = h * static_cast<double>(t.merge * t.merge);
  const double norm = v25 ? h : 2.0 * h;
  const double merger = norm + merged * merged + merged + merged * static_cast<double>(out) +
                        static_cast<double>(out);
  const double patch_embed = static_cast<double>(channels * frames * t.patch * t.patch) * h;
  t.params = patch_embed + static_cast<double>(t.layers) * block + merger;
  return t;
}

void qwen_vision(const ConfigInput& in, ModelArch& m) {
  m.vision = read_qwen_vision(in.top, m.family, m.hidden);
}

} // namespace

// qwen2_vl and qwen2_5_vl: their vision transformers differ by family (read_qwen_vision).
void read_qwen_vl(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = qwen2_family();
    d.vision = qwen_vision;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
