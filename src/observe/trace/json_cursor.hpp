#pragma once

// The strict streaming JSON scanner the torch.profiler reader (trace_torch.cpp) reads its traces
// with: traces run to hundreds of megabytes, so the text is scanned once, values read or skipped
// in place, instead of building a DOM. Defined here whole so that its small steps inline into the
// reader's loops. docs/observe.md, "Traces".

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace rightsize::detail {

// Values nested deeper than this are refused as a syntax error.
inline constexpr std::size_t k_max_json_depth = 256;

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
    if (depth >= k_max_json_depth) {
      fail_at(m_pos, fmt::format("nesting deeper than {} levels", k_max_json_depth));
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

} // namespace rightsize::detail
