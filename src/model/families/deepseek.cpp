// DeepseekV2Config and DeepseekV3Config: multi-head latent attention (read_decoder reads MLA
// whenever kv_lora_rank is set), dense MLPs on the first first_k_dense_replace layers and experts
// on every moe_layer_freq-th layer after them, beside n_shared_experts shared experts of the
// experts' width.

#include "decoder.hpp"

namespace rightsize::hf {

namespace {

void deepseek_experts(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const auto first_dense =
      f.find({"first_k_dense_replace"}, Range::non_negative(k_max_layers), "first_k_dense_replace")
          .value_or(0);
  const auto freq =
      f.find({"moe_layer_freq"}, Range::positive(k_max_layers), "moe_layer_freq").value_or(1);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto index = static_cast<long long>(i);
    layers[i].mlp = index >= first_dense && index % freq == 0 ? Mlp::moe : Mlp::dense;
  }
  m.shared_experts =
      f.find({"n_shared_experts"}, Range::non_negative(k_max_experts), "shared_experts")
          .value_or(0);
  m.shared_expert_intermediate = m.moe_intermediate;
}

// DeepSeek-V3's router adds a score-correction vector (e_score_correction_bias).
void deepseek_v3_shape(ConfigFields& /*f*/, ModelArch& m) {
  m.router_bias = true;
}

} // namespace

void read_deepseek_v2(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.experts = deepseek_experts;
    return d;
  }();
  read_decoder(in, m, family);
}

void read_deepseek_v3(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.experts = deepseek_experts;
    d.shape = deepseek_v3_shape;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
