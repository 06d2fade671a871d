// The per-layer description of a model (include/rightsize/model/layers.hpp): each layer's mixers
// and MLP, and the counts the estimates read derived from it.

#include <rightsize/model/layers.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace rightsize;

namespace {

constexpr Layer k_dense{Attention::full, Recurrent::none, false, Mlp::dense};
constexpr Layer k_moe{Attention::full, Recurrent::none, false, Mlp::moe};
constexpr Layer k_sliding{Attention::sliding, Recurrent::none, false, Mlp::dense};

} // namespace

TEST_CASE("layers: a stack counts its layers by mixer and MLP", "[model][layers]") {
  const LayerStack stack({k_dense,
                          k_sliding,
                          Layer{Attention::full, Recurrent::mamba, false, Mlp::dense},
                          Layer{Attention::none, Recurrent::mamba, false, Mlp::none},
                          Layer{Attention::none, Recurrent::linear_attention, false, Mlp::moe},
                          Layer{Attention::none, Recurrent::none, false, Mlp::dense},
                          Layer{Attention::full, Recurrent::none, true, Mlp::dense}});
  CHECK(stack.size() == 7);
  CHECK(stack.attention() == 4);
  CHECK(stack.full_attention() == 3);
  CHECK(stack.sliding() == 1);
  CHECK(stack.recurrent() == 3);
  CHECK(stack.mamba() == 2);
  CHECK(stack.linear_attention() == 1);
  CHECK(stack.side_by_side() == 1);
  CHECK(stack.cross_attention() == 1);
  CHECK(stack.mlp() == 6);
  CHECK(stack.dense_mlp() == 5);
  CHECK(stack.moe() == 1);
  CHECK(stack.mlp_only() == 1);
  // 4 attention + 3 recurrent + 1 cross-attention + 6 MLPs.
  CHECK(stack.sublayers() == 14);
  CHECK(LayerStack(3, k_moe).layers() == std::vector<Layer>(3, k_moe));
  CHECK(LayerStack().empty());
  CHECK(LayerStack(0, k_dense).sublayers() == 0);
}
