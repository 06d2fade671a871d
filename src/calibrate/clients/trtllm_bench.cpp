// `trtllm-bench --model M throughput|latency --report_json FILE`
// (tensorrt_llm/bench/dataclasses/reporting.py, ReportUtility.get_statistics_dict): nested objects
// of an in-process run. Percentiles are nearest-rank; world_info.issue_rate is not a rate and is
// not read. docs/calibrate.md, "trtllm-bench".

#include "readers.hpp"

namespace rightsize::calibrate {

namespace {

std::optional<Seconds> ms(const FieldReader& r, std::string_view key) {
  const auto v = optional_finite_number(r, key, Range::non_negative(k_max_seconds * 1e3));
  return v ? std::optional<Seconds>(milliseconds(*v)) : std::nullopt;
}

// A PercentileStats object {p50, p90, p95, p99, minimum, maximum, average} in ms.
LatencyStats percentiles_ms(const FieldReader& r, std::string_view key) {
  LatencyStats s;
  if (const auto p = r.optional_object(key)) {
    s.mean = ms(*p, "average");
    s.median = ms(*p, "p50");
    s.p90 = ms(*p, "p90");
    s.p99 = ms(*p, "p99");
  }
  return s;
}

} // namespace

bool is_trtllm_bench(const nlohmann::json& object) {
  for (const char* key : {"engine", "world_info"}) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_object()) {
      return false;
    }
  }
  return true;
}

BenchRun read_trtllm_bench(const FieldReader& r) {
  BenchRun run;
  const FieldReader engine = r.object("engine");
  const FieldReader requests = r.object("request_info");
  const FieldReader performance = r.object("performance");
  run.format = r.has("streaming_metrics") ? "trtllm-bench --streaming" : "trtllm-bench";
  run.model = engine.optional_string("model");
  run.client_version = engine.optional_string("version");
  // The configured --concurrency is not in the report, only what the run achieved.
  run.mode = BenchMode::offline;
  run.completed = count(requests, "num_requests", k_max_requests);
  require_completed(requests, "num_requests", run.completed, std::nullopt);
  run.mean_input_tokens =
      finite_number(requests, "avg_input_length", Range::non_negative(k_max_tokens_per_request));
  run.mean_output_tokens =
      finite_number(requests, "avg_output_length", Range::positive(k_max_tokens_per_request));
  if (const auto mean = optional_finite_number(
          requests, "avg_num_concurrent_requests", Range::non_negative(k_max_concurrency));
      mean && *mean > 0) {
    run.achieved_concurrency = AchievedConcurrency{*mean, ConcurrencyMeasure::mean};
  }

  run.duration = milliseconds(
      finite_number(performance, "total_latency_ms", Range::positive(k_max_seconds * 1e3)));
  run.request_throughput = items_per_s(finite_number(
      performance, "request_throughput_req_s", Range::non_negative(k_max_rate_per_s)));
  run.output_token_throughput = items_per_s(finite_number(
      performance, "system_output_throughput_tok_s", Range::non_negative(k_max_rate_per_s)));
  if (const auto total = optional_finite_number(
          performance, "system_total_throughput_tok_s", Range::non_negative(k_max_rate_per_s))) {
    run.total_token_throughput = items_per_s(*total);
  }

  run.e2e = percentiles_ms(performance, "request_latency_percentiles_ms");
  if (!run.e2e.mean) {
    run.e2e.mean = ms(performance, "avg_request_latency_ms");
  }
  if (const auto streaming = r.optional_object("streaming_metrics")) {
    run.ttft = percentiles_ms(*streaming, "ttft_percentiles");
    run.tpot = percentiles_ms(*streaming, "tpot_percentiles");
    if (!run.ttft.mean) {
      run.ttft.mean = ms(*streaming, "avg_ttft_ms");
    }
    if (!run.tpot.mean) {
      run.tpot.mean = ms(*streaming, "avg_tpot_ms");
    }
  }
  finish_run(run);
  return run;
}

} // namespace rightsize::calibrate
