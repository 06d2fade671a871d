// `vllm bench throughput --output-json FILE` (vllm/benchmarks/throughput.py, and
// benchmarks/benchmark_throughput.py before it): five keys of an offline run. tokens_per_second
// counts prompt and output tokens together, and nothing splits them: docs/calibrate.md.

#include "readers.hpp"

namespace rightsize::calibrate {

bool is_vllm_throughput(const nlohmann::json& object) {
  return has_all(object, {"elapsed_time", "requests_per_second", "tokens_per_second"});
}

BenchRun read_vllm_throughput(const FieldReader& r) {
  BenchRun run;
  run.format = "vllm bench throughput";
  run.mode = BenchMode::offline;
  run.completed = count(r, "num_requests", k_max_requests);
  require_completed(r, "num_requests", run.completed, std::nullopt);
  const auto tokens = static_cast<double>(count(r, "total_num_tokens", k_max_tokens));
  run.mean_tokens = tokens / static_cast<double>(run.completed);
  run.duration = seconds(finite_number(r, "elapsed_time", Range::positive(k_max_seconds)));
  run.request_throughput =
      items_per_s(finite_number(r, "requests_per_second", Range::non_negative(k_max_rate_per_s)));
  run.total_token_throughput =
      items_per_s(finite_number(r, "tokens_per_second", Range::non_negative(k_max_rate_per_s)));
  finish_run(run);
  return run;
}

} // namespace rightsize::calibrate
