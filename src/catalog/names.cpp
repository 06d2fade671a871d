// The catalog's names: tensor precisions, and GPU names as a person types them.

#include "names.hpp"

#include <cctype>

namespace rightsize {

namespace detail {

const std::vector<std::pair<std::string, TensorPrecision>>& precision_names() {
  static const std::vector<std::pair<std::string, TensorPrecision>> names{
      {"fp32", TensorPrecision::fp32},
      {"tf32", TensorPrecision::tf32},
      {"bf16", TensorPrecision::bf16},
      {"fp16", TensorPrecision::fp16},
      {"fp8", TensorPrecision::fp8},
      {"int8", TensorPrecision::int8},
      {"fp4", TensorPrecision::fp4}};
  return names;
}

const std::vector<std::pair<std::string, std::string>>& vendor_choices() {
  static const std::vector<std::pair<std::string, std::string>> names{{"nvidia", "nvidia"},
                                                                      {"amd", "amd"},
                                                                      {"intel", "intel"},
                                                                      {"google", "google"},
                                                                      {"aws", "aws"}};
  return names;
}

// "H100 SXM", "h100-sxm" and "H100_SXM" are the same name.
std::string squash(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::vector<std::string> precision_keys() {
  std::vector<std::string> keys;
  for (const auto& [name, p] : precision_names()) {
    keys.push_back(name);
  }
  return keys;
}

} // namespace detail

std::string_view to_string(TensorPrecision p) {
  for (const auto& [name, value] : detail::precision_names()) {
    if (value == p) {
      return name;
    }
  }
  return "bf16";
}

const std::vector<TensorPrecision>& all_tensor_precisions() {
  static const std::vector<TensorPrecision> all{TensorPrecision::fp32,
                                                TensorPrecision::tf32,
                                                TensorPrecision::bf16,
                                                TensorPrecision::fp16,
                                                TensorPrecision::fp8,
                                                TensorPrecision::int8,
                                                TensorPrecision::fp4};
  return all;
}

} // namespace rightsize
