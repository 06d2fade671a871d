#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace rightsize;

namespace {

std::string fixture(const char* name) {
  const std::string path = std::string(RIGHTSIZE_TESTS_DIR) + "/data/observe/" + name;
  return read_input_file(path, k_max_telemetry_file_bytes, "telemetry");
}

Telemetry parse(const std::string& text, double interval_s = 30) {
  return parse_dcgm_text(text, "dcgm.txt", interval_s);
}

const std::vector<double>& values(const Telemetry& t, std::size_t gpu, Metric m) {
  return t.gpus.at(gpu)[m].value;
}

const std::vector<double>& times(const Telemetry& t, std::size_t gpu, Metric m) {
  return t.gpus.at(gpu)[m].time_s;
}

constexpr double k_mib = 1048576.0;
const std::string k_gpu0 =
    R"(gpu="0",UUID="GPU-0",modelName="NVIDIA H100 80GB HBM3",Hostname="n1")";
const std::string k_gpu1 =
    R"(gpu="1",UUID="GPU-1",modelName="NVIDIA H100 80GB HBM3",Hostname="n1")";

// NAME{gpu 0's labels} VALUE
std::string
line(const std::string& name, const std::string& value, const std::string& labels = k_gpu0) {
  return name + "{" + labels + "} " + value + "\n";
}

} // namespace

TEST_CASE("dcgm: three scrapes of a Kubernetes node, one idle GPU", "[dcgm]") {
  const Telemetry t = parse_dcgm_text(fixture("dcgm-k8s-pods.txt"), "pods.txt", 30);
  // Fields observe does not read (MEM_CLOCK, MEMORY_TEMP, TOTAL_ENERGY_CONSUMPTION, ...) are
  // skipped without a word.
  CHECK(t.warnings.empty());
  REQUIRE(t.gpus.size() == 4);
  const GpuIdentity& id = t.gpus[0].id;
  CHECK(id.host == "gpu-node-07");
  CHECK(id.index == "0");
  CHECK(id.uuid == "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77");
  CHECK(id.model_name == "NVIDIA H100 80GB HBM3");
  CHECK(id.namespace_name == "llm-serving");
  CHECK(id.pod == "vllm-llama3-70b-7d9f8c6b5-x2k4p");
  CHECK(id.container == "vllm");
  CHECK(id.source == "pods.txt");
  CHECK(t.gpus[1].id.pod == "vllm-llama3-70b-7d9f8c6b5-x2k4p");
  CHECK(t.gpus[2].id.namespace_name == "research");
  CHECK(t.gpus[3].id.pod.empty());
  CHECK(t.gpus[3].id.label() == "gpu-node-07/gpu3");

  // No timestamps: scrape k is at k * 30 s.
  CHECK(times(t, 0, Metric::power) == std::vector<double>{0, 30, 60});
  CHECK(values(t, 0, Metric::power) == std::vector<double>{612.337, 634.905, 655.12});
  // DCGM_FI_DEV_GPU_UTIL (97 %), not DCGM_FI_PROF_GR_ENGINE_ACTIVE (0.934512).
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.97, 0.99, 0.98});
  CHECK(values(t, 0, Metric::memory_utilization)[0] == 0.38);
  // FB_USED 75402 MiB; FB_USED + FB_FREE + FB_RESERVED = 75402 + 5573 + 584 = 81559 MiB.
  CHECK(values(t, 0, Metric::memory_used)[0] == 75402 * k_mib);
  CHECK(values(t, 0, Metric::memory_total) ==
        std::vector<double>{85520809984.0, 85520809984.0, 85520809984.0});
  CHECK(values(t, 0, Metric::sm_clock) == std::vector<double>{1.98e9, 1.98e9, 1.965e9});
  CHECK(values(t, 0, Metric::temperature) == std::vector<double>{66, 67, 68});
  CHECK(values(t, 0, Metric::tensor_active)[0] == 0.512034);
  CHECK(values(t, 0, Metric::dram_active)[0] == 0.402113);
  CHECK(values(t, 0, Metric::pcie_tx)[0] == 1482931);
  CHECK(values(t, 0, Metric::pcie_rx)[0] == 2291044);
  CHECK(values(t, 3, Metric::gpu_utilization) == std::vector<double>{0, 0, 0});
  CHECK(values(t, 3, Metric::memory_used) == std::vector<double>{0, 0, 0});
  // 4 GPUs x 3 scrapes x 11 metrics.
  CHECK(t.samples == 132);
}

TEST_CASE("dcgm: MIG instances are series of their own", "[dcgm]") {
  const Telemetry t = parse_dcgm_text(fixture("dcgm-mig.txt"), "mig.txt", 15);
  CHECK(t.warnings.empty());
  // One 3g.40gb and three 1g.10gb instances of one H100: GPU_I_ID tells the 1g.10gb apart.
  REQUIRE(t.gpus.size() == 4);
  CHECK(t.gpus[0].id.mig_profile == "3g.40gb");
  CHECK(t.gpus[0].id.label() == "gsrh100-074/gpu0/3g.40gb#2"); // the "hostname" label
  CHECK(t.gpus[1].id.mig_instance == "7");
  CHECK(t.gpus[2].id.label() == "gsrh100-074/gpu0/1g.10gb#8");
  CHECK(t.gpus[1].id.mig_profile == "1g.10gb");
  CHECK(t.gpus[1].id.pod == "text-embedding-predictor-00008-deployment-57946f6c67-vdtjl");
  CHECK(t.gpus[2].id.mig_profile == "1g.10gb");
  CHECK(t.gpus[2].id.pod.empty());
  CHECK(t.gpus[3].id.pod == "tts-predictor-00011-deployment-5554f75554-8j8pl");
  // Without DCGM_FI_DEV_GPU_UTIL (not reported for MIG), DCGM_FI_PROF_GR_ENGINE_ACTIVE.
  CHECK(values(t, 1, Metric::gpu_utilization) == std::vector<double>{0.081, 0.094});
  // FB_USED 3713 + FB_FREE 6271 = 9984 MiB, no FB_RESERVED.
  CHECK(values(t, 1, Metric::memory_total) == std::vector<double>{9984 * k_mib, 9984 * k_mib});
  CHECK(values(t, 2, Metric::memory_used) == std::vector<double>{12 * k_mib, 12 * k_mib});
  CHECK(times(t, 3, Metric::dram_active) == std::vector<double>{0, 15});
  CHECK(t.samples == 48);
}

TEST_CASE("dcgm: hand-checked conversions to SI units", "[dcgm]") {
  const Telemetry t = parse(
      line("DCGM_FI_DEV_GPU_UTIL", "45") + line("DCGM_FI_DEV_FB_USED", "1234") +
      line("DCGM_FI_DEV_FB_FREE", "80000") + line("DCGM_FI_DEV_FB_RESERVED", "325") +
      line("DCGM_FI_DEV_SM_CLOCK", "1410") + line("DCGM_FI_DEV_POWER_USAGE", "302.206000") +
      line("DCGM_FI_DEV_POWER_MGMT_LIMIT", "700.000000") +
      line("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "4") + line("DCGM_FI_PROF_SM_ACTIVE", "0.250000") +
      line("DCGM_FI_PROF_SM_OCCUPANCY", "0.125000") +
      line("DCGM_FI_PROF_NVLINK_TX_BYTES", "2000000000") +
      line("DCGM_FI_PROF_NVLINK_RX_BYTES", "1000000000") + line("DCGM_FI_DEV_GPU_UTIL", "7") +
      line("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "1"));
  CHECK(t.warnings.empty());
  REQUIRE(t.gpus.size() == 1);
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.45, 0.07});
  CHECK(values(t, 0, Metric::memory_used) == std::vector<double>{1293942784.0});
  // 1234 + 80000 + 325 = 81559 MiB.
  CHECK(values(t, 0, Metric::memory_total) == std::vector<double>{85520809984.0});
  CHECK(values(t, 0, Metric::sm_clock) == std::vector<double>{1.41e9});
  CHECK(values(t, 0, Metric::power) == std::vector<double>{302.206});
  CHECK(values(t, 0, Metric::power_limit) == std::vector<double>{700});
  // 0x4 (software power cap) -> 1; 0x1 (idle) -> 0.
  CHECK(values(t, 0, Metric::throttled) == std::vector<double>{1, 0});
  CHECK(times(t, 0, Metric::throttled) == std::vector<double>{0, 30});
  CHECK(values(t, 0, Metric::sm_active) == std::vector<double>{0.25});
  CHECK(values(t, 0, Metric::sm_occupancy) == std::vector<double>{0.125});
  CHECK(values(t, 0, Metric::nvlink_tx) == std::vector<double>{2e9});
  CHECK(values(t, 0, Metric::nvlink_rx) == std::vector<double>{1e9});
  CHECK(t.samples == 13);
}

TEST_CASE("dcgm: a sample's own timestamp, in milliseconds", "[dcgm]") {
  const Telemetry t = parse("DCGM_FI_DEV_GPU_UTIL{" + k_gpu0 + "} 50 1716300187123\n" +
                            "DCGM_FI_DEV_GPU_UTIL{" + k_gpu0 + "} 60 1716300217123\n");
  CHECK(times(t, 0, Metric::gpu_utilization)[0] == Approx(1716300187.123).margin(1e-6));
  CHECK(times(t, 0, Metric::gpu_utilization)[1] == Approx(1716300217.123).margin(1e-6));
}

TEST_CASE("dcgm: scrapes, from # HELP/# TYPE or from a series seen again", "[dcgm]") {
  SECTION("a GPU that appears in the third scrape is at 2 * interval") {
    const std::string help = "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
                             "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n";
    const Telemetry t = parse(
        help + line("DCGM_FI_DEV_GPU_UTIL", "10") + help + line("DCGM_FI_DEV_GPU_UTIL", "20") +
            help + line("DCGM_FI_DEV_GPU_UTIL", "30") + line("DCGM_FI_DEV_GPU_UTIL", "5", k_gpu1),
        10);
    REQUIRE(t.gpus.size() == 2);
    CHECK(times(t, 0, Metric::gpu_utilization) == std::vector<double>{0, 10, 20});
    CHECK(times(t, 1, Metric::gpu_utilization) == std::vector<double>{20});
  }
  SECTION("without comments (grep'd scrapes), a repeated series starts a scrape") {
    const Telemetry t =
        parse(line("DCGM_FI_DEV_GPU_UTIL", "10") + line("DCGM_FI_DEV_GPU_UTIL", "11", k_gpu1) +
                  line("DCGM_FI_DEV_GPU_UTIL", "20") + line("DCGM_FI_DEV_GPU_UTIL", "21", k_gpu1),
              5);
    CHECK(times(t, 1, Metric::gpu_utilization) == std::vector<double>{0, 5});
    CHECK(t.warnings.empty());
  }
  SECTION("with comments only at the top, the first series seen again starts a scrape") {
    const Telemetry t =
        parse("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" + line("DCGM_FI_DEV_GPU_UTIL", "10") +
                  line("DCGM_FI_DEV_GPU_UTIL", "11", k_gpu1) + line("DCGM_FI_DEV_GPU_UTIL", "20") +
                  line("DCGM_FI_DEV_GPU_UTIL", "21", k_gpu1),
              5);
    CHECK(times(t, 1, Metric::gpu_utilization) == std::vector<double>{0, 5});
    CHECK(t.warnings.empty());
  }
}

TEST_CASE("dcgm: a series twice in one scrape is warned about and skipped", "[dcgm]") {
  const Telemetry t = parse(
      "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" + line("DCGM_FI_DEV_GPU_UTIL", "10") +
      line("DCGM_FI_DEV_GPU_UTIL", "11", k_gpu1) + line("DCGM_FI_DEV_GPU_UTIL", "12", k_gpu1) +
      line("DCGM_FI_DEV_GPU_UTIL", "13", k_gpu1));
  CHECK(values(t, 1, Metric::gpu_utilization) == std::vector<double>{0.11});
  CHECK(t.warnings ==
        std::vector<std::string>{
            "dcgm.txt:4: \"DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-1\",modelName=\"NVIDIA "
            "H100 80GB HBM3\",Hostname=\"n1\"}\" appears twice in one scrape; 2 such samples "
            "skipped"});
}

TEST_CASE("dcgm: label values with escapes, spaces and a trailing comma", "[dcgm]") {
  const Telemetry t =
      parse("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\", UUID=\"GPU-604ac76c\", pod=\"a\\\"b\\\\c\\nd\","
            "namespace = \"ns\",} 12\n"
            "DCGM_FI_DEV_GPU_UTIL {gpu=\"0\", UUID=\"GPU-604ac76c\", pod=\"a\\\"b\\\\c\\nd\","
            "namespace = \"ns\",}\t13\n");
  CHECK(t.warnings.empty());
  REQUIRE(t.gpus.size() == 1);
  CHECK(t.gpus[0].id.pod == "a\"b\\c\nd");
  CHECK(t.gpus[0].id.namespace_name == "ns");
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.12, 0.13});
}

TEST_CASE("dcgm: labels of older and newer exporters", "[dcgm]") {
  // --use-old-namespace writes uuid, pod_name, pod_namespace, container_name; a lower-case
  // metric CSV names the fields in lower case.
  const Telemetry t = parse("dcgm_fi_prof_gr_engine_active{gpu=\"0\",uuid=\"GPU-ed13\","
                            "GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\",container_name=\"c\","
                            "pod_name=\"p\",pod_namespace=\"n\",Hostname=\"h\"} 0.500000\n");
  REQUIRE(t.gpus.size() == 1);
  const GpuIdentity& id = t.gpus[0].id;
  CHECK(id.uuid == "GPU-ed13");
  CHECK(id.pod == "p");
  CHECK(id.namespace_name == "n");
  CHECK(id.container == "c");
  CHECK(id.label() == "h/gpu0/3g.40gb#1");
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.5});
}

TEST_CASE("dcgm: one GPU shared by two pods is two series", "[dcgm]") {
  const std::string a = k_gpu0 + R"(,namespace="ns",pod="a",container="c")";
  const std::string b = k_gpu0 + R"(,namespace="ns",pod="b",container="c")";
  const Telemetry t =
      parse(line("DCGM_FI_DEV_GPU_UTIL", "10", a) + line("DCGM_FI_DEV_GPU_UTIL", "20", b) +
            line("DCGM_FI_DEV_GPU_UTIL", "10", a));
  REQUIRE(t.gpus.size() == 2);
  CHECK(t.gpus[1].id.pod == "b");
  CHECK(t.gpus[0].id.uuid == t.gpus[1].id.uuid);
}

TEST_CASE("dcgm: NaN, infinite, blank and impossible values are skipped and counted", "[dcgm]") {
  const Telemetry t = parse(
      line("DCGM_FI_DEV_POWER_USAGE", "NaN") + line("DCGM_FI_DEV_GPU_UTIL", "140") +
      line("DCGM_FI_DEV_GPU_TEMP", "9223372036854775794") + line("DCGM_FI_DEV_SM_CLOCK", "+Inf") +
      line("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "4.5") + line("DCGM_FI_DEV_FB_USED", "-3") +
      line("DCGM_FI_DEV_MEM_COPY_UTIL", "12") + line("DCGM_FI_DEV_POWER_USAGE", "nan") +
      line("DCGM_FI_DEV_GPU_UTIL", "2147483634") + line("DCGM_FI_DEV_POWER_USAGE", "80.5"));
  CHECK(t.warnings ==
        std::vector<std::string>{
            "dcgm.txt:1: DCGM_FI_DEV_POWER_USAGE is NaN; 2 such samples skipped",
            "dcgm.txt:2: DCGM_FI_DEV_GPU_UTIL is 140, out of range (0 to 100); sample skipped",
            "dcgm.txt:3: DCGM_FI_DEV_GPU_TEMP is 9223372036854775794, a DCGM blank (no data, not "
            "supported or not permitted); sample skipped",
            "dcgm.txt:4: DCGM_FI_DEV_SM_CLOCK is +Inf; sample skipped",
            "dcgm.txt:5: DCGM_FI_DEV_CLOCKS_EVENT_REASONS is 4.5, not a clock-reason bit mask (an "
            "integer >= 0); sample skipped",
            "dcgm.txt:6: DCGM_FI_DEV_FB_USED is -3, out of range (0 to 1.07374e+09); sample "
            "skipped",
            "dcgm.txt:9: DCGM_FI_DEV_GPU_UTIL is 2147483634, a DCGM blank (no data, not "
            "supported or not permitted); sample skipped",
        });
  REQUIRE(t.gpus.size() == 1);
  CHECK(values(t, 0, Metric::memory_utilization) == std::vector<double>{0.12});
  CHECK(values(t, 0, Metric::power) == std::vector<double>{80.5});
  CHECK(t.samples == 2);
}

TEST_CASE("dcgm: a counter that decreases (a reset) is not an error", "[dcgm]") {
  const std::string type = "# TYPE DCGM_FI_PROF_PCIE_TX_BYTES counter\n";
  const Telemetry t = parse(type + line("DCGM_FI_PROF_PCIE_TX_BYTES", "5000") + type +
                            line("DCGM_FI_PROF_PCIE_TX_BYTES", "100") + type +
                            line("DCGM_FI_PROF_PCIE_TX_BYTES", "300"));
  CHECK(t.warnings.empty());
  // DCGM's PROF_*_BYTES fields are rates already: read as they are, whatever # TYPE says.
  CHECK(values(t, 0, Metric::pcie_tx) == std::vector<double>{5000, 100, 300});
}

TEST_CASE("dcgm: memory_total needs FB_USED at the same time", "[dcgm]") {
  const Telemetry t =
      parse(line("DCGM_FI_DEV_FB_USED", "100") + line("DCGM_FI_DEV_FB_FREE", "900") +
            line("DCGM_FI_DEV_FB_FREE", "900") + line("DCGM_FI_DEV_FB_FREE", "900"));
  CHECK(values(t, 0, Metric::memory_total) == std::vector<double>{1000 * k_mib});
  CHECK(t.warnings == std::vector<std::string>{
                          "dcgm.txt: 2 DCGM_FI_DEV_FB_FREE samples without DCGM_FI_DEV_FB_USED at "
                          "the same time; memory_total not known there"});
}

TEST_CASE("dcgm: samples out of time order are sorted, with one warning", "[dcgm]") {
  const Telemetry t =
      parse(line("DCGM_FI_DEV_GPU_UTIL", "30 3000") + line("DCGM_FI_DEV_GPU_UTIL", "10 1000") +
            line("DCGM_FI_DEV_GPU_UTIL", "20 2000"));
  CHECK(times(t, 0, Metric::gpu_utilization) == std::vector<double>{1, 2, 3});
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.1, 0.2, 0.3});
  CHECK(t.warnings == std::vector<std::string>{
                          "dcgm.txt:2: time goes backwards for DCGM_FI_DEV_GPU_UTIL of n1/gpu0; 2 "
                          "samples out of time order, samples sorted by time"});
}

TEST_CASE("dcgm: lines that are not exposition format", "[dcgm]") {
  SECTION("some valid samples: the bad lines are skipped with one warning") {
    const Telemetry t = parse(
        line("DCGM_FI_DEV_GPU_UTIL", "10") + "garbage here\n" +
        line("DCGM_FI_DEV_GPU_UTIL", "abc") + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 5\n" +
        line("DCGM_FI_DEV_GPU_UTIL", "20 12.5") + line("DCGM_FI_DEV_GPU_UTIL", "20 1000 extra") +
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0}\n" + "{gpu=\"0\"} 1\n" + line("DCGM_FI_DEV_GPU_UTIL", "") +
        line("DCGM_FI_DEV_GPU_UTIL", "30"));
    CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.1, 0.3});
    CHECK(t.warnings ==
          std::vector<std::string>{"dcgm.txt:2: not a sample: the value is not a number, got "
                                   "\"here\"; 8 such lines skipped"});
  }
  SECTION("the reasons") {
    REQUIRE_THROWS_WITH(parse("hello world\n"),
                        "dcgm.txt:1: not Prometheus text exposition format: the value is not a "
                        "number, got \"world\"");
    REQUIRE_THROWS_WITH(parse("# comment\n9lives 1\n"),
                        "dcgm.txt:2: not Prometheus text exposition format: expected a metric "
                        "name, got \"9lives 1\"");
    REQUIRE_THROWS_WITH(parse("m{a=\"1\" 5\n"),
                        Catch::Contains("expected ',' or '}' after a label"));
    REQUIRE_THROWS_WITH(parse("m{a=1} 5\n"), Catch::Contains("expected a quoted label value"));
    REQUIRE_THROWS_WITH(parse("m{a} 5\n"), Catch::Contains("expected '=' after a label name"));
    REQUIRE_THROWS_WITH(parse("m{a=\"1} 5\n"), Catch::Contains("unterminated label value"));
    REQUIRE_THROWS_WITH(parse("m{=\"1\"} 5\n"), Catch::Contains("expected a label name or '}'"));
    REQUIRE_THROWS_WITH(parse("m 5 12.5\n"),
                        Catch::Contains("the timestamp is not a whole number of milliseconds, "
                                        "got \"12.5\""));
    REQUIRE_THROWS_WITH(parse("m 5 12 x\n"),
                        Catch::Contains("unexpected text after the timestamp"));
    REQUIRE_THROWS_WITH(parse("m\n"),
                        Catch::Contains("expected a space and a value after the series"));
    REQUIRE_THROWS_WITH(parse("m   \n"), Catch::Contains("expected a value after the series"));
  }
}

TEST_CASE("dcgm: input that is not dcgm-exporter text is refused in one line", "[dcgm]") {
  REQUIRE_THROWS_WITH(parse(""),
                      "dcgm.txt: file is empty, expected dcgm-exporter metrics "
                      "(Prometheus text exposition format)");
  REQUIRE_THROWS_WITH(parse("\n<html><body>Grafana</body></html>\n"),
                      "dcgm.txt:2: not Prometheus text exposition format: looks like HTML (a web "
                      "page rather than /metrics?)");
  REQUIRE_THROWS_WITH(parse("{\"status\":\"success\",\"data\":{}}"),
                      "dcgm.txt:1: not Prometheus text exposition format: looks like JSON (a "
                      "Prometheus API answer?)");
  REQUIRE_THROWS_WITH(parse(std::string("\x1f\x8b\x08\0", 4)),
                      "dcgm.txt: not Prometheus text exposition format: binary data");
  REQUIRE_THROWS_WITH(parse("# HELP node_load1 1m load average.\n# TYPE node_load1 gauge\n"
                            "node_load1 0.21\n"),
                      "dcgm.txt: no sample of a DCGM field observe reads (DCGM_FI_DEV_GPU_UTIL, "
                      "DCGM_FI_DEV_FB_USED, DCGM_FI_PROF_GR_ENGINE_ACTIVE, ...): is it "
                      "dcgm-exporter output?");
  REQUIRE_THROWS_WITH(parse("# only comments\n"),
                      Catch::StartsWith("dcgm.txt: no sample of a DCGM field"));
  REQUIRE_THROWS_WITH(
      parse(line("DCGM_FI_DEV_GPU_UTIL", "1"), -1),
      "dcgm.txt: the scrape interval must be a positive number of seconds (at most 1e9), got -1");
}

TEST_CASE("dcgm: CRLF, a BOM and leading spaces", "[dcgm]") {
  const Telemetry t =
      parse("\xEF\xBB\xBF# TYPE DCGM_FI_DEV_GPU_UTIL gauge\r\n  DCGM_FI_DEV_GPU_UTIL{" + k_gpu0 +
            "} 45\r\n\r\n# EOF\r\n");
  CHECK(t.warnings.empty());
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.45});
}
