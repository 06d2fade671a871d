// The bundled data compiled into the binary (src/catalog/bundled.hpp): the embedded values must be
// exactly what parsing the files gives, and any other bytes must take the parse path.

#include "catalog/bundled.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/render/catalog.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

const std::string k_gpus = std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json";
const std::string k_engines = std::string(RIGHTSIZE_DATA_DIR) + "/engines.json";
const std::string k_overlay = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/my-prices.json";
const std::string k_published = std::string(RIGHTSIZE_DATA_DIR) + "/published";
const std::string k_published_index = k_published + "/published.json";

std::string read(const std::string& path) {
  return read_input_file(path, k_max_json_file_bytes, "test");
}

// The same JSON in other bytes (a trailing newline), so that loading it takes the parse path.
std::string other_bytes(const std::string& text) {
  return text + "\n";
}

// A copy of data/published/ in `dir`, byte for byte; returns the copy's index.
std::string copy_published(const ScratchDir& dir) {
  std::filesystem::copy(
      k_published, dir.path() + "/published", std::filesystem::copy_options::recursive);
  return dir.path() + "/published/published.json";
}

// Every table of `data` loaded: the serialized rows, one blob per model.
std::vector<std::string> published_tables(PublishedData& data) {
  load_published_results(data);
  std::vector<std::string> tables;
  for (const auto& m : data.models) {
    std::vector<PublishedResult> rows;
    for (const auto& r : data.results) {
      if (r.model == m.key) {
        rows.push_back(r);
      }
    }
    tables.push_back(detail::serialize_published_results(rows));
  }
  return tables;
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

TEST_CASE("bundled: the build embedded the published index and every model's table as they are",
          "[catalog][bundled][published]") {
  const auto index = detail::bundled_published_index_file();
  REQUIRE_FALSE(index.value.empty());
  CHECK(index.text == read(k_published_index));
  CHECK(detail::bundled_published_index_digest() == detail::fnv1a_hex(read(k_published_index)));
  const PublishedData data = load_published_index(k_published_index);
  REQUIRE(data.models.size() >= 9);
  for (const auto& m : data.models) {
    CAPTURE(m.key);
    const auto table = detail::bundled_published_table(m.key);
    REQUIRE_FALSE(table.value.empty());
    CHECK(table.text == read(m.results_file));
    CHECK(detail::bundled_published_results(data, m.key, read(m.results_file)).has_value());
    CHECK_FALSE(
        detail::bundled_published_results(data, m.key, read(m.results_file) + "\n").has_value());
  }
  CHECK(detail::bundled_published_table("no-such-model").value.empty());
  CHECK_FALSE(
      detail::bundled_published_index(other_bytes(read(k_published_index)), k_published_index)
          .has_value());
}

TEST_CASE("bundled: the embedded published data is the parsed one, with the files read",
          "[catalog][bundled][published]") {
  ScratchDir dir;
  // A byte-identical copy is the embedded index and tables, naming the copy's files.
  const std::string copy = copy_published(dir);
  PublishedData embedded = load_published_index(copy);
  CHECK(embedded.index_file == copy);
  CHECK(embedded.models.front().results_file ==
        dir.path() + "/published/results/" + embedded.models.front().key + ".csv");
  CHECK(embedded.digest == detail::fnv1a_hex(read(k_published_index)));
  // Other bytes in the index: it and, since they are checked against it, its tables are parsed.
  const std::string edited = dir.write("edited/published.json", other_bytes(read(copy)));
  std::filesystem::copy(dir.path() + "/published/results", dir.path() + "/edited/results");
  PublishedData parsed = load_published_index(edited);
  REQUIRE(parsed.digest != detail::bundled_published_index_digest());

  CHECK(detail::serialize_published_index(embedded) == [&] {
    PublishedData same = parsed;
    same.digest = embedded.digest; // the bytes differ
    same.index_file = copy;
    for (auto& m : same.models) {
      m.results_file = (std::filesystem::path(copy).parent_path() / "results" /
                        std::filesystem::path(m.results_file).filename())
                           .string();
    }
    return detail::serialize_published_index(same);
  }());
  const auto embedded_tables = published_tables(embedded);
  CHECK(embedded_tables == published_tables(parsed));
  CHECK(embedded.loaded == parsed.loaded);
  CHECK(embedded.results.size() > 800);
}

TEST_CASE("bundled: an edited table of the embedded index is parsed and validated",
          "[catalog][bundled][published]") {
  ScratchDir dir;
  const std::string copy = copy_published(dir);
  const std::string results = dir.path() + "/published/results/";
  // gpt-j-6b's table, read first, takes an id of llama-2-70b's, which is embedded: the repeat is
  // still found, on the embedded table's line.
  std::string gptj = read(results + "gpt-j-6b.csv");
  const std::string first_id = "trtllm-0.12-gpt-j-6b-h200-tp1-fp8-128-128,";
  REQUIRE(gptj.find(first_id) != std::string::npos);
  gptj.replace(
      gptj.find(first_id), first_id.size(), "trtllm-0.12-llama-2-70b-h200-tp2-fp8-128-128,");
  dir.write("published/results/gpt-j-6b.csv", gptj);
  PublishedData data = load_published_index(copy);
  load_published_results(data, "gpt-j-6b");
  CHECK_THROWS_WITH(load_published_results(data, "llama-2-70b"),
                    Catch::Contains("llama-2-70b.csv:2: column \"id\": appears twice"));
  CHECK_FALSE(data.is_loaded("llama-2-70b"));

  // A value out of range in an otherwise embedded table.
  std::string mistral = read(results + "mistral-7b-v0.1.csv");
  const auto last_comma = mistral.rfind(',', mistral.find('\n', mistral.find('\n') + 1));
  mistral.replace(last_comma + 1, mistral.find('\n', last_comma) - last_comma - 1, "-5");
  dir.write("published/results/mistral-7b-v0.1.csv", mistral);
  CHECK_THROWS_WITH(load_published_results(data, "mistral-7b-v0.1"),
                    Catch::Contains("mistral-7b-v0.1.csv:2: column \"value\": must be > 0"));
}

TEST_CASE("bundled: the serialized published data comes back identical",
          "[catalog][bundled][published]") {
  PublishedData data = load_published_index(k_published_index);
  const std::string blob = detail::serialize_published_index(data);
  CHECK(detail::serialize_published_index(
            detail::deserialize_published_index(blob, k_published_index)) == blob);
  CHECK_THROWS_AS(detail::deserialize_published_index(blob + "x", k_published_index),
                  InternalError);
  load_published_results(data, "llama-3.1-8b");
  const std::string rows = detail::serialize_published_results(data.results);
  CHECK(detail::serialize_published_results(detail::deserialize_published_results(rows)) == rows);
  CHECK_THROWS_AS(detail::deserialize_published_results(rows.substr(0, rows.size() - 1)),
                  InternalError);
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

TEST_CASE("bundled: the catalog's figures alone are the catalog without its sources",
          "[catalog][bundled]") {
  // What plan, check, deploy, estimate, compare and observe load (CatalogDetail::figures): the
  // embedded catalog with every GPU's per-field sources read past, not kept.
  const Catalog whole = load_catalog(k_gpus);
  const Catalog figures = load_catalog(k_gpus, "", CatalogDetail::figures);
  CHECK_FALSE(whole.sources_dropped);
  CHECK(figures.sources_dropped);
  REQUIRE(figures.gpus.size() == whole.gpus.size());
  Catalog stripped = whole;
  for (auto& g : stripped.gpus) {
    REQUIRE_FALSE(g.provenance.empty());
    g.provenance.clear();
  }
  CHECK(detail::serialize_catalog(figures) == detail::serialize_catalog(stripped));
  // Prices and purchases keep their sources: costs name them.
  CHECK(figures.gpus[0].prices.front().provenance.source ==
        whole.gpus[0].prices.front().provenance.source);
  // The catalog views show every field's source: they refuse such a catalog rather than show
  // none.
  const CatalogView view{figures, "2026-11-28"};
  CHECK_THROWS_AS(gpu_to_json(figures.gpus[0], view), InternalError);
  std::ostringstream out;
  CHECK_THROWS_AS(render_gpu_table(figures.gpus[0], view, out), InternalError);
  CHECK_NOTHROW(gpu_to_json(whole.gpus[0], CatalogView{whole, "2026-11-28"}));
}
