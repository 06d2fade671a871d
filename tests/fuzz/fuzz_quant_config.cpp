// Quantization descriptions: quantization_config objects (AWQ, GPTQ, bitsandbytes, fp8, mxfp4,
// compressed-tensors) and ModelOpt's hf_quant_config.json.

#include "fuzz_common.hpp"

#include <rightsize/model/model.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto json =
        rightsize::detail::parse_json_text(rightsize::fuzz::as_text(data, size), "quant.json");
    (void)rightsize::parse_quantization_config(json, "quant.json", "", rightsize::DType::bf16);
  });
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto json = rightsize::detail::parse_json_text(rightsize::fuzz::as_text(data, size),
                                                         "hf_quant_config.json");
    (void)rightsize::parse_hf_quant_config(json, "hf_quant_config.json", rightsize::DType::bf16);
  });
  return 0;
}
