// Compiled by the CTest test layers.core_cannot_include_plan with core's include flags: core sits
// at the bottom of the pipeline, so this upward include must not compile.
#include <rightsize/core/units.hpp>
#include <rightsize/plan/plan.hpp>
