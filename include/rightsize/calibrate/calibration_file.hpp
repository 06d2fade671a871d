#pragma once

// The calibration file `rightsize calibrate -o FILE` writes and adds to (docs/calibrate.md,
// "The calibration file"): every run with its configuration, what it measured and the digests
// of its result file and spec, and the factors fitted from all of them, with a digest of the
// whole content so that a hand edit is caught. --calibration reads its factors
// (estimate/site_calibration.hpp); calibrate reads its runs back to fit them again with new ones.

#include <rightsize/calibrate/fit.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// One run as the file keeps it: enough to estimate it again without its result file.
struct RunRecord {
  std::string result;         // the result file (file:LINE for one of several), as given
  std::string result_digest;  // of the result file's bytes
  std::string client;         // k_bench_client_names
  std::string spec_file;      // relative to the calibration file's folder where it can be
  std::string spec_digest;    // of the spec file's bytes (spec_file_digest)
  std::string model;          // the spec's model, for people
  double model_params = 0;    // its parameters (ModelArch::params_total): which model it is
  std::string weights_format; // the formats the spec served at (after --weights, --kv-cache)
  std::string kv_cache_format;
  std::string engine;     // engine_name
  std::string model_kind; // ModelArch::kind
  std::string gpu;        // the catalog's name
  std::string family;     // Efficiency::family_name
  Parallelism layout;     // one replica: tp, pp, ep, attention_dp
  std::string weights;    // --weights as given ("": the spec's)
  std::string kv_cache;   // --kv-cache as given
  RunLoad load;
  std::optional<double> ttft; // the measured means, SI
  std::optional<double> tpot;
  std::optional<double> output_tokens_per_s;
};

// Two runs of one configuration (spec, GPU, layout, formats and load): the newer replaces the
// older.
bool same_configuration(const RunRecord& a, const RunRecord& b);

// The digest of a spec as calibrate records it: of the file's bytes, or of the config.json in a
// model folder. InputError naming the path when it cannot be read.
std::string spec_file_digest(const std::string& path);

// The whole file, digest included.
nlohmann::json calibration_document(const std::vector<RunRecord>& runs,
                                    const std::vector<SiteFit>& fits);

// The runs of a calibration file already read and checked by site_calibration_from_json;
// InputErrors name the file and the field.
std::vector<RunRecord> read_run_records(const nlohmann::json& document, const std::string& file);

// What `rightsize calibrate` reports: every run with its bundled and calibrated prediction, and
// each group's fit.
struct CalibratedRun {
  RunRecord record;
  RunPrediction bundled;
  RunPrediction calibrated; // under the factors fitted on every run
};
struct CalibrationReport {
  std::string output;     // the file written; empty when -o was not given
  long long added = 0;    // runs read from the result files
  long long replaced = 0; // runs of the file that a new run of their configuration replaced
  long long kept = 0;     // runs of the file kept
  std::vector<CalibratedRun> runs; // the file's kept runs, then the new ones
  std::vector<SiteFit> fits;
};

// Fits `runs` (fit_sites) and predicts each with the bundled and the fitted factors. `records`
// are the runs as the file keeps them, one per run, in the same order.
CalibrationReport calibration_report(const std::vector<CalibrationRun>& runs,
                                     std::vector<RunRecord> records,
                                     const Efficiency& efficiency,
                                     const Uncertainty& uncertainty,
                                     const Constants& constants);

} // namespace rightsize
