#pragma once

// Inside the catalog stage: collects every problem of a data file (the catalog, the engine
// support table) instead of stopping at the first. Not a public header.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rightsize::detail {

class Problems {
public:
  // Runs `read`, keeping the InputError it throws, if any.
  void guard(const std::function<void()>& read) {
    try {
      read();
    } catch (const InputError& e) {
      m_errors.push_back(e);
    }
  }
  void add(std::string where, std::string what) {
    m_errors.emplace_back(std::move(where), std::move(what));
  }
  [[nodiscard]] std::size_t count() const { return m_errors.size(); }
  // One problem: that InputError; several: InputErrors with all of them.
  void throw_if_any() {
    if (m_errors.size() == 1) {
      throw m_errors.front();
    }
    if (!m_errors.empty()) {
      throw InputErrors(std::move(m_errors));
    }
  }

private:
  std::vector<InputError> m_errors;
};

// The top-level "sources" map of a data file (the catalog, the instance shapes): key -> name,
// location and kind; each problem kept in `problems`.
std::map<std::string, CatalogSource> read_sources(const FieldReader& root, Problems& problems);

// A value's "source" (a key of `sources`, else an error with a did-you-mean), "note" and
// "confidence" (low, medium, high) into `p`: the catalog's entries and the instance table's rows.
void read_provenance(const FieldReader& field,
                     const std::map<std::string, CatalogSource>& sources,
                     Provenance& p);

} // namespace rightsize::detail
