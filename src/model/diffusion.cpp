// diffusers text-to-image pipelines: parameters, FLOPs and activations per component
// (docs/model.md, "Image generation"); families/diffusers.cpp reads them. Layer structure from
// diffusers' models/unets/unet_2d_condition.py, unet_2d_blocks.py, resnet.py, attention.py,
// transformers/transformer_flux.py, autoencoders/vae.py and transformers' CLIPTextModel and
// T5EncoderModel.

#include <rightsize/model/diffusion.hpp>

#include <algorithm>

namespace rightsize {

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

} // namespace rightsize
