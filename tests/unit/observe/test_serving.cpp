// Serving engines judged on their own metrics: the engine's /metrics parsed and summarized per pod,
// latency histograms as Prometheus' histogram_quantile reads them, the spec map, and the
// verdicts a serving workload gets from its queue, KV cache and latency (docs/observe.md,
// "Serving engines"). Numbers are worked out in the comments.

#include "fixtures.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/serving.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace rightsize {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

const EngineMetricCatalog& names() {
  static const EngineMetricCatalog c = [] {
    const std::string path = std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json";
    return parse_engine_metric_catalog(detail::load_json_file(path), path);
  }();
  return c;
}

const GpuProducts& products() {
  static const GpuProducts p = load_gpu_products(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  return p;
}

// `n` scrapes of a vLLM pod, 30 s apart, with namespace and pod labels: running, waiting and KV
// usage at scrape i from the functions; `requests` TTFT observations per scrape at `ttft` s.
std::string vllm_scrapes(std::size_t n,
                         const std::function<double(std::size_t)>& running,
                         const std::function<double(std::size_t)>& waiting,
                         const std::function<double(std::size_t)>& kv,
                         double ttft = 0.3,
                         int requests = 10,
                         const std::string& pod = "vllm-0",
                         double itl = 0) {
  std::string out;
  const std::string labels = fmt::format(R"(model_name="m",namespace="serve",pod="{}")", pod);
  double count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long long ms = 1700000000000LL + static_cast<long long>(i) * 30000;
    out += fmt::format("vllm:num_requests_running{{{}}} {} {}\n", labels, running(i), ms);
    out += fmt::format("vllm:num_requests_waiting{{{}}} {} {}\n", labels, waiting(i), ms);
    out += fmt::format("vllm:kv_cache_usage_perc{{{}}} {} {}\n", labels, kv(i), ms);
    out += fmt::format("vllm:num_preemptions_total{{{}}} 0 {}\n", labels, ms);
    count += i == 0 ? 0 : requests;
    for (const double le : {0.1, 0.5, 1.0, 5.0}) {
      out += fmt::format("vllm:time_to_first_token_seconds_bucket{{le=\"{}\",{}}} {} {}\n",
                         le,
                         labels,
                         ttft <= le ? count : 0,
                         ms);
    }
    out += fmt::format(
        "vllm:time_to_first_token_seconds_bucket{{le=\"+Inf\",{}}} {} {}\n", labels, count, ms);
    out +=
        fmt::format("vllm:time_to_first_token_seconds_sum{{{}}} {} {}\n", labels, count * ttft, ms);
    out += fmt::format("vllm:time_to_first_token_seconds_count{{{}}} {} {}\n", labels, count, ms);
    if (itl > 0) { // 100 output tokens a request, each `itl` after the last
      for (const double le : {0.01, 0.05, 0.1}) {
        out += fmt::format("vllm:inter_token_latency_seconds_bucket{{le=\"{}\",{}}} {} {}\n",
                           le,
                           labels,
                           itl <= le ? 100 * count : 0,
                           ms);
      }
      out += fmt::format("vllm:inter_token_latency_seconds_bucket{{le=\"+Inf\",{}}} {} {}\n",
                         labels,
                         100 * count,
                         ms);
      out += fmt::format(
          "vllm:inter_token_latency_seconds_sum{{{}}} {} {}\n", labels, 100 * count * itl, ms);
      out += fmt::format(
          "vllm:inter_token_latency_seconds_count{{{}}} {} {}\n", labels, 100 * count, ms);
    }
  }
  return out;
}

// One H100 GPU of pod serve/vllm-0 for the same window (30 s apart), 98% busy, 72 GiB held.
GpuSeries vllm_gpu(std::size_t n, const std::string& index = "0") {
  GpuSeries g;
  g.id.host = "node-1";
  g.id.index = index;
  g.id.uuid = "GPU-node-1-" + index;
  g.id.model_name = "NVIDIA H100 80GB HBM3";
  g.id.namespace_name = "serve";
  g.id.pod = "vllm-0";
  g.id.container = "vllm";
  g.id.source = "test.prom";
  for (std::size_t i = 0; i < n; ++i) {
    const double t = 1.7e9 + 30.0 * static_cast<double>(i);
    g[Metric::gpu_utilization].add(t, 0.98);
    g[Metric::memory_used].add(t, 72 * k_gib);
    g[Metric::memory_total].add(t, 80 * k_gib);
  }
  return g;
}

ObserveOptions serving_options() {
  ObserveOptions o;
  o.serving_engines = load_engine_workload_names(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  return o;
}

WorkloadObservation judge(const std::string& engine_text,
                          std::size_t gpu_samples = 21,
                          ObserveOptions o = serving_options()) {
  Telemetry t = parse_engine_metrics_text(engine_text, "vllm.prom", "", names(), 30);
  t.gpus.push_back(vllm_gpu(gpu_samples));
  const auto report = observe(t, {}, test::catalog(), products(), o);
  REQUIRE(report.workloads.size() == 1);
  return report.workloads.front();
}

bool has_reason(const WorkloadObservation& w, const std::string& code) {
  for (const auto& r : w.reasons) {
    if (r.code == code) {
      return true;
    }
  }
  return false;
}

const auto constant = [](double v) { return [v](std::size_t) { return v; }; };

TEST_CASE("a latency histogram's quantile interpolates as histogram_quantile") {
  LatencyHistogram h;
  // 10 at or below 0.1 s, 20 more up to 0.5 s, 10 more up to 1 s, none above.
  h.buckets = {{0.1, 10}, {0.5, 30}, {1.0, 40}, {HUGE_VAL, 40}};
  h.sum = 16;
  h.count = 40;
  // The median is rank 20: the second bucket, 10 of its 20 in: 0.1 + 0.4 x 10/20 = 0.3.
  CHECK(*h.quantile(0.5) == Approx(0.3));
  // p95 is rank 38: the third bucket, 8 of its 10: 0.5 + 0.5 x 8/10 = 0.9.
  CHECK(*h.quantile(0.95) == Approx(0.9));
  // The first bucket interpolates from 0: rank 4 -> 0.1 x 4/10.
  CHECK(*h.quantile(0.1) == Approx(0.04));
  CHECK(*h.mean() == Approx(0.4));

  SECTION("a bound near the largest double stays finite") {
    LatencyHistogram huge;
    huge.buckets = {{1e308, 10}, {HUGE_VAL, 10}};
    CHECK(std::isfinite(*huge.quantile(0.95)));
    CHECK(*huge.quantile(0.5) == Approx(0.5e308));
  }
  SECTION("a quantile in the +Inf bucket is the largest finite bound") {
    LatencyHistogram tail;
    tail.buckets = {{0.1, 1}, {1.0, 2}, {HUGE_VAL, 10}};
    CHECK(*tail.quantile(0.95) == Approx(1.0));
  }
  SECTION("no observations: no quantile, no mean") {
    LatencyHistogram empty;
    empty.buckets = {{0.1, 0}, {HUGE_VAL, 0}};
    CHECK_FALSE(empty.quantile(0.5).has_value());
    CHECK_FALSE(empty.mean().has_value());
  }
  SECTION("two pods' histograms add bucket by bucket") {
    LatencyHistogram other;
    other.buckets = {{0.1, 30}, {0.5, 30}, {1.0, 40}, {HUGE_VAL, 40}};
    other.sum = 8;
    other.count = 40;
    h.add(other);
    REQUIRE(h.buckets.size() == 4);
    CHECK(h.buckets[0].second == 40);
    CHECK(h.buckets[1].second == 60);
    CHECK(h.buckets.back().second == 80);
    CHECK(*h.mean() == Approx(0.3));
  }
}

TEST_CASE("an engine's /metrics scrapes are summarized per pod") {
  // Running 2, 4, 6, ... 20 over 10 scrapes; waiting 0 but 3 at the last; KV 10% to 55%.
  const std::string text = vllm_scrapes(
      10,
      [](std::size_t i) { return 2.0 * static_cast<double>(i + 1); },
      [](std::size_t i) { return i == 9 ? 3.0 : 0.0; },
      [](std::size_t i) { return 0.10 + 0.05 * static_cast<double>(i); });
  const Telemetry t = parse_engine_metrics_text(text, "vllm.prom", "", names(), 30);
  REQUIRE(t.engine_pods.size() == 1);
  const EngineSeries& e = t.engine_pods.front();
  CHECK(e.engine == "vllm");
  CHECK(e.namespace_name == "serve");
  CHECK(e.pod == "vllm-0");
  CHECK(e.scrapes == 10);
  CHECK(e.window_s == Approx(270));
  CHECK(e.running.max == 20);
  // p95 of 2..20 at rank 0.95 x 9 = 8.55: 18 + 0.55 x 2 = 19.1.
  CHECK(e.running.p95 == Approx(19.1));
  CHECK(e.waiting.max == 3);
  // Demand: running + waiting, 2..18 then 23: p95 at rank 8.55 = 18 + 0.55 x 5 = 20.75.
  CHECK(e.demand.p95 == Approx(20.75));
  REQUIRE(e.kv_cache_usage);
  CHECK(e.kv_cache_usage->max == Approx(0.55));
  REQUIRE(e.preemptions);
  CHECK(*e.preemptions == 0);
  // Nine scrapes after the first, 10 requests each at 0.3 s: 90 in the (0.1, 0.5] bucket.
  REQUIRE(e.ttft);
  CHECK(e.ttft->count == 90);
  CHECK(*e.ttft->mean() == Approx(0.3));
  CHECK(*e.ttft->quantile(0.5) == Approx(0.1 + 0.4 * 0.5));
}

TEST_CASE("an engine metrics file: names, resets, workloads and errors") {
  SECTION("a counter that resets counts from zero after the reset") {
    const std::string text = "vllm:num_requests_running 1\n"
                             "vllm:num_preemptions_total 5\n"
                             "vllm:num_requests_running 1\n"
                             "vllm:num_preemptions_total 8\n"
                             "vllm:num_requests_running 1\n"
                             "vllm:num_preemptions_total 2\n";
    const Telemetry t =
        parse_engine_metrics_text(text, "a.prom", "ns/Deployment/chat", names(), 30);
    REQUIRE(t.engine_pods.size() == 1);
    CHECK(t.engine_pods[0].workload == "ns/Deployment/chat");
    CHECK(t.engine_pods[0].window_s == Approx(60));        // unstamped: the k-th sample at k x 30 s
    CHECK(*t.engine_pods[0].preemptions == Approx(3 + 2)); // 5 -> 8, then a restart at 2
  }
  SECTION("the current name wins over the one it replaced") {
    const std::string text = "vllm:num_requests_running 1\n"
                             "vllm:gpu_cache_usage_perc 0.9\n"
                             "vllm:kv_cache_usage_perc 0.2\n";
    const Telemetry t = parse_engine_metrics_text(text, "a.prom", "w", names(), 30);
    CHECK(t.engine_pods[0].kv_cache_usage->max == Approx(0.2));
  }
  SECTION("one series written with its labels in another order is one series") {
    // Found reading the code after fuzzing: the series were told apart by their text.
    const Telemetry t =
        parse_engine_metrics_text("vllm:num_requests_running{namespace=\"a\",pod=\"b\"} 5\n"
                                  "vllm:num_requests_running {pod=\"b\", namespace=\"a\"} 5\n",
                                  "a.prom",
                                  "",
                                  names(),
                                  30);
    REQUIRE(t.engine_pods.size() == 1);
    CHECK(t.engine_pods[0].running.max == 5); // two scrapes of 5, not one of 10
    CHECK(t.engine_pods[0].scrapes == 2);
  }
  SECTION("an old release's name alone is read") {
    const Telemetry t = parse_engine_metrics_text(
        "vllm:num_requests_running 1\nvllm:gpu_cache_usage_perc 0.9\n", "a.prom", "w", names(), 30);
    CHECK(t.engine_pods[0].kv_cache_usage->max == Approx(0.9));
  }
  SECTION("SGLang's names") {
    const Telemetry t =
        parse_engine_metrics_text("sglang:num_running_reqs{namespace=\"a\",pod=\"b\"} 4\n"
                                  "sglang:num_queue_reqs{namespace=\"a\",pod=\"b\"} 2\n"
                                  "sglang:token_usage{namespace=\"a\",pod=\"b\"} 0.5\n",
                                  "s.prom",
                                  "",
                                  names(),
                                  30);
    REQUIRE(t.engine_pods.size() == 1);
    CHECK(t.engine_pods[0].engine == "sglang");
    CHECK(t.engine_pods[0].demand.max == 6);
  }
  SECTION("not a finite value: skipped with a warning naming the line") {
    const Telemetry t = parse_engine_metrics_text(
        "vllm:num_requests_running 1\nvllm:num_requests_running NaN\n", "a.prom", "w", names(), 30);
    REQUIRE(t.warnings.size() == 1);
    CHECK(t.warnings[0].find("a.prom: 1 engine sample not finite, negative or above 1e15") !=
          std::string::npos);
    CHECK(t.warnings[0].find("line 2") != std::string::npos);
  }
  SECTION("without namespace and pod labels, the workload must be named") {
    CHECK_THROWS_WITH(
        parse_engine_metrics_text("vllm:num_requests_running 1\n", "a.prom", "", names(), 30),
        Catch::Contains("a.prom:1") && Catch::Contains("--engine-metrics WORKLOAD=FILE"));
  }
  SECTION("no engine metric at all") {
    CHECK_THROWS_WITH(parse_engine_metrics_text(
                          "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n", "d.prom", "w", names(), 30),
                      Catch::Contains("d.prom") && Catch::Contains("no serving engine metric"));
  }
  SECTION("not the text format") {
    CHECK_THROWS_WITH(parse_engine_metrics_text("{\"a\": 1}\n", "j.prom", "w", names(), 30),
                      Catch::Contains("j.prom:1") &&
                          Catch::Contains("not the Prometheus text format"));
    CHECK_THROWS_WITH(
        parse_engine_metrics_text(
            "vllm:time_to_first_token_seconds_bucket{le=\"fast\"} 1\n", "h.prom", "w", names(), 30),
        Catch::Contains("h.prom:1") && Catch::Contains("le=\"fast\""));
    // Found by fuzz_engine_metrics: a bound of -Inf broke the buckets' order.
    CHECK_THROWS_WITH(
        parse_engine_metrics_text(
            "vllm:time_to_first_token_seconds_bucket{le=\"-Inf\"} 4\n", "h.prom", "w", names(), 30),
        Catch::Contains("h.prom:1") && Catch::Contains("not a latency"));
  }
}

TEST_CASE("a serving workload is judged on its engine's metrics") {
  SECTION("a queue behind a full KV cache is under-provisioned; no spec: one replica more") {
    // Running 8 to 12, 4 waiting at every scrape, KV 97%.
    const auto w = judge(vllm_scrapes(
        21,
        [](std::size_t i) { return 8.0 + static_cast<double>(i % 5); },
        constant(4),
        constant(0.97)));
    REQUIRE(w.serving);
    CHECK(w.verdict == "under-provisioned");
    CHECK(has_reason(w, "requests_waiting"));
    CHECK(has_reason(w, "kv_cache_full"));
    CHECK_FALSE(has_reason(w, "engine_busy"));
    // Demand p95 16 (12 + 4) x 1.2 = 19.2 over at most 12 a pod ran: 2 replicas of 1 GPU.
    REQUIRE(w.recommendation);
    CHECK(w.recommendation->gpu == "H100-SXM-80GB");
    CHECK(w.recommendation->gpus == 2);
    CHECK(*w.recommendation->usd_per_month_saved < 0);
  }
  SECTION("a light load with no spec is not sized on guesswork") {
    const auto w = judge(vllm_scrapes(21, constant(2), constant(0), constant(0.1)));
    CHECK(has_reason(w, "kv_cache_headroom"));
    CHECK(w.verdict == "inconclusive");
    CHECK(w.recommendation->text.rfind("map it to its spec", 0) == 0);
    CHECK(*w.recommendation->usd_per_month_saved == 0);
  }
  SECTION("without a waiting gauge, a light cache is no proof of headroom") {
    std::string text;
    for (int i = 0; i < 21; ++i) {
      text += fmt::format("vllm:num_requests_running{{namespace=\"serve\",pod=\"vllm-0\"}} 2 {}\n"
                          "vllm:kv_cache_usage_perc{{namespace=\"serve\",pod=\"vllm-0\"}} 0.1 {}\n",
                          1700000000000LL + i * 30000LL,
                          1700000000000LL + i * 30000LL);
    }
    const auto w = judge(text);
    CHECK_FALSE(has_reason(w, "kv_cache_headroom"));
    CHECK(w.verdict == "right-sized");
  }
  SECTION("no request in the window: idle") {
    const auto w = judge(vllm_scrapes(21, constant(0), constant(0), constant(0)));
    CHECK(w.verdict == "idle");
    CHECK(w.recommendation->gpus == 0);
  }
  SECTION("a few scrapes: observe longer, whatever the GPU samples") {
    const auto w = judge(vllm_scrapes(5, constant(8), constant(4), constant(0.97)), 100);
    CHECK(w.verdict == "inconclusive");
    CHECK(w.recommendation->text.find("5 scrapes of the vllm server's metrics") !=
          std::string::npos);
  }
  SECTION("a missed latency target is under-provisioned even without a queue") {
    ObserveOptions o = serving_options();
    Spec spec;
    spec.name = "chat";
    spec.workload.inference.targets.ttft = seconds(0.25);
    o.specs.push_back(SpecMapping{"serve/*", std::make_shared<const Spec>(spec), "chat.json"});
    // TTFT 0.3 s at every request; the target's statistic is the mean.
    const auto w = judge(vllm_scrapes(21, constant(4), constant(0), constant(0.3), 0.3), 21, o);
    REQUIRE(w.serving);
    CHECK(w.serving->spec_file == "chat.json");
    CHECK(w.serving->ttft_target_statistic == "mean");
    CHECK(*w.serving->ttft_observed_s == Approx(0.3));
    CHECK(has_reason(w, "latency_over_target"));
    CHECK(w.verdict == "under-provisioned");
  }
  SECTION("a workload no glob matches has no spec") {
    ObserveOptions o = serving_options();
    o.specs.push_back(SpecMapping{"other/*", std::make_shared<const Spec>(), "x.json"});
    const auto w = judge(vllm_scrapes(21, constant(4), constant(0), constant(0.3)), 21, o);
    CHECK(w.serving->spec_file.empty());
  }
}

TEST_CASE("a serving workload's spec is sized by the estimator at the observed load") {
  // Llama 3.1 8B chat (examples/llama-3.1-8b-chat.json: TTFT <= 1.5 s, TPOT <= 50 ms) on one
  // H100, 2 requests in flight and a KV cache 10% full: the plan at 3 concurrent requests
  // (2 x 1.2, rounded up) finds something cheaper than an H100 that meets the targets.
  ObserveOptions o = serving_options();
  const auto spec = std::make_shared<const Spec>(
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json"));
  o.specs.push_back(SpecMapping{"serve/*", spec, "chat.json"});
  SpecPlanning planning;
  planning.catalog = &test::catalog();
  planning.constants = &test::constants();
  planning.efficiency = &test::efficiency();
  planning.options = test::cli_plan_options("2026-12-01");
  planning.options.simulate = false;
  planning.options.disaggregate = false;
  o.planning = &planning;

  SECTION("light load: over-provisioned, on the plan's cheapest configuration") {
    const auto w = judge(vllm_scrapes(21, constant(2), constant(0), constant(0.1)), 21, o);
    REQUIRE(w.serving);
    CHECK(w.serving->sized_concurrency == 3);
    REQUIRE(w.serving->estimated_memory_per_gpu_bytes);
    // The estimator's memory on the H100 replaces the 72 GiB vLLM holds: the 8B's 15 GiB of
    // bf16 weights and a little cache, far under it.
    CHECK(*w.serving->estimated_memory_per_gpu_bytes > 15 * k_gib);
    CHECK(*w.serving->estimated_memory_per_gpu_bytes < 40 * k_gib);
    CHECK(*w.memory_needed_bytes == Approx(*w.serving->estimated_memory_per_gpu_bytes));
    CHECK(w.verdict == "over-provisioned");
    REQUIRE(w.recommendation);
    CHECK(w.recommendation->gpu != "H100-SXM-80GB");
    CHECK(*w.recommendation->usd_per_month_saved >= 0.10 * *w.recommendation->usd_per_month_now);
    CHECK(w.recommendation->text.find("meets its targets") != std::string::npos);
  }
  SECTION("an inter-token latency far from the estimator's: check the spec, no size") {
    // 40 ms a token where the estimator puts an 8B on an H100 under 10 ms.
    const auto w = judge(
        vllm_scrapes(21, constant(2), constant(0), constant(0.1), 0.3, 10, "vllm-0", 0.04), 21, o);
    CHECK(w.verdict == "inconclusive");
    CHECK(w.recommendation->text.rfind("check the spec", 0) == 0);
    CHECK(*w.recommendation->usd_per_month_saved == 0);
  }
}

TEST_CASE("engine metrics of a pod no workload holds are named in a warning") {
  Telemetry t = parse_engine_metrics_text(
      vllm_scrapes(3, constant(1), constant(0), constant(0.1), 0.3, 10, "elsewhere"),
      "vllm.prom",
      "",
      names(),
      30);
  t.gpus.push_back(vllm_gpu(21));
  const auto report = observe(t, {}, test::catalog(), products(), serving_options());
  bool warned = false;
  for (const auto& w : report.warnings) {
    warned = warned || w.find("serve/elsewhere") != std::string::npos;
  }
  CHECK(warned);
  CHECK_FALSE(report.workloads.front().serving.has_value());
}

TEST_CASE("workload globs and the spec map") {
  CHECK(workload_matches("llm-serving/*", "llm-serving/Deployment/chat"));
  CHECK(workload_matches("*/vllm-*", "a/vllm-0"));
  CHECK_FALSE(workload_matches("llm-serving/*", "research/train-0"));

  const auto dir = std::filesystem::temp_directory_path() / "rightsize-spec-map-test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& text) {
    std::ofstream(dir / "map.json") << text;
    return (dir / "map.json").string();
  };
  const auto map = read_spec_map(write(
      R"({"specs": [{"workload": "a/*", "spec": "specs/a.json"}, {"workload": "*", "spec": "/abs/b.json"}]})"));
  REQUIRE(map.size() == 2);
  CHECK(map[0].spec_file == (dir / "specs/a.json").string());
  CHECK(map[1].spec_file == "/abs/b.json");
  CHECK_THROWS_WITH(
      read_spec_map(write(R"({"specs": [{"workload": "a/*", "spec": "a.json", "sla": 1}]})")),
      Catch::Contains("map.json:/specs/0") && Catch::Contains("sla"));
  CHECK_THROWS_WITH(read_spec_map(write(R"({"specs": []})")),
                    Catch::Contains("map.json:/specs") && Catch::Contains("at least one"));
  CHECK_THROWS_WITH(read_spec_map(write(R"({"specs": [{"spec": "a.json"}]})")),
                    Catch::Contains("map.json:/specs/0") && Catch::Contains("workload"));
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace rightsize
