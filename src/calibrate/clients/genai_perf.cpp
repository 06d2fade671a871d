// genai-perf's profile_export_genai_perf.json (triton-inference-server/perf_analyzer,
// genai_perf/export_data/json_exporter.py) and AIPerf's profile_export_aiperf.json
// (ai-dynamo/aiperf), which mimics it: one metric object per figure, {"unit", "avg", "p50", ...},
// and the run's configuration under input_config. Their inter_token_latency is TPOT; AIPerf's
// inter_chunk_latency is the chunk gap others call ITL. docs/calibrate.md, "genai-perf and AIPerf".

#include "readers.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <utility>

namespace rightsize::calibrate {

namespace {

// A time metric's unit in seconds ("unit is authoritative": AIPerf's schema documentation).
constexpr std::pair<std::string_view, double> k_time_units[] = {
    {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"sec", 1.0}};

void expect_unit(const FieldReader& metric, std::initializer_list<std::string_view> units) {
  const std::string unit = metric.string("unit");
  std::vector<std::string> names;
  for (const std::string_view u : units) {
    if (unit == u) {
      return;
    }
    names.emplace_back(u);
  }
  metric.member("unit").fail("must be " + FieldReader::join(names));
}

double seconds_per_unit(const FieldReader& metric) {
  const std::string unit = metric.string("unit");
  std::vector<std::string> names;
  for (const auto& [name, scale] : k_time_units) {
    if (unit == name) {
      return scale;
    }
    names.emplace_back(name);
  }
  metric.member("unit").fail("must be a unit of time, one of " + FieldReader::join(names));
}

// The `avg` of metric `key`, in its unit, which must be one of `units`.
std::optional<double> optional_avg(const FieldReader& r,
                                   std::string_view key,
                                   std::initializer_list<std::string_view> units,
                                   Range range) {
  const auto metric = r.optional_object(key);
  if (!metric) {
    return std::nullopt;
  }
  expect_unit(*metric, units);
  return finite_number(*metric, "avg", range);
}

double avg(const FieldReader& r,
           std::string_view key,
           std::initializer_list<std::string_view> units,
           Range range) {
  (void)r.object(key); // missing: "required field is missing" at the metric
  return *optional_avg(r, key, units, range);
}

LatencyStats latency(const FieldReader& r, std::string_view key) {
  LatencyStats s;
  const auto metric = r.optional_object(key);
  if (!metric) {
    return s;
  }
  const double scale = seconds_per_unit(*metric);
  const auto stat = [&](std::string_view name) -> std::optional<Seconds> {
    const auto v =
        optional_finite_number(*metric, name, Range::non_negative(k_max_seconds / scale));
    return v ? std::optional<Seconds>(seconds(*v * scale)) : std::nullopt;
  };
  s.mean = stat("avg");
  s.median = stat("p50");
  s.p90 = stat("p90");
  s.p99 = stat("p99");
  return s;
}

std::optional<std::string> first_name(const FieldReader& r, std::string_view key) {
  if (!r.has(key)) {
    return std::nullopt;
  }
  const std::vector<FieldReader> names = r.array(key);
  if (names.empty()) {
    return std::nullopt;
  }
  return names.front().as_string();
}

// What genai-perf and AIPerf share: counts, lengths, throughputs, latencies, the duration.
// `completed` must have been read.
void read_metrics(const FieldReader& r, BenchRun& run) {
  const auto tokens = Range::non_negative(k_max_tokens_per_request);
  const auto rate = Range::non_negative(k_max_rate_per_s);
  run.mean_input_tokens = avg(r, "input_sequence_length", {"tokens"}, tokens);
  run.mean_output_tokens = avg(r, "output_sequence_length", {"tokens"}, tokens);
  run.request_throughput = items_per_s(avg(r, "request_throughput", {"requests/sec"}, rate));
  const double output_per_s = avg(r, "output_token_throughput", {"tokens/sec"}, rate);
  run.output_token_throughput = items_per_s(output_per_s);
  if (const auto total = optional_avg(r, "total_token_throughput", {"tokens/sec"}, rate)) {
    run.total_token_throughput = items_per_s(*total);
  }
  if (const auto duration = r.optional_object("benchmark_duration")) {
    run.duration = seconds(finite_number(*duration, "avg", Range::positive(k_max_seconds)) *
                           seconds_per_unit(*duration));
  } else {
    // genai-perf writes no duration: its output_token_throughput is the sum of the output
    // lengths over the run's span (llm_profile_data_parser.py), so the span is that sum over it.
    if (output_per_s <= 0.0) {
      r.member("output_token_throughput")
          .member("avg")
          .fail("must be > 0: the run's duration is derived from it");
    }
    const double span = static_cast<double>(run.completed) * *run.mean_output_tokens / output_per_s;
    if (!(span > 0.0 && span <= k_max_seconds)) {
      r.member("output_token_throughput")
          .member("avg")
          .fail(fmt::format("gives a run of {:g} s (request_count x output_sequence_length / "
                            "this): must be > 0 and <= {:g}",
                            span,
                            k_max_seconds));
    }
    run.duration = seconds(span);
  }
  run.ttft = latency(r, "time_to_first_token");
  run.tpot = latency(r, "inter_token_latency");
  run.itl = latency(r, "inter_chunk_latency");
  run.e2e = latency(r, "request_latency");
}

long long request_count(const FieldReader& r, std::optional<long long> failed) {
  if (!r.has("request_count") && failed && *failed > 0) {
    require_completed(r, "request_count", 0, failed); // AIPerf counts none when all failed
  }
  const FieldReader metric = r.object("request_count");
  expect_unit(metric, {"count", "requests"});
  const long long completed = count(metric, "avg", k_max_requests);
  require_completed(metric, "avg", completed, failed);
  return completed;
}

// The profiling phase of AIPerf's BenchmarkConfig: the first phase that is not a warmup.
std::optional<FieldReader> profiling_phase(const FieldReader& config) {
  if (!config.has("phases")) {
    return std::nullopt;
  }
  for (const FieldReader& phase : config.array("phases")) {
    const auto name = phase.optional_string("name");
    const auto kind = phase.optional_string("kind");
    if (name != "warmup" && kind != "warmup") {
      return phase;
    }
  }
  return std::nullopt;
}

std::optional<long long> aiperf_failed(const FieldReader& r) {
  if (const auto errors = r.optional_object("error_request_count")) {
    expect_unit(*errors, {"requests", "count"});
    return count(*errors, "avg", k_max_requests);
  }
  if (!r.has("error_summary")) {
    return std::nullopt;
  }
  long long failed = 0;
  for (const FieldReader& e : r.array("error_summary")) {
    failed += count(e, "count", k_max_requests);
  }
  return failed;
}

void read_aiperf_load(const FieldReader& config, BenchRun& run) {
  if (const auto phase = profiling_phase(config)) {
    run.max_concurrency = optional_count(*phase, "concurrency", k_max_concurrency);
    run.request_rate = request_rate(*phase, "rate");
  } else if (const auto loadgen = config.optional_object("loadgen")) {
    run.max_concurrency = optional_count(*loadgen, "concurrency", k_max_concurrency);
    run.request_rate = request_rate(*loadgen, "request_rate");
  }
}

} // namespace

bool is_aiperf(const nlohmann::json& object) {
  if (has_any(object, {"schema_version", "aiperf_version"})) {
    return true;
  }
  const auto config = object.find("input_config");
  return config != object.end() && config->is_object() &&
         has_any(object, {"was_cancelled", "error_summary", "benchmark_duration"});
}

bool is_genai_perf(const nlohmann::json& object) {
  const auto config = object.find("input_config");
  const auto throughput = object.find("request_throughput");
  return config != object.end() && config->is_object() && throughput != object.end() &&
         throughput->is_object() && throughput->contains("unit") && throughput->contains("avg");
}

BenchRun read_genai_perf(const FieldReader& r) {
  BenchRun run;
  const FieldReader config = r.object("input_config");
  const auto stimulus = config.has("perf_analyzer")
                            ? config.object("perf_analyzer").optional_object("stimulus")
                            : std::nullopt;
  run.format = stimulus ? "genai-perf" : "genai-perf (before 2025-03: flat input_config)";
  run.model = stimulus ? first_name(config, "model_names") : first_name(config, "model");
  run.mode = BenchMode::online;
  const FieldReader& load = stimulus ? *stimulus : config;
  run.max_concurrency = optional_count(load, "concurrency", k_max_concurrency);
  run.request_rate = request_rate(load, "request_rate");
  run.completed = request_count(r, std::nullopt);
  read_metrics(r, run);
  finish_run(run);
  return run;
}

BenchRun read_aiperf(const FieldReader& r) {
  BenchRun run;
  const FieldReader config = r.object("input_config");
  run.client_version = r.optional_string("aiperf_version");
  const auto schema = r.optional_string("schema_version");
  run.format = schema ? fmt::format("AIPerf (schema {})", *schema)
                      : std::string("AIPerf (before schema_version: UserConfig input_config)");
  if (r.optional_boolean("was_cancelled").value_or(false)) {
    r.member("was_cancelled")
        .fail_plain("the run was cancelled before it finished: its figures cover part of a run");
  }
  if (const auto models = config.optional_object("models")) {
    if (models->has("items") && !models->array("items").empty()) {
      run.model = models->array("items").front().optional_string("name");
    }
  } else if (const auto endpoint = config.optional_object("endpoint")) {
    run.model = first_name(*endpoint, "model_names");
  }
  run.mode = BenchMode::online;
  read_aiperf_load(config, run);
  run.failed = aiperf_failed(r);
  run.completed = request_count(r, run.failed);
  read_metrics(r, run);
  finish_run(run);
  return run;
}

} // namespace rightsize::calibrate
