// MambaConfig and Mamba2Config (Mamba, Mamba-2, Mamba-Codestral): every layer is a norm and a
// Mamba mixer; no attention, no MLP. And the mixers' readers the hybrids share.

#include "mamba.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

long long read_dt_rank(ConfigFields& f, const char* name, long long hidden) {
  const FieldReader& r = f.reader();
  if (r.has(name) && r.member(name).json().is_string()) {
    if (r.string(name) != "auto") {
      r.member(name).fail("must be an integer or \"auto\"");
    }
    f.derived("ssm_dt_rank", fmt::format("{} \"auto\": ceil(hidden_size / 16)", name));
    return (hidden + 15) / 16;
  }
  return f.find({name}, Range::positive(k_max_width), "ssm_dt_rank").value_or((hidden + 15) / 16);
}

void read_mamba2_mixer(ConfigFields& f, ModelArch& m, const Mamba2Fields& names) {
  const FieldReader& r = f.reader();
  StateSpace& ssm = m.ssm;
  ssm.version = 2;
  const long long expand =
      names.expand ? f.find({names.expand}, Range::positive(64), "ssm_expand").value_or(2) : 0;
  ssm.heads = f.require({names.heads}, Range::positive(k_max_width), "ssm_heads");
  long long dim = 0;
  if (names.head_dim_auto && r.has(names.head_dim) && r.member(names.head_dim).json().is_string() &&
      r.string(names.head_dim) == "auto") {
    dim = expand * m.hidden / ssm.heads;
    f.derived(
        "ssm_head_dim",
        fmt::format(
            "{} x hidden_size / {} ({} \"auto\")", names.expand, names.heads, names.head_dim));
  } else {
    dim = f.require({names.head_dim}, Range::positive(k_max_width), "ssm_head_dim");
  }
  ssm.inner = ssm.heads * dim;
  ssm.state = f.require({names.state}, Range::positive(k_max_width), "ssm_state");
  ssm.groups = f.find({names.groups}, Range::positive(k_max_width), "ssm_groups").value_or(1);
  ssm.conv_kernel =
      f.find({names.conv_kernel}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.conv_bias = f.flag(names.conv_bias, true);
  ssm.proj_bias = f.flag(names.proj_bias, false);
  ssm.state_dtype = read_state_dtype(r);
  if (ssm.heads % ssm.groups != 0) {
    r.member(names.groups).fail(fmt::format("must divide the {} Mamba heads", ssm.heads));
  }
  if (names.expand && ssm.inner != expand * m.hidden) {
    r.member(names.heads)
        .fail(fmt::format("{} x {} must be {} x hidden_size ({} x {})",
                          names.heads,
                          names.head_dim,
                          names.expand,
                          expand,
                          m.hidden));
  }
}

namespace {

// MambaConfig's selective-scan mixer (version 1).
void read_mamba1_mixer(ConfigFields& f, ModelArch& m) {
  const long long expand = f.find({"expand"}, Range::positive(64), "ssm_expand").value_or(2);
  StateSpace& ssm = m.ssm;
  ssm.version = 1;
  ssm.inner = f.find({"intermediate_size"}, Range::positive(k_max_width), "ssm_inner")
                  .value_or(expand * m.hidden);
  ssm.state = f.find({"state_size"}, Range::positive(k_max_width), "ssm_state").value_or(16);
  ssm.conv_kernel = f.find({"conv_kernel"}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.dt_rank = read_dt_rank(f, "time_step_rank", m.hidden);
  ssm.conv_bias = f.flag("use_conv_bias", true);
  ssm.proj_bias = f.flag("use_bias", false);
}

void read_state_space_model(const ConfigInput& in, ModelArch& m, bool mamba2) {
  ConfigFields f(in.config, m);
  m.hidden = f.require({"hidden_size", "d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"num_hidden_layers", "n_layer"}, Range::positive(k_max_layers), "layers");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.stack = LayerStack(m.layers, k_mamba_layer);
  m.norms_per_layer = 1;
  m.gated_mlp = false;
  if (mamba2) {
    read_mamba2_mixer(f,
                      m,
                      {"num_heads",
                       "head_dim",
                       "state_size",
                       "n_groups",
                       "conv_kernel",
                       "use_conv_bias",
                       "use_bias",
                       "expand"});
  } else {
    read_mamba1_mixer(f, m);
  }
  // MambaConfig ties the embedding by default, Mamba2Config does not.
  m.tied_embeddings = f.flag("tie_word_embeddings", !mamba2);
  f.derived("layer_types", "every layer a Mamba mixer: no attention, no KV cache, no MLP");
}

} // namespace

void read_mamba(const ConfigInput& in, ModelArch& m) {
  read_state_space_model(in, m, false);
}

void read_mamba2(const ConfigInput& in, ModelArch& m) {
  read_state_space_model(in, m, true);
}

} // namespace rightsize::hf
