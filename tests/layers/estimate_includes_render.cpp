// Compiled by layers.estimate_cannot_include_render with estimate's include flags: renderers sit
// above the estimator, so this include must not compile.
#include <rightsize/estimate/memory.hpp>
#include <rightsize/render/plan.hpp>
