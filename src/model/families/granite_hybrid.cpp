// Granite 4.0 hybrids (GraniteMoeHybridConfig): each layer is a norm, a mixer ("mamba": Mamba-2,
// or "attention", from layer_types), a norm and an MLP: MoE experts of intermediate_size beside a
// gated shared MLP of shared_intermediate_size, or that shared MLP alone when num_local_experts is
// 0 (the dense H-Micro).

#include "decoder.hpp"
#include "mamba.hpp"

#include <fmt/format.h>

namespace rightsize::hf {

namespace {

void granite_hybrid_layers(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  if (!r.has("num_local_experts")) {
    // GraniteMoeHybridConfig's default, 8 experts of which 2 active, is no published model's.
    throw InputError(r.where("num_local_experts"),
                     "required field is missing (0 for a dense Granite hybrid)");
  }
  // layers_block_type is the attribute_map alias; absent, every layer is Mamba.
  const char* field = r.has("layers_block_type") ? "layers_block_type" : "layer_types";
  const auto types = r.has(field)
                         ? r.string_array(field)
                         : std::vector<std::string>(static_cast<std::size_t>(m.layers), "mamba");
  if (static_cast<long long>(types.size()) != m.layers) {
    r.member(field).fail_plain(
        fmt::format("has {} entries but the model has {} layers", types.size(), m.layers));
  }
  long long mamba = 0;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "mamba") {
      layers[i].attention = Attention::none;
      layers[i].recurrent = Recurrent::mamba;
      ++mamba;
    } else if (types[i] != "attention") {
      r.member(field).fail_plain(
          fmt::format("names a layer other than \"mamba\" or \"attention\": \"{}\"", types[i]));
    }
  }
  read_mamba2_mixer(f, m, k_mamba_prefixed_fields);
  const long long shared = f.find({"shared_intermediate_size"},
                                  Range::non_negative(k_max_width),
                                  "shared_expert_intermediate")
                               .value_or(0);
  if (m.experts > 0) {
    if (shared > 0) {
      m.shared_experts = 1;
      m.shared_expert_intermediate = shared;
    }
  } else if (shared > 0) {
    m.intermediate = shared; // the shared MLP is the layer's only MLP
    f.derived("intermediate", "shared_intermediate_size (no experts: the shared MLP alone)");
  }
  f.derived("layer_types",
            fmt::format("{} Mamba-2 and {} attention layers, each with {}",
                        mamba,
                        m.layers - mamba,
                        m.experts > 0 ? "MoE experts and a shared MLP" : "a gated MLP"));
}

} // namespace

void read_granite_hybrid(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.hybrid = granite_hybrid_layers;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
