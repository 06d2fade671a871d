#pragma once

// The normalized spec as JSON. This is data, not presentation: the `model` and `validate`
// renderers print it, and `check` digests it to tell whether a spec changed (so it lives with the
// spec, below both).

#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

namespace rightsize {

// The normalized model (schema documented in docs/spec.md, "rightsize model").
nlohmann::json model_to_json(const Spec& spec);

// One summary of a validated spec, for `rightsize validate --format json`.
nlohmann::json validation_to_json(const Spec& spec);

} // namespace rightsize
