// The readers of benchmark clients' result files (docs/calibrate.md, "Result files"): each
// fixture of tests/data/calibrate read with numbers checked by hand against the file, each
// client's variants recognised, and the statistics computed from per-request arrays.

#include "bench_fixtures.hpp"

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/core/json_reader.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace rightsize;
using namespace rightsize::test;

namespace {

bool infinite(const std::optional<ItemsPerHour>& rate) {
  return rate && std::isinf(rate->si()) && rate->si() > 0;
}

// The SGLang sample's first line, whose requests are the vLLM default sample's: its end-to-end
// statistics in ms (mean, median, p90, p99).
constexpr double k_e2e_ms[] = {
    2130.3048287500005, 2128.94395, 2208.132180000001, 2293.4402459999997};

// One line of the SGLang sample, its bare Infinity read as the string "Infinity".
nlohmann::json sglang_line(std::size_t i) {
  const std::string text = calibrate_text("sglang-bench-serving.jsonl");
  std::size_t begin = 0;
  for (std::size_t k = 0; k < i; ++k) {
    begin = text.find('\n', begin) + 1;
  }
  std::string line = text.substr(begin, text.find('\n', begin) - begin);
  const std::string bare = ": Infinity,";
  line.replace(line.find(bare), bare.size(), ": \"Infinity\",");
  return nlohmann::json::parse(line);
}

// JSON text as Python writes it: the string "Infinity" as the bare token.
std::string with_bare_infinity(const nlohmann::json& j) {
  std::string text = j.dump();
  for (auto at = text.find("\"Infinity\""); at != std::string::npos;
       at = text.find("\"Infinity\"")) {
    text.replace(at, 10, "Infinity");
  }
  return text;
}

void check_e2e_of_the_320_requests(const LatencyStats& e2e) {
  CHECK(ms(e2e.mean) == Approx(k_e2e_ms[0]).epsilon(1e-12));
  CHECK(ms(e2e.median) == Approx(k_e2e_ms[1]).epsilon(1e-12));
  CHECK(ms(e2e.p90) == Approx(k_e2e_ms[2]).epsilon(1e-12));
  CHECK(ms(e2e.p99) == Approx(k_e2e_ms[3]).epsilon(1e-12));
}

} // namespace

TEST_CASE("bench_result: the client names table", "[calibrate]") {
  CHECK(k_bench_client_names.name(BenchClient::sglang_bench_serving) == "sglang-bench-serving");
  CHECK(k_bench_client_names.find("SGLang") == BenchClient::sglang_bench_serving);
  CHECK(k_bench_client_names.find("trtllm") == BenchClient::trtllm_bench);
  CHECK(k_bench_client_names.primary_names() == std::vector<std::string>{"vllm-serve",
                                                                         "sglang-bench-serving",
                                                                         "genai-perf",
                                                                         "aiperf",
                                                                         "trtllm-bench",
                                                                         "vllm-throughput"});
  CHECK(k_bench_mode_names.name(BenchMode::offline) == "offline");
  CHECK(k_concurrency_measure_names.name(ConcurrencyMeasure::peak) == "peak");
}

TEST_CASE("bench_result: vllm bench serve, the default --save-result", "[calibrate]") {
  const std::string path = calibrate_fixture("vllm-serve-default.json");
  const auto runs = read_bench_results(path);
  REQUIRE(runs.size() == 1);
  const BenchRun& r = runs[0];
  CHECK(r.client == BenchClient::vllm_serve);
  CHECK(r.format == "vllm bench serve");
  CHECK(r.source == path);
  CHECK(r.digest == detail::fnv1a_hex(calibrate_text("vllm-serve-default.json")));
  CHECK(r.model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK_FALSE(r.client_version);
  CHECK(r.mode == BenchMode::online);
  CHECK(r.completed == 320);
  CHECK(r.failed == 0);
  // total_input_tokens 327680 / 320, total_output_tokens 81920 / 320.
  CHECK(r.mean_input_tokens == 1024.0);
  CHECK(r.mean_output_tokens == 256.0);
  CHECK(r.mean_tokens == 1280.0);
  CHECK(r.max_concurrency == 16);
  CHECK(infinite(r.request_rate)); // "request_rate": "inf"
  REQUIRE(r.achieved_concurrency);
  CHECK(r.achieved_concurrency->value == 16.0); // max_concurrent_requests
  CHECK(r.achieved_concurrency->measure == ConcurrencyMeasure::peak);
  CHECK(r.duration.si() == 43.01812231180732);
  CHECK(per_s(r.request_throughput) == Approx(7.438725420894733).epsilon(1e-14));
  CHECK(per_s(r.output_token_throughput) == Approx(1904.3137077490517).epsilon(1e-14));
  CHECK(per_s(r.total_token_throughput) == Approx(9521.568538745258).epsilon(1e-14));
  // mean/median/p99_ttft_ms; the default --metric-percentiles is 99 alone: no p90.
  CHECK(ms(r.ttft.mean) == Approx(40.97635781250001));
  CHECK(r.ttft.mean->si() == Approx(0.04097635781250001).epsilon(1e-14));
  CHECK(ms(r.ttft.median) == Approx(34.2331));
  CHECK_FALSE(r.ttft.p90);
  CHECK(ms(r.ttft.p99) == Approx(167.20327300000005));
  CHECK(ms(r.tpot.mean) == Approx(8.193444984068623));
  CHECK(ms(r.tpot.p99) == Approx(8.72151954509804));
  CHECK(ms(r.itl.median) == Approx(7.4173));
  CHECK(ms(r.itl.p99) == Approx(23.136809999999993));
  // No e2el in the default --percentile-metrics, but the newest vLLM keeps `latencies` in the
  // default file, and the run had no failure: the end-to-end statistics come from it.
  check_e2e_of_the_320_requests(r.e2e);
  REQUIRE(r.requests.size() == 320);
  CHECK(r.requests[0].latency->si() == 2.1507196);
  CHECK_FALSE(r.requests[0].ttft);
  CHECK_FALSE(r.requests[0].output_tokens);
}

TEST_CASE("bench_result: vllm bench serve --save-detailed", "[calibrate]") {
  const nlohmann::json file = calibrate_json("vllm-serve-detailed.json");
  const BenchRun r = one_run(file);
  CHECK(r.format == "vllm bench serve --save-detailed");
  CHECK(r.completed == 32);
  CHECK(r.failed == 0);
  CHECK(r.mean_output_tokens == 256.0); // 8192 / 32
  // --metric-percentiles 50,90,99 --percentile-metrics ttft,tpot,itl,e2el: all in the summary.
  CHECK(ms(r.ttft.median) == Approx(46.608200000000004));
  CHECK(ms(r.ttft.p90) == Approx(166.11747999999997));
  CHECK(ms(r.e2e.mean) == Approx(2168.4630500000003));
  CHECK(ms(r.e2e.p90) == Approx(2280.9249399999994));
  REQUIRE(r.requests.size() == 32);
  CHECK(r.requests[0].input_tokens == 1024.0);
  CHECK(r.requests[0].output_tokens == 256.0);
  CHECK(r.requests[0].ttft->si() == 0.0406461);

  SECTION("without the summary, the arrays give the same statistics") {
    nlohmann::json bare = file;
    for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
      for (const char* stat : {"mean", "median", "std", "p50", "p90", "p99"}) {
        bare.erase(std::string(stat) + "_" + metric + "_ms");
      }
    }
    const BenchRun c = one_run(bare);
    for (const auto& [computed, summary] : {std::pair{c.ttft, r.ttft},
                                            std::pair{c.tpot, r.tpot},
                                            std::pair{c.itl, r.itl},
                                            std::pair{c.e2e, r.e2e}}) {
      CHECK(ms(computed.mean) == Approx(ms(summary.mean)).epsilon(1e-9));
      CHECK(ms(computed.median) == Approx(ms(summary.median)).epsilon(1e-9));
      CHECK(ms(computed.p90) == Approx(ms(summary.p90)).epsilon(1e-9));
      CHECK(ms(computed.p99) == Approx(ms(summary.p99)).epsilon(1e-9));
    }
  }
}

TEST_CASE("bench_result: benchmark_serving.py of about v0.8, statistics by hand", "[calibrate]") {
  const std::string path = calibrate_fixture("vllm-benchmark-serving-v08.json");
  const BenchRun r = read_bench_results(path).at(0);
  CHECK(r.client == BenchClient::vllm_serve);
  CHECK(r.format == "benchmark_serving.py (about v0.8) with per-request arrays");
  CHECK(r.completed == 3);
  CHECK(r.failed == 1);                            // no `failed` key: errors[2] is the one failure
  CHECK(r.mean_input_tokens == Approx(700.0 / 3)); // 100 + 200 + 400: the failed prompt not
  CHECK(r.mean_output_tokens == 3.0);              // (5 + 3 + 0 + 1) / 3
  CHECK(r.max_concurrency == 2);
  CHECK_FALSE(r.achieved_concurrency);

  // The summary's statistics are kept: TTFTs 0.1, 0.2, 0.3 s.
  CHECK(ms(r.ttft.mean) == Approx(200.0));
  CHECK(ms(r.ttft.p99) == Approx(298.0));
  // What the summary lacks comes from the arrays, as vLLM computes it. Linear percentiles of n
  // sorted values: rank p/100 * (n - 1), interpolated.
  // TTFT p90: rank 1.8 of {0.1, 0.2, 0.3}: 0.2 + 0.8 * 0.1.
  CHECK(ms(r.ttft.p90) == Approx(280.0));
  // TPOT of the requests of more than one output token: (0.16 - 0.1) / 4 = 0.015 and
  // (0.28 - 0.2) / 2 = 0.04 (latency = TTFT + the chunk gaps); p90: rank 0.9.
  CHECK(ms(r.tpot.mean) == Approx(27.5));
  CHECK(ms(r.tpot.p90) == Approx(15.0 + 0.9 * 25.0));
  // ITL: the gaps pooled, {0.01, 0.01, 0.02, 0.02, 0.03, 0.05}; p90: rank 4.5.
  CHECK(ms(r.itl.median) == Approx(20.0));
  CHECK(ms(r.itl.p90) == Approx(40.0));
  // E2E, none in the summary: latencies {0.16, 0.28, 0.3}.
  CHECK(ms(r.e2e.mean) == Approx((160.0 + 280.0 + 300.0) / 3));
  CHECK(ms(r.e2e.median) == Approx(280.0));
  CHECK(ms(r.e2e.p90) == Approx(296.0)); // rank 1.8: 280 + 0.8 * 20
  CHECK(ms(r.e2e.p99) == Approx(299.6)); // rank 1.98

  REQUIRE(r.requests.size() == 3); // the completed ones
  CHECK(r.requests[2].input_tokens == 400.0);
  CHECK(r.requests[2].output_tokens == 1.0);
  CHECK(r.requests[1].latency->si() == Approx(0.28));
  CHECK(r.requests[2].latency->si() == Approx(0.3)); // one token, no gap: its TTFT

  SECTION("without the errors array, failed is num_prompts - completed, and the arrays unused") {
    nlohmann::json j = calibrate_json("vllm-benchmark-serving-v08.json");
    j.erase("errors");
    const BenchRun c = one_run(j);
    CHECK(c.failed == 1);
    CHECK(c.requests.empty()); // which of the four failed is unknown
    CHECK_FALSE(c.ttft.p90);
    CHECK(c.e2e.empty());
  }
  SECTION("the script of about v0.5 (best_of, no burstiness)") {
    nlohmann::json j = calibrate_json("vllm-benchmark-serving-v08.json");
    for (const char* key : {"burstiness", "max_concurrency", "request_goodput:"}) {
      j.erase(key);
    }
    j["best_of"] = 1;
    const BenchRun c = one_run(j);
    CHECK(c.format == "benchmark_serving.py (about v0.5) with per-request arrays");
    CHECK_FALSE(c.max_concurrency);
  }
}

TEST_CASE("bench_result: vllm bench serve --append-result holds one run per line", "[calibrate]") {
  const std::string path = calibrate_fixture("vllm-serve-append.json");
  const auto runs = read_bench_results(path);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].source == path + ":1");
  CHECK(runs[1].source == path + ":2");
  CHECK(runs[0].digest == runs[1].digest);
  CHECK(runs[0].format == "vllm bench serve");
  CHECK(runs[0].completed == 320);
  CHECK(runs[0].max_concurrency == 16);
  CHECK(runs[0].e2e.empty()); // the mid version keeps no latencies
  CHECK(runs[1].completed == 640);
  CHECK(runs[1].max_concurrency == 32);
  CHECK(runs[1].mean_output_tokens == 256.0); // 163840 / 640
  CHECK(runs[1].duration.si() == 49.50730591501845);
  CHECK(runs[1].achieved_concurrency->value == 64.0);
  CHECK(ms(runs[1].tpot.mean) == Approx(9.407281549019608));
}

TEST_CASE("bench_result: SGLang bench_serving, two lines with bare Infinity", "[calibrate]") {
  const std::string path = calibrate_fixture("sglang-bench-serving.jsonl");
  const auto runs = read_bench_results(path);
  REQUIRE(runs.size() == 2);
  const BenchRun& r = runs[0];
  CHECK(r.client == BenchClient::sglang_bench_serving);
  CHECK(r.format == "sglang bench_serving");
  CHECK(r.source == path + ":1");
  CHECK(runs[1].source == path + ":2");
  CHECK(r.model == "meta-llama/Llama-3.1-8B-Instruct"); // server_info.model_path
  CHECK(r.server_version == "0.5.4");
  CHECK(r.mode == BenchMode::online);
  CHECK(r.completed == 320);
  CHECK_FALSE(r.failed); // SGLang records no failure count
  CHECK(r.mean_input_tokens == 1024.0);
  CHECK(r.mean_output_tokens == 256.0); // total_output_tokens, not the re-tokenized 81917
  CHECK(r.max_concurrency == 16);
  CHECK(infinite(r.request_rate)); // "request_rate": Infinity
  REQUIRE(r.achieved_concurrency);
  CHECK(r.achieved_concurrency->value == 15.84675268387743); // concurrency: the mean
  CHECK(r.achieved_concurrency->measure == ConcurrencyMeasure::mean);
  CHECK(per_s(r.total_token_throughput) == Approx(9521.568538745258));
  CHECK(ms(r.ttft.p90) == Approx(59.36885));
  CHECK(ms(r.itl.p99) == Approx(23.136809999999993));
  check_e2e_of_the_320_requests(r.e2e);
  CHECK(runs[1].completed == 640);
  CHECK(runs[1].max_concurrency == 32);
  CHECK(ms(runs[1].tpot.median) == Approx(9.390298627450976));

  SECTION("the mid-2024 version: medians only, no request_throughput") {
    const nlohmann::json line = sglang_line(0);
    nlohmann::json old;
    for (const char* key : {"backend",
                            "dataset_name",
                            "request_rate",
                            "total_input_tokens",
                            "total_output_tokens",
                            "total_output_tokens_retokenized",
                            "mean_e2e_latency_ms",
                            "median_e2e_latency_ms",
                            "median_ttft_ms",
                            "median_itl_ms",
                            "output_throughput",
                            "sharegpt_output_len",
                            "random_input_len",
                            "random_output_len",
                            "random_range_ratio",
                            "duration",
                            "completed"}) {
      old[key] = line[key];
    }
    const BenchRun c = parse_bench_results(with_bare_infinity(old), "old.jsonl").at(0);
    CHECK(c.format == "sglang bench_serving (about mid 2024: medians only)");
    CHECK(per_s(c.request_throughput) == Approx(320 / 43.01812231180732)); // completed / duration
    CHECK_FALSE(c.max_concurrency);
    CHECK_FALSE(c.achieved_concurrency);
    CHECK_FALSE(c.model);
    CHECK(ms(c.ttft.median) == Approx(34.2331));
    CHECK_FALSE(c.ttft.mean);
    CHECK(c.tpot.empty());
    CHECK(ms(c.e2e.mean) == Approx(k_e2e_ms[0]));
  }
  SECTION("the early-2025 version: no p90, no server_info") {
    nlohmann::json mid = sglang_line(0);
    for (const char* key : {"tag",
                            "server_info",
                            "total_input_text_tokens",
                            "total_input_vision_tokens",
                            "total_throughput",
                            "max_output_tokens_per_s",
                            "max_concurrent_requests"}) {
      mid.erase(key);
    }
    for (const char* metric : {"e2e_latency", "ttft", "tpot", "itl"}) {
      mid.erase(std::string("p90_") + metric + "_ms");
    }
    const BenchRun c = parse_bench_results(with_bare_infinity(mid), "mid.jsonl").at(0);
    CHECK(c.format == "sglang bench_serving (about early 2025: no p90, no server_info)");
    CHECK_FALSE(c.ttft.p90);
    CHECK(ms(c.ttft.p99) == Approx(167.20327300000005));
    CHECK_FALSE(c.total_token_throughput);
  }
  SECTION("a replayed trace has no request rate") {
    nlohmann::json trace = sglang_line(0);
    trace["request_rate"] = "trace";
    CHECK_FALSE(one_run(trace).request_rate);
  }
}

TEST_CASE("bench_result: genai-perf", "[calibrate]") {
  const BenchRun r =
      read_bench_results(calibrate_fixture("genai-perf-profile_export_genai_perf.json")).at(0);
  CHECK(r.client == BenchClient::genai_perf);
  CHECK(r.format == "genai-perf");
  CHECK(r.model == "meta-llama/Llama-3.1-8B-Instruct"); // input_config.model_names[0]
  CHECK_FALSE(r.client_version);
  CHECK(r.mode == BenchMode::online);
  CHECK(r.completed == 320); // request_count.avg
  CHECK_FALSE(r.failed);     // genai-perf counts no failures
  CHECK(r.mean_input_tokens == 1024.0);
  CHECK(r.mean_output_tokens == 256.0);
  CHECK(r.max_concurrency == 16); // input_config.perf_analyzer.stimulus.concurrency
  CHECK_FALSE(r.request_rate);
  CHECK_FALSE(r.achieved_concurrency);
  // No duration in the file: 320 requests x 256 tokens / 1904.4256797921398 tokens/s.
  CHECK(r.duration.si() == Approx(320 * 256 / 1904.4256797921398).epsilon(1e-14));
  CHECK(r.duration.si() == Approx(43.0156).margin(1e-4));
  CHECK(per_s(r.request_throughput) == Approx(7.439162811688046));
  CHECK(per_s(r.output_token_throughput) == Approx(1904.4256797921398));
  CHECK_FALSE(r.total_token_throughput);
  CHECK(ms(r.ttft.mean) == Approx(40.97635781250004)); // time_to_first_token, ms
  CHECK(ms(r.ttft.median) == Approx(34.23310000000001));
  CHECK(ms(r.ttft.p90) == Approx(59.36885));
  CHECK(ms(r.ttft.p99) == Approx(167.20327300000002));
  // inter_token_latency is TPOT: (latency - TTFT) / (output tokens - 1) per request.
  CHECK(ms(r.tpot.mean) == Approx(8.193445403573874));
  CHECK(ms(r.tpot.p99) == Approx(8.72151954509804));
  CHECK(r.itl.empty());
  CHECK(ms(r.e2e.p90) == Approx(2208.132180000001)); // request_latency
  CHECK(r.requests.empty());

  SECTION("before config files (2025-03): a flat input_config") {
    nlohmann::json j = calibrate_json("genai-perf-profile_export_genai_perf.json");
    j["input_config"] = {{"model", {"meta-llama/Llama-3.1-8B-Instruct"}},
                         {"formatted_model_name", "meta-llama_Llama-3.1-8B-Instruct"},
                         {"service_kind", "openai"},
                         {"streaming", true},
                         {"concurrency", nullptr},
                         {"request_rate", 4.0},
                         {"output_tokens_mean", -1}};
    const BenchRun c = one_run(j);
    CHECK(c.format == "genai-perf (before 2025-03: flat input_config)");
    CHECK(c.model == "meta-llama/Llama-3.1-8B-Instruct");
    CHECK_FALSE(c.max_concurrency);
    CHECK(per_s(c.request_rate) == 4.0);
  }
}

TEST_CASE("bench_result: AIPerf, the schema 1.0 file of 0.8.0", "[calibrate]") {
  const BenchRun r =
      read_bench_results(calibrate_fixture("aiperf-profile_export_aiperf.json")).at(0);
  CHECK(r.client == BenchClient::aiperf);
  CHECK(r.format == "AIPerf (schema 1.0)");
  CHECK(r.client_version == "0.8.0");
  CHECK(r.model == "meta-llama/Llama-3.1-8B-Instruct"); // input_config.models.items[0].name
  CHECK(r.completed == 320);
  CHECK(r.failed == 0);           // error_summary: []
  CHECK(r.max_concurrency == 16); // the profiling phase
  CHECK_FALSE(r.request_rate);
  CHECK(r.duration.si() == 43.01812231180732); // benchmark_duration, sec
  CHECK(per_s(r.total_token_throughput) == Approx(9521.568538745258));
  CHECK(ms(r.tpot.median) == Approx(8.188587450980396)); // inter_token_latency
  CHECK(r.itl.empty()); // this 0.8.0 file has no inter_chunk_latency
  CHECK(ms(r.e2e.mean) == Approx(2130.3048287499996));

  SECTION("a rate phase after a warmup") {
    nlohmann::json j = calibrate_json("aiperf-profile_export_aiperf.json");
    j["input_config"]["phases"] = nlohmann::json::array(
        {{{"name", "warmup"}, {"type", "concurrency"}, {"requests", 16}, {"concurrency", 4}},
         {{"name", "profiling"}, {"type", "poisson"}, {"rate", 5.0}, {"concurrency", 64}}});
    const BenchRun c = one_run(j);
    CHECK(per_s(c.request_rate) == 5.0);
    CHECK(c.max_concurrency == 64);
  }
  SECTION("errors counted") {
    nlohmann::json j = calibrate_json("aiperf-profile_export_aiperf.json");
    j["error_request_count"] = {{"unit", "requests"}, {"avg", 3.0}};
    CHECK(one_run(j).failed == 3);
    j.erase("error_request_count");
    j["error_summary"] = {
        {{"error_details", {{"code", 500}, {"type", "x"}, {"message", "y"}}}, {"count", 2}}};
    CHECK(one_run(j).failed == 2);
  }
}

TEST_CASE("bench_result: AIPerf before schema_version", "[calibrate]") {
  const BenchRun r =
      read_bench_results(calibrate_fixture("aiperf-legacy-profile_export_aiperf.json")).at(0);
  CHECK(r.client == BenchClient::aiperf);
  CHECK(r.format == "AIPerf (before schema_version: UserConfig input_config)");
  CHECK_FALSE(r.client_version);
  CHECK(r.model == "meta-llama/Llama-3.1-8B-Instruct"); // input_config.endpoint.model_names[0]
  CHECK(r.max_concurrency == 16);                       // input_config.loadgen.concurrency
  CHECK(r.completed == 320);
  CHECK(r.failed == 0);
  CHECK(r.duration.si() == 43.01812231180732);
  // inter_chunk_latency is the chunk gap, vLLM's and SGLang's ITL; inter_token_latency TPOT.
  CHECK(ms(r.itl.mean) == Approx(8.193444984068615));
  CHECK(ms(r.itl.median) == Approx(7.4173));
  CHECK(ms(r.itl.p99) == Approx(23.136809999999993));
  CHECK(ms(r.tpot.median) == Approx(8.188587450980396));
}

TEST_CASE("bench_result: trtllm-bench --report_json", "[calibrate]") {
  const BenchRun r = read_bench_results(calibrate_fixture("trtllm-bench-report.json")).at(0);
  CHECK(r.client == BenchClient::trtllm_bench);
  CHECK(r.format == "trtllm-bench --streaming");
  CHECK(r.model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(r.client_version == "1.1.0"); // engine.version
  CHECK(r.mode == BenchMode::offline);
  CHECK(r.completed == 320);
  CHECK_FALSE(r.failed);
  CHECK_FALSE(r.max_concurrency); // --concurrency is not in the report
  REQUIRE(r.achieved_concurrency);
  CHECK(r.achieved_concurrency->value == 15.847684459649825);
  CHECK(r.achieved_concurrency->measure == ConcurrencyMeasure::mean);
  CHECK(r.mean_input_tokens == 1024.0);
  CHECK(r.mean_output_tokens == 256.0);
  CHECK(r.duration.si() == Approx(43.015593031)); // total_latency_ms
  CHECK(per_s(r.request_throughput) == Approx(7.439162811713091));
  CHECK(per_s(r.output_token_throughput) == Approx(1904.4256797985513));
  CHECK(per_s(r.total_token_throughput) == Approx(9522.128398992758));
  CHECK(ms(r.e2e.mean) == Approx(2130.30482875));
  CHECK(ms(r.e2e.median) == Approx(2129.0783));
  CHECK(ms(r.ttft.mean) == Approx(40.9763578125));
  CHECK(ms(r.ttft.p99) == Approx(169.2806)); // nearest rank
  CHECK(ms(r.tpot.p90) == Approx(8.46297843137255));
  CHECK(r.itl.empty());

  SECTION("throughput without --streaming: no TTFT or TPOT") {
    nlohmann::json j = calibrate_json("trtllm-bench-report.json");
    j.erase("streaming_metrics");
    const BenchRun c = one_run(j);
    CHECK(c.format == "trtllm-bench");
    CHECK(c.ttft.empty());
    CHECK(c.tpot.empty());
    CHECK(ms(c.e2e.p99) == Approx(2296.1641999999997));
  }
}

TEST_CASE("bench_result: vllm bench throughput, offline", "[calibrate]") {
  const BenchRun r = read_bench_results(calibrate_fixture("vllm-throughput.json")).at(0);
  CHECK(r.client == BenchClient::vllm_throughput);
  CHECK(r.format == "vllm bench throughput");
  CHECK(r.mode == BenchMode::offline);
  CHECK(r.completed == 1000);
  CHECK_FALSE(r.failed);
  // tokens_per_second counts prompt and output tokens: only their sum per request is known.
  CHECK_FALSE(r.mean_input_tokens);
  CHECK_FALSE(r.mean_output_tokens);
  CHECK(r.mean_tokens == 1280.0); // 1280000 / 1000
  CHECK(r.duration.si() == 27.61384920799965);
  CHECK(per_s(r.request_throughput) == Approx(36.21371263627756));
  CHECK_FALSE(r.output_token_throughput);
  CHECK(per_s(r.total_token_throughput) == Approx(46353.55217443527));
  CHECK_FALSE(r.model);
  CHECK(r.ttft.empty());
}

TEST_CASE("bench_result: a forced client skips detection but checks the fields", "[calibrate]") {
  // AIPerf's file read as genai-perf's, whose shape it mimics.
  const BenchRun r = read_bench_results(calibrate_fixture("aiperf-profile_export_aiperf.json"),
                                        BenchClient::genai_perf)
                         .at(0);
  CHECK(r.client == BenchClient::genai_perf);
  CHECK(r.completed == 320);
  // SGLang's lines read as vLLM's: vLLM's num_prompts is missing.
  const std::string path = calibrate_fixture("sglang-bench-serving.jsonl");
  REQUIRE_THROWS_WITH(read_bench_results(path, BenchClient::vllm_serve),
                      path + ":1:/num_prompts: required field is missing");
}

TEST_CASE("bench_result: each fixture's figures agree as its client computes them", "[calibrate]") {
  // request_throughput = completed / duration and output_throughput = completed x mean output
  // tokens / duration (SOURCES.md: the fixtures follow the clients' formulas), so a figure read
  // in the wrong unit or from the wrong key shows here.
  for (const char* name : {"vllm-serve-default.json",
                           "vllm-serve-detailed.json",
                           "vllm-serve-append.json",
                           "sglang-bench-serving.jsonl",
                           "genai-perf-profile_export_genai_perf.json",
                           "aiperf-profile_export_aiperf.json",
                           "aiperf-legacy-profile_export_aiperf.json",
                           "trtllm-bench-report.json"}) {
    for (const BenchRun& r : read_bench_results(calibrate_fixture(name))) {
      INFO(r.source);
      const double n = static_cast<double>(r.completed);
      CHECK(per_s(r.request_throughput) == Approx(n / r.duration.si()).epsilon(1e-4));
      CHECK(per_s(r.output_token_throughput) ==
            Approx(n * *r.mean_output_tokens / r.duration.si()).epsilon(1e-4));
      CHECK(r.mean_tokens == *r.mean_input_tokens + *r.mean_output_tokens);
      if (r.total_token_throughput) {
        CHECK(per_s(r.total_token_throughput) ==
              Approx(n * r.mean_tokens / r.duration.si()).epsilon(1e-4));
      }
      // Latencies in seconds: a TTFT of tens of ms, a request of about two seconds.
      if (r.e2e.mean) { // the mid vLLM of the append sample keeps no e2el and no latencies
        CHECK(r.e2e.mean->si() > 1.0);
        CHECK(r.e2e.mean->si() < 3.0);
      }
      if (r.ttft.mean) {
        CHECK(r.ttft.mean->si() > 0.01);
        CHECK(r.ttft.mean->si() < 0.1);
      }
    }
  }
  // vllm bench throughput: 1000 requests in 27.61 s, 1280 tokens each.
  const BenchRun t = read_bench_results(calibrate_fixture("vllm-throughput.json")).at(0);
  CHECK(per_s(t.request_throughput) == Approx(1000 / 27.61384920799965));
  CHECK(per_s(t.total_token_throughput) == Approx(1000 * 1280 / 27.61384920799965));
  // SGLang's second line by hand: 655360 and 163840 tokens over 640 requests, in 49.507 s.
  const BenchRun s = read_bench_results(calibrate_fixture("sglang-bench-serving.jsonl")).at(1);
  CHECK(s.mean_input_tokens == 1024.0);
  CHECK(s.mean_output_tokens == 256.0);
  CHECK(per_s(s.request_throughput) == Approx(640 / 49.50730591501845));
  CHECK(ms(s.e2e.p99) == Approx(2715.9951179999994));
  CHECK(s.achieved_concurrency->value == 31.59554871527531);
}
