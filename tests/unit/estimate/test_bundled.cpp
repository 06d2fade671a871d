// The estimate stage's data compiled into the binary (src/estimate/bundled.hpp): the embedded
// values must be exactly what parsing the files gives, and any other bytes must take the parse
// path.

#include "estimate/bundled.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

const std::string k_memory = std::string(RIGHTSIZE_DATA_DIR) + "/memory.json";
const std::string k_efficiency = std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json";
const std::string k_uncertainty = std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json";

std::string read(const std::string& path) {
  return read_input_file(path, k_max_json_file_bytes, "test");
}

// The same JSON in other bytes (a trailing newline), so that loading it takes the parse path.
std::string other_bytes(const std::string& text) {
  return text + "\n";
}

} // namespace

TEST_CASE("bundled estimate data: the build embedded the data files as they are",
          "[estimate][bundled]") {
  const auto memory = detail::bundled_memory_file();
  const auto efficiency = detail::bundled_efficiency_file();
  const auto uncertainty = detail::bundled_uncertainty_file();
  // Empty when the build could not load a file (its warning says why).
  REQUIRE_FALSE(memory.value.empty());
  REQUIRE_FALSE(efficiency.value.empty());
  REQUIRE_FALSE(uncertainty.value.empty());
  CHECK(memory.text == read(k_memory));
  CHECK(efficiency.text == read(k_efficiency));
  CHECK(uncertainty.text == read(k_uncertainty));
  CHECK(detail::bundled_constants(read(k_memory)).has_value());
  CHECK_FALSE(detail::bundled_constants(other_bytes(read(k_memory))).has_value());
  CHECK(detail::bundled_efficiency(read(k_efficiency)).has_value());
  CHECK_FALSE(detail::bundled_efficiency(other_bytes(read(k_efficiency))).has_value());
  CHECK(detail::bundled_uncertainty(read(k_uncertainty)).has_value());
  CHECK_FALSE(detail::bundled_uncertainty(other_bytes(read(k_uncertainty))).has_value());
}

TEST_CASE("bundled estimate data: the embedded values are the parsed ones", "[estimate][bundled]") {
  ScratchDir dir;
  const Constants embedded_constants = Constants::load(k_memory);
  const Constants parsed_constants =
      Constants::load(dir.write("memory.json", other_bytes(read(k_memory))));
  CHECK(detail::serialize_constants(embedded_constants) ==
        detail::serialize_constants(parsed_constants));
  // The index the estimator reads is rebuilt from the values.
  for (std::size_t i = 0; i < static_cast<std::size_t>(Constant::count); ++i) {
    const auto c = static_cast<Constant>(i);
    CAPTURE(constant_name(c));
    CHECK(embedded_constants.get(c) == parsed_constants.get(c));
  }
  const Efficiency embedded_efficiency = Efficiency::load(k_efficiency);
  const Efficiency parsed_efficiency =
      Efficiency::load(dir.write("efficiency.json", other_bytes(read(k_efficiency))));
  CHECK(detail::serialize_efficiency(embedded_efficiency) ==
        detail::serialize_efficiency(parsed_efficiency));
  CHECK(embedded_efficiency.to_json() == parsed_efficiency.to_json());
  const Uncertainty embedded_uncertainty = Uncertainty::load(k_uncertainty);
  const Uncertainty parsed_uncertainty =
      Uncertainty::load(dir.write("uncertainty.json", other_bytes(read(k_uncertainty))));
  CHECK(detail::serialize_uncertainty(embedded_uncertainty) ==
        detail::serialize_uncertainty(parsed_uncertainty));
  CHECK(embedded_uncertainty.high_ratio("tpot", "hopper", "vllm") ==
        parsed_uncertainty.high_ratio("tpot", "hopper", "vllm"));
}

TEST_CASE("bundled estimate data: edited files are parsed and validated", "[estimate][bundled]") {
  ScratchDir dir;
  auto memory = nlohmann::json::parse(read(k_memory));
  memory["constants"]["cuda_context_mib"]["value"] = 123;
  CHECK(Constants::load(dir.write("memory.json", memory.dump(1))).get(Constant::cuda_context_mib) ==
        123);
  memory["constants"]["max_num_seqs"]["value"] = 0;
  CHECK_THROWS_WITH(Constants::load(dir.write("bad.json", memory.dump(1))),
                    Catch::Contains("bad.json:/constants/max_num_seqs/value"));
  auto efficiency = nlohmann::json::parse(read(k_efficiency));
  efficiency["interconnect"]["dp_overlap"] = 2;
  CHECK_THROWS_WITH(Efficiency::load(dir.write("efficiency.json", efficiency.dump(1))),
                    Catch::Contains("efficiency.json:/interconnect/dp_overlap"));
  CHECK_THROWS_WITH(Uncertainty::load(dir.path() + "/missing.json"),
                    Catch::EndsWith("missing.json: cannot read file: no such file or directory"));
}

TEST_CASE("bundled estimate data: the serialized form comes back identical",
          "[estimate][bundled]") {
  const std::string blob = detail::serialize_uncertainty(Uncertainty::load(k_uncertainty));
  CHECK(detail::serialize_uncertainty(detail::deserialize_uncertainty(blob)) == blob);
  CHECK_THROWS_AS(detail::deserialize_uncertainty(blob.substr(0, blob.size() - 1)), InternalError);
  CHECK_THROWS_AS(detail::deserialize_uncertainty(blob + "x"), InternalError);
  CHECK_THROWS_AS(detail::deserialize_constants("not a blob"), InternalError);
}
