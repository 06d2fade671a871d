#pragma once

// What the spec tests share: a spec beside a copy of the Llama-3.1-8B config, the error a spec
// raises, a small config for context tests.

#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace rightsize::test {

// A spec file beside a copy of the Llama-3.1-8B config, so relative paths resolve.
inline std::string write_spec(const ScratchDir& dir, const std::string& body) {
  std::ifstream in(config_path("llama-3.1-8b"));
  std::stringstream config;
  config << in.rdbuf();
  dir.write("models/llama/config.json", config.str());
  return dir.write("spec.json", body);
}

// The message of the InputError the spec raises, with its path as "spec.json"; "no error" if none.
inline std::string spec_error(const std::string& body) {
  ScratchDir dir;
  const auto path = write_spec(dir, body);
  try {
    load_spec(path);
  } catch (const InputError& e) {
    // Make the message independent of the scratch directory.
    std::string m = e.what();
    const auto pos = m.find(path);
    return pos == std::string::npos ? m : m.replace(pos, path.size(), "spec.json");
  }
  return "no error";
}

// A small Llama-style config.json with the given extra fields, for context tests.
inline std::string tiny_config(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
      "torch_dtype": "bfloat16")" +
         extra + "}";
}

inline bool has_default(const Spec& s, const std::string& text) {
  return std::any_of(
      s.defaults.begin(), s.defaults.end(), [&](const std::string& d) { return d == text; });
}

} // namespace rightsize::test
