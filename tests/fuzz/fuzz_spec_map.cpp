// A map of workloads to specs (observe --spec-map), read as observe reads it, and each pattern
// matched against workload names as observe matches them.

#include "fuzz_common.hpp"
#include "fuzz_temp_file.hpp"

#include <rightsize/observe/serving.hpp>

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto& path = rightsize::fuzz::write_temp(rightsize::fuzz::as_text(data, size), ".json");
    const std::string long_name(300, 'a');
    for (const auto& e : rightsize::read_spec_map(path)) {
      // What read_spec_map accepts: a pattern, a spec file, and where it was read.
      if (e.pattern.empty() || e.spec_file.empty() || e.where.empty()) {
        std::abort();
      }
      for (const std::string& name :
           {std::string("llm-serving/vllm-llama3-70b-7d9f"), std::string(), long_name}) {
        (void)rightsize::workload_matches(e.pattern, name);
      }
    }
  });
  return 0;
}
