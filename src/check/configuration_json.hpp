#pragma once

// The check stage's own: a locked configuration read back from a lock file.

#include <rightsize/check/configuration.hpp>
#include <rightsize/core/json_reader.hpp>

namespace rightsize::detail {

// Every field configuration_to_json writes; unknown keys are errors.
LockedConfiguration parse_configuration(const FieldReader& r);

} // namespace rightsize::detail
