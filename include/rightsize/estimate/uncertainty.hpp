#pragma once

// How far a prediction may be off: bands derived from the measured held-out error of each metric
// (data/uncertainty.json, written by bench/rightsize_accuracy --bands; derivation in
// docs/accuracy.md, "Uncertainty bands"). A band is [point x low_ratio, point x high_ratio], where
// the ratios are the 10th and 90th percentiles of measured / predicted. GPU families or engines
// without enough held-out lines get the metric's overall band, widened.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace rightsize {

// Multipliers of the point value: low_ratio <= 1 <= high_ratio.
struct RatioBand {
  double low_ratio = 1;
  double high_ratio = 1;
  bool calibrated = false; // from lines of this GPU family and engine
  std::string basis;       // "hopper/vllm, 93 held-out lines" or "all engines, widened x1.5"
};

// What the efficiencies behind a prediction were fitted on, for a GPU family and (serving) an
// engine: data/uncertainty.json "calibration", written with the bands. Uncalibrated pairs get
// the widened overall band and every report that relies on one says so (docs/accuracy.md,
// "Calibration status").
struct Calibration {
  bool measured = false; // fitted on measured runs of this family (and engine)
  std::string text;      // "hopper/vllm: fitted on 275 measured runs; held-out error ..."
};

// A range around a point value, in the point's unit.
struct Band {
  double low = 0;
  double high = 0;
};

// The serving workload a spec plans when no run of its kind has been measured ("embedding",
// "image embedding", "transcription", "image generation"), or nullptr (text generation,
// training).
const char* unmeasured_workload(const Spec& spec);

class Uncertainty {
public:
  static Uncertainty load(const std::string& path);
  static Uncertainty from_json(const nlohmann::json& j, const std::string& file);

  // The band of `metric` (ttft, tpot, step_time, memory) for a GPU family ("hopper") and an
  // engine ("vllm"); the overall band widened when the pair has no band of its own.
  [[nodiscard]] RatioBand
  band(const std::string& metric, const std::string& family, const std::string& engine) const;
  // The calibration of a family's serving on `engine`, or of its training (engine ignored).
  // `unmeasured` names a serving workload no run has measured ("embedding", "image embedding",
  // "transcription"; nullptr for generation): its figures rest on generation's calibration at
  // best, so it is not calibrated, whatever the pair's generation runs.
  [[nodiscard]] Calibration calibration(const std::string& family,
                                        const std::string& engine,
                                        bool training,
                                        const char* unmeasured = nullptr) const;
  // band(...).high_ratio without the basis sentence, for the search.
  [[nodiscard]] double
  high_ratio(const std::string& metric, const std::string& family, const std::string& engine) const;

  double coverage = 0.8;
  double widening = 1.5; // log-space factor for uncalibrated pairs

private:
  friend struct detail::BundleAccess;
  struct Entry {
    double low_ratio = 1;
    double high_ratio = 1;
    long long lines = 0;
  };
  // The pair's own entry, or (own = false) the metric's overall one.
  [[nodiscard]] const Entry& entry(const std::string& metric,
                                   const std::string& family,
                                   const std::string& engine,
                                   bool& own) const;
  // The ratio as a band uses it: an overall one widened unless the metric is not split.
  [[nodiscard]] double widened(const std::string& metric, double ratio, bool own) const;

  std::map<std::string, std::map<std::string, Entry>> m_metrics; // metric -> group -> band
  struct Fitted {
    long long fit_runs = 0;
    long long held_out_runs = 0;
    std::map<std::string, double> median_error; // tpot, ttft, table; training: mfu
  };
  std::map<std::string, Fitted> m_serving;  // "hopper/vllm"
  std::map<std::string, Fitted> m_training; // "ampere"
};

struct InferenceBands {
  Band ttft; // seconds
  Band tpot; // seconds
  Band output_tokens_per_s;
  Band requests_per_s;
  RatioBand ttft_ratio;
  RatioBand tpot_ratio; // also (inverted) the throughput band
};

struct TrainingBands {
  Band step;          // seconds
  Band time_to_train; // seconds, when known
  Band tokens_per_s;
  RatioBand step_ratio;
};

// Throughput is inverse to the time per output token, so its band is the TPOT band inverted.
// `family` is the GPU's efficiency family (Efficiency::family_name).
InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const std::string& family,
                               Engine engine);
// Same, for an engine by name (engine_name(spec): "diffusers" has no band of its own).
InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const std::string& family,
                               const std::string& engine);
// Same, from the ratio bands that Uncertainty::band gives for "ttft" and "tpot" of the GPU's
// family and the engine (a plan looks them up once per family: each carries a sentence).
InferenceBands
inference_bands(const InferencePerformance& p, const RatioBand& ttft, const RatioBand& tpot);
TrainingBands
training_bands(const TrainingPerformance& p, const Uncertainty& u, const std::string& family);
// Memory's band, in bytes.
Band memory_band(Bytes total, const Uncertainty& u);
// Same, from Uncertainty::band("memory", "", "").
Band memory_band(Bytes total, const RatioBand& memory);

} // namespace rightsize
