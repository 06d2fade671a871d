#include "config_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::hf {

std::optional<long long>
ConfigFields::find(std::initializer_list<const char*> names, Range range, const char* label) {
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

long long
ConfigFields::require(std::initializer_list<const char*> names, Range range, const char* label) {
  if (auto v = find(names, range, label)) {
    return *v;
  }
  // Name the first, canonical spelling in the error.
  throw InputError(m_r.where(*names.begin()), "required field is missing");
}

void ConfigFields::record(const std::string& label, const std::string& where) {
  auto& p = m_model.provenance;
  p.erase(std::remove_if(p.begin(), p.end(), [&](const auto& e) { return e.first == label; }),
          p.end());
  p.emplace_back(label, where);
}

std::vector<std::string> layer_types(const FieldReader& r, const ModelArch& m) {
  auto types = r.string_array("layer_types");
  if (static_cast<long long>(types.size()) != m.layers) {
    r.member("layer_types")
        .fail_plain(
            fmt::format("has {} entries but the model has {} layers", types.size(), m.layers));
  }
  return types;
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

} // namespace rightsize::hf
