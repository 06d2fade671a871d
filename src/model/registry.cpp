// The families rightsize reads, one row each: model_type -> what `rightsize model --list` says of
// it, the context its configuration class assumes when config.json omits max_position_embeddings
// (the default argument of the class's __init__ in
// transformers/models/<family>/configuration_<family>.py, which transformers and vLLM, through the
// same config object, then use), and its reader in families/. A new family is a reader file there
// and a row here, beside the reader's declaration.

#include "registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace rightsize::hf {

// The readers, one per family or family group (families/<file>.cpp).
void read_bamba(const ConfigInput& in, ModelArch& m);
void read_bert(const ConfigInput& in, ModelArch& m);
void read_clip(const ConfigInput& in, ModelArch& m);
void read_clip_vision_model(const ConfigInput& in, ModelArch& m);
void read_deepseek_v2(const ConfigInput& in, ModelArch& m);
void read_deepseek_v3(const ConfigInput& in, ModelArch& m);
void read_distilbert(const ConfigInput& in, ModelArch& m);
void read_falcon(const ConfigInput& in, ModelArch& m);
void read_falcon_h1(const ConfigInput& in, ModelArch& m);
void read_gemma(const ConfigInput& in, ModelArch& m);
void read_gemma2(const ConfigInput& in, ModelArch& m);
void read_gemma3(const ConfigInput& in, ModelArch& m);
void read_gemma3_text(const ConfigInput& in, ModelArch& m);
void read_gpt2(const ConfigInput& in, ModelArch& m);
void read_gpt_bigcode(const ConfigInput& in, ModelArch& m);
void read_gpt_neox(const ConfigInput& in, ModelArch& m);
void read_gpt_oss(const ConfigInput& in, ModelArch& m);
void read_gptj(const ConfigInput& in, ModelArch& m);
void read_granite_hybrid(const ConfigInput& in, ModelArch& m);
void read_jamba(const ConfigInput& in, ModelArch& m);
void read_llama(const ConfigInput& in, ModelArch& m);
void read_llava(const ConfigInput& in, ModelArch& m);
void read_llava_next(const ConfigInput& in, ModelArch& m);
void read_mamba(const ConfigInput& in, ModelArch& m);
void read_mamba2(const ConfigInput& in, ModelArch& m);
void read_modernbert(const ConfigInput& in, ModelArch& m);
void read_mt5(const ConfigInput& in, ModelArch& m);
void read_nemotron_h(const ConfigInput& in, ModelArch& m);
void read_qwen2(const ConfigInput& in, ModelArch& m);
void read_qwen2_moe(const ConfigInput& in, ModelArch& m);
void read_qwen3(const ConfigInput& in, ModelArch& m);
void read_qwen3_moe(const ConfigInput& in, ModelArch& m);
void read_qwen3_next(const ConfigInput& in, ModelArch& m);
void read_qwen_vl(const ConfigInput& in, ModelArch& m);
void read_resnet(const ConfigInput& in, ModelArch& m);
void read_roberta(const ConfigInput& in, ModelArch& m);
void read_siglip(const ConfigInput& in, ModelArch& m);
void read_siglip_vision_model(const ConfigInput& in, ModelArch& m);
void read_t5(const ConfigInput& in, ModelArch& m);
void read_umt5(const ConfigInput& in, ModelArch& m);
void read_vit(const ConfigInput& in, ModelArch& m);
void read_whisper(const ConfigInput& in, ModelArch& m);

namespace {

// The config_class of the diffusers pipelines, read from their folders.
constexpr std::string_view k_diffusers_index = "model_index.json";

// The rows, constant-initialized: no reader runs before they exist.
constexpr Family k_families[] = {
    {"llama",
     "Llama 2, 3, 3.1, 3.2, 3.3 (and Llama-shaped models that declare it)",
     2048,
     "LlamaConfig",
     read_llama}, // max_position_embeddings=2048 (LLaMA 1)
    {"mistral",
     "Mistral 7B, Mistral Nemo, Mistral Small (text)",
     131072,
     "MistralConfig",
     read_llama},                                                            // 4096 * 32
    {"mixtral", "Mixtral 8x7B, 8x22B", 131072, "MixtralConfig", read_llama}, // 4096 * 32
    {"qwen2", "Qwen2, Qwen2.5, QwQ", 32768, "Qwen2Config", read_qwen2},
    {"qwen2_moe", "Qwen1.5-MoE, Qwen2-57B-A14B", 32768, "Qwen2MoeConfig", read_qwen2_moe},
    {"qwen3", "Qwen3 dense", 32768, "Qwen3Config", read_qwen3},
    {"qwen3_moe", "Qwen3 MoE (30B-A3B, 235B-A22B)", 32768, "Qwen3MoeConfig", read_qwen3_moe},
    {"gemma", "Gemma", 8192, "GemmaConfig", read_gemma},
    {"gemma2", "Gemma 2", 8192, "Gemma2Config", read_gemma2},
    {"gemma3",
     "Gemma 3 4B-27B (SigLIP vision tower counted; images per request)",
     131072,
     "Gemma3TextConfig",
     read_gemma3}, // 131_072; gemma-3-4b/12b/27b cards: 128K
    {"gemma3_text", "Gemma 3 text-only (1B)", 131072, "Gemma3TextConfig", read_gemma3_text},
    {"phi3", "Phi-3, Phi-3.5, Phi-4 (text)", 4096, "Phi3Config", read_llama},
    {"gpt2", "GPT-2", 1024, "GPT2Config", read_gpt2}, // n_positions=1024
    {"gptj", "GPT-J", 2048, "GPTJConfig", read_gptj}, // n_positions=2048
    {"gpt_neox", "GPT-NeoX, Pythia", 2048, "GPTNeoXConfig", read_gpt_neox},
    {"falcon",
     "Falcon 7B, 40B, 180B",
     2048,
     "FalconConfig",
     read_falcon}, // falcon-7b card: 2048 tokens
    {"gpt_bigcode",
     "StarCoder, SantaCoder",
     1024,
     "GPTBigCodeConfig",
     read_gpt_bigcode}, // n_positions=1024
    {"deepseek_v2", "DeepSeek-V2, V2-Lite (MLA)", 2048, "DeepseekV2Config", read_deepseek_v2},
    {"deepseek_v3", "DeepSeek-V3, R1 (MLA)", 4096, "DeepseekV3Config", read_deepseek_v3},
    {"gpt_oss", "gpt-oss 20B, 120B", 131072, "GptOssConfig", read_gpt_oss},
    {"qwen2_vl",
     "Qwen2-VL (vision tower counted; images per request)",
     32768,
     "Qwen2VLConfig",
     read_qwen_vl},
    {"llava",
     "Llava 1.5 (CLIP vision tower counted; Llama under text_config)",
     2048,
     "LlamaConfig",
     read_llava},
    {"llava_next",
     "Llava-NeXT / 1.6 (CLIP tower counted; anyres image tokens; Llama or Mistral text)",
     2048,
     "LlamaConfig",
     read_llava_next},
    {"qwen2_5_vl",
     "Qwen2.5-VL (vision tower counted; images per request)",
     32768,
     "Qwen2_5_VLConfig",
     read_qwen_vl},
    {"mamba", "Mamba (state-space; no context limit)", 0, "MambaConfig", read_mamba},
    {"mamba2",
     "Mamba-2, Mamba-Codestral (state-space; no context limit)",
     0,
     "Mamba2Config",
     read_mamba2},
    {"jamba",
     "Jamba, Jamba 1.5 Mini and Large (attention + Mamba + MoE)",
     262144,
     "JambaConfig",
     read_jamba},
    {"nemotron_h",
     "Nemotron-H 4B-56B (Mamba-2 + attention + MLP layers)",
     4096,
     "NemotronHConfig",
     read_nemotron_h},
    {"granitemoehybrid",
     "Granite 4.0 H (Mamba-2 + attention layers, MoE and shared MLP)",
     2048,
     "GraniteMoeHybridConfig",
     read_granite_hybrid},
    {"bamba",
     "Bamba 9B (Mamba-2 + attention layers, gated MLP)",
     262144,
     "BambaConfig",
     read_bamba},
    {"falcon_h1",
     "Falcon-H1 0.5B-34B (attention and Mamba-2 side by side in every layer, gated MLP)",
     8192,
     "FalconH1Config",
     read_falcon_h1},
    {"qwen3_next",
     "Qwen3-Next 80B-A3B (Gated DeltaNet linear attention + gated attention layers, MoE)",
     32768,
     "Qwen3NextConfig",
     read_qwen3_next},
    {"bert", "BERT, MiniLM, English BGE and E5 (encoder-only)", 512, "BertConfig", read_bert},
    {"roberta", "RoBERTa (encoder-only)", 512, "RobertaConfig", read_roberta},
    {"xlm-roberta",
     "XLM-R, BGE-M3, multilingual-E5 (encoder-only)",
     512,
     "XLMRobertaConfig",
     read_roberta},
    {"camembert", "CamemBERT (encoder-only)", 512, "CamembertConfig", read_roberta},
    {"distilbert", "DistilBERT (encoder-only)", 512, "DistilBertConfig", read_distilbert},
    {"modernbert", "ModernBERT (encoder-only)", 8192, "ModernBertConfig", read_modernbert},
    {"t5", "T5, T5 v1.1, Flan-T5 (encoder-decoder; relative positions)", 0, "T5Config", read_t5},
    {"mt5", "mT5 (encoder-decoder; relative positions)", 0, "MT5Config", read_mt5},
    {"umt5", "UMT5 (encoder-decoder; relative positions)", 0, "UMT5Config", read_umt5},
    {"whisper",
     "Whisper (speech encoder-decoder: 30 s of audio in, 448 tokens out)",
     448,
     "WhisperConfig",
     read_whisper}, // max_target_positions=448
    {"vit", "ViT (image encoder: ViTModel, ViTForImageClassification)", 0, "ViTConfig", read_vit},
    {"clip", "CLIP (dual encoder: CLIPModel; images and text)", 0, "CLIPConfig", read_clip},
    {"clip_vision_model",
     "CLIP's vision tower (CLIPVisionModel, CLIPVisionModelWithProjection)",
     0,
     "CLIPVisionConfig",
     read_clip_vision_model},
    {"siglip",
     "SigLIP (dual encoder: SiglipModel; images and text)",
     0,
     "SiglipConfig",
     read_siglip},
    {"siglip_vision_model",
     "SigLIP's vision tower (SiglipVisionModel)",
     0,
     "SiglipVisionConfig",
     read_siglip_vision_model},
    {"resnet",
     "ResNet-18 to -152 (CNN image encoder: ResNetModel, ResNetForImageClassification)",
     0,
     "ResNetConfig",
     read_resnet},
    // diffusers pipelines: a folder with model_index.json (_class_name) and the components'.
    {"StableDiffusionXLPipeline",
     "SDXL base 1.0 (diffusers: UNet, CLIP-L and OpenCLIP bigG, VAE; image generation)",
     0,
     k_diffusers_index,
     nullptr,
     read_diffusers_pipeline},
    {"FluxPipeline",
     "FLUX.1-dev, FLUX.1-schnell (diffusers: MMDiT transformer, CLIP-L and T5-XXL, VAE; "
     "image generation)",
     0,
     k_diffusers_index,
     nullptr,
     read_diffusers_pipeline},
    {"StableDiffusion3Pipeline",
     "SD3-medium (diffusers: MMDiT transformer, CLIP-L, OpenCLIP bigG and T5-XXL, VAE; image "
     "generation)",
     0,
     k_diffusers_index,
     nullptr,
     read_diffusers_pipeline},
};

} // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> rows(std::begin(k_families), std::end(k_families));
  return rows;
}

const Family* find_family(std::string_view model_type) {
  const auto& rows = families();
  const auto it = std::find_if(
      rows.begin(), rows.end(), [&](const Family& f) { return f.model_type == model_type; });
  return it == rows.end() ? nullptr : &*it;
}

const std::vector<std::string>& config_family_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : families()) {
      if (f.read != nullptr) {
        out.emplace_back(f.model_type);
      }
    }
    return out;
  }();
  return names;
}

void assume_family_context(ConfigFields& f, ModelArch& m) {
  const Family* family = find_family(m.family);
  if (family == nullptr || family->default_context <= 0) {
    return;
  }
  m.max_position = family->default_context;
  f.record("max_position",
           fmt::format("assumed: {}'s default in transformers (config.json omits "
                       "max_position_embeddings)",
                       family->config_class));
}

} // namespace rightsize::hf

namespace rightsize {

const std::vector<SupportedFamily>& supported_families() {
  static const std::vector<SupportedFamily> listed = [] {
    std::vector<SupportedFamily> out;
    for (const auto& f : hf::families()) {
      out.push_back({f.model_type, f.models, f.default_context, f.config_class});
    }
    return out;
  }();
  return listed;
}

} // namespace rightsize
