// The pieces of ViT-like towers and image classifiers, as transformers builds them.

#include "vision.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::hf {

VisionTower read_fixed_vit(const FieldReader& v,
                           const char* kind,
                           const VitDefaults* defaults,
                           ConfigFields* f) {
  const auto get = [&](const char* name, long long fallback, const char* label) {
    if (v.has(name)) {
      if (f != nullptr) {
        f->record(label, v.where(name));
      }
      return v.integer(name, Range::positive(k_max_width));
    }
    if (defaults == nullptr) {
      v.member(name).fail_plain("required field is missing");
    }
    if (f != nullptr) {
      f->record(label,
                fmt::format("assumed: {}'s default {} = {} (config.json omits it)",
                            defaults->config_class,
                            name,
                            fallback));
    }
    return fallback;
  };
  const VitDefaults none{};
  const VitDefaults& d = defaults != nullptr ? *defaults : none;
  VisionTower t;
  t.kind = kind;
  t.hidden = get("hidden_size", d.hidden, "hidden");
  t.intermediate = get("intermediate_size", d.intermediate, "intermediate");
  t.layers = get("num_hidden_layers", d.layers, "layers");
  if (defaults != nullptr || v.has("num_attention_heads")) {
    t.heads = get("num_attention_heads", d.heads, "heads");
  }
  t.patch = get("patch_size", d.patch, "patch_size");
  t.image_size = get("image_size", d.image_size, "image_size");
  // A standalone encoder's convolution drops the pixels past the last whole patch, as
  // transformers' num_patches = (image_size // patch_size)^2 does (SigLIP so400m: 384 px of
  // 14-pixel patches, 27 per side).
  if (defaults == nullptr && t.image_size % t.patch != 0) {
    v.member("image_size").fail(fmt::format("must be a multiple of patch_size ({})", t.patch));
  }
  if (t.image_size < t.patch) {
    v.member("image_size").fail(fmt::format("must be at least patch_size ({})", t.patch));
  }
  if (t.heads > 0 && t.hidden % t.heads != 0) {
    v.member("num_attention_heads").fail(fmt::format("must divide hidden_size ({})", t.hidden));
  }
  return t;
}

double vit_block_params(double h, double i) {
  return 4.0 * (h * h + h) + (h * i + i) + (i * h + h) + 2.0 * 2.0 * h;
}

ImageEncoder vit_embeddings(const VisionTower& t, const std::string& kind) {
  ImageEncoder e;
  e.kind = kind;
  e.image_size = t.image_size;
  e.patch = t.patch;
  e.class_token = kind != "siglip";
  e.patch_bias = kind != "clip";
  e.pre_norm = kind == "clip";
  return e;
}

std::string image_architecture(const FieldReader& top, const char* automodel) {
  if (top.has("architectures") && top.member("architectures").json().is_array()) {
    const auto archs = top.string_array("architectures");
    if (!archs.empty()) {
      return archs.front();
    }
  }
  return automodel;
}

void check_image_architecture(const FieldReader& top,
                              const std::string& family,
                              const std::string& arch,
                              const std::vector<std::string>& read) {
  if (std::find(read.begin(), read.end(), arch) == read.end()) {
    top.member("architectures")
        .fail_plain(fmt::format("architecture not supported: {} ({}): rightsize reads {} as {}; "
                                "supported: rightsize model --list",
                                family,
                                arch,
                                family,
                                FieldReader::join(read)));
  }
}

long long read_num_labels(const FieldReader& top, ConfigFields& f) {
  if (top.has("id2label") && top.member("id2label").json().is_object()) {
    f.record("num_labels", top.where("id2label") + " (its entries)");
    return static_cast<long long>(top.member("id2label").json().size());
  }
  if (auto n = f.find({"num_labels"}, Range::positive(k_max_vocab), "num_labels")) {
    return *n;
  }
  f.record("num_labels",
           "assumed: PretrainedConfig's default num_labels = 2 (config.json omits it)");
  return 2;
}

} // namespace rightsize::hf
