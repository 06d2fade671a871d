// Encoder-only families, as an embedding or reranking server loads them: the base model
// (BertModel, RobertaModel, XLMRobertaModel, DistilBertModel, ModernBertModel) without the
// masked-LM head the checkpoint was pretrained with.
// - BERT, RoBERTa, XLM-R and DistilBERT: learned positions (and, but for DistilBERT, token-type
//   embeddings) beside the token embedding, then an embedding LayerNorm; post-norm blocks of
//   biased q, k, v and o, a biased GELU MLP, two LayerNorms with bias; BERT-likes end in a pooler
//   (a hidden x hidden dense layer with bias), DistilBERT does not.
// - RoBERTa and XLM-R number positions from pad_token_id + 1 (create_position_ids_from_input_ids),
//   so their inputs hold max_position_embeddings - pad_token_id - 1 tokens (514 rows: 512).
// - ModernBERT: rotary positions, a GeGLU MLP (Wi: hidden -> 2 x intermediate), no biases unless
//   attention_bias, mlp_bias or norm_bias say so, an embedding norm, no norm before the first
//   layer's attention, a final norm; every global_attn_every_n_layers-th layer (from the first)
//   attends globally, the others to a local window of local_attention tokens.

#include "../config_fields.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

enum class Encoder { bert, roberta, distilbert, modernbert };

// Every layer attends over the whole input and ends in an MLP.
void read_encoder_stack(ConfigFields& f, ModelArch& m, bool distil) {
  const FieldReader& r = f.reader();
  m.encoder_only = true;
  m.hidden = f.require({"hidden_size", "dim"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"num_hidden_layers", "n_layers"}, Range::positive(k_max_layers), "layers");
  m.heads = f.require({"num_attention_heads", "n_heads"}, Range::positive(k_max_width), "heads");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.intermediate =
      f.require({"intermediate_size", "hidden_dim"}, Range::positive(k_max_width), "intermediate");
  if (m.hidden % m.heads != 0) {
    r.member(distil ? "n_heads" : "num_attention_heads")
        .fail(fmt::format("must divide the hidden size ({})", m.hidden));
  }
  m.kv_heads = m.heads;
  m.head_dim = m.v_head_dim = m.hidden / m.heads;
  m.attention = AttentionKind::mha;
  f.derived("head_dim", "hidden size / attention heads");
  m.stack = LayerStack(m.layers, Layer{});
}

// ModernBERT: global attention on every global_attn_every_n_layers-th layer from the first, a
// window of local_attention tokens on the others.
void read_modernbert_shape(ConfigFields& f, ModelArch& m) {
  m.gated_mlp = true;
  m.qkv_bias = m.o_bias = f.flag("attention_bias", false);
  m.mlp_bias = f.flag("mlp_bias", false);
  m.layer_norm_bias = f.flag("norm_bias", false);
  const long long every = f.find({"global_attn_every_n_layers"},
                                 Range::positive(k_max_layers),
                                 "global_attn_every_n_layers")
                              .value_or(3);
  m.sliding_window =
      f.find({"local_attention"}, Range::positive(k_max_positions), "sliding_window").value_or(128);
  std::vector<Layer> layers = m.stack.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (static_cast<long long>(i) % every != 0) {
      layers[i].attention = Attention::sliding;
    }
  }
  m.stack = LayerStack(std::move(layers));
}

void read_encoder(const ConfigInput& in, ModelArch& m, Encoder kind) {
  ConfigFields f(in.config, m);
  const FieldReader& r = f.reader();
  read_encoder_stack(f, m, kind == Encoder::distilbert);
  if (kind != Encoder::modernbert && r.has("position_embedding_type") &&
      r.string("position_embedding_type") != "absolute") {
    r.member("position_embedding_type")
        .fail("relative position embeddings are not modelled; rightsize reads \"absolute\"");
  }
  m.max_position =
      f.find({"max_position_embeddings"}, Range::positive(k_max_positions), "max_position")
          .value_or(0);
  if (m.max_position == 0) {
    assume_family_context(f, m);
  }
  if (kind == Encoder::modernbert) {
    read_modernbert_shape(f, m);
    return;
  }
  m.gated_mlp = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.learned_positions = m.max_position;
  if (kind == Encoder::roberta) {
    const long long pad =
        f.find({"pad_token_id"}, Range{0, k_max_vocab}, "pad_token_id").value_or(1);
    if (m.max_position <= pad + 1) {
      r.member("max_position_embeddings")
          .fail(
              fmt::format("must exceed pad_token_id + 1 ({}): positions start after it", pad + 1));
    }
    m.max_position -= pad + 1;
    f.derived("max_position",
              "max_position_embeddings - pad_token_id - 1 (positions start after "
              "the padding index)");
  }
  if (kind != Encoder::distilbert) {
    m.token_types = f.find({"type_vocab_size"}, Range{0, k_max_vocab}, "token_types").value_or(2);
    m.pooler = true;
  }
}

} // namespace

void read_bert(const ConfigInput& in, ModelArch& m) {
  read_encoder(in, m, Encoder::bert);
}

// roberta, xlm-roberta and camembert: BERT's shape, positions numbered after the padding index.
void read_roberta(const ConfigInput& in, ModelArch& m) {
  read_encoder(in, m, Encoder::roberta);
}

void read_distilbert(const ConfigInput& in, ModelArch& m) {
  read_encoder(in, m, Encoder::distilbert);
}

void read_modernbert(const ConfigInput& in, ModelArch& m) {
  read_encoder(in, m, Encoder::modernbert);
}

} // namespace rightsize::hf
