// GptOssConfig (gpt-oss 20B, 120B): experts on every layer with a biased router and biased expert
// projections, a learned attention sink per head, attention biased unless attention_bias is
// false, sliding and full attention as layer_types alternates them.

#include "decoder.hpp"

namespace rightsize::hf {

namespace {

void gpt_oss_shape(ConfigFields& f, ModelArch& m) {
  m.qkv_bias = m.o_bias = f.flag("attention_bias", false) || !f.reader().has("attention_bias");
  m.mlp_bias = m.router_bias = m.attention_sinks = true;
}

} // namespace

void read_gpt_oss(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.shape = gpt_oss_shape;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
