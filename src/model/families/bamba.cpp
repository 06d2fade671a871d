// BambaConfig (Bamba 9B): each layer is a norm, a mixer (attention on the layers
// attn_layer_indices lists, Mamba-2 elsewhere; absent or null, every layer is Mamba), a norm and
// a gated MLP. BambaConfig sets attention_bias and mlp_bias to false whatever the file says.

#include "decoder.hpp"
#include "mamba.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::hf {

namespace {

void bamba_layers(ConfigFields& f, ModelArch& m, std::vector<Layer>& layers) {
  const FieldReader& r = f.reader();
  const char* field = "attn_layer_indices";
  std::vector<long long> attention;
  if (r.has(field) && !r.member(field).json().is_null()) {
    for (const auto& e : r.array(field)) {
      const long long i = e.as_integer(Range::non_negative(static_cast<double>(m.layers - 1)));
      if (std::find(attention.begin(), attention.end(), i) != attention.end()) {
        e.fail("names a layer listed before it");
      }
      attention.push_back(i);
    }
    f.record("attention_layers", r.where(field));
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool attends =
        std::find(attention.begin(), attention.end(), static_cast<long long>(i)) != attention.end();
    layers[i].attention = attends ? Attention::full : Attention::none;
    layers[i].recurrent = attends ? Recurrent::none : Recurrent::mamba;
  }
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  read_mamba2_mixer(f, m, k_mamba_prefixed_fields);
  f.derived("layer_types",
            fmt::format("{} Mamba-2 and {} attention layers, each with a gated MLP",
                        m.layers - static_cast<long long>(attention.size()),
                        attention.size()));
}

} // namespace

void read_bamba(const ConfigInput& in, ModelArch& m) {
  static const DecoderFamily family = [] {
    DecoderFamily d;
    d.hybrid = bamba_layers;
    return d;
  }();
  read_decoder(in, m, family);
}

} // namespace rightsize::hf
