// Nsight Systems' SQLite export (nsys export --type sqlite): the CUPTI activity tables, NVTX
// ranges for input loading, the GPU's name and memory, and device allocations. The schema is
// NVIDIA's "SQLite Schema Reference" (Nsight Systems user guide); tables are created lazily, so
// any of them may be missing, and columns are looked up by name. docs/observe.md, "Traces".

#include "intervals.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/observe/telemetry.hpp>
#include <rightsize/observe/trace.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sqlite3.h>
#include <string>
#include <sys/stat.h>
#include <unordered_map>
#include <vector>

namespace rightsize {

namespace {

// nsys timestamps are nanoseconds since the start of the capture.
constexpr double k_seconds_per_ns = microseconds(1).si() / units::k_kilo;
constexpr double k_max_event_ns = detail::k_max_event_seconds / k_seconds_per_ns;

constexpr std::string_view k_kernel_table = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr std::string_view k_memcpy_table = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr std::string_view k_memset_table = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr std::string_view k_runtime_table = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr std::string_view k_nvtx_table = "NVTX_EVENTS";
constexpr std::string_view k_strings_table = "StringIds";
constexpr std::string_view k_gpu_table = "TARGET_INFO_GPU";
constexpr std::string_view k_memory_table = "CUDA_GPU_MEMORY_USAGE_EVENTS";

// ENUM_CUDA_MEMCPY_OPER: CUDA_MEMCPY_KIND_HTOD and CUDA_MEMCPY_KIND_UVM_HTOD (CUPTI's
// CUpti_ActivityMemcpyKind, plus nsys' unified-memory migrations).
constexpr std::int64_t k_copy_host_to_device = 1;
constexpr std::int64_t k_copy_unified_host_to_device = 11;
// ENUM_CUDA_MEM_KIND: CUDA_MEMOPR_MEMORY_KIND_DEVICE; ENUM_CUDA_DEV_MEM_EVENT_OPER.
constexpr std::int64_t k_memory_kind_device = 2;
constexpr std::int64_t k_memory_allocation = 0;
constexpr std::int64_t k_memory_deallocation = 1;

// "file:" URI of a path, for SQLite's immutable=1 parameter: what is not unreserved is escaped.
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += c;
    } else {
      uri += fmt::format("%{:02X}", u);
    }
  }
  return uri + "?immutable=1";
}

// SQLite's message on one line: a damaged schema's message quotes its SQL, newlines and all.
std::string one_line(const char* message) {
  std::string out;
  for (const char* c = message; *c != '\0'; ++c) {
    const bool blank = *c == ' ' || *c == '\n' || *c == '\r' || *c == '\t';
    if (!blank) {
      out += *c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  constexpr std::size_t k_max_chars = 160;
  if (out.size() > k_max_chars) {
    out = out.substr(0, k_max_chars) + "...";
  }
  return detail::valid_utf8(out);
}

// The file must be a regular file that starts with SQLite's header; read_input_file's checks
// word what is not a regular file.
void check_sqlite_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    read_input_file(path, k_max_telemetry_file_bytes, "trace");
  }
  std::ifstream in(path, std::ios::binary);
  std::string head(16, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (!in || head != std::string_view("SQLite format 3\0", 16)) {
    throw InputError(path,
                     "not an SQLite database (an Nsight Systems export is made with "
                     "\"nsys export --type sqlite\")");
  }
}

class Statement;

// A read-only connection that never writes or creates a file: the database is opened as
// immutable, so SQLite takes no locks and makes no journal.
class Database {
public:
  explicit Database(const std::string& path) : m_path(path) {
    const int rc = sqlite3_open_v2(
        file_uri(path).c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = one_line(m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc));
      sqlite3_close(m_db);
      throw InputError(path, "cannot open the SQLite database: " + msg);
    }
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() { sqlite3_close(m_db); }

  [[noreturn]] void fail(const std::string& where) const {
    throw InputError(where,
                     "cannot read the SQLite database: " + one_line(sqlite3_errmsg(m_db)) +
                         " (a corrupt or truncated export?)");
  }

  [[nodiscard]] sqlite3* get() const { return m_db; }
  [[nodiscard]] const std::string& path() const { return m_path; }

private:
  sqlite3* m_db = nullptr;
  std::string m_path;
};

class Statement {
public:
  Statement(const Database& db, const std::string& sql, std::string where)
      : m_db(db), m_where(std::move(where)) {
    if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK) {
      db.fail(m_where);
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(m_stmt); }

  // The next row: false after the last.
  bool step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) {
      return true;
    }
    if (rc != SQLITE_DONE) {
      m_db.fail(m_where);
    }
    return false;
  }
  void reset_with(std::int64_t value) {
    sqlite3_reset(m_stmt);
    sqlite3_bind_int64(m_stmt, 1, value);
  }

  [[nodiscard]] bool is_number(int column) const {
    const int type = sqlite3_column_type(m_stmt, column);
    return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
  }
  [[nodiscard]] bool is_text(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_TEXT;
  }
  [[nodiscard]] double number(int column) const { return sqlite3_column_double(m_stmt, column); }
  [[nodiscard]] std::int64_t integer(int column) const {
    return sqlite3_column_int64(m_stmt, column);
  }
  [[nodiscard]] std::optional<std::int64_t> optional_integer(int column) const {
    if (sqlite3_column_type(m_stmt, column) != SQLITE_INTEGER) {
      return std::nullopt;
    }
    return sqlite3_column_int64(m_stmt, column);
  }
  [[nodiscard]] std::string text(int column) const {
    const auto* p = sqlite3_column_text(m_stmt, column);
    const int n = sqlite3_column_bytes(m_stmt, column);
    return p == nullptr
               ? std::string()
               : std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
  }

private:
  const Database& m_db;
  std::string m_where;
  sqlite3_stmt* m_stmt = nullptr;
};

// Rows skipped in one table: how many.
struct SkippedRows {
  std::string table;
  std::size_t count = 0;
};

class NsysReader {
public:
  explicit NsysReader(const std::string& path) : m_db(path), m_path(path) {}

  TraceProfile read() {
    find_tables();
    if (!has(k_kernel_table) && !has(k_memcpy_table) && !has(k_memset_table)) {
      throw InputError(m_path,
                       "no GPU activity tables (CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, "
                       "_MEMSET): not an nsys export with CUDA trace (nsys profile "
                       "--trace=cuda)");
    }
    read_device_table(k_kernel_table);
    read_device_table(k_memcpy_table);
    read_device_table(k_memset_table);
    if (m_activity.device_spans.empty()) {
      throw InputError(m_path,
                       "no GPU activity (the CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and "
                       "_MEMSET tables have no usable rows): was nsys run with "
                       "--trace=cuda?");
    }
    read_host_window(k_runtime_table, "\"end\"");
    read_host_window(k_nvtx_table, R"(CASE WHEN "end" >= start THEN "end" ELSE start END)");
    read_input_ranges();

    TraceProfile p;
    p.source = m_path;
    p.format = "nsys";
    detail::summarize_activity(m_activity, k_seconds_per_ns, p);
    describe_device(p);
    p.peak_reserved_bytes = peak_device_allocations();
    add_warnings(p);
    return p;
  }

private:
  [[nodiscard]] std::string table_where(std::string_view table) const {
    return fmt::format("{}: table {}", m_path, table);
  }
  [[nodiscard]] bool has(std::string_view table) const {
    return m_tables.count(std::string(table)) > 0;
  }

  void find_tables() {
    Statement q(m_db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", m_path);
    while (q.step()) {
      m_tables.insert(q.text(0));
    }
  }

  std::set<std::string> columns(std::string_view table) {
    Statement q(m_db, fmt::format("PRAGMA table_info(\"{}\")", table), table_where(table));
    std::set<std::string> out;
    while (q.step()) {
      out.insert(q.text(1));
    }
    return out;
  }

  std::string require_columns(std::string_view table,
                              const std::set<std::string>& have,
                              std::initializer_list<const char*> needed) {
    std::string list;
    for (const char* c : needed) {
      if (have.count(c) == 0) {
        throw InputError(table_where(table), fmt::format("column \"{}\" is missing", c));
      }
      list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", c);
    }
    return list;
  }

  // A column's value or a constant, for a SELECT list.
  static std::string
  column_or(const std::set<std::string>& have, const char* column, const char* otherwise) {
    return have.count(column) > 0 ? fmt::format("\"{}\"", column) : otherwise;
  }

  // CUPTI_ACTIVITY_KIND_{KERNEL,MEMCPY,MEMSET}: one device span per row.
  void read_device_table(std::string_view table) {
    if (!has(table)) {
      return;
    }
    const bool kernels = table == k_kernel_table;
    const bool copies = table == k_memcpy_table;
    const auto have = columns(table);
    std::string sql = "SELECT " + require_columns(table, have, {"start", "end"}) + ", " +
                      column_or(have, "deviceId", "0");
    if (kernels) {
      // demangledName has the template arguments (cuBLAS' cublasSplitKParams, CUTLASS types);
      // shortName is "Kernel" for every CUTLASS kernel.
      std::string name = "NULL";
      for (const char* c : {"demangledName", "shortName", "mangledName", "name"}) {
        if (have.count(c) > 0) {
          name = fmt::format("\"{}\"", c);
          break;
        }
      }
      sql += ", " + name;
    } else if (copies) {
      sql += ", " + column_or(have, "copyKind", "NULL") + ", " + column_or(have, "bytes", "NULL");
    }
    Statement q(m_db, sql + fmt::format(" FROM \"{}\"", table), table_where(table));
    SkippedRows skipped{std::string(table)};
    while (q.step()) {
      if (!q.is_number(0) || !q.is_number(1) || !q.is_number(2)) {
        ++skipped.count;
        continue;
      }
      const double start = q.number(0);
      const double end = q.number(1);
      const double device = q.number(2);
      if (!(end >= start && end - start <= k_max_event_ns && std::abs(device) < 2147483648.0)) {
        ++skipped.count;
        continue;
      }
      detail::DeviceSpan span{
          static_cast<std::int64_t>(device), start, end, KernelClass::memory_copy, false};
      if (kernels) {
        span.kind = kernel_class(q, 3);
        ++m_activity.kernels;
      } else if (copies) {
        const auto kind = q.optional_integer(3);
        span.host_to_device =
            kind && (*kind == k_copy_host_to_device || *kind == k_copy_unified_host_to_device);
        if (span.host_to_device && q.is_number(4) && q.number(4) >= 0) {
          m_activity.host_to_device_bytes += q.number(4);
        }
      }
      m_activity.see(start, end);
      m_activity.device_spans.push_back(span);
    }
    if (skipped.count > 0) {
      m_skipped.push_back(std::move(skipped));
    }
  }

  // A kernel's name is a StringIds id (or, in hand-made databases, the text itself); each id is
  // looked up and classified once.
  KernelClass kernel_class(const Statement& row, int column) {
    if (row.is_text(column)) {
      return classify_kernel(row.text(column));
    }
    const auto id = row.optional_integer(column);
    if (!id) {
      return KernelClass::other;
    }
    const auto it = m_classes.find(*id);
    if (it != m_classes.end()) {
      return it->second;
    }
    const KernelClass kind = classify_kernel(string_id(*id));
    m_classes.emplace(*id, kind);
    return kind;
  }

  std::string string_id(std::int64_t id) {
    if (!has(k_strings_table)) {
      return {};
    }
    if (!m_string_query) {
      m_string_query = std::make_unique<Statement>(
          m_db, "SELECT value FROM StringIds WHERE id = ?", table_where(k_strings_table));
    }
    m_string_query->reset_with(id);
    return m_string_query->step() ? m_string_query->text(0) : std::string();
  }

  // Host tables widen the window: the first start and the last end of their rows.
  void read_host_window(std::string_view table, const char* end_expression) {
    if (!has(table)) {
      return;
    }
    const auto have = columns(table);
    if (have.count("start") == 0 || have.count("end") == 0) {
      return;
    }
    Statement q(m_db,
                fmt::format("SELECT min(start), max({}) FROM \"{}\" WHERE typeof(start) IN "
                            "('integer', 'real') AND start >= 0",
                            end_expression,
                            table),
                table_where(table));
    if (q.step() && q.is_number(0) && q.is_number(1)) {
      m_activity.see(q.number(0), std::max(q.number(0), q.number(1)));
    }
  }

  // NVTX ranges whose text says the host is loading input. Registered strings are in StringIds.
  void read_input_ranges() {
    if (!has(k_nvtx_table)) {
      return;
    }
    const auto have = columns(k_nvtx_table);
    if (have.count("start") == 0 || have.count("end") == 0) {
      return;
    }
    const bool by_id = have.count("textId") > 0 && has(k_strings_table);
    const std::string sql = fmt::format(
        R"(SELECT n.start, n."end", {}, {} FROM NVTX_EVENTS n {} WHERE n."end" > n.start)",
        have.count("text") > 0 ? "n.text" : "NULL",
        by_id ? "s.value" : "NULL",
        by_id ? "LEFT JOIN StringIds s ON s.id = n.textId" : "");
    Statement q(m_db, sql, table_where(k_nvtx_table));
    while (q.step()) {
      if (!q.is_number(0) || !q.is_number(1)) {
        continue;
      }
      const std::string text = q.is_text(2) ? q.text(2) : q.text(3);
      const double start = q.number(0);
      const double end = q.number(1);
      if (end - start <= k_max_event_ns && detail::is_input_loading_name(text)) {
        m_activity.see(start, end);
        m_activity.input_loading.push_back({start, end});
      }
    }
  }

  // TARGET_INFO_GPU's row for the lowest-numbered device with activity: matched on id (the
  // "Device ID" of the activity tables), else on cuDevice; a single row is taken as is.
  void describe_device(TraceProfile& p) {
    if (!has(k_gpu_table)) {
      return;
    }
    const auto have = columns(k_gpu_table);
    Statement q(m_db,
                fmt::format("SELECT {}, {}, {}, {} FROM TARGET_INFO_GPU",
                            column_or(have, "id", "NULL"),
                            column_or(have, "cuDevice", "NULL"),
                            column_or(have, "name", "NULL"),
                            column_or(have, "totalMemory", "NULL")),
                table_where(k_gpu_table));
    struct Gpu {
      std::string name;
      std::optional<double> memory_bytes;
    };
    const std::int64_t device = m_activity.device_spans.front().device;
    std::vector<Gpu> rows;
    std::optional<std::size_t> by_id;
    std::optional<std::size_t> by_cuda_device;
    while (q.step()) {
      const bool memory = q.is_number(3) && q.number(3) > 0;
      rows.push_back({detail::valid_utf8(q.text(2)),
                      memory ? std::optional<double>(q.number(3)) : std::nullopt});
      if (!by_id && q.optional_integer(0) == device) {
        by_id = rows.size() - 1;
      }
      if (!by_cuda_device && q.optional_integer(1) == device) {
        by_cuda_device = rows.size() - 1;
      }
    }
    std::optional<std::size_t> match = by_id ? by_id : by_cuda_device;
    if (!match && rows.size() == 1) {
      match = 0;
    }
    if (match) {
      p.device_name = rows[*match].name;
      p.device_memory_bytes = rows[*match].memory_bytes;
    }
  }

  // Device memory allocated through CUDA (cudaMalloc; with PyTorch, the caching allocator's
  // reserve), from nsys' --cuda-memory-usage=true events: the highest running total on one
  // device. When a free comes without its allocation (the capture started after it), the total
  // is unknown and nothing is reported.
  std::optional<double> peak_device_allocations() {
    if (!has(k_memory_table)) {
      return std::nullopt;
    }
    const auto have = columns(k_memory_table);
    if (have.count("start") == 0 || have.count("bytes") == 0 ||
        have.count("memoryOperationType") == 0) {
      return std::nullopt;
    }
    const std::string sql = fmt::format(
        "SELECT {}, bytes, memoryOperationType FROM CUDA_GPU_MEMORY_USAGE_EVENTS {} ORDER BY start",
        column_or(have, "deviceId", "0"),
        have.count("memKind") > 0 ? fmt::format("WHERE memKind = {}", k_memory_kind_device) : "");
    Statement q(m_db, sql, table_where(k_memory_table));
    std::map<std::int64_t, double> in_use;
    double peak = 0;
    bool any = false;
    while (q.step()) {
      const auto device = q.optional_integer(0);
      const auto operation = q.optional_integer(2);
      if (!device || !operation || !q.is_number(1) || !(q.number(1) >= 0)) {
        continue;
      }
      double& total = in_use[*device];
      if (*operation == k_memory_allocation) {
        total += q.number(1);
        any = true;
      } else if (*operation == k_memory_deallocation) {
        total -= q.number(1);
      }
      if (total < 0) {
        m_warnings.push_back(fmt::format("{}: device memory is freed that was allocated before the "
                                         "capture started; its peak is unknown",
                                         table_where(k_memory_table)));
        return std::nullopt;
      }
      peak = std::max(peak, total);
    }
    return any ? std::optional<double>(peak) : std::nullopt;
  }

  void add_warnings(TraceProfile& p) {
    for (const auto& s : m_skipped) {
      p.warnings.push_back(fmt::format(
          "{}: {} row{} without a usable start, end or deviceId (not a number, end before start, "
          "or longer than a day) skipped",
          table_where(s.table),
          s.count,
          s.count == 1 ? "" : "s"));
    }
    p.warnings.insert(p.warnings.end(), m_warnings.begin(), m_warnings.end());
  }

  Database m_db;
  std::string m_path;
  std::set<std::string> m_tables;
  detail::TraceActivity m_activity;
  std::unordered_map<std::int64_t, KernelClass> m_classes;
  std::unique_ptr<Statement> m_string_query;
  std::vector<SkippedRows> m_skipped;
  std::vector<std::string> m_warnings;
};

} // namespace

TraceProfile read_nsys_sqlite(const std::string& path) {
  check_sqlite_file(path);
  return NsysReader(path).read();
}

} // namespace rightsize
