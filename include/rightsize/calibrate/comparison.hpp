#pragma once

// A site's benchmark run beside what rightsize predicts for it: the run's lengths and load put
// into the spec, the configuration estimated as `rightsize estimate` does (the same estimator,
// efficiencies and bands), and each measured mean set against the prediction and its 80% band.
// What `rightsize calibrate` (issue 45) fits its site factors on and reports its error with;
// docs/calibrate.md, "Comparing a run with the estimate".

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// The metrics a run is compared on, each a mean over the run as rightsize predicts it
// (docs/model.md, "Which statistic"): TTFT and TPOT in seconds, output tokens per second over
// the whole run.
enum class RunMetric { ttft, tpot, output_tokens_per_s };
inline constexpr NameRow<RunMetric> k_run_metric_rows[] = {
    {RunMetric::ttft, "ttft"},
    {RunMetric::tpot, "tpot"},
    {RunMetric::output_tokens_per_s, "output_tokens_per_s"}};
inline constexpr NameTable<RunMetric> k_run_metric_names{k_run_metric_rows};

struct MetricComparison {
  RunMetric metric = RunMetric::ttft;
  double measured = 0;  // the run's mean (seconds, or tokens per second)
  double predicted = 0; // rightsize's point estimate, in the same unit
  Band band;            // rightsize's 80% band around it
  [[nodiscard]] bool in_band() const { return measured >= band.low && measured <= band.high; }
  // predicted / measured - 1, as docs/accuracy.md's errors: positive where rightsize predicts
  // more than was measured (a longer time; a higher rate).
  [[nodiscard]] double error() const { return predicted / measured - 1.0; }
  // measured / predicted: the ratio the bundled bands and a fit's loss are in.
  [[nodiscard]] double ratio() const { return measured / predicted; }
};

// Where a compared run's concurrency came from.
enum class LoadSource {
  max_concurrency,      // the client's configured cap on requests in flight
  achieved_concurrency, // what the client measured (a run paced by request rate)
  all_at_once,          // an offline run: every request handed to the engine together
};
inline constexpr NameRow<LoadSource> k_load_source_rows[] = {
    {LoadSource::max_concurrency, "max_concurrency"},
    {LoadSource::achieved_concurrency, "achieved_concurrency"},
    {LoadSource::all_at_once, "all_at_once"}};
inline constexpr NameTable<LoadSource> k_load_source_names{k_load_source_rows};

// The run's configuration as the estimator sees it.
struct RunLoad {
  long long input_tokens = 0;  // the run's mean prompt, rounded
  long long output_tokens = 0; // the run's mean output, rounded
  long long concurrency = 0;   // requests in flight per replica
  LoadSource source = LoadSource::max_concurrency;
  // The file records only prompt + output tokens (vllm bench throughput): the lengths are the
  // spec's, which add up to it.
  bool lengths_from_spec = false;
};

// The run's output tokens per second: as the file reports it, or (lengths from the spec) its
// request rate x the output tokens; none when neither.
std::optional<double> output_tokens_per_s(const BenchRun& run, const RunLoad& load);

struct RunComparison {
  std::string run; // BenchRun::source
  RunLoad load;
  std::vector<MetricComparison> metrics; // those the run measured, in RunMetric order
  bool queueing = false;     // more asked of a replica than it runs at once (KV cache, cap)
  std::string running_limit; // what caps it, as InferencePerformance says
};

// The run's lengths and load: the mean prompt and output (an offline vllm bench throughput,
// which records only their sum, takes the spec's lengths when they add up to it within 1%, else
// an InputError naming the run and "total_num_tokens"); concurrency from max_concurrency, else the
// mean achieved concurrency (rounded up; a peak is not the load held) of a run paced by rate, else,
// offline, every completed request at once. A run whose requests are longer than the spec's model
// can hold (prompt + output beyond its context: another model's run) is an InputError naming the
// run and the field.
RunLoad run_load(const Spec& spec, const BenchRun& run);

// `spec` with `load`'s lengths as fixed lengths and its concurrency.
Spec spec_at_load(const Spec& spec, const RunLoad& load);

// `spec` at the run's load (its mean lengths as fixed lengths, its concurrency), after the
// checks compare_run makes of the spec and the layout (text generation, one replica); `load`
// receives the load (run_load).
Spec run_spec(const Spec& spec, const Parallelism& layout, const BenchRun& run, RunLoad& load);

// `spec` (as estimate_spec makes it) with the run's load, estimated on `gpu` in `layout` (one
// replica) with the given data, and each metric the run measured against the prediction: TTFT
// and TPOT (online runs with those means), output tokens per second (every run that reports it;
// per replica: the layout's dp must be 1). Throws InputError as run_load does, and for a
// workload other than text generation (naming the spec's workload type).
RunComparison compare_run(const Spec& spec,
                          const Gpu& gpu,
                          const Parallelism& layout,
                          const BenchRun& run,
                          const Constants& constants,
                          const Efficiency& efficiency,
                          const Uncertainty& uncertainty);

// Over several comparisons, per metric: lines, the median absolute error and the share of
// measurements inside the printed band.
struct ComparisonSummary {
  RunMetric metric = RunMetric::ttft;
  long long lines = 0;
  double median_abs_error = 0; // of error(), as a fraction
  double in_band = 0;          // share, 0-1
};
std::vector<ComparisonSummary> summarize(const std::vector<RunComparison>& comparisons);

} // namespace rightsize
