// T5, mT5 and UMT5 (T5Config, MT5Config, UMT5Config), as T5ForConditionalGeneration and its
// siblings build them: the encoder stack in `layers`, the decoder's in `decoder_layers`
// (count_parameters adds its cross-attention); one embedding shared by both stacks, an lm_head
// unless tie_word_embeddings (T5 v1.0: tied; T5 v1.1, Flan-T5, mT5: not); q, k, v of heads x d_kv
// (which may differ from d_model) and o, no biases; a ReLU MLP (wi, wo) or, with
// feed_forward_proj "gated-gelu", a gated one (wi_0, wi_1, wo); weight-only RMS norms; relative
// position bias tables of relative_attention_num_buckets x heads, in the first layer of each stack
// (UMT5: in every self-attention layer); no position limit.

#include "../config_fields.hpp"
#include "encoder_decoder.hpp"

#include <string>

namespace rightsize::hf {

namespace {

// Where the three classes differ: the feed_forward_proj and tie_word_embeddings defaults, and
// where the relative position bias tables sit.
struct T5Variant {
  const char* feed_forward;
  bool tied;
  bool bias_in_every_layer;
};

void read_t5_family(const ConfigInput& in, ModelArch& m, const T5Variant& v) {
  ConfigFields f(in.config, m);
  const FieldReader& r = f.reader();
  m.encoder_decoder = true;
  m.hidden = f.require({"d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"num_layers"}, Range::positive(k_max_layers), "layers");
  m.decoder_layers = f.find({"num_decoder_layers"}, Range::positive(k_max_layers), "decoder_layers")
                         .value_or(m.layers);
  m.heads = m.kv_heads = f.require({"num_heads"}, Range::positive(k_max_width), "heads");
  m.head_dim = m.v_head_dim =
      f.find({"d_kv"}, Range::positive(k_max_width), "head_dim").value_or(64);
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.intermediate = f.require({"d_ff"}, Range::positive(k_max_width), "intermediate");
  m.relative_buckets = f.find({"relative_attention_num_buckets"},
                              Range::positive(k_max_positions),
                              "relative_buckets")
                           .value_or(32);
  m.relative_bias_tables = v.bias_in_every_layer ? m.layers + m.decoder_layers : 2;
  const std::string ff = r.optional_string("feed_forward_proj").value_or(v.feed_forward);
  const auto dash = ff.find('-');
  if (ff.empty() || (dash != std::string::npos && (ff.substr(0, dash) != "gated" ||
                                                   ff.find('-', dash + 1) != std::string::npos))) {
    r.member("feed_forward_proj")
        .fail("must be an activation (\"relu\") or \"gated-\" and one (\"gated-gelu\")");
  }
  m.gated_mlp = dash != std::string::npos;
  m.attention = AttentionKind::mha;
  m.tied_embeddings = f.flag("tie_word_embeddings", v.tied);
  describe_encoder_decoder(m);
}

} // namespace

void read_t5(const ConfigInput& in, ModelArch& m) {
  read_t5_family(in, m, {"relu", true, false});
}

void read_mt5(const ConfigInput& in, ModelArch& m) {
  read_t5_family(in, m, {"gated-gelu", false, false});
}

void read_umt5(const ConfigInput& in, ModelArch& m) {
  read_t5_family(in, m, {"gated-gelu", true, true});
}

} // namespace rightsize::hf
