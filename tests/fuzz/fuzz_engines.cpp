// Engine support data (data/engines.json): parse_engine_support validates every row, and a file it
// accepts must answer every query, for every generation and format it knows and a few it does not,
// without throwing.

#include "fuzz_common.hpp"

#include <rightsize/catalog/engines.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = rightsize::fuzz::as_text(data, size);
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto json = rightsize::detail::parse_json_text(text, "engines.json");
    const auto support = rightsize::parse_engine_support(json, "engines.json");
    std::vector<std::string> generations{"sm110", ""};
    for (const auto& [name, g] : support.generations) {
      generations.push_back(name);
    }
    std::vector<std::string> engines = support.engine_names();
    engines.emplace_back("no-such-engine");
    for (const auto& engine : engines) {
      for (const auto& generation : generations) {
        for (const auto& weights : rightsize::engine_weight_formats()) {
          for (const char* kv : {"bf16", "fp16", "fp8", "fp9"}) {
            (void)rightsize::supports(support, engine, generation, weights, kv, "bf16");
            (void)rightsize::supports(support, engine, generation, weights, kv, "");
          }
        }
      }
    }
  });
  return 0;
}
