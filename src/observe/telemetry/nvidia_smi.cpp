// nvidia-smi --query-gpu=... --format=csv output. Behaviour: docs/observe.md, "nvidia-smi".

#include "dcgm_fields.hpp"
#include "text_scan.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rightsize {

namespace {

using scan::trim;

constexpr double k_mib = 1024.0 * 1024.0;
constexpr double k_percent = 0.01;
constexpr double k_mhz = 1e6;
// The largest first block of rows looked at to tell GPUs apart by row position.
constexpr std::size_t k_tick_probe_rows = 1024;

enum class Kind : std::uint8_t {
  timestamp,
  index,
  uuid,
  name,
  pci_bus_id,
  metric,
  memory_free,
  memory_reserved,
  throttle_mask,
};

struct ColumnSpec {
  std::string_view name; // as --query-gpu names it (nvidia-smi --help-query-gpu)
  std::string_view unit; // the unit written after values and in the header without nounits
  double scale;          // value in `unit` -> SI
  int rank;              // of two columns of one metric, the lower rank is read
  Kind kind;
  Metric metric; // for Kind::metric and Kind::throttle_mask
};

constexpr Metric k_none = Metric::count;

// Every column observe reads, with nvidia-smi's aliases (gpu_uuid for uuid, clocks.current.sm
// for clocks.sm, the clocks_event_reasons name of newer drivers).
constexpr std::array<ColumnSpec, 25> k_columns = {{
    {"timestamp", "", 1, 0, Kind::timestamp, k_none},
    {"index", "", 1, 0, Kind::index, k_none},
    {"uuid", "", 1, 0, Kind::uuid, k_none},
    {"gpu_uuid", "", 1, 0, Kind::uuid, k_none},
    {"name", "", 1, 0, Kind::name, k_none},
    {"gpu_name", "", 1, 0, Kind::name, k_none},
    {"pci.bus_id", "", 1, 0, Kind::pci_bus_id, k_none},
    {"gpu_bus_id", "", 1, 0, Kind::pci_bus_id, k_none},
    {"utilization.gpu", "%", k_percent, 0, Kind::metric, Metric::gpu_utilization},
    {"utilization.memory", "%", k_percent, 0, Kind::metric, Metric::memory_utilization},
    {"memory.used", "MiB", k_mib, 0, Kind::metric, Metric::memory_used},
    {"memory.total", "MiB", k_mib, 0, Kind::metric, Metric::memory_total},
    {"memory.free", "MiB", k_mib, 0, Kind::memory_free, k_none},
    {"memory.reserved", "MiB", k_mib, 0, Kind::memory_reserved, k_none},
    {"power.draw", "W", 1, 0, Kind::metric, Metric::power},
    {"power.draw.instant", "W", 1, 1, Kind::metric, Metric::power},
    {"power.draw.average", "W", 1, 2, Kind::metric, Metric::power},
    {"power.limit", "W", 1, 0, Kind::metric, Metric::power_limit},
    {"enforced.power.limit", "W", 1, 1, Kind::metric, Metric::power_limit},
    {"clocks.sm", "MHz", k_mhz, 0, Kind::metric, Metric::sm_clock},
    {"clocks.current.sm", "MHz", k_mhz, 0, Kind::metric, Metric::sm_clock},
    {"clocks.max.sm", "MHz", k_mhz, 0, Kind::metric, Metric::sm_clock_max},
    {"temperature.gpu", "C", 1, 0, Kind::metric, Metric::temperature},
    {"clocks_throttle_reasons.active", "", 1, 0, Kind::throttle_mask, Metric::throttled},
    {"clocks_event_reasons.active", "", 1, 0, Kind::throttle_mask, Metric::throttled},
}};

const ColumnSpec* find_column(std::string_view name) {
  for (const auto& c : k_columns) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

// The fields of one CSV line (nvidia-smi never quotes: no value holds a comma).
void split(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

constexpr int k_absent = -1;

struct Header {
  std::size_t line = 0;
  std::string_view text;
  std::size_t columns = 0;
  std::vector<const ColumnSpec*> spec; // per column; null: not read
  std::vector<std::string> names;      // per column, without its unit, for messages
  int timestamp = k_absent;
  int index = k_absent;
  int uuid = k_absent;
  int name = k_absent;
  int pci = k_absent;
  int free = k_absent;
  int reserved = k_absent;
  std::array<int, k_metric_count> metric{};
  std::vector<std::string> not_read;

  [[nodiscard]] bool has(Metric m) const { return metric[static_cast<std::size_t>(m)] != k_absent; }
};

int& identity_slot(Header& h, Kind kind) {
  switch (kind) {
  case Kind::timestamp:
    return h.timestamp;
  case Kind::index:
    return h.index;
  case Kind::uuid:
    return h.uuid;
  case Kind::name:
    return h.name;
  case Kind::pci_bus_id:
    return h.pci;
  case Kind::memory_free:
    return h.free;
  case Kind::memory_reserved:
    return h.reserved;
  case Kind::metric:
  case Kind::throttle_mask:
    break;
  }
  throw InternalError("nvidia_smi: identity_slot of a metric column");
}

// Which column is which; a column of a metric read from another column, or repeated, is not read.
Header read_header(std::string_view line, std::size_t line_number) {
  Header h;
  h.line = line_number;
  h.text = line;
  h.metric.fill(k_absent);
  std::vector<std::string_view> fields;
  split(line, fields);
  h.columns = fields.size();
  h.spec.assign(fields.size(), nullptr);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    std::string_view name = trim(fields[i]);
    const std::size_t bracket = name.find('[');
    if (bracket != std::string_view::npos) {
      name = trim(name.substr(0, bracket)); // "utilization.gpu [%]"
    }
    h.names.emplace_back(name);
    const ColumnSpec* spec = find_column(lowercase(name));
    const int column = static_cast<int>(i);
    if (spec == nullptr) {
      h.not_read.emplace_back(name);
      continue;
    }
    if (spec->kind == Kind::metric || spec->kind == Kind::throttle_mask) {
      int& slot = h.metric[static_cast<std::size_t>(spec->metric)];
      if (slot == k_absent || h.spec[static_cast<std::size_t>(slot)]->rank > spec->rank) {
        if (slot != k_absent) {
          h.not_read.push_back(h.names[static_cast<std::size_t>(slot)]);
          h.spec[static_cast<std::size_t>(slot)] = nullptr;
        }
        slot = column;
        h.spec[i] = spec;
      } else {
        h.not_read.emplace_back(name);
      }
      continue;
    }
    int& slot = identity_slot(h, spec->kind);
    if (slot == k_absent) {
      slot = column;
      h.spec[i] = spec;
    } else {
      h.not_read.emplace_back(name);
    }
  }
  return h;
}

bool has_metric_column(const Header& h) {
  return std::any_of(h.metric.begin(), h.metric.end(), [](int c) { return c != k_absent; });
}

// Whether a field reads as a value rather than a column name: the first line of a
// --format=csv,noheader file.
bool looks_like_value(std::string_view field) {
  const std::string_view s = trim(field);
  if (s.empty()) {
    return false;
  }
  double v = 0;
  std::string_view rest;
  const bool numeric = (s.front() >= '0' && s.front() <= '9') || s.front() == '-';
  return (numeric && scan::parse_number_prefix(s, v, rest)) || s.front() == '[' || s == "N/A" ||
         s.substr(0, 4) == "GPU-" || s.substr(0, 4) == "MIG-";
}

[[noreturn]] void refuse_header(const Header& h, const std::string& source) {
  const std::string where = fmt::format("{}:{}", source, h.line);
  std::vector<std::string_view> fields;
  split(h.text, fields);
  std::size_t values = 0;
  for (const auto f : fields) {
    values += looks_like_value(f) ? 1 : 0;
  }
  if (values * 2 >= fields.size()) {
    throw InputError(where,
                     "no header line: the first line holds values (nvidia-smi "
                     "--format=csv,noheader?) and without the header the columns are "
                     "unknown; record with --format=csv or --format=csv,nounits");
  }
  throw InputError(where,
                   "not nvidia-smi --format=csv output: no column observe reads "
                   "(utilization.gpu, memory.used, power.draw, ...) in " +
                       scan::quoted(h.text));
}

enum class Problem : std::uint8_t { none, not_available, not_a_number, not_finite, out_of_range };

// One field as `spec` reads it, in SI units (throttle masks as 0 or 1).
Problem read_value(std::string_view raw, const ColumnSpec& spec, double& out) {
  const std::string_view s = trim(raw);
  if (!s.empty() && (s.front() == '[' || s == "N/A")) {
    return Problem::not_available; // "[N/A]", "[Not Supported]", "[Unknown Error]", ...
  }
  if (spec.kind == Kind::throttle_mask) {
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
      return Problem::not_a_number;
    }
    unsigned long long mask = 0;
    const auto [ptr, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), mask, 16);
    if (ec != std::errc() || ptr != s.data() + s.size()) {
      return Problem::not_a_number;
    }
    out = (mask & dcgm::k_limiting_reasons) != 0 ? 1.0 : 0.0;
    return Problem::none;
  }
  double v = 0;
  std::string_view rest;
  if (!scan::parse_number_prefix(s, v, rest)) {
    return Problem::not_a_number;
  }
  rest = trim(rest);
  if (!rest.empty() && rest != spec.unit) {
    return Problem::not_a_number;
  }
  if (!std::isfinite(v)) {
    return Problem::not_finite;
  }
  out = scan::to_si(v, spec.scale);
  if (!scan::plausible(spec.metric == k_none ? Metric::memory_used : spec.metric, out)) {
    return Problem::out_of_range;
  }
  return Problem::none;
}

std::string describe_problem(Problem p, std::string_view raw, const ColumnSpec& spec) {
  std::string value = scan::quoted(trim(raw));
  switch (p) {
  case Problem::not_available:
    return value + " (not available)";
  case Problem::not_a_number:
    if (spec.kind == Kind::throttle_mask) {
      return value + " is not a hexadecimal bit mask";
    }
    return spec.unit.empty() ? value + " is not a number"
                             : fmt::format("{} is not a number (in {})", value, spec.unit);
  case Problem::not_finite:
    return value + " is not a finite number";
  case Problem::out_of_range: {
    const auto r = scan::plausible_range(spec.metric == k_none ? Metric::memory_used : spec.metric);
    return fmt::format("{} is out of range ({:g} to {:g}{}{})",
                       value,
                       r.lo / spec.scale,
                       r.hi / spec.scale,
                       spec.unit.empty() ? "" : " ",
                       spec.unit);
  }
  case Problem::none:
    break;
  }
  return value;
}

// Warning kinds (with the column, the key of a WarningTally entry).
enum class Tally : std::uint64_t { field_count, timestamp, value, used_above_total };

std::uint64_t tally_key(Tally t, std::size_t column, Problem p = Problem::none) {
  return (static_cast<std::uint64_t>(t) << 40) | (static_cast<std::uint64_t>(p) << 32) |
         static_cast<std::uint64_t>(column);
}

struct Gpu {
  std::string key;
  std::size_t series = 0;
  std::size_t rows = 0;
  double latest = -std::numeric_limits<double>::infinity();
};

class Parser {
public:
  Parser(std::string_view text,
         const std::string& source,
         const std::string& host,
         double interval_s)
      : m_text(text), m_source(source), m_host(host), m_interval_s(interval_s) {}

  Telemetry run() {
    check_input();
    scan::LineReader lines(m_text);
    std::string_view line;
    while (lines.next(line) && scan::is_blank_line(line)) {
    }
    m_header = read_header(line, lines.line_number());
    if (!has_metric_column(m_header)) {
      refuse_header(m_header, m_source);
    }
    choose_gpu_key(lines);
    announce_columns();
    while (lines.next(line)) {
      read_row(line, lines.line_number());
    }
    finish();
    return std::move(m_out);
  }

private:
  void check_input() {
    scan::check_text_input(
        m_text,
        m_source,
        m_interval_s,
        {"nvidia-smi --format=csv output",
         "file is empty, expected nvidia-smi --query-gpu=... --format=csv output",
         "sample",
         nullptr});
  }

  // uuid, else pci.bus_id, else index tell GPUs apart; without any, a row's position in its
  // tick (the rows nvidia-smi writes for one sample, one per GPU in index order).
  void choose_gpu_key(const scan::LineReader& after_header) {
    if (m_header.timestamp == k_absent) {
      // Not an error (a log without the column is common), but every time and window depends on
      // the interval it assumes: say which.
      m_out.warnings.push_back(fmt::format("{}: no timestamp column: a GPU's rows are taken as "
                                           "{:g} s apart (--interval; nvidia-smi's -l N)",
                                           m_source,
                                           m_interval_s));
    }
    m_key_column = m_header.uuid != k_absent  ? m_header.uuid
                   : m_header.pci != k_absent ? m_header.pci
                                              : m_header.index;
    if (m_key_column != k_absent) {
      return;
    }
    m_tick_rows = probe_tick_rows(after_header);
    if (m_tick_rows > 1) {
      m_out.warnings.push_back(fmt::format("{}:{}: no uuid, pci.bus_id or index column: GPUs told "
                                           "apart by their row's position in each sample ({} "
                                           "GPUs per sample)",
                                           m_source,
                                           m_header.line,
                                           m_tick_rows));
    }
  }

  // How many rows one sample of every GPU takes. With timestamps, a sample ends at the first
  // gap longer than half the longest gap between the first rows; without, at the first row
  // repeating the first row's GPU name.
  std::size_t probe_tick_rows(scan::LineReader lines) const {
    std::vector<std::string_view> fields;
    std::vector<double> times;
    std::string_view first_name;
    std::size_t rows = 0;
    std::string_view line;
    while (rows < k_tick_probe_rows && lines.next(line)) {
      if (scan::is_blank_line(line) || line == m_header.text) {
        continue;
      }
      split(line, fields);
      if (fields.size() != m_header.columns) {
        continue;
      }
      ++rows;
      if (m_header.timestamp != k_absent) {
        double t = 0;
        if (scan::parse_datetime(trim(fields[static_cast<std::size_t>(m_header.timestamp)]), t)) {
          times.push_back(t);
        }
        continue;
      }
      const std::string_view name = m_header.name == k_absent
                                        ? std::string_view()
                                        : trim(fields[static_cast<std::size_t>(m_header.name)]);
      if (rows > 1 && name == first_name) {
        return rows - 1;
      }
      if (rows == 1) {
        first_name = name;
      }
    }
    if (m_header.timestamp == k_absent) {
      return std::max<std::size_t>(rows, 1);
    }
    double longest = 0;
    for (std::size_t i = 1; i < times.size(); ++i) {
      longest = std::max(longest, times[i] - times[i - 1]);
    }
    for (std::size_t i = 1; i < times.size(); ++i) {
      if (longest > 0 && times[i] - times[i - 1] > longest / 2) {
        return i;
      }
    }
    return std::max<std::size_t>(times.size(), 1);
  }

  void announce_columns() {
    if (m_header.not_read.empty()) {
      return;
    }
    std::string names;
    for (const auto& n : m_header.not_read) {
      names += names.empty() ? "" : ", ";
      names += n.empty() ? "\"\"" : n;
    }
    m_out.warnings.push_back(fmt::format("{}:{}: column{} not read: {}",
                                         m_source,
                                         m_header.line,
                                         m_header.not_read.size() == 1 ? "" : "s",
                                         names));
  }

  void read_row(std::string_view line, std::size_t line_number) {
    if (scan::is_blank_line(line) || line == m_header.text) {
      return; // a blank line, or the header again (nvidia-smi run in a loop)
    }
    split(line, m_fields);
    if (m_fields.size() != m_header.columns) {
      const std::size_t n = m_fields.size();
      m_tally.add(tally_key(Tally::field_count, 0), "row", [&] {
        return fmt::format("{}:{}: {} field{} where the header has {}",
                           m_source,
                           line_number,
                           n,
                           n == 1 ? "" : "s",
                           m_header.columns);
      });
      return;
    }
    double time_s = 0;
    if (m_header.timestamp != k_absent) {
      const std::string_view stamp = trim(m_fields[static_cast<std::size_t>(m_header.timestamp)]);
      if (!scan::parse_datetime(stamp, time_s)) {
        m_tally.add(tally_key(Tally::timestamp, 0), "row", [&] {
          return fmt::format("{}:{}: timestamp {} is not YYYY/MM/DD HH:MM:SS[.mmm]",
                             m_source,
                             line_number,
                             scan::quoted(stamp));
        });
        return;
      }
    }
    Gpu& gpu = find_gpu();
    if (m_header.timestamp == k_absent) {
      time_s = static_cast<double>(gpu.rows) * m_interval_s;
    }
    ++gpu.rows;
    check_order(gpu, time_s, line_number);
    store_row(m_out.gpus[gpu.series], time_s, line_number);
  }

  Gpu& find_gpu() {
    std::array<char, 24> position{};
    std::string_view key;
    if (m_key_column != k_absent) {
      key = trim(m_fields[static_cast<std::size_t>(m_key_column)]);
    } else {
      const auto [end, ec] =
          std::to_chars(position.data(), position.data() + position.size(), m_row % m_tick_rows);
      key = std::string_view(position.data(), static_cast<std::size_t>(end - position.data()));
    }
    ++m_row;
    // Rows come in the same GPU order every sample: try the GPU after the last one first.
    if (!m_gpus.empty()) {
      const std::size_t next = m_last_gpu + 1 < m_gpus.size() ? m_last_gpu + 1 : 0;
      if (m_gpus[next].key == key) {
        m_last_gpu = next;
        return m_gpus[next];
      }
      const auto found = m_gpu_index.find(key);
      if (found != m_gpu_index.end()) {
        m_last_gpu = found->second;
        return m_gpus[found->second];
      }
    }
    GpuSeries series;
    series.id.host = m_host;
    series.id.source = m_source;
    if (m_header.index != k_absent) {
      series.id.index = trim(m_fields[static_cast<std::size_t>(m_header.index)]);
    } else if (m_header.uuid == k_absent) {
      series.id.index = std::to_string(m_gpus.size()); // nvidia-smi lists GPUs in index order
    }
    if (m_header.uuid != k_absent) {
      series.id.uuid = trim(m_fields[static_cast<std::size_t>(m_header.uuid)]);
    }
    if (m_header.name != k_absent) {
      series.id.model_name = trim(m_fields[static_cast<std::size_t>(m_header.name)]);
    }
    m_out.gpus.push_back(std::move(series));
    m_gpus.push_back({std::string(key), m_out.gpus.size() - 1});
    m_last_gpu = m_gpus.size() - 1;
    m_gpu_index.emplace(m_gpus.back().key, m_last_gpu);
    return m_gpus.back();
  }

  void check_order(Gpu& gpu, double time_s, std::size_t line_number) {
    if (time_s < gpu.latest) {
      if (m_backwards == 0) {
        m_first_backwards =
            fmt::format("{}:{}: time goes backwards for {} ({} after a later row)",
                        m_source,
                        line_number,
                        m_out.gpus[gpu.series].id.label(),
                        scan::quoted(trim(m_fields[static_cast<std::size_t>(m_header.timestamp)])));
      }
      ++m_backwards;
      return;
    }
    gpu.latest = time_s;
  }

  // Reads every value of the row, then stores those that hold up: memory.used above
  // memory.total is dropped, and memory.total is used + free (+ reserved) when not a column.
  void store_row(GpuSeries& gpu, double time_s, std::size_t line_number) {
    std::array<double, k_metric_count> value{};
    std::array<bool, k_metric_count> have{};
    for (std::size_t m = 0; m < k_metric_count; ++m) {
      const int column = m_header.metric[m];
      if (column != k_absent) {
        have[m] = read_column(static_cast<std::size_t>(column), line_number, value[m]);
      }
    }
    const auto used = static_cast<std::size_t>(Metric::memory_used);
    const auto total = static_cast<std::size_t>(Metric::memory_total);
    if (have[used] && have[total] && value[used] > value[total]) {
      have[used] = false;
      m_tally.add(tally_key(Tally::used_above_total, 0), "value", [&] {
        return fmt::format(
            "{}:{}: memory.used {} above memory.total {}",
            m_source,
            line_number,
            scan::quoted(trim(m_fields[static_cast<std::size_t>(m_header.metric[used])])),
            scan::quoted(trim(m_fields[static_cast<std::size_t>(m_header.metric[total])])));
      });
    }
    if (!m_header.has(Metric::memory_total) && have[used] && m_header.free != k_absent) {
      double free = 0;
      double reserved = 0;
      if (read_column(static_cast<std::size_t>(m_header.free), line_number, free) &&
          (m_header.reserved == k_absent ||
           read_column(static_cast<std::size_t>(m_header.reserved), line_number, reserved))) {
        value[total] = value[used] + free + reserved;
        have[total] = true;
      }
    }
    for (std::size_t m = 0; m < k_metric_count; ++m) {
      if (have[m]) {
        gpu.metrics[m].add(time_s, value[m]);
      }
    }
  }

  bool read_column(std::size_t column, std::size_t line_number, double& out) {
    const ColumnSpec& spec = *m_header.spec[column];
    const std::string_view raw = m_fields[column];
    const Problem p = read_value(raw, spec, out);
    if (p == Problem::none) {
      return true;
    }
    m_tally.add(tally_key(Tally::value, column, p), "value", [&] {
      return fmt::format("{}:{}: {}: {}",
                         m_source,
                         line_number,
                         m_header.names[column],
                         describe_problem(p, raw, spec));
    });
    return false;
  }

  void finish() {
    if (m_row == 0 && m_tally.empty()) {
      m_out.warnings.push_back(
          fmt::format("{}:{}: no data row after the header", m_source, m_header.line));
    }
    m_tally.emit(m_out.warnings);
    if (m_backwards > 0) {
      for (auto& gpu : m_out.gpus) {
        scan::sort_by_time(gpu);
      }
      m_out.warnings.push_back(fmt::format("{}; {} row{} out of time order, samples sorted by time",
                                           m_first_backwards,
                                           m_backwards,
                                           m_backwards == 1 ? "" : "s"));
    }
    m_out.samples = scan::count_samples(m_out.gpus);
  }

  std::string_view m_text;
  const std::string& m_source;
  const std::string& m_host;
  double m_interval_s;
  Header m_header;
  int m_key_column = k_absent;
  std::size_t m_tick_rows = 1;
  std::size_t m_row = 0; // data rows read, for positions
  std::vector<std::string_view> m_fields;
  std::deque<Gpu> m_gpus; // which m_gpu_index's keys view
  std::unordered_map<std::string_view, std::size_t> m_gpu_index;
  std::size_t m_last_gpu = 0;
  scan::WarningTally m_tally;
  std::size_t m_backwards = 0;
  std::string m_first_backwards;
  Telemetry m_out;
};

} // namespace

Telemetry parse_nvidia_smi_csv(std::string_view text,
                               const std::string& source,
                               const std::string& host,
                               double interval_s) {
  return Parser(scan::strip_bom(text), source, host, interval_s).run();
}

} // namespace rightsize
