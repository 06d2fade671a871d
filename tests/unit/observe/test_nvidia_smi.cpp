#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

using namespace rightsize;

namespace {

std::string fixture(const char* name) {
  const std::string path = std::string(RIGHTSIZE_TESTS_DIR) + "/data/observe/" + name;
  return read_input_file(path, k_max_telemetry_file_bytes, "telemetry");
}

// The note a log without a timestamp column gets ("gpu.csv: no timestamp column: ...") is
// checked once, in its own test; the other tests look at the warnings beside it.
Telemetry without_timestamp_note(Telemetry t) {
  t.warnings.erase(std::remove_if(t.warnings.begin(),
                                  t.warnings.end(),
                                  [](const std::string& w) {
                                    return w.find(": no timestamp column: ") != std::string::npos;
                                  }),
                   t.warnings.end());
  return t;
}

Telemetry parse(const std::string& text, double interval_s = 1.0) {
  return without_timestamp_note(parse_nvidia_smi_csv(text, "gpu.csv", "node1", interval_s));
}

const std::vector<double>& values(const Telemetry& t, std::size_t gpu, Metric m) {
  return t.gpus.at(gpu)[m].value;
}

const std::vector<double>& times(const Telemetry& t, std::size_t gpu, Metric m) {
  return t.gpus.at(gpu)[m].time_s;
}

// 2024-05-21 14:03:07 UTC: 19,864 days after the epoch (python3: calendar.timegm).
constexpr double k_t0 = 1716300187.0;
constexpr double k_mib = 1048576.0;

} // namespace

TEST_CASE("nvidia_smi: an 8-GPU H100 node logged with units", "[nvidia_smi]") {
  const Telemetry t = parse_nvidia_smi_csv(
      fixture("nvidia-smi-h100-8gpu.csv"), "nvidia-smi-h100-8gpu.csv", "dgx-07");
  CHECK(t.warnings.empty());
  REQUIRE(t.gpus.size() == 8);
  // 8 GPUs x 3 samples x 10 metrics.
  CHECK(t.samples == 240);
  const GpuIdentity& id = t.gpus[3].id;
  CHECK(id.host == "dgx-07");
  CHECK(id.index == "3");
  CHECK(id.uuid == "GPU-f19a0d34-2e6f-4a0b-c3d2-4d5e6f708192");
  CHECK(id.model_name == "NVIDIA H100 80GB HBM3");
  CHECK(id.source == "nvidia-smi-h100-8gpu.csv");
  CHECK(id.label() == "dgx-07/gpu3");

  // "2024/05/21 14:03:07.123", then 5.002 s later each.
  const auto& ts = times(t, 0, Metric::gpu_utilization);
  REQUIRE(ts.size() == 3);
  CHECK(ts[0] == Approx(k_t0 + 0.123).margin(1e-6));
  CHECK(ts[1] == Approx(k_t0 + 5.125).margin(1e-6));
  CHECK(ts[2] == Approx(k_t0 + 10.127).margin(1e-6));

  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{1.0, 0.99, 1.0});
  CHECK(values(t, 0, Metric::memory_utilization) == std::vector<double>{0.45, 0.47, 0.46});
  // 78212 MiB and 81559 MiB.
  CHECK(values(t, 0, Metric::memory_used)[0] == 82011226112.0);
  CHECK(values(t, 0, Metric::memory_total)[0] == 85520809984.0);
  CHECK(values(t, 0, Metric::power) == std::vector<double>{689.41, 695.02, 699.87});
  CHECK(values(t, 0, Metric::power_limit)[0] == 700.0);
  CHECK(values(t, 0, Metric::sm_clock) == std::vector<double>{1.98e9, 1.98e9, 1.755e9});
  CHECK(values(t, 0, Metric::sm_clock_max)[0] == 1.98e9);
  CHECK(values(t, 0, Metric::temperature) == std::vector<double>{68, 69, 71});
  // 0x0 -> 0; 0x4 (software power cap) -> 1; 0x24 (power cap + software thermal) -> 1; 0x1
  // (idle) -> 0.
  CHECK(values(t, 0, Metric::throttled) == std::vector<double>{0, 0, 1});
  CHECK(values(t, 3, Metric::throttled) == std::vector<double>{1, 1, 1});
  CHECK(values(t, 6, Metric::throttled) == std::vector<double>{0, 0, 0});
  CHECK(values(t, 6, Metric::memory_used) == std::vector<double>{0, 0, 0});
}

TEST_CASE("nvidia_smi: a nounits log without timestamps is timed by the interval", "[nvidia_smi]") {
  const Telemetry t = without_timestamp_note(
      parse_nvidia_smi_csv(fixture("nvidia-smi-a100-nounits.csv"), "a100.csv", "a100", 5.0));
  REQUIRE(t.gpus.size() == 2);
  CHECK(t.gpus[1].id.uuid == "GPU-55274b56-9033-f166-7723-77088b0ff94d");
  CHECK(times(t, 0, Metric::gpu_utilization) == std::vector<double>{0, 5, 10, 15});
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.44, 0.52, 0.61, 0.38});
  // 30994 MiB used of 40960 MiB.
  CHECK(values(t, 0, Metric::memory_used)[0] == 30994 * k_mib);
  CHECK(values(t, 0, Metric::memory_total)[0] == 40960 * k_mib);
  CHECK(values(t, 0, Metric::sm_clock)[0] == 1.41e9);
  CHECK(values(t, 0, Metric::throttled) == std::vector<double>{0, 0, 1, 0});
  // GPU 1's power.draw is "[N/A]" in every sample: no power series, one counted warning.
  CHECK(t.gpus[1][Metric::power].empty());
  CHECK(values(t, 1, Metric::throttled) == std::vector<double>{0, 0, 0, 0});
  CHECK(t.warnings ==
        std::vector<std::string>{"a100.csv:3: power.draw: \"[N/A]\" (not available); 4 such "
                                 "values skipped"});
  // 2 GPUs x 4 samples x 8 metrics, less 4 power values.
  CHECK(t.samples == 60);
}

TEST_CASE("nvidia_smi: hand-checked conversions to SI units", "[nvidia_smi]") {
  const Telemetry t = parse("timestamp, index, utilization.gpu [%], memory.used [MiB], "
                            "power.draw [W], clocks.sm [MHz], clocks_event_reasons.active\n"
                            "2024/05/21 14:03:07.123, 0, 45 %, 1234 MiB, 70.12 W, 1410 MHz, "
                            "0x0000000000000004\n"
                            "2024/05/21 14:03:08.000, 0, 7 %, 1 MiB, 69.5 W, 345 MHz, "
                            "0x0000000000000001\n");
  REQUIRE(t.gpus.size() == 1);
  CHECK(t.warnings.empty());
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.45, 0.07});
  CHECK(values(t, 0, Metric::memory_used) == std::vector<double>{1293942784.0, 1048576.0});
  CHECK(values(t, 0, Metric::power) == std::vector<double>{70.12, 69.5});
  CHECK(values(t, 0, Metric::sm_clock) == std::vector<double>{1410e6, 345e6});
  CHECK(values(t, 0, Metric::throttled) == std::vector<double>{1, 0});
  CHECK(times(t, 0, Metric::power)[0] == Approx(1716300187.123).margin(1e-6));
  CHECK(times(t, 0, Metric::power)[1] == 1716300188.0);
  CHECK(t.gpus[0].id.label() == "node1/gpu0");
  CHECK(t.samples == 10);
}

TEST_CASE("nvidia_smi: timestamps are read as UTC, whatever the separators", "[nvidia_smi]") {
  for (const char* stamp : {"2000/02/29 00:00:00", "2000-02-29 00:00:00", "2000-02-29T00:00:00"}) {
    const Telemetry t = parse(std::string("timestamp, utilization.gpu\n") + stamp + ", 10\n");
    // 2000-02-29 is day 11,016 of the epoch.
    CHECK(times(t, 0, Metric::gpu_utilization)[0] == 11016.0 * 86400);
  }
  const Telemetry t = parse("timestamp, utilization.gpu\n2023/02/29 00:00:00, 10\n"
                            "2023/12/31 23:59:59.5, 20\n");
  CHECK(times(t, 0, Metric::gpu_utilization) == std::vector<double>{1704067199.5});
  CHECK(t.warnings == std::vector<std::string>{"gpu.csv:2: timestamp \"2023/02/29 00:00:00\" is "
                                               "not YYYY/MM/DD HH:MM:SS[.mmm]; row skipped"});
}

TEST_CASE("nvidia_smi: headers and values with or without units", "[nvidia_smi]") {
  const std::array<const char*, 3> variants = {
      // nounits: the header keeps its units, values have none
      "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n0, 45, 1234, 70.12\n",
      // a header without units (written by hand or by a script)
      "index,utilization.gpu,memory.used,power.draw\n0,45,1234,70.12\n",
      // units in the values only, no spaces, upper-case names
      "INDEX,Utilization.GPU,Memory.Used,Power.Draw\n0,45 %,1234 MiB,70.12 W\n",
  };
  for (const char* text : variants) {
    const Telemetry t = parse(text);
    REQUIRE(t.gpus.size() == 1);
    CHECK(t.warnings.empty());
    CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.45});
    CHECK(values(t, 0, Metric::memory_used) == std::vector<double>{1293942784.0});
    CHECK(values(t, 0, Metric::power) == std::vector<double>{70.12});
  }
}

TEST_CASE("nvidia_smi: column aliases, and one column per metric", "[nvidia_smi]") {
  const Telemetry t = parse("gpu_uuid, gpu_name, power.draw.average [W], power.draw [W], "
                            "clocks.current.sm [MHz], clocks_throttle_reasons.active, "
                            "enforced.power.limit [W], utilization.gpu [%], utilization.gpu [%]\n"
                            "GPU-1, NVIDIA L4, 60.00 W, 65.50 W, 2040 MHz, 0x0000000000000008, "
                            "72.00 W, 30 %, 31 %\n");
  REQUIRE(t.gpus.size() == 1);
  CHECK(t.gpus[0].id.uuid == "GPU-1");
  CHECK(t.gpus[0].id.model_name == "NVIDIA L4");
  // power.draw wins over power.draw.average; the second utilization.gpu is not read.
  CHECK(values(t, 0, Metric::power) == std::vector<double>{65.5});
  CHECK(values(t, 0, Metric::power_limit) == std::vector<double>{72.0});
  CHECK(values(t, 0, Metric::sm_clock) == std::vector<double>{2040e6});
  CHECK(values(t, 0, Metric::throttled) == std::vector<double>{1}); // 0x8: hardware slowdown
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.30});
  CHECK(t.warnings == std::vector<std::string>{
                          "gpu.csv:1: columns not read: power.draw.average, utilization.gpu"});
}

TEST_CASE("nvidia_smi: every bad case of a log is skipped with one counted warning",
          "[nvidia_smi]") {
  // BOM, CRLF line ends, unknown columns, [N/A] and [Not Supported], 140 %, memory.used above
  // memory.total, a truncated row, "abc", "nan %", a negative power, an error line of
  // nvidia-smi's, time going backwards, trailing blank lines.
  const Telemetry t = parse_nvidia_smi_csv(fixture("nvidia-smi-bad.csv"), "bad.csv", "node1");
  CHECK(t.warnings ==
        std::vector<std::string>{
            "bad.csv:1: columns not read: pstate, fan.speed",
            "bad.csv:3: power.draw: \"[N/A]\" (not available); 2 such values skipped",
            "bad.csv:4: utilization.gpu: \"140 %\" is out of range (0 to 100 %); value skipped",
            "bad.csv:5: memory.used \"90000 MiB\" above memory.total \"81559 MiB\"; value skipped",
            "bad.csv:6: 5 fields where the header has 9; 2 such rows skipped",
            "bad.csv:7: utilization.gpu: \"abc\" is not a number (in %); value skipped",
            "bad.csv:8: utilization.gpu: \"nan %\" is not a finite number; value skipped",
            "bad.csv:8: power.draw: \"-5.00 W\" is out of range (0 to 10000 W); value skipped",
            "bad.csv:10: time goes backwards for node1/gpu1 (\"2024/05/21 14:03:06.000\" after a "
            "later row); 1 row out of time order, samples sorted by time",
        });
  REQUIRE(t.gpus.size() == 2);
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.45, 0.50});
  CHECK(values(t, 0, Metric::power) == std::vector<double>{70.12, 71.0, 72.5});
  // GPU 1: the row of 14:03:06 sorted first, the memory.used of 90000 MiB dropped.
  CHECK(times(t, 1, Metric::gpu_utilization) ==
        std::vector<double>{k_t0 - 1, k_t0 + 0.123, k_t0 + 1.125});
  CHECK(values(t, 1, Metric::gpu_utilization) == std::vector<double>{0.05, 0.0, 0.03});
  CHECK(values(t, 1, Metric::memory_used) == std::vector<double>{2 * k_mib, 0, 2 * k_mib});
  CHECK(values(t, 1, Metric::memory_total).size() == 4);
  CHECK(t.samples == 25);
}

TEST_CASE("nvidia_smi: input that is not nvidia-smi CSV is refused in one line", "[nvidia_smi]") {
  REQUIRE_THROWS_WITH(parse(""),
                      "gpu.csv: file is empty, expected nvidia-smi --query-gpu=... "
                      "--format=csv output");
  REQUIRE_THROWS_WITH(parse("\xEF\xBB\xBF\r\n  \n"),
                      "gpu.csv: file is empty, expected nvidia-smi --query-gpu=... "
                      "--format=csv output");
  REQUIRE_THROWS_WITH(
      parse("2024/05/21 14:03:07.123, 0, 45 %, 1234 MiB\n"),
      "gpu.csv:1: no header line: the first line holds values (nvidia-smi --format=csv,noheader?) "
      "and without the header the columns are unknown; record with --format=csv or "
      "--format=csv,nounits");
  REQUIRE_THROWS_WITH(parse("0, GPU-1, NVIDIA H100 80GB HBM3, 45, 1234\n"),
                      Catch::StartsWith("gpu.csv:1: no header line:"));
  REQUIRE_THROWS_WITH(parse("\n<!DOCTYPE html>\n<html></html>\n"),
                      "gpu.csv:2: not nvidia-smi --format=csv output: looks like HTML");
  REQUIRE_THROWS_WITH(parse("{\"gpus\": []}\n"),
                      "gpu.csv:1: not nvidia-smi --format=csv output: looks like JSON");
  REQUIRE_THROWS_WITH(parse(std::string("PK\x03\x04\0\0", 6)),
                      "gpu.csv: not nvidia-smi --format=csv output: binary data");
  REQUIRE_THROWS_WITH(parse("Hello, world\nthis is prose\n"),
                      "gpu.csv:1: not nvidia-smi --format=csv output: no column observe reads "
                      "(utilization.gpu, memory.used, power.draw, ...) in \"Hello, world\"");
  REQUIRE_THROWS_WITH(parse("index, name, driver_version\n0, NVIDIA H100, 550.54.15\n"),
                      Catch::StartsWith("gpu.csv:1: not nvidia-smi --format=csv output: no "
                                        "column observe reads"));
  REQUIRE_THROWS_WITH(
      parse("utilization.gpu\n10\n", 0.0),
      "gpu.csv: the sample interval must be a positive number of seconds (at most 1e9), got 0");
}

TEST_CASE("nvidia_smi: GPUs are told apart by uuid, else bus id or index, else row position",
          "[nvidia_smi]") {
  SECTION("uuid, whatever the order of the rows") {
    const Telemetry t = parse("uuid, utilization.gpu\nGPU-a, 1\nGPU-b, 2\nGPU-b, 3\nGPU-a, 4\n"
                              "GPU-c, 5\n");
    REQUIRE(t.gpus.size() == 3);
    CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.01, 0.04});
    CHECK(values(t, 1, Metric::gpu_utilization) == std::vector<double>{0.02, 0.03});
    CHECK(times(t, 1, Metric::gpu_utilization) == std::vector<double>{0, 1});
    // Without an index column, a GPU known by its uuid has no index: labels show the uuid.
    CHECK(t.gpus[2].id.index.empty());
    CHECK(t.gpus[2].id.label() == "node1/gpuGPU-c");
  }
  SECTION("index") {
    const Telemetry t = parse("index, utilization.gpu\n0, 10\n1, 20\n0, 30\n1, 40\n");
    REQUIRE(t.gpus.size() == 2);
    CHECK(t.gpus[1].id.index == "1");
    CHECK(values(t, 1, Metric::gpu_utilization) == std::vector<double>{0.2, 0.4});
  }
  SECTION("name and position in a sample, sized by the timestamps") {
    const Telemetry t = parse(
        "timestamp, name, utilization.gpu\n"
        "2024/05/21 14:03:07.100, NVIDIA H100, 10\n2024/05/21 14:03:07.104, NVIDIA H100, 20\n"
        "2024/05/21 14:03:07.108, NVIDIA H100, 30\n2024/05/21 14:03:08.100, NVIDIA H100, 11\n"
        "2024/05/21 14:03:08.104, NVIDIA H100, 21\n2024/05/21 14:03:08.108, NVIDIA H100, 31\n");
    REQUIRE(t.gpus.size() == 3);
    CHECK(t.gpus[2].id.index == "2");
    CHECK(values(t, 2, Metric::gpu_utilization) == std::vector<double>{0.30, 0.31});
    CHECK(t.warnings == std::vector<std::string>{
                            "gpu.csv:1: no uuid, pci.bus_id or index column: GPUs told apart by "
                            "their row's position in each sample (3 GPUs per sample)"});
  }
  SECTION("name and position, sized by the first repeated name") {
    const Telemetry t = parse("name, utilization.gpu\nA100, 1\nL4, 2\nA100, 3\nL4, 4\n");
    REQUIRE(t.gpus.size() == 2);
    CHECK(t.gpus[1].id.model_name == "L4");
    CHECK(values(t, 1, Metric::gpu_utilization) == std::vector<double>{0.02, 0.04});
  }
}

TEST_CASE("nvidia_smi: time order: equal times kept, backwards sorted", "[nvidia_smi]") {
  const Telemetry t = parse("timestamp, index, utilization.gpu\n"
                            "2024/05/21 14:03:09.000, 0, 30\n"
                            "2024/05/21 14:03:09.000, 0, 31\n"
                            "2024/05/21 14:03:07.000, 0, 10\n"
                            "2024/05/21 14:03:08.000, 0, 20\n");
  CHECK(times(t, 0, Metric::gpu_utilization) ==
        std::vector<double>{k_t0, k_t0 + 1, k_t0 + 2, k_t0 + 2});
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.10, 0.20, 0.30, 0.31});
  CHECK(t.warnings == std::vector<std::string>{
                          "gpu.csv:4: time goes backwards for node1/gpu0 (\"2024/05/21 "
                          "14:03:07.000\" after a later row); 2 rows out of time order, samples "
                          "sorted by time"});
}

TEST_CASE("nvidia_smi: memory.total is used + free (+ reserved) when not queried", "[nvidia_smi]") {
  const Telemetry t = parse("index, memory.used [MiB], memory.free [MiB], memory.reserved [MiB]\n"
                            "0, 1000 MiB, 80000 MiB, 559 MiB\n0, 1000 MiB, [N/A], 559 MiB\n");
  CHECK(values(t, 0, Metric::memory_total) == std::vector<double>{81559 * k_mib});
  CHECK(values(t, 0, Metric::memory_used).size() == 2);
}

TEST_CASE("nvidia_smi: repeated headers, CRLF and blank lines", "[nvidia_smi]") {
  // `while true; do nvidia-smi --query-gpu=... --format=csv; sleep 5; done`: a header per sample.
  const Telemetry t = parse("\xEF\xBB\xBFindex, utilization.gpu [%]\r\n0, 10 %\r\n\r\n"
                            "index, utilization.gpu [%]\r\n0, 20 %\r\n\r\n\r\n");
  CHECK(t.warnings.empty());
  CHECK(values(t, 0, Metric::gpu_utilization) == std::vector<double>{0.1, 0.2});
  const Telemetry header_only = parse("index, utilization.gpu [%]\n");
  CHECK(header_only.gpus.empty());
  CHECK(header_only.warnings ==
        std::vector<std::string>{"gpu.csv:1: no data row after the header"});
}

TEST_CASE("nvidia_smi: a log without timestamps says which interval it assumed", "[nvidia_smi]") {
  const Telemetry t = parse_nvidia_smi_csv(
      "index, utilization.gpu [%]\n0, 10 %\n0, 20 %\n", "gpu.csv", "node1", 60);
  CHECK(t.warnings ==
        std::vector<std::string>{"gpu.csv: no timestamp column: a GPU's rows are "
                                 "taken as 60 s apart (--interval; nvidia-smi's -l N)"});
  CHECK(times(t, 0, Metric::gpu_utilization) == std::vector<double>{0, 60});
}
