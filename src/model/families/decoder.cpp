// The decoder-only reader: LlamaConfig's fields and defaults (transformers'
// models/llama/configuration_llama.py), with the steps each family does its own way taken from
// its DecoderFamily.

#include "decoder.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::hf {

namespace {

// YaRN stretches a context of original_max_position_embeddings by `factor` (Qwen2.5 cards: add
// rope_scaling {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768} for
// 131072 tokens; vLLM's _get_and_verify_max_len computes the same product). Malformed entries are
// left to transformers to reject.
void apply_yarn_context(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  if (!r.has("rope_scaling") || !r.member("rope_scaling").json().is_object()) {
    return;
  }
  const auto& rope = r.member("rope_scaling").json();
  std::string type;
  for (const char* key : {"rope_type", "type"}) {
    if (const auto it = rope.find(key); it != rope.end() && it->is_string()) {
      type = it->get<std::string>();
      break;
    }
  }
  const auto factor = rope.find("factor");
  const auto original = rope.find("original_max_position_embeddings");
  if (type != "yarn" || factor == rope.end() || !factor->is_number() || original == rope.end() ||
      !original->is_number_integer()) {
    return;
  }
  const double tokens = factor->get<double>() * original->get<double>();
  if (tokens > static_cast<double>(m.max_position) && tokens <= k_max_positions) {
    m.max_position = static_cast<long long>(tokens);
    f.derived("max_position",
              fmt::format("rope_scaling yarn: original_max_position_embeddings {} x factor {:g}",
                          original->get<long long>(),
                          factor->get<double>()));
  }
}

void read_dimensions(ConfigFields& f, ModelArch& m) {
  m.hidden =
      f.require({"hidden_size", "n_embd", "d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require(
      {"num_hidden_layers", "n_layer", "num_layers"}, Range::positive(k_max_layers), "layers");
  m.heads = f.require({"num_attention_heads", "n_head"}, Range::positive(k_max_width), "heads");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.max_position = f.find({"max_position_embeddings", "n_positions", "max_seq_len", "n_ctx"},
                          Range::positive(k_max_positions),
                          "max_position")
                       .value_or(0);
  if (m.max_position == 0) {
    assume_family_context(f, m);
  }
  apply_yarn_context(f, m);
}

// Key/value heads: explicit, or the family's rule (multi-query flags), or one per query head.
void read_kv_heads(ConfigFields& f, ModelArch& m, const DecoderFamily& d) {
  const FieldReader& r = f.reader();
  if (auto kv = f.find({"num_key_value_heads"}, Range::positive(k_max_width), "kv_heads")) {
    m.kv_heads = *kv;
  } else if (d.kv_heads != nullptr) {
    d.kv_heads(f, m);
  } else {
    m.kv_heads = m.heads;
    f.derived("kv_heads", "num_key_value_heads absent: one per attention head");
  }
  if (m.heads % m.kv_heads != 0) {
    const char* key = r.has("num_key_value_heads") ? "num_key_value_heads" : "num_kv_heads";
    r.member(key).fail(fmt::format("must divide num_attention_heads ({})", m.heads));
  }
}

// Head dimension: explicit (Gemma, gpt-oss, Qwen3) or hidden / heads.
void read_head_dim(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  if (auto hd =
          f.find({"head_dim", "attention_head_dim"}, Range::positive(k_max_width), "head_dim")) {
    m.head_dim = *hd;
  } else {
    if (m.hidden % m.heads != 0 && !r.has("kv_lora_rank")) {
      r.member(r.has("num_attention_heads") ? "num_attention_heads" : "n_head")
          .fail(fmt::format("must divide hidden_size ({}) when head_dim is not given", m.hidden));
    }
    m.head_dim = m.hidden / m.heads;
    f.derived("head_dim", "hidden_size / num_attention_heads");
  }
  m.v_head_dim = m.head_dim;
}

// MLP width and shape.
void read_mlp(ConfigFields& f, ModelArch& m, const DecoderFamily& d) {
  m.gated_mlp = !d.plain_mlp;
  if (auto inter = f.find({"intermediate_size", "n_inner", "ffn_hidden_size"},
                          Range::positive(k_max_width),
                          "intermediate")) {
    m.intermediate = *inter;
  } else if (d.plain_mlp) {
    m.intermediate = 4 * m.hidden;
    f.derived("intermediate", "4 x hidden_size (n_inner absent)");
  } else {
    throw InputError(f.reader().where("intermediate_size"), "required field is missing");
  }
}

// Embedding tying: the config's flag, else the family's default in transformers.
void read_tied_embeddings(const FieldReader& top,
                          const ConfigFields& f,
                          ModelArch& m,
                          const DecoderFamily& d) {
  m.tied_embeddings = top.has("tie_word_embeddings")
                          ? top.boolean("tie_word_embeddings")
                          : f.flag("tie_word_embeddings", d.tie_embeddings);
}

// Biases and norms: attention_bias and mlp_bias as LlamaConfig reads them, then the family's.
void read_biases_and_norms(ConfigFields& f, ModelArch& m, const DecoderFamily& d) {
  const bool attention_bias = f.flag("attention_bias", false);
  m.qkv_bias = attention_bias || d.qkv_bias;
  m.o_bias = attention_bias;
  m.mlp_bias = f.flag("mlp_bias", false);
  m.norms_per_layer = d.norms_per_layer;
  if (d.shape != nullptr) {
    d.shape(f, m);
  }
  m.qk_norm = d.qk_norm;
  m.attention_gate = d.attention_gate;
}

// MLA (DeepSeek-V2/V3): compressed KV of kv_lora_rank plus a shared rope key per token.
void read_mla(ConfigFields& f, ModelArch& m) {
  m.attention = AttentionKind::mla;
  m.kv_lora_rank = f.require({"kv_lora_rank"}, Range::positive(k_max_width), "kv_lora_rank");
  m.q_lora_rank = f.find({"q_lora_rank"}, Range::positive(k_max_width), "q_lora_rank").value_or(0);
  m.qk_rope_head_dim =
      f.require({"qk_rope_head_dim"}, Range::positive(k_max_width), "qk_rope_head_dim");
  m.qk_nope_head_dim =
      f.require({"qk_nope_head_dim"}, Range::positive(k_max_width), "qk_nope_head_dim");
  m.v_head_dim = f.require({"v_head_dim"}, Range::positive(k_max_width), "v_head_dim");
  m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  f.derived("head_dim", "qk_nope_head_dim + qk_rope_head_dim");
}

void read_attention_kind(ConfigFields& f, ModelArch& m) {
  if (f.reader().has("kv_lora_rank")) {
    read_mla(f, m);
  } else if (m.kv_heads == 1 && m.heads > 1) {
    m.attention = AttentionKind::mqa;
  } else if (m.kv_heads < m.heads) {
    m.attention = AttentionKind::gqa;
  } else {
    m.attention = AttentionKind::mha;
  }
}

// The experts, on every layer unless the family says which.
void read_experts(ConfigFields& f,
                  ModelArch& m,
                  const DecoderFamily& d,
                  std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  const auto experts = f.find({"num_local_experts", "num_experts", "n_routed_experts"},
                              Range::non_negative(k_max_experts),
                              "experts");
  if (!experts || *experts == 0) {
    return;
  }
  m.experts = *experts;
  m.experts_active = f.require({"num_experts_per_tok", "experts_per_token", "moe_topk"},
                               Range::positive(k_max_experts),
                               "experts_active");
  if (m.experts_active > m.experts) {
    // Name the field the value came from, the first of the aliases present.
    const char* field = "moe_topk";
    for (const char* alias : {"num_experts_per_tok", "experts_per_token", "moe_topk"}) {
      if (r.has(alias)) {
        field = alias;
        break;
      }
    }
    r.member(field).fail(fmt::format("must not exceed the {} experts", m.experts));
  }
  m.moe_intermediate =
      f.find({"moe_intermediate_size"}, Range::positive(k_max_width), "moe_intermediate")
          .value_or(m.intermediate);
  for (Layer& layer : layers) {
    layer.mlp = Mlp::moe;
  }
  if (d.experts != nullptr) {
    d.experts(f, m, layers);
  }
}

// Which layers use sliding-window attention: layer_types when the config has it, else the
// family's rule.
void read_sliding_window(ConfigFields& f,
                         ModelArch& m,
                         const DecoderFamily& d,
                         std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  const auto window =
      f.find({"sliding_window"}, Range::positive(k_max_positions), "sliding_window");
  if (r.has("layer_types")) {
    const auto types = layer_types(r, m);
    const auto named = std::count(types.begin(), types.end(), "sliding_attention");
    if (named > 0 && !window) {
      r.member("layer_types")
          .fail_plain("names sliding_attention layers but sliding_window is "
                      "missing");
    }
    if (named > 0) {
      slide_layers(m, *window, layers, [&](long long i) {
        return types[static_cast<std::size_t>(i)] == "sliding_attention";
      });
    }
    return;
  }
  if (!window) {
    return;
  }
  if (d.sliding != nullptr) {
    d.sliding(f, m, *window, layers);
    return;
  }
  const long long local = slide_layers(m, *window, layers, [](long long) { return true; });
  record_local_layers(f, m, local);
}

} // namespace

long long slide_layers(ModelArch& m,
                       long long window,
                       std::vector<Layer>& layers,
                       const std::function<bool(long long)>& slides) {
  m.sliding_window = window;
  long long local = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].attention != Attention::none && slides(static_cast<long long>(i))) {
      layers[i].attention = Attention::sliding;
      ++local;
    }
  }
  return local;
}

void record_local_layers(ConfigFields& f, const ModelArch& m, long long local) {
  f.derived("local_layers", fmt::format("{} of {} layers use the window", local, m.layers));
}

void read_decoder(const ConfigInput& in, ModelArch& m, const DecoderFamily& family) {
  ConfigFields f(in.config, m);
  read_dimensions(f, m);
  read_kv_heads(f, m, family);
  read_head_dim(f, m);
  read_mlp(f, m, family);
  read_tied_embeddings(in.top, f, m, family);
  read_biases_and_norms(f, m, family);
  read_attention_kind(f, m);
  std::vector<Layer> layers(static_cast<std::size_t>(m.layers));
  read_experts(f, m, family, layers);
  if (family.hybrid != nullptr) {
    family.hybrid(f, m, layers);
  }
  read_sliding_window(f, m, family, layers);
  m.stack = LayerStack(std::move(layers));
  if (family.vision != nullptr) {
    family.vision(in, m);
  }
}

} // namespace rightsize::hf
