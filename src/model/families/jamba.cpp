// JambaConfig (Jamba, Jamba 1.5 Mini and Large): attention on every attn_layer_period-th layer
// from attn_layer_offset, Mamba (v1, with dt/B/C norms) elsewhere; experts on every
// expert_layer_period-th layer from expert_layer_offset, a dense MLP elsewhere
// (layers_block_type and layers_num_experts in transformers).

#include "decoder.hpp"
#include "mamba.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

// Layer i is on the pattern when i mod period = offset.
struct Every {
  long long period;
  long long offset;
  [[nodiscard]] bool on(std::size_t i) const {
    return static_cast<long long>(i) % period == offset;
  }
};

Every read_every(ConfigFields& f,
                 const char* period,
                 long long period_default,
                 const char* offset,
                 long long offset_default) {
  const long long p =
      f.find({period}, Range::positive(k_max_layers), period).value_or(period_default);
  const long long o =
      f.find({offset}, Range::non_negative(k_max_layers), offset).value_or(offset_default);
  if (o >= p) {
    f.reader().member(offset).fail(fmt::format("must be below {} ({})", period, p));
  }
  return {p, o};
}

void read_jamba_mixer(ConfigFields& f, ModelArch& m) {
  StateSpace& ssm = m.ssm;
  ssm.version = 1;
  const long long expand = f.find({"mamba_expand"}, Range::positive(64), "ssm_expand").value_or(2);
  ssm.inner = expand * m.hidden;
  ssm.state = f.find({"mamba_d_state"}, Range::positive(k_max_width), "ssm_state").value_or(16);
  ssm.conv_kernel = f.find({"mamba_d_conv"}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.dt_rank = read_dt_rank(f, "mamba_dt_rank", m.hidden);
  ssm.conv_bias = f.flag("mamba_conv_bias", true);
  ssm.proj_bias = f.flag("mamba_proj_bias", false);
  ssm.dt_norms = true;
}

void jamba_layers(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const Every attention = read_every(f, "attn_layer_period", 8, "attn_layer_offset", 4);
  const Every experts = read_every(f, "expert_layer_period", 2, "expert_layer_offset", 1);
  const bool moe = m.experts > 1; // num_experts 1: every MLP is dense
  if (!moe) {
    m.experts = m.experts_active = 0;
  } else {
    m.moe_intermediate = m.intermediate;
  }
  long long attending = 0;
  long long expert_layers = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool attends = attention.on(i);
    layers[i].attention = attends ? Attention::full : Attention::none;
    layers[i].recurrent = attends ? Recurrent::none : Recurrent::mamba;
    layers[i].mlp = moe && experts.on(i) ? Mlp::moe : Mlp::dense;
    attending += attends ? 1 : 0;
    expert_layers += layers[i].mlp == Mlp::moe ? 1 : 0;
  }
  read_jamba_mixer(f, m);
  f.derived("layer_types",
            fmt::format("{} attention and {} Mamba layers; {} MoE and {} dense MLPs",
                        attending,
                        m.layers - attending,
                        expert_layers,
                        m.layers - expert_layers));
}

} // namespace

void read_jamba(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.hybrid = jamba_layers;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
