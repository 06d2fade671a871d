// How a result file's client is recognised (docs/calibrate.md, "How a file is read": the rules in
// their order), each rule alone and where two could match; and the forms of a file that only some
// runs write: SGLang's --output-details, vLLM's --ramp-up-strategy, a non-streaming endpoint.

#include "bench_fixtures.hpp"

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace rightsize;
using namespace rightsize::test;
using Catch::Matchers::StartsWith;

namespace {

BenchClient client_of(const nlohmann::json& j) {
  return one_run(j).client;
}

// What a reader says first about an object that has only the keys of its client's rule: the
// first field it needs that the rule does not look for.
std::string first_complaint(const nlohmann::json& j) {
  try {
    (void)parse_bench_results(j.dump(), "x.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "read without a complaint";
}

const std::string k_unknown = "x.json: not a benchmark result rightsize reads";

// The first SGLang line with --output-details, its 32 requests those of the vLLM detailed
// sample (same arrays, same names), its totals theirs.
nlohmann::json sglang_with_details() {
  const std::string text = calibrate_text("sglang-bench-serving.jsonl");
  std::string line = text.substr(0, text.find('\n'));
  const std::string bare = ": Infinity,";
  line.replace(line.find(bare), bare.size(), ": \"Infinity\",");
  nlohmann::json j = nlohmann::json::parse(line);
  const nlohmann::json detailed = calibrate_json("vllm-serve-detailed.json");
  for (const char* key : {"completed",
                          "total_input_tokens",
                          "total_output_tokens",
                          "duration",
                          "input_lens",
                          "output_lens",
                          "ttfts",
                          "itls",
                          "generated_texts",
                          "errors"}) {
    j[key] = detailed[key];
  }
  return j;
}

} // namespace

TEST_CASE("bench_result detection: each rule alone picks its client", "[calibrate]") {
  // 1. trtllm-bench: engine and world_info, both objects.
  CHECK(first_complaint(
            {{"engine", nlohmann::json::object()}, {"world_info", nlohmann::json::object()}}) ==
        "x.json:/request_info: required field is missing");
  CHECK_THAT(first_complaint({{"engine", "x"}, {"world_info", nlohmann::json::object()}}),
             StartsWith(k_unknown));
  // 2. vllm bench throughput: its three figures.
  CHECK(first_complaint(
            {{"elapsed_time", 1.0}, {"requests_per_second", 1.0}, {"tokens_per_second", 1.0}}) ==
        "x.json:/num_requests: required field is missing");
  CHECK_THAT(first_complaint({{"elapsed_time", 1.0}, {"requests_per_second", 1.0}}),
             StartsWith(k_unknown));
  // 3. AIPerf: schema_version or aiperf_version alone; before them, input_config with one of
  // was_cancelled, error_summary, benchmark_duration.
  CHECK(first_complaint({{"schema_version", "1.0"}}) ==
        "x.json:/input_config: required field is missing");
  CHECK(first_complaint({{"aiperf_version", "0.8.0"}}) ==
        "x.json:/input_config: required field is missing");
  for (const char* key : {"was_cancelled", "error_summary", "benchmark_duration"}) {
    INFO(key);
    nlohmann::json j = calibrate_json("aiperf-legacy-profile_export_aiperf.json");
    for (const char* other : {"was_cancelled", "error_summary", "benchmark_duration"}) {
      if (std::string(other) != key) {
        j.erase(other);
      }
    }
    CHECK(client_of(j) == BenchClient::aiperf);
  }
  CHECK_THAT(first_complaint({{"input_config", 3}, {"was_cancelled", false}}),
             StartsWith(k_unknown));
  // 4. genai-perf: input_config and a request_throughput metric with unit and avg.
  nlohmann::json genai = calibrate_json("genai-perf-profile_export_genai_perf.json");
  CHECK(client_of(genai) == BenchClient::genai_perf);
  genai["request_throughput"].erase("unit");
  CHECK_THAT(first_complaint(genai), StartsWith(k_unknown));
  // 5. SGLang: dataset_name and total_output_tokens_retokenized.
  CHECK(first_complaint({{"dataset_name", "random"}, {"total_output_tokens_retokenized", 1}}) ==
        "x.json:/completed: required field is missing");
  // 6. vllm bench serve: model_id and num_prompts.
  CHECK(first_complaint({{"model_id", "m"}, {"num_prompts", 1}}) ==
        "x.json:/completed: required field is missing");
  CHECK_THAT(first_complaint({{"model_id", "m"}}), StartsWith(k_unknown));
}

TEST_CASE("bench_result detection: where two rules match, the earlier wins", "[calibrate]") {
  // AIPerf's file without its own keys is shaped as genai-perf's, and read as one.
  nlohmann::json aiperf = calibrate_json("aiperf-legacy-profile_export_aiperf.json");
  for (const char* key : {"was_cancelled", "error_summary", "benchmark_duration"}) {
    aiperf.erase(key);
  }
  const BenchRun g = one_run(aiperf);
  CHECK(g.client == BenchClient::genai_perf);
  CHECK(g.completed == 320);
  // vLLM's summary with SGLang's two keys is SGLang's; with only dataset_name still vLLM's.
  nlohmann::json vllm = calibrate_json("vllm-serve-default.json");
  vllm["dataset_name"] = "random";
  CHECK(client_of(vllm) == BenchClient::vllm_serve);
  vllm["total_output_tokens_retokenized"] = 81917;
  CHECK(client_of(vllm) == BenchClient::sglang_bench_serving);
  // A trtllm-bench report that also has vllm bench throughput's keys.
  nlohmann::json trtllm = calibrate_json("trtllm-bench-report.json");
  for (const char* key : {"elapsed_time", "requests_per_second", "tokens_per_second"}) {
    trtllm[key] = 1.0;
  }
  CHECK(client_of(trtllm) == BenchClient::trtllm_bench);
  // Every run of a JSON Lines file is recognised on its own.
  const std::string two = calibrate_text("vllm-throughput.json") + "\n" +
                          calibrate_json("trtllm-bench-report.json").dump() + "\n";
  const auto runs = parse_bench_results(two, "mixed.jsonl");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].client == BenchClient::vllm_throughput);
  CHECK(runs[0].source == "mixed.jsonl:1");
  CHECK(runs[1].client == BenchClient::trtllm_bench);
  CHECK(runs[1].source == "mixed.jsonl:8"); // the throughput file is indented over 7 lines
}

TEST_CASE("bench_result: SGLang --output-details", "[calibrate]") {
  nlohmann::json j = sglang_with_details();
  const BenchRun r = one_run(j, "s.jsonl");
  CHECK(r.format == "sglang bench_serving --output-details");
  CHECK(r.completed == 32);
  CHECK(r.failed == 0);                 // every errors entry is ""
  CHECK(r.mean_input_tokens == 1024.0); // 32768 / 32
  REQUIRE(r.requests.size() == 32);
  CHECK(r.requests[0].ttft->si() == 0.0406461);
  // No latencies array: a request's latency is its TTFT plus its chunk gaps.
  CHECK(r.requests[0].latency->si() == Approx(2.0566219000000006).epsilon(1e-12));
  // The summary is kept (here the 320 requests' p90), what it lacks comes from the arrays.
  CHECK(ms(r.ttft.p90) == Approx(59.36885));
  for (const char* metric : {"ttft", "e2e_latency"}) {
    j.erase(std::string("p90_") + metric + "_ms");
  }
  const BenchRun c = one_run(j, "s.jsonl");
  const nlohmann::json detailed = calibrate_json("vllm-serve-detailed.json");
  CHECK(ms(c.ttft.p90) == Approx(detailed["p90_ttft_ms"].get<double>()).epsilon(1e-9));
  CHECK(ms(c.e2e.p90) == Approx(detailed["p90_e2el_ms"].get<double>()).epsilon(1e-9));

  SECTION("one request failed: its errors entry says so") {
    j["errors"][5] = "Bad Request: prompt too long";
    j["completed"] = 31;
    const BenchRun f = one_run(j, "s.jsonl");
    CHECK(f.failed == 1);
    CHECK(f.requests.size() == 31);
    CHECK(f.requests[5].ttft->si() == detailed["ttfts"][6].get<double>());
  }
  SECTION("the errors do not match completed: the arrays are not used") {
    j["completed"] = 31;
    const BenchRun f = one_run(j, "s.jsonl");
    CHECK(f.failed == 0);
    CHECK(f.requests.empty());
    CHECK_FALSE(f.ttft.p90);
  }
}

TEST_CASE("bench_result: vLLM runs without one offered rate or without TTFTs", "[calibrate]") {
  SECTION("--ramp-up-strategy: request_rate says inf, but the rate climbed") {
    nlohmann::json j = calibrate_json("vllm-serve-default.json");
    j["ramp_up_strategy"] = "linear";
    j["ramp_up_start_rps"] = 1;
    j["ramp_up_end_rps"] = 20;
    const BenchRun r = one_run(j);
    CHECK_FALSE(r.request_rate);
    CHECK(r.max_concurrency == 16);
  }
  SECTION("a non-streaming endpoint: TTFTs of 0.0 are no TTFTs") {
    nlohmann::json j = calibrate_json("vllm-serve-detailed.json");
    for (auto& t : j["ttfts"]) {
      t = 0.0;
    }
    for (const char* metric : {"ttft", "tpot"}) {
      for (const char* stat : {"mean", "median", "std", "p50", "p90", "p99"}) {
        j[std::string(stat) + "_" + metric + "_ms"] = 0.0; // np.mean([] or 0)
      }
    }
    const BenchRun r = one_run(j);
    CHECK(r.ttft.empty());
    CHECK(r.tpot.empty()); // TPOT needs the TTFT
    REQUIRE(r.requests.size() == 32);
    CHECK_FALSE(r.requests[0].ttft);
    CHECK(r.requests[0].latency->si() == 2.0566219000000006);
    CHECK(ms(r.e2e.mean) == Approx(j["mean_e2el_ms"].get<double>()));
  }
}
