// A site calibration file (rightsize calibrate -o FILE), read the way --calibration and calibrate
// read it. A first byte of 1 is dropped and the rest's "digest" recomputed before reading, so that
// mutations reach the fields the digest check would otherwise stop at.

#include "fuzz_common.hpp"

#include <rightsize/calibrate/calibration_file.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/site_calibration.hpp>

#include <cmath>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool redigest = size > 0 && data[0] == 1;
  const std::string text(
      rightsize::fuzz::as_text(redigest ? data + 1 : data, redigest ? size - 1 : size));
  rightsize::fuzz::expect_input_errors_only([&] {
    nlohmann::json doc = rightsize::detail::parse_json_text(text, "fuzz.json");
    if (redigest && doc.is_object()) {
      doc["digest"] = rightsize::calibration_content_digest(doc);
    }
    const auto c = rightsize::site_calibration_from_json(doc, "fuzz.json", "digest");
    const auto runs = rightsize::read_run_records(doc, "fuzz.json");
    // What was accepted holds together: as many runs as the file has, factors within their
    // ranges, bands around 1.
    if (static_cast<long long>(runs.size()) != c.runs) {
      throw std::logic_error("run count differs between the two readers");
    }
    for (const auto& f : c.factors) {
      const bool sound = f.family_efficiency.memory > 0 && f.family_efficiency.memory <= 1 &&
                         f.family_efficiency.compute > 0 && f.family_efficiency.compute <= 1 &&
                         f.ttft.low_ratio <= 1 && f.ttft.high_ratio >= 1 && f.tpot.low_ratio <= 1 &&
                         f.tpot.high_ratio >= 1 && std::isfinite(f.overhead.per_request.si());
      if (!sound) {
        throw std::logic_error("accepted factors out of their ranges");
      }
    }
  });
  return 0;
}
