// diffusers text-to-image pipelines: parameters and FLOPs per component (docs/model.md, "Image
// generation"), and the reader of a pipeline folder (model_index.json and each component's
// config.json). Layer structure from diffusers' models/unets/unet_2d_condition.py,
// unet_2d_blocks.py, resnet.py, attention.py, transformers/transformer_flux.py,
// autoencoders/vae.py and transformers' CLIPTextModel and T5EncoderModel.

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

double d(long long v) {
  return static_cast<double>(v);
}

// Conv2d(cin, cout, k x k) with bias.
double conv_params(long long cin, long long cout, long long k) {
  return d(cin) * d(cout) * d(k * k) + d(cout);
}

double linear_params(long long in, long long out) {
  return d(in) * d(out) + d(out);
}

// ResnetBlock2D: GroupNorm, 3x3 conv, (time_emb_proj), GroupNorm, 3x3 conv, and a 1x1
// conv_shortcut when the channels change.
double resnet_params(long long cin, long long cout, long long temb) {
  double p = 2.0 * d(cin) + conv_params(cin, cout, 3) + 2.0 * d(cout) + conv_params(cout, cout, 3);
  if (temb > 0) {
    p += linear_params(temb, cout);
  }
  if (cin != cout) {
    p += conv_params(cin, cout, 1);
  }
  return p;
}

// Multiply-accumulates of a resnet over `area` positions (the time projection is per image).
double resnet_macs(long long cin, long long cout, double area, long long temb) {
  double macs = area * (9.0 * d(cin) * d(cout) + 9.0 * d(cout) * d(cout));
  if (cin != cout) {
    macs += area * d(cin) * d(cout);
  }
  return macs + d(temb) * d(cout);
}

// Transformer2DModel with BasicTransformerBlocks: GroupNorm, proj_in, per block LayerNorm +
// self-attention (q, k, v without bias, out with), LayerNorm + cross-attention (k and v from the
// text context), LayerNorm + GEGLU feed-forward (C -> 2 x 4C, 4C -> C); proj_out.
double transformer2d_params(long long c, long long layers, long long cross) {
  const double C = d(c);
  const double block = 2.0 * C + 3.0 * C * C + linear_params(c, c) +                // attn1
                       2.0 * C + C * C + 2.0 * d(cross) * C + linear_params(c, c) + // attn2
                       2.0 * C + linear_params(c, 8 * c) + linear_params(4 * c, c); // ff
  return 2.0 * C + 2.0 * linear_params(c, c) + d(layers) * block;
}

// Per block, over `area` positions and `text` context tokens: 18 C^2 per position of linear
// work (self q, k, v, out 4; cross q, out 2; feed-forward 12), k and v over the text, and the two
// attention products, self over area^2 and cross over area x text.
double
transformer2d_macs(long long c, long long layers, double area, long long text, long long cross) {
  const double C = d(c);
  const double block = area * 18.0 * C * C + 2.0 * d(text) * d(cross) * C + 2.0 * area * area * C +
                       2.0 * area * d(text) * C;
  return 2.0 * area * C * C + d(layers) * block;
}

// UNetMidBlock2D's attention in the VAE: GroupNorm and q, k, v, out with biases, one head.
double vae_attention_params(long long c) {
  return 2.0 * d(c) + 4.0 * linear_params(c, c);
}

} // namespace

double TextEncoder::params() const {
  const double h = d(hidden);
  if (class_name == "T5EncoderModel") {
    // shared embedding, per layer q, k, v, o (no biases) and the feed-forward, two RMSNorms; the
    // first layer's relative position bias; the final norm.
    const double inner = d(heads * head_dim);
    const double ff = (gated ? 3.0 : 2.0) * h * d(intermediate);
    return d(vocab) * h + d(layers) * (4.0 * h * inner + ff + 2.0 * h) +
           d(relative_buckets) * d(heads) + h;
  }
  // CLIPTextModel: token and position embeddings, per layer q, k, v, out and fc1, fc2 (biased)
  // and two LayerNorms, the final LayerNorm; with projection, text_projection (no bias).
  const double layer =
      4.0 * (h * h + h) + 2.0 * h * d(intermediate) + d(intermediate) + h + 4.0 * h;
  return d(vocab) * h + d(positions) * h + d(layers) * layer + 2.0 * h + h * d(projection);
}

double TextEncoder::flops() const {
  const double h = d(hidden);
  const double inner = head_dim > 0 ? d(heads * head_dim) : h;
  const double ff = (gated ? 3.0 : 2.0) * h * d(intermediate);
  const double t = d(tokens);
  const double per_token = 4.0 * h * inner + ff;
  // Linear work per token, attention's two products over the prompt, the pooled projection.
  return 2.0 * (t * d(layers) * per_token + d(layers) * 2.0 * t * t * inner + h * d(projection));
}

double UNet::params() const {
  const long long c0 = levels.front().channels;
  const long long temb = time_embed_dim();
  double p = conv_params(in_channels, c0, 3) + linear_params(c0, temb) + linear_params(temb, temb);
  if (addition_input > 0) {
    p += linear_params(addition_input, temb) + linear_params(temb, temb);
  }
  const auto n = levels.size();
  long long prev = c0;
  for (std::size_t i = 0; i < n; ++i) {
    const long long c = levels[i].channels;
    for (long long j = 0; j < layers_per_block; ++j) {
      p += resnet_params(j == 0 ? prev : c, c, temb);
      if (levels[i].down_transformer_layers > 0) {
        p += transformer2d_params(c, levels[i].down_transformer_layers, cross_attention_dim);
      }
    }
    if (i + 1 < n) {
      p += conv_params(c, c, 3); // Downsample2D
    }
    prev = c;
  }
  const long long top = levels.back().channels;
  p += 2.0 * resnet_params(top, top, temb) +
       transformer2d_params(top, mid_transformer_layers, cross_attention_dim);
  // Up blocks, deepest first: layers_per_block + 1 resnets over the concatenated skip
  // connections (get_up_block's prev_output_channel and in_channels).
  for (std::size_t i = 0; i < n; ++i) {
    const auto& level = levels[n - 1 - i];
    const long long c = level.channels;
    const long long skip_in = levels[n - 1 - std::min(i + 1, n - 1)].channels;
    for (long long j = 0; j <= layers_per_block; ++j) {
      const long long skip = j == layers_per_block ? skip_in : c;
      p += resnet_params((j == 0 ? prev : c) + skip, c, temb);
      if (level.up_transformer_layers > 0) {
        p += transformer2d_params(c, level.up_transformer_layers, cross_attention_dim);
      }
    }
    if (i + 1 < n) {
      p += conv_params(c, c, 3); // Upsample2D
    }
    prev = c;
  }
  return p + 2.0 * d(c0) + conv_params(c0, out_channels, 3);
}

double UNet::step_flops(long long side_h, long long side_w, long long text_tokens) const {
  const long long c0 = levels.front().channels;
  const long long temb = time_embed_dim();
  const auto n = levels.size();
  const auto area_at = [&](std::size_t level) { return d(side_h >> level) * d(side_w >> level); };
  double macs = area_at(0) * 9.0 * d(in_channels) * d(c0) + d(c0) * d(temb) + d(temb) * d(temb) +
                d(addition_input) * d(temb) + d(temb) * d(temb);
  long long prev = c0;
  for (std::size_t i = 0; i < n; ++i) {
    const long long c = levels[i].channels;
    const double area = area_at(i);
    for (long long j = 0; j < layers_per_block; ++j) {
      macs += resnet_macs(j == 0 ? prev : c, c, area, temb);
      if (levels[i].down_transformer_layers > 0) {
        macs += transformer2d_macs(
            c, levels[i].down_transformer_layers, area, text_tokens, cross_attention_dim);
      }
    }
    if (i + 1 < n) {
      macs += area_at(i + 1) * 9.0 * d(c) * d(c); // stride-2 convolution
    }
    prev = c;
  }
  const long long top = levels.back().channels;
  const double deepest = area_at(n - 1);
  macs +=
      2.0 * resnet_macs(top, top, deepest, temb) +
      transformer2d_macs(top, mid_transformer_layers, deepest, text_tokens, cross_attention_dim);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = n - 1 - i;
    const auto& level = levels[at];
    const long long c = level.channels;
    const long long skip_in = levels[n - 1 - std::min(i + 1, n - 1)].channels;
    const double area = area_at(at);
    for (long long j = 0; j <= layers_per_block; ++j) {
      const long long skip = j == layers_per_block ? skip_in : c;
      macs += resnet_macs((j == 0 ? prev : c) + skip, c, area, temb);
      if (level.up_transformer_layers > 0) {
        macs += transformer2d_macs(
            c, level.up_transformer_layers, area, text_tokens, cross_attention_dim);
      }
    }
    if (i + 1 < n) {
      macs += area_at(at - 1) * 9.0 * d(c) * d(c); // nearest upsampling, then a 3x3 convolution
    }
    prev = c;
  }
  macs += area_at(0) * 9.0 * d(c0) * d(out_channels);
  return 2.0 * macs;
}

double UNet::activation_elements(long long side_h, long long side_w) const {
  const auto area_at = [&](std::size_t level) { return d(side_h >> level) * d(side_w >> level); };
  // Skip connections: conv_in's output, each down resnet's (or its transformer's), each
  // downsample's; the up path reads them all.
  double skips = area_at(0) * d(levels.front().channels);
  double working = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const double maps = area_at(i) * d(levels[i].channels);
    skips += maps * d(layers_per_block) +
             (i + 1 < levels.size() ? area_at(i + 1) * d(levels[i].channels) : 0.0);
    // A transformer block holds the residual, a norm and the GEGLU's 8C projection and 4C
    // product (14 x C per position); an up resnet its concatenated input (2C), two norms and two
    // convolution outputs (7 x C).
    const bool attends =
        levels[i].down_transformer_layers > 0 || levels[i].up_transformer_layers > 0;
    working = std::max(working, maps * (attends ? 14.0 : 7.0));
  }
  return skips + working;
}

double MMDiT::params() const {
  const long long D = dim();
  double p = linear_params(256, D) + linear_params(D, D); // timestep_embedder
  if (guidance_embeds) {
    p += linear_params(256, D) + linear_params(D, D); // guidance_embedder
  }
  p += linear_params(pooled_projection_dim, D) + linear_params(D, D); // text_embedder
  p += linear_params(joint_attention_dim, D) + linear_params(in_channels, D);
  const double hd = d(head_dim);
  // FluxTransformerBlock, JointTransformerBlock: AdaLayerNormZero (D -> 6D) per stream; q, k, v,
  // out and add_q, add_k, add_v, to_add_out; RMSNorm weights on q, k and the added q, k (FLUX);
  // a GELU feed-forward per stream.
  const double feed_forward = linear_params(D, 4 * D) + linear_params(4 * D, D);
  const double block = 2.0 * linear_params(D, 6 * D) + 8.0 * linear_params(D, D) +
                       (qk_norm ? 4.0 * hd : 0.0) + 2.0 * feed_forward;
  // SD3's last block: the text stream's modulation is AdaLayerNormContinuous (D -> 2D), and it
  // has no to_add_out and no feed-forward.
  const double pre_only_saving =
      context_pre_only
          ? linear_params(D, 6 * D) - linear_params(D, 2 * D) + linear_params(D, D) + feed_forward
          : 0.0;
  // FluxSingleTransformerBlock: AdaLayerNormZeroSingle (D -> 3D), proj_mlp (D -> 4D), q, k, v
  // (no out: pre_only), q and k norms, proj_out over the attention and MLP outputs (5D -> D).
  const double single = linear_params(D, 3 * D) + linear_params(D, 4 * D) +
                        3.0 * linear_params(D, D) + 2.0 * hd + linear_params(5 * D, D);
  // norm_out (AdaLayerNormContinuous: D -> 2D) and proj_out back to the packed latent.
  return p + d(layers) * block - pre_only_saving + d(single_layers) * single +
         linear_params(D, 2 * D) + linear_params(D, in_channels);
}

double MMDiT::step_flops(long long tokens, long long text_tokens) const {
  const double D = d(dim());
  const double n = d(tokens);
  const double s = d(tokens + text_tokens);
  // Per image: the embedders of timestep, guidance and pooled text, and the modulations.
  double macs =
      (256.0 * D + D * D) * (guidance_embeds ? 2.0 : 1.0) + d(pooled_projection_dim) * D + D * D;
  macs += d(layers) * 12.0 * D * D + d(single_layers) * 3.0 * D * D + 2.0 * D * D;
  // Per token: the embedders in and out, 12 D^2 of linear work in every block (each stream's own
  // weights in a double block), and the joint attention's two products over s^2.
  macs +=
      n * d(in_channels) * D + d(text_tokens) * d(joint_attention_dim) * D + n * D * d(in_channels);
  macs += d(layers + single_layers) * (s * 12.0 * D * D + 2.0 * s * s * D);
  if (context_pre_only) {
    // SD3's last block: the text tokens stop after q, k, v (3 D^2 of their 12), its text
    // modulation is D -> 2D.
    macs -= d(text_tokens) * 9.0 * D * D + 4.0 * D * D;
  }
  return 2.0 * macs;
}

double MMDiT::activation_elements(long long tokens, long long text_tokens) const {
  // The residual stream, a norm, and a single block's widest intermediates: q, k, v (3D), the
  // MLP's 4D, and their 5D concatenation, per token of the joint sequence (SDPA keeps no s^2
  // matrix).
  return d(tokens + text_tokens) * 14.0 * d(dim());
}

long long Autoencoder::scale() const {
  return 1LL << (channels.size() - 1);
}

double Autoencoder::encoder_params() const {
  double p = conv_params(in_channels, channels.front(), 3);
  long long prev = channels.front();
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const long long c = channels[i];
    for (long long j = 0; j < layers_per_block; ++j) {
      p += resnet_params(j == 0 ? prev : c, c, 0);
    }
    if (i + 1 < channels.size()) {
      p += conv_params(c, c, 3);
    }
    prev = c;
  }
  const long long top = channels.back();
  p += 2.0 * resnet_params(top, top, 0) + vae_attention_params(top);
  // conv_norm_out, conv_out to the mean and log-variance (double_z).
  return p + 2.0 * d(top) + conv_params(top, 2 * latent_channels, 3);
}

double Autoencoder::decoder_params() const {
  const long long top = channels.back();
  double p = conv_params(latent_channels, top, 3) + 2.0 * resnet_params(top, top, 0) +
             vae_attention_params(top);
  long long prev = top;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const long long c = channels[channels.size() - 1 - i];
    for (long long j = 0; j <= layers_per_block; ++j) {
      p += resnet_params(j == 0 ? prev : c, c, 0);
    }
    if (i + 1 < channels.size()) {
      p += conv_params(c, c, 3);
    }
    prev = c;
  }
  return p + 2.0 * d(channels.front()) + conv_params(channels.front(), out_channels, 3);
}

double Autoencoder::params() const {
  const long long l = latent_channels;
  return encoder_params() + decoder_params() + (quant_conv ? conv_params(2 * l, 2 * l, 1) : 0.0) +
         (post_quant_conv ? conv_params(l, l, 1) : 0.0);
}

double Autoencoder::decode_flops(long long height, long long width) const {
  const long long top = channels.back();
  const long long s = scale();
  double area = d(height / s) * d(width / s);
  double macs = post_quant_conv ? area * d(latent_channels) * d(latent_channels) : 0.0;
  macs += area * 9.0 * d(latent_channels) * d(top);
  // Mid block: two resnets and one single-head attention over every latent position.
  macs += 2.0 * resnet_macs(top, top, area, 0) + 4.0 * area * d(top) * d(top) +
          2.0 * area * area * d(top);
  long long prev = top;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const long long c = channels[channels.size() - 1 - i];
    for (long long j = 0; j <= layers_per_block; ++j) {
      macs += resnet_macs(j == 0 ? prev : c, c, area, 0);
    }
    if (i + 1 < channels.size()) {
      area *= 4.0; // nearest upsampling, then a 3x3 convolution at the new size
      macs += area * 9.0 * d(c) * d(c);
    }
    prev = c;
  }
  macs += area * 9.0 * d(channels.front()) * d(out_channels);
  return 2.0 * macs;
}

double Autoencoder::decode_activation_elements(long long height, long long width) const {
  // The widest resnet of the decoder: its input, two norms and two convolution outputs (2 x the
  // input channels + 3 x the output channels) at the size of its level; the last levels run at
  // the image's full size.
  const long long s = scale();
  double area = d(height / s) * d(width / s);
  double peak = 0;
  long long prev = channels.back();
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const long long c = channels[channels.size() - 1 - i];
    peak = std::max(peak, area * (2.0 * d(prev) + 3.0 * d(c)));
    if (i + 1 < channels.size()) {
      area *= 4.0;
      peak = std::max(peak, area * 2.0 * d(c)); // the upsampled map and its convolution
    }
    prev = c;
  }
  return peak;
}

double DiffusionPipeline::denoiser_params() const {
  return !mmdit.empty() ? mmdit.front().params() : unet.front().params();
}

double DiffusionPipeline::text_encoder_params() const {
  double p = 0;
  for (const auto& t : text_encoders) {
    p += t.params();
  }
  return p;
}

long long DiffusionPipeline::latent_side(long long pixels) const {
  return pixels / vae.scale();
}

long long DiffusionPipeline::latent_tokens(long long height, long long width) const {
  const long long patch = !mmdit.empty() ? mmdit.front().patch : 1;
  return (latent_side(height) / patch) * (latent_side(width) / patch);
}

long long DiffusionPipeline::context_tokens() const {
  // SD3 attends over CLIP's 77 hidden states (L and bigG side by side) followed by T5's.
  if (pipeline == "StableDiffusion3Pipeline") {
    long long clip = 0;
    long long t5 = 0;
    for (const auto& t : text_encoders) {
      (t.class_name == "T5EncoderModel" ? t5 : clip) =
          std::max(t.class_name == "T5EncoderModel" ? t5 : clip, t.tokens);
    }
    return clip + t5;
  }
  // FLUX attends over the T5 sequence; a UNet over the CLIP hidden states (77 tokens).
  for (const auto& t : text_encoders) {
    if (!mmdit.empty() ? t.class_name == "T5EncoderModel" : t.class_name != "T5EncoderModel") {
      return t.tokens;
    }
  }
  return 0;
}

double DiffusionPipeline::step_flops(long long height, long long width) const {
  if (!mmdit.empty()) {
    return mmdit.front().step_flops(latent_tokens(height, width), context_tokens());
  }
  return unet.front().step_flops(latent_side(height), latent_side(width), context_tokens());
}

double DiffusionPipeline::text_flops() const {
  double f = 0;
  for (const auto& t : text_encoders) {
    f += t.flops();
  }
  return f;
}

double DiffusionPipeline::image_flops(long long height, long long width, long long steps) const {
  return text_flops() + d(steps) * passes_per_step() * step_flops(height, width) +
         vae.decode_flops(height, width);
}

double DiffusionPipeline::activation_elements(long long height, long long width) const {
  const double denoiser =
      !mmdit.empty()
          ? mmdit.front().activation_elements(latent_tokens(height, width), context_tokens())
          : unet.front().activation_elements(latent_side(height), latent_side(width));
  return std::max(passes_per_step() * denoiser, vae.decode_activation_elements(height, width));
}

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

} // namespace

ModelArch read_diffusers_pipeline(const std::string& model_index) {
  const auto json = detail::load_json_file(model_index);
  const FieldReader top(json, model_index);
  if (!json.is_object() || !top.has("_class_name")) {
    top.fail_plain("not a diffusers model_index.json: _class_name is not set");
  }
  const auto name_field = top.member("_class_name");
  const std::string pipeline = top.string("_class_name");
  if (pipeline != "StableDiffusionXLPipeline" && pipeline != "FluxPipeline" &&
      pipeline != "StableDiffusion3Pipeline") {
    refuse_pipeline(name_field, pipeline_refusal(pipeline));
  }
  const fs::path dir = fs::path(model_index).parent_path();
  DiffusionPipeline p;
  p.pipeline = pipeline;
  bool has_vae = false;
  for (const auto& [key, value] : json.items()) {
    if (key.empty() || key.front() == '_') {
      continue;
    }
    const auto entry = top.member(key);
    const auto cls = component_class(entry);
    if (!cls || ends_with(*cls, "Scheduler") || ends_with(*cls, "Tokenizer") ||
        ends_with(*cls, "TokenizerFast")) {
      continue;
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
      const long long sample =
          r.optional_integer("sample_size", Range::positive(1e5)).value_or(128);
      p.default_size = sample * 8;
    } else if (*cls == "FluxTransformer2DModel" || *cls == "SD3Transformer2DModel") {
      p.denoiser_component = key;
      p.denoiser_class = *cls;
      p.mmdit.push_back(*cls == "FluxTransformer2DModel" ? read_flux(r) : read_sd3(r));
    } else if (*cls == "AutoencoderKL") {
      p.vae = read_vae(r);
      has_vae = true;
    } else {
      entry.fail(fmt::format("component class not read by rightsize (a {} reads CLIPTextModel, "
                             "CLIPTextModelWithProjection, T5EncoderModel, {} and AutoencoderKL)",
                             pipeline,
                             pipeline == "FluxPipeline"               ? "FluxTransformer2DModel"
                             : pipeline == "StableDiffusion3Pipeline" ? "SD3Transformer2DModel"
                                                                      : "UNet2DConditionModel"));
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

  ModelArch m;
  m.name = dir.filename().string();
  if (m.name.empty() || m.name == ".") {
    m.name = pipeline;
  }
  m.family = pipeline;
  m.encoder_only = true; // no decode and no KV cache: each image is one denoising loop
  m.gated_mlp = false;
  if (flux || sd3) {
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
    m.layers = blocks; // resnets and transformer blocks, each a kernel sequence of its own
    m.hidden = u.levels.back().channels;
    m.heads = u.levels.back().heads;
    m.head_dim = m.hidden / std::max(1LL, m.heads);
  }
  m.kv_heads = m.heads;
  m.v_head_dim = m.head_dim;
  m.intermediate = 4 * m.hidden;
  m.quantization.method = "none";
  m.quantization.source = "none";
  m.provenance.emplace_back("pipeline", top.where("_class_name"));
  m.provenance.emplace_back("denoiser", (dir / p.denoiser_component / "config.json").string());
  m.diffusion = p;
  count_pipeline(m);
  return m;
}

} // namespace rightsize
