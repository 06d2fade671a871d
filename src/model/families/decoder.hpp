#pragma once

// Inside the model stage: the reader that decoder-only families share, LlamaConfig's fields and
// defaults, and what each family's configuration class does differently (a DecoderFamily per
// family file). Not a public header.

#include "../config_fields.hpp"

#include <functional>
#include <vector>

namespace rightsize::hf {

// How a family departs from LlamaConfig in what read_decoder reads. The flags are the class's
// defaults; a step left null is Llama's.
struct DecoderFamily {
  // A two-matrix MLP (GPT-2's), 4 x hidden_size wide when the config states no width.
  bool plain_mlp = false;
  // tie_word_embeddings when the config does not say.
  bool tie_embeddings = false;
  int norms_per_layer = 2;
  bool qkv_bias = false;       // q, k and v biased whatever attention_bias says (Qwen2)
  bool qk_norm = false;        // per-head RMSNorm on q and k
  bool attention_gate = false; // q_proj also yields a sigmoid gate on the output (Qwen3-Next)

  // The key/value heads when num_key_value_heads is absent (Falcon, StarCoder: multi_query).
  // Null: one per attention head.
  void (*kv_heads)(ConfigFields& f, ModelArch& m) = nullptr;
  // Biases, norms, positions and a parallel residual, after attention_bias and mlp_bias are read
  // (GPT-2, GPT-J, GPT-NeoX, Falcon, gpt-oss, DeepSeek-V3).
  void (*shape)(ConfigFields& f, ModelArch& m) = nullptr;
  // Which layers run the experts, once the experts are read, and the shared experts. Null: every
  // layer.
  void (*experts)(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) = nullptr;
  // A hybrid's mixers, layer by layer, and what else its class reads (Jamba, Nemotron-H, ...).
  void (*hybrid)(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) = nullptr;
  // Which layers use the sliding window `window` when layer_types does not say. Null: all of
  // them (Mistral).
  void (*sliding)(ConfigFields& f,
                  ModelArch& m,
                  long long window,
                  std::vector<Layer>& layers) = nullptr;
  // The vision tower of a vision-language model, read from the whole config.
  void (*vision)(const ConfigInput& in, ModelArch& m) = nullptr;
};

// Reads a decoder-only transformer in this order: dimensions and context, key/value heads, head
// dimension, MLP, embedding tying, biases and norms, attention kind (MLA when kv_lora_rank is
// set), experts, a hybrid's layers, the sliding window, a vision tower. The order is the order
// of the provenance `rightsize model` lists.
void read_decoder(const ConfigInput& in, ModelArch& m, const DecoderFamily& family);

// Marks the layers with self-attention that `slides(i)` names as attending to the last
// `window` tokens (m.sliding_window) and returns how many there are.
long long slide_layers(ModelArch& m,
                       long long window,
                       std::vector<Layer>& layers,
                       const std::function<bool(long long)>& slides);

// Records how many of the layers use the window, as derived.
void record_local_layers(ConfigFields& f, const ModelArch& m, long long local);

} // namespace rightsize::hf
