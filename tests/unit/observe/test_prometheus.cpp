// Prometheus query_range answers (tests/data/observe/prometheus-*.json, shaped as Prometheus 2.42
// writes them) added to Telemetry: identities, SI units, memory_total, throttle masks, merging,
// and the exact one-line errors for what is not such an answer. query_prometheus's argument
// checks run here; its HTTP side runs against a real server in tests/observe/. libcurl's loader
// (net/curl_api.hpp) is checked with libraries that are not libcurl.

#include "observe/telemetry/prometheus/answer.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/net/curl_api.hpp>
#include <rightsize/observe/prometheus.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace rightsize;

namespace {

const std::string k_url = "http://prom:9090/api/v1/query_range?query=DCGM_FI_DEV_GPU_UTIL";
constexpr double k_mib = 1024.0 * 1024.0;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(RIGHTSIZE_TESTS_DIR) + "/data/observe/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Telemetry read(const std::string& name, const std::string& field) {
  Telemetry t;
  add_prometheus_matrix(fixture(name), field, k_url, t);
  return t;
}

const GpuSeries& gpu(const Telemetry& t, const std::string& label, const std::string& pod = "") {
  for (const auto& g : t.gpus) {
    if (g.id.label() == label && g.id.pod == pod) {
      return g;
    }
  }
  FAIL("no GPU " << label << " " << pod);
  return t.gpus.front();
}

std::string error_of(std::string_view body, const std::string& field = "DCGM_FI_DEV_GPU_UTIL") {
  Telemetry t;
  try {
    add_prometheus_matrix(body, field, k_url, t);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string matrix(const std::string& result) {
  return R"({"status":"success","data":{"resultType":"matrix","result":)" + result + "}}";
}

} // namespace

TEST_CASE("prometheus: a matrix of GPU_UTIL, one GPU per series, in fractions", "[prometheus]") {
  const auto t = read("prometheus-gpu-util.json", "DCGM_FI_DEV_GPU_UTIL");
  REQUIRE(t.gpus.size() == 3);
  CHECK(t.samples == 9);
  CHECK(t.warnings.empty());

  const auto& busy = gpu(t, "node-a/gpu0", "chat-busy-7d9f8");
  CHECK(busy.id.namespace_name == "inference");
  CHECK(busy.id.container == "vllm");
  CHECK(busy.id.uuid == "GPU-5f3b1c2e-8a41-4d0f-9c7e-2b6a1d9e0f11");
  CHECK(busy.id.model_name == "NVIDIA H100 80GB HBM3");
  CHECK(busy.id.source == k_url);
  const auto& util = busy[Metric::gpu_utilization];
  REQUIRE(util.size() == 3);
  CHECK(util.time_s[0] == 1700000000.0);
  CHECK(util.value[0] == Approx(0.45)); // "45" %
  CHECK(util.value[1] == Approx(0.80));
  CHECK(util.value[2] == Approx(0.85));

  CHECK(gpu(t, "node-a/gpu1", "chat-idle-5c4b2")[Metric::gpu_utilization].value[2] == Approx(0.01));
  const auto& batch = gpu(t, "node-b/gpu0");
  CHECK(batch.id.namespace_name.empty());
  CHECK(batch[Metric::gpu_utilization].value[2] == Approx(0.375));
  for (const auto& g : t.gpus) {
    CHECK(g[Metric::memory_used].empty());
  }
}

TEST_CASE("prometheus: FB_USED + FB_FREE (+ FB_RESERVED) is memory_total, in bytes",
          "[prometheus]") {
  Telemetry t;
  add_prometheus_matrix(fixture("prometheus-fb-used.json"), "DCGM_FI_DEV_FB_USED", k_url, t);
  add_prometheus_matrix(fixture("prometheus-fb-free.json"), "DCGM_FI_DEV_FB_FREE", k_url, t);
  REQUIRE(t.gpus.size() == 1);
  const auto& g = t.gpus[0];
  REQUIRE(g[Metric::memory_used].size() == 2);
  CHECK(g[Metric::memory_used].value[0] == 1024 * k_mib);
  REQUIRE(g[Metric::memory_total].size() == 2); // the third FB_FREE has no FB_USED beside it
  CHECK(g[Metric::memory_total].value[0] == 81024 * k_mib); // 1024 + 80000 MiB
  CHECK(g[Metric::memory_total].value[1] == 81024 * k_mib); // 2048 + 78976 MiB
  CHECK(t.samples == 4);
  REQUIRE(t.warnings.size() == 1);
  CHECK(t.warnings[0] == k_url + ": 1 sample without DCGM_FI_DEV_FB_USED at the same time; "
                                 "memory_total not known there");

  SECTION("FB_RESERVED adds to the total at its time") {
    add_prometheus_matrix(
        fixture("prometheus-fb-reserved.json"), "DCGM_FI_DEV_FB_RESERVED", k_url, t);
    CHECK(t.gpus[0][Metric::memory_total].value[0] == 81559 * k_mib);
    CHECK(t.gpus[0][Metric::memory_total].value[1] == 81024 * k_mib);
    CHECK(t.samples == 4);
  }
  SECTION("FB_FREE of a GPU without FB_USED makes no GPU") {
    Telemetry alone;
    add_prometheus_matrix(fixture("prometheus-fb-free.json"), "DCGM_FI_DEV_FB_FREE", k_url, alone);
    CHECK(alone.gpus.empty());
    CHECK(alone.warnings ==
          std::vector<std::string>{k_url + ": 3 samples without DCGM_FI_DEV_FB_USED at the same "
                                           "time; memory_total not known there"});
  }
}

TEST_CASE("prometheus: throttle reasons become throttled 0/1", "[prometheus]") {
  const auto t = read("prometheus-throttle.json", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS");
  REQUIRE(t.gpus.size() == 1);
  const auto& throttled = t.gpus[0][Metric::throttled];
  // 0 none, 0x1 idle, 0x2 application clocks, 0x4 power cap, 0x8 hardware slowdown, 0x10 sync
  // boost, 0x20 software thermal, 0x40 hardware thermal, 0x80 power brake, 0x100 display clocks.
  CHECK(throttled.value == std::vector<double>{0, 0, 0, 1, 1, 0, 1, 1, 1, 0});
  CHECK(t.warnings == std::vector<std::string>{
                          k_url + ": 2 samples are not a clock-reason bit mask (an integer >= 0); "
                                  "skipped"});
}

TEST_CASE("prometheus: NaN and infinities are skipped and counted", "[prometheus]") {
  const auto t = read("prometheus-nan.json", "DCGM_FI_DEV_GPU_UTIL");
  REQUIRE(t.gpus.size() == 1);
  const auto& util = t.gpus[0][Metric::gpu_utilization];
  CHECK(util.time_s == std::vector<double>{1700000000, 1700000120});
  CHECK(util.value[1] == Approx(0.12));
  CHECK(t.samples == 2);
  CHECK(t.warnings ==
        std::vector<std::string>{k_url + ": 3 samples were NaN or infinite; skipped"});
}

TEST_CASE("prometheus: pod labels name the GPU's workload", "[prometheus]") {
  SECTION("exported_* labels, written when the scrape target has pod labels of its own, win") {
    const auto t = read("prometheus-exported-labels.json", "DCGM_FI_DEV_GPU_UTIL");
    REQUIRE(t.gpus.size() == 1);
    const auto& id = t.gpus[0].id;
    CHECK(id.namespace_name == "research");
    CHECK(id.pod == "llama-finetune-0");
    CHECK(id.container == "trainer");
    CHECK(id.label() == "gpu-node-7/gpu3");
  }
  SECTION("MIG instances of one GPU are two GPUs") {
    const auto t = read("prometheus-mig.json", "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
    REQUIRE(t.gpus.size() == 2);
    const auto& big = gpu(t, "node-c/gpu0/3g.40gb#1", "embed-0");
    CHECK(big.id.mig_profile == "3g.40gb");
    CHECK(big.id.mig_instance == "1");
    CHECK(big[Metric::gpu_utilization].value == std::vector<double>{0.25, 0.5}); // a ratio already
    CHECK(gpu(t, "node-c/gpu0/1g.10gb#9", "rerank-0")[Metric::gpu_utilization].size() == 1);
  }
  SECTION("a second field of the same GPUs extends them") {
    Telemetry t;
    add_prometheus_matrix(fixture("prometheus-gpu-util.json"), "DCGM_FI_DEV_GPU_UTIL", k_url, t);
    add_prometheus_matrix(fixture("prometheus-fb-used.json"), "DCGM_FI_DEV_FB_USED", k_url, t);
    REQUIRE(t.gpus.size() == 3);
    CHECK(gpu(t, "node-a/gpu0", "chat-busy-7d9f8")[Metric::memory_used].size() == 2);
    CHECK(t.samples == 11);
  }
}

TEST_CASE("prometheus: chunks answered out of order merge in time order", "[prometheus]") {
  Telemetry t;
  add_prometheus_matrix(fixture("prometheus-chunk-late.json"), "DCGM_FI_DEV_GPU_UTIL", k_url, t);
  add_prometheus_matrix(fixture("prometheus-chunk-early.json"), "DCGM_FI_DEV_GPU_UTIL", k_url, t);
  REQUIRE(t.gpus.size() == 1); // the series of a second job is the same GPU
  const auto& util = t.gpus[0][Metric::gpu_utilization];
  CHECK(util.time_s == std::vector<double>{1700000000, 1700000030, 1700000060, 1700000090});
  // At equal times the first value read stays: 45 and 80, not the other job's 46 and 81.
  CHECK(util.value[0] == Approx(0.45));
  CHECK(util.value[1] == Approx(0.80));
  CHECK(util.value[3] == Approx(0.90));
  CHECK(t.samples == 4);

  SECTION("a second field of the same metric fills only the times the first left out") {
    add_prometheus_matrix(
        matrix(
            R"([{"metric":{"Hostname":"node-a","gpu":"0","UUID":"GPU-5f3b1c2e-8a41-4d0f-9c7e-2b6a1d9e0f11","namespace":"inference","pod":"chat-busy-7d9f8","container":"vllm"},"values":[[1700000030,"0.1"],[1700000045,"0.7"]]}])"),
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        k_url,
        t);
    const auto& merged = t.gpus[0][Metric::gpu_utilization];
    CHECK(merged.time_s ==
          std::vector<double>{1700000000, 1700000030, 1700000045, 1700000060, 1700000090});
    CHECK(merged.value[1] == Approx(0.80));
    CHECK(merged.value[2] == Approx(0.70));
    CHECK(t.samples == 5);
  }
}

TEST_CASE("prometheus: answers that add nothing", "[prometheus]") {
  Telemetry t;
  add_prometheus_matrix(matrix("[]"), "DCGM_FI_DEV_GPU_UTIL", k_url, t);
  add_prometheus_matrix(matrix(R"([{"metric":{"gpu":"0"}}])"), "DCGM_FI_DEV_GPU_UTIL", k_url, t);
  add_prometheus_matrix(
      matrix(R"([{"metric":{"gpu":"0"},"values":[]}])"), "DCGM_FI_DEV_GPU_UTIL", k_url, t);
  CHECK(t.gpus.empty());
  CHECK(t.warnings.empty());
  CHECK(t.samples == 0);

  SECTION("a value infinite once in bytes makes no GPU") {
    add_prometheus_matrix(matrix(R"([{"metric":{"gpu":"0"},"values":[[1700000000,"1e308"]]}])"),
                          "DCGM_FI_DEV_FB_USED",
                          k_url,
                          t);
    CHECK(t.gpus.empty());
    CHECK(t.warnings ==
          std::vector<std::string>{k_url + ": 1 sample was NaN or infinite; skipped"});
  }
  SECTION("Prometheus' own warnings are passed on") {
    add_prometheus_matrix(
        R"({"status":"success","warnings":["PromQL info: metric might not be a counter"],"data":{"resultType":"matrix","result":[]}})",
        "DCGM_FI_DEV_GPU_UTIL",
        k_url,
        t);
    CHECK(t.warnings == std::vector<std::string>{k_url + ": Prometheus warns: PromQL info: metric "
                                                         "might not be a counter"});
  }
}

TEST_CASE("prometheus: what is not a query_range answer is one exact line", "[prometheus]") {
  const std::string not_answer = ": not a query_range answer: ";
  CHECK(error_of("<!DOCTYPE html>\n<html><body>Grafana</body></html>") ==
        k_url + ": the answer is HTML, not Prometheus' JSON API (is the URL a Prometheus server?)");
  CHECK(error_of(" \n") ==
        k_url +
            ": the answer is empty, not Prometheus' JSON API (is the URL a Prometheus server?)");
  CHECK(error_of("this is not JSON {") ==
        k_url + not_answer + "invalid JSON at line 1, column 2: invalid literal; last read: 'th'");
  CHECK(error_of(fixture("prometheus-error-bad-data.json")) ==
        k_url + ": Prometheus answered status \"error\": bad_data: 1:22: parse error: error "
                "parsing regexp: missing closing ): `^(?:()$`");
  CHECK(
      error_of(
          R"({"status":"error","errorType":"timeout","error":"query timed out\nin query execution"})") ==
      k_url +
          ": Prometheus answered status \"error\": timeout: query timed out in query execution");
  CHECK(error_of(fixture("prometheus-vector.json")) ==
        k_url + ":/data/resultType" + not_answer + "must be \"matrix\", got \"vector\"");
  CHECK(error_of("[]") == k_url + ":/" + not_answer + "must be a JSON object, got []");
  CHECK(error_of("{}") == k_url + ":/status" + not_answer + "required field is missing");
  CHECK(error_of(R"({"status":"ok"})") ==
        k_url + ":/status" + not_answer + "must be \"success\" or \"error\", got \"ok\"");
  CHECK(error_of(R"({"status":"success"})") ==
        k_url + ":/data" + not_answer + "required field is missing");
  CHECK(error_of(R"({"status":"success","data":[]})") ==
        k_url + ":/data" + not_answer + "must be an object, got []");
  CHECK(error_of(R"({"status":"success","data":{"result":[]}})") ==
        k_url + ":/data/resultType" + not_answer + "required field is missing");
  CHECK(error_of(R"({"status":"success","data":{"resultType":"matrix","result":{}}})") ==
        k_url + ":/data/result" + not_answer + "must be an array, got {}");
  CHECK(error_of(matrix("[1]")) ==
        k_url + ":/data/result/0" + not_answer + "must be an object, got 1");
  CHECK(error_of(matrix(R"([{"values":[]}])")) ==
        k_url + ":/data/result/0/metric" + not_answer + "required field is missing");
  CHECK(error_of(matrix(R"([{"metric":[],"values":[]}])")) ==
        k_url + ":/data/result/0/metric" + not_answer + "must be an object of labels, got []");
  CHECK(error_of(matrix(R"([{"metric":{"gpu":0},"values":[]}])")) ==
        k_url + ":/data/result/0/metric/gpu" + not_answer + "must be a string, got 0");
  CHECK(error_of(matrix(R"([{"metric":{},"values":{}}])")) ==
        k_url + ":/data/result/0/values" + not_answer +
            "must be an array of [time, \"value\"] pairs, got {}");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[[1700000000,"1"],[1700000000]]}])")) ==
        k_url + ":/data/result/0/values/1" + not_answer +
            "must be a [time, \"value\"] pair, got [1700000000]");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[[1700000000,"1",2]]}])")) ==
        k_url + ":/data/result/0/values/0" + not_answer +
            "must be a [time, \"value\"] pair, got [1700000000,\"1\",2]");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[["1700000000","1"]]}])")) ==
        k_url + ":/data/result/0/values/0/0" + not_answer +
            "must be a time in Unix seconds (a number >= 0), got \"1700000000\"");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[[-5,"1"]]}])")) ==
        k_url + ":/data/result/0/values/0/0" + not_answer +
            "must be a time in Unix seconds (a number >= 0), got -5");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[[1700000000,45]]}])")) ==
        k_url + ":/data/result/0/values/0/1" + not_answer +
            "must be a number as a string (\"12.5\", \"NaN\", \"+Inf\"), got 45");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[[1700000000,"45%"]]}])")) ==
        k_url + ":/data/result/0/values/0/1" + not_answer +
            "must be a number as a string (\"12.5\", \"NaN\", \"+Inf\"), got \"45%\"");
  CHECK(error_of(matrix(R"([{"metric":{},"values":[[1700000000,""]]}])")) ==
        k_url + ":/data/result/0/values/0/1" + not_answer +
            "must be a number as a string (\"12.5\", \"NaN\", \"+Inf\"), got \"\"");
}

TEST_CASE("prometheus: query_prometheus checks its arguments before any request", "[prometheus]") {
  PrometheusQuery q;
  q.url = "http://127.0.0.1:9090";
  q.range_s = 3600;
  q.step_s = 30;
  const auto error = [](const PrometheusQuery& query) -> std::string {
    try {
      query_prometheus(query);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string matchers = R"( (label matchers such as {namespace="x", pod=~"llm-.*"}))";

  SECTION("the selector") {
    q.selector = "{namespace=x}";
    CHECK(error(q) ==
          "--selector: expected a quoted value at column 12 of \"{namespace=x}\"" + matchers);
    q.selector = "{namespace=\"x\"";
    CHECK(error(q) ==
          "--selector: an unbalanced '{' at column 14 of \"{namespace=\"x\"\"" + matchers);
    q.selector = "namespace=\"x\"}";
    CHECK(error(q) ==
          "--selector: expected ',' or the end, found '}' at column 14 of \"namespace=\"x\"}\"" +
              matchers);
    q.selector = "namespace==\"x\"";
    CHECK(error(q) ==
          "--selector: expected a quoted value at column 11 of \"namespace==\"x\"\"" + matchers);
    q.selector = "pod=~\"a.*";
    CHECK(error(q) ==
          "--selector: an unterminated quoted value at column 6 of \"pod=~\"a.*\"" + matchers);
    q.selector = "9pod=\"a\"";
    CHECK(error(q) ==
          "--selector: expected a label name, found '9' at column 1 of \"9pod=\"a\"\"" + matchers);
    q.selector = "pod \"a\"";
    CHECK(error(q) ==
          "--selector: expected =, !=, =~ or !~ after the label name at column 5 of \"pod \"a\"\"" +
              matchers);
    q.selector = R"(pod="a" namespace="b")";
    CHECK(error(q) == "--selector: expected ',' or the end, found 'n' at column 9 of \"pod=\"a\" "
                      "namespace=\"b\"\"" +
                          matchers);
    q.selector = "pod=\"a\nb\"";
    CHECK(error(q) == "--selector: a control character at column 7 of \"pod=\"a b\"\"" + matchers);
  }
  SECTION("the URL") {
    q.url = "127.0.0.1:9090";
    CHECK(error(q) == "--prometheus: must be an http:// or https:// URL, got \"127.0.0.1:9090\"");
    q.url = "ftp://prom:21";
    CHECK(error(q) == "--prometheus: must be an http:// or https:// URL, got \"ftp://prom:21\"");
    q.url = "http://prom:9090/?x=1";
    CHECK(error(q) == "--prometheus: must be the server's base URL, without ?query or #fragment, "
                      "got \"http://prom:9090/?x=1\"");
  }
  SECTION("the window") {
    q.range_s = 0;
    CHECK(error(q) == "--range: must be > 0 seconds, got 0");
    q.range_s = 3600;
    q.step_s = 0;
    CHECK(error(q) == "--step: must be >= 0.001 seconds, got 0");
    q.step_s = 1;
    q.range_s = 90 * 86400.0;
    q.aggregate = Aggregate::client; // the server's summaries read no points
    CHECK(error(q) == "--step: 1 s over a range of 7.776e+06 s is 7776001 points per series, more "
                      "than the 1000000 rightsize reads; use a step of at least 8 s, or "
                      "--aggregate server");
    q.aggregate = Aggregate::server;
    q.percentiles = {0};
    CHECK(error(q) == "--percentile: must be in (0, 100], got 0");
    q.percentiles = {};
    q.range_s = 3600;
    q.timeout_s = 0;
    CHECK(error(q) == "--timeout: must be > 0 and <= 86400 seconds, got 0");
  }
}

TEST_CASE("prometheus: the host is the hostname label, either spelling", "[prometheus]") {
  const auto host_of = [](const std::string& labels) {
    Telemetry t;
    add_prometheus_matrix(
        matrix(R"([{"metric":{"gpu":"0",)" + labels + R"(},"values":[[1700000000,"1"]]}])"),
        "DCGM_FI_DEV_GPU_UTIL",
        k_url,
        t);
    REQUIRE(t.gpus.size() == 1);
    return t.gpus[0].id.host;
  };
  // dcgm-exporter's latest commit renamed Hostname to hostname; both win over host and instance,
  // whatever the order of the labels.
  CHECK(host_of(R"("hostname":"node-a","host":"h","instance":"10.0.0.1:9400")") == "node-a");
  CHECK(host_of(R"("instance":"10.0.0.1:9400","host":"h","hostname":"node-a")") == "node-a");
  CHECK(host_of(R"("Hostname":"node-b","instance":"10.0.0.1:9400")") == "node-b");
  CHECK(host_of(R"("instance":"10.0.0.1:9400","Hostname":"node-b")") == "node-b");
  CHECK(host_of(R"("instance":"10.0.0.1:9400")") == "10.0.0.1:9400");
}

TEST_CASE("prometheus: two MIG instances of one profile on one GPU stay two", "[prometheus]") {
  // Labels as dcgm-exporter's latest commit writes them: "hostname", and GPU_I_ID telling the two
  // 1g.10gb instances of GPU 0 apart.
  const std::string gpu0 =
      R"("gpu":"0","UUID":"GPU-9c1d2e3f","hostname":"node-c","GPU_I_PROFILE":"1g.10gb")";
  const std::string body =
      matrix(R"([{"metric":{)" + gpu0 + R"(,"GPU_I_ID":"7"},"values":[[1700000000,"10"]]},)" +
             R"({"metric":{)" + gpu0 + R"(,"GPU_I_ID":"8"},"values":[[1700000000,"90"]]},)" +
             R"({"metric":{)" + gpu0 + R"(,"GPU_I_ID":"7"},"values":[[1700000030,"20"]]}])");
  Telemetry t;
  add_prometheus_matrix(body, "DCGM_FI_DEV_GPU_UTIL", k_url, t);
  REQUIRE(t.gpus.size() == 2);
  const auto& seven = gpu(t, "node-c/gpu0/1g.10gb#7");
  CHECK(seven.id.mig_instance == "7");
  CHECK(seven[Metric::gpu_utilization].value == std::vector<double>{0.1, 0.2});
  CHECK(gpu(t, "node-c/gpu0/1g.10gb#8")[Metric::gpu_utilization].value == std::vector<double>{0.9});
  CHECK(t.samples == 3);

  SECTION("a second field extends each instance, not the other") {
    add_prometheus_matrix(
        matrix(R"([{"metric":{)" + gpu0 + R"(,"GPU_I_ID":"8"},"values":[[1700000000,"512"]]}])"),
        "DCGM_FI_DEV_FB_USED",
        k_url,
        t);
    REQUIRE(t.gpus.size() == 2);
    CHECK(gpu(t, "node-c/gpu0/1g.10gb#8")[Metric::memory_used].value ==
          std::vector<double>{512 * k_mib});
    CHECK(gpu(t, "node-c/gpu0/1g.10gb#7")[Metric::memory_used].empty());
  }
}

TEST_CASE("prometheus: GpuIdentity::label names the MIG instance when there is one",
          "[prometheus]") {
  GpuIdentity id;
  id.host = "node-c";
  id.index = "0";
  CHECK(id.label() == "node-c/gpu0");
  id.mig_profile = "3g.40gb";
  CHECK(id.label() == "node-c/gpu0/3g.40gb");
  id.mig_instance = "1";
  CHECK(id.label() == "node-c/gpu0/3g.40gb#1");
  id.mig_profile.clear();
  CHECK(id.label() == "node-c/gpu0/#1");
}

TEST_CASE("prometheus: libcurl is loaded at run time, or named as missing", "[prometheus]") {
  const std::string where = "http://prom:9090";
  const std::string needs = where + ": --prometheus needs libcurl (libcurl4), which cannot be "
                                    "loaded: ";
  SECTION("no such library: dlopen's error for the first name") {
    const auto loaded =
        curl::detail::load({"libcurl-rightsize-missing.so.4", "libcurl-rightsize-missing.so"});
    CHECK(loaded.error ==
          "libcurl-rightsize-missing.so.4: cannot open shared object file: No such file or "
          "directory");
    REQUIRE_THROWS_WITH(curl::detail::require(loaded, where, "--prometheus"), needs + loaded.error);
  }
  SECTION("a library without curl's functions (an older libcurl, or another library)") {
    const auto loaded = curl::detail::load({"libcurl-rightsize-missing.so.4", "libm.so.6"});
    CHECK_THAT(loaded.error, Catch::Contains("libm.so.6: undefined symbol: curl_global_init"));
    REQUIRE_THROWS_WITH(curl::detail::require(loaded, where, "--prometheus"), needs + loaded.error);
  }
  SECTION("no names at all") {
    REQUIRE_THROWS_WITH(curl::detail::require(curl::detail::load({}), where, "--prometheus"),
                        needs + "no library name to load");
  }
  SECTION("this machine's libcurl, with every function") {
    const curl::Api& api = curl::api(where, "--prometheus");
    CHECK(api.url_get != nullptr);
    CHECK(api.easy_setopt != nullptr);
    CHECK(std::string(api.easy_strerror(CURLE_OK)) == "No error");
  }
}

TEST_CASE("prometheus: an instant query's vector and a label values list", "[prometheus]") {
  using namespace rightsize::prometheus;
  const std::string url = "http://prom:9090/api/v1/query?query=max_over_time(x[1h])";
  const auto answer = parse_vector_answer(
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{"UUID":"GPU-1","pod":"p"},"value":[1733580000,"57"]},)"
      R"({"metric":{"UUID":"GPU-2"},"value":[1733580000,"NaN"]}]},"warnings":["w1"]})",
      url);
  REQUIRE(answer.series.size() == 2);
  REQUIRE(answer.series[0].points.size() == 1);
  CHECK(answer.series[0].points[0].time_s == 1733580000);
  CHECK(answer.series[0].points[0].value == 57);
  CHECK(answer.series[1].points.empty()); // NaN: no value, counted
  CHECK(answer.non_finite == 1);
  CHECK(answer.warnings == std::vector<std::string>{"w1"});

  const auto error = [&](const std::string& body) -> std::string {
    try {
      parse_vector_answer(body, url);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(error(R"({"status":"success","data":{"resultType":"matrix","result":[]}})") ==
        url + ":/data/resultType: not an instant query answer: must be \"vector\", got \"matrix\"");
  CHECK(error(R"({"status":"success","data":{"resultType":"vector","result":[)"
              R"({"metric":{},"value":[1,57]}]}})") ==
        url + ":/data/result/0/value/1: not an instant query answer: must be a number as a "
              "string (\"12.5\", \"NaN\", \"+Inf\"), got 57");
  CHECK(error(R"({"status":"error","errorType":"timeout","error":"query timed out"})") ==
        url + ": Prometheus answered status \"error\": timeout: query timed out");

  const std::string values_url = "http://prom:9090/api/v1/label/__name__/values";
  CHECK(parse_label_values(R"({"status":"success","data":["a","b"]})", values_url) ==
        std::vector<std::string>{"a", "b"});
  REQUIRE_THROWS_WITH(parse_label_values(R"({"status":"success","data":[1]})", values_url),
                      values_url + ":/data/0: not a label values answer: must be a string, got 1");
}
