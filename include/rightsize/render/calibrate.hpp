#pragma once

// Rendering `rightsize calibrate`: each run beside its bundled and calibrated prediction, each
// group's factors (fitted or not, and why), its leave-one-run-out error and bands (table, JSON).
// Computing stays in calibrate/.

#include <rightsize/calibrate/calibration_file.hpp>

#include <ostream>

namespace rightsize {

void render_calibrate_table(const CalibrationReport& r, std::ostream& out);
void render_calibrate_json(const CalibrationReport& r, std::ostream& out);

} // namespace rightsize
