#pragma once

// A diffusers text-to-image pipeline (docs/model.md, "Image generation"): the components that
// model_index.json names and that their config.json files describe, their exact parameter counts,
// and the FLOPs of each stage of generating one image. Counts follow diffusers' and transformers'
// module code layer by layer; FLOPs are 2 per multiply-accumulate of every linear layer and
// convolution, plus attention's two matrix products (QK^T and AV).

#include <string>
#include <vector>

namespace rightsize {

// A text encoder of the pipeline: CLIP (CLIPTextModel, CLIPTextModelWithProjection) or T5's
// encoder (T5EncoderModel). It encodes each prompt once per image.
struct TextEncoder {
  std::string component;  // model_index.json key: "text_encoder", "text_encoder_2"
  std::string class_name; // "CLIPTextModel", "CLIPTextModelWithProjection", "T5EncoderModel"
  long long layers = 0;
  long long hidden = 0;
  long long heads = 0;
  long long head_dim = 0; // T5: d_kv (heads x head_dim may differ from hidden)
  long long intermediate = 0;
  long long vocab = 0;
  long long positions = 0;        // CLIP: learned positions (max_position_embeddings)
  long long projection = 0;       // CLIPTextModelWithProjection: text_projection's width
  long long relative_buckets = 0; // T5: relative_attention_num_buckets
  bool gated = false;             // T5 v1.1: gated-gelu feed-forward (wi_0, wi_1, wo)
  long long tokens = 0; // tokens encoded per prompt: CLIP 77; T5 the pipeline's sequence length
  [[nodiscard]] double params() const;
  // One prompt of `tokens` tokens: 2 per weight of the layers per token, plus attention.
  [[nodiscard]] double flops() const;
};

// One resolution level of a UNet2DConditionModel: its block's channels, and for a cross-attention
// block the Transformer2DModel depth after each resnet (0: a plain DownBlock2D/UpBlock2D).
struct UNetLevel {
  long long channels = 0;
  long long down_transformer_layers = 0;
  long long up_transformer_layers = 0;
  long long heads = 0; // attention heads of its transformer blocks
};

// UNet2DConditionModel (SD 1.x/2.x, SDXL): conv_in, the time (and SDXL's text_time) embedding,
// down blocks of resnets (with cross-attention transformers where the level has them), a mid
// block, up blocks with one more resnet each over the skip connections, conv_out.
struct UNet {
  long long in_channels = 4;
  long long out_channels = 4;
  long long layers_per_block = 2;
  long long cross_attention_dim = 768;
  long long addition_input = 0; // SDXL text_time: projection_class_embeddings_input_dim
  long long norm_groups = 32;
  std::vector<UNetLevel> levels;
  long long mid_transformer_layers = 1;
  [[nodiscard]] long long time_embed_dim() const { return 4 * levels.front().channels; }
  [[nodiscard]] double params() const;
  // One image at a latent of side_h x side_w (pixels / 8), text context of `text_tokens`.
  [[nodiscard]] double step_flops(long long side_h, long long side_w, long long text_tokens) const;
  // Elements alive at the peak of one image's forward pass: the skip connections the up path
  // reads, and the widest level's working set.
  [[nodiscard]] double activation_elements(long long side_h, long long side_w) const;
};

// A multimodal diffusion transformer: FluxTransformer2DModel (FLUX.1) or SD3Transformer2DModel
// (SD3): `layers` double-stream blocks (image and text tokens with their own weights, one joint
// attention), and FLUX's `single_layers` single-stream blocks over the joint sequence; the latent
// is cut into 2 x 2 patches, one token each (FluxPipeline packs them; SD3 patchifies with a
// convolution, the same weights as a linear layer over the packed patch).
struct MMDiT {
  long long layers = 19;
  long long single_layers = 38;
  long long heads = 24;
  long long head_dim = 128;
  long long in_channels = 64; // a packed patch: 16 latent channels x 2 x 2
  long long joint_attention_dim = 4096;
  long long pooled_projection_dim = 768;
  long long patch = 2;         // the pipeline's packing (FluxPipeline._pack_latents)
  bool guidance_embeds = true; // FLUX.1-dev: distilled guidance as an embedding
  bool qk_norm = true;         // RMSNorm weights on q and k (FLUX; SD3-medium has none)
  // SD3: the last block's text stream ends at its attention (no output projection, no
  // feed-forward, a D -> 2D modulation).
  bool context_pre_only = false;
  [[nodiscard]] long long dim() const { return heads * head_dim; }
  [[nodiscard]] double params() const;
  [[nodiscard]] double step_flops(long long tokens, long long text_tokens) const;
  [[nodiscard]] double activation_elements(long long tokens, long long text_tokens) const;
};

// AutoencoderKL: the encoder (not run by text-to-image) and the decoder that turns the final
// latent into pixels, each of resnets over `channels` levels with a mid block's attention.
struct Autoencoder {
  std::vector<long long> channels{128, 256, 512, 512};
  long long layers_per_block = 2;
  long long latent_channels = 4;
  long long in_channels = 3;
  long long out_channels = 3;
  bool quant_conv = true;      // 1 x 1 convolutions around the latent (SD, SDXL; not FLUX, SD3)
  bool post_quant_conv = true; //
  [[nodiscard]] long long scale() const; // pixels per latent position per side: 8
  [[nodiscard]] double encoder_params() const;
  [[nodiscard]] double decoder_params() const;
  [[nodiscard]] double params() const;
  // Decoding one image of height x width pixels.
  [[nodiscard]] double decode_flops(long long height, long long width) const;
  [[nodiscard]] double decode_activation_elements(long long height, long long width) const;
};

// The pipeline: model_index.json's class and components, and how generation runs them.
struct DiffusionPipeline {
  std::string pipeline;           // _class_name: "StableDiffusionXLPipeline", "FluxPipeline"
  std::string denoiser_component; // "unet" or "transformer"
  std::string denoiser_class;     // "UNet2DConditionModel", "FluxTransformer2DModel"
  std::vector<TextEncoder> text_encoders;
  std::vector<UNet> unet;   // one, for a UNet pipeline
  std::vector<MMDiT> mmdit; // one, for a FLUX or SD3 pipeline
  Autoencoder vae;
  // Classifier-free guidance: the denoiser runs on the prompt and the negative prompt each step,
  // as one batch of two (StableDiffusionXLPipeline with guidance_scale > 1). FLUX.1-dev feeds its
  // distilled guidance as an embedding instead, FLUX.1-schnell uses none: one pass per step.
  bool classifier_free_guidance = false;
  long long default_size = 1024; // pixels per side the model was trained at
  long long default_steps = 30;  // the model card's step count

  [[nodiscard]] double denoiser_params() const;
  [[nodiscard]] double text_encoder_params() const;
  // Latent side in positions for `pixels` (pixels / 8), and the denoiser's tokens per image:
  // FLUX's 2 x 2 patches of the latent, a UNet's latent positions.
  [[nodiscard]] long long latent_side(long long pixels) const;
  [[nodiscard]] long long latent_tokens(long long height, long long width) const;
  // The text tokens the denoiser attends over (FLUX: the T5 sequence; a UNet: CLIP's 77).
  [[nodiscard]] long long context_tokens() const;
  // Denoiser passes per step for one image: 2 with classifier-free guidance, else 1.
  [[nodiscard]] double passes_per_step() const { return classifier_free_guidance ? 2.0 : 1.0; }
  // One denoiser forward of one image (one guidance branch) at height x width pixels.
  [[nodiscard]] double step_flops(long long height, long long width) const;
  // The text encoders over one prompt.
  [[nodiscard]] double text_flops() const;
  // Everything one image costs: text encoding, steps x passes_per_step denoiser passes, the VAE
  // decode.
  [[nodiscard]] double image_flops(long long height, long long width, long long steps) const;
  // Activation elements at the peak of one image: the larger of the denoiser's forward (both
  // guidance branches) and the VAE decode, which run one after the other.
  [[nodiscard]] double activation_elements(long long height, long long width) const;
};

} // namespace rightsize
