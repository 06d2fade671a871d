// The per-layer description of a model (include/rightsize/model/layers.hpp): each layer's mixers
// and MLP, hand-checked against the configs under tests/data/configs, and the counts the
// estimates read derived from it.

#include "test_paths.hpp"

#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace rightsize;
using rightsize::test::config_path;

namespace {

ModelArch model_of(const std::string& name) {
  return load_spec(config_path(name), SpecUse::describe).model;
}

constexpr Layer k_dense{Attention::full, Recurrent::none, false, Mlp::dense};
constexpr Layer k_moe{Attention::full, Recurrent::none, false, Mlp::moe};
constexpr Layer k_sliding{Attention::sliding, Recurrent::none, false, Mlp::dense};

// The layers of `m` as one character each: the mixers (A attention, S sliding attention, M Mamba,
// L linear attention, P attention and Mamba side by side, - none), then the MLP (d dense, e
// experts, . none).
std::string pattern(const LayerStack& stack) {
  std::string out;
  for (const Layer& l : stack.layers()) {
    const bool attends = l.attention != Attention::none;
    char mixer = '-';
    if (attends && l.recurrent == Recurrent::mamba) {
      mixer = 'P';
    } else if (l.recurrent == Recurrent::mamba) {
      mixer = 'M';
    } else if (l.recurrent == Recurrent::linear_attention) {
      mixer = 'L';
    } else if (l.attention == Attention::sliding) {
      mixer = 'S';
    } else if (attends) {
      mixer = 'A';
    }
    out += mixer;
    out += l.mlp == Mlp::moe ? 'e' : l.mlp == Mlp::dense ? 'd' : '.';
  }
  return out;
}

// `count` copies of `unit`.
std::string repeat(const std::string& unit, long long count) {
  std::string out;
  for (long long i = 0; i < count; ++i) {
    out += unit;
  }
  return out;
}

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

TEST_CASE("layers: plain, MoE and MLA decoders", "[model][layers]") {
  // Llama-3.1-8B: 32 layers of attention and a dense MLP.
  const auto llama = model_of("llama-3.1-8b");
  CHECK(llama.stack.layers() == std::vector<Layer>(32, k_dense));
  CHECK(llama.sublayers() == 64);
  CHECK(llama.decoder_stack.empty());
  // Mixtral-8x7B: experts on all 32 layers; its sliding_window is null, so every layer is global.
  const auto mixtral = model_of("mixtral-8x7b");
  CHECK(mixtral.stack.layers() == std::vector<Layer>(32, k_moe));
  CHECK(mixtral.global_layers() == 32);
  // DeepSeek-V3: first_k_dense_replace 3, moe_layer_freq 1: layers 0-2 dense, 3-60 experts.
  const auto v3 = model_of("deepseek-v3");
  CHECK(pattern(v3.stack) == repeat("Ad", 3) + repeat("Ae", 58));
  CHECK(v3.moe_layers() == 58);
  CHECK(v3.mlp_layers() == 61);
}

TEST_CASE("layers: sliding-window layers of Gemma 2 and 3", "[model][layers]") {
  // Gemma 2: even layers local (Gemma2Config), 21 of 42.
  const auto gemma2 = model_of("gemma-2-9b");
  CHECK(pattern(gemma2.stack) == repeat("SdAd", 21));
  CHECK(gemma2.local_layers() == 21);
  CHECK(gemma2.global_layers() == 21);
  // Gemma 3: sliding_window_pattern absent, 6: layers 5, 11, ..., 59 global, the other 52 local.
  const auto gemma3 = model_of("gemma-3-27b");
  CHECK(pattern(gemma3.stack) == repeat("SdSdSdSdSdAd", 10) + "SdSd");
  CHECK(gemma3.local_layers() == 52);
  CHECK(gemma3.global_layers() == 10);
}

TEST_CASE("layers: hybrids of attention, Mamba and linear attention", "[model][layers]") {
  // Jamba-1.5-Mini: attention on layer 4 of every 8 (attn_layer_period 8, offset 4), Mamba on the
  // others; experts on the odd layers (expert_layer_period 2, offset 1).
  const auto jamba = model_of("hybrid/jamba-1.5-mini");
  CHECK(pattern(jamba.stack) == repeat("MdMeMdMeAdMeMdMe", 4));
  // Nemotron-H-8B: hybrid_override_pattern "M-M-M-M*-" then "M-M-M-M-M*-" three times then
  // "M-M-M-M-M-", one block a layer: "M" Mamba-2, "*" attention, "-" an MLP alone.
  const auto nemotron = model_of("hybrid/nemotron-h-8b");
  CHECK(pattern(nemotron.stack) == repeat("M.-d", 3) + "M.A." +
                                       repeat(repeat("-dM.", 4) + "-dM.A.", 3) + repeat("-dM.", 5) +
                                       "-d");
  CHECK(nemotron.stack.mlp_only() == 24);
  CHECK(nemotron.sublayers() == 4 + 24 + 24);
  // Falcon-H1: attention and Mamba-2 side by side, and a dense MLP, on each of 36 layers.
  const auto falcon = model_of("hybrid/falcon-h1-0.5b-instruct");
  CHECK(pattern(falcon.stack) == repeat("Pd", 36));
  CHECK(falcon.stack.side_by_side() == 36);
  CHECK(falcon.sublayers() == 3 * 36);
  // Qwen3-Next: full_attention_interval 4: layers 3, 7, ..., 47 gated attention, the others
  // Gated DeltaNet; experts on every layer.
  const auto next = model_of("hybrid/qwen3-next-80b-a3b-instruct");
  CHECK(pattern(next.stack) == repeat("LeLeLeAe", 12));
  CHECK(next.stack.linear_attention() == 36);
  CHECK(next.recurrent_layers() == 36);
  // Mamba-130m: 24 Mamba mixers, no attention, no MLP.
  const auto mamba = model_of("hybrid/mamba-130m");
  CHECK(pattern(mamba.stack) == repeat("M.", 24));
  CHECK(mamba.attention_layers() == 0);
  CHECK(mamba.mlp_layers() == 0);
}

TEST_CASE("layers: encoders, encoder-decoders and models without a transformer stack",
          "[model][layers]") {
  // ModernBERT-base: global attention on layers 0, 3, ..., 21, a window on the 14 others.
  const auto modern = model_of("encoder/modernbert-base");
  CHECK(pattern(modern.stack) == repeat("AdSdSd", 7) + "Ad");
  // Whisper-large-v3: 32 encoder layers; 32 decoder layers, each with cross-attention.
  const auto whisper = model_of("encdec/whisper-large-v3");
  CHECK(whisper.stack.layers() == std::vector<Layer>(32, k_dense));
  CHECK(whisper.decoder_stack.layers() ==
        std::vector<Layer>(32, Layer{Attention::full, Recurrent::none, true, Mlp::dense}));
  CHECK(whisper.decoder_stack.sublayers() == 3 * 32);
  // An image encoder's blocks are attention and an MLP; a ResNet has no transformer stack: its
  // 16 residual layers are counted in `layers` only.
  CHECK(model_of("vision/vit-base-patch16-224").stack.layers() == std::vector<Layer>(12, k_dense));
  const auto resnet = model_of("vision/resnet-50");
  CHECK(resnet.stack.empty());
  CHECK(resnet.layers == 16);
}

TEST_CASE("layers: a spec's generic model is uniform", "[model][layers]") {
  const auto generic =
      parse_generic_model(nlohmann::json::parse(R"({"layers": 4, "hidden_size": 256, "heads": 4,
          "vocab_size": 1000, "experts": 8, "experts_active": 2, "sliding_window": 512})"),
                          "spec.json",
                          "/model");
  CHECK(generic.stack.layers() ==
        std::vector<Layer>(4, Layer{Attention::sliding, Recurrent::none, false, Mlp::moe}));
}
