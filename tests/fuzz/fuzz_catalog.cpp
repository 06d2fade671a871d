// A GPU catalog: as a complete catalog (parse_catalog validates every field and source) and as an
// overlay merged onto the bundled catalog (load_catalog), the way --catalog reads it.

#include "fuzz_common.hpp"
#include "fuzz_temp_file.hpp"

#include <rightsize/catalog/catalog.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = rightsize::fuzz::as_text(data, size);
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto json = rightsize::detail::parse_json_text(text, "catalog.json");
    (void)rightsize::parse_catalog(json, "catalog.json");
  });
  rightsize::fuzz::expect_input_errors_only([&] {
    const auto& path = rightsize::fuzz::write_temp(text, ".json");
    (void)rightsize::load_catalog(RIGHTSIZE_DATA_DIR "/gpus.json", path);
  });
  return 0;
}
