#pragma once

// A spec at another precision. `plan` evaluates the spec once per format in precision.allow and
// `estimate --weights/--kv-cache` evaluates the one a plan reported; both build that spec here, so
// a plan's candidate and its estimate are the same evaluation (docs/plan.md, "Search").

#include <rightsize/model/dtype.hpp>
#include <rightsize/spec/spec.hpp>

namespace rightsize {

// `s` with its weights stored in `weights` and its KV cache in `kv_cache`. The weights take the
// checkpoint's own quantization scheme when it ships in that format, else rightsize's default
// scheme for the format (quantization_for, with the spec's activations as the high precision),
// the rule the spec reader applies to precision.weights; the spec's own format thus gives the spec
// back unchanged. Nothing else changes: activations, the model and the workload stay.
Spec with_precision(Spec s, DType weights, DType kv_cache);

} // namespace rightsize
