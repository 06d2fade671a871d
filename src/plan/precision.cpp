// A spec at another precision, shared by plan's precision variants and estimate's --weights.

#include <rightsize/plan/precision.hpp>

namespace rightsize {

Spec with_precision(Spec s, DType weights, DType kv_cache) {
  const Quantization& shipped = s.model.quantization;
  s.weights = shipped.quantized() && shipped.dtype == weights
                  ? shipped
                  : quantization_for(weights, s.precision.activations);
  s.precision.weights = weights;
  s.precision.kv_cache = kv_cache;
  return s;
}

} // namespace rightsize
