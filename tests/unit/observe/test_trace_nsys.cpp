// Nsight Systems SQLite exports: the fixtures are SQL scripts (tests/data/observe/nsys-*.sql)
// that each test turns into a database in a scratch directory with SQLite's C API.

#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/telemetry.hpp>
#include <rightsize/observe/trace.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <string>
#include <sys/stat.h>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

constexpr double k_ns = 1e-9;
constexpr double k_gib = 1073741824.0;

std::string sql_fixture(const std::string& name) {
  const std::string path = std::string(RIGHTSIZE_TESTS_DIR) + "/data/observe/" + name;
  return read_input_file(path, k_max_telemetry_file_bytes, "fixture");
}

// The database of `fixture` (then `extra_sql`) at dir/name.
std::string build_database(const ScratchDir& dir,
                           const std::string& fixture,
                           const std::string& extra_sql = "",
                           const std::string& name = "report.sqlite") {
  std::string path = dir.path() + "/" + name;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) ==
          SQLITE_OK);
  char* error = nullptr;
  const std::string sql = sql_fixture(fixture) + extra_sql;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  INFO(message);
  REQUIRE(rc == SQLITE_OK);
  return path;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

double by_class(const TraceProfile& p, KernelClass k) {
  return p.busy_by_class_s[static_cast<std::size_t>(k)];
}

} // namespace

// nsys-train-ddp2.sql, figures in ns (the script's header has the timeline):
//   window 0-50000; busy 16500 (device 0) + 9400 (device 1) = 25900; idle 33500 + 40600;
//   input wait: NVTX "data loading" 0-1000 and "DataLoader.__next__" 22000-29000, idle on
//   both devices: 2 x 8000; by class: GEMM 5000 + 6000, attention 4000, collectives 4000
//   (vLLM's all-reduce under NCCL's) + 3000, copies and sets 2000 + 500 + 400, other 2000.
TEST_CASE("trace: an nsys export of two GPUs, checked by hand", "[trace]") {
  ScratchDir dir;
  const std::string path = build_database(dir, "nsys-train-ddp2.sql");
  const TraceProfile p = read_trace(path);
  CHECK(p.format == "nsys");
  CHECK(p.source == path);
  CHECK(p.device_name == "NVIDIA H100 80GB HBM3");
  REQUIRE(p.device_memory_bytes);
  CHECK(*p.device_memory_bytes == 85520809984.0);
  CHECK(p.devices == 2);
  CHECK(p.window_s == Approx(50000 * k_ns));
  CHECK(p.gpu_busy_s == Approx(25900 * k_ns));
  CHECK(p.gpu_idle_s == Approx(74100 * k_ns));
  CHECK(p.busy_fraction() == Approx(25900.0 / 100000.0));
  CHECK(p.input_wait_s == Approx(16000 * k_ns));
  CHECK(by_class(p, KernelClass::gemm) == Approx(11000 * k_ns));
  CHECK(by_class(p, KernelClass::attention) == Approx(4000 * k_ns));
  CHECK(by_class(p, KernelClass::communication) == Approx(7000 * k_ns));
  CHECK(by_class(p, KernelClass::memory_copy) == Approx(2900 * k_ns));
  CHECK(by_class(p, KernelClass::other) == Approx(2000 * k_ns));
  CHECK(p.kernels == 7);
  CHECK(p.host_to_device_bytes == 1048576.0);
  CHECK(p.host_to_device_s == Approx(2000 * k_ns));
  CHECK_FALSE(p.peak_memory_bytes);
  REQUIRE(p.peak_reserved_bytes);
  CHECK(*p.peak_reserved_bytes == 3 * k_gib); // device 0: 2 + 1 GiB before the free
  CHECK(p.warnings.empty());
  CHECK(read_nsys_sqlite(path).gpu_busy_s == p.gpu_busy_s);
}

TEST_CASE("trace: an nsys export is opened read-only and left as it was", "[trace]") {
  ScratchDir dir;
  const std::string path = build_database(dir, "nsys-train-ddp2.sql");
  const std::string before = file_bytes(path);
  REQUIRE(::chmod(path.c_str(), 0444) == 0);
  REQUIRE(::chmod(dir.path().c_str(), 0555) == 0); // no journal could be created next to it
  const TraceProfile p = read_trace(path);
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  CHECK(p.kernels == 7);
  CHECK(file_bytes(path) == before);
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("trace: optional nsys tables may be missing", "[trace]") {
  ScratchDir dir;
  const std::string path = build_database(
      dir,
      "nsys-train-ddp2.sql",
      "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY; DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
      "DROP TABLE NVTX_EVENTS; DROP TABLE TARGET_INFO_GPU; DROP TABLE StringIds;"
      "DROP TABLE CUDA_GPU_MEMORY_USAGE_EVENTS; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;");
  const TraceProfile p = read_trace(path);
  // kernels only: device 0 3000-15000 and 30000-32000, device 1 3000-9000 and 12000-15000;
  // the window is theirs, 3000-32000
  CHECK(p.window_s == Approx(29000 * k_ns));
  CHECK(p.gpu_busy_s == Approx((14000 + 9000) * k_ns));
  CHECK(p.input_wait_s == 0);
  CHECK(p.host_to_device_bytes == 0);
  CHECK(p.device_name.empty());
  CHECK_FALSE(p.peak_reserved_bytes);
  CHECK(by_class(p, KernelClass::other) == Approx(23000 * k_ns)); // no names without StringIds
}

TEST_CASE("trace: nsys rows without usable times are skipped with a warning", "[trace]") {
  ScratchDir dir;
  const std::string path = build_database(
      dir,
      "nsys-train-ddp2.sql",
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
      "demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
      "staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId) "
      "VALUES (9000, 8000, 0, 1, 7, 10, 10, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 9),"
      "('soon', 8000, 0, 1, 7, 10, 10, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 9),"
      "(0, 100000000000000, 0, 1, 7, 10, 10, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 9);");
  const TraceProfile p = read_trace(path);
  CHECK(p.kernels == 7);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == path + ": table CUPTI_ACTIVITY_KIND_KERNEL: 3 rows without a usable "
                                "start, end or deviceId (not a number, end before start, or "
                                "longer than a day) skipped");
}

TEST_CASE("trace: kernel names stored as text are read too", "[trace]") {
  ScratchDir dir;
  const std::string path = build_database(
      dir,
      "nsys-nvtx-only.sql",
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, "
      "shortName TEXT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000000, 3000000, 0, "
      "'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)');");
  const TraceProfile p = read_trace(path);
  CHECK(by_class(p, KernelClass::communication) == Approx(1000000 * k_ns));
  // NVTX "data loading" 0-1000000 while the GPU idles
  CHECK(p.input_wait_s == Approx(1000000 * k_ns));
  CHECK(p.window_s == Approx(3000000 * k_ns));
}

TEST_CASE("trace: device memory freed before the capture leaves the peak unknown", "[trace]") {
  ScratchDir dir;
  const std::string path = build_database(
      dir,
      "nsys-train-ddp2.sql",
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, "
      "pc, bytes, memKind, memoryOperationType) VALUES (50, 1, 0, 1, 1, 0, 4096, 2, 1);");
  const TraceProfile p = read_trace(path);
  CHECK_FALSE(p.peak_reserved_bytes);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == path + ": table CUDA_GPU_MEMORY_USAGE_EVENTS: device memory is freed "
                                "that was allocated before the capture started; its peak is "
                                "unknown");
}

TEST_CASE("trace: an nsys export without CUDA activity is an error", "[trace]") {
  ScratchDir dir;
  SECTION("no activity tables: nsys ran without --trace=cuda") {
    const std::string path = build_database(dir, "nsys-nvtx-only.sql");
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": no GPU activity tables (CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, "
                               "_MEMSET): not an nsys export with CUDA trace (nsys profile "
                               "--trace=cuda)");
  }
  SECTION("empty activity tables") {
    const std::string path = build_database(
        dir,
        "nsys-train-ddp2.sql",
        "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY;"
        "DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET;");
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": no GPU activity (the CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and "
                               "_MEMSET tables have no usable rows): was nsys run with "
                               "--trace=cuda?");
  }
  SECTION("a kernel table without its times") {
    const std::string path = build_database(
        dir,
        "nsys-nvtx-only.sql",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, deviceId INTEGER);");
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": table CUPTI_ACTIVITY_KIND_KERNEL: column \"start\" is missing");
  }
}

TEST_CASE("trace: corrupt and truncated SQLite files are one-line errors", "[trace]") {
  ScratchDir dir;
  const std::string good = file_bytes(build_database(dir, "nsys-train-ddp2.sql"));
  REQUIRE(good.size() > 8192);
  const auto check_refused = [&](const std::string& name, const std::string& bytes) {
    const std::string path = dir.path() + "/" + name;
    write_bytes(path, bytes);
    INFO(name);
    try {
      (void)read_trace(path);
      FAIL("read a damaged database");
    } catch (const InputError& e) {
      CHECK(e.where().rfind(path, 0) == 0);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  };
  SECTION("truncated to its first pages") {
    check_refused("half.sqlite", good.substr(0, good.size() / 2));
    check_refused("header.sqlite", good.substr(0, 100));
    check_refused("magic.sqlite", good.substr(0, 16));
  }
  SECTION("pages overwritten with garbage") {
    std::string bad = good;
    for (std::size_t i = 100; i < bad.size(); i += 7) {
      bad[i] = static_cast<char>(i * 31);
    }
    check_refused("garbage.sqlite", bad);
  }
  SECTION("the schema page zeroed") {
    std::string bad = good;
    std::fill(bad.begin() + 100, bad.begin() + 4096, '\0');
    check_refused("schema.sqlite", bad);
  }
  SECTION("a damaged schema, whose SQLite message quotes SQL over several lines") {
    std::string bad = good;
    const auto table = bad.find("CREATE TABLE TARGET_INFO_GPU");
    REQUIRE(table != std::string::npos);
    const auto column = bad.find("NOT NULL", table);
    bad.replace(column, 8, "NOT ))))");
    check_refused("schema-sql.sqlite", bad);
  }
  SECTION("a text file named .sqlite is neither format") {
    const std::string path = dir.write("notes.sqlite", "kernel times, see attached\n");
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": not a trace: neither JSON (torch.profiler's Chrome trace) nor "
                               "an SQLite database (nsys export --type sqlite)");
    REQUIRE_THROWS_WITH(read_nsys_sqlite(path),
                        path + ": not an SQLite database (an Nsight Systems export is made with "
                               "\"nsys export --type sqlite\")");
  }
  SECTION("a missing file") {
    REQUIRE_THROWS_WITH(read_nsys_sqlite(dir.path() + "/none.sqlite"),
                        dir.path() + "/none.sqlite: cannot read file: no such file or directory");
  }
}

TEST_CASE("trace: odd characters in the path of an nsys export", "[trace]") {
  ScratchDir dir;
  const std::string path =
      build_database(dir, "nsys-train-ddp2.sql", "", "run #3 ?immutable=0&x%20 ü.sqlite");
  CHECK(read_trace(path).kernels == 7);
}
