// Reading a Hugging Face config.json into ModelArch: which family it is (its model_type, or its
// architectures), the refusal of any other, and what every family shares (the name, the dtype,
// the quantization). Each family's own fields are read by its reader in families/, which the
// registry (registry.cpp) names; docs/model.md.

#include "registry.hpp"

#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <optional>

namespace rightsize {

using detail::FieldReader;
using hf::config_family_names;

namespace {

// Families rightsize recognises but does not model, by what they are, so that the refusal says
// why. Sources: the model_type of each family's configuration class in transformers (and
// diffusers for pipelines, which carry _class_name instead).
struct UnsupportedKind {
  const char* what;
  std::initializer_list<const char*> model_types;
};

const std::array<UnsupportedKind, 6>& unsupported_kinds() {
  static const std::array<UnsupportedKind, 6> kinds{{
      {"a hybrid or state-space model: the recurrent state of its Mamba or linear-attention "
       "layers is not modelled",
       {"falcon_mamba", "zamba", "zamba2", "recurrent_gemma", "rwkv", "lfm2", "minimax", "plamo2"}},
      {"a vision-language model: its vision tower and image tokens are not modelled",
       {"llava_next_video", "llava_onevision", "qwen3_vl",    "qwen3_vl_moe", "mllama",
        "idefics2",         "idefics3",        "paligemma",   "mistral3",     "pixtral",
        "internvl",         "internvl_chat",   "smolvlm",     "phi3_v",       "phi4_multimodal",
        "kimi_vl",          "deepseek_vl_v2",  "molmo",       "aria",         "llama4",
        "gemma3n",          "blip-2",          "instructblip"}},
      {"an encoder-only model of a family rightsize does not read (it reads bert, roberta, "
       "xlm-roberta, camembert, distilbert and modernbert)",
       {"xlm-roberta-xl",
        "deberta",
        "deberta-v2",
        "electra",
        "albert",
        "nomic_bert",
        "mpnet",
        "new"}},
      {"an encoder-decoder model of a family rightsize does not read (it reads t5, mt5, umt5 "
       "and whisper)",
       {"longt5", "switch_transformers", "bart", "mbart", "pegasus", "marian"}},
      {"a speech model of a family rightsize does not read (it reads whisper)",
       {"wav2vec2", "hubert", "seamless_m4t", "seamless_m4t_v2", "speecht5", "encodec"}},
      {"a vision model of a family rightsize does not read (it reads the vit, clip and siglip "
       "image encoders and the resnet CNN)",
       {"dinov2",
        "convnext",
        "convnextv2",
        "efficientnet",
        "regnet",
        "mobilenet_v1",
        "mobilenet_v2",
        "swin",
        "beit",
        "deit"}},
  }};
  return kinds;
}

std::string normalize_family(std::string name) {
  std::string out;
  for (const char c : name) {
    if (c != '_' && c != '-') {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// "LlamaForCausalLM" -> "Llama", "BertForMaskedLM" -> "Bert".
std::string architecture_stem(const std::string& architecture) {
  std::string stem = architecture;
  for (const char* suffix : {"ForCausalLM",
                             "LMHeadModel",
                             "ForConditionalGeneration",
                             "ForMaskedLM",
                             "ForSequenceClassification",
                             "ForImageClassification",
                             "Model"}) {
    const std::string s(suffix);
    if (stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0) {
      stem.resize(stem.size() - s.size());
      break;
    }
  }
  return stem;
}

std::string family_from_architecture(const std::string& architecture) {
  const std::string key = normalize_family(architecture_stem(architecture));
  if (key == "rw" || key == "refinedweb" || key == "refinedwebmodel") {
    return "falcon";
  }
  for (const auto& f : config_family_names()) {
    if (normalize_family(f) == key) {
      return f;
    }
  }
  return {};
}

DType read_torch_dtype(const FieldReader& r, ModelArch& m) {
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (r.has(key) && r.member(key).json().is_string()) {
      const auto name = r.string(key);
      if (auto d = parse_dtype(name)) {
        m.provenance.emplace_back("dtype", r.where(key));
        return *d;
      }
      r.member(key).fail("unknown dtype" + did_you_mean(name, dtype_names()));
    }
  }
  // transformers loads a checkpoint without torch_dtype in fp32; quantized checkpoints keep their
  // unquantized layers in bf16.
  if (r.has("quantization_config")) {
    m.provenance.emplace_back("dtype", "derived: bf16 beside quantization_config");
    return DType::bf16;
  }
  m.warnings.emplace_back("config has no torch_dtype; assuming fp32 (the transformers default)");
  return DType::fp32;
}

// What an unsupported family is, when rightsize recognises it ("" when it does not).
std::string unsupported_kind(const std::string& family) {
  const std::string key = normalize_family(family);
  for (const auto& kind : unsupported_kinds()) {
    for (const char* type : kind.model_types) {
      if (normalize_family(type) == key) {
        return kind.what;
      }
    }
  }
  return {};
}

// The refusal of a config rightsize cannot model: one line naming the model_type and the
// architectures, what the model is when known, and where the supported families are listed.
[[noreturn]] void refuse_architecture(const FieldReader& top,
                                      const char* field,
                                      const std::string& family,
                                      const std::string& kind) {
  std::string architectures = "no architectures given";
  if (top.has("architectures") && top.member("architectures").json().is_array()) {
    std::vector<std::string> names;
    for (const auto& a : top.member("architectures").json()) {
      if (a.is_string()) {
        names.push_back(a.get<std::string>());
      }
    }
    if (!names.empty()) {
      architectures = FieldReader::join(names);
    }
  } else if (top.has("_diffusers_version")) {
    architectures = "diffusers";
  }
  const std::string why =
      kind.empty() ? fmt::format("not a family rightsize reads{}; describe another decoder-only "
                                 "transformer with the spec's generic model fields (docs/spec.md)",
                                 did_you_mean(family, config_family_names()))
                   : kind;
  top.member(field).fail_plain(
      fmt::format("architecture not supported: {} ({}): {}; supported: rightsize model --list",
                  family,
                  architectures,
                  why));
}

// The family names the transformers configuration class whose fields and defaults apply. A
// config of any other family is refused: read as a Llama it would be planned with wrong
// parameters, KV cache and FLOPs (issue 16: Jamba came out at 91.8B parameters instead of 52B).
const hf::Family& read_family(const FieldReader& top, ModelArch& m) {
  const char* field = "model_type";
  if (top.has("model_type")) {
    m.family = top.string("model_type");
  } else if (top.has("architectures")) {
    field = "architectures";
    const auto archs = top.string_array("architectures");
    if (!archs.empty()) {
      m.family = family_from_architecture(archs.front());
      if (m.family.empty()) {
        m.family = architecture_stem(archs.front());
      }
    }
  } else if (top.has("_class_name")) {
    // diffusers: model_index.json names the pipeline, each component's config.json its class.
    field = "_class_name";
    m.family = top.string("_class_name");
    refuse_architecture(top,
                        field,
                        m.family,
                        "a diffusers pipeline or component config: plan the pipeline's folder "
                        "(model_index.json and its component folders) as image_generation");
  }
  if (m.family.empty()) {
    top.fail_plain("not a Hugging Face model config: neither model_type nor architectures is set");
  }
  if (m.family == "RefinedWeb" || m.family == "RefinedWebModel") {
    m.family = "falcon";
  }
  const hf::Family* family = hf::find_family(m.family);
  if (family == nullptr || family->read == nullptr) {
    refuse_architecture(top, field, m.family, unsupported_kind(m.family));
  }
  return *family;
}

std::string read_name_or_path(const FieldReader& top) {
  if (top.has("_name_or_path") && top.member("_name_or_path").json().is_string()) {
    return top.string("_name_or_path");
  }
  return {};
}

// Multimodal wrappers (gemma3, llava, mistral3) keep the language model under text_config.
std::optional<FieldReader> find_text_config(const FieldReader& top) {
  if (top.has("text_config") && !top.has("hidden_size") && !top.has("n_embd")) {
    return top.object("text_config");
  }
  return std::nullopt;
}

// Without _name_or_path, the directory a config.json sits in usually names the model.
std::string
default_name(const std::string& file, const std::string& pointer, const std::string& family) {
  const std::filesystem::path p(file);
  const auto dir = p.parent_path().filename().string();
  return (p.filename() == "config.json" && !dir.empty() && pointer.empty()) ? dir : family;
}

Quantization read_quantization(const FieldReader& top,
                               const std::string& file,
                               const std::string& pointer,
                               DType torch_dtype) {
  if (top.has("quantization_config")) {
    return parse_quantization_config(top.object("quantization_config").json(),
                                     file,
                                     pointer + "/quantization_config",
                                     torch_dtype);
  }
  return quantization_for(torch_dtype, torch_dtype);
}

} // namespace

ModelArch
parse_hf_config(const nlohmann::json& config, const std::string& file, const std::string& pointer) {
  FieldReader top(config, file, pointer);
  if (!config.is_object()) {
    top.fail("a Hugging Face config must be a JSON object");
  }
  ModelArch m;
  const hf::Family& family = read_family(top, m);
  m.name = read_name_or_path(top);
  m.torch_dtype = read_torch_dtype(top, m);
  const std::optional<FieldReader> text = find_text_config(top);
  family.read(hf::ConfigInput{top, text ? *text : top}, m);
  if (m.name.empty()) {
    m.name = default_name(file, pointer, m.family);
  }
  count_parameters(m);
  m.quantization = read_quantization(top, file, pointer, m.torch_dtype);
  return m;
}

} // namespace rightsize
