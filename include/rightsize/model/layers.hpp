#pragma once

// A model's stack, layer by layer: what mixes tokens in each layer and what MLP follows. Every
// count that the estimates, reports and the plan read of a hybrid (how many layers attend, slide,
// recur, run experts) is derived from this description, the shape of llama.cpp's per-layer arrays
// (`recurrent_layer_arr`, `swa_layers`) and of transformers' `layer_types`. A new hybrid of known
// mixers is a new pattern of layers, not a new field.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rightsize {

// A layer's softmax self-attention: over every position it may see (the whole input of an
// encoder, every earlier token of a decoder), over the last `ModelArch::sliding_window` tokens,
// or none.
enum class Attention : std::uint8_t { none, full, sliding };

// A layer's recurrent mixer, whose shape `ModelArch::ssm` describes: Mamba-1 or -2, linear
// attention with the gated delta rule (Gated DeltaNet), or none. Each keeps a state of constant
// size per sequence instead of a KV cache.
enum class Recurrent : std::uint8_t { none, mamba, linear_attention };

// A layer's MLP: one dense MLP, a mixture of experts (the model's expert fields describe it), or
// none.
enum class Mlp : std::uint8_t { none, dense, moe };

// One layer. A plain transformer layer is attention and a dense MLP; a parallel hybrid's
// (Falcon-H1) holds attention and a recurrent mixer side by side, on the same input and summed
// into one residual; an encoder-decoder's decoder layer adds cross-attention over the encoder's
// output.
struct Layer {
  Attention attention = Attention::full;
  Recurrent recurrent = Recurrent::none;
  bool cross_attention = false;
  Mlp mlp = Mlp::dense;

  friend bool operator==(const Layer& a, const Layer& b) {
    return a.attention == b.attention && a.recurrent == b.recurrent &&
           a.cross_attention == b.cross_attention && a.mlp == b.mlp;
  }
  friend bool operator!=(const Layer& a, const Layer& b) { return !(a == b); }
};

// The layers of one stack in the order the forward pass runs them, with their counts worked out
// once (the estimates read them on every candidate a plan tries). Immutable: a reader builds the
// layers, then the stack.
class LayerStack {
public:
  LayerStack() = default;
  explicit LayerStack(std::vector<Layer> layers);
  // `count` copies of `layer`.
  LayerStack(long long count, const Layer& layer);

  [[nodiscard]] const std::vector<Layer>& layers() const { return m_layers; }
  [[nodiscard]] const Layer& operator[](std::size_t i) const { return m_layers[i]; }
  [[nodiscard]] long long size() const { return static_cast<long long>(m_layers.size()); }
  [[nodiscard]] bool empty() const { return m_layers.empty(); }

  // Layers with self-attention: full or sliding, and each apart.
  [[nodiscard]] long long attention() const { return m_counts.full + m_counts.sliding; }
  [[nodiscard]] long long full_attention() const { return m_counts.full; }
  [[nodiscard]] long long sliding() const { return m_counts.sliding; }
  // Layers with a recurrent mixer: either kind, and each apart.
  [[nodiscard]] long long recurrent() const { return m_counts.mamba + m_counts.linear; }
  [[nodiscard]] long long mamba() const { return m_counts.mamba; }
  [[nodiscard]] long long linear_attention() const { return m_counts.linear; }
  // Layers with attention and a recurrent mixer side by side (a parallel hybrid's).
  [[nodiscard]] long long side_by_side() const { return m_counts.side_by_side; }
  [[nodiscard]] long long cross_attention() const { return m_counts.cross; }
  // Layers with an MLP: either kind, and each apart.
  [[nodiscard]] long long mlp() const { return m_counts.dense + m_counts.moe; }
  [[nodiscard]] long long dense_mlp() const { return m_counts.dense; }
  [[nodiscard]] long long moe() const { return m_counts.moe; }
  // Layers with an MLP and no mixer at all (Nemotron-H's "-").
  [[nodiscard]] long long mlp_only() const { return m_counts.mlp_only; }
  // Blocks that end in a residual add (and, under tensor parallelism, an all-reduce): every
  // mixer and every MLP, 2 a layer for a plain transformer, 3 for a parallel hybrid's or an
  // encoder-decoder's decoder layer.
  [[nodiscard]] long long sublayers() const {
    return attention() + recurrent() + cross_attention() + mlp();
  }

private:
  struct Counts {
    long long full = 0;
    long long sliding = 0;
    long long mamba = 0;
    long long linear = 0;
    long long side_by_side = 0;
    long long cross = 0;
    long long dense = 0;
    long long moe = 0;
    long long mlp_only = 0;
  };
  std::vector<Layer> m_layers;
  Counts m_counts;
};

} // namespace rightsize
