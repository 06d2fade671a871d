// Each GPU generation's efficiency family (data/efficiency.json "generations"; performance.hpp):
// reading it, and the look-up every evaluation makes.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/performance.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

using detail::FieldReader;

void Efficiency::read_generations(const FieldReader& section) {
  for (const auto& [name, value] : section.json().items()) {
    const auto g = section.object(name);
    g.reject_unknown({"family", "source"});
    const auto family = g.member("family");
    const std::string family_name = family.as_string();
    if (families.count(family_name) == 0) {
      std::vector<std::string> known;
      for (const auto& [known_name, f] : families) {
        known.push_back(known_name);
      }
      family.fail("is not a family of /families" + did_you_mean(family_name, known));
    }
    m_generations[name] = GenerationFamily{family_name, g.string("source")};
  }
  index_generations();
}

std::string Efficiency::family_name(const Gpu& gpu) const {
  return std::string(family_key(gpu));
}

namespace {

// A generation's name as a number (its bytes, most significant first), for names of at most 8
// bytes: the look-up of a GPU's family compares numbers, not strings.
std::optional<std::uint64_t> packed_generation(std::string_view name) {
  if (name.size() > sizeof(std::uint64_t)) {
    return std::nullopt;
  }
  std::uint64_t key = 0;
  for (const char c : name) {
    key = (key << 8U) | static_cast<unsigned char>(c);
  }
  return key;
}

} // namespace

void Efficiency::index_generations() {
  m_family_of.clear();
  for (const auto& [name, g] : m_generations) {
    if (const auto key = packed_generation(name)) {
      m_family_of.emplace_back(*key, g.family);
    }
  }
}

std::string_view Efficiency::family_key(const Gpu& gpu) const {
  // This runs in every evaluation: a few comparisons of numbers.
  if (const auto key = packed_generation(gpu.generation)) {
    for (const auto& [generation, family] : m_family_of) {
      if (generation == *key) {
        return family;
      }
    }
  }
  const auto it = m_generations.find(std::string_view(gpu.generation));
  if (it == m_generations.end()) {
    std::vector<std::string> known;
    for (const auto& [name, g] : m_generations) {
      known.push_back(name);
    }
    throw InputError("data/efficiency.json:/generations",
                     fmt::format("has no GPU generation \"{}\" ({}): its efficiency family is "
                                 "unknown (known generations: {})",
                                 gpu.generation,
                                 gpu.name,
                                 FieldReader::join(known)));
  }
  return it->second.family;
}

const FamilyEfficiency& Efficiency::family(const Gpu& gpu) const {
  const std::string_view key = family_key(gpu);
  const auto it = families.find(key);
  if (it == families.end()) {
    throw InputError("data/efficiency.json:/families",
                     "has no entry for GPU family " + std::string(key) + " of " + gpu.name);
  }
  return it->second;
}

} // namespace rightsize
