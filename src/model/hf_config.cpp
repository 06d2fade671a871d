// Reading Hugging Face config.json files into ModelArch. Field names and defaults follow the
// transformers configuration classes of each family (LlamaConfig, MixtralConfig, Qwen2Config,
// Gemma2Config, DeepseekV3Config, GptOssConfig, GPT2Config, ...); see docs/model.md.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <map>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

constexpr double k_max_layers = 10000;
constexpr double k_max_width = 1e7;
constexpr double k_max_vocab = 1e8;
constexpr double k_max_experts = 100000;
constexpr double k_max_positions = 1e9;
// The side a ResNet's images are resized and cropped to when config.json states no image_size:
// the 224 x 224 crop of microsoft/resnet-50's preprocessor_config.json (crop_pct 0.875 of a
// 256-pixel shortest edge) and of torchvision's ResNet weights.
constexpr long long k_resnet_image_size = 224;
// supported_families()' config class of the diffusers pipelines, read from their folders.
constexpr std::string_view k_diffusers_index = "model_index.json";

const std::vector<std::string>& known_families() {
  static const std::vector<std::string> families = [] {
    std::vector<std::string> out;
    for (const auto& f : supported_families()) {
      if (f.config_class != k_diffusers_index) {
        out.emplace_back(f.model_type);
      }
    }
    return out;
  }();
  return families;
}

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
  for (const auto& f : known_families()) {
    if (normalize_family(f) == key) {
      return f;
    }
  }
  return {};
}

bool family_is(const std::string& family, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return family == n; });
}

// Reads an integer field under one of several names, recording where it came from.
class ConfigFields {
public:
  ConfigFields(const FieldReader& reader, ModelArch& model) : m_r(reader), m_model(model) {}

  [[nodiscard]] const FieldReader& reader() const { return m_r; }

  std::optional<long long>
  find(std::initializer_list<const char*> names, Range range, const char* label) {
    for (const char* name : names) {
      // transformers reads None as "not set" (Jamba ships "sliding_window": null).
      if (m_r.has(name) && !m_r.member(name).json().is_null()) {
        const long long v = m_r.integer(name, range);
        record(label, m_r.where(name));
        return v;
      }
    }
    return std::nullopt;
  }

  long long require(std::initializer_list<const char*> names, Range range, const char* label) {
    if (auto v = find(names, range, label)) {
      return *v;
    }
    // Name the first, canonical spelling in the error.
    throw InputError(m_r.where(*names.begin()), "required field is missing");
  }

  bool flag(const char* name, bool fallback) const {
    return m_r.has(name) ? m_r.boolean(name) : fallback;
  }

  void derived(const char* label, const std::string& how) { record(label, "derived: " + how); }

  // The last source recorded for a field wins.
  void record(const std::string& label, const std::string& where) {
    auto& p = m_model.provenance;
    p.erase(std::remove_if(p.begin(), p.end(), [&](const auto& e) { return e.first == label; }),
            p.end());
    p.emplace_back(label, where);
  }

private:
  const FieldReader& m_r;
  ModelArch& m_model;
};

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

// The config's layer_types, one entry per layer (checked against num_hidden_layers).
std::vector<std::string> layer_types(const FieldReader& r, const ModelArch& m) {
  auto types = r.string_array("layer_types");
  if (static_cast<long long>(types.size()) != m.layers) {
    r.member("layer_types")
        .fail_plain(
            fmt::format("has {} entries but the model has {} layers", types.size(), m.layers));
  }
  return types;
}

// How many layers use sliding-window attention, from layer_types or the family's pattern.
void read_sliding_window(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  const auto window =
      f.find({"sliding_window"}, Range::positive(k_max_positions), "sliding_window");
  if (r.has("layer_types")) {
    const auto types = layer_types(r, m);
    m.local_layers = std::count(types.begin(), types.end(), "sliding_attention");
    if (m.local_layers > 0 && !window) {
      r.member("layer_types")
          .fail_plain("names sliding_attention layers but sliding_window is "
                      "missing");
    }
    m.sliding_window = m.local_layers > 0 ? *window : 0;
    return;
  }
  if (!window) {
    return;
  }
  if (family_is(
          m.family,
          {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen3", "qwen3_moe", "qwen3_next"})) {
    // Qwen ships sliding_window with use_sliding_window false: the window is then unused.
    if (!f.flag("use_sliding_window", false)) {
      return;
    }
    const auto full =
        f.find({"max_window_layers"}, Range::non_negative(k_max_layers), "max_window_layers");
    m.sliding_window = *window;
    m.local_layers = std::max(0LL, m.layers - full.value_or(0));
    return;
  }
  m.sliding_window = *window;
  if (m.family == "gemma2") {
    m.local_layers = (m.layers + 1) / 2; // even layers are local
  } else if (family_is(m.family, {"gemma3", "gemma3_text"})) {
    const auto pattern =
        f.find({"sliding_window_pattern"}, Range::positive(k_max_layers), "sliding_window_pattern")
            .value_or(6);
    m.local_layers = m.layers - m.layers / pattern; // every pattern-th layer is global
  } else {
    m.local_layers = m.layers;
  }
  f.derived("local_layers",
            fmt::format("{} of {} layers use the window", m.local_layers, m.layers));
}

void read_moe(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  const auto experts = f.find({"num_local_experts", "num_experts", "n_routed_experts"},
                              Range::non_negative(k_max_experts),
                              "experts");
  if (!experts || *experts == 0) {
    return;
  }
  m.experts = *experts;
  m.experts_active = f.require({"num_experts_per_tok", "experts_per_token", "moe_topk"},
                               Range::positive(k_max_experts),
                               "experts_active");
  if (m.experts_active > m.experts) {
    // Name the field the value came from, the first of the aliases present.
    const char* field = "moe_topk";
    for (const char* alias : {"num_experts_per_tok", "experts_per_token", "moe_topk"}) {
      if (r.has(alias)) {
        field = alias;
        break;
      }
    }
    r.member(field).fail(fmt::format("must not exceed the {} experts", m.experts));
  }
  m.moe_intermediate =
      f.find({"moe_intermediate_size"}, Range::positive(k_max_width), "moe_intermediate")
          .value_or(m.intermediate);
  m.moe_layers = m.layers;
  if (family_is(m.family, {"deepseek_v2", "deepseek_v3"})) {
    const auto first_dense = f.find({"first_k_dense_replace"},
                                    Range::non_negative(k_max_layers),
                                    "first_k_dense_replace")
                                 .value_or(0);
    const auto freq =
        f.find({"moe_layer_freq"}, Range::positive(k_max_layers), "moe_layer_freq").value_or(1);
    m.moe_layers = 0;
    for (long long i = first_dense; i < m.layers; ++i) {
      m.moe_layers += (i % freq == 0) ? 1 : 0;
    }
    m.shared_experts =
        f.find({"n_shared_experts"}, Range::non_negative(k_max_experts), "shared_experts")
            .value_or(0);
    m.shared_expert_intermediate = m.moe_intermediate;
  } else if (family_is(m.family, {"qwen2_moe", "qwen3_moe", "qwen3_next"})) {
    const auto step =
        f.find({"decoder_sparse_step"}, Range::positive(k_max_layers), "decoder_sparse_step")
            .value_or(1);
    std::vector<long long> dense_only;
    if (r.has("mlp_only_layers")) {
      for (const auto& e : r.array("mlp_only_layers")) {
        dense_only.push_back(e.as_integer(Range::non_negative(k_max_layers)));
      }
    }
    m.moe_layers = 0;
    for (long long i = 0; i < m.layers; ++i) {
      const bool dense = std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end();
      m.moe_layers += (!dense && (i + 1) % step == 0) ? 1 : 0;
    }
    if (const auto shared = f.find({"shared_expert_intermediate_size"},
                                   Range::non_negative(k_max_width),
                                   "shared_expert_intermediate");
        shared && *shared > 0) {
      m.shared_experts = 1;
      m.shared_expert_intermediate = *shared;
    }
  }
}

void read_mla(ConfigFields& f, ModelArch& m) {
  m.attention = AttentionKind::mla;
  m.kv_lora_rank = f.require({"kv_lora_rank"}, Range::positive(k_max_width), "kv_lora_rank");
  m.q_lora_rank = f.find({"q_lora_rank"}, Range::positive(k_max_width), "q_lora_rank").value_or(0);
  m.qk_rope_head_dim =
      f.require({"qk_rope_head_dim"}, Range::positive(k_max_width), "qk_rope_head_dim");
  m.qk_nope_head_dim =
      f.require({"qk_nope_head_dim"}, Range::positive(k_max_width), "qk_nope_head_dim");
  m.v_head_dim = f.require({"v_head_dim"}, Range::positive(k_max_width), "v_head_dim");
  m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  f.derived("head_dim", "qk_nope_head_dim + qk_rope_head_dim");
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
                                 did_you_mean(family, known_families()))
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
void read_family(const FieldReader& top, ModelArch& m) {
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
  if (std::find(known_families().begin(), known_families().end(), m.family) ==
      known_families().end()) {
    refuse_architecture(top, field, m.family, unsupported_kind(m.family));
  }
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

// Records an assumed context as provenance "assumed: ..." (the spec lists it among its defaults).
// Unknown families get none: their limit is unknown, not guessed.
void assume_family_context(ConfigFields& f, ModelArch& m) {
  for (const auto& d : supported_families()) {
    if (m.family == d.model_type && d.default_context > 0) {
      m.max_position = d.default_context;
      f.record("max_position",
               fmt::format("assumed: {}'s default in transformers (config.json omits "
                           "max_position_embeddings)",
                           d.config_class));
      return;
    }
  }
}

// YaRN stretches a context of original_max_position_embeddings by `factor` (Qwen2.5 cards: add
// rope_scaling {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768} for
// 131072 tokens; vLLM's _get_and_verify_max_len computes the same product). Malformed entries are
// left to transformers to reject.
void apply_yarn_context(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  if (!r.has("rope_scaling") || !r.member("rope_scaling").json().is_object()) {
    return;
  }
  const auto& rope = r.member("rope_scaling").json();
  std::string type;
  for (const char* key : {"rope_type", "type"}) {
    if (const auto it = rope.find(key); it != rope.end() && it->is_string()) {
      type = it->get<std::string>();
      break;
    }
  }
  const auto factor = rope.find("factor");
  const auto original = rope.find("original_max_position_embeddings");
  if (type != "yarn" || factor == rope.end() || !factor->is_number() || original == rope.end() ||
      !original->is_number_integer()) {
    return;
  }
  const double tokens = factor->get<double>() * original->get<double>();
  if (tokens > static_cast<double>(m.max_position) && tokens <= k_max_positions) {
    m.max_position = static_cast<long long>(tokens);
    f.derived("max_position",
              fmt::format("rope_scaling yarn: original_max_position_embeddings {} x factor {:g}",
                          original->get<long long>(),
                          factor->get<double>()));
  }
}

void read_dimensions(ConfigFields& f, ModelArch& m) {
  m.hidden =
      f.require({"hidden_size", "n_embd", "d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require(
      {"num_hidden_layers", "n_layer", "num_layers"}, Range::positive(k_max_layers), "layers");
  m.heads = f.require({"num_attention_heads", "n_head"}, Range::positive(k_max_width), "heads");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.max_position = f.find({"max_position_embeddings", "n_positions", "max_seq_len", "n_ctx"},
                          Range::positive(k_max_positions),
                          "max_position")
                       .value_or(0);
  if (m.max_position == 0) {
    assume_family_context(f, m);
  }
  apply_yarn_context(f, m);
}

// Key/value heads: explicit, or multi-query flags, or one per query head.
void read_kv_heads(ConfigFields& f, ModelArch& m, bool falcon_new) {
  const FieldReader& r = f.reader();
  if (auto kv = f.find({"num_key_value_heads"}, Range::positive(k_max_width), "kv_heads")) {
    m.kv_heads = *kv;
  } else if (m.family == "falcon") {
    if (falcon_new) {
      m.kv_heads = f.require({"num_kv_heads"}, Range::positive(k_max_width), "kv_heads");
    } else {
      m.kv_heads = f.flag("multi_query", true) ? 1 : m.heads;
      f.derived("kv_heads", "falcon multi_query");
    }
  } else if (m.family == "gpt_bigcode") {
    m.kv_heads = f.flag("multi_query", true) ? 1 : m.heads;
    f.derived("kv_heads", "gpt_bigcode multi_query");
  } else {
    m.kv_heads = m.heads;
    f.derived("kv_heads", "num_key_value_heads absent: one per attention head");
  }
  if (m.heads % m.kv_heads != 0) {
    const char* key = r.has("num_key_value_heads") ? "num_key_value_heads" : "num_kv_heads";
    r.member(key).fail(fmt::format("must divide num_attention_heads ({})", m.heads));
  }
}

// Head dimension: explicit (Gemma, gpt-oss, Qwen3) or hidden / heads.
void read_head_dim(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  if (auto hd =
          f.find({"head_dim", "attention_head_dim"}, Range::positive(k_max_width), "head_dim")) {
    m.head_dim = *hd;
  } else {
    if (m.hidden % m.heads != 0 && !r.has("kv_lora_rank")) {
      r.member(r.has("num_attention_heads") ? "num_attention_heads" : "n_head")
          .fail(fmt::format("must divide hidden_size ({}) when head_dim is not given", m.hidden));
    }
    m.head_dim = m.hidden / m.heads;
    f.derived("head_dim", "hidden_size / num_attention_heads");
  }
  m.v_head_dim = m.head_dim;
}

// MLP width and shape.
void read_mlp(ConfigFields& f, ModelArch& m) {
  const bool plain_mlp_family =
      family_is(m.family, {"gpt2", "gptj", "gpt_neox", "falcon", "gpt_bigcode"});
  m.gated_mlp = !plain_mlp_family;
  if (auto inter = f.find({"intermediate_size", "n_inner", "ffn_hidden_size"},
                          Range::positive(k_max_width),
                          "intermediate")) {
    m.intermediate = *inter;
  } else if (plain_mlp_family) {
    m.intermediate = 4 * m.hidden;
    f.derived("intermediate", "4 x hidden_size (n_inner absent)");
  } else {
    throw InputError(f.reader().where("intermediate_size"), "required field is missing");
  }
}

// Embedding tying: the config's flag, else the family's default in transformers.
void read_tied_embeddings(const FieldReader& top, const ConfigFields& f, ModelArch& m) {
  const bool tie_default = family_is(
      m.family, {"gemma", "gemma2", "gemma3", "gemma3_text", "gpt2", "falcon", "gpt_bigcode"});
  m.tied_embeddings = top.has("tie_word_embeddings") ? top.boolean("tie_word_embeddings")
                                                     : f.flag("tie_word_embeddings", tie_default);
}

void read_parallel_attention(const ConfigFields& f, ModelArch& m, bool falcon_new) {
  m.parallel_attention = m.family == "gptj" ||
                         (m.family == "falcon" && f.flag("parallel_attn", true) && !falcon_new) ||
                         (m.family == "gpt_neox" && f.flag("use_parallel_residual", true));
}

// Biases and norms, per family as transformers builds them.
void read_biases_and_norms(const ConfigFields& f, ModelArch& m, bool falcon_new) {
  const bool attention_bias = f.flag("attention_bias", false);
  m.qkv_bias = attention_bias;
  m.o_bias = attention_bias;
  m.mlp_bias = f.flag("mlp_bias", false);
  if (family_is(m.family, {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"})) {
    m.qkv_bias = true;
  } else if (family_is(m.family, {"gpt2", "gpt_bigcode"})) {
    m.qkv_bias = m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
    m.learned_positions = m.max_position;
  } else if (m.family == "gpt_neox") {
    m.qkv_bias = m.o_bias = f.flag("attention_bias", true);
    m.mlp_bias = m.layer_norm_bias = true;
  } else if (m.family == "gptj") {
    m.mlp_bias = m.layer_norm_bias = m.lm_head_bias = true;
    m.norms_per_layer = 1;
  } else if (m.family == "falcon") {
    m.qkv_bias = m.o_bias = m.mlp_bias = f.flag("bias", false);
    m.layer_norm_bias = true;
    m.norms_per_layer = (m.parallel_attention && !falcon_new) ? 1 : 2;
  } else if (m.family == "gpt_oss") {
    m.qkv_bias = m.o_bias = attention_bias || !f.reader().has("attention_bias");
    m.mlp_bias = m.router_bias = m.attention_sinks = true;
  } else if (m.family == "deepseek_v3") {
    m.router_bias = true; // e_score_correction_bias
  }
  if (family_is(m.family, {"gemma2", "gemma3", "gemma3_text"})) {
    m.norms_per_layer = 4;
  }
  m.qk_norm = family_is(m.family, {"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text"});
  m.attention_gate = m.family == "qwen3_next"; // Qwen3NextAttention: q_proj is 2 x heads x head_dim
}

void read_attention_kind(ConfigFields& f, ModelArch& m) {
  if (f.reader().has("kv_lora_rank")) {
    read_mla(f, m);
  } else if (m.kv_heads == 1 && m.heads > 1) {
    m.attention = AttentionKind::mqa;
  } else if (m.kv_heads < m.heads) {
    m.attention = AttentionKind::gqa;
  } else {
    m.attention = AttentionKind::mha;
  }
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
                           ConfigFields* f = nullptr) {
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

// One pre-norm ViT block of width h and MLP width i: biased q, k, v and o, a biased two-layer MLP,
// two LayerNorms (weight and bias). SigLIP, CLIP and Qwen2-VL's blocks.
double vit_block_params(double h, double i) {
  return 4.0 * (h * h + h) + (h * i + i) + (i * h + h) + 2.0 * 2.0 * h;
}

// The embeddings of a fixed-resolution tower of `kind`: SigLIP's patch convolution has a bias and
// no class token follows; CLIP's has no bias and a class token; ViT's has both.
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

// Gemma 3's vision tower: SigLIP (SiglipVisionTransformer: patch convolution, learned positions,
// pre-norm blocks of LayerNorm, biased q/k/v/o and a GELU MLP, a final LayerNorm) and
// Gemma3MultiModalProjector (a vision x text projection and an RMSNorm), each image resized to
// image_size and pooled to mm_tokens_per_image tokens.
VisionTower read_siglip(const FieldReader& top, long long text_hidden) {
  const FieldReader v = top.object("vision_config");
  VisionTower t = read_fixed_vit(v, "siglip");
  if (v.has("vision_use_head") && v.boolean("vision_use_head")) {
    v.member("vision_use_head")
        .fail("the SigLIP pooling head is not modelled (Gemma 3 sets false)");
  }
  t.tokens_per_image = top.has("mm_tokens_per_image")
                           ? top.integer("mm_tokens_per_image", Range::positive(1e6))
                           : 256;
  const auto h = static_cast<double>(t.hidden);
  const auto i = static_cast<double>(t.intermediate);
  const double embeddings = vit_embeddings(t, "siglip").embedding_params(t.hidden);
  const double block = vit_block_params(h, i);
  const double projector = h * static_cast<double>(text_hidden) + h;
  t.params = embeddings + static_cast<double>(t.layers) * block + 2.0 * h + projector;
  return t;
}

// Llava 1.5's vision tower: CLIP (CLIPVisionTransformer: a patch convolution without bias, a class
// embedding, learned positions, a pre- and a post-LayerNorm, blocks of biased q/k/v/o and a GELU
// MLP) and LlavaMultiModalProjector (vision -> text -> text, with biases). Each image is resized
// to image_size; its patches are its tokens (the class token too when
// vision_feature_select_strategy is "full").
VisionTower read_clip(const FieldReader& top, long long text_hidden) {
  // CLIPVisionConfig's defaults are ViT-B/32's; Llava's published configs state their own.
  VisionTower t = read_fixed_vit(top.object("vision_config"), "clip");
  const long long side = t.image_size / t.patch;
  const bool with_cls = top.has("vision_feature_select_strategy") &&
                        top.string("vision_feature_select_strategy") == "full";
  t.tokens_per_image = side * side + (with_cls ? 1 : 0);
  const auto h = static_cast<double>(t.hidden);
  const auto i = static_cast<double>(t.intermediate);
  const auto text = static_cast<double>(text_hidden);
  const double embeddings = vit_embeddings(t, "clip").embedding_params(t.hidden);
  const double block = vit_block_params(h, i);
  const bool bias =
      !top.has("multimodal_projector_bias") || top.boolean("multimodal_projector_bias");
  const double projector = h * text + text * text + (bias ? 2.0 * text : 0.0);
  t.params = embeddings + 2.0 * h + static_cast<double>(t.layers) * block + 2.0 * h + projector;
  return t;
}

// LlavaNextConfig's default image_grid_pinpoints, {height, width}
// (transformers/models/llava_next/configuration_llava_next.py).
const std::vector<std::pair<long long, long long>>& llava_next_default_pinpoints() {
  static const std::vector<std::pair<long long, long long>> pinpoints{
      {336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}};
  return pinpoints;
}

// Llava-NeXT (LlavaNextModel, transformers/models/llava_next/modeling_llava_next.py): Llava 1.5's
// CLIP tower and projector, plus image_newline (one vector of the text width, appended after each
// row of an image's tiles), and "anyres" images: resized to the best of image_grid_pinpoints, cut
// into image_size tiles, the whole image one more tile (VisionTower::tokens). The unpadding of
// pack_image_features lays out 24 x 24 patches per tile, so the class token must be dropped
// (vision_feature_select_strategy "default", as every published config has it).
VisionTower read_llava_next_vision(const FieldReader& top, long long text_hidden) {
  if (top.has("vision_feature_select_strategy") &&
      top.string("vision_feature_select_strategy") != "default") {
    top.member("vision_feature_select_strategy")
        .fail("must be \"default\": Llava-NeXT lays each tile's patches out without the class "
              "token");
  }
  if (top.has("vision_feature_layer") && !top.member("vision_feature_layer").json().is_number()) {
    top.member("vision_feature_layer")
        .fail("must be one layer: a projector over several layers is not modelled");
  }
  VisionTower t = read_clip(top, text_hidden);
  // The tokens depend on the image's size; image_newline is one more vector of the text width.
  t.tokens_per_image = 0;
  t.params += static_cast<double>(text_hidden);
  if (!top.has("image_grid_pinpoints")) {
    t.grid_pinpoints = llava_next_default_pinpoints();
    return t;
  }
  const std::vector<FieldReader> list = top.array("image_grid_pinpoints");
  if (list.empty()) {
    top.member("image_grid_pinpoints").fail_plain("must list at least one [height, width] pair");
  }
  for (const FieldReader& pair : list) {
    if (!pair.json().is_array() || pair.json().size() != 2) {
      pair.fail("must be a [height, width] pair");
    }
    const std::vector<FieldReader> sides = pair.elements();
    const long long ph = sides[0].as_integer(Range::positive(k_max_width));
    const long long pw = sides[1].as_integer(Range::positive(k_max_width));
    if (ph % t.image_size != 0 || pw % t.image_size != 0) {
      pair.fail_plain(
          fmt::format("must be multiples of the vision tower's image_size ({}), got [{}, {}]",
                      t.image_size,
                      ph,
                      pw));
    }
    t.grid_pinpoints.emplace_back(ph, pw);
  }
  return t;
}

// A dual encoder's text tower (CLIPTextTransformer, SiglipTextTransformer): token and learned
// position embeddings, pre-norm blocks like the vision tower's, a final LayerNorm. Missing fields
// take the configuration class's defaults, recorded as assumed.
struct TextTowerDefaults {
  const char* config_class;
  long long vocab;
  long long hidden;
  long long intermediate;
  long long layers;
  long long positions;
};

struct TextTower {
  long long hidden = 0;
  double params = 0; // without its projection
};

TextTower read_text_tower(const FieldReader& t, const TextTowerDefaults& d, ConfigFields& f) {
  const auto get = [&](const char* name, long long fallback, const char* label) {
    if (t.has(name)) {
      f.record(label, t.where(name));
      return t.integer(name, Range::positive(k_max_vocab));
    }
    f.record(label,
             fmt::format("assumed: {}'s default {} = {} (config.json omits it)",
                         d.config_class,
                         name,
                         fallback));
    return fallback;
  };
  TextTower out;
  out.hidden = get("hidden_size", d.hidden, "text hidden");
  const auto h = static_cast<double>(out.hidden);
  const auto i = static_cast<double>(get("intermediate_size", d.intermediate, "text intermediate"));
  const auto layers = static_cast<double>(get("num_hidden_layers", d.layers, "text layers"));
  const auto vocab = static_cast<double>(get("vocab_size", d.vocab, "text vocab"));
  const auto positions =
      static_cast<double>(get("max_position_embeddings", d.positions, "text positions"));
  out.params = vocab * h + positions * h + layers * vit_block_params(h, i) + 2.0 * h;
  return out;
}

// The config's first architecture, or the class AutoModel builds for its model_type.
std::string image_architecture(const FieldReader& top, const std::string& family) {
  if (top.has("architectures") && top.member("architectures").json().is_array()) {
    const auto archs = top.string_array("architectures");
    if (!archs.empty()) {
      return archs.front();
    }
  }
  if (family == "vit") {
    return "ViTModel";
  }
  if (family == "clip_vision_model") {
    return "CLIPVisionModel";
  }
  if (family == "siglip_vision_model") {
    return "SiglipVisionModel";
  }
  if (family == "resnet") {
    return "ResNetModel";
  }
  return family == "clip" ? "CLIPModel" : "SiglipModel";
}

// The classes of each image family rightsize counts.
void check_image_architecture(const FieldReader& top,
                              const std::string& family,
                              const std::string& arch) {
  static const std::map<std::string, std::vector<std::string>> read{
      {"vit", {"ViTModel", "ViTForImageClassification"}},
      {"clip_vision_model", {"CLIPVisionModel", "CLIPVisionModelWithProjection"}},
      {"clip", {"CLIPModel"}},
      {"siglip_vision_model", {"SiglipVisionModel"}},
      {"siglip", {"SiglipModel"}},
      {"resnet", {"ResNetModel", "ResNetForImageClassification"}},
  };
  const auto& names = read.at(family);
  if (std::find(names.begin(), names.end(), arch) == names.end()) {
    top.member("architectures")
        .fail_plain(fmt::format("architecture not supported: {} ({}): rightsize reads {} as {}; "
                                "supported: rightsize model --list",
                                family,
                                arch,
                                family,
                                detail::FieldReader::join(names)));
  }
}

// Labels of an image classifier: id2label's entries (what transformers saves), else num_labels,
// else PretrainedConfig's default of 2.
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

// Standalone image encoders (docs/model.md "Vision encoders"), as transformers builds them:
// - ViT (ViTModel, ViTForImageClassification): a biased patch convolution, a class token, a
//   learned position per token, pre-norm blocks (q, k and v biased when qkv_bias, o, a GELU MLP,
//   two LayerNorms), a final LayerNorm; ViTModel's pooler (hidden -> pooler_output_size, biased),
//   or ViTForImageClassification's classifier (hidden -> labels, biased) and no pooler.
// - CLIP (CLIPVisionModel, CLIPVisionModelWithProjection, CLIPModel): a patch convolution without
//   bias, a class token, learned positions, a LayerNorm before the blocks and one after; the
//   projection to projection_dim (no bias) with a projection; CLIPModel adds the text tower, its
//   projection and logit_scale.
// - SigLIP (SiglipVisionModel, SiglipModel): a biased patch convolution, learned positions, no
//   class token, a final LayerNorm and, with vision_use_head, the attention-pooling head
//   (SiglipMultiheadAttentionPoolingHead: a probe, nn.MultiheadAttention, a LayerNorm, an MLP);
//   SiglipModel adds the text tower, its head (hidden -> projection_size, biased), logit_scale
//   and logit_bias.
// The encoder stack goes in the model's own fields, an encoder-only stack of MHA blocks.
void read_image_encoder(const FieldReader& top, ModelArch& m) {
  const bool dual = family_is(m.family, {"clip", "siglip"});
  const bool clip = family_is(m.family, {"clip", "clip_vision_model"});
  const bool siglip = family_is(m.family, {"siglip", "siglip_vision_model"});
  const std::string kind = clip ? "clip" : siglip ? "siglip" : "vit";
  const std::string arch = image_architecture(top, m.family);
  check_image_architecture(top, m.family, arch);
  static const nlohmann::json empty = nlohmann::json::object();
  const auto sub = [&](const char* key) {
    return top.has(key) ? top.object(key)
                        : FieldReader(empty, top.file(), top.pointer() + "/" + key);
  };
  const FieldReader v = dual ? sub("vision_config") : top;
  ConfigFields f(v, m);
  static const VitDefaults vit_defaults{"ViTConfig", 768, 3072, 12, 12, 16, 224};
  static const VitDefaults clip_defaults{"CLIPVisionConfig", 768, 3072, 12, 12, 32, 224};
  static const VitDefaults siglip_defaults{"SiglipVisionConfig", 768, 3072, 12, 12, 16, 224};
  const VisionTower t = read_fixed_vit(v,
                                       kind.c_str(),
                                       clip     ? &clip_defaults
                                       : siglip ? &siglip_defaults
                                                : &vit_defaults,
                                       &f);
  ImageEncoder e = vit_embeddings(t, kind);
  e.channels = f.find({"num_channels"}, Range::positive(1000), "num_channels").value_or(3);

  m.encoder_only = true;
  m.layers = t.layers;
  m.hidden = t.hidden;
  m.heads = m.kv_heads = t.heads;
  m.head_dim = m.v_head_dim = t.hidden / t.heads;
  m.intermediate = t.intermediate;
  m.attention = AttentionKind::mha;
  m.gated_mlp = false;
  m.qkv_bias = kind != "vit" || f.flag("qkv_bias", true);
  m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.max_position = e.tokens();
  f.derived("max_position",
            e.class_token
                ? "tokens per image: (image_size / patch_size)^2 patches + the class token"
                : "tokens per image: (image_size / patch_size)^2 patches");

  const auto h = static_cast<double>(m.hidden);
  const auto i = static_cast<double>(m.intermediate);
  if (arch == "ViTForImageClassification") {
    const auto labels = static_cast<double>(read_num_labels(top, f));
    e.head = h * labels + labels;
  } else if (arch == "ViTModel") {
    const auto out = static_cast<double>(
        f.find({"pooler_output_size"}, Range::positive(k_max_width), "pooler_output_size")
            .value_or(m.hidden));
    e.head = h * out + out;
  } else if (clip && arch != "CLIPVisionModel") {
    const FieldReader& holder = dual ? top : v;
    const auto projection =
        static_cast<double>(holder.has("projection_dim")
                                ? holder.integer("projection_dim", Range::positive(k_max_width))
                                : 512);
    f.record("projection_dim",
             holder.has("projection_dim")
                 ? holder.where("projection_dim")
                 : fmt::format("assumed: {}'s default projection_dim = 512 (config.json omits it)",
                               dual ? "CLIPConfig" : "CLIPVisionConfig"));
    e.head = h * projection;
    if (dual) {
      static const TextTowerDefaults text_defaults{"CLIPTextConfig", 49408, 512, 2048, 12, 77};
      const TextTower text = read_text_tower(sub("text_config"), text_defaults, f);
      e.text = text.params + static_cast<double>(text.hidden) * projection;
      e.logits = 1; // logit_scale
    }
  } else if (siglip) {
    if (f.flag("vision_use_head", true)) {
      e.head = h + (4.0 * h * h + 4.0 * h) + 2.0 * h + (h * i + i + i * h + h);
    }
    if (dual) {
      static const TextTowerDefaults text_defaults{"SiglipTextConfig", 32000, 768, 3072, 12, 64};
      const FieldReader tc = sub("text_config");
      const TextTower text = read_text_tower(tc, text_defaults, f);
      const auto projection = static_cast<double>(
          tc.has("projection_size") ? tc.integer("projection_size", Range::positive(k_max_width))
                                    : text.hidden);
      e.text = text.params + static_cast<double>(text.hidden) * projection + projection;
      e.logits = 2; // logit_scale, logit_bias
    }
  }
  m.image = e;
}

// ResNetConfig's defaults (microsoft/resnet-50's shape), which complete a config.json as
// transformers does.
constexpr long long k_resnet_embedding = 64;
constexpr long long k_resnet_depths[] = {3, 4, 6, 3};
constexpr long long k_resnet_widths[] = {256, 512, 1024, 2048};

// A list of positive integers (depths, hidden_sizes), or ResNetConfig's default.
std::vector<long long> resnet_list(const FieldReader& top,
                                   ConfigFields& f,
                                   const char* key,
                                   const long long (&fallback)[4]) {
  if (!top.has(key)) {
    f.record(key,
             fmt::format("assumed: ResNetConfig's default {} = [{}, {}, {}, {}] (config.json "
                         "omits it)",
                         key,
                         fallback[0],
                         fallback[1],
                         fallback[2],
                         fallback[3]));
    return {std::begin(fallback), std::end(fallback)};
  }
  std::vector<long long> out;
  for (const FieldReader& e : top.array(key)) {
    out.push_back(e.as_integer(Range::positive(k_max_width)));
  }
  if (out.empty()) {
    top.member(key).fail_plain("must name at least one stage");
  }
  f.record(key, top.where(key));
  return out;
}

// A ResNet unrolled at its image size: each ResNetConvLayer (a convolution of padding kernel / 2
// and a BatchNorm2d), its output side, and the activations alive at each op, the input images
// among them (the caller holds pixel_values through the forward pass).
class ResNetBuilder {
public:
  ResNetBuilder(ConvNet& net, long long channels, long long side)
      : m_net(net), m_channels(channels), m_side(side),
        m_image(static_cast<double>(channels) * square(side)) {}

  // ResNetEmbeddings: a 7x7 stride-2 convolution, its BatchNorm and activation, a 3x3 stride-2
  // max pool of padding 1.
  void stem(long long out) {
    const long long side = conv(m_channels, out, 7, 2, m_side);
    const double map = static_cast<double>(out) * square(side);
    keep(map);
    keep(2.0 * map); // BatchNorm and activation: their input and output
    m_side = pooled(side, 3, 2);
    m_channels = out;
    keep(map + static_cast<double>(out) * square(m_side));
  }

  // One residual layer (ResNetBasicLayer, ResNetBottleNeckLayer) of `out` channels whose first
  // convolution (or, with downsample_in_bottleneck, its 1x1 reduction) strides by `stride`; the
  // shortcut (a 1x1 convolution and BatchNorm) where the channels or the side change.
  void layer(bool bottleneck, long long out, long long stride, bool in_bottleneck) {
    const long long in = m_channels;
    const double input = static_cast<double>(in) * square(m_side);
    struct Step {
      long long in, out, kernel, stride;
    };
    // A fixed array, not a vector: g++ 12 warns (-Wnonnull) on a vector assigned a braced list.
    std::array<Step, 3> steps{};
    std::size_t count = 2;
    if (bottleneck) {
      const long long reduced = out / 4;
      steps = {{{in, reduced, 1, in_bottleneck ? stride : 1},
                {reduced, reduced, 3, in_bottleneck ? 1 : stride},
                {reduced, out, 1, 1}}};
      count = 3;
    } else {
      steps = {{{in, out, 3, stride}, {out, out, 3, 1}, {}}};
    }
    long long side = m_side;
    double previous = 0; // the first convolution reads the layer's input itself
    for (std::size_t k = 0; k < count; ++k) {
      const Step& s = steps[k];
      side = conv(s.in, s.out, s.kernel, s.stride, side);
      const double made = static_cast<double>(s.out) * square(side);
      keep(input + previous + made);
      keep(input + 2.0 * made);
      previous = made;
    }
    double residual = input;
    if (in != out || stride != 1) {
      const long long shortcut_side = conv(in, out, 1, stride, m_side);
      residual = static_cast<double>(out) * square(shortcut_side);
      keep(input + previous + 2.0 * residual);
    }
    keep(residual + 2.0 * previous); // the in-place add, then the activation's output
    m_channels = out;
    m_side = side;
  }

  [[nodiscard]] long long side() const { return m_side; }

private:
  static double square(long long side) {
    return static_cast<double>(side) * static_cast<double>(side);
  }
  // nn.Conv2d's and nn.MaxPool2d's output side: floor((side + 2 x padding - kernel) / stride) + 1.
  static long long pooled(long long side, long long kernel, long long stride) {
    return (side + 2 * (kernel / 2) - kernel) / stride + 1;
  }
  long long conv(long long in, long long out, long long kernel, long long stride, long long side) {
    Convolution c{kernel, in, out, stride, pooled(side, kernel, stride)};
    m_net.convolutions.push_back(c);
    m_net.batch_norms += 1;
    m_net.batch_norm_channels += static_cast<double>(out);
    return c.out_side;
  }
  void keep(double elements) {
    m_net.peak_activation_elements = std::max(m_net.peak_activation_elements, m_image + elements);
  }

  ConvNet& m_net;
  long long m_channels;
  long long m_side;
  double m_image;
};

// transformers' ResNet (ResNetModel, ResNetForImageClassification; docs/model.md "Convolutional
// encoders"): the stem, then stages of residual layers, the first layer of each but the first
// striding by 2 (the first too with downsample_in_first_stage), an average pool and, for
// classification, a Linear (hidden_sizes[-1] -> labels, biased). No transformer stack: the
// model's layers are its residual layers, for the engine's per-layer cost. Every image is
// resized to config.json's image_size when it states one, else 224 x 224 (the image processor
// of microsoft/resnet-50 resizes and crops to 224; the config does not say).
void read_resnet(const FieldReader& top, ModelArch& m) {
  const std::string arch = image_architecture(top, m.family);
  check_image_architecture(top, m.family, arch);
  ConfigFields f(top, m);
  ImageEncoder e;
  e.kind = "resnet";
  e.channels = f.find({"num_channels"}, Range::positive(1000), "num_channels").value_or(3);
  e.image_size =
      f.find({"image_size"}, Range::positive(100000), "image_size").value_or(k_resnet_image_size);
  if (!top.has("image_size")) {
    f.record("image_size",
             fmt::format("assumed: {} x {} px, the crop of the ResNet image processors "
                         "(config.json states no image_size)",
                         k_resnet_image_size,
                         k_resnet_image_size));
  }
  ConvNet net;
  net.layer_type = top.has("layer_type") ? top.string("layer_type") : "bottleneck";
  if (net.layer_type != "basic" && net.layer_type != "bottleneck") {
    top.member("layer_type").fail("must be \"basic\" or \"bottleneck\"");
  }
  f.record("layer_type",
           top.has("layer_type")
               ? top.where("layer_type")
               : "assumed: ResNetConfig's default layer_type = bottleneck (config.json omits it)");
  net.embedding = f.find({"embedding_size"}, Range::positive(k_max_width), "embedding_size")
                      .value_or(k_resnet_embedding);
  if (!top.has("embedding_size")) {
    f.record("embedding_size",
             fmt::format("assumed: ResNetConfig's default embedding_size = {} (config.json omits "
                         "it)",
                         k_resnet_embedding));
  }
  const auto depths = resnet_list(top, f, "depths", k_resnet_depths);
  const auto widths = resnet_list(top, f, "hidden_sizes", k_resnet_widths);
  if (depths.size() != widths.size()) {
    top.member("depths").fail_plain(fmt::format(
        "must name as many stages as hidden_sizes ({}), got {}", widths.size(), depths.size()));
  }
  const bool bottleneck = net.layer_type == "bottleneck";
  const bool first_downsamples = f.flag("downsample_in_first_stage", false);
  const bool in_bottleneck = f.flag("downsample_in_bottleneck", false);
  if (e.image_size < 32) {
    top.member("image_size").fail("must be at least 32 (five halvings of the side)");
  }

  ResNetBuilder build(net, e.channels, e.image_size);
  build.stem(net.embedding);
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const long long stride = s > 0 || first_downsamples ? 2 : 1;
    for (long long i = 0; i < depths[s]; ++i) {
      build.layer(bottleneck, widths[s], i == 0 ? stride : 1, in_bottleneck);
    }
    net.stages.push_back({depths[s], widths[s], stride, build.side()});
  }
  const auto last = static_cast<double>(widths.back());
  if (arch == "ResNetForImageClassification") {
    const auto labels = static_cast<double>(read_num_labels(top, f));
    e.head = last * labels + labels;
    net.classifier_flops = 2.0 * last * labels;
  }

  m.encoder_only = true;
  m.layers = 0;
  for (const long long d : depths) {
    m.layers += d;
  }
  f.derived("layers", "the residual layers of all stages (sum of depths)");
  m.hidden = widths.back();
  m.gated_mlp = false;
  m.max_position = e.tokens();
  e.cnn = std::move(net);
  m.image = std::move(e);
}

// Llava's text_config often names only what differs from its configuration class (llava-1.5-7b-hf
// gives vocab_size and max_position_embeddings of a LlamaConfig; llava-v1.6-mistral-7b-hf the
// intermediate_size, kv heads and vocabulary of a MistralConfig): the rest takes the class's
// defaults, which is what transformers builds. Llava 1.5 is read with Llama, Llava-NeXT with Llama
// or Mistral (LlavaNextConfig's default text_config is Llama's). Returns the completed config;
// `assumed` lists the keys filled in and `config_class` names the class they came from.
nlohmann::json llava_text_config(const FieldReader& top,
                                 const std::string& family,
                                 std::vector<std::string>& assumed,
                                 std::string& config_class) {
  const FieldReader t = top.object("text_config");
  const std::string text_type = t.has("model_type") ? t.string("model_type") : "llama";
  const bool next = family == "llava_next";
  if (text_type != "llama" && !(next && text_type == "mistral")) {
    t.member("model_type")
        .fail(fmt::format("architecture not supported: {} with a {} language model (rightsize "
                          "reads {}); supported: rightsize model --list",
                          family,
                          text_type,
                          next ? "llava_next with llama or mistral" : "llava with llama"));
  }
  nlohmann::json full;
  if (text_type == "mistral") {
    // MistralConfig.__init__ defaults (transformers/models/mistral/configuration_mistral.py).
    config_class = "MistralConfig";
    full = {{"hidden_size", 4096},
            {"intermediate_size", 14336},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 8},
            {"vocab_size", 32000},
            {"max_position_embeddings", 131072},
            {"sliding_window", 4096}};
  } else {
    // LlamaConfig.__init__ defaults (transformers/models/llama/configuration_llama.py).
    config_class = "LlamaConfig";
    full = {{"hidden_size", 4096},
            {"intermediate_size", 11008},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"vocab_size", 32000},
            {"max_position_embeddings", 2048}};
  }
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (!t.has(it.key())) {
      assumed.push_back(it.key());
    }
  }
  full.update(t.json());
  return full;
}

// Qwen2-VL and Qwen2.5-VL's vision transformer: a 3D patch convolution (2 frames of patch x
// patch), blocks of q/k/v/o with biases and an MLP (Qwen2-VL: LayerNorm and a GELU MLP of
// embed_dim x mlp_ratio; Qwen2.5-VL: RMSNorm and a gated MLP of intermediate_size), and a merger
// that concatenates merge x merge patches into one token (PatchMerger: a norm and two linears).
VisionTower
read_qwen_vision(const FieldReader& top, const std::string& family, long long text_hidden) {
  const FieldReader v = top.object("vision_config");
  const auto get = [&](std::initializer_list<const char*> names, long long fallback) {
    for (const char* name : names) {
      if (v.has(name)) {
        return v.integer(name, Range::positive(k_max_width));
      }
    }
    if (fallback > 0) {
      return fallback;
    }
    v.member(*names.begin()).fail_plain("required field is missing");
  };
  VisionTower t;
  t.kind = family;
  const bool v25 = family == "qwen2_5_vl";
  t.layers = get({"depth"}, 0);
  t.hidden = v25 ? get({"hidden_size"}, 0) : get({"embed_dim"}, 0);
  t.patch = get({"patch_size"}, 14);
  t.merge = get({"spatial_merge_size"}, 2);
  const long long frames = get({"temporal_patch_size"}, 2);
  const long long channels = get({"in_chans", "in_channels"}, 3);
  const long long out = v25 ? get({"out_hidden_size"}, text_hidden) : text_hidden;
  const auto h = static_cast<double>(t.hidden);
  double block = 0;
  if (v25) {
    t.intermediate = get({"intermediate_size"}, 0);
    const auto i = static_cast<double>(t.intermediate);
    block = 2.0 * h + (3.0 * h * h + 3.0 * h) + (h * h + h) + 2.0 * (h * i + i) + (i * h + h);
  } else {
    const double ratio = v.has("mlp_ratio") ? v.number("mlp_ratio", Range::positive(64)) : 4.0;
    t.intermediate = static_cast<long long>(h * ratio);
    block = vit_block_params(h, static_cast<double>(t.intermediate)); // qkv fused, same count
  }
  const double merged = h * static_cast<double>(t.merge * t.merge);
  const double norm = v25 ? h : 2.0 * h;
  const double merger = norm + merged * merged + merged + merged * static_cast<double>(out) +
                        static_cast<double>(out);
  const double patch_embed = static_cast<double>(channels * frames * t.patch * t.patch) * h;
  t.params = patch_embed + static_cast<double>(t.layers) * block + merger;
  return t;
}

// Mamba's time_step_rank (Jamba: mamba_dt_rank): an integer, or "auto" for ceil(hidden / 16).
long long read_dt_rank(ConfigFields& f, const char* name, long long hidden) {
  const FieldReader& r = f.reader();
  if (r.has(name) && r.member(name).json().is_string()) {
    if (r.string(name) != "auto") {
      r.member(name).fail("must be an integer or \"auto\"");
    }
    f.derived("ssm_dt_rank", fmt::format("{} \"auto\": ceil(hidden_size / 16)", name));
    return (hidden + 15) / 16;
  }
  return f.find({name}, Range::positive(k_max_width), "ssm_dt_rank").value_or((hidden + 15) / 16);
}

std::optional<DType> read_state_dtype(const FieldReader& r) {
  if (!r.has("mamba_ssm_cache_dtype") || !r.member("mamba_ssm_cache_dtype").json().is_string()) {
    return std::nullopt;
  }
  const auto name = r.string("mamba_ssm_cache_dtype");
  if (name == "auto") {
    return std::nullopt;
  }
  const auto d = parse_dtype(name);
  if (!d) {
    r.member("mamba_ssm_cache_dtype").fail("unknown dtype" + did_you_mean(name, dtype_names()));
  }
  return d;
}

// The field names of a Mamba-2 mixer in one family's configuration class.
struct Mamba2Fields {
  const char* heads;
  const char* head_dim;
  const char* state;
  const char* groups;
  const char* conv_kernel;
  const char* conv_bias;
  const char* proj_bias;
  // The expansion factor: heads x head_dim must be it x hidden_size. nullptr: the family states
  // none, and nothing is checked.
  const char* expand = nullptr;
  // head_dim may be "auto", expand x hidden_size / heads (the default of GraniteMoeHybridConfig
  // and BambaConfig).
  bool head_dim_auto = false;
};

// GraniteMoeHybridConfig and BambaConfig spell them alike, with a "mamba_" prefix.
constexpr Mamba2Fields k_mamba_prefixed_fields{"mamba_n_heads",
                                               "mamba_d_head",
                                               "mamba_d_state",
                                               "mamba_n_groups",
                                               "mamba_d_conv",
                                               "mamba_conv_bias",
                                               "mamba_proj_bias",
                                               "mamba_expand",
                                               true};

// Mamba-2 mixer fields shared by Mamba2Config, NemotronHConfig, GraniteMoeHybridConfig and
// BambaConfig (their names differ), and the check that the heads span expand x hidden channels
// where the family states an expansion.
void read_mamba2_mixer(ConfigFields& f, ModelArch& m, const Mamba2Fields& names) {
  const FieldReader& r = f.reader();
  StateSpace& ssm = m.ssm;
  ssm.version = 2;
  const long long expand =
      names.expand ? f.find({names.expand}, Range::positive(64), "ssm_expand").value_or(2) : 0;
  ssm.heads = f.require({names.heads}, Range::positive(k_max_width), "ssm_heads");
  long long dim = 0;
  if (names.head_dim_auto && r.has(names.head_dim) && r.member(names.head_dim).json().is_string() &&
      r.string(names.head_dim) == "auto") {
    dim = expand * m.hidden / ssm.heads;
    f.derived(
        "ssm_head_dim",
        fmt::format(
            "{} x hidden_size / {} ({} \"auto\")", names.expand, names.heads, names.head_dim));
  } else {
    dim = f.require({names.head_dim}, Range::positive(k_max_width), "ssm_head_dim");
  }
  ssm.inner = ssm.heads * dim;
  ssm.state = f.require({names.state}, Range::positive(k_max_width), "ssm_state");
  ssm.groups = f.find({names.groups}, Range::positive(k_max_width), "ssm_groups").value_or(1);
  ssm.conv_kernel =
      f.find({names.conv_kernel}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.conv_bias = f.flag(names.conv_bias, true);
  ssm.proj_bias = f.flag(names.proj_bias, false);
  ssm.state_dtype = read_state_dtype(r);
  if (ssm.heads % ssm.groups != 0) {
    r.member(names.groups).fail(fmt::format("must divide the {} Mamba heads", ssm.heads));
  }
  if (names.expand && ssm.inner != expand * m.hidden) {
    r.member(names.heads)
        .fail(fmt::format("{} x {} must be {} x hidden_size ({} x {})",
                          names.heads,
                          names.head_dim,
                          names.expand,
                          expand,
                          m.hidden));
  }
}

// MambaConfig and Mamba2Config: every layer is a norm and a Mamba mixer; no attention, no MLP.
void read_mamba(ConfigFields& f, ModelArch& m) {
  m.hidden = f.require({"hidden_size", "d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"num_hidden_layers", "n_layer"}, Range::positive(k_max_layers), "layers");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.ssm_layers = m.layers;
  m.mixer_only_layers = m.layers;
  m.norms_per_layer = 1;
  m.gated_mlp = false;
  if (m.family == "mamba2") {
    read_mamba2_mixer(f,
                      m,
                      {"num_heads",
                       "head_dim",
                       "state_size",
                       "n_groups",
                       "conv_kernel",
                       "use_conv_bias",
                       "use_bias",
                       "expand"});
  } else {
    const long long expand = f.find({"expand"}, Range::positive(64), "ssm_expand").value_or(2);
    StateSpace& ssm = m.ssm;
    ssm.version = 1;
    ssm.inner = f.find({"intermediate_size"}, Range::positive(k_max_width), "ssm_inner")
                    .value_or(expand * m.hidden);
    ssm.state = f.find({"state_size"}, Range::positive(k_max_width), "ssm_state").value_or(16);
    ssm.conv_kernel = f.find({"conv_kernel"}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
    ssm.dt_rank = read_dt_rank(f, "time_step_rank", m.hidden);
    ssm.conv_bias = f.flag("use_conv_bias", true);
    ssm.proj_bias = f.flag("use_bias", false);
  }
  // MambaConfig ties the embedding by default, Mamba2Config does not.
  m.tied_embeddings = f.flag("tie_word_embeddings", m.family == "mamba");
  f.derived("layer_types", "every layer a Mamba mixer: no attention, no KV cache, no MLP");
}

// Jamba: attention on every attn_layer_period-th layer from attn_layer_offset, Mamba (v1, with
// dt/B/C norms) elsewhere; MoE on every expert_layer_period-th layer from expert_layer_offset, a
// dense MLP elsewhere (JambaConfig, layers_block_type and layers_num_experts).
void read_jamba_layers(ConfigFields& f, ModelArch& m) {
  const auto every = [&](const char* period,
                         long long period_default,
                         const char* offset,
                         long long offset_default) {
    const long long p =
        f.find({period}, Range::positive(k_max_layers), period).value_or(period_default);
    const long long o =
        f.find({offset}, Range::non_negative(k_max_layers), offset).value_or(offset_default);
    if (o >= p) {
      f.reader().member(offset).fail(fmt::format("must be below {} ({})", period, p));
    }
    long long n = 0;
    for (long long i = 0; i < m.layers; ++i) {
      n += i % p == o ? 1 : 0;
    }
    return n;
  };
  const long long attention = every("attn_layer_period", 8, "attn_layer_offset", 4);
  m.ssm_layers = m.layers - attention;
  const long long moe = every("expert_layer_period", 2, "expert_layer_offset", 1);
  if (m.experts <= 1) {
    m.experts = m.experts_active = m.moe_layers = 0; // num_experts 1: every MLP is dense
  } else {
    m.moe_layers = moe;
    m.moe_intermediate = m.intermediate;
  }
  StateSpace& ssm = m.ssm;
  ssm.version = 1;
  const long long expand = f.find({"mamba_expand"}, Range::positive(64), "ssm_expand").value_or(2);
  ssm.inner = expand * m.hidden;
  ssm.state = f.find({"mamba_d_state"}, Range::positive(k_max_width), "ssm_state").value_or(16);
  ssm.conv_kernel = f.find({"mamba_d_conv"}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.dt_rank = read_dt_rank(f, "mamba_dt_rank", m.hidden);
  ssm.conv_bias = f.flag("mamba_conv_bias", true);
  ssm.proj_bias = f.flag("mamba_proj_bias", false);
  ssm.dt_norms = true;
  f.derived("layer_types",
            fmt::format("{} attention and {} Mamba layers; {} MoE and {} dense MLPs",
                        attention,
                        m.ssm_layers,
                        m.moe_layers,
                        m.layers - m.moe_layers));
}

// Nemotron-H: each layer is a norm and one block, Mamba-2 ("M"), attention ("*") or an MLP
// ("-"), from hybrid_override_pattern or layers_block_type (NemotronHConfig). The MLP is
// squared-ReLU, not gated. MoE blocks ("E", Nemotron 3) are not modelled.
void read_nemotron_h_layers(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  std::vector<char> blocks;
  const char* field = "hybrid_override_pattern";
  if (r.has("layers_block_type")) {
    field = "layers_block_type";
    for (const auto& name : r.string_array(field)) {
      blocks.push_back(name == "mamba"       ? 'M'
                       : name == "attention" ? '*'
                       : name == "mlp"       ? '-'
                                             : 'E');
    }
  } else if (r.has(field)) {
    const auto pattern = r.string(field);
    blocks.assign(pattern.begin(), pattern.end());
  } else {
    r.member(field).fail_plain("required field is missing");
  }
  if (static_cast<long long>(blocks.size()) != m.layers) {
    r.member(field).fail_plain(
        fmt::format("has {} entries but the model has {} layers", blocks.size(), m.layers));
  }
  long long mamba = 0;
  long long attention = 0;
  long long mlp = 0;
  for (const char b : blocks) {
    if (b == 'M') {
      ++mamba;
    } else if (b == '*') {
      ++attention;
    } else if (b == '-') {
      ++mlp;
    } else {
      r.member(field).fail_plain(fmt::format(
          "names a block other than Mamba (M), attention (*) or MLP (-): '{}'; Nemotron-H MoE "
          "layers are not modelled",
          b));
    }
  }
  m.ssm_layers = mamba;
  m.mlp_only_layers = mlp;
  m.mixer_only_layers = mamba + attention;
  m.norms_per_layer = 1;
  m.gated_mlp = false;
  read_mamba2_mixer(f,
                    m,
                    {"mamba_num_heads",
                     "mamba_head_dim",
                     "ssm_state_size",
                     "n_groups",
                     "conv_kernel",
                     "use_conv_bias",
                     "use_bias"});
  f.derived("layer_types",
            fmt::format("{} Mamba-2, {} attention and {} MLP layers", mamba, attention, mlp));
}

// Granite 4.0 hybrids (GraniteMoeHybridConfig): each layer is a norm, a mixer ("mamba": Mamba-2,
// or "attention", from layer_types), a norm and an MLP: MoE experts of intermediate_size beside a
// gated shared MLP of shared_intermediate_size, or that shared MLP alone when num_local_experts is
// 0 (the dense H-Micro).
void read_granite_hybrid_layers(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  if (!r.has("num_local_experts")) {
    // GraniteMoeHybridConfig's default, 8 experts of which 2 active, is no published model's.
    throw InputError(r.where("num_local_experts"),
                     "required field is missing (0 for a dense Granite hybrid)");
  }
  // layers_block_type is the attribute_map alias; absent, every layer is Mamba.
  const char* field = r.has("layers_block_type") ? "layers_block_type" : "layer_types";
  const auto types = r.has(field)
                         ? r.string_array(field)
                         : std::vector<std::string>(static_cast<std::size_t>(m.layers), "mamba");
  if (static_cast<long long>(types.size()) != m.layers) {
    r.member(field).fail_plain(
        fmt::format("has {} entries but the model has {} layers", types.size(), m.layers));
  }
  long long mamba = 0;
  for (const auto& t : types) {
    if (t == "mamba") {
      ++mamba;
    } else if (t != "attention") {
      r.member(field).fail_plain(
          fmt::format("names a layer other than \"mamba\" or \"attention\": \"{}\"", t));
    }
  }
  m.ssm_layers = mamba;
  read_mamba2_mixer(f, m, k_mamba_prefixed_fields);
  const long long shared = f.find({"shared_intermediate_size"},
                                  Range::non_negative(k_max_width),
                                  "shared_expert_intermediate")
                               .value_or(0);
  if (m.experts > 0) {
    if (shared > 0) {
      m.shared_experts = 1;
      m.shared_expert_intermediate = shared;
    }
  } else if (shared > 0) {
    m.intermediate = shared; // the shared MLP is the layer's only MLP
    f.derived("intermediate", "shared_intermediate_size (no experts: the shared MLP alone)");
  }
  f.derived("layer_types",
            fmt::format("{} Mamba-2 and {} attention layers, each with {}",
                        mamba,
                        m.layers - mamba,
                        m.experts > 0 ? "MoE experts and a shared MLP" : "a gated MLP"));
}

// Bamba (BambaConfig): each layer is a norm, a mixer (attention on the layers attn_layer_indices
// lists, Mamba-2 elsewhere; absent or null, every layer is Mamba), a norm and a gated MLP.
// BambaConfig sets attention_bias and mlp_bias to false whatever the file says.
void read_bamba_layers(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  const char* field = "attn_layer_indices";
  std::vector<long long> attention;
  if (r.has(field) && !r.member(field).json().is_null()) {
    for (const auto& e : r.array(field)) {
      const long long i = e.as_integer(Range::non_negative(static_cast<double>(m.layers - 1)));
      if (std::find(attention.begin(), attention.end(), i) != attention.end()) {
        e.fail("names a layer listed before it");
      }
      attention.push_back(i);
    }
    f.record("attention_layers", r.where(field));
  }
  m.ssm_layers = m.layers - static_cast<long long>(attention.size());
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  read_mamba2_mixer(f, m, k_mamba_prefixed_fields);
  f.derived("layer_types",
            fmt::format("{} Mamba-2 and {} attention layers, each with a gated MLP",
                        m.ssm_layers,
                        attention.size()));
}

// Falcon-H1 (FalconH1Config, FalconH1DecoderLayer): a parallel hybrid. Every layer is a norm,
// then attention and a Mamba-2 mixer side by side on its output, summed into one residual, then a
// norm and a gated MLP. The mixer (FalconH1Mixer) is Mamba2Mixer's but for its width, mamba_d_ssm
// (null: mamba_expand x hidden_size) split into mamba_n_heads heads of mamba_d_head ("auto":
// mamba_d_ssm / mamba_n_heads), its gated RMSNorm, present only with mamba_rms_norm, and the bias
// of its out_proj, projectors_bias. FalconH1Config's own defaults for the mixer's width, heads and
// state (1024, 128, 256) are no published model's: those three are required. The µP multipliers
// scale activations and hold no parameters.
void read_falcon_h1_layers(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  m.ssm_layers = m.layers;
  m.ssm_beside_attention = true;
  StateSpace& ssm = m.ssm;
  ssm.version = 2;
  // has() reads null as absent; here null is a value: mamba_expand x hidden_size.
  if (!r.json().contains("mamba_d_ssm")) {
    throw InputError(r.where("mamba_d_ssm"),
                     "required field is missing (null for mamba_expand x hidden_size)");
  }
  if (!r.has("mamba_d_ssm")) {
    const long long expand =
        f.find({"mamba_expand"}, Range::positive(64), "ssm_expand").value_or(2);
    ssm.inner = expand * m.hidden;
    f.derived("ssm_inner", "mamba_expand x hidden_size (mamba_d_ssm null)");
  } else {
    ssm.inner = f.require({"mamba_d_ssm"}, Range::positive(k_max_width), "ssm_inner");
  }
  ssm.heads = f.require({"mamba_n_heads"}, Range::positive(k_max_width), "ssm_heads");
  long long dim = 0;
  if (!r.has("mamba_d_head") ||
      (r.member("mamba_d_head").json().is_string() && r.string("mamba_d_head") == "auto")) {
    if (ssm.inner % ssm.heads != 0) {
      r.member("mamba_n_heads")
          .fail(fmt::format("must divide the mixer's {} channels (mamba_d_head \"auto\")",
                            ssm.inner));
    }
    dim = ssm.inner / ssm.heads;
    f.derived("ssm_head_dim", "mamba_d_ssm / mamba_n_heads (mamba_d_head \"auto\")");
  } else {
    dim = f.require({"mamba_d_head"}, Range::positive(k_max_width), "ssm_head_dim");
  }
  if (ssm.heads * dim != ssm.inner) {
    r.member("mamba_n_heads")
        .fail(fmt::format("{} heads of {} (mamba_d_head) must make the mixer's {} channels",
                          ssm.heads,
                          dim,
                          ssm.inner));
  }
  ssm.state = f.require({"mamba_d_state"}, Range::positive(k_max_width), "ssm_state");
  ssm.groups = f.find({"mamba_n_groups"}, Range::positive(k_max_width), "ssm_groups").value_or(1);
  if (ssm.heads % ssm.groups != 0) {
    r.member("mamba_n_groups").fail(fmt::format("must divide the {} Mamba heads", ssm.heads));
  }
  ssm.conv_kernel = f.find({"mamba_d_conv"}, Range::positive(1024), "ssm_conv_kernel").value_or(4);
  ssm.conv_bias = f.flag("mamba_conv_bias", true);
  ssm.proj_bias = f.flag("mamba_proj_bias", false);
  ssm.out_proj_bias = f.flag("projectors_bias", false);
  ssm.gated_norm = f.flag("mamba_rms_norm", false);
  ssm.state_dtype = read_state_dtype(r);
  f.derived("layer_types",
            fmt::format("{} layers, each with attention and a Mamba-2 mixer side by side, and a "
                        "gated MLP",
                        m.layers));
}

// Qwen3-Next (Qwen3NextConfig, Qwen3NextDecoderLayer): each layer is a norm, a mixer, a norm and
// an MLP (a sparse MoE block with a gated shared expert, read by read_moe). The mixer is gated
// full attention on the layers layer_types names "full_attention" (absent: every
// full_attention_interval-th, from the interval's last layer), and a Gated DeltaNet elsewhere
// ("linear_attention"): in_proj_qkvz and in_proj_ba from the hidden state, a short causal
// convolution over q, k and v, the gated delta rule over a d_k x d_v state per value head, a gated
// RMSNorm and out_proj.
void read_qwen3_next_layers(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  long long linear = 0;
  if (r.has("layer_types")) {
    const auto types = layer_types(r, m);
    for (const auto& t : types) {
      if (t == "linear_attention") {
        ++linear;
      } else if (t != "full_attention") {
        r.member("layer_types")
            .fail_plain(fmt::format(
                "names a layer other than \"linear_attention\" or \"full_attention\": \"{}\"", t));
      }
    }
    f.record("attention_layers", r.where("layer_types"));
  } else {
    const long long interval = f.find({"full_attention_interval"},
                                      Range::positive(k_max_layers),
                                      "full_attention_interval")
                                   .value_or(4);
    for (long long i = 0; i < m.layers; ++i) {
      linear += (i + 1) % interval != 0 ? 1 : 0;
    }
  }
  m.ssm_layers = linear;
  StateSpace& gdn = m.ssm;
  gdn.kind = RecurrentKind::gated_deltanet;
  gdn.version = 0;
  // Qwen3NextConfig's defaults, those of Qwen3-Next-80B-A3B.
  const long long value_heads =
      f.find({"linear_num_value_heads"}, Range::positive(k_max_width), "linear_value_heads")
          .value_or(32);
  const long long key_heads =
      f.find({"linear_num_key_heads"}, Range::positive(k_max_width), "linear_key_heads")
          .value_or(16);
  gdn.state = f.find({"linear_key_head_dim"}, Range::positive(k_max_width), "linear_key_head_dim")
                  .value_or(128);
  const long long value_dim =
      f.find({"linear_value_head_dim"}, Range::positive(k_max_width), "linear_value_head_dim")
          .value_or(128);
  gdn.conv_kernel =
      f.find({"linear_conv_kernel_dim"}, Range::positive(1024), "linear_conv_kernel").value_or(4);
  if (value_heads % key_heads != 0) {
    r.member("linear_num_key_heads")
        .fail(fmt::format("must divide linear_num_value_heads ({})", value_heads));
  }
  gdn.heads = value_heads;
  gdn.groups = key_heads;
  gdn.inner = value_heads * value_dim;
  gdn.conv_bias = false; // nn.Conv1d(..., bias=False)
  gdn.proj_bias = false;
  gdn.state_dtype = read_state_dtype(r);
  f.derived("layer_types",
            fmt::format("{} linear-attention (Gated DeltaNet) and {} gated full-attention layers, "
                        "each with {}",
                        linear,
                        m.layers - linear,
                        m.experts > 0 ? "MoE experts and a gated shared expert" : "a gated MLP"));
}

} // namespace

// Encoder-only families, as an embedding or reranking server loads them: the base model
// (BertModel, RobertaModel, XLMRobertaModel, DistilBertModel, ModernBertModel) without the
// masked-LM head the checkpoint was pretrained with.
// - BERT, RoBERTa, XLM-R and DistilBERT: learned positions (and, but for DistilBERT, token-type
//   embeddings) beside the token embedding, then an embedding LayerNorm; post-norm blocks of
//   biased q, k, v and o, a biased GELU MLP, two LayerNorms with bias; BERT-likes end in a pooler
//   (a hidden x hidden dense layer with bias), DistilBERT does not.
// - RoBERTa and XLM-R number positions from pad_token_id + 1 (create_position_ids_from_input_ids),
//   so their inputs hold max_position_embeddings - pad_token_id - 1 tokens (514 rows: 512).
// - ModernBERT: rotary positions, a GeGLU MLP (Wi: hidden -> 2 x intermediate), no biases unless
//   attention_bias, mlp_bias or norm_bias say so, an embedding norm, no norm before the first
//   layer's attention, a final norm; every global_attn_every_n_layers-th layer (from the first)
//   attends globally, the others to a local window of local_attention tokens.
void read_encoder(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  const bool distil = m.family == "distilbert";
  const bool modern = m.family == "modernbert";
  m.encoder_only = true;
  m.hidden = f.require({"hidden_size", "dim"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"num_hidden_layers", "n_layers"}, Range::positive(k_max_layers), "layers");
  m.heads = f.require({"num_attention_heads", "n_heads"}, Range::positive(k_max_width), "heads");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.intermediate =
      f.require({"intermediate_size", "hidden_dim"}, Range::positive(k_max_width), "intermediate");
  if (m.hidden % m.heads != 0) {
    r.member(distil ? "n_heads" : "num_attention_heads")
        .fail(fmt::format("must divide the hidden size ({})", m.hidden));
  }
  m.kv_heads = m.heads;
  m.head_dim = m.v_head_dim = m.hidden / m.heads;
  m.attention = AttentionKind::mha;
  f.derived("head_dim", "hidden size / attention heads");
  if (!modern && r.has("position_embedding_type") &&
      r.string("position_embedding_type") != "absolute") {
    r.member("position_embedding_type")
        .fail("relative position embeddings are not modelled; rightsize reads \"absolute\"");
  }
  m.max_position =
      f.find({"max_position_embeddings"}, Range::positive(k_max_positions), "max_position")
          .value_or(0);
  if (m.max_position == 0) {
    assume_family_context(f, m);
  }
  if (modern) {
    m.gated_mlp = true;
    m.qkv_bias = m.o_bias = f.flag("attention_bias", false);
    m.mlp_bias = f.flag("mlp_bias", false);
    m.layer_norm_bias = f.flag("norm_bias", false);
    const long long every = f.find({"global_attn_every_n_layers"},
                                   Range::positive(k_max_layers),
                                   "global_attn_every_n_layers")
                                .value_or(3);
    m.sliding_window =
        f.find({"local_attention"}, Range::positive(k_max_positions), "sliding_window")
            .value_or(128);
    m.local_layers = m.layers - (m.layers + every - 1) / every;
    return;
  }
  m.gated_mlp = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.learned_positions = m.max_position;
  if (family_is(m.family, {"roberta", "xlm-roberta", "camembert"})) {
    const long long pad =
        f.find({"pad_token_id"}, Range{0, k_max_vocab}, "pad_token_id").value_or(1);
    if (m.max_position <= pad + 1) {
      r.member("max_position_embeddings")
          .fail(
              fmt::format("must exceed pad_token_id + 1 ({}): positions start after it", pad + 1));
    }
    m.max_position -= pad + 1;
    f.derived("max_position",
              "max_position_embeddings - pad_token_id - 1 (positions start after "
              "the padding index)");
  }
  if (!distil) {
    m.token_types = f.find({"type_vocab_size"}, Range{0, k_max_vocab}, "token_types").value_or(2);
    m.pooler = true;
  }
}

// Encoder-decoder families, as T5ForConditionalGeneration, MT5ForConditionalGeneration,
// UMT5ForConditionalGeneration and WhisperForConditionalGeneration build them: the encoder stack
// in `layers`, the decoder's in `decoder_layers` (count_parameters adds its cross-attention).
// - T5, mT5, UMT5 (T5Config, MT5Config, UMT5Config): one embedding shared by both stacks, an
//   lm_head unless tie_word_embeddings (T5 v1.0: tied; T5 v1.1, Flan-T5, mT5: not); q, k, v
//   of heads x d_kv (which may differ from d_model) and o, no biases; a ReLU MLP (wi, wo) or,
//   with feed_forward_proj "gated-gelu", a gated one (wi_0, wi_1, wo); weight-only RMS norms;
//   relative position bias tables of relative_attention_num_buckets x heads, in the first layer
//   of each stack (UMT5: in every self-attention layer); no position limit.
// - Whisper (WhisperConfig): two convolutions over num_mel_bins, max_source_positions sinusoidal
//   encoder positions (a frozen embedding the checkpoint stores), max_target_positions learned
//   decoder positions, q, v and o with biases and k without, a biased GELU MLP, LayerNorms with
//   bias, the output projection tied to the token embedding.
void read_t5(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  const bool mt5 = family_is(m.family, {"mt5", "umt5"});
  m.encoder_decoder = true;
  m.hidden = f.require({"d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"num_layers"}, Range::positive(k_max_layers), "layers");
  m.decoder_layers = f.find({"num_decoder_layers"}, Range::positive(k_max_layers), "decoder_layers")
                         .value_or(m.layers);
  m.heads = m.kv_heads = f.require({"num_heads"}, Range::positive(k_max_width), "heads");
  m.head_dim = m.v_head_dim =
      f.find({"d_kv"}, Range::positive(k_max_width), "head_dim").value_or(64);
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.intermediate = f.require({"d_ff"}, Range::positive(k_max_width), "intermediate");
  m.relative_buckets = f.find({"relative_attention_num_buckets"},
                              Range::positive(k_max_positions),
                              "relative_buckets")
                           .value_or(32);
  m.relative_bias_tables = m.family == "umt5" ? m.layers + m.decoder_layers : 2;
  const std::string ff =
      r.optional_string("feed_forward_proj").value_or(mt5 ? "gated-gelu" : "relu");
  const auto dash = ff.find('-');
  if (ff.empty() || (dash != std::string::npos && (ff.substr(0, dash) != "gated" ||
                                                   ff.find('-', dash + 1) != std::string::npos))) {
    r.member("feed_forward_proj")
        .fail("must be an activation (\"relu\") or \"gated-\" and one (\"gated-gelu\")");
  }
  m.gated_mlp = dash != std::string::npos;
  m.attention = AttentionKind::mha;
  m.tied_embeddings = f.flag("tie_word_embeddings", m.family != "mt5");
}

void read_whisper(ConfigFields& f, ModelArch& m) {
  const FieldReader& r = f.reader();
  m.encoder_decoder = true;
  m.hidden = f.require({"d_model"}, Range::positive(k_max_width), "hidden");
  m.layers = f.require({"encoder_layers"}, Range::positive(k_max_layers), "layers");
  m.decoder_layers = f.require({"decoder_layers"}, Range::positive(k_max_layers), "decoder_layers");
  m.heads = f.require({"encoder_attention_heads"}, Range::positive(k_max_width), "heads");
  m.intermediate = f.require({"encoder_ffn_dim"}, Range::positive(k_max_width), "intermediate");
  // One width for both stacks, as in every published Whisper.
  for (const auto& [key, value] : {std::pair{"decoder_attention_heads", m.heads},
                                   std::pair{"decoder_ffn_dim", m.intermediate}}) {
    if (r.has(key) && r.integer(key, Range::positive(k_max_width)) != value) {
      r.member(key).fail(fmt::format("must equal the encoder's ({}): rightsize reads one width for "
                                     "both stacks",
                                     value));
    }
  }
  if (m.hidden % m.heads != 0) {
    r.member("encoder_attention_heads").fail(fmt::format("must divide d_model ({})", m.hidden));
  }
  m.kv_heads = m.heads;
  m.head_dim = m.v_head_dim = m.hidden / m.heads;
  f.derived("head_dim", "d_model / attention heads");
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  const auto assumed = [&](const char* key, const char* label, long long fallback) {
    if (auto v = f.find({key}, Range::positive(k_max_positions), label)) {
      return *v;
    }
    f.record(label, fmt::format("assumed: WhisperConfig's default {} = {}", key, fallback));
    return fallback;
  };
  m.mel_bins = assumed("num_mel_bins", "mel_bins", 80);
  m.encoder_positions = assumed("max_source_positions", "encoder_positions", 1500);
  m.max_position = assumed("max_target_positions", "max_position", 448);
  m.learned_positions = m.max_position;
  m.attention = AttentionKind::mha;
  m.gated_mlp = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.layer_norm_bias = true;
  m.k_bias = false;
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
}

// The families read exactly, with the context transformers gives a model whose config.json omits
// max_position_embeddings: the default argument of the family's configuration class, which is
// what transformers and vLLM (through the same config object) then use. Source: each class's
// __init__ in transformers/models/<family>/configuration_<family>.py.
const std::vector<SupportedFamily>& supported_families() {
  static const std::vector<SupportedFamily> families{
      {"llama",
       "Llama 2, 3, 3.1, 3.2, 3.3 (and Llama-shaped models that declare it)",
       2048,
       "LlamaConfig"}, // max_position_embeddings=2048 (LLaMA 1)
      {"mistral",
       "Mistral 7B, Mistral Nemo, Mistral Small (text)",
       131072,
       "MistralConfig"},                                           // 4096 * 32
      {"mixtral", "Mixtral 8x7B, 8x22B", 131072, "MixtralConfig"}, // 4096 * 32
      {"qwen2", "Qwen2, Qwen2.5, QwQ", 32768, "Qwen2Config"},
      {"qwen2_moe", "Qwen1.5-MoE, Qwen2-57B-A14B", 32768, "Qwen2MoeConfig"},
      {"qwen3", "Qwen3 dense", 32768, "Qwen3Config"},
      {"qwen3_moe", "Qwen3 MoE (30B-A3B, 235B-A22B)", 32768, "Qwen3MoeConfig"},
      {"gemma", "Gemma", 8192, "GemmaConfig"},
      {"gemma2", "Gemma 2", 8192, "Gemma2Config"},
      {"gemma3",
       "Gemma 3 4B-27B (SigLIP vision tower counted; images per request)",
       131072,
       "Gemma3TextConfig"}, // 131_072; gemma-3-4b/12b/27b cards: 128K
      {"gemma3_text", "Gemma 3 text-only (1B)", 131072, "Gemma3TextConfig"},
      {"phi3", "Phi-3, Phi-3.5, Phi-4 (text)", 4096, "Phi3Config"},
      {"gpt2", "GPT-2", 1024, "GPT2Config"}, // n_positions=1024
      {"gptj", "GPT-J", 2048, "GPTJConfig"}, // n_positions=2048
      {"gpt_neox", "GPT-NeoX, Pythia", 2048, "GPTNeoXConfig"},
      {"falcon", "Falcon 7B, 40B, 180B", 2048, "FalconConfig"}, // falcon-7b card: 2048 tokens
      {"gpt_bigcode", "StarCoder, SantaCoder", 1024, "GPTBigCodeConfig"}, // n_positions=1024
      {"deepseek_v2", "DeepSeek-V2, V2-Lite (MLA)", 2048, "DeepseekV2Config"},
      {"deepseek_v3", "DeepSeek-V3, R1 (MLA)", 4096, "DeepseekV3Config"},
      {"gpt_oss", "gpt-oss 20B, 120B", 131072, "GptOssConfig"},
      {"qwen2_vl", "Qwen2-VL (vision tower counted; images per request)", 32768, "Qwen2VLConfig"},
      {"llava",
       "Llava 1.5 (CLIP vision tower counted; Llama under text_config)",
       2048,
       "LlamaConfig"},
      {"llava_next",
       "Llava-NeXT / 1.6 (CLIP tower counted; anyres image tokens; Llama or Mistral text)",
       2048,
       "LlamaConfig"},
      {"qwen2_5_vl",
       "Qwen2.5-VL (vision tower counted; images per request)",
       32768,
       "Qwen2_5_VLConfig"},
      {"mamba", "Mamba (state-space; no context limit)", 0, "MambaConfig"},
      {"mamba2", "Mamba-2, Mamba-Codestral (state-space; no context limit)", 0, "Mamba2Config"},
      {"jamba", "Jamba, Jamba 1.5 Mini and Large (attention + Mamba + MoE)", 262144, "JambaConfig"},
      {"nemotron_h",
       "Nemotron-H 4B-56B (Mamba-2 + attention + MLP layers)",
       4096,
       "NemotronHConfig"},
      {"granitemoehybrid",
       "Granite 4.0 H (Mamba-2 + attention layers, MoE and shared MLP)",
       2048,
       "GraniteMoeHybridConfig"},
      {"bamba", "Bamba 9B (Mamba-2 + attention layers, gated MLP)", 262144, "BambaConfig"},
      {"falcon_h1",
       "Falcon-H1 0.5B-34B (attention and Mamba-2 side by side in every layer, gated MLP)",
       8192,
       "FalconH1Config"},
      {"qwen3_next",
       "Qwen3-Next 80B-A3B (Gated DeltaNet linear attention + gated attention layers, MoE)",
       32768,
       "Qwen3NextConfig"},
      {"bert", "BERT, MiniLM, English BGE and E5 (encoder-only)", 512, "BertConfig"},
      {"roberta", "RoBERTa (encoder-only)", 512, "RobertaConfig"},
      {"xlm-roberta", "XLM-R, BGE-M3, multilingual-E5 (encoder-only)", 512, "XLMRobertaConfig"},
      {"camembert", "CamemBERT (encoder-only)", 512, "CamembertConfig"},
      {"distilbert", "DistilBERT (encoder-only)", 512, "DistilBertConfig"},
      {"modernbert", "ModernBERT (encoder-only)", 8192, "ModernBertConfig"},
      {"t5", "T5, T5 v1.1, Flan-T5 (encoder-decoder; relative positions)", 0, "T5Config"},
      {"mt5", "mT5 (encoder-decoder; relative positions)", 0, "MT5Config"},
      {"umt5", "UMT5 (encoder-decoder; relative positions)", 0, "UMT5Config"},
      {"whisper",
       "Whisper (speech encoder-decoder: 30 s of audio in, 448 tokens out)",
       448,
       "WhisperConfig"}, // max_target_positions=448
      {"vit", "ViT (image encoder: ViTModel, ViTForImageClassification)", 0, "ViTConfig"},
      {"clip", "CLIP (dual encoder: CLIPModel; images and text)", 0, "CLIPConfig"},
      {"clip_vision_model",
       "CLIP's vision tower (CLIPVisionModel, CLIPVisionModelWithProjection)",
       0,
       "CLIPVisionConfig"},
      {"siglip", "SigLIP (dual encoder: SiglipModel; images and text)", 0, "SiglipConfig"},
      {"siglip_vision_model", "SigLIP's vision tower (SiglipVisionModel)", 0, "SiglipVisionConfig"},
      {"resnet",
       "ResNet-18 to -152 (CNN image encoder: ResNetModel, ResNetForImageClassification)",
       0,
       "ResNetConfig"},
      // diffusers pipelines: a folder with model_index.json (_class_name) and the components'.
      {"StableDiffusionXLPipeline",
       "SDXL base 1.0 (diffusers: UNet, CLIP-L and OpenCLIP bigG, VAE; image generation)",
       0,
       k_diffusers_index},
      {"FluxPipeline",
       "FLUX.1-dev, FLUX.1-schnell (diffusers: MMDiT transformer, CLIP-L and T5-XXL, VAE; "
       "image generation)",
       0,
       k_diffusers_index},
      {"StableDiffusion3Pipeline",
       "SD3-medium (diffusers: MMDiT transformer, CLIP-L, OpenCLIP bigG and T5-XXL, VAE; image "
       "generation)",
       0,
       k_diffusers_index},
  };
  return families;
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

ModelArch
parse_hf_config(const nlohmann::json& config, const std::string& file, const std::string& pointer) {
  FieldReader top(config, file, pointer);
  if (!config.is_object()) {
    top.fail("a Hugging Face config must be a JSON object");
  }
  ModelArch m;
  read_family(top, m);
  m.name = read_name_or_path(top);
  m.torch_dtype = read_torch_dtype(top, m);

  std::optional<FieldReader> text = find_text_config(top);
  nlohmann::json llava_text;        // outlives the readers below
  std::vector<std::string> assumed; // text_config keys the text class's defaults filled in
  std::string text_class;           // that class
  if (family_is(m.family, {"llava", "llava_next"})) {
    llava_text = llava_text_config(top, m.family, assumed, text_class);
    text.emplace(llava_text, file, pointer + "/text_config");
  }
  const FieldReader& r = text ? *text : top;
  ConfigFields f(r, m);
  if (family_is(m.family, {"mamba", "mamba2"})) {
    read_mamba(f, m); // no attention: none of the readers below applies
  } else if (family_is(
                 m.family,
                 {"bert", "roberta", "xlm-roberta", "camembert", "distilbert", "modernbert"})) {
    read_encoder(f, m);
  } else if (family_is(m.family, {"t5", "mt5", "umt5"})) {
    read_t5(f, m);
  } else if (m.family == "whisper") {
    read_whisper(f, m);
  } else if (family_is(m.family,
                       {"vit", "clip", "clip_vision_model", "siglip", "siglip_vision_model"})) {
    read_image_encoder(top, m);
  } else if (m.family == "resnet") {
    read_resnet(top, m);
  } else {
    read_dimensions(f, m);
    // Falcon's new_decoder_architecture changes how its kv heads, residual and norms are read.
    const bool falcon_new = m.family == "falcon" && f.flag("new_decoder_architecture", false);
    read_kv_heads(f, m, falcon_new);
    read_head_dim(f, m);
    read_mlp(f, m);
    read_tied_embeddings(top, f, m);
    read_parallel_attention(f, m, falcon_new);
    read_biases_and_norms(f, m, falcon_new);
    read_attention_kind(f, m);
    read_moe(f, m);
    if (m.family == "jamba") {
      read_jamba_layers(f, m);
    } else if (m.family == "nemotron_h") {
      read_nemotron_h_layers(f, m);
    } else if (m.family == "granitemoehybrid") {
      read_granite_hybrid_layers(f, m);
    } else if (m.family == "bamba") {
      read_bamba_layers(f, m);
    } else if (m.family == "falcon_h1") {
      read_falcon_h1_layers(f, m);
    } else if (m.family == "qwen3_next") {
      read_qwen3_next_layers(f, m);
    }
    read_sliding_window(f, m);
    if (top.has("vision_config") && family_is(m.family, {"gemma3"})) {
      m.vision = read_siglip(top, m.hidden);
    } else if (m.family == "llava") {
      m.vision = read_clip(top, m.hidden);
    } else if (m.family == "llava_next") {
      m.vision = read_llava_next_vision(top, m.hidden);
    } else if (family_is(m.family, {"qwen2_vl", "qwen2_5_vl"})) {
      m.vision = read_qwen_vision(top, m.family, m.hidden);
    }
  }

  // What the completed text_config supplied is its class's default, not a field of the file.
  for (auto& [label, where] : m.provenance) {
    for (const auto& key : assumed) {
      if (where == r.where(key)) {
        where = fmt::format("assumed: {}'s default {} = {} (text_config omits it)",
                            text_class,
                            key,
                            llava_text[key].dump());
      }
    }
  }
  if (m.name.empty()) {
    m.name = default_name(file, pointer, m.family);
  }
  count_parameters(m);
  m.quantization = read_quantization(top, file, pointer, m.torch_dtype);
  return m;
}

ModelArch parse_generic_model(const nlohmann::json& description,
                              const std::string& file,
                              const std::string& pointer) {
  const FieldReader r(description, file, pointer);
  r.reject_unknown({"params",
                    "layers",
                    "hidden_size",
                    "heads",
                    "kv_heads",
                    "head_dim",
                    "vocab_size",
                    "intermediate_size",
                    "gated_mlp",
                    "tied_embeddings",
                    "experts",
                    "experts_active",
                    "moe_intermediate_size",
                    "sliding_window",
                    "max_position_embeddings",
                    "dtype",
                    "name"});
  ModelArch m;
  m.family = "generic";
  m.name = r.optional_string("name").value_or("generic");
  ConfigFields f(r, m);
  m.layers = f.require({"layers"}, Range::positive(k_max_layers), "layers");
  m.hidden = f.require({"hidden_size"}, Range::positive(k_max_width), "hidden");
  m.heads = f.require({"heads"}, Range::positive(k_max_width), "heads");
  m.kv_heads = f.find({"kv_heads"}, Range::positive(k_max_width), "kv_heads").value_or(m.heads);
  if (m.heads % m.kv_heads != 0) {
    r.member("kv_heads").fail(fmt::format("must divide heads ({})", m.heads));
  }
  m.head_dim = f.find({"head_dim"}, Range::positive(k_max_width), "head_dim").value_or(0);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0) {
      r.member("heads").fail(fmt::format("must divide hidden_size ({})", m.hidden));
    }
    m.head_dim = m.hidden / m.heads;
  }
  m.v_head_dim = m.head_dim;
  m.vocab = f.require({"vocab_size"}, Range::positive(k_max_vocab), "vocab");
  m.gated_mlp = r.optional_boolean("gated_mlp").value_or(true);
  m.intermediate = f.find({"intermediate_size"}, Range::positive(k_max_width), "intermediate")
                       .value_or(m.gated_mlp ? (8 * m.hidden / 3) : 4 * m.hidden);
  m.tied_embeddings = r.optional_boolean("tied_embeddings").value_or(false);
  m.max_position =
      f.find({"max_position_embeddings"}, Range::positive(k_max_positions), "max_position")
          .value_or(0);
  m.attention = m.kv_heads == 1 && m.heads > 1 ? AttentionKind::mqa
                : m.kv_heads < m.heads         ? AttentionKind::gqa
                                               : AttentionKind::mha;
  if (auto e = f.find({"experts"}, Range::non_negative(k_max_experts), "experts"); e && *e > 0) {
    m.experts = *e;
    m.experts_active =
        f.require({"experts_active"}, Range::positive(static_cast<double>(*e)), "experts_active");
    m.moe_intermediate =
        f.find({"moe_intermediate_size"}, Range::positive(k_max_width), "moe_intermediate")
            .value_or(m.intermediate);
    m.moe_layers = m.layers;
  }
  if (auto w = f.find({"sliding_window"}, Range::positive(k_max_positions), "sliding_window")) {
    m.sliding_window = *w;
    m.local_layers = m.layers;
  }
  m.torch_dtype = DType::bf16;
  if (auto d = r.optional_string("dtype")) {
    const auto parsed = parse_dtype(*d);
    if (!parsed) {
      r.member("dtype").fail("unknown dtype" + did_you_mean(*d, dtype_names()));
    }
    m.torch_dtype = *parsed;
  }
  count_parameters(m);
  if (auto p = r.optional_number("params", Range::positive(1e15))) {
    // The user's count wins; scale the breakdown so every component keeps its share.
    const double scale = *p / m.params.total();
    const double active_share = m.params_active / m.params_total;
    for (double* part : {&m.params.embedding,
                         &m.params.lm_head,
                         &m.params.attention,
                         &m.params.dense_mlp,
                         &m.params.routed_experts,
                         &m.params.shared_experts,
                         &m.params.router,
                         &m.params.norms}) {
      *part *= scale;
    }
    m.params_total = *p;
    m.params_active = *p * active_share;
    m.param_source = "spec";
    m.provenance.emplace_back("params", r.where("params"));
  }
  m.quantization = quantization_for(m.torch_dtype, m.torch_dtype);
  return m;
}

} // namespace rightsize
