#pragma once

// Inside the model stage: what the readers of ViT-like towers share (the vision towers of
// Gemma 3 and Llava, the ViT, CLIP and SigLIP image encoders) and what image classifiers share
// (ViT's and ResNet's). Not a public header.

#include "../config_fields.hpp"

#include <string>
#include <vector>

namespace rightsize::hf {

// The defaults of a ViT configuration class (ViTConfig, CLIPVisionConfig, SiglipVisionConfig in
// transformers), which complete a standalone image encoder's config.json as transformers does.
struct VitDefaults {
  const char* config_class;
  long long hidden;
  long long intermediate;
  long long layers;
  long long heads;
  long long patch;
  long long image_size;
};

// A fixed-resolution ViT's dimensions (SigLIP, CLIP, ViT). Without `defaults` (a VLM's tower),
// every one must be stated: the configuration classes' defaults are those of small base models,
// not of the towers VLMs ship. With them (a standalone image encoder), a missing field takes its
// class's default and `f` records it as assumed.
VisionTower read_fixed_vit(const FieldReader& v,
                           const char* kind,
                           const VitDefaults* defaults = nullptr,
                           ConfigFields* f = nullptr);

// One pre-norm ViT block of width h and MLP width i: biased q, k, v and o, a biased two-layer MLP,
// two LayerNorms (weight and bias). SigLIP, CLIP and Qwen2-VL's blocks.
double vit_block_params(double h, double i);

// The embeddings of a fixed-resolution tower of `kind`: SigLIP's patch convolution has a bias and
// no class token follows; CLIP's has no bias and a class token; ViT's has both.
ImageEncoder vit_embeddings(const VisionTower& t, const std::string& kind);

// The config's first architecture, or `automodel`, the class AutoModel builds for its
// model_type.
std::string image_architecture(const FieldReader& top, const char* automodel);

// Refuses an architecture other than the classes of `family` that rightsize counts, naming them.
void check_image_architecture(const FieldReader& top,
                              const std::string& family,
                              const std::string& arch,
                              const std::vector<std::string>& read);

// Labels of an image classifier: id2label's entries (what transformers saves), else num_labels,
// else PretrainedConfig's default of 2.
long long read_num_labels(const FieldReader& top, ConfigFields& f);

} // namespace rightsize::hf
