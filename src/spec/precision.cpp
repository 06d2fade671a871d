// The spec's "precision": the formats of the weights, KV cache and activations, and how the weights
// are stored (docs/spec.md, "Precision").

#include "reader.hpp"

#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

namespace rightsize {

Bytes activation_element_bytes(const Precision& p) {
  return element_bits(p.activations) < 8 ? element_bytes(DType::bf16)
                                         : element_bytes(p.activations);
}

} // namespace rightsize

namespace rightsize::spec_reader {

namespace {

DType read_dtype(const FieldReader& field) {
  const auto name = field.as_string();
  const auto d = parse_dtype(name);
  if (!d) {
    field.fail("unknown precision (expected one of " + FieldReader::join(dtype_names()) + ")" +
               did_you_mean(name, dtype_names()));
  }
  return *d;
}

// The dtype a serving engine computes in when the checkpoint says `t`: vLLM and SGLang serve
// fp32 checkpoints in fp16 (vLLM --dtype auto; engine_traits.cpp).
DType serving_dtype(DType t, Engine engine) {
  if (t == DType::fp32 && engine_traits(engine).fp32_in_fp16) {
    return DType::fp16;
  }
  return element_bits(t) < 16 ? DType::bf16 : t;
}

// Activations of at least 8 bits, or 4-bit floats with 4-bit float weights: NVFP4 and MXFP4 W4A4
// GEMMs run on Blackwell's fp4 tensor cores (TensorRT-LLM NVFP4). Integer and nf4 activations
// have no tensor-core path.
DType read_activations(const FieldReader& field, DType weights) {
  const DType d = read_dtype(field);
  if (element_bits(d) >= 8 || (is_float4(d) && is_float4(weights))) {
    return d;
  }
  field.fail(is_float4(d)
                 ? fmt::format("4-bit activations need fp4 or mxfp4 weights (W4A4), not {}",
                               to_string(weights))
                 : std::string("must be at least 8-bit, or fp4/mxfp4 with fp4 or mxfp4 weights "
                               "(W4A4)"));
}

} // namespace

void read_precision(const FieldReader& root, Spec& spec) {
  const ModelArch& m = spec.model;
  const bool qlora = spec.workload.type == WorkloadType::finetune &&
                     spec.workload.training.method == FinetuneMethod::qlora;
  const DType compute = spec.workload.is_training()
                            ? (m.torch_dtype == DType::fp16 ? DType::fp16 : DType::bf16)
                            : serving_dtype(m.torch_dtype, spec.workload.inference.engine);
  // Defaults: the checkpoint as stored.
  Precision p;
  p.weights = m.quantization.quantized() ? m.quantization.dtype : compute;
  if (qlora && !m.quantization.quantized()) {
    p.weights = DType::nf4;
  }
  p.activations = m.quantization.quantized() ? m.quantization.high_precision : compute;
  p.kv_cache = m.quantization.kv_cache.value_or(p.activations);
  bool weights_given = false;
  if (root.has("precision")) {
    const auto field = root.member("precision");
    if (field.json().is_string()) {
      // The shorthand sets the weights, and the KV cache where a KV cache format of it exists:
      // engines cache keys and values in 16 or 8 bits (fp8 under fp4 weights, as under fp4
      // activations); under int4 or nf4 weights the cache keeps its 16-bit default.
      const DType d = read_dtype(field);
      p.weights = d;
      if (element_bits(d) >= 8) {
        p.kv_cache = d;
      } else if (is_float4(d)) {
        p.kv_cache = DType::fp8;
      }
      p.activations = element_bits(d) < 16 ? DType::bf16 : d;
      weights_given = true;
    } else {
      const auto r = root.object("precision");
      r.reject_unknown({"weights", "kv_cache", "activations", "allow"});
      if (r.has("weights")) {
        p.weights = read_dtype(r.member("weights"));
        weights_given = true;
      }
      if (r.has("activations")) {
        p.activations = read_activations(r.member("activations"), p.weights);
        p.activations_stated_for = p.weights;
      }
      if (r.has("kv_cache")) {
        p.kv_cache = read_dtype(r.member("kv_cache"));
      } else if (r.has("activations")) {
        // The KV cache follows the activations; under 4-bit activations it takes fp8, the
        // narrowest KV format vLLM, SGLang and TensorRT-LLM all offer.
        p.kv_cache = element_bits(p.activations) < 8 ? DType::fp8 : p.activations;
      }
      if (r.has("allow")) {
        for (const auto& e : r.array("allow")) {
          p.allow.push_back(read_dtype(e));
        }
      }
    }
  } else {
    spec.defaults.push_back(fmt::format(
        "precision: weights {}{}, activations {} (from the checkpoint)",
        to_string(p.weights),
        spec.keeps_kv_cache() ? fmt::format(", kv_cache {}", to_string(p.kv_cache)) : "",
        to_string(p.activations)));
  }
  if (qlora && p.weights != DType::nf4 && p.weights != DType::int4) {
    root.member("precision").fail_plain("qlora needs 4-bit base weights (nf4)");
  }
  // Planned in 16 or 32 bits only: diffusers loads a pipeline in one torch_dtype (quantized
  // pipelines are not modelled), and transformers quantizes nn.Linear layers only (fp8, int8 and
  // the 4-bit schemes alike), so a CNN's convolutions would stay in 16 bits and run at 16-bit
  // rates whatever the spec says (its activations are checked too).
  const bool cnn = m.image && m.image->cnn;
  if (m.diffusion || cnn) {
    auto asked = p.allow;
    asked.push_back(p.weights);
    if (cnn) {
      asked.push_back(p.activations);
    }
    for (const DType d : asked) {
      if (element_bits(d) < 16) {
        root.member("precision")
            .fail_plain(cnn ? fmt::format("{} is a CNN, planned in bf16, fp16 or fp32, got {} "
                                          "(quantization replaces linear layers only: its "
                                          "convolutions would stay 16-bit)",
                                          m.family,
                                          to_string(d))
                            : fmt::format("a diffusers pipeline is planned in bf16, fp16 or fp32, "
                                          "got {} (quantized pipelines are not modelled)",
                                          to_string(d)));
      }
    }
  }
  spec.precision = p;
  // How the weights are stored: the checkpoint's own scheme when it matches, else the default
  // scheme for the requested dtype.
  if (m.quantization.quantized() && (!weights_given || p.weights == m.quantization.dtype)) {
    spec.weights = m.quantization;
  } else {
    spec.weights = quantization_for(p.weights, p.activations);
  }
}

} // namespace rightsize::spec_reader
