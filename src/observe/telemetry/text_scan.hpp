#pragma once

// Shared by the telemetry file parsers (nvidia_smi.cpp, dcgm_text.cpp): line and number scanning
// over string_view without allocation, counted warnings, the plausible range of each metric,
// civil time, and putting samples back in time order. docs/observe.md, "Inputs".

#include <rightsize/core/error.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace rightsize::scan {

// --- Lines -------------------------------------------------------------------------------------

// The lines of a text, without their '\n' or "\r\n", numbered from 1.
class LineReader {
public:
  explicit LineReader(std::string_view text) : m_text(text) {}

  // The next line, or false at the end of the text.
  bool next(std::string_view& line) {
    if (m_pos >= m_text.size()) {
      return false;
    }
    const char* begin = m_text.data() + m_pos;
    const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', m_text.size() - m_pos));
    const std::size_t len =
        nl == nullptr ? m_text.size() - m_pos : static_cast<std::size_t>(nl - begin);
    line = std::string_view(begin, len);
    m_pos += len + 1;
    ++m_line;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    return true;
  }

  // The number of the line `next` returned last.
  [[nodiscard]] std::size_t line_number() const { return m_line; }

private:
  std::string_view m_text;
  std::size_t m_pos = 0;
  std::size_t m_line = 0;
};

inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_blank(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

inline bool is_blank_line(std::string_view s) {
  return trim(s).empty();
}

// `text` without a UTF-8 byte order mark.
inline std::string_view strip_bom(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);
  }
  return text;
}

// Whether the text holds a NUL byte in its first 64 KiB: binary data, not a text file.
inline bool looks_binary(std::string_view text) {
  const std::size_t n = std::min<std::size_t>(text.size(), 65536);
  return std::memchr(text.data(), '\0', n) != nullptr;
}

// What the first non-blank character says a file is, when it is not line-oriented text:
// "HTML" or "JSON", else empty.
inline std::string_view markup_kind(std::string_view first_line) {
  const std::string_view s = trim(first_line);
  if (s.empty()) {
    return {};
  }
  if (s.front() == '<') {
    return "HTML";
  }
  if (s.front() == '{' || s.front() == '[') {
    return "JSON";
  }
  return {};
}

// `text` quoted for a message: at most `max` bytes, control bytes as '?'.
inline std::string quoted(std::string_view text, std::size_t max = 60) {
  std::string out = "\"";
  const bool cut = text.size() > max;
  for (const char c : text.substr(0, max)) {
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  }
  if (cut) {
    out += "...";
  }
  out += '"';
  return out;
}

// --- Numbers -----------------------------------------------------------------------------------

// The number at the start of `s` (from_chars' "general" syntax, plus a leading '+'), or false.
// `rest` is what follows it. NaN and infinities parse: callers check std::isfinite.
inline bool parse_number_prefix(std::string_view s, double& out, std::string_view& rest) {
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') {
    ++first;
    if (first != last && *first == '-') {
      return false;
    }
  }
  const auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec != std::errc() && ec != std::errc::result_out_of_range) {
    return false;
  }
  if (ec == std::errc::result_out_of_range) {
    // A literal beyond double's range: zero when its exponent is negative, else infinite (as
    // strtod), so that the range checks see it.
    const std::string_view literal(first, static_cast<std::size_t>(ptr - first));
    const bool tiny = literal.find("e-") != std::string_view::npos ||
                      literal.find("E-") != std::string_view::npos;
    out = tiny ? 0.0 : (*first == '-' ? -HUGE_VAL : HUGE_VAL);
  }
  rest = std::string_view(ptr, static_cast<std::size_t>(last - ptr));
  return true;
}

// `s` as a whole number, or false.
inline bool parse_number(std::string_view s, double& out) {
  std::string_view rest;
  return parse_number_prefix(s, out, rest) && rest.empty();
}

// After a series, ` VALUE [TIMESTAMP_MS]`: the value (`token`, its text), and the time in seconds
// when stamped. Returns a reason and sets `bad` to the text at fault, or nullptr.
inline const char* scan_sample_value(std::string_view rest,
                                     double& value,
                                     std::string_view& token,
                                     double& time_s,
                                     bool& stamped,
                                     std::string_view& bad) {
  bad = rest;
  if (rest.empty() || !is_blank(rest.front())) {
    return "expected a space and a value after the series";
  }
  rest = trim(rest);
  bad = rest;
  if (rest.empty()) {
    return "expected a value after the series";
  }
  std::size_t end = 0;
  while (end < rest.size() && !is_blank(rest[end])) {
    ++end;
  }
  token = rest.substr(0, end);
  if (!parse_number(token, value)) {
    bad = token;
    return "the value is not a number";
  }
  rest = trim(rest.substr(end));
  if (rest.empty()) {
    return nullptr;
  }
  end = 0;
  while (end < rest.size() && !is_blank(rest[end])) {
    ++end;
  }
  const std::string_view stamp = rest.substr(0, end);
  long long ms = 0;
  const auto [ptr, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), ms);
  if (ec != std::errc() || ptr != stamp.data() + stamp.size()) {
    bad = stamp;
    return "the timestamp is not a whole number of milliseconds";
  }
  if (!trim(rest.substr(end)).empty()) {
    bad = rest.substr(end);
    return "unexpected text after the timestamp";
  }
  time_s = static_cast<double>(ms) / 1000.0;
  stamped = true;
  return nullptr;
}

// --- Prometheus text exposition -----------------------------------------------------------------

using Labels = std::vector<std::pair<std::string, std::string>>;

inline bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

inline bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}

// The series at the start of `line`, NAME or NAME{label="value",...}: `end` is where it ends.
// With `labels`, the labels are read too, their values unescaped (\\, \", \n). Returns a reason
// when the text is not a series.
inline const char*
scan_series(std::string_view line, std::size_t& end, std::string_view* name, Labels* labels) {
  std::size_t i = 0;
  const std::size_t n = line.size();
  if (n == 0 || !is_name_start(line[0])) {
    return "expected a metric name";
  }
  while (i < n && is_name_char(line[i])) {
    ++i;
  }
  if (name != nullptr) {
    *name = line.substr(0, i);
  }
  std::size_t j = i;
  while (j < n && is_blank(line[j])) {
    ++j;
  }
  if (j == n || line[j] != '{') {
    end = i;
    return nullptr;
  }
  i = j + 1;
  while (true) {
    while (i < n && is_blank(line[i])) {
      ++i;
    }
    if (i < n && line[i] == '}') {
      end = i + 1;
      return nullptr;
    }
    if (i == n || !is_name_start(line[i]) || line[i] == ':') {
      return "expected a label name or '}'";
    }
    const std::size_t key_start = i;
    while (i < n && is_name_char(line[i]) && line[i] != ':') {
      ++i;
    }
    const std::string_view key = line.substr(key_start, i - key_start);
    while (i < n && is_blank(line[i])) {
      ++i;
    }
    if (i == n || line[i] != '=') {
      return "expected '=' after a label name";
    }
    ++i;
    while (i < n && is_blank(line[i])) {
      ++i;
    }
    if (i == n || line[i] != '"') {
      return "expected a quoted label value";
    }
    ++i;
    std::string value;
    bool closed = false;
    while (i < n) {
      const char c = line[i++];
      if (c == '"') {
        closed = true;
        break;
      }
      if (c == '\\' && i < n) {
        const char e = line[i++];
        if (labels != nullptr) {
          value += e == 'n' ? '\n' : (e == '\\' || e == '"') ? e : '\\';
          if (e != 'n' && e != '\\' && e != '"') {
            value += e;
          }
        }
        continue;
      }
      if (labels != nullptr) {
        value += c;
      }
    }
    if (!closed) {
      return "unterminated label value";
    }
    if (labels != nullptr) {
      labels->emplace_back(std::string(key), std::move(value));
    }
    while (i < n && is_blank(line[i])) {
      ++i;
    }
    if (i < n && line[i] == ',') {
      ++i;
      continue;
    }
    if (i < n && line[i] == '}') {
      end = i + 1;
      return nullptr;
    }
    return "expected ',' or '}' after a label";
  }
}

// A decimal integer of `digits` digits exactly, or false.
inline bool parse_fixed_digits(std::string_view s, std::size_t digits, int& out) {
  if (s.size() != digits) {
    return false;
  }
  int v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// `v` in a unit `scale` SI units large, in SI units. A fraction of a percent is divided rather
// than multiplied (45 / 100 is 0.45 exactly, 45 * 0.01 is not).
inline double to_si(double v, double scale) {
  return scale < 1 ? v / (1 / scale) : v * scale;
}

// --- Time --------------------------------------------------------------------------------------

// Days from 1970-01-01 to the proleptic Gregorian date y-m-d (Howard Hinnant's days_from_civil,
// http://howardhinnant.github.io/date_algorithms.html).
inline long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

inline bool is_leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// "YYYY/MM/DD HH:MM:SS[.fff]" (nvidia-smi's timestamp; '-' for '/' and 'T' for the space are
// accepted too) as seconds since the Unix epoch, the clock taken as UTC. False when malformed.
inline bool parse_datetime(std::string_view s, double& out) {
  int y = 0;
  int mo = 0;
  int d = 0;
  int h = 0;
  int mi = 0;
  int sec = 0;
  if (s.size() < 19 || !parse_fixed_digits(s.substr(0, 4), 4, y) ||
      !parse_fixed_digits(s.substr(5, 2), 2, mo) || !parse_fixed_digits(s.substr(8, 2), 2, d) ||
      !parse_fixed_digits(s.substr(11, 2), 2, h) || !parse_fixed_digits(s.substr(14, 2), 2, mi) ||
      !parse_fixed_digits(s.substr(17, 2), 2, sec)) {
    return false;
  }
  const char sep = s[4];
  if ((sep != '/' && sep != '-') || s[7] != sep || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
      s[16] != ':') {
    return false;
  }
  static constexpr std::array<int, 12> k_days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 60) {
    return false;
  }
  if (d > k_days[static_cast<std::size_t>(mo - 1)] + (mo == 2 && is_leap(y) ? 1 : 0)) {
    return false;
  }
  // The fraction as digits / 10^n: ".123" is 123 / 1000, the double nearest 0.123.
  long long digits = 0;
  double power = 1;
  const std::string_view tail = s.substr(19);
  if (!tail.empty()) {
    if (tail.front() != '.' || tail.size() < 2 || tail.size() > 10) {
      return false;
    }
    for (const char c : tail.substr(1)) {
      if (c < '0' || c > '9') {
        return false;
      }
      digits = digits * 10 + (c - '0');
      power *= 10;
    }
  }
  const long long days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const long long seconds = days * 86400 + 3600LL * h + 60LL * mi + sec;
  out = static_cast<double>(seconds) + static_cast<double>(digits) / power;
  return true;
}

// --- Values ------------------------------------------------------------------------------------

struct Range {
  double lo;
  double hi;
};

// The values a metric can take, in its SI unit; outside them a value is an error of the source
// (a sentinel, a counter read as a gauge, a unit mix-up) and is skipped. The bounds are loose:
// 1 PiB of memory, 10 kW per GPU, 10 GHz, 100 TB/s of link traffic.
inline Range plausible_range(Metric m) {
  switch (m) {
  case Metric::gpu_utilization:
  case Metric::memory_utilization:
  case Metric::sm_active:
  case Metric::sm_occupancy:
  case Metric::tensor_active:
  case Metric::dram_active:
    return {0, 1};
  case Metric::memory_used:
  case Metric::memory_total:
    return {0, 0x1p50};
  case Metric::power:
  case Metric::power_limit:
    return {0, 1e4};
  case Metric::sm_clock:
  case Metric::sm_clock_max:
    return {0, 1e10};
  case Metric::temperature:
    return {-50, 200};
  case Metric::pcie_tx:
  case Metric::pcie_rx:
  case Metric::nvlink_tx:
  case Metric::nvlink_rx:
    return {0, 1e14};
  case Metric::throttled:
    return {0, 1};
  case Metric::count:
    break;
  }
  return {0, 0};
}

inline bool plausible(Metric m, double v) {
  const Range r = plausible_range(m);
  // A fraction computed as a ratio may land a rounding error above 1.
  const double slack = r.hi == 1 ? 1e-9 : 0;
  return v >= r.lo && v <= r.hi + slack;
}

// --- Warnings ----------------------------------------------------------------------------------

// Problems counted by kind: the first occurrence is described in full (file:line), the later
// ones only counted, so that one bad column of a day-long log makes one warning, not 86,400.
class WarningTally {
public:
  // Counts one occurrence of problem `key`. `describe()` (called only the first time) returns
  // the full message without its ending; `noun` is what is skipped ("value", "row", "sample").
  template <class Describe> void add(std::uint64_t key, const char* noun, Describe&& describe) {
    for (auto& e : m_entries) {
      if (e.key == key) {
        ++e.count;
        return;
      }
    }
    m_entries.push_back({key, describe(), noun, 1});
  }

  [[nodiscard]] bool empty() const { return m_entries.empty(); }

  // One line per kind, in the order they first occurred: "...; value skipped" or "...; 12 such
  // values skipped".
  void emit(std::vector<std::string>& out) const {
    for (const auto& e : m_entries) {
      if (e.count == 1) {
        out.push_back(e.message + "; " + e.noun + " skipped");
      } else {
        out.push_back(e.message + "; " + std::to_string(e.count) + " such " + e.noun + "s skipped");
      }
    }
  }

private:
  struct Entry {
    std::uint64_t key;
    std::string message;
    const char* noun;
    std::size_t count;
  };
  std::vector<Entry> m_entries;
};

// --- Time order --------------------------------------------------------------------------------

// Sorts `s` by time, keeping the order of equal times (a stable sort of the pairs).
inline void sort_by_time(Samples& s) {
  if (std::is_sorted(s.time_s.begin(), s.time_s.end())) {
    return;
  }
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.time_s[a] < s.time_s[b];
  });
  Samples sorted;
  sorted.time_s.reserve(s.size());
  sorted.value.reserve(s.size());
  for (const std::size_t i : order) {
    sorted.add(s.time_s[i], s.value[i]);
  }
  s = std::move(sorted);
}

inline void sort_by_time(GpuSeries& gpu) {
  for (auto& s : gpu.metrics) {
    sort_by_time(s);
  }
}

inline std::size_t count_samples(const std::vector<GpuSeries>& gpus) {
  std::size_t n = 0;
  for (const auto& g : gpus) {
    for (const auto& s : g.metrics) {
      n += s.size();
    }
  }
  return n;
}

// What both text parsers refuse before reading a line: an interval that is not a positive number
// of seconds (at most 1e9: more is a unit mistake, and would overflow the times), an empty file,
// binary data, and HTML or JSON where text was expected. `format` names the expected format in
// messages ("nvidia-smi --format=csv output"); `hint` says what an HTML or JSON file probably is.
struct ExpectedText {
  std::string_view format;
  std::string_view empty_message;
  std::string_view interval_name; // "sample", "scrape"
  std::string (*hint)(std::string_view markup) = nullptr;
};

inline void check_text_input(std::string_view text,
                             const std::string& source,
                             double interval_s,
                             const ExpectedText& expected) {
  if (!(interval_s > 0 && interval_s <= 1e9)) {
    throw InputError(source,
                     fmt::format("the {} interval must be a positive number of seconds "
                                 "(at most 1e9), got {}",
                                 expected.interval_name,
                                 interval_s));
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw InputError(source, std::string(expected.empty_message));
  }
  if (looks_binary(text)) {
    throw InputError(source, fmt::format("not {}: binary data", expected.format));
  }
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line) && is_blank_line(line)) {
  }
  const std::string_view markup = markup_kind(line);
  if (!markup.empty()) {
    throw InputError(fmt::format("{}:{}", source, lines.line_number()),
                     fmt::format("not {}: looks like {}{}",
                                 expected.format,
                                 markup,
                                 expected.hint ? expected.hint(markup) : std::string()));
  }
}

} // namespace rightsize::scan
