#pragma once

// Inside the catalog stage: reading and validating one entry of a catalog's /gpus. Not a public
// header.

#include "problems.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/json_reader.hpp>

#include <map>
#include <string>

namespace rightsize::detail {

// One GPU from its entry: every field read under its own guard, so that the entry reports all of
// its problems into `problems`, in the order of its fields' steps; `sources` are the document's
// /sources, which every provenance must name.
Gpu read_gpu(const FieldReader& entry,
             const std::map<std::string, CatalogSource>& sources,
             Problems& problems);

} // namespace rightsize::detail
