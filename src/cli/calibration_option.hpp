#pragma once

// --calibration FILE, shared by estimate, plan, compare, check's --update-free runs and deploy:
// a site's calibration (`rightsize calibrate -o FILE`) read and installed for one spec
// (estimate/site_calibration.hpp; docs/calibrate.md, "Using a calibration").

#include <rightsize/estimate/site_calibration.hpp>

#include <CLI/App.hpp>
#include <spdlog/logger.h>

#include <optional>
#include <string>

namespace rightsize::cli {

void add_calibration_option(CLI::App& sub, std::string& path);

// The calibration at `path` (none when empty), its factors and bands installed into `efficiency`
// and `uncertainty` for `spec`; a calibration that measured nothing like the spec is logged as a
// warning naming what it did measure. InputError for a file that is not a sound calibration.
std::optional<SiteCalibration> install_calibration(const std::string& path,
                                                   const Spec& spec,
                                                   Efficiency& efficiency,
                                                   Uncertainty& uncertainty,
                                                   spdlog::logger& log);

// What a report says of the calibration: "site calibration FILE (digest D, N runs): its factors
// replace the bundled ones for hopper/vllm/dense, its bands only inside the configurations it
// measured ...; GPUs of other families keep the bundled factors and bands".
std::string calibration_note(const SiteCalibration& calibration, const Spec& spec);

} // namespace rightsize::cli
