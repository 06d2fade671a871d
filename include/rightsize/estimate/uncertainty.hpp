#pragma once

// How far a prediction may be off: bands derived from the measured held-out error of each metric
// (data/uncertainty.json, written by bench/rightsize_accuracy --bands; derivation in
// docs/accuracy.md, "Uncertainty bands"). A band is [point x low_ratio, point x high_ratio], where
// the ratios are the 10th and 90th percentiles of measured / predicted. A GPU family and engine
// pair without enough held-out lines gets the transfer band of what it lacks (schema 2): the
// ratios of the leave-one-GPU-family-out refits when the family has no calibrated pair, of the
// leave-one-engine-out refits when the engine has none, and the envelope of the two otherwise.
// A schema-1 file (no "transfer") widens the overall band instead: ratio^uncalibrated_widening.

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
  std::string basis;       // "hopper/vllm, 93 held-out lines" or "no cdna3/vllm lines: GPU-family
                           // transfer band (leave-one-family-out, 2943 lines)"
  // Fewer lines support it than percentiles need (data/uncertainty.json "unsized"): the band is
  // the envelope of every measured line's ratio, widened, and reports say so (training today).
  bool unsized = false;
  long long lines = 0; // the measured lines behind the band
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
  // A band for a prediction whose KV cache overflows (InferencePerformance::kv_overflow): each
  // edge the wider of `base`'s and the KV-overflow transfer band's, the error of the queueing
  // lines with them out of the fit (data/uncertainty.json transfer.kv_regime.groups.queues);
  // `base` when the file has none. `metric`: "ttft" or "tpot".
  [[nodiscard]] RatioBand overflowing(const RatioBand& base, const std::string& metric) const;
  // A band for a disaggregated prefill/decode layout (estimate/disaggregation.hpp): each edge the
  // wider of `base`'s and the band of the measured disaggregated runs (data/uncertainty.json
  // transfer.layout.groups.disaggregated), never calibrated; `base` when the file has none.
  [[nodiscard]] RatioBand disaggregated(const RatioBand& base, const std::string& metric) const;
  // A band for an attention data-parallel layout (Parallelism::attention_dp > 1): each edge the
  // wider of `base`'s and the band of the measured attention-DP runs (transfer.layout.groups.
  // attention_dp; none fitted, docs/accuracy.md "Attention data parallelism"), never calibrated;
  // `base` when the file has none.
  [[nodiscard]] RatioBand attention_data_parallel(const RatioBand& base,
                                                  const std::string& metric) const;
  // The calibration of a disaggregated layout on a family and engine: never measured (its
  // efficiencies are the aggregated runs'), saying how many disaggregated runs its band rests on,
  // and the attention-DP runs too when its pools run `attention_dp` > 1 groups.
  [[nodiscard]] Calibration disaggregated_calibration(const std::string& family,
                                                      const std::string& engine,
                                                      int attention_dp = 1) const;
  // The calibration of an attention data-parallel layout: never measured (no such line is
  // fitted), saying how many attention-DP runs its band rests on.
  [[nodiscard]] Calibration attention_dp_calibration(const std::string& family,
                                                     const std::string& engine) const;
  // band(...).high_ratio without the basis sentence, for the search.
  [[nodiscard]] double
  high_ratio(const std::string& metric, const std::string& family, const std::string& engine) const;

  // A site's calibration installed for one spec (apply_site_calibration, `--calibration`): for
  // a GPU family and an engine (by name, whatever its version), the bands of the calibration's
  // own leave-one-run-out error and the sentence reports print, used before every bundled band
  // of "ttft" and "tpot" (docs/calibrate.md, "Bands").
  // One configuration the site measured: a prediction inside what its runs span (same GPU,
  // model and layout, lengths and concurrency within the runs') takes the leave-one-run-out
  // band; any other, the envelope of that band and the bundled one (bench/calibration_loo.cpp
  // --transfer: outside, the site's factors predict no better than the bundled).
  struct SiteRun {
    std::string gpu;         // the catalog's name
    double model_params = 0; // ModelArch::params_total
    std::string weights;     // the formats served (Precision), by name
    std::string kv_cache;
    int tp = 1;
    int pp = 1;
    int ep = 1;
    int attention_dp = 1;
    long long input_tokens = 0;
    long long output_tokens = 0;
    long long concurrency = 0;
  };
  struct SiteBands {
    RatioBand ttft; // outside the measured configurations
    RatioBand tpot;
    RatioBand measured_ttft; // inside
    RatioBand measured_tpot;
    std::vector<SiteRun> measured;
    std::string text; // the calibration sentence
  };
  void set_site(const std::string& family, const std::string& engine, SiteBands bands);
  // The site's bands when `spec` on `gpu` in `layout` at `concurrency` sequences per replica is
  // inside what the site measured for this family and engine (SiteRun), or nullptr: then band()
  // gives the enveloped ones.
  [[nodiscard]] const SiteBands* measured_site(const std::string& family,
                                               const std::string& engine,
                                               const Gpu& gpu,
                                               const Parallelism& layout,
                                               const Spec& spec,
                                               long long concurrency) const;

  double coverage = 0.8;
  double widening = 1.5; // log-space factor for uncalibrated pairs (schema 1 only)
  // Whether the file has transfer bands (schema 2): uncalibrated pairs take them, not `widening`.
  [[nodiscard]] bool has_transfer() const { return !m_transfer.empty(); }

private:
  friend struct detail::BundleAccess;
  struct Entry {
    double low_ratio = 1;
    double high_ratio = 1;
    long long lines = 0;
    bool unsized = false; // an envelope of too few lines (RatioBand::unsized)
  };
  // Where a band comes from: the pair's own lines, the metric's overall band (widened in schema
  // 1), or a transfer band (schema 2).
  enum class Source { own, overall, family_transfer, engine_transfer, both_transfer, unsized };
  // The entry a band uses and its source.
  [[nodiscard]] const Entry& entry(const std::string& metric,
                                   const std::string& family,
                                   const std::string& engine,
                                   Source& source) const;
  // The ratio as a band uses it: an overall one widened in schema 1, unless the metric is not
  // split (memory).
  [[nodiscard]] double widened(const std::string& metric, double ratio, Source source) const;
  // The uncalibrated serving bands' source, for the calibration sentences.
  [[nodiscard]] std::string uncalibrated_text(const std::string& family,
                                              const std::string& engine) const;

  std::map<std::string, std::map<std::string, Entry>> m_metrics; // metric -> group -> band
  struct Fitted {
    long long fit_runs = 0;
    long long held_out_runs = 0;
    std::map<std::string, double> median_error; // tpot, ttft, table; training: mfu
  };
  std::map<std::string, Fitted> m_serving;  // "hopper/vllm"
  std::map<std::string, Fitted> m_training; // "ampere"
  // Transfer bands (schema 2): "gpu_family", "engine" and "both" (their envelope) -> metric
  // (ttft, tpot) -> band.
  std::map<std::string, std::map<std::string, Entry>> m_transfer;
  // The site's bands (set_site), by "family/engine"; the one for a band look-up, or nullptr.
  std::map<std::string, SiteBands> m_site;
  [[nodiscard]] const SiteBands* site(const std::string& family, const std::string& engine) const;
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
// `attention_dp`: the layout's attention data-parallel groups (above 1: the attention-DP band).
InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const std::string& family,
                               Engine engine,
                               int attention_dp = 1);
// Same, for an engine by name (engine_name(spec): "diffusers" has no band of its own).
InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const std::string& family,
                               const std::string& engine,
                               int attention_dp = 1);
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
