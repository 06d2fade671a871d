#include <rightsize/model/layers.hpp>

#include <utility>

namespace rightsize {

LayerStack::LayerStack(std::vector<Layer> layers) : m_layers(std::move(layers)) {
  for (const Layer& l : m_layers) {
    m_counts.full += l.attention == Attention::full ? 1 : 0;
    m_counts.sliding += l.attention == Attention::sliding ? 1 : 0;
    m_counts.mamba += l.recurrent == Recurrent::mamba ? 1 : 0;
    m_counts.linear += l.recurrent == Recurrent::linear_attention ? 1 : 0;
    const bool attends = l.attention != Attention::none;
    const bool recurs = l.recurrent != Recurrent::none;
    m_counts.side_by_side += attends && recurs ? 1 : 0;
    m_counts.cross += l.cross_attention ? 1 : 0;
    m_counts.dense += l.mlp == Mlp::dense ? 1 : 0;
    m_counts.moe += l.mlp == Mlp::moe ? 1 : 0;
    m_counts.mlp_only += !attends && !recurs && !l.cross_attention && l.mlp != Mlp::none ? 1 : 0;
  }
}

LayerStack::LayerStack(long long count, const Layer& layer)
    : LayerStack(std::vector<Layer>(static_cast<std::size_t>(count > 0 ? count : 0), layer)) {}

} // namespace rightsize
