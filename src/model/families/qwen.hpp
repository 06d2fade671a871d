#pragma once

// Inside the model stage: the rules the Qwen configuration classes share (Qwen2, Qwen2-MoE,
// Qwen2-VL, Qwen3, Qwen3-MoE, Qwen3-Next). Not a public header.

#include "decoder.hpp"

namespace rightsize::hf {

// Qwen ships sliding_window with use_sliding_window false: the window is then unused. With it,
// the layers from max_window_layers on use it (Qwen2Config's layer_types rule).
void qwen_sliding(ConfigFields& f, ModelArch& m, long long window, std::vector<Layer>& layers);

// Experts on every decoder_sparse_step-th layer (from the step's last) but those mlp_only_layers
// lists, which keep a dense MLP; a shared expert of shared_expert_intermediate_size, gated by a
// hidden x 1 projection (count_parameters).
void qwen_experts(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers);

// Qwen2Config's shape (q, k and v biased) and Qwen3Config's (per-head q and k norms), each
// with qwen_sliding; the MoE classes add qwen_experts.
DecoderFamily qwen2_family();
DecoderFamily qwen3_family();

} // namespace rightsize::hf
