// Falcon-H1 (FalconH1Config, FalconH1DecoderLayer): a parallel hybrid. Every layer is a norm,
// then attention and a Mamba-2 mixer side by side on its output, summed into one residual, then a
// norm and a gated MLP. The mixer (FalconH1Mixer) is Mamba2Mixer's but for its width, mamba_d_ssm
// (null: mamba_expand x hidden_size) split into mamba_n_heads heads of mamba_d_head ("auto":
// mamba_d_ssm / mamba_n_heads), its gated RMSNorm, present only with mamba_rms_norm, and the bias
// of its out_proj, projectors_bias. FalconH1Config's own defaults for the mixer's width, heads and
// state (1024, 128, 256) are no published model's: those three are required. The µP multipliers
// scale activations and hold no parameters.

#include "decoder.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

// The mixer's channels, heads and head width.
void read_falcon_h1_width(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  StateSpace& ssm = m.ssm;
  // has() reads null as absent; here null is a value: mamba_expand x hidden_size.
  if (!r.json().contains("mamba_d_ssm")) {
    throw InputError(r.where("mamba_d_ssm"),
                     "required field is missing (null for mamba_expand x hidden_size)");
  }
  if (!r.has("mamba_d_ssm")) {
    const long long expand =
        f.find({"mamba_expand"}, Range::positive(64), "ssm_expand").value_or(2);
    ssm.inner = expand * m.hidden;
    f.derived("ssm_inner", "mamba_expand x hidden_size (mamba_d_ssm null)");
  } else {
    ssm.inner = f.require({"mamba_d_ssm"}, Range::positive(k_max_width), "ssm_inner");
  }
  ssm.heads = f.require({"mamba_n_heads"}, Range::positive(k_max_width), "ssm_heads");
  long long dim = 0;
  if (!r.has("mamba_d_head") ||
      (r.member("mamba_d_head").json().is_string() && r.string("mamba_d_head") == "auto")) {
    if (ssm.inner % ssm.heads != 0) {
      r.member("mamba_n_heads")
          .fail(fmt::format("must divide the mixer's {} channels (mamba_d_head \"auto\")",
                            ssm.inner));
    }
    dim = ssm.inner / ssm.heads;
    f.derived("ssm_head_dim", "mamba_d_ssm / mamba_n_heads (mamba_d_head \"auto\")");
  } else {
    dim = f.require({"mamba_d_head"}, Range::positive(k_max_width), "ssm_head_dim");
  }
  if (ssm.heads * dim != ssm.inner) {
    r.member("mamba_n_heads")
        .fail(fmt::format("{} heads of {} (mamba_d_head) must make the mixer's {} channels",
                          ssm.heads,
                          dim,
                          ssm.inner));
  }
}

void falcon_h1_layers(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  for (Layer& layer : layers) {
    layer.recurrent = Recurrent::mamba; // beside the layer's attention
  }
  StateSpace& ssm = m.ssm;
  ssm.version = 2;
  read_falcon_h1_width(f, m);
  ssm.state = f.require({"mamba_d_state"}, Range::positive(k_max_width), "ssm_state");
  ssm.groups = f.find({"mamba_n_groups"}, Range::positive(k_max_width), "ssm_groups").value_or(1);
  if (ssm.heads % ssm.groups != 0) {
    r.member("mamba_n_groups").fail(fmt::format("must divide the {} Mamba heads", ssm.heads));
  }
  ssm.conv_kernel = f.find({"mamba_d_conv"}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.conv_bias = f.flag("mamba_conv_bias", true);
  ssm.proj_bias = f.flag("mamba_proj_bias", false);
  ssm.out_proj_bias = f.flag("projectors_bias", false);
  ssm.gated_norm = f.flag("mamba_rms_norm", false);
  ssm.state_dtype = read_state_dtype(r);
  f.derived("layer_types",
            fmt::format("{} layers, each with attention and a Mamba-2 mixer side by side, and a "
                        "gated MLP",
                        m.layers));
}

} // namespace

void read_falcon_h1(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.hybrid = falcon_h1_layers;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
