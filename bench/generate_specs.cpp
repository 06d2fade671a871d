// Writes N deterministic, valid and varied workload specs into DIR (bench/spec_generator.hpp),
// for timing `rightsize check` over many specs (bench/wall_time.sh, docs/performance.md).
// Usage: rightsize_generate_specs N DIR [SEED [CONFIGS_DIR]]
//   SEED defaults to 1; CONFIGS_DIR to the source tree's tests/data/configs.

#include "spec_generator.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

namespace {

int usage() {
  std::cerr << "usage: rightsize_generate_specs N DIR [SEED [CONFIGS_DIR]]\n"
               "  writes N specs (1..100000) into DIR, drawn with SEED (default 1) over the\n"
               "  config.json files of CONFIGS_DIR (default " RIGHTSIZE_CONFIGS_DIR ")\n";
  return 2;
}

// A whole decimal number in [lo, hi], else nullopt.
std::optional<long long> parse_count(const std::string& text, long long lo, long long hi) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v >= lo && v <= hi) {
      return v;
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    return usage();
  }
  const auto n = parse_count(argv[1], 1, 100000);
  const auto seed = argc > 3 ? parse_count(argv[3], 0, 0xffffffffLL) : std::optional<long long>(1);
  if (!n || !seed) {
    return usage();
  }
  const std::filesystem::path dir = argv[2];
  const std::string configs = argc > 4 ? argv[4] : RIGHTSIZE_CONFIGS_DIR;
  try {
    const auto specs = rightsize::bench::generate_specs(
        static_cast<int>(*n), static_cast<unsigned>(*seed), configs);
    std::filesystem::create_directories(dir);
    for (const auto& [name, spec] : specs) {
      rightsize::write_file_atomically((dir / name).string(), spec.dump(2) + "\n");
    }
    std::cout << fmt::format("wrote {} specs to {}\n", specs.size(), dir.string());
  } catch (const rightsize::InputError& e) {
    std::cerr << "rightsize_generate_specs: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rightsize_generate_specs: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
