// What an observe run reads (observe/inputs.hpp): durations, the checks made before reading, the
// files read once each in order, traces attached by WORKLOAD=FILE, and one evaluation's sources.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/inputs.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace rightsize {

namespace {

std::string example(const std::string& name) {
  return std::string(RIGHTSIZE_TESTS_DIR) + "/../examples/observe/" + name;
}

} // namespace

TEST_CASE("observe inputs: durations in s, m, h, d and w", "[observe][inputs]") {
  CHECK(parse_duration("30s", "--step") == 30);
  CHECK(parse_duration("45", "--step") == 45);
  CHECK(parse_duration("5m", "--step") == 300);
  CHECK(parse_duration("1.5h", "--step") == 5400);
  CHECK(parse_duration("7d", "--range") == 604800);
  CHECK(parse_duration("2w", "--range") == 1209600);
  const std::string what = "is not a duration (a positive number with s, m, h, d or w: 30s, 5m, "
                           "7d)";
  REQUIRE_THROWS_WITH(parse_duration("5x", "--interval"), "--interval: \"5x\" " + what);
  REQUIRE_THROWS_WITH(parse_duration("", "--range"), "--range: \"\" " + what);
  REQUIRE_THROWS_WITH(parse_duration("0s", "--range"), "--range: \"0s\" " + what);
  REQUIRE_THROWS_WITH(parse_duration("-1h", "--range"), "--range: \"-1h\" " + what);
  // More than about ten years (3.2e8 s) is refused: 520 weeks is 3.1e8 s, 530 weeks 3.2e8.
  CHECK(parse_duration("520w", "--range") == 520 * 604800.0);
  REQUIRE_THROWS_WITH(parse_duration("530w", "--range"), "--range: \"530w\" " + what);
}

TEST_CASE("observe inputs: refused before anything is read", "[observe][inputs]") {
  ObserveInputs in;
  REQUIRE_THROWS_WITH(check_observe_inputs(in),
                      "observe: nothing to observe: give --nvidia-smi FILE, --dcgm FILE, --trace "
                      "FILE or --prometheus URL (or PROMETHEUS_URL)");
  in.prometheus = "ftp://x";
  REQUIRE_THROWS_WITH(check_observe_inputs(in),
                      "--prometheus: must be an http:// or https:// URL, got \"ftp://x\"");
  in.prometheus = "http://x";
  CHECK_NOTHROW(check_observe_inputs(in)); // --range: 14 days
  in.aggregate = "both";
  REQUIRE_THROWS_WITH(check_observe_inputs(in),
                      "--aggregate: must be server or client, got \"both\"");
  in.aggregate = "server";
  in.bearer_token = "t";
  in.bearer_token_file = "f";
  REQUIRE_THROWS_WITH(check_observe_inputs(in),
                      "--bearer-token-file: give the token once: --bearer-token or this");
  in.bearer_token.clear();
  in.bearer_token_file.clear();
  in.range = "1h";
  CHECK_NOTHROW(check_observe_inputs(in));
  in.watch = "1m";
  in.output = "out.txt";
  REQUIRE_THROWS_WITH(check_observe_inputs(in),
                      "--watch: prints changes as they come: it cannot write --output");
  in.output.clear();
  in.format = "csv";
  REQUIRE_THROWS_WITH(check_observe_inputs(in),
                      "--watch: prints the changes as lines of text after the report: use "
                      "--format table, not csv");

  ObserveInputs files;
  files.nvidia_smi = {example("node-12.csv")};
  files.live_flags_given = {"--step", "--range"};
  REQUIRE_THROWS_WITH(check_observe_inputs(files), "--step: applies to --prometheus only");
  files.live_flags_given.clear();
  files.output = example("node-12.csv");
  REQUIRE_THROWS_WITH(check_observe_inputs(files),
                      "--output: " + example("node-12.csv") + " is an input of this run");
  files.output = example("../observe/node-12.csv"); // another path to the same file
  REQUIRE_THROWS_WITH(check_observe_inputs(files), Catch::EndsWith(" is an input of this run"));
  files.output = "report.txt";
  CHECK_NOTHROW(check_observe_inputs(files));
}

TEST_CASE("observe inputs: each file read once, in order", "[observe][inputs]") {
  ObserveInputs in;
  in.nvidia_smi = {example("node-12.csv"), example("../observe/node-12.csv")};
  in.dcgm = {example("cluster.prom")};
  in.traces = {example("train-step.json"), example("train-step.json"), example("ddp-step.sqlite")};
  const ObservedFiles files = read_observe_files(in);
  CHECK(files.sources == std::vector<std::string>{example("node-12.csv"),
                                                  example("cluster.prom"),
                                                  example("train-step.json"),
                                                  example("ddp-step.sqlite")});
  REQUIRE_FALSE(files.telemetry.warnings.empty());
  CHECK(files.telemetry.warnings.front() ==
        example("../observe/node-12.csv") + ": given twice; read once");
  REQUIRE(files.traces.size() == 2);
  // A repeated trace's warning goes to the head of the first trace's.
  REQUIRE_FALSE(files.traces[0].profile.warnings.empty());
  CHECK(files.traces[0].profile.warnings.front() ==
        example("train-step.json") + ": given twice; read once");
  CHECK(files.traces[0].workload.empty());
  CHECK(files.traces[1].profile.format == "nsys");
}

TEST_CASE("observe inputs: WORKLOAD=FILE attaches a trace", "[observe][inputs]") {
  ObserveInputs in;
  in.traces = {"research/train-bert-0=" + example("ddp-step.sqlite")};
  const ObservedFiles files = read_observe_files(in);
  REQUIRE(files.traces.size() == 1);
  CHECK(files.traces[0].workload == "research/train-bert-0");
  CHECK(files.sources == std::vector<std::string>{example("ddp-step.sqlite")});
}

TEST_CASE("observe inputs: a bad --interval is refused when the files are read",
          "[observe][inputs]") {
  ObserveInputs in;
  in.nvidia_smi = {example("node-12.csv")};
  in.interval = "soon";
  REQUIRE_THROWS_WITH(read_observe_files(in), Catch::StartsWith("--interval: \"soon\""));
}

TEST_CASE("observe inputs: the Prometheus query of the options", "[observe][inputs]") {
  ObserveInputs in;
  in.prometheus = "http://prometheus:9090";
  in.range = "7d";
  in.step = "1m";
  in.selector = "{namespace=\"serving\"}";
  in.timeout_s = 5;
  ObserveOptions options;
  options.work_percentile = 90;
  options.memory_percentile = 99;
  const PrometheusQuery q = prometheus_query(in, options);
  CHECK(q.url == "http://prometheus:9090");
  CHECK(q.range_s == 604800);
  CHECK(q.step_s == 60);
  CHECK(q.selector == "{namespace=\"serving\"}");
  CHECK(q.timeout_s == 5);
  CHECK(q.end_s == 0);
  CHECK(q.aggregate == Aggregate::server);
  CHECK(q.percentiles == std::vector<double>{90, 99});

  in.range.clear();
  in.end = "2025-12-01T00:00:00Z";
  in.aggregate = "client";
  const PrometheusQuery d = prometheus_query(in, options);
  CHECK(d.range_s == 14 * 86400); // krr's default window
  CHECK(d.end_s == 1764547200);
  CHECK(d.aggregate == Aggregate::client);
}

TEST_CASE("observe inputs: --end and the bearer token file", "[observe][inputs]") {
  CHECK(parse_end_time("1764547200") == 1764547200);
  CHECK(parse_end_time("1764547200.5") == 1764547200.5);
  CHECK(parse_end_time("2025-12-01T00:00:00Z") == 1764547200);
  REQUIRE_THROWS_WITH(parse_end_time("yesterday"),
                      "--end: \"yesterday\" is neither Unix seconds (1764547200) nor a UTC time "
                      "(2025-12-01T00:00:00Z)");
  REQUIRE_THROWS_WITH(parse_end_time("-5"), "--end: -5 is not a time in Unix seconds");
  REQUIRE_THROWS_WITH(parse_end_time("2025-12-01"), Catch::StartsWith("--end: \"2025-12-01\""));

  const std::string dir = "observe-token-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/token") << "s3cret\n";
  std::ofstream(dir + "/empty");
  ObserveInputs in;
  in.prometheus = "http://prometheus:9090";
  in.bearer_token_file = dir + "/token";
  CHECK(prometheus_query(in, ObserveOptions{}).bearer_token == "s3cret");
  in.bearer_token_file = dir + "/empty";
  REQUIRE_THROWS_WITH(prometheus_query(in, ObserveOptions{}),
                      dir + "/empty: --bearer-token-file: the file is empty");
  in.bearer_token_file = dir + "/missing";
  REQUIRE_THROWS_WITH(prometheus_query(in, ObserveOptions{}), Catch::StartsWith(dir + "/missing"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("observe inputs: one evaluation of the files", "[observe][inputs]") {
  ObserveInputs in;
  in.nvidia_smi = {example("node-12.csv")};
  const ObservedFiles files = read_observe_files(in);
  const GpuProducts products = load_gpu_products(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  const ObserveReport report =
      observe_once(files, std::nullopt, test::catalog(), products, ObserveOptions{});
  CHECK(report.sources == files.sources);
  // node-12.csv: five GPUs of one host, each its own workload.
  CHECK(report.summary.workloads == 5);
  CHECK(report.workloads.front().name == "node-12/gpu0");
}

} // namespace rightsize
