#pragma once

// A site's calibration, as `--calibration FILE` reads it (estimate, plan, compare, check,
// deploy): the efficiency factors fitted on the site's own benchmark runs by `rightsize
// calibrate` (one set per GPU family x engine x model kind), with the bands of their
// leave-one-run-out error. Installed for one spec, they replace the bundled factors and bands
// of that spec's engine and model kind on GPUs of the families the site measured; every other
// family keeps the bundled ones. The file's format and what transfers: docs/calibrate.md.

#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// The format version calibration files carry ("rightsize_calibration").
inline constexpr int k_calibration_schema = 1;

// One group's factors: what a GPU family, an engine and a model kind (ModelArch::kind) run at
// the site.
struct SiteFactors {
  std::string family; // Efficiency::family_name
  std::string engine; // engine_name
  std::string model_kind;
  FamilyEfficiency family_efficiency;
  EngineOverhead overhead;
  long long runs = 0; // the site's runs they rest on
  // The median absolute error of each metric when each run is predicted by the factors fitted
  // on the others (before: by the bundled factors), as the file records it.
  struct LeaveOneOut {
    std::string metric; // ttft, tpot, output_tokens_per_s
    long long lines = 0;
    double before = 0;
    double after = 0;
  };
  std::vector<LeaveOneOut> leave_one_out;
  RatioBand ttft; // the bands of their leave-one-run-out error, with the basis sentence
  RatioBand tpot;
  // The configurations of the runs they rest on (the file's "runs" of this group).
  std::vector<Uncertainty::SiteRun> measured;
};

struct SiteCalibration {
  std::string file;   // as given
  std::string digest; // of the file's bytes (FNV-1a, as locks digest specs)
  long long runs = 0; // every run in the file
  std::vector<SiteFactors> factors;
};

// The JSON members of one group's factors ("efficiency" in the file), in data/efficiency.json's
// names and units, and back; out-of-range values are InputErrors naming the field.
nlohmann::json site_efficiency_json(const FamilyEfficiency& family, const EngineOverhead& engine);
void read_site_efficiency(const nlohmann::json& j,
                          const std::string& file,
                          const std::string& pointer,
                          FamilyEfficiency& family,
                          EngineOverhead& engine);

// The digest a calibration file carries in "digest": of its JSON without that member, as
// rightsize writes it. A file whose digest does not match was edited after rightsize wrote it.
std::string calibration_content_digest(const nlohmann::json& document);

// Reads a calibration file; every defect (unreadable, not a calibration, a newer format, a
// digest that does not match its content, a field out of range or unknown) is an InputError
// naming the file and the field.
SiteCalibration load_site_calibration(const std::string& path);
SiteCalibration site_calibration_from_json(const nlohmann::json& document,
                                           const std::string& file,
                                           std::string digest);

// The factors the calibration has for `spec` (its engine and model kind) on a GPU family, or
// nullptr.
const SiteFactors*
find_site_factors(const SiteCalibration& calibration, const Spec& spec, std::string_view family);

// Installs into `efficiency` and `uncertainty` the factors and bands of every group of
// `spec`'s engine and model kind (one per GPU family the site measured). Returns how many
// groups apply (0: the calibration measured nothing like this spec; reports then say so).
int apply_site_calibration(const SiteCalibration& calibration,
                           const Spec& spec,
                           Efficiency& efficiency,
                           Uncertainty& uncertainty);

// The sentence reports print for a group: "site calibration cal.json (4 runs of hopper/vllm/
// dense): leave-one-run-out ...".
std::string site_calibration_text(const SiteCalibration& calibration, const SiteFactors& f);

} // namespace rightsize
