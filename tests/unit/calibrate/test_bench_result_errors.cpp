// What the readers of benchmark result files refuse, each with one InputError line naming the
// file and the field (docs/calibrate.md, "Result files", Errors), and the text pre-pass that
// reads Python's bare Infinity and NaN.

#include "bench_fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace rightsize;
using namespace rightsize::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::vector<BenchRun> parse(const std::string& text, const std::string& file = "x.json") {
  return parse_bench_results(text, file);
}

std::vector<BenchRun> parse(const nlohmann::json& j, const std::string& file = "x.json") {
  return parse_bench_results(j.dump(), file);
}

nlohmann::json vllm_default() {
  return calibrate_json("vllm-serve-default.json");
}

} // namespace

TEST_CASE("bench_result errors: empty, not JSON, not an object", "[calibrate]") {
  REQUIRE_THROWS_WITH(parse(std::string()),
                      "x.json: file is empty, expected a benchmark result (a JSON object, or one "
                      "per line)");
  REQUIRE_THROWS_WITH(parse(std::string(" \n\t\n")), StartsWith("x.json: file is empty"));
  REQUIRE_THROWS_WITH(parse(std::string("{\"completed\": 3,")),
                      StartsWith("x.json:1:17: invalid JSON: "));
  REQUIRE_THROWS_WITH(parse(std::string("{\"completed\": 3, \"completed\": 4}")),
                      "x.json: duplicate key \"completed\"");
  REQUIRE_THROWS_WITH(parse(std::string("42")),
                      "x.json: a benchmark result is a JSON object (or one per line), got a "
                      "number");
  REQUIRE_THROWS_WITH(parse(std::string("[1, 2]")),
                      "x.json: a benchmark result is a JSON object (or one per line), got an "
                      "array");
  REQUIRE_THROWS_WITH(parse(std::string("{\"a\": \"\xff\"}")),
                      StartsWith("x.json:1:8: not a JSON text file"));
  REQUIRE_THROWS_WITH(read_bench_results("/nonexistent/result.json"),
                      StartsWith("/nonexistent/result.json"));
}

TEST_CASE("bench_result errors: a syntax error's place counts the bytes of the file",
          "[calibrate]") {
  // The bare tokens are read with quotes added; the column is still the file's.
  REQUIRE_THROWS_WITH(parse(std::string("{\"a\": Infinity, \"b\": NaN, \"c\": }")),
                      StartsWith("x.json:1:32: invalid JSON: "));
  // The second line of JSON Lines, after a first line that parses.
  const std::string first = calibrate_text("vllm-serve-append.json");
  const std::string second = "\n{\"request_rate\": Infinity, \"x\": ]}";
  REQUIRE_THROWS_WITH(parse(first.substr(0, first.find('\n')) + second),
                      StartsWith("x.json:2:33: invalid JSON: "));
  REQUIRE_THROWS_WITH(
      parse(first.substr(0, first.find('\n')) + "\n{\"completed\": 1, \"completed\": 2}"),
      "x.json:2: duplicate key \"completed\"");
}

TEST_CASE("bench_result errors: an unknown format says what was looked for", "[calibrate]") {
  REQUIRE_THROWS_WITH(
      parse(std::string("{\"foo\": 1}")),
      "x.json: not a benchmark result rightsize reads: looked for the keys of trtllm-bench "
      "(engine and world_info objects); vllm bench throughput (elapsed_time, "
      "requests_per_second, tokens_per_second); AIPerf (schema_version or aiperf_version, or "
      "input_config with was_cancelled, error_summary or benchmark_duration); genai-perf "
      "(input_config and request_throughput {unit, avg}); SGLang bench_serving (dataset_name, "
      "total_output_tokens_retokenized); vllm bench serve (model_id, num_prompts)");
  // A client's distinguishing keys make it that client's file; what its reader needs besides is
  // then reported as missing, and keys it does not know are read past.
  nlohmann::json j = calibrate_json("vllm-throughput.json");
  j["extra"] = 1;
  CHECK(parse(j).at(0).client == BenchClient::vllm_throughput);
  j.erase("num_requests");
  REQUIRE_THROWS_WITH(parse(j), "x.json:/num_requests: required field is missing");
}

TEST_CASE("bench_result errors: vLLM's .pytorch.json side file", "[calibrate]") {
  const std::string path = calibrate_fixture("vllm-serve-default.pytorch.json");
  REQUIRE_THROWS_WITH(read_bench_results(path),
                      path + ": this is vLLM's .pytorch.json side file (one record per metric for "
                             "PyTorch's benchmark database), not a result: give the .json result "
                             "file beside it");
}

TEST_CASE("bench_result errors: failed and cancelled runs", "[calibrate]") {
  const std::string path = calibrate_fixture("vllm-serve-allfailed.json");
  REQUIRE_THROWS_WITH(read_bench_results(path),
                      path + ":/completed: every request failed (320 failed): a failed run cannot "
                             "calibrate rightsize; fix the run and benchmark again");
  // SGLang's mid-2024 version wrote NaN statistics when every request failed.
  REQUIRE_THROWS_WITH(
      parse(std::string("{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"request_rate\": "
                        "Infinity, \"total_input_tokens\": 0, \"total_output_tokens\": 0, "
                        "\"total_output_tokens_retokenized\": 0, \"mean_e2e_latency_ms\": NaN, "
                        "\"duration\": 1.5, \"completed\": 0}\n"),
            "s.jsonl"),
      "s.jsonl:/completed: no request completed: a failed run cannot calibrate rightsize; fix the "
      "run and benchmark again");

  nlohmann::json aiperf = calibrate_json("aiperf-profile_export_aiperf.json");
  aiperf.erase("request_count");
  aiperf["error_request_count"] = {{"unit", "requests"}, {"avg", 320.0}};
  REQUIRE_THROWS_WITH(parse(aiperf),
                      "x.json:/request_count: every request failed (320 failed): a failed run "
                      "cannot calibrate rightsize; fix the run and benchmark again");
  aiperf = calibrate_json("aiperf-profile_export_aiperf.json");
  aiperf["was_cancelled"] = true;
  REQUIRE_THROWS_WITH(parse(aiperf),
                      "x.json:/was_cancelled: the run was cancelled before it finished: its "
                      "figures cover part of a run");

  nlohmann::json genai = calibrate_json("genai-perf-profile_export_genai_perf.json");
  genai["request_count"]["avg"] = 0.0;
  REQUIRE_THROWS_WITH(parse(genai), StartsWith("x.json:/request_count/avg: no request completed"));

  nlohmann::json trtllm = calibrate_json("trtllm-bench-report.json");
  trtllm["request_info"]["num_requests"] = 0;
  REQUIRE_THROWS_WITH(parse(trtllm),
                      StartsWith("x.json:/request_info/num_requests: no request completed"));
}

TEST_CASE("bench_result errors: missing fields and wrong types name the field", "[calibrate]") {
  nlohmann::json j = vllm_default();
  j.erase("duration");
  j["tpot"] = 1; // unknown keys are read past: every client adds keys from release to release
  REQUIRE_THROWS_WITH(parse(j), "x.json:/duration: required field is missing");

  j = vllm_default();
  j["completed"] = "320";
  REQUIRE_THROWS_WITH(parse(j), "x.json:/completed: must be an integer, got \"320\"");
  j = vllm_default();
  j["completed"] = 320.5;
  REQUIRE_THROWS_WITH(parse(j), "x.json:/completed: must be an integer, got 320.5");
  j = vllm_default();
  j["mean_ttft_ms"] = "fast";
  REQUIRE_THROWS_WITH(parse(j), "x.json:/mean_ttft_ms: must be a number, got \"fast\"");
  j = vllm_default();
  j["request_rate"] = "fast";
  REQUIRE_THROWS_WITH(parse(j),
                      "x.json:/request_rate: must be a number of requests per second, \"inf\" or "
                      "Infinity, got \"fast\"");
  j = vllm_default();
  j["latencies"] = nlohmann::json::array({1.0, "x"});
  REQUIRE_THROWS_WITH(parse(j), StartsWith("x.json:/latencies/1: must be a number"));

  nlohmann::json t = calibrate_json("trtllm-bench-report.json");
  t["performance"] = 3;
  REQUIRE_THROWS_WITH(parse(t, "t.json"), "t.json:/performance: must be an object, got 3");
  t = calibrate_json("trtllm-bench-report.json");
  t["streaming_metrics"]["ttft_percentiles"]["p99"] = "slow";
  REQUIRE_THROWS_WITH(parse(t, "t.json"),
                      "t.json:/streaming_metrics/ttft_percentiles/p99: must be a number, got "
                      "\"slow\"");

  nlohmann::json g = calibrate_json("genai-perf-profile_export_genai_perf.json");
  g.erase("output_sequence_length");
  REQUIRE_THROWS_WITH(parse(g), "x.json:/output_sequence_length: required field is missing");
  g = calibrate_json("genai-perf-profile_export_genai_perf.json");
  g["time_to_first_token"]["unit"] = "furlongs";
  REQUIRE_THROWS_WITH(parse(g),
                      StartsWith("x.json:/time_to_first_token/unit: must be a unit of time, one "
                                 "of "));
  g = calibrate_json("genai-perf-profile_export_genai_perf.json");
  g["output_token_throughput"]["unit"] = "tokens/min";
  REQUIRE_THROWS_WITH(parse(g), StartsWith("x.json:/output_token_throughput/unit: must be "));
}

TEST_CASE("bench_result errors: NaN, infinite, negative and absurd numbers", "[calibrate]") {
  const std::string sglang = calibrate_text("sglang-bench-serving.jsonl");
  std::string line = sglang.substr(0, sglang.find('\n'));
  const std::string key = "\"mean_ttft_ms\": ";
  const auto at = line.find(key) + key.size();
  line.replace(at, line.find(',', at) - at, "NaN");
  REQUIRE_THROWS_WITH(parse(line, "s.jsonl"),
                      "s.jsonl:/mean_ttft_ms: must be a finite number, got \"NaN\"");
  line.replace(at, 3, "-Infinity");
  REQUIRE_THROWS_WITH(parse(line, "s.jsonl"),
                      "s.jsonl:/mean_ttft_ms: must be a finite number, got \"-Infinity\"");

  nlohmann::json j = vllm_default();
  j["duration"] = -1.0;
  REQUIRE_THROWS_WITH(parse(j), "x.json:/duration: must be > 0 and <= 1e+08, got -1.0");
  j = vllm_default();
  j["duration"] = "Infinity"; // what the bare token becomes
  REQUIRE_THROWS_WITH(parse(j), "x.json:/duration: must be a finite number, got \"Infinity\"");
  j = vllm_default();
  j["failed"] = -3;
  REQUIRE_THROWS_WITH(parse(j), "x.json:/failed: must be between 0 and 1e+12, got -3");
  j = vllm_default();
  j["total_output_tokens"] = 1e18;
  REQUIRE_THROWS_WITH(parse(j), StartsWith("x.json:/total_output_tokens: must be between 0 and"));
  j = vllm_default();
  j["p99_ttft_ms"] = 1e300;
  REQUIRE_THROWS_WITH(parse(j), StartsWith("x.json:/p99_ttft_ms: must be between 0 and"));
  j = vllm_default();
  j["request_rate"] = 0;
  REQUIRE_THROWS_WITH(parse(j), StartsWith("x.json:/request_rate: must be > 0"));
  REQUIRE_THROWS_WITH(parse(std::string("{\"completed\": 1e400}")),
                      "x.json:1:19: invalid JSON: number out of range of a double: '1e400'");
}

TEST_CASE("bench_result errors: an embedding run and ragged per-request arrays", "[calibrate]") {
  nlohmann::json j = vllm_default();
  j["total_input_sequences"] = 320;
  REQUIRE_THROWS_WITH(parse(j),
                      "x.json:/total_input_sequences: this is an embedding (pooling) run: "
                      "rightsize calibrate reads text generation runs");
  j = calibrate_json("vllm-benchmark-serving-v08.json");
  j["ttfts"].erase(3);
  REQUIRE_THROWS_WITH(parse(j),
                      "x.json:/ttfts: has 3 entries but /input_lens has 4: one entry per request");
}

TEST_CASE("bench_result: bare Infinity and NaN are read outside strings only", "[calibrate]") {
  // Inside strings and keys they are text; as values they become the strings the readers know.
  std::string line = calibrate_text("sglang-bench-serving.jsonl");
  line = line.substr(0, line.find('\n'));
  const std::string tag = "\"tag\": null";
  line.replace(line.find(tag), tag.size(), "\"tag\": \"Infinity, NaN: {[\\\"\"");
  line.insert(1, "\"NaN\": [NaN, -Infinity, Infinity], ");
  const BenchRun r = parse(line, "s.jsonl").at(0);
  CHECK(std::isinf(r.request_rate->si()));
  CHECK(r.completed == 320);
  // A token glued to a word is not one: the parser refuses it where it stands.
  REQUIRE_THROWS_WITH(parse(std::string("{\"a\": Infinityx}")),
                      StartsWith("x.json:1:7: invalid JSON: "));
  REQUIRE_THROWS_WITH(parse(std::string("{\"a\": nan}")),
                      StartsWith("x.json:1:8: invalid JSON: invalid literal"));
}

TEST_CASE("bench_result errors: empty and truncated files on disk", "[calibrate]") {
  const ScratchDir dir;
  for (const std::string& text : {std::string(), std::string("\n\n  \n")}) {
    const std::string path = dir.write("empty.jsonl", text);
    REQUIRE_THROWS_WITH(read_bench_results(path),
                        path + ": file is empty, expected a benchmark result (a JSON object, or "
                               "one per line)");
  }
  // vllm bench serve cut off mid-write: one line, no final newline, so the place is column
  // length + 1 of line 1.
  const std::string whole = calibrate_text("vllm-serve-default.json");
  const std::string cut = whole.substr(0, whole.size() / 2);
  const std::string path = dir.write("cut.json", cut);
  REQUIRE_THROWS_WITH(
      read_bench_results(path),
      StartsWith(path + ":1:" + std::to_string(cut.size() + 1) + ": invalid JSON: "));
  // SGLang's file cut inside its second line: the first run parses, the second is refused.
  const std::string lines = calibrate_text("sglang-bench-serving.jsonl");
  const std::size_t second = lines.find('\n') + 1;
  const std::string cut_lines = lines.substr(0, second + 100);
  const std::string jsonl = dir.write("cut.jsonl", cut_lines);
  REQUIRE_THROWS_WITH(read_bench_results(jsonl), StartsWith(jsonl + ":2:101: invalid JSON: "));
  // A run whose brackets close early: what follows is refused where it stands.
  REQUIRE_THROWS_WITH(parse(calibrate_text("vllm-throughput.json") + "}"),
                      StartsWith("x.json:7:2: invalid JSON: "));
}

TEST_CASE("bench_result errors: failed runs of every client", "[calibrate]") {
  nlohmann::json j = calibrate_json("vllm-throughput.json");
  j["num_requests"] = 0;
  REQUIRE_THROWS_WITH(parse(j),
                      "x.json:/num_requests: no request completed: a failed run cannot calibrate "
                      "rightsize; fix the run and benchmark again");
  // vLLM's v0.8 script, which wrote no `failed`: every prompt sent and none completed.
  j = calibrate_json("vllm-benchmark-serving-v08.json");
  j["completed"] = 0;
  j.erase("errors");
  REQUIRE_THROWS_WITH(parse(j), StartsWith("x.json:/completed: every request failed (4 failed)"));
  // AIPerf with no request_count and no errors counted: the count is missing, not a failed run.
  j = calibrate_json("aiperf-profile_export_aiperf.json");
  j.erase("request_count");
  REQUIRE_THROWS_WITH(parse(j), "x.json:/request_count: required field is missing");
  // genai-perf before request_count (2024-12-23): nothing counts the completed requests.
  j = calibrate_json("genai-perf-profile_export_genai_perf.json");
  j.erase("request_count");
  REQUIRE_THROWS_WITH(parse(j), "x.json:/request_count: required field is missing");
}

TEST_CASE("bench_result errors: figures that cannot hold together", "[calibrate]") {
  // genai-perf's duration is derived from its throughput: a run of no time, or of centuries.
  nlohmann::json g = calibrate_json("genai-perf-profile_export_genai_perf.json");
  g["output_sequence_length"]["avg"] = 0.0;
  REQUIRE_THROWS_WITH(parse(g),
                      "x.json:/output_token_throughput/avg: gives a run of 0 s (request_count x "
                      "output_sequence_length / this): must be > 0 and <= 1e+08, got "
                      "1904.4256797921398");
  g = calibrate_json("genai-perf-profile_export_genai_perf.json");
  g["output_token_throughput"]["avg"] = 1e-300;
  REQUIRE_THROWS_WITH(parse(g),
                      StartsWith("x.json:/output_token_throughput/avg: gives a run of 8.192e+304 "
                                 "s"));
  // SGLang's mid-2024 file has no request_throughput: completed / duration must be a rate.
  const std::string sglang = calibrate_text("sglang-bench-serving.jsonl");
  nlohmann::json s =
      nlohmann::json::parse(sglang.substr(0, sglang.find('\n'))
                                .replace(sglang.find(": Infinity,"), 11, ": \"Infinity\","));
  s.erase("request_throughput");
  s["duration"] = 1e-300;
  REQUIRE_THROWS_WITH(parse(s, "s.jsonl"),
                      "s.jsonl:/duration: gives more than 1e+12 requests/s (completed / duration), "
                      "got 1e-300");
  // A request that ended before its first token.
  nlohmann::json v = calibrate_json("vllm-serve-detailed.json");
  v["latencies"][3] = 0.01;
  REQUIRE_THROWS_WITH(parse(v),
                      "x.json:/latencies/3: is shorter than the request's time to first token "
                      "(/ttfts/3: 0.0709094 s), got 0.01");
  // Unless it failed after its first token: vLLM then keeps the TTFT and a latency of 0.0.
  v["errors"][3] = "ClientPayloadError: Response payload is not completed";
  v["latencies"][3] = 0.0;
  v["completed"] = 31;
  v["failed"] = 1;
  const BenchRun r = parse(v).at(0);
  CHECK(r.requests.size() == 31);
}

TEST_CASE("bench_result errors: bare NaN and Infinity where no rate is", "[calibrate]") {
  const std::string sglang = calibrate_text("sglang-bench-serving.jsonl");
  std::string line = sglang.substr(0, sglang.find('\n'));
  line.replace(line.find(": Infinity,"), 11, ": -Infinity,");
  REQUIRE_THROWS_WITH(parse(line, "s.jsonl"),
                      "s.jsonl:/request_rate: must be a number of requests per second, \"inf\" or "
                      "Infinity, got \"-Infinity\"");
  line.replace(line.find(": -Infinity,"), 12, ": NaN,");
  REQUIRE_THROWS_WITH(parse(line, "s.jsonl"), StartsWith("s.jsonl:/request_rate: must be a "));
  // In a per-request array, after the line before it.
  nlohmann::json details = calibrate_json("vllm-serve-detailed.json");
  details["ttfts"][7] = "NaN";
  std::string text = details.dump();
  text.replace(text.find("\"NaN\""), 5, "NaN");
  REQUIRE_THROWS_WITH(parse(calibrate_text("vllm-serve-append.json") + "\n" + text, "a.json"),
                      "a.json:3:/ttfts/7: must be a finite number, got \"NaN\"");
}
