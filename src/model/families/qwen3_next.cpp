// Qwen3-Next (Qwen3NextConfig, Qwen3NextDecoderLayer): each layer is a norm, a mixer, a norm and
// an MLP (a sparse MoE block with a gated shared expert, Qwen-MoE's rule). The mixer is gated
// full attention on the layers layer_types names "full_attention" (absent: every
// full_attention_interval-th, from the interval's last layer), and a Gated DeltaNet elsewhere
// ("linear_attention"): in_proj_qkvz and in_proj_ba from the hidden state, a short causal
// convolution over q, k and v, the gated delta rule over a d_k x d_v state per value head, a gated
// RMSNorm and out_proj.

#include "qwen.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

// Which layers are linear attention: from layer_types, else full_attention_interval.
std::vector<bool> read_linear_layers(ConfigFields& f, const ModelArch& m) {
  const FieldReader& r = f.reader();
  std::vector<bool> linear(static_cast<std::size_t>(m.layers), false);
  if (r.has("layer_types")) {
    const auto types = layer_types(r, m);
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == "linear_attention") {
        linear[i] = true;
      } else if (types[i] != "full_attention") {
        r.member("layer_types")
            .fail_plain(fmt::format(
                "names a layer other than \"linear_attention\" or \"full_attention\": \"{}\"",
                types[i]));
      }
    }
    f.record("attention_layers", r.where("layer_types"));
    return linear;
  }
  const long long interval =
      f.find({"full_attention_interval"}, Range::positive(k_max_layers), "full_attention_interval")
          .value_or(4);
  for (std::size_t i = 0; i < linear.size(); ++i) {
    linear[i] = (static_cast<long long>(i) + 1) % interval != 0;
  }
  return linear;
}

// Qwen3NextGatedDeltaNet's shape; Qwen3NextConfig's defaults are those of Qwen3-Next-80B-A3B.
void read_gated_deltanet(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  StateSpace& gdn = m.ssm;
  gdn.kind = RecurrentKind::gated_deltanet;
  gdn.version = 0;
  const long long value_heads =
      f.find({"linear_num_value_heads"}, Range::positive(k_max_width), "linear_value_heads")
          .value_or(32);
  const long long key_heads =
      f.find({"linear_num_key_heads"}, Range::positive(k_max_width), "linear_key_heads")
          .value_or(16);
  gdn.state = f.find({"linear_key_head_dim"}, Range::positive(k_max_width), "linear_key_head_dim")
                  .value_or(128);
  const long long value_dim =
      f.find({"linear_value_head_dim"}, Range::positive(k_max_width), "linear_value_head_dim")
          .value_or(128);
  gdn.conv_kernel =
      f.find({"linear_conv_kernel_dim"}, Range::positive(1024), "linear_conv_kernel").value_or(4);
  if (value_heads % key_heads != 0) {
    r.member("linear_num_key_heads")
        .fail(fmt::format("must divide linear_num_value_heads ({})", value_heads));
  }
  gdn.heads = value_heads;
  gdn.groups = key_heads;
  gdn.inner = value_heads * value_dim;
  gdn.conv_bias = false; // nn.Conv1d(..., bias=False)
  gdn.proj_bias = false;
  gdn.state_dtype = read_state_dtype(r);
}

void qwen3_next_layers(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const std::vector<bool> linear = read_linear_layers(f, m);
  long long linear_layers = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].attention = linear[i] ? Attention::none : Attention::full;
    layers[i].recurrent = linear[i] ? Recurrent::linear_attention : Recurrent::none;
    linear_layers += linear[i] ? 1 : 0;
  }
  read_gated_deltanet(f, m);
  f.derived("layer_types",
            fmt::format("{} linear-attention (Gated DeltaNet) and {} gated full-attention layers, "
                        "each with {}",
                        linear_layers,
                        m.layers - linear_layers,
                        m.experts > 0 ? "MoE experts and a gated shared expert" : "a gated MLP"));
}

} // namespace

void read_qwen3_next(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d = qwen3_family();
    d.experts = qwen_experts;
    d.attention_gate = true; // Qwen3NextAttention: q_proj is 2 x heads x head_dim
    d.hybrid = qwen3_next_layers;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
