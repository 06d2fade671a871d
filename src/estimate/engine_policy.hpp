#pragma once

// Inside the estimate stage: reading data/memory.json's "engines" section into each engine's
// EngineMemoryPolicy (estimate/memory.hpp), for Constants::load, and keeping the policies' values
// in step with the constants they name. Not a public header.

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/memory.hpp>

#include <functional>
#include <string>
#include <vector>

namespace rightsize::detail {

// What values a constant may take, as its name says (memory.cpp, constant_rule): whole numbers
// (tokens, sequences), and the largest value (1 for shares).
struct ConstantKind {
  bool whole = false;
  double max = 0;
};

// One policy per engine of k_engine_names, indexed by the engine's value, each role naming a
// constant of `c` of the kind it needs (`kind_of`). Each problem is added to `errors` (an engine
// without a row, an unknown engine, a role naming no constant or one of the wrong kind, a missing
// field), so that the file's problems are reported at once.
std::vector<EngineMemoryPolicy>
read_engine_policies(const FieldReader& engines,
                     const Constants& c,
                     std::vector<InputError>& errors,
                     const std::function<ConstantKind(const std::string&)>& kind_of);

// Sets `value` in every role of `policies` that names the constant `name`.
void update_policies(std::vector<EngineMemoryPolicy>& policies,
                     const std::string& name,
                     double value);

} // namespace rightsize::detail
