// Finding a GPU of the catalog by a name a person would type.

#include "names.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <cctype>
#include <string_view>

namespace rightsize {

using detail::FieldReader;
using detail::squash;

namespace {

// squash(s) == key, without building squash(s): find() compares every name and alias of the
// catalog, and a plan looks its constrained GPUs up once per GPU.
bool squashes_to(const std::string& s, std::string_view key) {
  std::size_t matched = 0;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      continue;
    }
    if (matched == key.size() ||
        key[matched] != static_cast<char>(std::tolower(static_cast<unsigned char>(c)))) {
      return false;
    }
    ++matched;
  }
  return matched == key.size();
}

} // namespace

std::optional<FlopsPerSecond> GpuFigures::rate(TensorPrecision p) const {
  const auto it = dense.find(p);
  if (it == dense.end()) {
    return std::nullopt;
  }
  return it->second;
}

const Gpu* Catalog::find(const std::string& name) const {
  const std::string key = squash(name);
  for (const auto& g : gpus) {
    if (squashes_to(g.name, key)) {
      return &g;
    }
    for (const auto& a : g.aliases) {
      if (squashes_to(a, key)) {
        return &g;
      }
    }
  }
  return nullptr;
}

const Gpu& Catalog::resolve(const std::string& name, const std::string& where) const {
  if (const Gpu* g = find(name)) {
    return *g;
  }
  // Not an exact name: a unique name that starts with it is accepted ("B300-SXM").
  const std::string key = squash(name);
  std::vector<const Gpu*> prefixed;
  for (const auto& g : gpus) {
    if (key.size() >= 2 && squash(g.name).rfind(key, 0) == 0) {
      prefixed.push_back(&g);
    }
  }
  if (prefixed.size() == 1) {
    return *prefixed.front();
  }
  if (prefixed.size() > 1) {
    std::vector<std::string> options;
    for (const auto* g : prefixed) {
      options.push_back(g->name);
    }
    throw InputError(where,
                     fmt::format("GPU name \"{}\" is ambiguous: it could be {}",
                                 name,
                                 FieldReader::join(options)));
  }
  throw InputError(where,
                   fmt::format("unknown GPU \"{}\"{}; see 'rightsize catalog list'",
                               name,
                               did_you_mean(name, names())));
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const auto& g : gpus) {
    out.push_back(g.name);
    out.insert(out.end(), g.aliases.begin(), g.aliases.end());
  }
  return out;
}

} // namespace rightsize
