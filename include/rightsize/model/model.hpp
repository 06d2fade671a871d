#pragma once

// The normalized description of a transformer model: its architecture as read from a Hugging Face
// config.json (or a generic description), its exact parameter counts per component, and the bytes
// its weights occupy as stored (quantization scales included).

#include <rightsize/core/units.hpp>
#include <rightsize/model/diffusion.hpp>
#include <rightsize/model/dtype.hpp>
#include <rightsize/model/layers.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize {

enum class AttentionKind { mha, gqa, mqa, mla };
std::string_view to_string(AttentionKind k);

// Parameter counts by where they sit, because each part is placed, sharded and quantized
// differently by real engines.
struct ParamBreakdown {
  double embedding = 0; // token (and learned position) embeddings
  double lm_head = 0;   // output projection; 0 when tied to the embedding
  double attention = 0; // all layers: q/k/v/o projections (MLA: its low-rank projections), biases
  double dense_mlp = 0; // all dense (non-MoE) MLP layers
  double routed_experts = 0; // all layers, all routed experts
  double shared_experts = 0; // all layers, always-active shared experts
  double router = 0;         // MoE gating
  double norms = 0;          // layer norms, attention sinks and other small vectors
  double state_space = 0;    // all recurrent mixers (Mamba, Gated DeltaNet): projections,
                             // convolution, A, D, dt, inner norms
  double vision = 0;         // vision encoder and its projector into the language model
  double pooler = 0;         // what sits on an encoder's output: BertPooler's dense layer; an image
                             // encoder's pooler, classifier, projection or attention-pooling head
  double cross_attention = 0; // encoder-decoders: the decoder's attention over the encoder output
  double audio = 0;           // Whisper: the two convolutions over the log-mel spectrogram
  double text_tower = 0;  // CLIP, SigLIP: the text encoder and its projection (not run on images)
  double convolution = 0; // CNN image encoders (ResNet): the convolution kernels (their batch
                          // norms' scale and shift are in norms)
  // A diffusers pipeline's components (the fields above stay 0 for one).
  double denoiser = 0;      // the UNet or transformer that runs every denoising step
  double text_encoders = 0; // CLIP and T5 encoders, once per prompt
  double autoencoder = 0;   // the VAE: its decoder turns the final latent into pixels

  [[nodiscard]] double total() const;
};

// How the weights are stored: which layers are quantized, and to how many bits each weight costs
// with its block scales and zero points.
struct Quantization {
  std::string method;        // "none", "awq", "gptq", "bitsandbytes", "fp8", "mxfp4", "nvfp4", ...
  DType dtype = DType::bf16; // storage format of quantized weights
  double bits_per_weight = 16;        // including scales and zero points
  DType high_precision = DType::bf16; // dtype of the layers that are not quantized
  bool attention_quantized = true;    // linear layers of attention
  bool mlp_quantized = true;          // dense MLP and expert linear layers
  bool embedding_quantized = false;   // embeddings and lm_head (rarely quantized)
  std::string source;                 // "config.json:/quantization_config", "hf_quant_config.json"
  std::optional<DType> kv_cache;      // a KV-cache format the checkpoint was calibrated for

  [[nodiscard]] bool quantized() const { return method != "none"; }
};

// The recurrent mixers of a state-space or hybrid model: Mamba (Gu and Dao 2023; Dao and Gu 2024)
// or Gated DeltaNet linear attention (Yang et al. 2024, "Gated Delta Networks"; Qwen3-Next). Each
// keeps, per sequence, a recurrent state of constant size instead of a KV cache that grows with
// context.
enum class RecurrentKind {
  mamba,          // Mamba-1 or Mamba-2, by `version`
  gated_deltanet, // linear attention with the gated delta rule
};

struct StateSpace {
  RecurrentKind kind = RecurrentKind::mamba;
  int version = 0;           // Mamba: 1 (selective scan) or 2 (SSD); 0: no Mamba layers
  long long inner = 0;       // channels: expand x hidden (Mamba-2: heads x head_dim; Gated
                             // DeltaNet: value heads x value head dim)
  long long state = 0;       // d_state, the SSM state per channel (Mamba-2: per head dim; Gated
                             // DeltaNet: the key head dim, a d_k x d_v state per value head)
  long long conv_kernel = 0; // width of the depthwise causal convolution (d_conv)
  long long groups = 1;      // Mamba-2: groups sharing the B and C projections (n_groups); Gated
                             // DeltaNet: key heads, each with a q and a k of `state` channels
  long long heads = 0;       // Mamba-2: SSM heads, one dt, A and D each; Gated DeltaNet: value
                             // heads, one beta, decay (a), A and dt bias each
  long long dt_rank = 0;     // Mamba-1: rank of the dt projection
  bool proj_bias = false;    // biases on in_proj and out_proj
  // Falcon-H1: out_proj's bias is projectors_bias, not mamba_proj_bias; unset: proj_bias.
  std::optional<bool> out_proj_bias;
  bool conv_bias = true;
  bool dt_norms = false;  // Jamba: RMSNorms on dt, B and C
  bool gated_norm = true; // Mamba-2: the gated RMSNorm before out_proj (Falcon-H1: mamba_rms_norm)
  std::optional<DType> state_dtype; // mamba_ssm_cache_dtype when the config sets it
  // What reports call one such mixer: "Mamba-1", "Mamba-2", "linear attention (Gated DeltaNet)".
  [[nodiscard]] std::string name() const;
  // Channels the convolution runs over: x (Mamba-2: x, B and C; Gated DeltaNet: q, k and v), all
  // `tp` ranks together. Under tensor parallelism vLLM gives each Mamba-2 rank whole groups: with
  // fewer groups than ranks, it replicates them to one per rank
  // (MambaStateShapeCalculator.extra_groups_for_head_shards); Gated DeltaNet splits its key heads.
  [[nodiscard]] long long conv_channels(int tp = 1) const;
  // Elements one sequence keeps per recurrent layer on one of `tp` ranks: the convolution's last
  // conv_kernel - 1 inputs, and the SSM (Gated DeltaNet: delta-rule) state of every channel.
  [[nodiscard]] double conv_state_elements(int tp = 1) const;
  [[nodiscard]] double ssm_state_elements(int tp = 1) const;
  // Parameters of one mixer (without the layer's own norm).
  [[nodiscard]] double mixer_params(long long hidden) const;
  // FLOPs per token of one mixer beyond its projections' 2 per parameter: Gated DeltaNet's chunked
  // delta rule (docs/model.md); 0 for Mamba, whose scan (about 9 x inner x state) is left out.
  [[nodiscard]] double recurrence_flops_per_token() const;
};

// The vision encoder of a vision-language model: a ViT whose patches of each image become, after
// pooling or merging, image tokens in the language model's prompt.
struct VisionTower {
  std::string kind;               // "siglip" (Gemma 3), "clip" (Llava, Llava-NeXT), "qwen2_vl", ...
  long long layers = 0;           // encoder blocks
  long long hidden = 0;           // encoder width
  long long heads = 0;            // attention heads (read for standalone image encoders only)
  long long intermediate = 0;     // encoder MLP width
  long long patch = 0;            // patch side in pixels
  long long image_size = 0;       // fixed input side in pixels; 0: dynamic resolution (Qwen2-VL)
  long long merge = 1;            // patches merged into one token per side (Qwen2-VL: 2)
  long long tokens_per_image = 0; // fixed-resolution towers: image tokens per image
  double params = 0;              // encoder + projector
  // Llava-NeXT's "anyres" resolutions, {height, width}, each a multiple of image_size: an image is
  // resized to the best of them, cut into image_size tiles, and the whole image added as one more
  // tile. Empty: every image is resized to image_size alone.
  std::vector<std::pair<long long, long long>> grid_pinpoints;
  // Encoder patches and language-model tokens of one image of width x height pixels (fixed
  // towers resize every image to image_size).
  [[nodiscard]] long long patches(long long width, long long height) const;
  [[nodiscard]] long long tokens(long long width, long long height) const;
  // Llava-NeXT: the pinpoint {height, width} an image of width x height pixels is resized to
  // (transformers' select_best_resolution); {0, 0} without grid_pinpoints.
  [[nodiscard]] std::pair<long long, long long> anyres_resolution(long long width,
                                                                  long long height) const;
  // Encoder FLOPs of one image: 2 per parameter per patch, and full attention over its patches.
  [[nodiscard]] double flops(long long width, long long height) const;
};

// One convolution of a CNN image encoder, square: `kernel` x `kernel` over `in` channels into
// `out` channels, at `stride`, zero-padded by kernel / 2 (transformers' ResNetConvLayer), without
// bias; `out_side` is the side of its output feature map at the encoder's image_size.
struct Convolution {
  long long kernel = 0;
  long long in = 0;
  long long out = 0;
  long long stride = 1;
  long long out_side = 0;
  [[nodiscard]] double weights() const; // kernel^2 x in x out
  [[nodiscard]] double flops() const;   // 2 x kernel^2 x in x out x out_side^2
};

// A stage of a ResNet: `depth` residual layers of `channels` output channels, the first of which
// downsamples by `stride`; `side` is its feature maps' side at the encoder's image_size.
struct ConvStage {
  long long depth = 0;
  long long channels = 0;
  long long stride = 1;
  long long side = 0;
};

// A convolutional image encoder (transformers' ResNet; docs/model.md "Convolutional encoders"),
// unrolled at its image_size: every convolution in the order the forward pass runs them.
struct ConvNet {
  std::string layer_type;  // "basic" (two 3x3 convolutions) or "bottleneck" (1x1, 3x3, 1x1)
  long long embedding = 0; // the stem's output channels (embedding_size)
  std::vector<ConvStage> stages;
  std::vector<Convolution> convolutions; // the stem's, then each layer's (shortcut last)
  long long batch_norms = 0;             // one after every convolution
  double batch_norm_channels = 0;        // their channels, summed
  double classifier_flops = 0;           // ResNetForImageClassification's Linear: 2 x in x labels
  // The most activation elements one image keeps alive at once under torch.no_grad, op by op
  // (a layer's input kept for the residual, the op's input and its output).
  double peak_activation_elements = 0;
  [[nodiscard]] double flops() const; // the convolutions and the classifier, per image
};

// A standalone image encoder (ViT, CLIP, SigLIP; docs/model.md "Vision encoders"): the model's
// encoder stack (layers, hidden, heads, intermediate) reads an image resized to image_size and cut
// into patches instead of tokens. What it adds to the stack's parameters is counted from these;
// the embedding part is shared with the towers of vision-language models. A ResNet ("resnet") has
// no stack and no patches: `cnn` describes it, and it reads each image as one input (tokens() 1).
struct ImageEncoder {
  std::string kind;         // "vit", "clip", "siglip", "resnet"
  long long image_size = 0; // pixels per side; every image is resized to it
  long long patch = 0;      // patch side in pixels (the convolution's kernel and stride); 0: a CNN
  long long channels = 3;   // input channels of the patch convolution (a CNN's stem)
  bool class_token = false; // ViT, CLIP: a learned [CLS] token before the patches
  bool patch_bias = true;   // ViT, SigLIP: a biased patch convolution; CLIP: none
  bool pre_norm = false;    // CLIP: a LayerNorm over the embeddings (pre_layrnorm)
  double head = 0;   // on the encoder's output: classifier, projection or pooling head (pooler)
  double logits = 0; // dual encoders' learned scalars: logit_scale (CLIP), and logit_bias (SigLIP)
  double text = 0;   // dual encoders: the text tower and its projection (text_tower)
  std::optional<ConvNet> cnn; // a convolutional encoder (ResNet)
  // Patches of one image, and the tokens the encoder attends over (patches + class token); a
  // CNN: no patches, one input per image.
  [[nodiscard]] long long patches() const;
  [[nodiscard]] long long tokens() const;
  // The embeddings of an encoder of width `hidden`: the patch convolution, the class token and a
  // learned position per token.
  [[nodiscard]] double embedding_params(long long hidden) const;
};

// The architecture, normalized across model families. Sizes are counts, not bytes.
struct ModelArch {
  std::string name;     // spec name or the config's _name_or_path / file name
  std::string family;   // the config's model_type ("llama", "mixtral", ...) or "generic"
  long long layers = 0; // blocks of the main stack: stack.size() when it has one (below)
  long long hidden = 0;
  long long heads = 0;
  long long kv_heads = 0;
  long long head_dim = 0;   // per attention head (may differ from hidden / heads)
  long long v_head_dim = 0; // value head dim (MLA differs from head_dim)
  long long vocab = 0;
  long long intermediate = 0; // dense MLP width
  long long max_position = 0;
  bool gated_mlp = true; // SwiGLU/GeGLU (3 matrices) vs plain (2 matrices)
  bool tied_embeddings = false;
  bool parallel_attention = false; // attention and MLP read the same input (GPT-J, Falcon)
  // Encoder-only (BERT, RoBERTa, ModernBERT): bidirectional attention over the whole input, one
  // forward pass per input, no decoding and no KV cache; no lm_head, a pooler where it has one.
  bool encoder_only = false;
  long long token_types = 0; // rows of the token-type (segment) embedding (BERT: 2)
  bool pooler = false;       // a hidden x hidden dense layer with bias over the first token
  // Encoder-decoder (T5, mT5, UMT5, Whisper): `layers` is the encoder stack; the decoder stack
  // of `decoder_layers` (decoder_stack.size()) adds, in each layer, cross-attention over the
  // encoder's output (and a norm before it). Both stacks have `heads` heads of `head_dim` (T5's
  // d_kv: heads x head_dim may differ from hidden) and MLPs of `intermediate`.
  bool encoder_decoder = false;
  long long decoder_layers = 0;
  // T5's relative position bias: a buckets x heads table in `relative_bias_tables` self-attention
  // layers (T5, mT5: the first of each stack, 2; UMT5: every one).
  long long relative_buckets = 0;
  long long relative_bias_tables = 0;
  // Whisper's audio encoder: two width-3 convolutions (mel bins -> hidden, hidden -> hidden,
  // with biases) before `encoder_positions` fixed sinusoidal positions, stored in the checkpoint
  // as a frozen hidden-wide embedding (30 s of audio: 1500).
  long long mel_bins = 0;
  long long encoder_positions = 0;
  AttentionKind attention = AttentionKind::mha;

  // Small terms that decide whether a count matches the published total to 0.1%.
  bool qkv_bias = false;    // biases on q, k, v projections
  bool k_bias = true;       // with qkv_bias: false when k has none (Whisper's k_proj)
  bool o_bias = false;      // bias on the attention output projection
  bool mlp_bias = false;    // biases on MLP (and expert) projections
  bool router_bias = false; // bias (or score-correction vector) on the MoE router
  bool lm_head_bias = false;
  bool attention_sinks = false; // one learned sink logit per head per layer (gpt-oss)
  bool qk_norm = false;         // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  bool attention_gate = false;  // q_proj also yields a sigmoid gate on the output (Qwen3-Next)
  bool layer_norm_bias = false; // LayerNorm (weight and bias) instead of RMSNorm (weight)
  int norms_per_layer = 2;
  long long learned_positions = 0; // rows of a learned position embedding (GPT-2, StarCoder)

  // MLA (DeepSeek-V2/V3): compressed KV of kv_lora_rank plus a shared rope key per token.
  long long q_lora_rank = 0;
  long long kv_lora_rank = 0;
  long long qk_rope_head_dim = 0;
  long long qk_nope_head_dim = 0;

  // Mixture of experts; experts == 0 means dense.
  long long experts = 0;
  long long experts_active = 0;
  long long shared_experts = 0;
  long long moe_intermediate = 0;
  long long shared_expert_intermediate = 0;

  // The main stack layer by layer (layers.hpp): each layer's mixers (attention, sliding
  // attention, a recurrent mixer as `ssm` describes, or attention and a recurrent mixer side by
  // side) and its MLP (dense, MoE or none). A decoder-only model's decoder; an encoder's, an image
  // encoder's and an encoder-decoder's encoder. Empty for a model without a transformer stack (a
  // CNN, a diffusers pipeline: `cnn` and `diffusion` describe them, `layers` counts their blocks).
  LayerStack stack;
  // An encoder-decoder's decoder: self-attention, cross-attention and an MLP in every layer.
  LayerStack decoder_stack;
  StateSpace ssm;
  std::optional<VisionTower> vision; // vision-language models
  std::optional<ImageEncoder> image; // image encoders: the stack above reads patches, not tokens
  // A diffusers text-to-image pipeline (docs/model.md, "Image generation"): the fields above
  // describe its denoiser only (layers: its resnets and transformer blocks; hidden and heads: its
  // widest level), the components are here.
  std::optional<DiffusionPipeline> diffusion;

  // Sliding-window attention: the stack's Attention::sliding layers attend to at most this many
  // tokens.
  long long sliding_window = 0; // 0: none

  ParamBreakdown params;    // derived from the architecture
  double params_total = 0;  // what the rest of rightsize uses: safetensors when read, else params
  double params_active = 0; // per token (MoE: active experts only); embeddings included
  std::string param_source = "config"; // "config", "safetensors" or "spec"

  DType torch_dtype = DType::bf16;        // the checkpoint's declared dtype
  Quantization quantization;              // method "none" when the checkpoint is not quantized
  std::optional<Bytes> safetensors_bytes; // exact bytes of all tensors, when read from headers
  std::vector<std::pair<std::string, double>> safetensors_params_by_dtype; // stored elements

  // Where each headline number came from ("config.json:/num_hidden_layers", "derived: ...").
  std::vector<std::pair<std::string, std::string>> provenance;
  std::vector<std::string> warnings;

  [[nodiscard]] long long kv_cache_heads() const { return kv_heads; }
  [[nodiscard]] bool is_moe() const { return experts > 0; }
  // The kind a model's fitted efficiencies and a site's calibration are grouped by
  // (docs/accuracy.md, docs/calibrate.md): "hybrid" (state-space or linear-attention layers),
  // "mla" (latent attention), "moe" (experts), else "dense".
  [[nodiscard]] std::string_view kind() const {
    return recurrent_layers() > 0              ? "hybrid"
           : attention == AttentionKind::mla ? "mla"
           : is_moe()                        ? "moe"
                                             : "dense";
  }
  // Counts of the main stack's layers (LayerStack): with self-attention, full (global) or
  // sliding (local); with a recurrent mixer; with an MLP, and with experts.
  [[nodiscard]] long long attention_layers() const { return stack.attention(); }
  [[nodiscard]] long long global_layers() const { return stack.full_attention(); }
  [[nodiscard]] long long local_layers() const { return stack.sliding(); }
  [[nodiscard]] long long recurrent_layers() const { return stack.recurrent(); }
  [[nodiscard]] long long mlp_layers() const { return stack.mlp(); }
  [[nodiscard]] long long moe_layers() const { return stack.moe(); }
  // Blocks that end in a residual add (and, under tensor parallelism, an all-reduce): every
  // mixer and every MLP; 2 x layers for a plain transformer.
  [[nodiscard]] long long sublayers() const { return stack.sublayers(); }
  // What tensor parallelism over `tp` ranks cannot split evenly ("32 attention heads", "128
  // Mamba heads", "16 linear-attention key heads"), or "" when it splits every mixer.
  [[nodiscard]] std::string tp_indivisible(int tp) const;
};

// A Hugging Face model family rightsize reads exactly (`rightsize model --list`).
struct SupportedFamily {
  std::string_view model_type;   // config.json's model_type
  std::string_view models;       // the published models it covers
  long long default_context = 0; // transformers' default when config.json omits it
  std::string_view config_class; // the transformers configuration class of that default
};
const std::vector<SupportedFamily>& supported_families();

// Reads a Hugging Face config.json object. `where` names it in errors ("model/config.json" or
// "spec.json:/model"). Throws InputError for configs that cannot be understood, among them every
// family not in supported_families(): "architecture not supported: <model_type> (<architectures>)".
ModelArch parse_hf_config(const nlohmann::json& config,
                          const std::string& file,
                          const std::string& pointer = "");

// Reads a diffusers pipeline from its model_index.json and the config.json of each component
// in the folders beside it (docs/spec.md, "Image generation"). Reads StableDiffusionXLPipeline
// and FluxPipeline; refuses any other pipeline with "architecture not supported: <class>
// (diffusers): <why>", and a component or field it does not model by name.
ModelArch read_diffusers_pipeline(const std::string& model_index);

// Reads rightsize's generic description (params, layers, hidden_size, heads, kv_heads, vocab_size,
// intermediate_size, ...).
ModelArch parse_generic_model(const nlohmann::json& description,
                              const std::string& file,
                              const std::string& pointer);

// Derives params, params_total and params_active from the architecture fields.
void count_parameters(ModelArch& model);

// FLOPs of one image through an image encoder (0 for any other model): 2 per active parameter
// but the positions and class token per token, and bidirectional attention over the image's
// tokens, 4 x tokens^2 x hidden per layer (docs/model.md "Vision encoders"); a CNN: each
// convolution's 2 x kernel^2 x in x out x output pixels, and the classifier.
double image_flops(const ModelArch& model);

// Bytes of the weights as stored, given how each component is quantized. `weights` overrides the
// checkpoint's own dtype for unquantized layers when set (e.g. a spec that serves in fp8).
struct WeightBytes {
  Bytes embedding; // embeddings + lm_head
  Bytes attention; // self-attention, and an encoder-decoder's cross-attention
  Bytes dense_mlp;
  Bytes routed_experts;
  Bytes shared_experts;
  Bytes state_space; // recurrent mixers (Mamba, Gated DeltaNet)
  Bytes vision;      // vision encoder and projector (read by prefills with images, not by decode)
  Bytes other;      // router, norms, pooler, Whisper's and ResNet's convolutions, BatchNorm buffers
  Bytes text_tower; // a dual encoder's text tower (loaded, not run on images)
  Bytes diffusion;  // a diffusers pipeline: every component, unquantized
  [[nodiscard]] Bytes total() const;
};
WeightBytes weight_bytes(const ModelArch& model, const Quantization& quantization);

// Quantization as the weights would be stored in `dtype` with rightsize's default scheme for
// that dtype (fp8 per-channel scales, int4 AWQ-style groups of 128, nf4 bitsandbytes, fp4 NVFP4,
// mxfp4 OCP MX). Unquantized dtypes give method "none".
Quantization quantization_for(DType dtype, DType high_precision);

// Reads quantization_config (from config.json) or hf_quant_config.json (ModelOpt).
Quantization parse_quantization_config(const nlohmann::json& q,
                                       const std::string& file,
                                       const std::string& pointer,
                                       DType high_precision);
Quantization
parse_hf_quant_config(const nlohmann::json& q, const std::string& file, DType high_precision);

// Exact tensor bytes and element counts per dtype from safetensors headers in `directory`
// (model.safetensors, or model.safetensors.index.json and the shards it names). Only the JSON
// headers are read, never the tensor data. Returns false when no safetensors file is there.
bool read_safetensors(const std::string& directory, ModelArch& model);

// Tensor bytes and element counts of one safetensors file.
struct SafetensorsTotals {
  double bytes = 0;
  std::map<std::string, double> elements_by_dtype;
};

// Checks and totals one safetensors file from its first bytes (the 8-byte header length and the
// JSON header; tensor data is not needed) and its size. Throws InputError naming `name` when the
// header is truncated, lies about the file, or describes impossible tensors.
SafetensorsTotals parse_safetensors_header(std::string_view file_start,
                                           std::uint64_t file_size,
                                           const std::string& name);

} // namespace rightsize
