// Published measurements (data/published, rightsize compare --published): an input that starts
// with '{' is the index (beside the fixture's results table of Llama 3.1 8B, as results.csv), any
// other that results table (beside the fixture's index, its one model pointed at results.csv).
// What loads is then predicted on Llama 3.1 8B, run by run, as compare does: no input may crash,
// hang or throw anything but an input error.

#include "fuzz_common.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/plan/published.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
}

struct World {
  std::string dir;
  std::string index_text;
  std::string results_text;
  rightsize::Catalog catalog;
  rightsize::Constants constants;
  rightsize::Efficiency efficiency;
  rightsize::Spec spec;
};

const World& world() {
  static const World w = [] {
    World x;
    std::string tmpl = "/tmp/rightsize-fuzz-published-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::abort();
    }
    x.dir = tmpl;
    const std::string fixtures = std::string(RIGHTSIZE_TESTS_DIR) + "/data/published/";
    auto index = nlohmann::json::parse(read(fixtures + "published.json"));
    auto model = index["models"]["llama-3.1-8b"];
    model["results"] = "results.csv";
    index["models"] = nlohmann::json{{"llama-3.1-8b", model}};
    x.index_text = index.dump(2);
    x.results_text = read(fixtures + "results/llama-3.1-8b.csv");
    const std::string data = RIGHTSIZE_DATA_DIR;
    x.catalog = rightsize::load_catalog(data + "/gpus.json");
    x.constants = rightsize::Constants::load(data + "/memory.json");
    x.efficiency = rightsize::Efficiency::load(data + "/efficiency.json");
    x.spec = rightsize::load_spec(std::string(RIGHTSIZE_TESTS_DIR) +
                                  "/data/configs/llama-3.1-8b/config.json");
    return x;
  }();
  return w;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const World& w = world();
  const auto text = rightsize::fuzz::as_text(data, size);
  const bool index = !text.empty() && text.front() == '{';
  write(w.dir + "/published.json", index ? text : std::string_view(w.index_text));
  write(w.dir + "/results.csv", index ? std::string_view(w.results_text) : text);
  rightsize::fuzz::expect_input_errors_only([&] {
    auto published = rightsize::load_published_index(w.dir + "/published.json");
    rightsize::load_published_results(published);
    for (const auto& r : published.results) {
      (void)rightsize::predict_published(
          w.spec, r, published, w.catalog, w.constants, w.efficiency, nullptr);
    }
  });
  return 0;
}
