#pragma once

// Inside the model stage: the two stacks of an encoder-decoder (T5, Whisper). Not a public
// header.

#include <rightsize/model/model.hpp>

namespace rightsize::hf {

// An encoder-decoder's decoder layer: self-attention, cross-attention over the encoder's output,
// an MLP.
constexpr Layer k_decoder_layer{Attention::full, Recurrent::none, true, Mlp::dense};

// `layers` encoder layers (bidirectional attention and an MLP) and `decoder_layers` decoder
// layers.
inline void describe_encoder_decoder(ModelArch& m) {
  m.stack = LayerStack(m.layers, Layer{});
  m.decoder_stack = LayerStack(m.decoder_layers, k_decoder_layer);
}

} // namespace rightsize::hf
