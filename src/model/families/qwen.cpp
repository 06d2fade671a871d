// The Qwen decoders (Qwen2Config, Qwen2MoeConfig, Qwen3Config, Qwen3MoeConfig): Llama's shape
// with q, k and v biased (Qwen2) or per-head q and k norms (Qwen3), the sliding window and the
// expert layers as their classes place them.

#include "qwen.hpp"

#include <algorithm>

namespace rightsize::hf {

void qwen_sliding(ConfigFields& f, ModelArch& m, long long window, std::vector<Layer>& layers) {
  if (!f.flag("use_sliding_window", false)) {
    return;
  }
  const long long full =
      f.find({"max_window_layers"}, Range::non_negative(k_max_layers), "max_window_layers")
          .value_or(0);
  slide_layers(m, window, layers, [full](long long i) { return i >= full; });
}

void qwen_experts(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  const auto step =
      f.find({"decoder_sparse_step"}, Range::positive(k_max_layers), "decoder_sparse_step")
          .value_or(1);
  std::vector<long long> dense_only;
  if (r.has("mlp_only_layers")) {
    for (const auto& e : r.array("mlp_only_layers")) {
      dense_only.push_back(e.as_integer(Range::non_negative(k_max_layers)));
    }
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto index = static_cast<long long>(i);
    const bool dense = std::find(dense_only.begin(), dense_only.end(), index) != dense_only.end();
    layers[i].mlp = !dense && (index + 1) % step == 0 ? Mlp::moe : Mlp::dense;
  }
  if (const auto shared = f.find({"shared_expert_intermediate_size"},
                                 Range::non_negative(k_max_width),
                                 "shared_expert_intermediate");
      shared && *shared > 0) {
    m.shared_experts = 1;
    m.shared_expert_intermediate = *shared;
  }
}

DecoderFamily qwen2_family() {
  DecoderFamily d;
  d.qkv_bias = true;
  d.sliding = qwen_sliding;
  return d;
}

void read_qwen2(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = qwen2_family();
  read_decoder(in, m, family);
}

void read_qwen2_moe(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = qwen2_family();
    d.experts = qwen_experts;
    return d;
  }();
  read_decoder(in, m, family);
}

DecoderFamily qwen3_family() {
  DecoderFamily d;
  d.qk_norm = true;
  d.sliding = qwen_sliding;
  return d;
}

void read_qwen3(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = qwen3_family();
  read_decoder(in, m, family);
}

void read_qwen3_moe(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = qwen3_family();
    d.experts = qwen_experts;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
