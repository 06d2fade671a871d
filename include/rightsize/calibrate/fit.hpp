#pragma once

// A site's factors fitted on its own benchmark runs (`rightsize calibrate`, docs/calibrate.md
// "The fit"): the runs grouped by GPU family x engine x model kind, and per group the same
// efficiency factors the bundled fit (bench/accuracy/fit.cpp) sets, each fitted only when the
// group's runs can tell it from the others, else kept at the bundled value with the runs that
// would determine it named. The fit minimizes the mean absolute log error of each measured
// metric (TTFT, TPOT, output tokens/s, weighted equally), pulled gently toward the bundled values
// so that a factor the runs barely constrain stays where the bundled fit put it. Its error is
// reported as each run predicted by a fit on the others (leave one run out), before and after.

#include <rightsize/calibrate/comparison.hpp>
#include <rightsize/estimate/site_calibration.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// One run as the fit sees it: the spec at the run's lengths and load, the configuration, and
// what was measured (SI: seconds, tokens per second; absent where the run has no such mean).
struct CalibrationRun {
  std::string name; // the result file (BenchRun::source)
  Spec spec;        // estimate_spec'd, at the run's load (compare_run)
  Gpu gpu;
  Parallelism layout;
  RunLoad load;
  std::string family; // Efficiency::family_name(gpu)
  std::optional<double> ttft;
  std::optional<double> tpot;
  std::optional<double> output_tokens_per_s;
};

// A read run made ready to fit on, with the checks compare_run makes (InputErrors naming the run
// and field); a run with none of the three means is an InputError too.
CalibrationRun calibration_run(const Spec& spec,
                               const Gpu& gpu,
                               const Parallelism& layout,
                               const BenchRun& run,
                               const Efficiency& efficiency);

// The prediction of each measured metric under `efficiency`, as estimate makes it.
struct RunPrediction {
  std::optional<double> ttft;
  std::optional<double> tpot;
  std::optional<double> output_tokens_per_s;
};
RunPrediction predict_run(const CalibrationRun& run,
                          const Efficiency& efficiency,
                          const Uncertainty& uncertainty,
                          const Constants& constants);

// The factors a site fit may move; fixed_overhead scales the per-layer and per-step costs of a
// decode step together (the runs a team makes cannot tell them apart).
enum class SiteFactor {
  memory,
  compute,
  fixed_overhead,
  ttft_overhead,
  ttft_wave_factor,
  prefill_interference
};
inline constexpr NameRow<SiteFactor> k_site_factor_rows[] = {
    {SiteFactor::memory, "memory"},
    {SiteFactor::compute, "compute"},
    {SiteFactor::fixed_overhead, "fixed_overhead"},
    {SiteFactor::ttft_overhead, "ttft_overhead"},
    {SiteFactor::ttft_wave_factor, "ttft_wave_factor"},
    {SiteFactor::prefill_interference, "prefill_interference"}};
inline constexpr NameTable<SiteFactor> k_site_factor_names{k_site_factor_rows};

struct HeldFactor {
  SiteFactor factor = SiteFactor::memory;
  std::string why; // the runs that would determine it
};

// Which factors `runs` determine (fitted) and which they cannot (held, with the runs that would).
void determinable(const std::vector<const CalibrationRun*>& runs,
                  std::vector<SiteFactor>& fitted,
                  std::vector<HeldFactor>& held);

struct SiteFit {
  std::string family;
  std::string engine;
  std::string model_kind;
  std::vector<std::size_t> runs; // indexes into the runs fitted on
  FamilyEfficiency family_efficiency;
  EngineOverhead overhead;
  FamilyEfficiency bundled_family; // where the fit started: the bundled values
  EngineOverhead bundled_overhead;
  std::vector<SiteFactor> fitted;
  std::vector<HeldFactor> held;
  std::vector<SiteFactors::LeaveOneOut> leave_one_out; // per metric measured
  RatioBand ttft;                                      // the bands --calibration prints
  RatioBand tpot;
};

// Fits every group of `runs` (in order of first appearance). `efficiency` and `uncertainty` are
// the bundled data: the start, the pull and the floor of the bands.
std::vector<SiteFit> fit_sites(const std::vector<CalibrationRun>& runs,
                               const Efficiency& efficiency,
                               const Uncertainty& uncertainty,
                               const Constants& constants);

// A fit as --calibration reads it (the file's "factors").
SiteFactors to_site_factors(const SiteFit& fit);

} // namespace rightsize
