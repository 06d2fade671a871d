// `python -m sglang.bench_serving --output-file X.jsonl` (python/sglang/benchmark/serving.py, and
// python/sglang/bench_serving.py before it): one JSON object appended per run, with Python's bare
// Infinity for the default request rate. Keys and versions: docs/calibrate.md, "SGLang".

#include "readers.hpp"

#include <fmt/format.h>

#include <string>

namespace rightsize::calibrate {

namespace {

std::string format_of(const FieldReader& r) {
  std::string format = "sglang bench_serving";
  if (!r.json().contains("server_info") && !r.has("p90_ttft_ms")) {
    format += r.has("p99_ttft_ms") ? " (about early 2025: no p90, no server_info)"
                                   : " (about mid 2024: medians only)";
  }
  if (r.has("ttfts")) {
    format += " --output-details";
  }
  return format;
}

} // namespace

bool is_sglang_bench_serving(const nlohmann::json& object) {
  return has_all(object, {"dataset_name", "total_output_tokens_retokenized"});
}

BenchRun read_sglang_bench_serving(const FieldReader& r) {
  BenchRun run;
  run.format = format_of(r);
  if (const auto server = r.optional_object("server_info")) {
    run.model = server->optional_string("model_path");
    run.server_version = server->optional_string("version");
  }
  run.mode = BenchMode::online;
  run.completed = count(r, "completed", k_max_requests);
  require_completed(r, "completed", run.completed, std::nullopt);

  const auto n = static_cast<double>(run.completed);
  run.mean_input_tokens = static_cast<double>(count(r, "total_input_tokens", k_max_tokens)) / n;
  run.mean_output_tokens = static_cast<double>(count(r, "total_output_tokens", k_max_tokens)) / n;
  run.max_concurrency = optional_count(r, "max_concurrency", k_max_concurrency);
  run.request_rate = request_rate(r, "request_rate");
  if (const auto mean =
          optional_finite_number(r, "concurrency", Range::non_negative(k_max_concurrency));
      mean && *mean > 0) {
    run.achieved_concurrency = AchievedConcurrency{*mean, ConcurrencyMeasure::mean};
  }

  run.duration = seconds(finite_number(r, "duration", Range::positive(k_max_seconds)));
  // The mid-2024 files have no request_throughput; it was completed / duration.
  const auto requests_per_s =
      optional_finite_number(r, "request_throughput", Range::non_negative(k_max_rate_per_s));
  if (!requests_per_s && n / run.duration.si() > k_max_rate_per_s) {
    r.member("duration")
        .fail(fmt::format("gives more than {:g} requests/s (completed / duration)",
                          k_max_rate_per_s));
  }
  run.request_throughput = items_per_s(requests_per_s ? *requests_per_s : n / run.duration.si());
  run.output_token_throughput =
      items_per_s(finite_number(r, "output_throughput", Range::non_negative(k_max_rate_per_s)));
  if (const auto total =
          optional_finite_number(r, "total_throughput", Range::non_negative(k_max_rate_per_s))) {
    run.total_token_throughput = items_per_s(*total);
  }

  run.ttft = summary_stats_ms(r, "ttft");
  run.tpot = summary_stats_ms(r, "tpot");
  run.itl = summary_stats_ms(r, "itl");
  run.e2e = summary_stats_ms(r, "e2e_latency");
  read_request_arrays(r, run);
  finish_run(run);
  return run;
}

} // namespace rightsize::calibrate
