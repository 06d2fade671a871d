#pragma once

// Inside the model stage: the Mamba mixers the state-space families and the hybrids share
// (transformers' MambaMixer and Mamba2Mixer, whose fields each configuration class names its own
// way). Not a public header.

#include "../config_fields.hpp"

namespace rightsize::hf {

// A layer of a Mamba or Mamba-2 model: a norm and the mixer, no attention, no MLP.
constexpr Layer k_mamba_layer{Attention::none, Recurrent::mamba, false, Mlp::none};

// Mamba's time_step_rank (Jamba: mamba_dt_rank): an integer, or "auto" for ceil(hidden / 16).
long long read_dt_rank(ConfigFields& f, const char* name, long long hidden);

// The field names of a Mamba-2 mixer in one family's configuration class.
struct Mamba2Fields {
  const char* heads;
  const char* head_dim;
  const char* state;
  const char* groups;
  const char* conv_kernel;
  const char* conv_bias;
  const char* proj_bias;
  // The expansion factor: heads x head_dim must be it x hidden_size. nullptr: the family states
  // none, and nothing is checked.
  const char* expand = nullptr;
  // head_dim may be "auto", expand x hidden_size / heads (the default of GraniteMoeHybridConfig
  // and BambaConfig).
  bool head_dim_auto = false;
};

// GraniteMoeHybridConfig and BambaConfig spell them alike, with a "mamba_" prefix.
constexpr Mamba2Fields k_mamba_prefixed_fields{"mamba_n_heads",
                                               "mamba_d_head",
                                               "mamba_d_state",
                                               "mamba_n_groups",
                                               "mamba_d_conv",
                                               "mamba_conv_bias",
                                               "mamba_proj_bias",
                                               "mamba_expand",
                                               true};

// Mamba-2 mixer fields shared by Mamba2Config, NemotronHConfig, GraniteMoeHybridConfig and
// BambaConfig (their names differ), and the check that the heads span expand x hidden channels
// where the family states an expansion.
void read_mamba2_mixer(ConfigFields& f, ModelArch& m, const Mamba2Fields& names);

} // namespace rightsize::hf
