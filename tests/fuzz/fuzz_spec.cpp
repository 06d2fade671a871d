// A rightsize spec or a bare config.json, and what the pipeline does with a spec it accepted: the
// memory and performance estimate on one GPU of the bundled catalog. Model paths resolve against
// a directory that does not exist, so only inline ("generic") models and bare configs parse.

#include "fuzz_common.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

namespace {

struct Data {
  rightsize::Catalog catalog = rightsize::load_catalog(RIGHTSIZE_DATA_DIR "/gpus.json");
  rightsize::Constants constants = rightsize::Constants::load(RIGHTSIZE_DATA_DIR "/memory.json");
  rightsize::Efficiency efficiency =
      rightsize::Efficiency::load(RIGHTSIZE_DATA_DIR "/efficiency.json");
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Data d;
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto json = rightsize::detail::parse_json_text(rightsize::fuzz::as_text(data, size),
                                                         "/nonexistent/fuzz/spec.json");
    const rightsize::Spec spec = rightsize::parse_spec(json, "/nonexistent/fuzz/spec.json");
    const rightsize::Gpu& gpu = d.catalog.resolve("H100-SXM", "fuzz");
    const rightsize::Parallelism layout;
    const auto memory = rightsize::estimate_memory(spec, gpu, layout, d.constants);
    if (spec.workload.is_training()) {
      (void)rightsize::estimate_training(spec, gpu, layout, memory, d.efficiency);
    } else if (memory.max_batch >= 1) {
      (void)rightsize::estimate_inference(spec, gpu, layout, memory, d.efficiency, d.constants, 1);
    }
  });
  return 0;
}
