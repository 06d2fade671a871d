// The reader of a diffusers text-to-image pipeline's folder: model_index.json and each
// component's config.json (docs/spec.md, "Image generation"), refusing by name what it does not
// model. The components' counts and FLOPs are in ../diffusion.cpp.

#include "../registry.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/diffusion.hpp>
#include <rightsize/model/model.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>

namespace rightsize {

using detail::FieldReader;
using detail::Range;
namespace fs = std::filesystem;

namespace {

constexpr double k_max_width = 1e6;
constexpr double k_max_layers = 10000;

// The refusal of a pipeline rightsize does not model, in the words of refuse_architecture.
[[noreturn]] void refuse_pipeline(const FieldReader& field, const std::string& what) {
  field.fail_plain(fmt::format(
      "architecture not supported: {} (diffusers): {}; supported: rightsize model --list",
      field.as_string(),
      what));
}

// Why a pipeline class is not read: what it is when its name says so.
std::string pipeline_refusal(const std::string& name) {
  const auto has = [&name](const char* part) { return name.find(part) != std::string::npos; };
  if (has("Video") || has("Wan") || has("CogVideoX") || has("LTX") || has("Mochi") ||
      has("AnimateDiff") || has("I2VGen")) {
    return "a video pipeline: rightsize plans text-to-image generation only";
  }
  if (has("Img2Img") || has("Image2Image") || has("Inpaint") || has("Fill") || has("Kontext") ||
      has("Redux") || has("ControlNet") || has("Upscale") || has("InstructPix2Pix") ||
      has("Depth") || has("Prior")) {
    return "an image-conditioned pipeline (image-to-image, inpainting, control or upscaling): "
           "rightsize plans text-to-image generation only";
  }
  return "not a pipeline rightsize reads; text-to-image pipelines read: "
         "StableDiffusionXLPipeline, FluxPipeline, StableDiffusion3Pipeline";
}

// A configuration field whose other values change the layers rightsize counts.
template <typename T>
void require_value(const FieldReader& r, const char* key, const T& expected, const char* what) {
  if (!r.has(key) || r.member(key).json().is_null()) {
    return;
  }
  if (r.member(key).json() != nlohmann::json(expected)) {
    r.member(key).fail(
        fmt::format("{} is not modelled (expected {})", what, nlohmann::json(expected).dump()));
  }
}

void require_null(const FieldReader& r, const char* key, const char* what) {
  if (r.has(key) && !r.member(key).json().is_null()) {
    r.member(key).fail(fmt::format("{} is not modelled (expected null)", what));
  }
}

// An integer or a list of one per level (diffusers accepts both for these fields).
std::vector<long long>
per_level(const FieldReader& r, const char* key, std::size_t levels, long long fallback) {
  if (!r.has(key) || r.member(key).json().is_null()) {
    return std::vector<long long>(levels, fallback);
  }
  const auto field = r.member(key);
  if (!field.json().is_array()) {
    return std::vector<long long>(levels, field.as_integer(Range::non_negative(k_max_layers)));
  }
  std::vector<long long> out;
  for (const auto& e : field.elements()) {
    out.push_back(e.as_integer(Range::non_negative(k_max_layers)));
  }
  if (out.size() != levels) {
    field.fail(fmt::format("must have one value per block ({})", levels));
  }
  return out;
}

std::vector<long long> channel_list(const FieldReader& r, const char* key) {
  std::vector<long long> out;
  for (const auto& e : r.array(key)) {
    out.push_back(e.as_integer(Range::positive(k_max_width)));
  }
  if (out.empty() || out.size() > 8) {
    r.member(key).fail("must list 1 to 8 levels");
  }
  return out;
}

TextEncoder read_text_encoder(const FieldReader& r,
                              const std::string& component,
                              const std::string& class_name) {
  TextEncoder t;
  t.component = component;
  t.class_name = class_name;
  if (class_name == "T5EncoderModel") {
    t.hidden = r.integer("d_model", Range::positive(k_max_width));
    t.head_dim = r.integer("d_kv", Range::positive(k_max_width));
    t.intermediate = r.integer("d_ff", Range::positive(k_max_width));
    t.heads = r.integer("num_heads", Range::positive(k_max_width));
    t.layers = r.integer("num_layers", Range::positive(k_max_layers));
    t.vocab = r.integer("vocab_size", Range::positive(1e8));
    t.relative_buckets =
        r.optional_integer("relative_attention_num_buckets", Range::positive(1e6)).value_or(32);
    t.gated = r.optional_string("feed_forward_proj").value_or("relu").rfind("gated-", 0) == 0;
    return t;
  }
  t.hidden = r.integer("hidden_size", Range::positive(k_max_width));
  t.intermediate = r.integer("intermediate_size", Range::positive(k_max_width));
  t.heads = r.integer("num_attention_heads", Range::positive(k_max_width));
  t.head_dim = t.hidden / t.heads;
  t.layers = r.integer("num_hidden_layers", Range::positive(k_max_layers));
  t.vocab = r.integer("vocab_size", Range::positive(1e8));
  t.positions = r.integer("max_position_embeddings", Range::positive(1e6));
  t.tokens = t.positions; // CLIP's tokenizer pads every prompt to its 77 positions
  if (class_name == "CLIPTextModelWithProjection") {
    t.projection = r.integer("projection_dim", Range::positive(k_max_width));
  }
  return t;
}

UNet read_unet(const FieldReader& r) {
  require_null(r, "class_embed_type", "a class embedding");
  require_null(r, "encoder_hid_dim_type", "a projection of the text context");
  require_null(r, "time_cond_proj_dim", "a guidance-distilled time condition");
  require_null(r, "time_embedding_dim", "a time embedding of another width");
  require_value(
      r, "addition_embed_type", "text_time", "an addition embedding other than text_time");
  require_value(r, "resnet_time_scale_shift", "default", "a scale-shift time embedding");
  require_value(r, "time_embedding_type", "positional", "a Fourier time embedding");
  require_value(r, "dual_cross_attention", false, "dual cross-attention");
  require_value(r, "only_cross_attention", false, "cross-attention only blocks");
  require_value(r, "conv_in_kernel", 3, "an input convolution other than 3 x 3");
  require_value(r, "conv_out_kernel", 3, "an output convolution other than 3 x 3");
  require_value(r, "mid_block_type", "UNetMidBlock2DCrossAttn", "a mid block of another kind");
  UNet u;
  u.in_channels = r.integer("in_channels", Range::positive(1024));
  u.out_channels = r.integer("out_channels", Range::positive(1024));
  u.layers_per_block = r.integer("layers_per_block", Range::positive(100));
  u.cross_attention_dim = r.integer("cross_attention_dim", Range::positive(k_max_width));
  u.norm_groups = r.optional_integer("norm_num_groups", Range::positive(1024)).value_or(32);
  if (r.has("addition_embed_type") && !r.member("addition_embed_type").json().is_null()) {
    u.addition_input =
        r.integer("projection_class_embeddings_input_dim", Range::positive(k_max_width));
  }
  const auto channels = channel_list(r, "block_out_channels");
  const std::size_t n = channels.size();
  const auto down = r.string_array("down_block_types");
  const auto up = r.string_array("up_block_types");
  if (down.size() != n) {
    r.member("down_block_types").fail(fmt::format("must have one block per level ({})", n));
  }
  if (up.size() != n) {
    r.member("up_block_types").fail(fmt::format("must have one block per level ({})", n));
  }
  const auto depth = per_level(r, "transformer_layers_per_block", n, 1);
  const auto heads =
      per_level(r,
                r.has("num_attention_heads") && !r.member("num_attention_heads").json().is_null()
                    ? "num_attention_heads"
                    : "attention_head_dim",
                n,
                8);
  for (std::size_t i = 0; i < n; ++i) {
    UNetLevel level;
    level.channels = channels[i];
    level.heads = heads[i];
    if (down[i] == "CrossAttnDownBlock2D") {
      level.down_transformer_layers = depth[i];
    } else if (down[i] != "DownBlock2D") {
      r.array("down_block_types")[i].fail("a down block of another kind is not modelled "
                                          "(expected CrossAttnDownBlock2D or DownBlock2D)");
    }
    // up_block_types run deepest first.
    const auto& up_type = up[n - 1 - i];
    if (up_type == "CrossAttnUpBlock2D") {
      level.up_transformer_layers = depth[i];
    } else if (up_type != "UpBlock2D") {
      r.array("up_block_types")[n - 1 - i].fail("an up block of another kind is not modelled "
                                                "(expected CrossAttnUpBlock2D or UpBlock2D)");
    }
    u.levels.push_back(level);
  }
  u.mid_transformer_layers = depth.back();
  return u;
}

MMDiT read_flux(const FieldReader& r) {
  MMDiT f;
  f.layers = r.integer("num_layers", Range::non_negative(k_max_layers));
  f.single_layers = r.integer("num_single_layers", Range::non_negative(k_max_layers));
  f.heads = r.integer("num_attention_heads", Range::positive(k_max_width));
  f.head_dim = r.integer("attention_head_dim", Range::positive(k_max_width));
  f.in_channels = r.integer("in_channels", Range::positive(1024));
  f.joint_attention_dim = r.integer("joint_attention_dim", Range::positive(k_max_width));
  f.pooled_projection_dim = r.integer("pooled_projection_dim", Range::positive(k_max_width));
  f.guidance_embeds = r.optional_boolean("guidance_embeds").value_or(false);
  require_value(r, "patch_size", 1, "a patch size other than 1 (FluxPipeline packs 2 x 2)");
  if (r.has("out_channels") && !r.member("out_channels").json().is_null() &&
      r.integer("out_channels", Range::positive(1024)) != f.in_channels) {
    r.member("out_channels").fail("an output width other than in_channels is not modelled");
  }
  return f;
}

// SD3Transformer2DModel (SD3-medium): double-stream blocks only, the last one's text stream
// ending at its attention; a convolution patchifies the latent (its weights are a linear layer
// over the packed patch: in_channels x patch^2 inputs). SD3.5's extra attention layers and qk
// norms of another kind are refused by name.
MMDiT read_sd3(const FieldReader& r) {
  MMDiT t;
  t.layers = r.integer("num_layers", Range::positive(k_max_layers));
  t.single_layers = 0;
  t.heads = r.integer("num_attention_heads", Range::positive(k_max_width));
  t.head_dim = r.integer("attention_head_dim", Range::positive(k_max_width));
  t.patch = r.integer("patch_size", Range::positive(64));
  const long long latent = r.integer("in_channels", Range::positive(1024));
  t.in_channels = latent * t.patch * t.patch;
  t.joint_attention_dim = r.integer("joint_attention_dim", Range::positive(k_max_width));
  t.pooled_projection_dim = r.integer("pooled_projection_dim", Range::positive(k_max_width));
  t.guidance_embeds = false;
  t.context_pre_only = true;
  t.qk_norm = false;
  if (r.has("caption_projection_dim") &&
      r.integer("caption_projection_dim", Range::positive(k_max_width)) != t.dim()) {
    r.member("caption_projection_dim")
        .fail("a caption projection of another width than heads x attention_head_dim is not "
              "modelled");
  }
  if (r.has("out_channels") && !r.member("out_channels").json().is_null() &&
      r.integer("out_channels", Range::positive(1024)) != latent) {
    r.member("out_channels").fail("an output width other than in_channels is not modelled");
  }
  require_null(r, "qk_norm", "a q and k norm (SD3.5)");
  if (r.has("dual_attention_layers") && !r.member("dual_attention_layers").json().is_null() &&
      !r.member("dual_attention_layers").json().empty()) {
    r.member("dual_attention_layers").fail("dual attention layers (SD3.5) are not modelled");
  }
  return t;
}

Autoencoder read_vae(const FieldReader& r) {
  Autoencoder a;
  a.channels = channel_list(r, "block_out_channels");
  a.layers_per_block = r.integer("layers_per_block", Range::positive(100));
  a.latent_channels = r.integer("latent_channels", Range::positive(1024));
  a.in_channels = r.optional_integer("in_channels", Range::positive(64)).value_or(3);
  a.out_channels = r.optional_integer("out_channels", Range::positive(64)).value_or(3);
  a.quant_conv = r.optional_boolean("use_quant_conv").value_or(true);
  a.post_quant_conv = r.optional_boolean("use_post_quant_conv").value_or(true);
  require_value(r, "mid_block_add_attention", true, "a mid block without attention");
  for (const char* key : {"down_block_types", "up_block_types"}) {
    const char* expected = key[0] == 'd' ? "DownEncoderBlock2D" : "UpDecoderBlock2D";
    const auto types = r.string_array(key);
    if (types.size() != a.channels.size()) {
      r.member(key).fail(fmt::format("must have one block per level ({})", a.channels.size()));
    }
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] != expected) {
        r.array(key)[i].fail(
            fmt::format("a block of another kind is not modelled (expected {})", expected));
      }
    }
  }
  return a;
}

// The model_index.json entry of a component: ["library", "Class"], or [null, null] for one the
// pipeline leaves out.
std::optional<std::string> component_class(const FieldReader& entry) {
  const auto& j = entry.json();
  if (!j.is_array() || j.size() != 2 || j[1].is_null()) {
    return std::nullopt;
  }
  if (!j[1].is_string()) {
    entry.fail("must be [library, class name]");
  }
  return j[1].get<std::string>();
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void count_pipeline(ModelArch& m) {
  const DiffusionPipeline& p = *m.diffusion;
  m.params.denoiser = p.denoiser_params();
  m.params.text_encoders = p.text_encoder_params();
  m.params.autoencoder = p.vae.params();
  m.params_total = m.params.total();
  m.params_active = m.params_total; // every component runs for every image
}

// Reads the component `key` of model_index.json (its ["library", "Class"] entry) from its folder's
// config.json into `p`; schedulers and tokenizers hold no weights and are skipped. Returns
// whether it was the VAE.
bool read_component(const FieldReader& top,
                    const fs::path& dir,
                    const std::string& key,
                    DiffusionPipeline& p) {
  const auto entry = top.member(key);
  const auto cls = component_class(entry);
  if (!cls || ends_with(*cls, "Scheduler") || ends_with(*cls, "Tokenizer") ||
      ends_with(*cls, "TokenizerFast")) {
    return false;
  }
  const fs::path config_path = dir / key / "config.json";
  std::error_code ec;
  if (!fs::exists(config_path, ec)) {
    entry.fail_plain(fmt::format("component {} ({}) has no config.json (looked for {})",
                                 key,
                                 *cls,
                                 config_path.lexically_normal().string()));
  }
  const std::string file = config_path.lexically_normal().string();
  const auto config = detail::load_json_file(file);
  const FieldReader r(config, file);
  if (*cls == "CLIPTextModel" || *cls == "CLIPTextModelWithProjection" ||
      *cls == "T5EncoderModel") {
    p.text_encoders.push_back(read_text_encoder(r, key, *cls));
  } else if (*cls == "UNet2DConditionModel") {
    p.denoiser_component = key;
    p.denoiser_class = *cls;
    p.unet.push_back(read_unet(r));
    const long long sample = r.optional_integer("sample_size", Range::positive(1e5)).value_or(128);
    p.default_size = sample * 8;
  } else if (*cls == "FluxTransformer2DModel" || *cls == "SD3Transformer2DModel") {
    p.denoiser_component = key;
    p.denoiser_class = *cls;
    p.mmdit.push_back(*cls == "FluxTransformer2DModel" ? read_flux(r) : read_sd3(r));
  } else if (*cls == "AutoencoderKL") {
    p.vae = read_vae(r);
    return true;
  } else {
    entry.fail(fmt::format("component class not read by rightsize (a {} reads CLIPTextModel, "
                           "CLIPTextModelWithProjection, T5EncoderModel, {} and AutoencoderKL)",
                           p.pipeline,
                           p.pipeline == "FluxPipeline"               ? "FluxTransformer2DModel"
                           : p.pipeline == "StableDiffusion3Pipeline" ? "SD3Transformer2DModel"
                                                                      : "UNet2DConditionModel"));
  }
  return false;
}

// What the pipeline class sets rather than its components' configs: T5's prompt length, whether
// each step runs two guidance branches, the default steps and size.
void apply_pipeline_defaults(DiffusionPipeline& p) {
  const bool flux = p.pipeline == "FluxPipeline";
  const bool sd3 = p.pipeline == "StableDiffusion3Pipeline";
  // max_sequence_length: FluxPipeline 512 by default (FLUX.1-dev; the FLUX.1-schnell card
  // generates with 256), StableDiffusion3Pipeline 256.
  for (auto& t : p.text_encoders) {
    if (t.class_name == "T5EncoderModel") {
      t.tokens = sd3 || (flux && !p.mmdit.front().guidance_embeds) ? 256 : 512;
    }
  }
  // Classifier-free guidance: guidance_scale 5.0 (SDXL) and 7.0 (SD3) by default; FLUX.1 has none.
  p.classifier_free_guidance = !flux;
  // num_inference_steps: StableDiffusionXLPipeline 50, FluxPipeline 28 (FLUX.1-dev; the
  // FLUX.1-schnell card: 4), StableDiffusion3Pipeline 28.
  p.default_steps = flux ? (p.mmdit.front().guidance_embeds ? 28 : 4) : sd3 ? 28 : 50;
  if (flux || sd3) {
    p.default_size = 1024; // default_sample_size 128 x vae_scale_factor 8
  }
}

// The model's fields describe the denoiser: its blocks (a transformer's, or a UNet's resnets and
// transformer blocks, each a kernel sequence of its own) and its widest level.
void describe_denoiser(const DiffusionPipeline& p, ModelArch& m) {
  m.encoder_only = true; // no decode and no KV cache: each image is one denoising loop
  m.gated_mlp = false;
  if (p.pipeline == "FluxPipeline" || p.pipeline == "StableDiffusion3Pipeline") {
    const auto& f = p.mmdit.front();
    m.layers = f.layers + f.single_layers;
    m.hidden = f.dim();
    m.heads = f.heads;
    m.head_dim = f.head_dim;
  } else {
    const auto& u = p.unet.front();
    long long blocks = 2 + u.mid_transformer_layers;
    for (const auto& level : u.levels) {
      blocks += u.layers_per_block * (1 + level.down_transformer_layers) +
                (u.layers_per_block + 1) * (1 + level.up_transformer_layers);
    }
    m.layers = blocks;
    m.hidden = u.levels.back().channels;
    m.heads = u.levels.back().heads;
    m.head_dim = m.hidden / std::max(1LL, m.heads);
  }
  m.kv_heads = m.heads;
  m.v_head_dim = m.head_dim;
  m.intermediate = 4 * m.hidden;
}

} // namespace

ModelArch read_diffusers_pipeline(const std::string& model_index) {
  const auto json = detail::load_json_file(model_index);
  const FieldReader top(json, model_index);
  if (!json.is_object() || !top.has("_class_name")) {
    top.fail_plain("not a diffusers model_index.json: _class_name is not set");
  }
  const auto name_field = top.member("_class_name");
  const std::string pipeline = top.string("_class_name");
  if (const hf::Family* family = hf::find_family(pipeline);
      family == nullptr || family->read_pipeline == nullptr) {
    refuse_pipeline(name_field, pipeline_refusal(pipeline));
  }
  const fs::path dir = fs::path(model_index).parent_path();
  DiffusionPipeline p;
  p.pipeline = pipeline;
  bool has_vae = false;
  for (const auto& [key, value] : json.items()) {
    if (!key.empty() && key.front() != '_') {
      has_vae = read_component(top, dir, key, p) || has_vae;
    }
  }
  const bool flux = pipeline == "FluxPipeline";
  const bool sd3 = pipeline == "StableDiffusion3Pipeline";
  if (((flux || sd3) && p.mmdit.empty()) || (!flux && !sd3 && p.unet.empty())) {
    top.fail_plain(fmt::format("{} names no {} component",
                               pipeline,
                               flux  ? "transformer (FluxTransformer2DModel)"
                               : sd3 ? "transformer (SD3Transformer2DModel)"
                                     : "unet (UNet2DConditionModel)"));
  }
  if (!has_vae) {
    top.fail_plain(pipeline + " names no vae component (AutoencoderKL)");
  }
  apply_pipeline_defaults(p);

  ModelArch m;
  m.name = dir.filename().string();
  if (m.name.empty() || m.name == ".") {
    m.name = pipeline;
  }
  m.family = pipeline;
  describe_denoiser(p, m);
  m.quantization.method = "none";
  m.quantization.source = "none";
  m.provenance.emplace_back("pipeline", top.where("_class_name"));
  m.provenance.emplace_back("denoiser", (dir / p.denoiser_component / "config.json").string());
  m.diffusion = p;
  count_pipeline(m);
  return m;
}

} // namespace rightsize
