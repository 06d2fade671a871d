// The bundled data compiled into the binary (src/catalog/bundled.hpp): the embedded values must be
// exactly what parsing the files gives, and any other bytes must take the parse path.

#include "catalog/bundled.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

const std::string k_gpus = std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json";
const std::string k_engines = std::string(RIGHTSIZE_DATA_DIR) + "/engines.json";
const std::string k_overlay = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/my-prices.json";

std::string read(const std::string& path) {
  return read_input_file(path, k_max_json_file_bytes, "test");
}

// The same JSON in other bytes (a trailing newline), so that loading it takes the parse path.
std::string other_bytes(const std::string& text) {
  return text + "\n";
}

} // namespace

TEST_CASE("bundled: the build embedded the data files as they are", "[catalog][bundled]") {
  const auto catalog = detail::bundled_catalog_file();
  const auto engines = detail::bundled_engines_file();
  // Empty when the build could not load a file (its warning says why).
  REQUIRE_FALSE(catalog.value.empty());
  REQUIRE_FALSE(engines.value.empty());
  CHECK(catalog.text == read(k_gpus));
  CHECK(engines.text == read(k_engines));
  CHECK(detail::bundled_catalog(read(k_gpus), k_gpus).has_value());
  CHECK_FALSE(detail::bundled_catalog(other_bytes(read(k_gpus)), k_gpus).has_value());
  CHECK(detail::bundled_engine_support(read(k_engines), k_engines).has_value());
  CHECK_FALSE(detail::bundled_engine_support(other_bytes(read(k_engines)), k_engines).has_value());
}

TEST_CASE("bundled: the embedded catalog is the parsed one, field for field",
          "[catalog][bundled]") {
  ScratchDir dir;
  const std::string text = read(k_gpus);
  const Catalog embedded = load_catalog(k_gpus);
  Catalog parsed = load_catalog(dir.write("gpus.json", other_bytes(text)));

  CHECK(embedded.files == std::vector<std::string>{k_gpus});
  CHECK(embedded.digest == detail::fnv1a_hex(text));
  CHECK(embedded.version == parsed.version);
  REQUIRE(embedded.gpus.size() == parsed.gpus.size());
  for (std::size_t i = 0; i < parsed.gpus.size(); ++i) {
    CAPTURE(parsed.gpus[i].name);
    CHECK(detail::serialize_catalog(Catalog{1, "", "", {}, {}, {embedded.gpus[i]}}) ==
          detail::serialize_catalog(Catalog{1, "", "", {}, {}, {parsed.gpus[i]}}));
  }
  // Everything else: only the digest differs, since the bytes do.
  parsed.digest = embedded.digest;
  CHECK(detail::serialize_catalog(embedded) == detail::serialize_catalog(parsed));
}

TEST_CASE("bundled: the embedded engine support is the parsed one, with the file read",
          "[catalog][bundled]") {
  ScratchDir dir;
  const std::string text = read(k_engines);
  // A byte-identical copy elsewhere is the embedded value, naming the copy as a parse would.
  const std::string copy = dir.write("same/engines.json", text);
  const EngineSupport embedded = load_engine_support(copy);
  const std::string edited = dir.write("edited/engines.json", other_bytes(text));
  const EngineSupport parsed = load_engine_support(edited);

  CHECK(embedded.files == std::vector<std::string>{copy});
  REQUIRE_FALSE(embedded.engines.empty());
  REQUIRE_FALSE(embedded.engines.front().weights.empty());
  CHECK(embedded.engines.front().weights.front().where == copy + ":/engines/0/weights/0");
  CHECK(detail::serialize_engine_support(embedded, copy) ==
        detail::serialize_engine_support(parsed, edited));
}

TEST_CASE("bundled: edited data files are parsed and validated", "[catalog][bundled]") {
  ScratchDir dir;
  auto doc = nlohmann::json::parse(read(k_gpus));
  doc["gpus"][0]["tdp_watts"]["value"] = 123;
  CHECK(load_catalog(dir.write("gpus.json", doc.dump(1))).gpus[0].tdp.si() == 123);

  doc["gpus"][0]["tdp_watts"]["value"] = -1;
  CHECK_THROWS_WITH(load_catalog(dir.write("bad.json", doc.dump(1))),
                    Catch::EndsWith("bad.json:/gpus/0/tdp_watts/value: must be > 0 and <= 5000, "
                                    "got -1"));

  auto engines = nlohmann::json::parse(read(k_engines));
  engines["engines"][0]["weights"][0]["format"] = "fp9";
  CHECK_THROWS_WITH(load_engine_support(dir.write("engines.json", engines.dump(1))),
                    Catch::Contains("engines.json:/engines/0/weights/0/format: must be one of"));

  CHECK_THROWS_WITH(load_catalog(dir.path() + "/missing.json"),
                    Catch::EndsWith("missing.json: cannot read file: no such file or directory"));
  CHECK_THROWS_WITH(load_engine_support(dir.path() + "/missing.json"),
                    Catch::EndsWith("missing.json: cannot read file: no such file or directory"));
}

TEST_CASE("bundled: an overlay on the embedded catalog is the overlay on the parsed one",
          "[catalog][bundled]") {
  ScratchDir dir;
  const std::string edited = dir.write("gpus.json", other_bytes(read(k_gpus)));
  const Catalog on_embedded = load_catalog(k_gpus, k_overlay);
  Catalog on_parsed = load_catalog(edited, k_overlay);
  CHECK(on_embedded.files == std::vector<std::string>{k_gpus, k_overlay});
  CHECK(on_embedded.digest == detail::fnv1a_hex(read(k_gpus) + read(k_overlay)));
  on_parsed.digest = on_embedded.digest;
  CHECK(detail::serialize_catalog(on_embedded) == detail::serialize_catalog(on_parsed));
}

TEST_CASE("bundled: the serialized form comes back identical", "[catalog][bundled]") {
  const Catalog c = load_catalog(k_gpus);
  const std::string blob = detail::serialize_catalog(c);
  CHECK(detail::serialize_catalog(detail::deserialize_catalog(blob, "x.json")) == blob);
  CHECK_THROWS_AS(detail::deserialize_catalog(blob.substr(0, blob.size() - 1), "x.json"),
                  InternalError);
  CHECK_THROWS_AS(detail::deserialize_catalog(blob + "x", "x.json"), InternalError);
  CHECK_THROWS_AS(detail::deserialize_catalog("not a blob", "x.json"), InternalError);
}
