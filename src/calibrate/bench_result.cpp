// Reading a benchmark client's result file: its JSON values, the client of each, its reader.
// docs/calibrate.md, "Result files".

#include "json_values.hpp"
#include "readers.hpp"

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

namespace rightsize {

namespace calibrate {

bool has_all(const nlohmann::json& object, std::initializer_list<std::string_view> keys) {
  const FieldReader r(object, "");
  return std::all_of(keys.begin(), keys.end(), [&](std::string_view k) { return r.has(k); });
}

bool has_any(const nlohmann::json& object, std::initializer_list<std::string_view> keys) {
  const FieldReader r(object, "");
  return std::any_of(keys.begin(), keys.end(), [&](std::string_view k) { return r.has(k); });
}

namespace {

// In the order the detection rules are tried, the most specific shapes first. Each looks for the
// keys that tell its client apart, not for every key its reader needs: a file of a known client
// with a field missing is reported as that field missing, not as an unknown format.
constexpr std::array<ClientReader, 6> k_readers = {{
    {BenchClient::trtllm_bench,
     is_trtllm_bench,
     "trtllm-bench (engine and world_info objects)",
     read_trtllm_bench},
    {BenchClient::vllm_throughput,
     is_vllm_throughput,
     "vllm bench throughput (elapsed_time, requests_per_second, tokens_per_second)",
     read_vllm_throughput},
    {BenchClient::aiperf,
     is_aiperf,
     "AIPerf (schema_version or aiperf_version, or input_config with was_cancelled, "
     "error_summary or benchmark_duration)",
     read_aiperf},
    {BenchClient::genai_perf,
     is_genai_perf,
     "genai-perf (input_config and request_throughput {unit, avg})",
     read_genai_perf},
    {BenchClient::sglang_bench_serving,
     is_sglang_bench_serving,
     "SGLang bench_serving (dataset_name, total_output_tokens_retokenized)",
     read_sglang_bench_serving},
    {BenchClient::vllm_serve,
     is_vllm_serve,
     "vllm bench serve (model_id, num_prompts)",
     read_vllm_serve},
}};

const ClientReader& reader_of(BenchClient client) {
  for (const ClientReader& r : k_readers) {
    if (r.client == client) {
      return r;
    }
  }
  throw InternalError("no reader for a benchmark client");
}

// vLLM writes <name>.pytorch.json beside its result when SAVE_TO_PYTORCH_BENCHMARK_FORMAT is set:
// one record per metric, {"benchmark", "model", "metric"} (vllm/benchmarks/lib/utils.py,
// convert_to_pytorch_benchmark_format).
bool is_pytorch_side_file(const nlohmann::json& value) {
  return value.is_array() && !value.empty() && value[0].is_object() &&
         has_all(value[0], {"benchmark", "model", "metric"});
}

[[noreturn]] void refuse_non_object(const nlohmann::json& value, const std::string& source) {
  if (is_pytorch_side_file(value)) {
    throw InputError(source,
                     "this is vLLM's .pytorch.json side file (one record per metric for PyTorch's "
                     "benchmark database), not a result: give the .json result file beside it");
  }
  throw InputError(
      source,
      fmt::format("a benchmark result is a JSON object (or one per line), got {}",
                  value.is_array() ? "an array" : "a " + std::string(value.type_name())));
}

const ClientReader& detect(const nlohmann::json& object, const std::string& source) {
  for (const ClientReader& r : k_readers) {
    if (r.detect(object)) {
      return r;
    }
  }
  std::string looked_for;
  for (const ClientReader& r : k_readers) {
    looked_for += (looked_for.empty() ? "" : "; ") + std::string(r.looks_for);
  }
  throw InputError(source,
                   "not a benchmark result rightsize reads: looked for the keys of " + looked_for);
}

} // namespace
} // namespace calibrate

std::vector<BenchRun> parse_bench_results(std::string_view text,
                                          const std::string& file,
                                          std::optional<BenchClient> forced) {
  using namespace calibrate;
  const std::vector<JsonValueText> values = split_json_values(text);
  if (values.empty()) {
    throw InputError(file,
                     "file is empty, expected a benchmark result (a JSON object, or one per "
                     "line)");
  }
  const std::string digest = detail::fnv1a_hex(text);
  std::vector<BenchRun> runs;
  runs.reserve(values.size());
  for (const JsonValueText& value : values) {
    const std::string source = values.size() == 1 ? file : fmt::format("{}:{}", file, value.line);
    const nlohmann::json object = parse_json_value(text, value, file, source);
    if (!object.is_object()) {
      refuse_non_object(object, source);
    }
    const ClientReader& reader = forced ? reader_of(*forced) : detect(object, source);
    BenchRun run = reader.read(FieldReader(object, source));
    run.client = reader.client;
    run.source = source;
    run.digest = digest;
    runs.push_back(std::move(run));
  }
  return runs;
}

std::vector<BenchRun> read_bench_results(const std::string& path,
                                         std::optional<BenchClient> forced) {
  const std::string text = read_input_file(path, k_max_json_file_bytes, "benchmark result");
  return parse_bench_results(text, path, forced);
}

} // namespace rightsize
