// The spec's precision: the shorthand, stated and defaulted activations.

#include "spec_test_helpers.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::has_default;
using rightsize::test::ScratchDir;
using rightsize::test::spec_error;
using rightsize::test::tiny_config;
using rightsize::test::write_spec;

TEST_CASE("spec: precision as one string, inline config and generic model", "[spec]") {
  ScratchDir dir;
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "fp8"})"));
  CHECK(s.precision.weights == DType::fp8);
  CHECK(s.precision.kv_cache == DType::fp8);
  CHECK(s.precision.activations == DType::bf16);
  CHECK(s.weights.method == "fp8");
  // No engine caches keys and values in 4 bits: "int4" and "nf4" keep the 16-bit KV cache, fp4
  // weights get fp8 (an audit found "int4" asking for an int4 KV cache that rejected every GPU).
  for (const char* four : {"int4", "nf4"}) {
    s = load_spec(
        write_spec(dir, fmt::format(R"({{"model": "models/llama", "precision": "{}"}})", four)));
    CHECK(s.precision.kv_cache == DType::bf16);
    CHECK(element_bits(s.precision.weights) == 4);
  }
  s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "fp4"})"));
  CHECK(s.precision.kv_cache == DType::fp8);
  s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "int8"})"));
  CHECK(s.precision.kv_cache == DType::int8);

  s = load_spec(write_spec(dir, R"({"model": {"model_type": "llama", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "bfloat16"}})"));
  CHECK(s.model.params_total == Approx(8.03e9).epsilon(0.001));

  s = load_spec(write_spec(dir, R"({"model": {"params": 13e9, "layers": 40, "hidden_size": 5120,
      "heads": 40, "vocab_size": 32000, "intermediate_size": 13824}})"));
  CHECK(s.model.params_total == 13e9);
  CHECK(s.model.param_source == "spec");
  CHECK(s.model.family == "generic");
  CHECK(s.model.kv_heads == 40);
}

TEST_CASE("spec: activations are stated or defaulted; 4-bit only as float W4A4", "[spec]") {
  ScratchDir dir;
  // The "fp8" shorthand keeps bf16 activations for storage but states nothing: the math stays
  // W8A8 (docs/model.md, "Compute precision").
  auto s = load_spec(write_spec(dir, R"({"model": "models/llama", "precision": "fp8"})"));
  CHECK_FALSE(s.precision.activations_stated());
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "fp8", "activations": "bf16"}})"));
  CHECK(s.precision.activations_stated());
  CHECK(s.precision.kv_cache == DType::bf16);
  // Stated for fp8 weights: a variant the planner tries with other weights deploys as usual.
  Spec variant = s;
  variant.precision.weights = DType::fp4;
  CHECK_FALSE(variant.precision.activations_stated());
  // NVFP4 and MXFP4 W4A4: the KV cache defaults to fp8, activation tensors count as bf16.
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "fp4", "activations": "nvfp4"}})"));
  CHECK(s.precision.activations == DType::fp4);
  CHECK(s.precision.kv_cache == DType::fp8);
  CHECK(activation_element_bytes(s.precision).si() == 2.0);
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "mxfp4", "activations": "mxfp4", "kv_cache": "bf16"}})"));
  CHECK(s.precision.activations == DType::mxfp4);
  CHECK(s.precision.kv_cache == DType::bf16);
  CHECK(activation_element_bytes(s.precision).si() == 2.0);
  // fp8 activations are stored as one byte, as before.
  s = load_spec(write_spec(dir, R"({"model": "models/llama",
      "precision": {"weights": "fp8", "activations": "fp8"}})"));
  CHECK(activation_element_bytes(s.precision).si() == 1.0);
  // Integer and nf4 activations have no tensor-core path; 4-bit floats need 4-bit float weights.
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "int4", "activations": "int4"}})") ==
        "spec.json:/precision/activations: must be at least 8-bit, or fp4/mxfp4 with fp4 or mxfp4 "
        "weights (W4A4), got \"int4\"");
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "fp4", "activations": "nf4"}})") ==
        "spec.json:/precision/activations: must be at least 8-bit, or fp4/mxfp4 with fp4 or mxfp4 "
        "weights (W4A4), got \"nf4\"");
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "bf16", "activations": "fp4"}})") ==
        "spec.json:/precision/activations: 4-bit activations need fp4 or mxfp4 weights (W4A4), "
        "not bf16, got \"fp4\"");
  CHECK(spec_error(R"({"model": "models/llama",
        "precision": {"weights": "int4", "activations": "mxfp4"}})") ==
        "spec.json:/precision/activations: 4-bit activations need fp4 or mxfp4 weights (W4A4), "
        "not int4, got \"mxfp4\"");
}
