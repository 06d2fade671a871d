// torch.profiler's Chrome trace (export_chrome_trace, Kineto's JSON writer): a streaming reader.
// Traces run to hundreds of megabytes, so the text is scanned once by a strict JSON reader of its
// own that keeps only what the analysis needs from each event, instead of building a DOM.
// docs/observe.md, "Traces".

#include "intervals.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/observe/trace.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rightsize {

namespace {

constexpr std::size_t k_max_depth = 256;
// Timestamps are microseconds (Kineto: since its base time; older traces: since the epoch).
// Beyond 2^53 a double no longer holds whole microseconds, and no real trace gets there.
constexpr double k_max_timestamp_us = 9007199254740992.0;
constexpr double k_max_event_us = detail::k_max_event_seconds / microseconds(1).si();

// A strict JSON scanner (RFC 8259) over the whole text: values are read or skipped in place,
// strings come back as views into the text unless they hold escapes. Syntax errors are
// InputErrors at file:line:column, worded like core's JSON reader.
class JsonCursor {
public:
  JsonCursor(std::string_view text, const std::string& source) : m_text(text), m_source(source) {
    if (m_text.substr(0, 3) == "\xEF\xBB\xBF") {
      m_pos = 3;
    }
  }

  [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
    const auto [line, column] = detail::line_and_column(m_text, pos);
    throw InputError(fmt::format("{}:{}:{}", m_source, line, column), "invalid JSON: " + what);
  }
  [[noreturn]] void fail_here(const std::string& expected) const {
    fail_at(
        m_pos,
        m_pos >= m_text.size()
            ? "unexpected end of input; expected " + expected
            : fmt::format("unexpected {}; expected {}", describe_char(m_text[m_pos]), expected));
  }

  // The next character that is not blank, not consumed; '\0' at the end of the text.
  char peek() {
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return c;
      }
      ++m_pos;
    }
    return '\0';
  }
  bool at_end() {
    peek();
    return m_pos >= m_text.size();
  }

  // What kind of value comes next, for messages: "an object", "a number", ...; a syntax error
  // when no value can start here.
  std::string describe_next() {
    const char c = peek();
    if (m_pos < m_text.size()) {
      switch (c) {
      case '{':
        return "an object";
      case '[':
        return "an array";
      case '"':
        return "a string";
      case 't':
      case 'f':
        return "a boolean";
      case 'n':
        return "null";
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return "a number";
        }
      }
    }
    fail_here("a value");
  }

  void open(char bracket, const char* expected) {
    if (peek() != bracket) {
      fail_here(expected);
    }
    ++m_pos;
  }

  // The next member of an object whose '{' was consumed: false at its '}'. `first` is the
  // caller's state, true before the first member.
  bool next_member(bool& first, std::string_view& key, std::string& scratch) {
    char c = peek();
    if (c == '}' && m_pos < m_text.size()) {
      ++m_pos;
      return false;
    }
    if (!first) {
      if (c != ',') {
        fail_here("',' or '}'");
      }
      ++m_pos;
      c = peek();
    }
    first = false;
    if (c != '"' || m_pos >= m_text.size()) {
      fail_here("a string key");
    }
    key = string(scratch);
    if (peek() != ':') {
      fail_here("':'");
    }
    ++m_pos;
    return true;
  }

  // The next element of an array whose '[' was consumed: false at its ']'.
  bool next_element(bool& first) {
    const char c = peek();
    if (c == ']' && m_pos < m_text.size()) {
      ++m_pos;
      return false;
    }
    if (!first) {
      if (c != ',') {
        fail_here("',' or ']'");
      }
      ++m_pos;
    }
    first = false;
    return true;
  }

  bool next_is(char c) { return peek() == c && m_pos < m_text.size(); }

  // A string value; the view points into the text, or into `scratch` when it had escapes.
  std::string_view string(std::string& scratch) {
    if (!next_is('"')) {
      fail_here("a string");
    }
    const std::size_t open_quote = m_pos++;
    const std::size_t start = m_pos;
    skip_plain_bytes();
    while (m_pos < m_text.size()) {
      const auto c = static_cast<unsigned char>(m_text[m_pos]);
      if (c == '"') {
        return m_text.substr(start, m_pos++ - start);
      }
      if (c == '\\') {
        scratch.assign(m_text.data() + start, m_pos - start);
        return escaped_string(open_quote, scratch);
      }
      if (c < 0x20) {
        fail_at(m_pos, "control character in a string (escape it)");
      }
      ++m_pos;
    }
    fail_at(open_quote, "unterminated string");
  }

  double number() { return number(true); }

  // Checks a number's syntax; converts it only when `convert` (or when it may overflow, which is
  // an error even for a value that is skipped).
  double number(bool convert) {
    const std::size_t start = m_pos;
    if (m_pos < m_text.size() && m_text[m_pos] == '-') {
      ++m_pos;
    }
    if (digit_at(m_pos) && m_text[m_pos] == '0') {
      ++m_pos;
    } else if (digit_at(m_pos)) {
      skip_digits();
    } else {
      fail_here("a value");
    }
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
      ++m_pos;
      if (!digit_at(m_pos)) {
        fail_here("a digit after '.'");
      }
      skip_digits();
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      ++m_pos;
      if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
        ++m_pos;
      }
      if (!digit_at(m_pos)) {
        fail_here("a digit in the exponent");
      }
      skip_digits();
      convert = true;
    }
    constexpr std::size_t k_max_exact_digits = 300; // below DBL_MAX's 309 digits
    return convert || m_pos - start > k_max_exact_digits ? to_double(start) : 0.0;
  }

  // A number, or nothing (and the value skipped) when the value is of another type.
  std::optional<double> number_or_skip(std::size_t depth) {
    const char c = peek();
    if (c == '-' || (c >= '0' && c <= '9')) {
      return number();
    }
    skip_value(depth);
    return std::nullopt;
  }

  // A string, or an empty view (and the value skipped) when the value is of another type.
  std::string_view string_or_skip(std::string& scratch, std::size_t depth) {
    if (next_is('"')) {
      return string(scratch);
    }
    skip_value(depth);
    return {};
  }

  // Reads past one value of any type, checking its syntax; `depth` is the nesting it sits at.
  void skip_value(std::size_t depth) {
    switch (peek()) {
    case '{': {
      enter(depth);
      ++m_pos;
      bool first = true;
      std::string_view key;
      while (next_member(first, key, m_skip_scratch)) {
        skip_value(depth + 1);
      }
      return;
    }
    case '[': {
      enter(depth);
      ++m_pos;
      bool first = true;
      while (next_element(first)) {
        skip_value(depth + 1);
      }
      return;
    }
    case '"':
      string(m_skip_scratch);
      return;
    case 't':
      literal("true");
      return;
    case 'f':
      literal("false");
      return;
    case 'n':
      literal("null");
      return;
    default:
      number(false);
      return;
    }
  }

  void enter(std::size_t depth) const {
    if (depth >= k_max_depth) {
      fail_at(m_pos, fmt::format("nesting deeper than {} levels", k_max_depth));
    }
  }

private:
  static std::string describe_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      return fmt::format("byte 0x{:02X}", u);
    }
    return fmt::format("'{}'", c);
  }

  // Moves over the bytes of a string that need no attention (not '"', '\\' or a control
  // character), eight at a time: the classic "has a zero byte" bit tricks, whose lowest flagged
  // byte is always a true match.
  void skip_plain_bytes() {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
    constexpr std::uint64_t k_highs = 0x8080808080808080ULL;
    while (m_pos + 8 <= m_text.size()) {
      std::uint64_t w = 0;
      std::memcpy(&w, m_text.data() + m_pos, 8);
      const std::uint64_t quote = w ^ (k_ones * '"');
      const std::uint64_t backslash = w ^ (k_ones * '\\');
      const std::uint64_t special = ((quote - k_ones) & ~quote) |
                                    ((backslash - k_ones) & ~backslash) |
                                    ((w - k_ones * 0x20) & ~w);
      if ((special & k_highs) != 0) {
        m_pos += static_cast<std::size_t>(__builtin_ctzll(special & k_highs)) / 8;
        return;
      }
      m_pos += 8;
    }
#endif
  }

  bool digit_at(std::size_t pos) const {
    return pos < m_text.size() && m_text[pos] >= '0' && m_text[pos] <= '9';
  }
  void skip_digits() {
    while (digit_at(m_pos)) {
      ++m_pos;
    }
  }

  double to_double(std::size_t start) const {
    const char* first = m_text.data() + start;
    const char* last = m_text.data() + m_pos;
    double v = 0;
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range) {
      // Underflow reads as zero, as strtod has it; overflow is an error, as in core's reader.
      v = std::strtod(std::string(first, last).c_str(), nullptr);
      if (std::isinf(v)) {
        fail_at(start, "number out of range of a double: " + std::string(first, last));
      }
    } else if (ec != std::errc() || end != last) {
      fail_at(start, "invalid number");
    }
    return v;
  }

  void literal(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) != word) {
      fail_here("a value");
    }
    m_pos += word.size();
  }

  std::string_view escaped_string(std::size_t open_quote, std::string& out) {
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c == '"') {
        ++m_pos;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        fail_at(m_pos, "control character in a string (escape it)");
      }
      if (c != '\\') {
        out += c;
        ++m_pos;
        continue;
      }
      if (m_pos + 1 >= m_text.size()) {
        break;
      }
      const char e = m_text[m_pos + 1];
      m_pos += 2;
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u':
        append_code_point(out);
        break;
      default:
        fail_at(m_pos - 2, "invalid escape in a string");
      }
    }
    fail_at(open_quote, "unterminated string");
  }

  // After "\u": four hex digits, and a low surrogate's "\uXXXX" after a high one, as UTF-8.
  void append_code_point(std::string& out) {
    const std::size_t escape = m_pos - 2;
    std::uint32_t cp = hex4(escape);
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      fail_at(escape, "invalid \\u escape (a lone low surrogate)");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (m_text.substr(m_pos, 2) != "\\u") {
        fail_at(escape, "invalid \\u escape (a high surrogate without its low surrogate)");
      }
      m_pos += 2;
      const std::uint32_t low = hex4(escape);
      if (low < 0xDC00 || low > 0xDFFF) {
        fail_at(escape, "invalid \\u escape (a high surrogate without its low surrogate)");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10U) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6U));
      out += static_cast<char>(0x80 | (cp & 0x3FU));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12U));
      out += static_cast<char>(0x80 | ((cp >> 6U) & 0x3FU));
      out += static_cast<char>(0x80 | (cp & 0x3FU));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18U));
      out += static_cast<char>(0x80 | ((cp >> 12U) & 0x3FU));
      out += static_cast<char>(0x80 | ((cp >> 6U) & 0x3FU));
      out += static_cast<char>(0x80 | (cp & 0x3FU));
    }
  }

  std::uint32_t hex4(std::size_t escape) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (m_pos >= m_text.size()) {
        fail_at(escape, "invalid \\u escape (four hex digits expected)");
      }
      const char c = m_text[m_pos++];
      std::uint32_t d = 0;
      if (c >= '0' && c <= '9') {
        d = static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        fail_at(escape, "invalid \\u escape (four hex digits expected)");
      }
      v = v * 16 + d;
    }
    return v;
  }

  std::string_view m_text;
  const std::string& m_source;
  std::size_t m_pos = 0;
  std::string m_skip_scratch;
};

// What one event says, as far as the analysis cares.
struct EventFields {
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  std::optional<double> ts;
  std::optional<double> dur;
  std::optional<double> pid;
  // args
  std::optional<double> device;
  std::optional<double> bytes;
  std::optional<double> total_allocated;
  std::optional<double> total_reserved;
  std::optional<double> device_id;
  std::optional<double> device_type;
};

struct DeviceProperties {
  std::optional<double> id;
  std::string name;
  std::optional<double> memory_bytes;
};

// A kind of skipped event: how many, and where the first was.
struct SkipCount {
  std::size_t count = 0;
  std::string first;

  void add(const std::string& where) {
    if (count++ == 0) {
      first = where;
    }
  }
};

// ASCII case-insensitive equality; `lower` is lower case.
bool iequals(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char c = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (c != lower[i]) {
      return false;
    }
  }
  return true;
}

// Kineto's categories of device activity; "Kernel", "Memcpy" and "Memset" are older Kineto's.
bool is_device_category(std::string_view cat) {
  return iequals(cat, "kernel") || iequals(cat, "gpu_memcpy") || iequals(cat, "gpu_memset") ||
         iequals(cat, "memcpy") || iequals(cat, "memset");
}
bool is_copy_category(std::string_view cat) {
  return iequals(cat, "gpu_memcpy") || iequals(cat, "memcpy");
}
// Events on a GPU's timeline that are not activity (gpu_user_annotation), and activity itself.
bool is_gpu_timeline_category(std::string_view cat) {
  return is_device_category(cat) || (cat.size() >= 4 && iequals(cat.substr(0, 4), "gpu_"));
}

std::optional<std::int64_t> device_index(std::optional<double> v) {
  if (!v || !(std::abs(*v) < 2147483648.0) || std::floor(*v) != *v) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*v);
}

class TorchTraceReader {
public:
  TorchTraceReader(std::string_view text, const std::string& source)
      : m_json(text, source), m_source(source) {}

  TraceProfile read() {
    if (m_json.at_end()) {
      throw InputError(m_source, "file is empty, expected a JSON trace");
    }
    read_document();
    if (!m_json.at_end()) {
      m_json.fail_here("the end of the text after the JSON value");
    }
    if (!m_saw_events) {
      throw InputError(m_source,
                       "not a trace: no \"traceEvents\" array (expected torch.profiler's "
                       "Chrome trace, from export_chrome_trace)");
    }
    return profile();
  }

private:
  void read_document() {
    const char c = m_json.peek();
    if (c == '[') {
      m_saw_events = true;
      read_events("", 0);
    } else if (c == '{') {
      read_top_object();
    } else {
      const std::string kind = m_json.describe_next();
      m_json.skip_value(0);
      if (m_json.at_end()) {
        throw InputError(m_source,
                         "not a trace: expected an object with \"traceEvents\" or an "
                         "array of events, got " +
                             kind);
      }
    }
  }

  void read_top_object() {
    m_json.open('{', "'{'");
    bool first = true;
    std::string_view key;
    while (m_json.next_member(first, key, m_key)) {
      if (key == "traceEvents") {
        if (m_saw_events) {
          throw InputError(m_source, "duplicate key \"traceEvents\"");
        }
        m_saw_events = true;
        if (!m_json.next_is('[')) {
          throw InputError(m_source + ":/traceEvents",
                           "must be an array of trace events, got " + m_json.describe_next());
        }
        read_events("/traceEvents", 1);
      } else if (key == "deviceProperties") {
        read_device_properties(1);
      } else {
        m_json.skip_value(1);
      }
    }
  }

  void read_events(const std::string& pointer, std::size_t depth) {
    m_events_pointer = pointer;
    m_json.enter(depth);
    m_json.open('[', "'['");
    bool first = true;
    for (std::size_t index = 0; m_json.next_element(first); ++index) {
      if (!m_json.next_is('{')) {
        throw InputError(where(index), "must be an event object, got " + m_json.describe_next());
      }
      read_event(index, depth + 1);
    }
  }

  void read_event(std::size_t index, std::size_t depth) {
    m_json.enter(depth);
    m_json.open('{', "'{'");
    EventFields e;
    bool first = true;
    std::string_view key;
    while (m_json.next_member(first, key, m_key)) {
      if (key == "ph") {
        e.ph = m_json.string_or_skip(m_ph, depth + 1);
      } else if (key == "cat") {
        e.cat = m_json.string_or_skip(m_cat, depth + 1);
      } else if (key == "name") {
        e.name = m_json.string_or_skip(m_name, depth + 1);
      } else if (key == "ts") {
        e.ts = m_json.number_or_skip(depth + 1);
      } else if (key == "dur") {
        e.dur = m_json.number_or_skip(depth + 1);
      } else if (key == "pid") {
        e.pid = m_json.number_or_skip(depth + 1);
      } else if (key == "args") {
        read_args(e, depth + 1);
      } else {
        m_json.skip_value(depth + 1);
      }
    }
    add_event(e, index);
  }

  void read_args(EventFields& e, std::size_t depth) {
    if (!m_json.next_is('{')) {
      m_json.skip_value(depth);
      return;
    }
    m_json.enter(depth);
    m_json.open('{', "'{'");
    bool first = true;
    std::string_view key;
    while (m_json.next_member(first, key, m_key)) {
      std::optional<double>* field = nullptr;
      if (key == "device") {
        field = &e.device;
      } else if (key == "bytes") {
        field = &e.bytes;
      } else if (key == "Total Allocated") {
        field = &e.total_allocated;
      } else if (key == "Total Reserved") {
        field = &e.total_reserved;
      } else if (key == "Device Id") {
        field = &e.device_id;
      } else if (key == "Device Type") {
        field = &e.device_type;
      }
      if (field != nullptr) {
        *field = m_json.number_or_skip(depth + 1);
      } else {
        m_json.skip_value(depth + 1);
      }
    }
  }

  // deviceProperties is metadata: an entry of another shape is left out, not an error.
  void read_device_properties(std::size_t depth) {
    if (!m_json.next_is('[')) {
      m_json.skip_value(depth);
      return;
    }
    m_json.enter(depth);
    m_json.open('[', "'['");
    bool first_element = true;
    while (m_json.next_element(first_element)) {
      if (!m_json.next_is('{')) {
        m_json.skip_value(depth + 1);
        continue;
      }
      m_json.enter(depth + 1);
      m_json.open('{', "'{'");
      DeviceProperties p;
      bool first = true;
      std::string_view key;
      while (m_json.next_member(first, key, m_key)) {
        if (key == "id") {
          p.id = m_json.number_or_skip(depth + 2);
        } else if (key == "name") {
          p.name = detail::valid_utf8(m_json.string_or_skip(m_name, depth + 2));
        } else if (key == "totalGlobalMem") {
          p.memory_bytes = m_json.number_or_skip(depth + 2);
        } else {
          m_json.skip_value(depth + 2);
        }
      }
      m_devices.push_back(std::move(p));
    }
  }

  void add_event(const EventFields& e, std::size_t index) {
    if (e.ph == "M") {
      return; // metadata: process and thread names
    }
    const bool complete = e.ph == "X" || (e.ph.empty() && e.dur);
    if (!e.ts || !(*e.ts >= 0 && *e.ts <= k_max_timestamp_us) ||
        (complete && (!e.dur || !(*e.dur >= 0 && *e.dur <= k_max_event_us)))) {
      m_bad_time.add(where(index));
      return;
    }
    const double start = *e.ts;
    const double end = complete ? start + *e.dur : start;
    m_activity.see(start, end);
    if (complete && is_device_category(e.cat)) {
      add_device_span(e, start, end, index);
    } else if (complete && !is_gpu_timeline_category(e.cat) &&
               detail::is_input_loading_name(e.name)) {
      m_activity.input_loading.push_back({start, end});
    } else if (e.name == "[memory]") {
      add_memory_sample(e);
    }
  }

  void add_device_span(const EventFields& e, double start, double end, std::size_t index) {
    const auto device = device_index(e.device ? e.device : e.pid);
    if (!device) {
      m_no_device.add(where(index));
      return;
    }
    const bool copy = is_copy_category(e.cat);
    const bool kernel = iequals(e.cat, "kernel");
    const KernelClass kind = kernel ? kernel_class(e.name) : KernelClass::memory_copy;
    // Kineto names copies "Memcpy HtoD (Pageable -> Device)".
    const bool host_to_device = copy && detail::contains_ignoring_case(e.name, "htod");
    if (host_to_device && e.bytes && *e.bytes >= 0 && std::isfinite(*e.bytes)) {
      m_activity.host_to_device_bytes += *e.bytes;
    }
    m_activity.kernels += kernel ? 1 : 0;
    m_activity.device_spans.push_back({*device, start, end, kind, host_to_device});
  }

  // The caching allocator's "[memory]" instant events; Device Type 0 and Device Id -1 are the
  // CPU's.
  void add_memory_sample(const EventFields& e) {
    if (!e.device_id || !(*e.device_id >= 0) || (e.device_type && *e.device_type == 0)) {
      return;
    }
    const auto raise = [](std::optional<double>& peak, std::optional<double> v) {
      if (v && *v >= 0 && std::isfinite(*v) && (!peak || *v > *peak)) {
        peak = v;
      }
    };
    raise(m_peak_allocated, e.total_allocated);
    raise(m_peak_reserved, e.total_reserved);
  }

  // Kernel names repeat; each distinct one is classified once.
  KernelClass kernel_class(std::string_view name) {
    const auto it = m_classes.find(name);
    if (it != m_classes.end()) {
      return it->second;
    }
    const KernelClass kind = classify_kernel(name);
    // An escaped name lives in a scratch buffer that the next event overwrites: keep a copy.
    const std::string_view key =
        name.data() == m_name.data() ? m_owned_names.emplace_back(name) : name;
    m_classes.emplace(key, kind);
    return kind;
  }

  std::string where(std::size_t index) const {
    return fmt::format("{}:{}/{}", m_source, m_events_pointer, index);
  }

  TraceProfile profile() {
    TraceProfile p;
    p.source = m_source;
    p.format = "torch";
    if (m_activity.device_spans.empty()) {
      throw InputError(m_source, no_activity_message());
    }
    detail::summarize_activity(m_activity, microseconds(1).si(), p);
    describe_device(p);
    p.peak_memory_bytes = m_peak_allocated;
    p.peak_reserved_bytes = m_peak_reserved;
    add_warnings(p);
    return p;
  }

  std::string no_activity_message() const {
    std::string msg = "no GPU activity (no kernel, gpu_memcpy or gpu_memset events): was the "
                      "profiler run with ProfilerActivity.CUDA?";
    if (m_bad_time.count + m_no_device.count > 0) {
      msg += fmt::format(" ({} events were skipped as unusable)",
                         m_bad_time.count + m_no_device.count);
    }
    return msg;
  }

  // The name and memory of the lowest-numbered device with activity, from deviceProperties
  // (by id; a single entry is taken as is).
  void describe_device(TraceProfile& p) const {
    const std::int64_t device = m_activity.device_spans.front().device;
    const DeviceProperties* match = nullptr;
    for (const auto& d : m_devices) {
      if (d.id && *d.id == static_cast<double>(device)) {
        match = &d;
      }
    }
    if (match == nullptr && m_devices.size() == 1) {
      match = &m_devices.front();
    }
    if (match != nullptr) {
      p.device_name = match->name;
      if (match->memory_bytes && *match->memory_bytes > 0 && std::isfinite(*match->memory_bytes)) {
        p.device_memory_bytes = match->memory_bytes;
      }
    }
  }

  void add_warnings(TraceProfile& p) const {
    const auto plural = [](std::size_t n) { return n == 1 ? "" : "s"; };
    if (m_bad_time.count > 0) {
      p.warnings.push_back(fmt::format(
          "{}: {} event{} without a usable \"ts\" or \"dur\" (missing, not a number, negative, or "
          "longer than a day) skipped; this is the first",
          m_bad_time.first,
          m_bad_time.count,
          plural(m_bad_time.count)));
    }
    if (m_no_device.count > 0) {
      p.warnings.push_back(fmt::format(
          "{}: {} GPU event{} without a device (no numeric args.device or pid) skipped; this is "
          "the first",
          m_no_device.first,
          m_no_device.count,
          plural(m_no_device.count)));
    }
  }

  JsonCursor m_json;
  const std::string& m_source;
  bool m_saw_events = false;
  std::string m_events_pointer;
  // Scratch for strings with escapes: one per field an event keeps, one for keys.
  std::string m_key;
  std::string m_ph;
  std::string m_cat;
  std::string m_name;
  detail::TraceActivity m_activity;
  std::vector<DeviceProperties> m_devices;
  std::optional<double> m_peak_allocated;
  std::optional<double> m_peak_reserved;
  SkipCount m_bad_time;
  SkipCount m_no_device;
  std::unordered_map<std::string_view, KernelClass> m_classes;
  std::deque<std::string> m_owned_names;
};

} // namespace

TraceProfile parse_torch_trace(std::string_view json_text, const std::string& source) {
  return TorchTraceReader(json_text, source).read();
}

} // namespace rightsize
