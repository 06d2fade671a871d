// Compiled by layers.plan_includes_stages_below with plan's include flags: the control for the
// two refusals beside it. Every stage below plan is visible to it, directly or transitively.
#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/model/model.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>
