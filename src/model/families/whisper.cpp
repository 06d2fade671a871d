// Whisper (WhisperConfig), as WhisperForConditionalGeneration builds it: an audio encoder of
// `layers` and a text decoder of `decoder_layers` with cross-attention (count_parameters adds it);
// two convolutions over num_mel_bins, max_source_positions sinusoidal encoder positions (a frozen
// embedding the checkpoint stores), max_target_positions learned decoder positions, q, v and o
// with biases and k without, a biased GELU MLP, LayerNorms with bias, the output projection tied
// to the token embedding.

#include "../config_fields.hpp"
#include "encoder_decoder.hpp"

#include <fmt/format.h>

#include <utility>

namespace rightsize::hf {

void read_whisper(const ConfigInput& in, ModelArch& m) {
  ConfigFields f(in.config, m);
  const FieldReader& r = f.reader();
  m.encoder_decoder = true;
  m.hidden = f.require({"d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"encoder_layers"}, Range::positive(k_max_layers), "layers");
  m.decoder_layers = f.require({"decoder_layers"}, Range::positive(k_max_layers), "decoder_layers");
  m.heads = f.require({"encoder_attention_heads"}, Range::positive(k_max_width), "heads");
  m.intermediate = f.require({"encoder_ffn_dim"}, Range::positive(k_max_width), "intermediate");
  // One width for both stacks, as in every published Whisper.
  for (const auto& [key, value] : {std::pair{"decoder_attention_heads", m.heads},
                                   std::pair{"decoder_ffn_dim", m.intermediate}}) {
    if (r.has(key) && r.integer(key, Range::positive(k_max_width)) != value) {
      r.member(key).fail(fmt::format("must equal the encoder's ({}): rightsize reads one width for "
                                     "both stacks",
                                     value));
    }
  }
  if (m.hidden % m.heads != 0) {
    r.member("encoder_attention_heads").fail(fmt::format("must divide d_model ({})", m.hidden));
  }
  m.kv_heads = m.heads;
  m.head_dim = m.v_head_dim = m.hidden / m.heads;
  f.derived("head_dim", "d_model / attention heads");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  const auto assumed = [&](const char* key, const char* label, long long fallback) {
    if (auto v = f.find({key}, Range::positive(k_max_positions), label)) {
      return *v;
    }
    f.record(label, fmt::format("assumed: WhisperConfig's default {} = {}", key, fallback));
    return fallback;
  };
  m.mel_bins = assumed("num_mel_bins", "mel_bins", 80);
  m.encoder_positions = assumed("max_source_positions", "encoder_positions", 1500);
  m.max_position = assumed("max_target_positions", "max_position", 448);
  m.learned_positions = m.max_position;
  m.attention = AttentionKind::mha;
  m.gated_mlp = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.k_bias = false;
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
  describe_encoder_decoder(m);
}

} // namespace rightsize::hf
