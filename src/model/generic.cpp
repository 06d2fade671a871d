// rightsize's generic description of a decoder-only transformer (docs/spec.md: params, layers,
// hidden_size, heads, ...), for a model of a family rightsize does not read.

#include "config_fields.hpp"

#include <rightsize/model/model.hpp>

#include <fmt/format.h>

namespace rightsize {

using detail::FieldReader;
using detail::Range;
using hf::ConfigFields;
using hf::k_max_experts;
using hf::k_max_layers;
using hf::k_max_positions;
using hf::k_max_vocab;
using hf::k_max_width;

ModelArch parse_generic_model(const nlohmann::json& description,
                              const std::string& file,
                              const std::string& pointer) {
  const FieldReader r(description, file, pointer);
  r.reject_unknown({"params",
                    "layers",
                    "hidden_size",
                    "heads",
                    "kv_heads",
                    "head_dim",
                    "vocab_size",
                    "intermediate_size",
                    "gated_mlp",
                    "tied_embeddings",
                    "experts",
                    "experts_active",
                    "moe_intermediate_size",
                    "sliding_window",
                    "max_position_embeddings",
                    "dtype",
                    "name"});
  ModelArch m;
  m.family = "generic";
  m.name = r.optional_string("name").value_or("generic");
  ConfigFields f(r, m);
  m.layers = f.require({"layers"}, Range::positive(k_max_layers), "layers");
  m.hidden = f.require({"hidden_size"}, Range::positive(k_max_width), "hidden");
  m.heads = f.require({"heads"}, Range::positive(k_max_width), "heads");
  m.kv_heads = f.find({"kv_heads"}, Range::positive(k_max_width), "kv_heads").value_or(m.heads);
  if (m.heads % m.kv_heads != 0) {
    r.member("kv_heads").fail(fmt::format("must divide heads ({})", m.heads));
  }
  m.head_dim = f.find({"head_dim"}, Range::positive(k_max_width), "head_dim").value_or(0);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0) {
      r.member("heads").fail(fmt::format("must divide hidden_size ({})", m.hidden));
    }
    m.head_dim = m.hidden / m.heads;
  }
  m.v_head_dim = m.head_dim;
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.gated_mlp = r.optional_boolean("gated_mlp").value_or(true);
  m.intermediate = f.find({"intermediate_size"}, Range::positive(k_max_width), "intermediate")
                       .value_or(m.gated_mlp ? (8 * m.hidden / 3) : 4 * m.hidden);
  m.tied_embeddings = r.optional_boolean("tied_embeddings").value_or(false);
  m.max_position =
      f.find({"max_position_embeddings"}, Range::positive(k_max_positions), "max_position")
          .value_or(0);
  m.attention = m.kv_heads == 1 && m.heads > 1 ? AttentionKind::mqa
                : m.kv_heads < m.heads         ? AttentionKind::gqa
                                               : AttentionKind::mha;
  // Every layer alike: attention (sliding when a window is given) and an MLP (experts when given).
  Layer layer;
  if (auto e = f.find({"experts"}, Range::non_negative(k_max_experts), "experts"); e && *e > 0) {
    m.experts = *e;
    m.experts_active =
        f.require({"experts_active"}, Range::positive(static_cast<double>(*e)), "experts_active");
    m.moe_intermediate =
        f.find({"moe_intermediate_size"}, Range::positive(k_max_width), "moe_intermediate")
            .value_or(m.intermediate);
    layer.mlp = Mlp::moe;
  }
  if (auto w = f.find({"sliding_window"}, Range::positive(k_max_positions), "sliding_window")) {
    m.sliding_window = *w;
    layer.attention = Attention::sliding;
  }
  m.stack = LayerStack(m.layers, layer);
  m.torch_dtype = DType::bf16;
  if (auto d = r.optional_string("dtype")) {
    const auto parsed = parse_dtype(*d);
    if (!parsed) {
      r.member("dtype").fail("unknown dtype" + did_you_mean(*d, dtype_names()));
    }
    m.torch_dtype = *parsed;
  }
  count_parameters(m);
  if (auto p = r.optional_number("params", Range::positive(1e15))) {
    // The user's count wins; scale the breakdown so every component keeps its share.
    const double scale = *p / m.params.total();
    const double active_share = m.params_active / m.params_total;
    for (double* part : {&m.params.embedding,
                         &m.params.lm_head,
                         &m.params.attention,
                         &m.params.dense_mlp,
                         &m.params.routed_experts,
                         &m.params.shared_experts,
                         &m.params.router,
                         &m.params.norms}) {
      *part *= scale;
    }
    m.params_total = *p;
    m.params_active = *p * active_share;
    m.param_source = "spec";
    m.provenance.emplace_back("params", r.where("params"));
  }
  m.quantization = quantization_for(m.torch_dtype, m.torch_dtype);
  return m;
}

} // namespace rightsize
