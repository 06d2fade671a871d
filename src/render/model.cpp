#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/model.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize {

namespace {

std::string billions(double params) {
  return fmt::format("{:.3f}B", params / 1e9);
}

} // namespace

// How a vision tower sees one image of width x height pixels: resized to image_size, cut into
// anyres tiles (Llava-NeXT), or read at its own size (Qwen2-VL).
std::string image_resize(const VisionTower& v, long long width, long long height) {
  if (v.image_size > 0 && v.grid_pinpoints.empty()) {
    return fmt::format(" (resized to {} px)", v.image_size);
  }
  if (v.image_size > 0) {
    const auto [h, w] = v.anyres_resolution(width, height);
    return fmt::format(
        " at {} x {} px (fitted into {} x {}: {} tiles of {} px and the whole image)",
        width,
        height,
        w,
        h,
        (h / v.image_size) * (w / v.image_size),
        v.image_size);
  }
  return fmt::format(" at {} x {} px", width, height);
}

void render_families_json(std::ostream& out) {
  auto families = nlohmann::json::array();
  for (const auto& f : supported_families()) {
    families.push_back({{"model_type", f.model_type},
                        {"models", f.models},
                        {"default_context", f.default_context},
                        {"config_class", f.config_class}});
  }
  out << detail::dump_json(nlohmann::json{{"families", families}}, 2) << '\n';
}

void render_families_table(std::ostream& out) {
  // As wide as the longest name: the diffusers pipelines' class names are longer.
  std::size_t width = 19;
  for (const auto& f : supported_families()) {
    width = std::max(width, f.model_type.size());
  }
  out << fmt::format("{:<{}} {:<8} {}\n", "model_type", width, "context", "models");
  for (const auto& f : supported_families()) {
    const std::string context = f.default_context > 0 ? std::to_string(f.default_context) : "none";
    out << fmt::format("{:<{}} {:<8} {}\n", f.model_type, width, context, f.models);
  }
  out << "\ncontext: transformers' default when config.json omits max_position_embeddings\n"
         "(none: no limit: a recurrent model, or T5's relative positions; an image encoder's\n"
         "input is fixed by its image_size and patch_size).\n"
         "The *Pipeline classes are diffusers pipelines: plan the folder\n"
         "holding model_index.json (image generation).\n"
         "Any other model_type is refused (exit 2): \"architecture not supported\". Describe\n"
         "another decoder-only transformer with the spec's generic model fields (docs/spec.md).\n";
}

void render_model_json(const Spec& spec, std::ostream& out) {
  out << detail::dump_json(model_to_json(spec), 2) << '\n';
}

namespace {

// One "  key  value" line of the model table.
class Rows {
public:
  explicit Rows(std::ostream& out) : m_out(out) {}
  void operator()(const std::string& k, const std::string& v) const {
    m_out << fmt::format("  {:<22} {}\n", k, v);
  }

private:
  std::ostream& m_out;
};

std::string layers_row(const ModelArch& m) {
  return m.encoder_decoder ? fmt::format("{} encoder + {} decoder", m.layers, m.decoder_layers)
         : m.diffusion
             ? fmt::format("{} denoiser blocks (resnets and transformer blocks)", m.layers)
         : m.image && m.image->cnn ? fmt::format("{} residual layers", m.layers)
                                   : std::to_string(m.layers);
}

// An encoder-decoder's kind, its audio input and its relative positions.
void encoder_decoder_rows(const ModelArch& m, const Rows& row) {
  if (m.encoder_decoder) {
    row("kind",
        m.mel_bins > 0
            ? "encoder-decoder: a bidirectional encoder reads each window of audio once, a "
              "decoder generates the transcript with cross-attention to it (planned as a "
              "transcription workload)"
            : "encoder-decoder: a bidirectional encoder reads the input once, a decoder generates "
              "with cross-attention to it (planned as text-to-text generation on "
              "transformers)");
  }
  if (m.mel_bins > 0) {
    row("audio input",
        // 100 mel frames a second (10 ms hops), halved by the second convolution's stride.
        fmt::format("{} mel bins, two convolutions, {} encoder positions ({:g} s)",
                    m.mel_bins,
                    m.encoder_positions,
                    static_cast<double>(m.encoder_positions) / 50.0));
  }
  if (m.relative_bias_tables > 0) {
    row("relative positions",
        fmt::format("{} buckets per head, a table in {} self-attention layers",
                    m.relative_buckets,
                    m.relative_bias_tables));
  }
}

void cnn_rows(const ModelArch& m, const Rows& row) {
  const ConvNet& c = *m.image->cnn;
  row("kind",
      fmt::format("convolutional image encoder ({}, {} layers): one forward pass per image, no "
                  "KV cache (planned as image embeddings: images/s, $ per thousand images)",
                  m.image->kind,
                  c.layer_type));
  row("image input",
      fmt::format("{} x {} px, {} channels; stem: 7x7 stride-2 convolution to {} channels, "
                  "3x3 stride-2 max pool",
                  m.image->image_size,
                  m.image->image_size,
                  m.image->channels,
                  c.embedding));
  std::string stages;
  for (const ConvStage& s : c.stages) {
    stages += fmt::format(
        "{}{} x {} ch @ {}x{}", stages.empty() ? "" : ", ", s.depth, s.channels, s.side, s.side);
  }
  row("stages", stages);
  row("convolutions",
      fmt::format("{} (each with a BatchNorm), {} per image",
                  c.convolutions.size(),
                  format_flops(Flops(c.flops()))));
}

void image_encoder_rows(const ImageEncoder& e, const Rows& row) {
  row("kind",
      fmt::format("image encoder ({}): bidirectional attention, one forward pass per image, no "
                  "KV cache (planned as image embeddings: images/s, $ per thousand images)",
                  e.kind));
  row("image input",
      fmt::format("{} x {} px, {}-pixel patches: {} patches{}, {} tokens per image",
                  e.image_size,
                  e.image_size,
                  e.patch,
                  e.patches(),
                  e.class_token ? " + a class token" : "",
                  e.tokens()));
}

void diffusion_rows(const DiffusionPipeline& d, const Rows& row) {
  row("kind",
      fmt::format("diffusers pipeline ({}): text encoders once per prompt, the {} once per "
                  "denoising step{}, the VAE decoder once per image (planned as image "
                  "generation: images/s, $ per thousand images)",
                  d.pipeline,
                  d.denoiser_component,
                  d.classifier_free_guidance ? " for each guidance branch" : ""));
  row(d.denoiser_component,
      fmt::format("{} ({}), {}",
                  billions(d.denoiser_params()),
                  d.denoiser_class,
                  d.mmdit.empty() ? fmt::format("{} levels", d.unet.front().levels.size())
                                  : fmt::format("{} double + {} single blocks",
                                                d.mmdit.front().layers,
                                                d.mmdit.front().single_layers)));
  for (const auto& t : d.text_encoders) {
    row(t.component,
        fmt::format("{} ({}), {} tokens per prompt", billions(t.params()), t.class_name, t.tokens));
  }
  row("vae",
      fmt::format("{} (AutoencoderKL), {} latent channels, 1/{} of each side",
                  billions(d.vae.params()),
                  d.vae.latent_channels,
                  d.vae.scale()));
}

// What kind of model it is, for the models that are not plain decoders.
void kind_rows(const ModelArch& m, const Rows& row) {
  if (m.image && m.image->cnn) {
    cnn_rows(m, row);
  } else if (m.image) {
    image_encoder_rows(*m.image, row);
  } else if (m.diffusion) {
    diffusion_rows(*m.diffusion, row);
  } else if (m.encoder_only) {
    row("kind",
        "encoder-only: bidirectional attention, one forward pass per input, no KV cache "
        "(planned as embedding workloads: sequences/s, $ per million input tokens)");
  }
}

// A hybrid's layers by kind and its recurrent mixer.
void hybrid_rows(const ModelArch& m, const Rows& row) {
  const LayerStack& s = m.stack;
  if (s.linear_attention() > 0) {
    row("layer types",
        fmt::format("{} {}, {} gated full attention, {} MLP ({} MoE)",
                    m.recurrent_layers(),
                    m.ssm.name(),
                    m.attention_layers(),
                    m.mlp_layers(),
                    m.moe_layers()));
    row("linear attention",
        fmt::format("{} value heads of {} over {} key heads of {}, conv {}; {:.0f} state elements "
                    "per sequence per linear-attention layer, whatever the context",
                    m.ssm.heads,
                    m.ssm.inner / m.ssm.heads,
                    m.ssm.groups,
                    m.ssm.state,
                    m.ssm.conv_kernel,
                    m.ssm.conv_state_elements() + m.ssm.ssm_state_elements()));
    return;
  }
  if (s.recurrent() == 0 && s.mlp_only() == 0) {
    return;
  }
  row("layer types",
      s.side_by_side() > 0
          ? fmt::format("{} attention and {} Mamba-{} side by side (one of each in every layer), "
                        "{} MLP ({} MoE)",
                        m.attention_layers(),
                        m.recurrent_layers(),
                        m.ssm.version,
                        m.mlp_layers(),
                        m.moe_layers())
          : fmt::format("{} attention, {} Mamba-{}, {} MLP ({} MoE)",
                        m.attention_layers(),
                        m.recurrent_layers(),
                        m.ssm.version,
                        m.mlp_layers(),
                        m.moe_layers()));
  row("state space",
      fmt::format("{} channels, state {}, conv {}{}; {:.0f} state elements per sequence per "
                  "Mamba layer, whatever the context",
                  m.ssm.inner,
                  m.ssm.state,
                  m.ssm.conv_kernel,
                  m.ssm.version == 2
                      ? fmt::format(", {} heads in {} groups", m.ssm.heads, m.ssm.groups)
                      : fmt::format(", dt rank {}", m.ssm.dt_rank),
                  m.ssm.conv_state_elements() + m.ssm.ssm_state_elements()));
}

// Width, MLP, attention, window, experts and vocabulary.
void shape_rows(const ModelArch& m, const Rows& row) {
  const bool cnn = m.image && m.image->cnn;
  row(m.diffusion ? "denoiser width"
      : cnn       ? "output channels"
                  : "hidden size",
      std::to_string(m.hidden));
  // Dense MLPs only: an MoE layer's MLP is its experts (a row of its own below), so a config's
  // intermediate_size that no layer uses (Qwen3-30B-A3B, Mixtral) is not shown.
  const long long dense_mlp_layers = m.mlp_layers() - (m.is_moe() ? m.moe_layers() : 0);
  if (dense_mlp_layers > 0 && !m.diffusion && !cnn) {
    row("MLP",
        fmt::format("{} {}{}",
                    m.intermediate,
                    m.gated_mlp ? "gated (3 matrices)" : "plain (2 matrices)",
                    m.is_moe() ? fmt::format(", on {} dense layers", dense_mlp_layers)
                               : std::string()));
  }
  std::string attention = fmt::format("{}: {} heads, {} KV heads, head_dim {}",
                                      to_string(m.attention),
                                      m.heads,
                                      m.kv_heads,
                                      m.head_dim);
  if (m.attention == AttentionKind::mla) {
    attention += fmt::format(", kv_lora_rank {}, rope dim {}", m.kv_lora_rank, m.qk_rope_head_dim);
  }
  if (m.attention_gate) {
    attention += ", sigmoid output gate";
  }
  if (m.attention_layers() > 0 && !m.diffusion && !cnn) {
    row("attention", attention);
  }
  if (m.sliding_window > 0) {
    row("sliding window",
        fmt::format("{} tokens on {} of {} layers", m.sliding_window, m.local_layers(), m.layers));
  }
  if (m.is_moe()) {
    std::string moe = fmt::format("{} experts, {} active, width {}, on {} layers",
                                  m.experts,
                                  m.experts_active,
                                  m.moe_intermediate,
                                  m.moe_layers());
    if (m.shared_experts > 0) {
      moe += fmt::format(", {} shared", m.shared_experts);
    }
    row("experts", moe);
  }
  if (!m.image && !m.diffusion) {
    row("vocabulary", fmt::format("{}{}", m.vocab, m.tied_embeddings ? " (tied embeddings)" : ""));
  }
}

// The parameters by part, each with its share of the total.
void breakdown_rows(const ModelArch& m, std::ostream& out) {
  out << "  breakdown (parameters)\n";
  const auto part = [&](const char* name, double n) {
    if (n > 0) {
      out << fmt::format(
          "    {:<20} {:>10}  {:5.1f}%\n", name, billions(n), 100.0 * n / m.params.total());
    }
  };
  part("embedding", m.params.embedding);
  part("lm_head", m.params.lm_head);
  part("pooler", m.params.pooler);
  part("attention", m.params.attention);
  part("cross-attention", m.params.cross_attention);
  part("dense MLP", m.params.dense_mlp);
  part("routed experts", m.params.routed_experts);
  part("shared experts", m.params.shared_experts);
  part("router", m.params.router);
  part("norms", m.params.norms);
  part(m.ssm.kind == RecurrentKind::gated_deltanet ? "linear attention" : "Mamba mixers",
       m.params.state_space);
  part("vision tower", m.params.vision);
  part("audio convolutions", m.params.audio);
  part("text tower", m.params.text_tower);
  part("denoiser", m.params.denoiser);
  part("text encoders", m.params.text_encoders);
  part("VAE", m.params.autoencoder);
  part("convolutions", m.params.convolution);
}

} // namespace

void render_model_table(const Spec& spec, std::ostream& out) {
  const ModelArch& m = spec.model;
  const Rows row(out);
  out << fmt::format("{} ({})\n", m.name, m.family);
  row("parameters",
      fmt::format("{} total, {} active per {} ({})",
                  billions(m.params_total),
                  billions(m.params_active),
                  m.image || m.diffusion ? "image" : "token",
                  m.param_source));
  row("layers", layers_row(m));
  encoder_decoder_rows(m, row);
  kind_rows(m, row);
  hybrid_rows(m, row);
  if (m.vision) {
    const auto& inf = spec.workload.inference;
    row("vision tower",
        fmt::format("{}: {} layers, width {}, {}-pixel patches; {} tokens per image{}",
                    m.vision->kind,
                    m.vision->layers,
                    m.vision->hidden,
                    m.vision->patch,
                    m.vision->tokens(inf.image_width, inf.image_height),
                    image_resize(*m.vision, inf.image_width, inf.image_height)));
  }
  shape_rows(m, row);
  const auto w = weight_bytes(m, spec.weights);
  row("weights",
      fmt::format("{} as {} ({:.2f} bits/weight{})",
                  format_bytes(w.total()),
                  spec.weights.quantized() ? spec.weights.method
                                           : std::string(to_string(spec.precision.weights)),
                  8.0 * w.total().si() / m.params_total,
                  m.safetensors_bytes ? ", from safetensors headers" : ""));
  breakdown_rows(m, out);
  out << "  sources\n";
  for (const auto& [field, where] : m.provenance) {
    out << fmt::format("    {:<20} {}\n", field, where);
  }
}

void render_validation_text(const Spec& spec, std::ostream& out) {
  out << fmt::format("{}: valid ({}{}, {} {} parameters, {} workload)\n",
                     spec.file,
                     spec.name,
                     spec.bare_hf_config ? ", bare config.json" : "",
                     billions(spec.model.params_total),
                     spec.model.family,
                     to_string(spec.workload.type));
  for (const auto& d : spec.defaults) {
    out << "  default: " << d << '\n';
  }
}

} // namespace rightsize
