// A Hugging Face config.json: family detection, dimensions, attention and MoE fields, embedded
// quantization_config, then the parameter counts and weight bytes derived from them.

#include "fuzz_common.hpp"

#include <rightsize/model/model.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto json =
        rightsize::detail::parse_json_text(rightsize::fuzz::as_text(data, size), "config.json");
    rightsize::ModelArch model = rightsize::parse_hf_config(json, "config.json", "");
    (void)rightsize::weight_bytes(model, model.quantization);
  });
  return 0;
}
