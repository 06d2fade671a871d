#pragma once

// Numeric formats of weights, KV cache and activations, with their storage size.

#include <rightsize/core/units.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

enum class DType {
  fp32,
  bf16,
  fp16,
  fp8, // E4M3/E5M2, one byte
  int8,
  int4,
  nf4,   // bitsandbytes NormalFloat4
  fp4,   // NVFP4 (E2M1 with an FP8 scale per 16 values)
  mxfp4, // OCP MX FP4 (E2M1 with an E8M0 scale per 32 values)
};

// Bits of one stored element, without block scales (fp32 32, bf16 16, fp8 8, nf4 4, ...).
double element_bits(DType t);
// Bytes of one element without scales.
Bytes element_bytes(DType t);
// "bf16", "fp8", ...
std::string_view to_string(DType t);
// Accepts the names above and common spellings ("bfloat16", "float16", "float32", "e4m3").
std::optional<DType> parse_dtype(std::string_view name);
// The canonical names, for error messages and suggestions.
std::vector<std::string> dtype_names();
// The tensor-core precision that computes with this storage type on a GPU that has every rate:
// fp32 -> "tf32" math is not assumed; int4/nf4 weights dequantize to bf16.
bool is_quantized_4bit(DType t);
// The 4-bit float formats (NVFP4, MXFP4): Blackwell multiplies them at its fp4 tensor rate (W4A4).
bool is_float4(DType t);

} // namespace rightsize
