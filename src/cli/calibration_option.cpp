#include "cli/calibration_option.hpp"

#include <rightsize/core/json_reader.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace rightsize::cli {

namespace {

// "hopper/vllm/dense, ada/vllm/dense"
std::string groups_of(const SiteCalibration& c, const Spec* spec) {
  std::string out;
  for (const auto& f : c.factors) {
    if (spec != nullptr && (f.engine != engine_name(*spec) || f.model_kind != spec->model.kind())) {
      continue;
    }
    out += fmt::format("{}{}/{}/{}", out.empty() ? "" : ", ", f.family, f.engine, f.model_kind);
  }
  return out;
}

} // namespace

void add_calibration_option(CLI::App& sub, std::string& path) {
  sub.add_option("--calibration",
                 path,
                 "A site's calibration (rightsize calibrate -o FILE): its fitted factors and "
                 "bands replace the bundled ones for the GPU families, engine and model kind "
                 "its runs measured")
      ->type_name("FILE");
}

std::optional<SiteCalibration> install_calibration(const std::string& path,
                                                   const Spec& spec,
                                                   Efficiency& efficiency,
                                                   Uncertainty& uncertainty,
                                                   spdlog::logger& log) {
  if (path.empty()) {
    return std::nullopt;
  }
  SiteCalibration c = load_site_calibration(path);
  if (apply_site_calibration(c, spec, efficiency, uncertainty) == 0) {
    log.warn("{}: the calibration measured {}, not {}/{}: the bundled factors and bands apply",
             detail::valid_utf8(path),
             c.factors.empty() ? std::string("nothing") : groups_of(c, nullptr),
             engine_name(spec),
             spec.model.kind());
  }
  return c;
}

std::string calibration_note(const SiteCalibration& c, const Spec& spec) {
  const std::string applied = groups_of(c, &spec);
  if (applied.empty()) {
    return fmt::format("site calibration {} (digest {}, {} runs) measured no {} {} runs: the "
                       "bundled factors and bands apply",
                       detail::valid_utf8(c.file),
                       c.digest,
                       c.runs,
                       engine_name(spec),
                       spec.model.kind());
  }
  return fmt::format("site calibration {} (digest {}, {} runs): its factors replace the bundled "
                     "ones for {}, its bands only inside the configurations it measured (GPU, "
                     "layout, lengths, load), elsewhere never narrower than the bundled; GPUs "
                     "of other families keep the bundled factors and bands",
                     detail::valid_utf8(c.file),
                     c.digest,
                     c.runs,
                     applied);
}

} // namespace rightsize::cli
