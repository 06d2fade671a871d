// Parameter counting and weight storage. Formulas in docs/model.md ("Parameters" and "Weight
// bytes"); the per-family switches (biases, norms) are set by the config readers.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

double ParamBreakdown::total() const {
  return embedding + lm_head + attention + dense_mlp + routed_experts + shared_experts + router +
         norms + state_space + vision + pooler + cross_attention + audio + text_tower + denoiser +
         text_encoders + autoencoder + convolution;
}

std::string_view to_string(AttentionKind k) {
  switch (k) {
  case AttentionKind::mha:
    return "mha";
  case AttentionKind::gqa:
    return "gqa";
  case AttentionKind::mqa:
    return "mqa";
  case AttentionKind::mla:
    return "mla";
  }
  return "mha";
}

Bytes WeightBytes::total() const {
  return embedding + attention + dense_mlp + routed_experts + shared_experts + state_space +
         vision + other + text_tower + diffusion;
}

// transformers' select_best_resolution (image_processing_utils.py), in the same double
// arithmetic: each pinpoint scales the image to fit; the most of the image's own pixels kept wins,
// then the fewest pixels of padding.
std::pair<long long, long long> VisionTower::anyres_resolution(long long width,
                                                               long long height) const {
  std::pair<long long, long long> best{0, 0};
  long long max_effective = 0;
  auto min_wasted = std::numeric_limits<long long>::max();
  const auto w0 = static_cast<double>(width);
  const auto h0 = static_cast<double>(height);
  for (const auto& [h, w] : grid_pinpoints) {
    const double scale = std::min(static_cast<double>(w) / w0, static_cast<double>(h) / h0);
    const auto scaled_w = static_cast<long long>(w0 * scale);
    const auto scaled_h = static_cast<long long>(h0 * scale);
    const long long effective = std::min(scaled_w * scaled_h, width * height);
    const long long wasted = w * h - effective;
    if (effective > max_effective || (effective == max_effective && wasted < min_wasted)) {
      best = {h, w};
      max_effective = effective;
      min_wasted = wasted;
    }
  }
  return best;
}

long long VisionTower::patches(long long width, long long height) const {
  if (image_size > 0) {
    const long long side = image_size / patch;
    if (!grid_pinpoints.empty()) {
      // The tiles of the chosen resolution and the whole image, each image_size square.
      const auto [h, w] = anyres_resolution(width, height);
      return ((h / image_size) * (w / image_size) + 1) * side * side;
    }
    return side * side;
  }
  // Qwen2-VL's processor resizes each side to a multiple of patch x merge (smart_resize).
  const long long unit = patch * merge;
  const auto sides = [&](long long pixels) {
    return std::max(1LL, (pixels + unit / 2) / unit) * merge;
  };
  return sides(width) * sides(height);
}

// Llava-NeXT (transformers' LlavaNextProcessor._get_number_of_features and
// _get_unpadded_features, models/llava_next/processing_llava_next.py): the tiles' patches laid
// out as one grid, the rows or columns of padding the resize added cut off, one image_newline
// token after each remaining row, and the whole image's patches.
long long VisionTower::tokens(long long width, long long height) const {
  if (!grid_pinpoints.empty() && image_size > 0) {
    const long long side = image_size / patch;
    const auto [best_h, best_w] = anyres_resolution(width, height);
    long long rows = side * (best_h / image_size);
    long long cols = side * (best_w / image_size);
    // width / height > cols / rows, compared exactly.
    if (width * rows > cols * height) {
      const long long kept = height * cols / width;
      rows -= 2 * ((rows - kept) / 2);
    } else {
      const long long kept = width * rows / height;
      cols -= 2 * ((cols - kept) / 2);
    }
    return rows * cols + rows + side * side;
  }
  return tokens_per_image > 0 ? tokens_per_image : patches(width, height) / (merge * merge);
}

double VisionTower::flops(long long width, long long height) const {
  const auto n = static_cast<double>(patches(width, height));
  return 2.0 * params * n + 4.0 * n * n * static_cast<double>(hidden) * static_cast<double>(layers);
}

long long ImageEncoder::patches() const {
  const long long side = patch > 0 ? image_size / patch : 0;
  return side * side;
}

long long ImageEncoder::tokens() const {
  if (cnn) {
    return 1;
  }
  return patches() + (class_token ? 1 : 0);
}

double Convolution::weights() const {
  return static_cast<double>(kernel * kernel) * static_cast<double>(in) * static_cast<double>(out);
}

double Convolution::flops() const {
  const auto pixels = static_cast<double>(out_side) * static_cast<double>(out_side);
  return 2.0 * weights() * pixels;
}

double ConvNet::flops() const {
  double total = classifier_flops;
  for (const Convolution& c : convolutions) {
    total += c.flops();
  }
  return total;
}

// ViTEmbeddings, CLIPVisionEmbeddings, SiglipVisionEmbeddings: Conv2d(channels, hidden, patch,
// stride=patch) with or without bias, the class token, nn.Embedding(tokens, hidden).
double ImageEncoder::embedding_params(long long hidden) const {
  const auto h = static_cast<double>(hidden);
  const auto p = static_cast<double>(patch);
  return static_cast<double>(channels) * p * p * h + (patch_bias ? h : 0.0) +
         (class_token ? h : 0.0) + static_cast<double>(tokens()) * h;
}

std::string ModelArch::tp_indivisible(int tp) const {
  if (tp < 1) {
    return "layers";
  }
  if (diffusion && tp > 1) {
    return "a diffusers pipeline (diffusers runs one on one GPU)";
  }
  if (image && image->cnn && tp > 1) {
    return "a convolutional image encoder (transformers runs one on one GPU)";
  }
  if (attention_layers() > 0 && heads % tp != 0) {
    return fmt::format("{} attention heads", heads);
  }
  // vLLM splits Mamba-2 by heads, and by groups when they divide; fewer groups than ranks are
  // replicated to one per rank (extra_groups_for_head_shards), more must divide. Mamba-1 splits
  // by channels.
  const bool recurrent = recurrent_layers() > 0;
  if (recurrent && ssm.version == 2 &&
      (ssm.heads % tp != 0 || (ssm.groups > tp && ssm.groups % tp != 0))) {
    return ssm.heads % tp != 0 ? fmt::format("{} Mamba heads", ssm.heads)
                               : fmt::format("{} Mamba groups", ssm.groups);
  }
  if (recurrent && ssm.version == 1 && ssm.inner % tp != 0) {
    return fmt::format("{} Mamba channels", ssm.inner);
  }
  // vLLM's Qwen3-Next Gated DeltaNet gives each rank num_k_heads / tp key heads and the value
  // heads that go with them (fix_query_key_value_ordering).
  if (recurrent && ssm.kind == RecurrentKind::gated_deltanet && ssm.groups % tp != 0) {
    return fmt::format("{} linear-attention key heads", ssm.groups);
  }
  return {};
}

std::string StateSpace::name() const {
  if (kind == RecurrentKind::gated_deltanet) {
    return "linear attention (Gated DeltaNet)";
  }
  return fmt::format("Mamba-{}", version);
}

long long StateSpace::conv_channels(int tp) const {
  if (kind == RecurrentKind::gated_deltanet) {
    return inner + 2 * groups * state; // v, and q and k of every key head
  }
  if (version != 2) {
    return inner;
  }
  const long long shared = groups % tp == 0 ? groups : static_cast<long long>(tp);
  return inner + 2 * shared * state;
}

// vLLM keeps conv_kernel - 1 past inputs per channel (MambaStateShapeCalculator); the SSM state is
// inner x state for both versions (Mamba-2: heads x head_dim x state); both split by tp.
double StateSpace::conv_state_elements(int tp) const {
  return static_cast<double>(conv_channels(tp)) * static_cast<double>(conv_kernel - 1) / tp;
}

double StateSpace::ssm_state_elements(int tp) const {
  return static_cast<double>(inner) * static_cast<double>(state) / tp;
}

// transformers' MambaMixer (version 1; JambaMambaMixer adds the dt, B and C norms),
// Mamba2Mixer / NemotronHMamba2Mixer (version 2; FalconH1Mixer's gated norm is optional and its
// out_proj bias its own flag) and Qwen3NextGatedDeltaNet.
double StateSpace::mixer_params(long long hidden) const {
  const auto h = static_cast<double>(hidden);
  const auto d = static_cast<double>(inner);
  const auto n = static_cast<double>(state);
  const auto k = static_cast<double>(conv_kernel);
  const auto conv = static_cast<double>(conv_channels());
  const double conv_params = conv * k + (conv_bias ? conv : 0.0);
  if (kind == RecurrentKind::gated_deltanet) {
    const auto heads_ = static_cast<double>(heads);
    const double qkvz = 2.0 * static_cast<double>(groups) * n + 2.0 * d; // q, k, v, z
    const double in_proj = h * (qkvz + 2.0 * heads_);                    // in_proj_qkvz, _ba
    const double per_head = 2.0 * heads_;                                // dt_bias, A_log
    const double value_norm = d / heads_; // one RMSNormGated over a value head's channels
    const double out_proj = d * h;
    return in_proj + conv_params + per_head + value_norm + out_proj;
  }
  if (version == 1) {
    const auto r = static_cast<double>(dt_rank);
    const double in_proj = h * 2.0 * d + (proj_bias ? 2.0 * d : 0.0);
    const double x_proj = d * (r + 2.0 * n);
    const double dt_proj = r * d + d;
    const double a_and_d = d * n + d;
    const double out_proj = d * h + (proj_bias ? h : 0.0);
    const double norms = dt_norms ? r + 2.0 * n : 0.0;
    return in_proj + conv_params + x_proj + dt_proj + a_and_d + out_proj + norms;
  }
  const auto heads_ = static_cast<double>(heads);
  const double projected =
      2.0 * d + 2.0 * static_cast<double>(groups) * n + heads_; // z, x, B, C, dt
  const double in_proj = h * projected + (proj_bias ? projected : 0.0);
  const double per_head = 3.0 * heads_; // dt_bias, A_log, D
  const double norm = gated_norm ? d : 0.0;
  const double out_proj = d * h + (out_proj_bias.value_or(proj_bias) ? h : 0.0);
  return in_proj + conv_params + per_head + norm + out_proj;
}

// The chunked gated delta rule (flash-linear-attention's chunk_gated_delta_rule; transformers'
// torch_chunk_gated_delta_rule) over chunks of C tokens, per value head with d_k = state and
// d_v = inner / heads, per token: the state applied to q and to k and updated, 6 d_k d_v, and
// decayed once a chunk, d_k d_v / C; within the chunk q k^T, k k^T and the two WY products,
// C (6 d_k + 4 d_v); the triangular solve, about 2 C^2 / 3. docs/model.md derives it.
double StateSpace::recurrence_flops_per_token() const {
  if (kind != RecurrentKind::gated_deltanet) {
    return 0;
  }
  constexpr double chunk = 64; // chunk_gated_delta_rule's chunk size (BT = 64)
  const auto dk = static_cast<double>(state);
  const auto dv = static_cast<double>(inner) / static_cast<double>(heads);
  const double per_head =
      6.0 * dk * dv + dk * dv / chunk + chunk * (6.0 * dk + 4.0 * dv) + 2.0 * chunk * chunk / 3.0;
  return per_head * static_cast<double>(heads);
}

namespace {

// What an encoder-decoder adds to its encoder stack, which count_parameters counts as it counts
// any stack (T5ForConditionalGeneration, MT5/UMT5ForConditionalGeneration,
// WhisperForConditionalGeneration in transformers): the decoder's layers, each with
// self-attention, cross-attention of the same shape over the encoder's output, an MLP and one
// norm more than an encoder layer (before the cross-attention); the decoder's final norm; T5's
// relative position bias tables; Whisper's stored encoder positions and its convolutions.
void add_decoder_stack(const ModelArch& m,
                       double attention_per_layer,
                       double mlp_per_layer,
                       ParamBreakdown& p) {
  const auto h = static_cast<double>(m.hidden);
  const LayerStack& stack = m.decoder_stack;
  const auto decoder = static_cast<double>(stack.size());
  const double norm = m.layer_norm_bias ? 2.0 * h : h;
  p.attention += static_cast<double>(stack.attention()) * attention_per_layer +
                 static_cast<double>(m.relative_buckets) * static_cast<double>(m.heads) *
                     static_cast<double>(m.relative_bias_tables);
  p.cross_attention = static_cast<double>(stack.cross_attention()) * attention_per_layer;
  p.dense_mlp += static_cast<double>(stack.mlp()) * mlp_per_layer;
  p.norms += decoder * (m.norms_per_layer + 1) * norm + norm;
  p.embedding += static_cast<double>(m.encoder_positions) * h;
  if (m.mel_bins > 0) {
    constexpr double kernel = 3.0; // WhisperEncoder's conv1 and conv2
    p.audio = static_cast<double>(m.mel_bins) * h * kernel + h + h * h * kernel + h;
  }
}

// What an image encoder adds to its stack: the embeddings (patch convolution, class token,
// positions); CLIP's LayerNorm before the first block; the head on the output; a dual encoder's
// learned logit scalars and its text tower.
void add_image_terms(const ImageEncoder& e, long long hidden, ParamBreakdown& p) {
  const auto h = static_cast<double>(hidden);
  p.embedding += e.embedding_params(hidden);
  p.norms += (e.pre_norm ? 2.0 * h : 0.0) + e.logits;
  p.pooler += e.head;
  p.text_tower = e.text;
}

} // namespace

namespace {

// A CNN image encoder has no transformer stack: its convolutions, the batch norms' scale and
// shift (BatchNorm2d's weight and bias; running_mean, running_var and num_batches_tracked are
// buffers, not parameters) and the classifier.
void count_cnn_parameters(ModelArch& m) {
  const ImageEncoder& e = *m.image;
  ParamBreakdown p;
  for (const Convolution& c : e.cnn->convolutions) {
    p.convolution += c.weights();
  }
  p.norms = 2.0 * e.cnn->batch_norm_channels;
  p.pooler = e.head;
  m.params = p;
  m.params_total = m.params_active = p.total();
}

} // namespace

namespace {

// What every reader promises of the layers it describes (a bug, not an input error, when not).
void check_stacks(const ModelArch& m) {
  const RecurrentKind kind =
      m.stack.linear_attention() > 0 ? RecurrentKind::gated_deltanet : RecurrentKind::mamba;
  if (m.stack.size() != m.layers || m.decoder_stack.size() != m.decoder_layers ||
      (m.stack.mamba() > 0 && m.stack.linear_attention() > 0) ||
      (m.recurrent_layers() > 0 && kind != m.ssm.kind)) {
    throw InternalError(fmt::format("{}: the layers described ({} and {} in the decoder) do not "
                                    "match the model's {} and {}, or its recurrent mixer",
                                    m.family,
                                    m.stack.size(),
                                    m.decoder_stack.size(),
                                    m.layers,
                                    m.decoder_layers));
  }
}

} // namespace

void count_parameters(ModelArch& m) {
  if (m.image && m.image->cnn) {
    count_cnn_parameters(m);
    return;
  }
  check_stacks(m);
  const auto h = static_cast<double>(m.hidden);
  const auto layers = static_cast<double>(m.layers);
  const auto heads = static_cast<double>(m.heads);
  const auto kv = static_cast<double>(m.kv_heads);
  const auto hd = static_cast<double>(m.head_dim);
  const auto vhd = static_cast<double>(m.v_head_dim);
  const auto vocab = static_cast<double>(m.vocab);
  const double norm = m.layer_norm_bias ? 2.0 * h : h;

  ParamBreakdown p;
  p.embedding = vocab * h + static_cast<double>(m.learned_positions + m.token_types) * h;
  p.lm_head =
      m.tied_embeddings || m.encoder_only ? 0.0 : vocab * h + (m.lm_head_bias ? vocab : 0.0);
  p.pooler = m.pooler ? h * h + h : 0.0;

  double attention = 0;
  double attention_norms = 0;
  if (m.attention == AttentionKind::mla) {
    // DeepSeek-V2/V3 multi-head latent attention (DeepseekV3Attention).
    const auto q_lora = static_cast<double>(m.q_lora_rank);
    const auto kv_lora = static_cast<double>(m.kv_lora_rank);
    const auto rope = static_cast<double>(m.qk_rope_head_dim);
    const auto nope = static_cast<double>(m.qk_nope_head_dim);
    const double q =
        q_lora > 0 ? h * q_lora + q_lora * heads * (nope + rope) : h * heads * (nope + rope);
    attention = q + h * (kv_lora + rope) + kv_lora * heads * (nope + vhd) + heads * vhd * h;
    attention_norms = (q_lora > 0 ? q_lora : 0.0) + kv_lora;
  } else {
    // A gated attention's q_proj also yields the output gate, one per q channel.
    const double q_width = m.attention_gate ? 2.0 * heads * hd : heads * hd;
    attention = h * q_width + 2.0 * h * kv * hd + heads * vhd * h;
    attention += m.qkv_bias ? (heads + (m.k_bias ? 2.0 : 1.0) * kv) * hd : 0.0;
    attention += m.o_bias ? h : 0.0;
  }
  attention_norms += m.qk_norm ? 2.0 * hd : 0.0;
  attention_norms += m.attention_sinks ? heads : 0.0;
  const auto attention_layers = static_cast<double>(m.attention_layers());
  p.attention = attention * attention_layers;
  p.state_space = static_cast<double>(m.recurrent_layers()) * m.ssm.mixer_params(m.hidden);

  const auto mlp_params = [&](double width) {
    const double matrices = m.gated_mlp ? 3.0 : 2.0;
    const double bias = m.mlp_bias ? (m.gated_mlp ? 2.0 : 1.0) * width + h : 0.0;
    return matrices * h * width + bias;
  };
  const auto moe_layers = static_cast<double>(m.moe_layers());
  p.dense_mlp =
      static_cast<double>(m.stack.dense_mlp()) * mlp_params(static_cast<double>(m.intermediate));
  if (m.experts > 0) {
    const auto experts = static_cast<double>(m.experts);
    p.routed_experts = moe_layers * experts * mlp_params(static_cast<double>(m.moe_intermediate));
    p.router = moe_layers * (h * experts + (m.router_bias ? experts : 0.0));
    if (m.shared_experts > 0) {
      const double shared = static_cast<double>(m.shared_experts) *
                            mlp_params(static_cast<double>(m.shared_expert_intermediate));
      // Qwen2-MoE and Qwen3-Next gate their shared expert with a hidden x 1 projection.
      const double gate = m.family == "qwen2_moe" || m.family == "qwen3_next" ? h : 0.0;
      p.shared_experts = moe_layers * (shared + gate);
    }
  }
  // The last norm: the final norm of a decoder; an encoder's embedding LayerNorm (BERT has no
  // final norm; ModernBERT has both and no norm before its first layer's attention).
  p.norms = layers * m.norms_per_layer * norm + attention_layers * attention_norms + norm;

  p.vision = m.vision ? m.vision->params : 0.0;
  if (m.encoder_decoder) {
    add_decoder_stack(m, attention, mlp_params(static_cast<double>(m.intermediate)), p);
  }
  if (m.image) {
    add_image_terms(*m.image, m.hidden, p);
  }

  m.params = p;
  m.params_total = p.total();
  const double active_share =
      m.experts > 0 ? static_cast<double>(m.experts_active) / static_cast<double>(m.experts) : 1.0;
  // Per generated token: the vision encoder runs once per image, in the prefill. Per image: a
  // dual encoder's text tower does not run.
  m.params_active = p.total() - p.routed_experts * (1.0 - active_share) - p.vision - p.text_tower;
}

// Every weight is applied once per token (Kaplan et al. 2020: 2 FLOP per parameter per token):
// exact for the blocks, an upper bound for the patch convolution (not applied to the class token)
// and the head (applied to one token, or SigLIP's probe), by under 0.5% for ViT-B/16. The positions
// and the class token are added, not multiplied.
double image_flops(const ModelArch& m) {
  if (!m.image) {
    return 0;
  }
  if (m.image->cnn) {
    return m.image->cnn->flops();
  }
  const auto h = static_cast<double>(m.hidden);
  const auto n = static_cast<double>(m.image->tokens());
  const double added = n * h + (m.image->class_token ? h : 0.0);
  return 2.0 * (m.params_active - added) * n + 4.0 * n * n * h * static_cast<double>(m.layers);
}

namespace {

Bytes bytes_at(double params, double bits_per_weight) {
  return bits(params * bits_per_weight);
}

} // namespace

WeightBytes weight_bytes(const ModelArch& m, const Quantization& q) {
  const double high = element_bits(q.high_precision);
  const double low = q.bits_per_weight;
  WeightBytes w;
  w.embedding = bytes_at(m.params.embedding + m.params.lm_head, q.embedding_quantized ? low : high);
  w.attention =
      bytes_at(m.params.attention + m.params.cross_attention, q.attention_quantized ? low : high);
  w.dense_mlp = bytes_at(m.params.dense_mlp, q.mlp_quantized ? low : high);
  w.routed_experts = bytes_at(m.params.routed_experts, q.mlp_quantized ? low : high);
  w.shared_experts = bytes_at(m.params.shared_experts, q.mlp_quantized ? low : high);
  w.state_space = bytes_at(m.params.state_space, q.attention_quantized ? low : high);
  w.vision = bytes_at(m.params.vision, high); // quantization recipes keep the vision tower
  w.other = bytes_at(m.params.router + m.params.norms + m.params.pooler + m.params.audio +
                         m.params.convolution,
                     high);
  if (m.image && m.image->cnn) {
    // The checkpoint also stores each BatchNorm2d's buffers, which eval() reads: running_mean
    // and running_var (cast with the weights) and num_batches_tracked (an int64 scalar).
    w.other += bytes_at(2.0 * m.image->cnn->batch_norm_channels, high) +
               bytes_at(static_cast<double>(m.image->cnn->batch_norms), 64.0);
  }
  w.text_tower = bytes_at(m.params.text_tower, high);
  w.diffusion = bytes_at(m.params.denoiser + m.params.text_encoders + m.params.autoencoder, high);
  // The checkpoint as stored: exact bytes from the safetensors headers, spread over the
  // components in proportion to the derived estimate.
  if (m.safetensors_bytes && q.method == m.quantization.method &&
      q.bits_per_weight == m.quantization.bits_per_weight &&
      q.high_precision == m.quantization.high_precision) {
    const double scale = *m.safetensors_bytes / w.total();
    for (Bytes* part : {&w.embedding,
                        &w.attention,
                        &w.dense_mlp,
                        &w.routed_experts,
                        &w.shared_experts,
                        &w.state_space,
                        &w.vision,
                        &w.other,
                        &w.text_tower,
                        &w.diffusion}) {
      *part *= scale;
    }
  }
  return w;
}

Quantization quantization_for(DType dtype, DType high_precision) {
  Quantization q;
  q.source = "default scheme for " + std::string(to_string(dtype));
  q.dtype = dtype;
  switch (dtype) {
  case DType::fp32:
  case DType::bf16:
  case DType::fp16:
    q.method = "none";
    q.bits_per_weight = element_bits(dtype);
    q.high_precision = dtype;
    return q;
  case DType::fp8:
    q.method = "fp8"; // per-channel scales: 32 bits per row of thousands, negligible
    q.bits_per_weight = 8.0;
    break;
  case DType::int8:
    q.method = "int8"; // W8A8 / LLM.int8 with per-row scales
    q.bits_per_weight = 8.0;
    break;
  case DType::int4:
    q.method = "awq"; // 4-bit groups of 128 with an fp16 scale and a 4-bit zero point
    q.bits_per_weight = 4.0 + (16.0 + 4.0) / 128.0;
    break;
  case DType::nf4:
    q.method = "bitsandbytes"; // QLoRA: nf4 blocks of 64, double-quantized absmax
    q.bits_per_weight = 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
    break;
  case DType::fp4:
    q.method = "nvfp4"; // E2M1 with an FP8 E4M3 scale per 16 values
    q.bits_per_weight = 4.0 + 8.0 / 16.0;
    break;
  case DType::mxfp4:
    q.method = "mxfp4"; // E2M1 with an E8M0 scale per 32 values
    q.bits_per_weight = 4.0 + 8.0 / 32.0;
    break;
  }
  q.high_precision = element_bits(high_precision) <= 8 ? DType::bf16 : high_precision;
  return q;
}

namespace {

// Which layer kinds a "modules_to_not_convert" / "ignore" / "exclude_modules" list keeps in high
// precision. Embeddings and lm_head are never quantized by rightsize's schemes anyway.
void apply_exclusions(Quantization& q, const std::vector<std::string>& modules) {
  for (const auto& mod : modules) {
    if (mod.find("attn") != std::string::npos || mod.find("attention") != std::string::npos) {
      q.attention_quantized = false;
    }
    if ((mod.find("mlp") != std::string::npos || mod.find("experts") != std::string::npos) &&
        mod.find("router") == std::string::npos && mod.find("gate") == std::string::npos) {
      q.mlp_quantized = false;
    }
  }
}

std::vector<std::string> optional_strings(const FieldReader& r, const char* key) {
  if (!r.has(key)) {
    return {};
  }
  return r.string_array(key);
}

void apply_modelopt_algo(Quantization& q,
                         const FieldReader& r,
                         const std::string& algo,
                         const char* algo_key) {
  const auto group = r.optional_integer("group_size", Range::positive(1e6));
  if (algo == "FP8" || algo == "FP8_PER_CHANNEL_PER_TOKEN" || algo == "FP8_BLOCKWISE") {
    q.method = "fp8";
    q.dtype = DType::fp8;
    q.bits_per_weight = 8.0;
  } else if (algo == "NVFP4" || algo == "NVFP4_AWQ") {
    q.method = "nvfp4";
    q.dtype = DType::fp4;
    q.bits_per_weight = 4.0 + 8.0 / static_cast<double>(group.value_or(16));
  } else if (algo == "W4A16_AWQ" || algo == "W4A8_AWQ") {
    q.method = "awq";
    q.dtype = DType::int4;
    q.bits_per_weight = 4.0 + 16.0 / static_cast<double>(group.value_or(128));
  } else if (algo == "INT8_SQ" || algo == "W8A16" || algo == "W8A8_SQ_PER_CHANNEL") {
    q.method = "int8";
    q.dtype = DType::int8;
    q.bits_per_weight = 8.0;
  } else if (algo == "MXFP4") {
    q.method = "mxfp4";
    q.dtype = DType::mxfp4;
    q.bits_per_weight = 4.25;
  } else {
    r.member(algo_key).fail("unsupported ModelOpt quant_algo (supported: FP8, NVFP4, W4A16_AWQ, "
                            "W4A8_AWQ, INT8_SQ, MXFP4)");
  }
}

} // namespace

Quantization parse_quantization_config(const nlohmann::json& json,
                                       const std::string& file,
                                       const std::string& pointer,
                                       DType high_precision) {
  const FieldReader r(json, file, pointer);
  Quantization q;
  q.high_precision = element_bits(high_precision) <= 8 ? DType::bf16 : high_precision;
  q.source = r.where();
  const std::string method = r.string("quant_method");
  q.method = method;
  const std::vector<std::string> supported{
      "awq", "gptq", "bitsandbytes", "fp8", "mxfp4", "compressed-tensors", "modelopt"};
  if (method == "awq") {
    const auto bits = r.has("bits") ? r.integer("bits", Range::between(2, 8))
                                    : r.optional_integer("w_bit", Range::between(2, 8)).value_or(4);
    const auto group = r.has("group_size")
                           ? r.integer("group_size", Range::positive(1e6))
                           : r.optional_integer("q_group_size", Range::positive(1e6)).value_or(128);
    const bool zero_point = r.optional_boolean("zero_point").value_or(true);
    q.dtype = bits <= 4 ? DType::int4 : DType::int8;
    q.bits_per_weight =
        static_cast<double>(bits) +
        (16.0 + (zero_point ? static_cast<double>(bits) : 0.0)) / static_cast<double>(group);
    apply_exclusions(q, optional_strings(r, "modules_to_not_convert"));
  } else if (method == "gptq") {
    const auto bits = r.integer("bits", Range::between(2, 8));
    // group_size -1 means one group per column: a scale per output channel.
    const auto group_raw = r.optional_integer("group_size", Range::between(-1, 1e6)).value_or(128);
    const double group = group_raw <= 0 ? 4096.0 : static_cast<double>(group_raw);
    q.dtype = bits <= 4 ? DType::int4 : DType::int8;
    q.bits_per_weight = static_cast<double>(bits) + (16.0 + static_cast<double>(bits)) / group;
    apply_exclusions(q, optional_strings(r, "modules_to_not_convert"));
  } else if (method == "bitsandbytes") {
    const bool four = r.optional_boolean("load_in_4bit").value_or(false);
    const bool eight = r.optional_boolean("load_in_8bit").value_or(false);
    if (four == eight) {
      r.fail_plain("bitsandbytes config must set exactly one of load_in_4bit and load_in_8bit");
    }
    if (four) {
      const bool double_quant = r.optional_boolean("bnb_4bit_use_double_quant").value_or(false);
      q.dtype = DType::nf4;
      q.bits_per_weight = 4.0 + (double_quant ? 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 32.0 / 64.0);
      if (auto compute = r.optional_string("bnb_4bit_compute_dtype")) {
        if (auto d = parse_dtype(*compute)) {
          q.high_precision = *d;
        }
      }
    } else {
      q.dtype = DType::int8;
      q.bits_per_weight = 8.0;
    }
    apply_exclusions(q, optional_strings(r, "llm_int8_skip_modules"));
  } else if (method == "fp8") {
    q.dtype = DType::fp8;
    q.bits_per_weight = 8.0;
    if (r.has("weight_block_size")) {
      const auto block = r.array("weight_block_size");
      if (block.empty() || block.size() > 2) {
        r.member("weight_block_size").fail("must be the block shape of one scale, e.g. [128, 128]");
      }
      double elements = 1.0;
      for (const auto& b : block) {
        elements *= static_cast<double>(b.as_integer(Range::positive(1e6)));
      }
      q.bits_per_weight += 32.0 / elements; // one fp32 scale per block
    }
    apply_exclusions(q, optional_strings(r, "modules_to_not_convert"));
  } else if (method == "mxfp4") {
    q.dtype = DType::mxfp4;
    q.bits_per_weight = 4.0 + 8.0 / 32.0;
    apply_exclusions(q, optional_strings(r, "modules_to_not_convert"));
  } else if (method == "compressed-tensors") {
    const auto groups = r.object("config_groups");
    if (groups.json().empty()) {
      groups.fail_plain("has no quantization groups");
    }
    const auto first = groups.object(groups.json().begin().key());
    const auto weights = first.object("weights");
    const auto bits = weights.integer("num_bits", Range::between(2, 16));
    const std::string type = weights.optional_string("type").value_or("int");
    const std::string strategy = weights.optional_string("strategy").value_or("tensor");
    const double group =
        strategy == "group" || strategy == "tensor_group"
            ? static_cast<double>(weights.integer("group_size", Range::positive(1e6)))
            : 0.0;
    const bool symmetric = weights.optional_boolean("symmetric").value_or(true);
    if (type == "float" && bits == 4) {
      q.dtype = DType::fp4;
      q.method = "nvfp4";
      q.bits_per_weight = 4.0 + (group > 0 ? 8.0 / group : 0.0);
    } else if (type == "float" && bits == 8) {
      q.dtype = DType::fp8;
      q.bits_per_weight = 8.0;
    } else {
      q.dtype = bits <= 4 ? DType::int4 : DType::int8;
      q.bits_per_weight =
          static_cast<double>(bits) +
          (group > 0 ? (16.0 + (symmetric ? 0.0 : static_cast<double>(bits))) / group : 0.0);
    }
    apply_exclusions(q, optional_strings(r, "ignore"));
  } else if (method == "modelopt") {
    apply_modelopt_algo(q, r, r.string("quant_algo"), "quant_algo");
    apply_exclusions(q, optional_strings(r, "exclude_modules"));
  } else {
    r.member("quant_method")
        .fail("unsupported quantization method (supported: awq, gptq, bitsandbytes, fp8, mxfp4, "
              "compressed-tensors, modelopt)" +
              did_you_mean(method, supported));
  }
  return q;
}

Quantization
parse_hf_quant_config(const nlohmann::json& json, const std::string& file, DType high_precision) {
  const FieldReader top(json, file);
  const auto r = top.object("quantization");
  Quantization q;
  q.high_precision = element_bits(high_precision) <= 8 ? DType::bf16 : high_precision;
  q.source = file;
  apply_modelopt_algo(q, r, r.string("quant_algo"), "quant_algo");
  apply_exclusions(q, optional_strings(r, "exclude_modules"));
  if (auto kv = r.optional_string("kv_cache_quant_algo")) {
    if (*kv == "FP8") {
      q.kv_cache = DType::fp8;
    } else if (*kv == "NVFP4") {
      q.kv_cache = DType::fp4;
    }
  }
  return q;
}

} // namespace rightsize
