// A benchmark run beside rightsize's estimate of it (calibrate/comparison.hpp): the run's
// lengths and load put into the spec, each measured mean against the prediction and its band.
// The fixtures' numbers are illustrative (tests/data/calibrate/SOURCES.md): these tests check
// what is compared with what, not rightsize's accuracy (docs/accuracy.md does that).

#include "bench_fixtures.hpp"
#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/calibrate/comparison.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::test::calibrate_fixture;
using rightsize::test::one_run;

namespace {

// Llama-3.1-8B served by vLLM in bf16: the model of every fixture's simulated run.
Spec llama_8b(nlohmann::json inference = nlohmann::json::object()) {
  nlohmann::json w = {{"type", "inference"},
                      {"engine", "vllm"},
                      {"input_tokens", 2000},
                      {"output_tokens", 500},
                      {"concurrency", 4}};
  w.update(inference);
  return parse_spec({{"model", rightsize::test::config_path("llama-3.1-8b")},
                     {"precision", "bf16"},
                     {"workload", w}},
                    "llama.json");
}

const Gpu& h100() {
  return rightsize::test::catalog().resolve("H100-SXM", "--gpu");
}

RunComparison compare(const Spec& spec, const BenchRun& run, Parallelism p = {}) {
  return compare_run(spec,
                     h100(),
                     p,
                     run,
                     rightsize::test::constants(),
                     rightsize::test::efficiency(),
                     rightsize::test::uncertainty());
}

const MetricComparison& metric(const RunComparison& c, RunMetric m) {
  for (const auto& x : c.metrics) {
    if (x.metric == m) {
      return x;
    }
  }
  FAIL("no " << k_run_metric_names.name(m));
  return c.metrics.front();
}

} // namespace

TEST_CASE("comparison: a vllm bench serve run is predicted at its own lengths and concurrency",
          "[calibrate]") {
  const auto runs = read_bench_results(calibrate_fixture("vllm-serve-default.json"));
  REQUIRE(runs.size() == 1);
  const Spec spec = llama_8b(); // 2000 in + 500 out at 4: not the run's, which must win
  const RunComparison c = compare(spec, runs[0]);
  // 327680 / 320 = 1024 in, 81920 / 320 = 256 out; --max-concurrency 16.
  CHECK(c.load.input_tokens == 1024);
  CHECK(c.load.output_tokens == 256);
  CHECK(c.load.concurrency == 16);
  CHECK(c.load.source == LoadSource::max_concurrency);
  REQUIRE(c.metrics.size() == 3);
  CHECK(metric(c, RunMetric::ttft).measured == Approx(0.04097635781250001));
  CHECK(metric(c, RunMetric::tpot).measured == Approx(0.008193444984068623));
  CHECK(metric(c, RunMetric::output_tokens_per_s).measured == Approx(1904.3137077490517));

  // The prediction is estimate's at 1024 + 256 and batch 16 on one H100, with its bands.
  Spec at_run = llama_8b({{"input_tokens", 1024}, {"output_tokens", 256}, {"concurrency", 16}});
  const EstimateEvaluation e = estimate_configuration(at_run,
                                                      h100(),
                                                      Parallelism{},
                                                      16,
                                                      rightsize::test::constants(),
                                                      rightsize::test::efficiency(),
                                                      rightsize::test::uncertainty());
  REQUIRE(e.inference);
  CHECK(metric(c, RunMetric::ttft).predicted == Approx(e.inference->ttft.si()));
  CHECK(metric(c, RunMetric::tpot).predicted == Approx(e.inference->tpot.si()));
  CHECK(metric(c, RunMetric::output_tokens_per_s).predicted ==
        Approx(e.inference->output_tokens_per_s));
  CHECK(metric(c, RunMetric::tpot).band.high == Approx(e.inference_bands->tpot.high));
  CHECK_FALSE(c.queueing); // 16 sequences of 1280 tokens fit an H100 many times over
}

TEST_CASE("comparison: the error and ratio of a metric, and their summary", "[calibrate]") {
  // Hand-made: a TTFT predicted 20% long, one 10% short, a TPOT predicted exact.
  RunComparison a;
  a.metrics = {{RunMetric::ttft, 0.100, 0.120, {0.05, 0.15}},
               {RunMetric::tpot, 0.010, 0.010, {0.008, 0.012}}};
  RunComparison b;
  b.metrics = {{RunMetric::ttft, 0.200, 0.180, {0.19, 0.25}}};
  CHECK(a.metrics[0].error() == Approx(0.2));
  CHECK(a.metrics[0].ratio() == Approx(0.1 / 0.12));
  CHECK(a.metrics[0].in_band());
  CHECK(b.metrics[0].error() == Approx(-0.1));
  CHECK(b.metrics[0].in_band());
  RunComparison c;
  c.metrics = {{RunMetric::ttft, 0.300, 0.450, {0.35, 0.60}}}; // +50%, measured below the band
  CHECK_FALSE(c.metrics[0].in_band());
  const auto s = summarize({a, b, c});
  REQUIRE(s.size() == 2);
  CHECK(s[0].metric == RunMetric::ttft);
  CHECK(s[0].lines == 3);
  CHECK(s[0].median_abs_error == Approx(0.2)); // of 0.2, 0.1, 0.5
  CHECK(s[0].in_band == Approx(2.0 / 3.0));
  CHECK(s[1].metric == RunMetric::tpot);
  CHECK(s[1].lines == 1);
  CHECK(s[1].median_abs_error == Approx(0.0));
  CHECK(s[1].in_band == Approx(1.0));
}

TEST_CASE("comparison: an offline run is every request at once, compared on throughput only",
          "[calibrate]") {
  const auto runs = read_bench_results(calibrate_fixture("trtllm-bench-report.json"));
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0].mode == BenchMode::offline);
  const RunComparison c = compare(llama_8b({{"engine", "tensorrt-llm"}}), runs[0]);
  CHECK(c.load.source == LoadSource::all_at_once);
  CHECK(c.load.concurrency == 320); // request_info.num_requests
  CHECK(c.load.input_tokens == 1024);
  CHECK(c.load.output_tokens == 256);
  REQUIRE(c.metrics.size() == 1);
  CHECK(c.metrics[0].metric == RunMetric::output_tokens_per_s);
  // 320 at once is more than rightsize's TensorRT-LLM cap of 256: the rest queue.
  CHECK(c.queueing);
}

TEST_CASE("comparison: runs that cannot be compared are refused naming the run and the field",
          "[calibrate]") {
  const Spec spec = llama_8b();
  SECTION("vllm bench throughput records only the sum of the lengths") {
    const auto runs = read_bench_results(calibrate_fixture("vllm-throughput.json"));
    REQUIRE(runs.size() == 1);
    // The spec's 2000 + 500 tokens are not the run's 1280 a request: its lengths are unknown.
    CHECK_THROWS_WITH(compare(spec, runs[0]),
                      Catch::Contains("vllm-throughput.json:/total_num_tokens") &&
                          Catch::Contains("only the sum") && Catch::Contains("2000 + 500") &&
                          Catch::Contains("--input-len"));
  }
  SECTION("a run longer than the spec admits is another model's") {
    const auto runs = read_bench_results(calibrate_fixture("vllm-serve-default.json"));
    const Spec short_context =
        llama_8b({{"input_tokens", 500}, {"output_tokens", 100}, {"max_model_len", 1024}});
    CHECK_THROWS_WITH(compare(short_context, runs[0]),
                      Catch::Contains("mean_input_tokens") && Catch::Contains("1024 + 256") &&
                          Catch::Contains("max_model_len") &&
                          Catch::Contains("Llama-3.1-8B-Instruct"));
  }
  SECTION("a run paced by rate without a concurrency") {
    auto j = rightsize::test::calibrate_json("vllm-serve-default.json");
    j["max_concurrency"] = nullptr;
    j["request_rate"] = 5.0;
    j.erase("max_concurrent_requests"); // the peak in flight, where a version records it
    const BenchRun run = one_run(j, "paced.json");
    REQUIRE_FALSE(run.achieved_concurrency);
    CHECK_THROWS_WITH(compare(spec, run),
                      Catch::Contains("paced.json:/max_concurrency") &&
                          Catch::Contains("--max-concurrency"));
  }
  SECTION("a run paced by rate compares at the mean it measured, rounded up") {
    BenchRun run = read_bench_results(calibrate_fixture("vllm-serve-default.json"))[0];
    run.max_concurrency.reset();
    run.achieved_concurrency = AchievedConcurrency{7.2, ConcurrencyMeasure::mean};
    const RunComparison c = compare(spec, run);
    CHECK(c.load.source == LoadSource::achieved_concurrency);
    CHECK(c.load.concurrency == 8);
    // A peak is not the load the run held: refused as above.
    run.achieved_concurrency = AchievedConcurrency{16, ConcurrencyMeasure::peak};
    CHECK_THROWS_WITH(compare(spec, run), Catch::Contains("max_concurrency"));
  }
  SECTION("a layout of several replicas") {
    const auto runs = read_bench_results(calibrate_fixture("vllm-serve-default.json"));
    Parallelism two;
    two.dp = 2;
    CHECK_THROWS_WITH(compare(spec, runs[0], two), Catch::Contains("--dp"));
  }
}

TEST_CASE("comparison: vllm bench throughput takes the spec's lengths when they add up to the "
          "run's tokens",
          "[calibrate]") {
  // 1,280,000 tokens over 1000 requests: 1280 a request, the spec's 1024 + 256.
  const auto runs = read_bench_results(calibrate_fixture("vllm-throughput.json"));
  REQUIRE(runs.size() == 1);
  const RunComparison c =
      compare(llama_8b({{"input_tokens", 1024}, {"output_tokens", 256}}), runs[0]);
  CHECK(c.load.lengths_from_spec);
  CHECK(c.load.input_tokens == 1024);
  CHECK(c.load.output_tokens == 256);
  CHECK(c.load.source == LoadSource::all_at_once);
  CHECK(c.load.concurrency == 1000);
  // Offline: throughput only, 36.2137 requests/s x 256 output tokens = 9270.7 tokens/s.
  REQUIRE(c.metrics.size() == 1);
  CHECK(c.metrics[0].metric == RunMetric::output_tokens_per_s);
  CHECK(c.metrics[0].measured == Approx(36.21371263627756 * 256));
  // Within 1% of the sum is the same run (a mean, rounded); beyond it is not.
  CHECK_NOTHROW(compare(llama_8b({{"input_tokens", 1030}, {"output_tokens", 256}}), runs[0]));
  CHECK_THROWS(compare(llama_8b({{"input_tokens", 1100}, {"output_tokens", 256}}), runs[0]));
}
