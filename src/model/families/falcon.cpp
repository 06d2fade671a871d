// FalconConfig (Falcon 7B, 40B, 180B): a two-matrix MLP, LayerNorms with bias, tied embeddings.
// new_decoder_architecture (40B, 180B) changes how the key/value heads, the residual and the norms
// are read.

#include "decoder.hpp"

namespace rightsize::hf {

namespace {

bool new_decoder_architecture(const ConfigFields& f) {
  return f.flag("new_decoder_architecture", false);
}

// num_kv_heads (new architecture), or one head unless multi_query is false.
void falcon_kv_heads(ConfigFields& f, ModelArch& m) {
  if (new_decoder_architecture(f)) {
    m.kv_heads = f.require({"num_kv_heads"}, Range::positive(k_max_width), "kv_heads");
  } else {
    m.kv_heads = f.flag("multi_query", true) ? 1 : m.heads;
    f.derived("kv_heads", "falcon multi_query");
  }
}

// The old architecture runs attention and the MLP side by side after one LayerNorm (unless
// parallel_attn is false); every projection is biased when `bias` says so.
void falcon_shape(ConfigFields& f, ModelArch& m) {
  const bool falcon_new = new_decoder_architecture(f);
  m.parallel_attention = f.flag("parallel_attn", true) && !falcon_new;
  m.qkv_bias = m.o_bias = m.mlp_bias = f.flag("bias", false);
  m.layer_norm_bias = true;
  m.norms_per_layer = (m.parallel_attention && !falcon_new) ? 1 : 2;
}

} // namespace

void read_falcon(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.plain_mlp = true;
    d.tie_embeddings = true;
    d.kv_heads = falcon_kv_heads;
    d.shape = falcon_shape;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
