#pragma once

// What the readers of the clients' files share: numbers that may be Python's non-finite tokens,
// the bounds past which a figure is absurd, latency statistics, per-request arrays and the checks
// every run passes. docs/calibrate.md, "Result files".

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/statistics.hpp>

#include <optional>
#include <string_view>

namespace rightsize::calibrate {

using detail::FieldReader;
using detail::Range;

// Bounds past which a figure is not a benchmark's: they refuse garbage, not unusual runs.
inline constexpr double k_max_requests = 1e12;
inline constexpr double k_max_tokens = 1e15;            // in a whole run
inline constexpr double k_max_tokens_per_request = 1e8; // the longest contexts are 1e7
inline constexpr double k_max_seconds = 1e8;            // about three years
inline constexpr double k_max_rate_per_s = 1e12;        // requests or tokens per second
inline constexpr double k_max_concurrency = 1e9;

// A number member. Python's json writes inf and nan as bare tokens, which the file's text is read
// with as the strings "Infinity", "-Infinity", "NaN" (json_values.hpp): those fail here as not
// finite, as does anything outside `range`.
double finite_number(const FieldReader& r, std::string_view key, Range range);
std::optional<double>
optional_finite_number(const FieldReader& r, std::string_view key, Range range);
double as_finite_number(const FieldReader& value, Range range);

// A count of requests or tokens: a whole number in [0, max].
long long count(const FieldReader& r, std::string_view key, double max);
std::optional<long long> optional_count(const FieldReader& r, std::string_view key, double max);

// A configured request rate in requests/s: a number > 0, or infinite ("inf", as vLLM writes it,
// or the bare Infinity SGLang writes). nullopt for a string that names no rate (SGLang's "trace",
// a replayed trace's own timing).
std::optional<ItemsPerHour> request_rate(const FieldReader& r, std::string_view key);

// The statistics vLLM and SGLang write for one latency: mean_<X>_ms, median_<X>_ms (or
// p50_<X>_ms), p90_<X>_ms, p99_<X>_ms, each optional. A statistic of exactly 0 is left out: these
// clients write np.mean([] or 0) = 0.0 when they had no samples (a non-streaming endpoint has no
// TTFT or ITL), and no latency is 0.
LatencyStats summary_stats_ms(const FieldReader& r, std::string_view metric);

// A run whose requests all failed cannot calibrate anything: an error at `r`'s `key`.
void require_completed(const FieldReader& r,
                       std::string_view key,
                       long long completed,
                       std::optional<long long> failed);

// The per-request arrays of vLLM --save-detailed and SGLang --output-details (input_lens,
// output_lens, ttfts, itls, errors; vLLM's latencies even without --save-detailed): each must
// have one entry per request sent. When the completed requests can be told apart (the requests
// without an error, or every one when the run recorded no failure) and there are as many as
// `run.completed`, they become run.requests, and each statistic the summary lacks is computed from
// them as vLLM computes it (numpy's linear percentiles; TPOT over requests of more than one output
// token; ITL pooled over every chunk gap). Sets run.failed from the errors when it is unknown.
// A TTFT of 0.0 is no TTFT (nothing was timed); a completed request's latency shorter than its
// TTFT is an error.
void read_request_arrays(const FieldReader& r, BenchRun& run);

// What every reader does last, whatever its client: mean_tokens from the two means it has.
void finish_run(BenchRun& run);

} // namespace rightsize::calibrate
