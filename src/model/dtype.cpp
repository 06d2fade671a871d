#include <rightsize/model/dtype.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace rightsize {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  double bits;
};
constexpr std::array<DTypeInfo, 9> k_dtypes{{{DType::fp32, "fp32", 32},
                                             {DType::bf16, "bf16", 16},
                                             {DType::fp16, "fp16", 16},
                                             {DType::fp8, "fp8", 8},
                                             {DType::int8, "int8", 8},
                                             {DType::int4, "int4", 4},
                                             {DType::nf4, "nf4", 4},
                                             {DType::fp4, "fp4", 4},
                                             {DType::mxfp4, "mxfp4", 4}}};

const DTypeInfo& info(DType t) {
  for (const auto& i : k_dtypes) {
    if (i.type == t) {
      return i;
    }
  }
  return k_dtypes[0];
}
} // namespace

double element_bits(DType t) {
  return info(t).bits;
}
Bytes element_bytes(DType t) {
  return bits(info(t).bits);
}
std::string_view to_string(DType t) {
  return info(t).name;
}

std::optional<DType> parse_dtype(std::string_view name) {
  std::string lower;
  for (const char c : name) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  static const std::array<std::pair<std::string_view, DType>, 12> aliases{{
      {"float32", DType::fp32},
      {"float", DType::fp32},
      {"bfloat16", DType::bf16},
      {"float16", DType::fp16},
      {"half", DType::fp16},
      {"e4m3", DType::fp8},
      {"fp8_e4m3", DType::fp8},
      {"float8_e4m3fn", DType::fp8},
      {"fp8_e5m2", DType::fp8},
      {"nvfp4", DType::fp4},
      {"uint4", DType::int4},
      {"w4", DType::int4},
  }};
  for (const auto& i : k_dtypes) {
    if (i.name == lower) {
      return i.type;
    }
  }
  for (const auto& [alias, type] : aliases) {
    if (alias == lower) {
      return type;
    }
  }
  return std::nullopt;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (const auto& i : k_dtypes) {
    out.emplace_back(i.name);
  }
  return out;
}

bool is_quantized_4bit(DType t) {
  return element_bits(t) <= 4.0;
}

bool is_float4(DType t) {
  return t == DType::fp4 || t == DType::mxfp4;
}

} // namespace rightsize
