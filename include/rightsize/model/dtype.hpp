#pragma once

// Numeric formats of weights, KV cache and activations, with their storage size.

#include <rightsize/core/names.hpp>
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
// The names of the formats (core/names.hpp): the canonical ones first, then common spellings
// ("bfloat16", "float16", "float32", "e4m3") the parser also accepts.
inline constexpr NameRow<DType> k_dtype_rows[] = {
    {DType::fp32, "fp32"},    {DType::bf16, "bf16"},         {DType::fp16, "fp16"},
    {DType::fp8, "fp8"},      {DType::int8, "int8"},         {DType::int4, "int4"},
    {DType::nf4, "nf4"},      {DType::fp4, "fp4"},           {DType::mxfp4, "mxfp4"},
    {DType::fp32, "float32"}, {DType::fp32, "float"},        {DType::bf16, "bfloat16"},
    {DType::fp16, "float16"}, {DType::fp16, "half"},         {DType::fp8, "e4m3"},
    {DType::fp8, "fp8_e4m3"}, {DType::fp8, "float8_e4m3fn"}, {DType::fp8, "fp8_e5m2"},
    {DType::fp4, "nvfp4"},    {DType::int4, "uint4"},        {DType::int4, "w4"}};
inline constexpr NameTable<DType> k_dtype_names{k_dtype_rows};

// "bf16", "fp8", ...
inline std::string_view to_string(DType t) {
  return k_dtype_names.name(t);
}
// Accepts every name of k_dtype_names, case-insensitive.
inline std::optional<DType> parse_dtype(std::string_view name) {
  return k_dtype_names.find(name);
}
// The canonical names, for error messages and suggestions.
std::vector<std::string> dtype_names();
// The tensor-core precision that computes with this storage type on a GPU that has every rate:
// fp32 -> "tf32" math is not assumed; int4/nf4 weights dequantize to bf16.
bool is_quantized_4bit(DType t);
// The 4-bit float formats (NVFP4, MXFP4): Blackwell multiplies them at its fp4 tensor rate (W4A4).
bool is_float4(DType t);

} // namespace rightsize
