// NemotronHConfig (Nemotron-H 4B-56B): each layer is a norm and one block, Mamba-2 ("M"),
// attention ("*") or an MLP ("-"), from hybrid_override_pattern or layers_block_type. The MLP is
// squared-ReLU, not gated. MoE blocks ("E", Nemotron 3) are not modelled.

#include "decoder.hpp"
#include "mamba.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

// The blocks, one a layer, and the field that lists them.
struct Blocks {
  const char* field = "hybrid_override_pattern";
  std::vector<char> blocks;
};

Blocks read_blocks(const FieldReader& r) {
  Blocks out;
  const char*& field = out.field;
  std::vector<char>& blocks = out.blocks;
  if (r.has("layers_block_type")) {
    field = "layers_block_type";
    for (const auto& name : r.string_array(field)) {
      blocks.push_back(name == "mamba"       ? 'M'
                       : name == "attention" ? '*'
                       : name == "mlp"       ? '-'
                                             : 'E');
    }
  } else if (r.has(field)) {
    const auto pattern = r.string(field);
    blocks.assign(pattern.begin(), pattern.end());
  } else {
    r.member(field).fail_plain("required field is missing");
  }
  return out;
}

void nemotron_h_layers(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  const auto [field, blocks] = read_blocks(r);
  if (static_cast<long long>(blocks.size()) != m.layers) {
    r.member(field).fail_plain(
        fmt::format("has {} entries but the model has {} layers", blocks.size(), m.layers));
  }
  long long mamba = 0;
  long long attention = 0;
  long long mlp = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const char b = blocks[i];
    if (b == 'M') {
      layers[i] = k_mamba_layer;
      ++mamba;
    } else if (b == '*') {
      layers[i] = Layer{Attention::full, Recurrent::none, false, Mlp::none};
      ++attention;
    } else if (b == '-') {
      layers[i] = Layer{Attention::none, Recurrent::none, false, Mlp::dense};
      ++mlp;
    } else {
      r.member(field).fail_plain(fmt::format(
          "names a block other than Mamba (M), attention (*) or MLP (-): '{}'; Nemotron-H MoE "
          "layers are not modelled",
          b));
    }
  }
  m.norms_per_layer = 1;
  m.gated_mlp = false;
  read_mamba2_mixer(f,
                    m,
                    {"mamba_num_heads",
                     "mamba_head_dim",
                     "ssm_state_size",
                     "n_groups",
                     "conv_kernel",
                     "use_conv_bias",
                     "use_bias"});
  f.derived("layer_types",
            fmt::format("{} Mamba-2, {} attention and {} MLP layers", mamba, attention, mlp));
}

} // namespace

void read_nemotron_h(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.hybrid = nemotron_h_layers;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
