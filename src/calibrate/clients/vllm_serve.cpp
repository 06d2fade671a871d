// `vllm bench serve --save-result` (vllm/benchmarks/serve.py) and the benchmark_serving.py script
// before it: one compact JSON object, or one per line with --append-result. Keys and versions:
// docs/calibrate.md, "vLLM bench serve".

#include "readers.hpp"

#include <string>

namespace rightsize::calibrate {

namespace {

std::string format_of(const FieldReader& r) {
  const nlohmann::json& j = r.json();
  std::string format;
  if (j.contains("endpoint_type") || j.contains("label")) {
    format = "vllm bench serve";
  } else if (j.contains("best_of")) {
    format = "benchmark_serving.py (about v0.5)";
  } else if (j.contains("request_goodput:") || j.contains("burstiness")) {
    format = "benchmark_serving.py (about v0.8)";
  } else {
    format = "benchmark_serving.py";
  }
  if (r.has("ttfts")) { // the scripts wrote the arrays whatever the flags said
    format += format == "vllm bench serve" ? " --save-detailed" : " with per-request arrays";
  }
  return format;
}

} // namespace

bool is_vllm_serve(const nlohmann::json& object) {
  return has_all(object, {"model_id", "num_prompts"}) &&
         !has_any(object, {"total_output_tokens_retokenized"});
}

BenchRun read_vllm_serve(const FieldReader& r) {
  if (r.has("total_input_sequences")) {
    r.member("total_input_sequences")
        .fail_plain("this is an embedding (pooling) run: rightsize calibrate reads text "
                    "generation runs");
  }
  BenchRun run;
  run.format = format_of(r);
  run.model = r.optional_string("model_id");
  run.mode = BenchMode::online;
  run.completed = count(r, "completed", k_max_requests);
  run.failed = optional_count(r, "failed", k_max_requests);
  const long long sent = count(r, "num_prompts", k_max_requests);
  if (!run.failed && !r.has("errors") && sent >= run.completed) {
    run.failed = sent - run.completed; // the scripts before `failed`: every prompt is sent
  }
  require_completed(r, "completed", run.completed, run.failed);

  const auto n = static_cast<double>(run.completed);
  run.mean_input_tokens = static_cast<double>(count(r, "total_input_tokens", k_max_tokens)) / n;
  run.mean_output_tokens = static_cast<double>(count(r, "total_output_tokens", k_max_tokens)) / n;
  run.max_concurrency = optional_count(r, "max_concurrency", k_max_concurrency);
  // With --ramp-up-strategy the rate climbs from ramp_up_start_rps to ramp_up_end_rps, and
  // request_rate says "inf": no one rate was offered.
  run.request_rate = r.has("ramp_up_strategy") ? std::nullopt : request_rate(r, "request_rate");
  if (const auto peak = optional_count(r, "max_concurrent_requests", k_max_concurrency);
      peak && *peak > 0) {
    run.achieved_concurrency =
        AchievedConcurrency{static_cast<double>(*peak), ConcurrencyMeasure::peak};
  }

  run.duration = seconds(finite_number(r, "duration", Range::positive(k_max_seconds)));
  run.request_throughput =
      items_per_s(finite_number(r, "request_throughput", Range::non_negative(k_max_rate_per_s)));
  run.output_token_throughput =
      items_per_s(finite_number(r, "output_throughput", Range::non_negative(k_max_rate_per_s)));
  if (const auto total = optional_finite_number(
          r, "total_token_throughput", Range::non_negative(k_max_rate_per_s))) {
    run.total_token_throughput = items_per_s(*total);
  }

  run.ttft = summary_stats_ms(r, "ttft");
  run.tpot = summary_stats_ms(r, "tpot");
  run.itl = summary_stats_ms(r, "itl");
  run.e2e = summary_stats_ms(r, "e2el");
  read_request_arrays(r, run);
  finish_run(run);
  return run;
}

} // namespace rightsize::calibrate
