// The GPT lineage: GPT2Config and GPTBigCodeConfig (StarCoder: multi-query attention), GPTJConfig
// and GPTNeoXConfig (Pythia). Two-matrix MLPs, LayerNorms with bias, biased projections; GPT-J and
// GPT-NeoX run attention and the MLP on the same input (a parallel residual).

#include "decoder.hpp"

namespace rightsize::hf {

namespace {

// GPT-2 and StarCoder: every projection biased, learned positions.
void gpt2_shape(ConfigFields& /*f*/, ModelArch& m) {
  m.qkv_bias = m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.learned_positions = m.max_position;
}

// GPTBigCodeConfig: one key/value head unless multi_query is false.
void bigcode_kv_heads(ConfigFields& f, ModelArch& m) {
  m.kv_heads = f.flag("multi_query", true) ? 1 : m.heads;
  f.derived("kv_heads", "gpt_bigcode multi_query");
}

// GPT-J: one LayerNorm a layer before attention and the MLP side by side; a biased lm_head.
void gptj_shape(ConfigFields& /*f*/, ModelArch& m) {
  m.parallel_attention = true;
  m.mlp_bias = m.layer_norm_bias = m.lm_head_bias = true;
  m.norms_per_layer = 1;
}

// GPT-NeoX: a parallel residual unless use_parallel_residual is false; attention biased unless
// attention_bias is false.
void gpt_neox_shape(ConfigFields& f, ModelArch& m) {
  m.parallel_attention = f.flag("use_parallel_residual", true);
  m.qkv_bias = m.o_bias = f.flag("attention_bias", true);
  m.mlp_bias = m.layer_norm_bias = true;
}

DecoderFamily plain_mlp_family(void (*shape)(ConfigFields&, ModelArch&)) {
  DecoderFamily d;
  d.plain_mlp = true;
  d.shape = shape;
  return d;
}

DecoderFamily gpt2_family() {
  DecoderFamily d = plain_mlp_family(gpt2_shape);
  d.tie_embeddings = true;
  return d;
}

} // namespace

void read_gpt2(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = gpt2_family();
  read_decoder(in, m, family);
}

void read_gpt_bigcode(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = gpt2_family();
    d.kv_heads = bigcode_kv_heads;
    return d;
  }();
  read_decoder(in, m, family);
}

void read_gptj(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = plain_mlp_family(gptj_shape);
  read_decoder(in, m, family);
}

void read_gpt_neox(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = plain_mlp_family(gpt_neox_shape);
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
