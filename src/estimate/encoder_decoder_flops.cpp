// The FLOPs of an encoder-decoder's passes (Whisper, T5): the encoder over one window and one
// token through the decoder. Formulas: docs/model.md, "Transcription workloads" and
// "Text-to-text workloads".

#include <rightsize/estimate/performance.hpp>

namespace rightsize {

namespace {

// An encoder-decoder's stacks have layers of one shape (Whisper's, T5's; docs/model.md): the
// parameters of the matrices of one layer's self-attention and MLP, biases included.
double stack_layer_params(const ModelArch& m) {
  return (m.params.attention + m.params.dense_mlp) /
         static_cast<double>(m.layers + m.decoder_layers);
}

// Attention scores and values, 2 x (d_qk + d_v) FLOPs per head per layer per query per key.
double attention_flops_per_pair(const ModelArch& m) {
  return 2.0 * static_cast<double>(m.heads) * static_cast<double>(m.head_dim + m.v_head_dim);
}

} // namespace

Flops encoder_window_flops(const ModelArch& m) {
  const auto h = static_cast<double>(m.hidden);
  const auto positions = static_cast<double>(m.encoder_positions);
  const double frames = 2.0 * positions; // the second convolution has stride 2
  // Whisper's width-3 convolutions: mel -> h over every frame, h -> h over every other frame.
  // T5 reads tokens: none.
  const double conv =
      m.mel_bins > 0
          ? 2.0 * (static_cast<double>(m.mel_bins) * h * 3.0 * frames + h * h * 3.0 * positions)
          : 0.0;
  const double stack = 2.0 * stack_layer_params(m) * static_cast<double>(m.layers) * positions;
  const double attention =
      attention_flops_per_pair(m) * positions * positions * static_cast<double>(m.layers);
  // k and v, half of each cross-attention's parameters, over every encoder position.
  const double cross_kv = 2.0 * (m.params.cross_attention / 2.0) * positions;
  return Flops(conv + stack + attention + cross_kv);
}

Flops decoder_token_flops(const ModelArch& m, double context) {
  const auto h = static_cast<double>(m.hidden);
  const auto layers = static_cast<double>(m.decoder_layers);
  // The lm_head projects onto the vocabulary whether or not it is tied to the embedding.
  const double matmul = 2.0 * (stack_layer_params(m) * layers + m.params.cross_attention / 2.0 +
                               static_cast<double>(m.vocab) * h);
  const double attention =
      attention_flops_per_pair(m) * layers * (context + static_cast<double>(m.encoder_positions));
  return Flops(matmul + attention);
}

} // namespace rightsize
