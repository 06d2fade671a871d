// The torch.profiler reader on malformed and unusual input: every refusal is one InputError
// naming the file and the line:column or JSON pointer; unusable events are skipped with one
// counted warning.

#include <rightsize/core/error.hpp>
#include <rightsize/observe/trace.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <string>

using namespace rightsize;

namespace {

constexpr double k_us = 1e-6;

// One GPU kernel of `dur` us at `ts` on device 0, in Kineto's shape.
std::string kernel(double ts, double dur, const std::string& name = "volta_sgemm_128x32_nt") {
  return fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, )"
                     R"("ts": {}, "dur": {}, "args": {{"device": 0, "stream": 7}}}})",
                     name,
                     ts,
                     dur);
}

std::string trace(const std::string& events) {
  return R"({"schemaVersion": 1, "traceEvents": [)" + events + "]}";
}

TraceProfile parse(const std::string& text) {
  return parse_torch_trace(text, "t.json");
}

} // namespace

TEST_CASE("trace: JSON that is not a trace is refused", "[trace]") {
  CHECK_THROWS_WITH(parse(""), "t.json: file is empty, expected a JSON trace");
  CHECK_THROWS_WITH(parse(" \n\t"), "t.json: file is empty, expected a JSON trace");
  CHECK_THROWS_WITH(parse(R"({"schemaVersion": 1, "deviceProperties": []})"),
                    "t.json: not a trace: no \"traceEvents\" array (expected torch.profiler's "
                    "Chrome trace, from export_chrome_trace)");
  CHECK_THROWS_WITH(parse("42"),
                    "t.json: not a trace: expected an object with \"traceEvents\" "
                    "or an array of events, got a number");
  CHECK_THROWS_WITH(parse(R"({"traceEvents": {}})"),
                    "t.json:/traceEvents: must be an array of trace events, got an object");
  CHECK_THROWS_WITH(parse(R"({"traceEvents": [1]})"),
                    "t.json:/traceEvents/0: must be an event object, got a number");
  CHECK_THROWS_WITH(parse(R"([{"ph": "X"}, "x"])"),
                    "t.json:/1: must be an event object, got a "
                    "string");
  CHECK_THROWS_WITH(parse(trace(kernel(1, 1)) + R"({"traceEvents": []})"),
                    Catch::Matchers::Contains("expected the end of the text after the JSON value"));
  CHECK_THROWS_WITH(parse(R"({"traceEvents": [], "traceEvents": []})"),
                    "t.json: duplicate key \"traceEvents\"");
  // an execution trace (torch.profiler.ExecutionTraceObserver) is another format
  CHECK_THROWS_WITH(parse(R"({"schema": "1.0.3-chakra.0.0.4", "pid": 1, "nodes": []})"),
                    Catch::Matchers::StartsWith("t.json: not a trace: no \"traceEvents\""));
}

TEST_CASE("trace: syntax errors name the line and column", "[trace]") {
  CHECK_THROWS_WITH(parse(R"({"traceEvents": [)"),
                    "t.json:1:18: invalid JSON: unexpected end of input; expected a value");
  CHECK_THROWS_WITH(parse("{\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1"),
                    "t.json:2:20: invalid JSON: unexpected end of input; expected ',' or '}'");
  CHECK_THROWS_WITH(parse(R"([{"ph": "X"},])"),
                    "t.json:1:14: invalid JSON: unexpected ']'; expected a value");
  CHECK_THROWS_WITH(parse(R"({"traceEvents": [],})"),
                    "t.json:1:20: invalid JSON: unexpected '}'; expected a string key");
  CHECK_THROWS_WITH(parse(R"([{"ts": 1e999}])"),
                    "t.json:1:9: invalid JSON: number out of range of a double: 1e999");
  CHECK_THROWS_WITH(parse(R"([{"ts": NaN}])"),
                    "t.json:1:9: invalid JSON: unexpected 'N'; expected a value");
  CHECK_THROWS_WITH(parse(R"([{"ts": 01}])"),
                    "t.json:1:10: invalid JSON: unexpected '1'; expected ',' or '}'");
  CHECK_THROWS_WITH(parse(R"([{"ts": -}])"),
                    "t.json:1:10: invalid JSON: unexpected '}'; expected a value");
  CHECK_THROWS_WITH(parse(R"([{"ts": 1.}])"),
                    "t.json:1:11: invalid JSON: unexpected '}'; expected a digit after '.'");
  CHECK_THROWS_WITH(parse(R"([{"name": "a\qb"}])"),
                    "t.json:1:13: invalid JSON: invalid escape in a string");
  CHECK_THROWS_WITH(parse(R"([{"name": "\ud800"}])"),
                    Catch::Matchers::Contains("a high surrogate without its low surrogate"));
  CHECK_THROWS_WITH(parse(R"([{"name": "\u12"}])"),
                    Catch::Matchers::Contains("four hex digits expected"));
  CHECK_THROWS_WITH(parse("[{\"name\": \"a\tb\"}]"),
                    "t.json:1:13: invalid JSON: control character in a string (escape it)");
  CHECK_THROWS_WITH(parse(R"([{"name": "abc)"), "t.json:1:11: invalid JSON: unterminated string");
  CHECK_THROWS_WITH(parse(std::string("[{\"ph\": \"X\"}\0]", 14)),
                    "t.json:1:13: invalid JSON: unexpected byte 0x00; expected ',' or ']'");
  CHECK_THROWS_WITH(parse("\x89PNG\r\n"),
                    "t.json:1:1: invalid JSON: unexpected byte 0x89; expected a value");
  CHECK_THROWS_WITH(parse(R"([{"a": tru}])"),
                    "t.json:1:8: invalid JSON: unexpected 't'; expected a value");
}

TEST_CASE("trace: nesting is limited", "[trace]") {
  const std::string deep = R"([{"args": )" + std::string(300, '[') + std::string(300, ']') + "}]";
  CHECK_THROWS_WITH(parse(deep), Catch::Matchers::Contains("nesting deeper than 256 levels"));
  // 200 levels inside an event's args are fine (and skipped)
  const std::string ok = "[" + kernel(1, 1) + R"(, {"ph": "i", "ts": 2, "args": {"x": )" +
                         std::string(200, '[') + std::string(200, ']') + "}}]";
  CHECK(parse(ok).kernels == 1);
}

TEST_CASE("trace: events without usable times are skipped with one counted warning", "[trace]") {
  const std::string events = kernel(100, 10) + "," + // kept
                             R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0})" + "," +
                             R"({"ph": "X", "cat": "kernel", "ts": -5, "dur": 1, "pid": 0})" + "," +
                             R"({"ph": "X", "cat": "kernel", "ts": "7", "dur": 1})" + "," +
                             R"({"ph": "X", "cat": "kernel", "ts": 9, "dur": -1})" + "," +
                             R"({"ph": "X", "cat": "kernel", "ts": 9, "pid": 0})" + "," +
                             R"({"ph": "X", "cat": "kernel", "ts": 9, "dur": 1e12})" + "," +
                             R"({"ph": "X", "cat": "cpu_op", "ts": 1e300, "dur": 1})" + "," +
                             R"({"ph": "i", "name": "[memory]"})" + "," +
                             R"({"ph": "M", "name": "process_name"})"; // metadata needs no time
  const TraceProfile p = parse(trace(events));
  CHECK(p.kernels == 1);
  CHECK(p.window_s == Approx(10 * k_us));
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == "t.json:/traceEvents/1: 8 events without a usable \"ts\" or \"dur\" "
                         "(missing, not a number, negative, or longer than a day) skipped; this "
                         "is the first");
}

TEST_CASE("trace: GPU events without a device are skipped with a warning", "[trace]") {
  const std::string events =
      kernel(0, 10) + "," +
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": "GPU", "ts": 5, "dur": 1})" + "," +
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0.5, "ts": 5, "dur": 1})";
  const TraceProfile p = parse(trace(events));
  CHECK(p.kernels == 1);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == "t.json:/traceEvents/1: 2 GPU events without a device (no numeric "
                         "args.device or pid) skipped; this is the first");
}

TEST_CASE("trace: args.device wins over pid, and each device is its own union", "[trace]") {
  const std::string events =
      kernel(0, 10) + "," +
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "ts": 0, "dur": 10, "args": {"device": 1}})" +
      "," + R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "ts": 5, "dur": 10})";
  const TraceProfile p = parse(trace(events));
  CHECK(p.devices == 2);
  CHECK(p.window_s == Approx(15 * k_us));
  CHECK(p.gpu_busy_s == Approx((10 + 15) * k_us)); // device 0: 0-10; device 1: 0-15
  CHECK(p.gpu_idle_s == Approx(5 * k_us));
  CHECK(p.busy_fraction() == Approx(25.0 / 30.0));
}

TEST_CASE("trace: nested and overlapping kernels count once", "[trace]") {
  // stream 7: 0-100; stream 13: 10-20 inside it and 90-150 across its end; a zero-length one
  const std::string events = kernel(0, 100) + "," + kernel(10, 10) + "," + kernel(90, 60) + "," +
                             kernel(150, 0) + "," + kernel(300, 0);
  const TraceProfile p = parse(trace(events));
  CHECK(p.kernels == 5);
  CHECK(p.gpu_busy_s == Approx(150 * k_us));
  CHECK(p.window_s == Approx(300 * k_us));
  CHECK(p.busy_by_class_s[static_cast<std::size_t>(KernelClass::gemm)] == Approx(150 * k_us));
}

TEST_CASE("trace: input wait is the host's data loading while the GPU is idle", "[trace]") {
  const auto host = [](const char* cat, const char* name, double ts, double dur) {
    return fmt::format(R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": 9, "tid": 9, "ts": {}, )"
                       R"("dur": {}}})",
                       cat,
                       name,
                       ts,
                       dur);
  };
  // loading 0-100 (GPU idle) and 150-250 (GPU busy from 200: 50 idle); a GPU-side annotation
  // named like a loader is not the host's
  const std::string events =
      kernel(200, 100) + "," +
      host("user_annotation",
           "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
           0,
           100) +
      "," + host("python_function", "torch/utils/data/dataloader.py(631): __next__", 150, 100) +
      "," + host("gpu_user_annotation", "DataLoader", 300, 100) + "," +
      host("cpu_op", "aten::mm", 310, 10);
  const TraceProfile p = parse(trace(events));
  CHECK(p.window_s == Approx(400 * k_us));
  CHECK(p.gpu_busy_s == Approx(100 * k_us));
  CHECK(p.gpu_idle_s == Approx(300 * k_us));
  CHECK(p.input_wait_s == Approx(150 * k_us));
}

TEST_CASE("trace: host-to-device copies by their Kineto name", "[trace]") {
  const auto copy = [](const char* name, double ts, double bytes) {
    return fmt::format(R"({{"ph": "X", "cat": "gpu_memcpy", "name": "{}", "pid": 0, "tid": 7, )"
                       R"("ts": {}, "dur": 10, "args": {{"device": 0, "bytes": {}}}}})",
                       name,
                       ts,
                       bytes);
  };
  const std::string events = copy("Memcpy HtoD (Pageable -> Device)", 0, 1000) + "," +
                             copy("Memcpy HtoD (Pinned -> Device)", 5, 24) + "," +
                             copy("Memcpy DtoH (Device -> Pageable)", 20, 7) + "," +
                             copy("Memcpy DtoD (Device -> Device)", 40, 9);
  const TraceProfile p = parse(trace(events));
  CHECK(p.host_to_device_bytes == 1024);
  CHECK(p.host_to_device_s == Approx(15 * k_us));
  CHECK(p.kernels == 0);
  CHECK(p.busy_by_class_s[static_cast<std::size_t>(KernelClass::memory_copy)] == Approx(35 * k_us));
}

TEST_CASE("trace: escaped kernel names are read and classified", "[trace]") {
  // the escapes spell "flash_fwd" and "volta_sgemm"; the first name comes back after the second
  // has reused the reader's buffer
  const std::string events =
      kernel(0, 10, R"(flash\u005ffwd\t)") + "," + kernel(20, 10, R"(volta\u005fsgemm)") + "," +
      kernel(40, 10, R"(flash\u005ffwd\t)") + "," + kernel(60, 10, R"(\ud83d\ude00 \"nccl\")");
  const TraceProfile p = parse(trace(events));
  const auto cls = [&](KernelClass k) { return p.busy_by_class_s[static_cast<std::size_t>(k)]; };
  CHECK(cls(KernelClass::attention) == Approx(20 * k_us));
  CHECK(cls(KernelClass::gemm) == Approx(10 * k_us));
  CHECK(cls(KernelClass::communication) == Approx(10 * k_us));
}

TEST_CASE("trace: deviceProperties of other shapes are ignored", "[trace]") {
  const std::string text = R"({"deviceProperties": [3, {"id": "0", "name": 7}, {"id": 0, )"
                           R"("name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": -1}], )"
                           R"("traceEvents": [)" +
                           kernel(0, 1) + "]}";
  const TraceProfile p = parse(text);
  CHECK(p.device_name == "NVIDIA H100 80GB HBM3");
  CHECK_FALSE(p.device_memory_bytes);
  CHECK(parse(R"({"deviceProperties": {"id": 0}, "traceEvents": [)" + kernel(0, 1) + "]}")
            .device_name.empty());
}

TEST_CASE("trace: a byte order mark and odd but valid JSON are accepted", "[trace]") {
  const std::string text =
      "\xEF\xBB\xBF" + std::string(R"( { "traceEvents" : [ { "ph" : "X" ,)") +
      R"( "cat" : "kernel" , "ts" : 1.5E+1 , "dur" : 0.5e1 , "pid" : -0 ,)" +
      R"( "args" : { "device" : 0.0 } , "x" : [ null , true , false , {} ] } ] } )";
  const TraceProfile p = parse(text);
  CHECK(p.gpu_busy_s == Approx(5 * k_us));
}

// Speed: a generated trace of a million events in Kineto's shape (half kernels on two streams,
// half host events, 300 distinct kernel names). Hidden; run with
//   build/tests/rightsize_tests "[perf]"
TEST_CASE("perf: a torch.profiler trace of a million events", "[.perf]") {
  std::string text =
      R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": )"
      R"("NVIDIA H100 80GB HBM3", "totalGlobalMem": 85520809984}], "traceEvents": [)";
  text.reserve(std::size_t{400} * 1000 * 1000);
  constexpr int k_events = 1000000;
  for (int i = 0; i < k_events; ++i) {
    const double ts = 1000.0 + i * 2.5;
    if (i > 0) {
      text += ",\n";
    }
    if (i % 2 == 0) {
      text += fmt::format(
          R"j({{"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass_80_tensorop_)j"
          R"j(s1688gemm_{}x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_)j"
          R"j(align4::Params)", "pid": 0, "tid": {}, "ts": {:.3f}, "dur": 2.125, "args": )j"
          R"j({{"External id": {}, "queued": 0, "device": 0, "context": 1, "stream": {}, )j"
          R"j("correlation": {}, "registers per thread": 90, "shared memory": 49152, "blocks )j"
          R"j(per SM": 0.5925926, "warps per SM": 2.3703704, "grid": [64, 1, 1], "block": )j"
          R"j([128, 1, 1], "est. achieved occupancy %": 4}}}})j",
          i % 300,
          7 + i % 4 / 2 * 6,
          ts,
          i,
          7 + i % 4 / 2 * 6,
          i);
    } else {
      text += fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 3113936, )"
                          R"("tid": 3113936, "ts": {:.3f}, "dur": 1.5, "args": {{"External id": )"
                          R"({}, "Record function id": 0, "Ev Idx": {}}}}})",
                          ts,
                          i,
                          i);
    }
  }
  text += "]}";
  const auto start = std::chrono::steady_clock::now();
  const TraceProfile p = parse_torch_trace(text, "million.json");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(fmt::format("{} events, {:.0f} MB: read in {:.3f} s ({:.0f} MB/s)",
                   k_events,
                   static_cast<double>(text.size()) / 1e6,
                   seconds,
                   static_cast<double>(text.size()) / 1e6 / seconds));
  CHECK(p.kernels == k_events / 2);
  CHECK(seconds < 3.0);
}
