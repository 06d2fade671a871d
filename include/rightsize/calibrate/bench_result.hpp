#pragma once

// The result files that LLM-serving benchmark clients write, read into one shape: what a site's
// own benchmark runs say about its serving stack, for `rightsize calibrate` (issue 45) to refit
// the estimator with. Every client, the command that writes its file, what is read from it and
// how a file is recognised: docs/calibrate.md, "Result files".
//
// Everything is SI: latencies and the duration are Seconds, rates are ItemsPerHour (requests or
// tokens; items_per_s() builds one), token counts are plain numbers of tokens.

#include <rightsize/core/names.hpp>
#include <rightsize/core/units.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// The clients whose files rightsize reads.
enum class BenchClient {
  vllm_serve,           // `vllm bench serve --save-result` (and vLLM's benchmark_serving.py)
  sglang_bench_serving, // `python -m sglang.bench_serving --output-file` (JSON Lines)
  genai_perf,           // genai-perf's profile_export_genai_perf.json
  aiperf,               // AIPerf's profile_export_aiperf.json
  trtllm_bench,         // `trtllm-bench throughput|latency --report_json`
  vllm_throughput,      // `vllm bench throughput --output-json` (offline)
};

// A value's first row is its name; the later rows are aliases a person may type.
inline constexpr NameRow<BenchClient> k_bench_client_rows[] = {
    {BenchClient::vllm_serve, "vllm-serve"},
    {BenchClient::sglang_bench_serving, "sglang-bench-serving"},
    {BenchClient::genai_perf, "genai-perf"},
    {BenchClient::aiperf, "aiperf"},
    {BenchClient::trtllm_bench, "trtllm-bench"},
    {BenchClient::vllm_throughput, "vllm-throughput"},
    {BenchClient::vllm_serve, "vllm"},
    {BenchClient::sglang_bench_serving, "sglang"},
    {BenchClient::trtllm_bench, "trtllm"}};
inline constexpr NameTable<BenchClient> k_bench_client_names{k_bench_client_rows};

// How the load was offered. Online: a load generator sends requests to a server, capped at a
// concurrency or paced at a request rate (or both). Offline: every request is handed to the engine
// at once and the run measures throughput (vllm bench throughput; trtllm-bench, whose file does
// not record a concurrency cap even when one was set).
enum class BenchMode { online, offline };
inline constexpr NameRow<BenchMode> k_bench_mode_rows[] = {{BenchMode::online, "online"},
                                                           {BenchMode::offline, "offline"}};
inline constexpr NameTable<BenchMode> k_bench_mode_names{k_bench_mode_rows};

// What an achieved-concurrency figure measures.
enum class ConcurrencyMeasure {
  peak, // the most requests in flight at once (vLLM's max_concurrent_requests)
  mean, // requests in flight on average, sum of latencies / duration (SGLang's concurrency,
        // trtllm-bench's avg_num_concurrent_requests)
};
inline constexpr NameRow<ConcurrencyMeasure> k_concurrency_measure_rows[] = {
    {ConcurrencyMeasure::peak, "peak"}, {ConcurrencyMeasure::mean, "mean"}};
inline constexpr NameTable<ConcurrencyMeasure> k_concurrency_measure_names{
    k_concurrency_measure_rows};

struct AchievedConcurrency {
  double value = 0.0; // requests
  ConcurrencyMeasure measure = ConcurrencyMeasure::mean;
};

// One latency's statistics over the completed requests, each present only where the file has it
// (or its per-request arrays give it). Percentiles are as the client computed them: numpy's
// linear interpolation for vLLM, SGLang, genai-perf and AIPerf, the nearest rank
// (sorted[int(n * p)]) for trtllm-bench.
struct LatencyStats {
  std::optional<Seconds> mean;
  std::optional<Seconds> median; // the 50th percentile
  std::optional<Seconds> p90;
  std::optional<Seconds> p99;

  [[nodiscard]] bool empty() const { return !mean && !median && !p90 && !p99; }
};

// One completed request of a file's per-request arrays (vLLM --save-detailed, SGLang
// --output-details, vLLM's latencies array); each field present where the file has it.
struct RequestRecord {
  std::optional<double> input_tokens;
  std::optional<double> output_tokens;
  std::optional<Seconds> ttft;
  std::optional<Seconds> latency; // end to end: sent to last token received
};

// One benchmark run, as rightsize needs it.
struct BenchRun {
  BenchClient client = BenchClient::vllm_serve;
  // Which form of the client's file this is, in words: "vllm bench serve --save-detailed",
  // "benchmark_serving.py (about v0.8)", "AIPerf (schema 1.0)", ...
  std::string format;
  std::optional<std::string> client_version; // AIPerf's aiperf_version, trtllm-bench's engine
                                             // version (TensorRT-LLM's, the bench's own)
  std::optional<std::string> server_version; // SGLang's server_info.version
  std::optional<std::string> model;          // the model name the file records

  BenchMode mode = BenchMode::online;
  long long completed = 0;         // requests that succeeded (> 0: a failed run is an error)
  std::optional<long long> failed; // requests that failed, where the client records them

  // Tokens per completed request, on average. vllm bench throughput records only their sum.
  std::optional<double> mean_input_tokens;
  std::optional<double> mean_output_tokens;
  double mean_tokens = 0.0; // input + output

  // The load offered (online runs): the configured cap on requests in flight, the configured
  // request rate (infinite: every request sent at once), and what the client measured.
  std::optional<long long> max_concurrency;
  std::optional<ItemsPerHour> request_rate;
  std::optional<AchievedConcurrency> achieved_concurrency;

  Seconds duration;                // of the measured run (> 0)
  ItemsPerHour request_throughput; // requests per unit time, as the client reports it
  std::optional<ItemsPerHour> output_token_throughput;
  std::optional<ItemsPerHour> total_token_throughput; // input + output tokens

  // TTFT: time to first token. TPOT: time per output token after the first, per request
  // ((latency - ttft) / (output tokens - 1)): genai-perf's and AIPerf's inter_token_latency.
  // ITL: the gaps between streamed chunks, pooled over requests: vLLM's and SGLang's itl,
  // AIPerf's inter_chunk_latency. E2E: a request's whole latency.
  LatencyStats ttft;
  LatencyStats tpot;
  LatencyStats itl;
  LatencyStats e2e;

  std::vector<RequestRecord> requests; // the completed requests, when the file lists them

  std::string source; // the file, or "file:LINE" for one run of several
  std::string digest; // of the whole file's bytes (fnv1a_hex, core/json_reader.hpp)
};

// Every run in the file at `path` (at most k_max_json_file_bytes, core/files.hpp), in file order:
// one, or several where the client writes one JSON object per line (vLLM --append-result,
// SGLang). The client is recognised by the file's content unless `forced` names it; its fields
// are checked either way. Throws InputError naming the file and the field for anything else:
// unreadable or empty, not JSON, an unknown format (naming the keys looked for), a missing or
// mistyped field, a number that is NaN, negative or absurd, a failed or cancelled run, vLLM's
// .pytorch.json side file, an embedding run.
std::vector<BenchRun> read_bench_results(const std::string& path,
                                         std::optional<BenchClient> forced = std::nullopt);

// The same over a file's text; `file` names it in errors and BenchRun::source.
std::vector<BenchRun> parse_bench_results(std::string_view text,
                                          const std::string& file,
                                          std::optional<BenchClient> forced = std::nullopt);

} // namespace rightsize
