#include <rightsize/model/dtype.hpp>

#include <algorithm>
#include <array>

namespace rightsize {

namespace {
struct DTypeBits {
  DType type;
  double bits;
};
constexpr std::array<DTypeBits, 9> k_dtype_bits{{{DType::fp32, 32},
                                                 {DType::bf16, 16},
                                                 {DType::fp16, 16},
                                                 {DType::fp8, 8},
                                                 {DType::int8, 8},
                                                 {DType::int4, 4},
                                                 {DType::nf4, 4},
                                                 {DType::fp4, 4},
                                                 {DType::mxfp4, 4}}};

double bits_of(DType t) {
  for (const auto& i : k_dtype_bits) {
    if (i.type == t) {
      return i.bits;
    }
  }
  return k_dtype_bits[0].bits;
}
} // namespace

double element_bits(DType t) {
  return bits_of(t);
}
Bytes element_bytes(DType t) {
  return bits(bits_of(t));
}

std::vector<std::string> dtype_names() {
  return k_dtype_names.primary_names();
}

bool is_quantized_4bit(DType t) {
  return element_bits(t) <= 4.0;
}

bool is_float4(DType t) {
  return t == DType::fp4 || t == DType::mxfp4;
}

} // namespace rightsize
