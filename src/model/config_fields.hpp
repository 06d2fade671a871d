#pragma once

// Inside the model stage: what every Hugging Face family reader reads with, the config's fields
// with where each value came from. Not a public header.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/model.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace rightsize::hf {

using detail::FieldReader;
using detail::Range;

constexpr double k_max_layers = 10000;
constexpr double k_max_width = 1e7;
constexpr double k_max_vocab = 1e8;
constexpr double k_max_experts = 100000;
constexpr double k_max_positions = 1e9;

// What a family's reader reads: the config as a whole, and the part that describes the language
// model (text_config for the multimodal wrappers that keep it there, else the whole config).
struct ConfigInput {
  const FieldReader& top;
  const FieldReader& config;
};

// Reads an integer field under one of several names, recording where it came from in the
// model's provenance ("config.json:/num_hidden_layers", "derived: ...", "assumed: ...").
class ConfigFields {
public:
  ConfigFields(const FieldReader& reader, ModelArch& model) : m_r(reader), m_model(model) {}

  [[nodiscard]] const FieldReader& reader() const { return m_r; }

  std::optional<long long>
  find(std::initializer_list<const char*> names, Range range, const char* label);
  long long require(std::initializer_list<const char*> names, Range range, const char* label);
  [[nodiscard]] bool flag(const char* name, bool fallback) const {
    return m_r.has(name) ? m_r.boolean(name) : fallback;
  }
  void derived(const char* label, const std::string& how) { record(label, "derived: " + how); }
  // The last source recorded for a field wins.
  void record(const std::string& label, const std::string& where);

private:
  const FieldReader& m_r;
  ModelArch& m_model;
};

// The config's layer_types, one entry per layer (checked against num_hidden_layers).
std::vector<std::string> layer_types(const FieldReader& r, const ModelArch& m);

// mamba_ssm_cache_dtype when the config names one ("auto" or absent: none).
std::optional<DType> read_state_dtype(const FieldReader& r);

// Records the context transformers assumes when config.json omits max_position_embeddings: the
// default of the family's configuration class (registry.cpp), as "assumed: ...". A family
// without one gets none: its limit is unknown, not guessed.
void assume_family_context(ConfigFields& f, ModelArch& m);

} // namespace rightsize::hf
