// Each GPU generation's efficiency family is data (data/efficiency.json "generations"): every
// GPU of the bundled catalog keeps the family it had when the map was code, and a generation the
// data does not know is an error naming the file and the GPU, never another generation's family.

#include "cli/app.hpp"
#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/estimate/performance.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <sstream>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::efficiency;
using rightsize::test::ScratchDir;

namespace {

// The families of the generations of the bundled catalog, as performance.cpp's code gave them
// before they were data (CUDA compute capability -> architecture; gfx942 -> CDNA 3), and those of
// the parts added in 2026.12.1 (CDNA 4, Gaudi, TPU, Neuron: never measured, docs/catalog.md).
const std::map<std::string, std::string> k_families{{"sm75", "turing"},
                                                    {"sm80", "ampere"},
                                                    {"sm86", "ampere"},
                                                    {"sm89", "ada"},
                                                    {"sm90", "hopper"},
                                                    {"sm100", "blackwell"},
                                                    {"sm103", "blackwell"},
                                                    {"sm120", "blackwell"},
                                                    {"gfx942", "cdna3"},
                                                    {"gfx950", "cdna4"},
                                                    {"gaudi2", "gaudi"},
                                                    {"gaudi3", "gaudi"},
                                                    {"tpu-v5e", "tpu"},
                                                    {"tpu-v5p", "tpu"},
                                                    {"tpu-v6e", "tpu"},
                                                    {"trn2", "neuron"},
                                                    {"inf2", "neuron"}};
const std::string k_known =
    "gaudi2, gaudi3, gfx942, gfx950, inf2, sm100, sm103, sm120, sm75, sm80, sm86, sm89, sm90, "
    "tpu-v5e, tpu-v5p, tpu-v6e, trn2";

const std::string k_bundled = std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json";

// The bundled catalog with an overlay that gives `gpu` the generation `generation`.
Catalog
with_generation(const ScratchDir& dir, const std::string& gpu, const std::string& generation) {
  const nlohmann::json overlay = {{"schema_version", 1},
                                  {"extends", "bundled"},
                                  {"gpus", {{{"name", gpu}, {"generation", generation}}}}};
  return load_catalog(k_bundled, dir.write("overlay.json", overlay.dump()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("generations: every GPU of the bundled catalog keeps its family",
          "[estimate][generations]") {
  const Efficiency& eff = efficiency();
  CHECK(eff.generations().size() == k_families.size());
  for (const auto& [generation, family] : k_families) {
    CAPTURE(generation);
    REQUIRE(eff.generations().count(generation) == 1);
    CHECK(eff.generations().at(generation).family == family);
    CHECK_FALSE(eff.generations().at(generation).source.empty());
  }
  std::size_t gpus = 0;
  for (const std::string& name : catalog().names()) {
    const Gpu& gpu = catalog().resolve(name, "test");
    CAPTURE(gpu.name, gpu.generation);
    REQUIRE(k_families.count(gpu.generation) == 1);
    CHECK(eff.family_name(gpu) == k_families.at(gpu.generation));
    CHECK(&eff.family(gpu) == &eff.families.at(k_families.at(gpu.generation)));
    ++gpus;
  }
  CHECK(gpus > 20);
}

TEST_CASE("generations: an unknown generation is an error naming the file and the GPU",
          "[estimate][generations]") {
  ScratchDir dir;
  for (const auto& [gpu, generation] :
       std::vector<std::pair<std::string, std::string>>{{"MI325X", "gfx1250"}, {"B200", "sm110"}}) {
    const Catalog c = with_generation(dir, gpu, generation);
    const Gpu& g = c.resolve(gpu, "test");
    const std::string expected =
        "data/efficiency.json:/generations: has no GPU generation \"" + generation + "\" (" +
        g.name + "): its efficiency family is unknown (known generations: " + k_known + ")";
    CHECK(error_of([&] { (void)efficiency().family(g); }) == expected);
    CHECK(error_of([&] { (void)efficiency().family_name(g); }) == expected);
  }
}

TEST_CASE("generations: a generation's family must be one of the file's families",
          "[estimate][generations]") {
  ScratchDir dir;
  const std::string path = std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json";
  nlohmann::json j = nlohmann::json::parse(read_input_file(path, k_max_json_file_bytes, "test"));
  j["generations"]["sm90"]["family"] = "hoper";
  const std::string edited = dir.write("efficiency.json", j.dump(1));
  CHECK(error_of([&] { (void)Efficiency::load(edited); }) ==
        edited + ":/generations/sm90/family: is not a family of /families (did you mean "
                 "\"hopper\"?), got \"hoper\"");
  // Written back as read (rightsize_fit writes the file with to_json).
  CHECK(Efficiency::from_json(Efficiency::load(path).to_json(), "x").generations().size() ==
        k_families.size());
}

TEST_CASE("generations: estimate on an overlay GPU of an unknown generation exits 2, one line",
          "[estimate][generations][cli]") {
  ScratchDir dir;
  const nlohmann::json overlay = {{"schema_version", 1},
                                  {"extends", "bundled"},
                                  {"gpus", {{{"name", "MI325X"}, {"generation", "gfx1250"}}}}};
  std::ostringstream out;
  std::ostringstream err;
  const int code =
      rightsize::cli::run({"estimate",
                           std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json",
                           "--gpu",
                           "MI325X",
                           "--catalog",
                           dir.write("overlay.json", overlay.dump())},
                          out,
                          err);
  CHECK(code == 2);
  CHECK(out.str().empty());
  CHECK(err.str() ==
        "rightsize: error: data/efficiency.json:/generations: has no GPU generation "
        "\"gfx1250\" (MI325X-256GB): its efficiency family is unknown (known generations: " +
            k_known + ")\n");
}
