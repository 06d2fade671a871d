#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/json_writer.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rightsize::detail {

namespace {

// Whether a 64-bit word holds a byte that nlohmann's dump_escaped changes: a quote, a
// backslash, a control character, or anything outside ASCII (checked as UTF-8, and replaced when
// invalid). In w, a byte below 0x20 sets its top bit in
// (w - 0x20..) & ~w, a zero byte of w ^ '"'.. or w ^ '\\'.. sets it in (v - 0x01..) & ~v, and a
// byte from 0x80 has it set in w. Borrows can mark a byte above a marked one, never a byte when
// none below it is marked, so a word is flagged exactly when one of its bytes is.
bool flagged(std::uint64_t w) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t tops = 0x8080808080808080ULL;
  const std::uint64_t quote = w ^ (ones * '"');
  const std::uint64_t backslash = w ^ (ones * '\\');
  return ((((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) |
           ((backslash - ones) & ~backslash) | w) &
          tops) != 0;
}

#if defined(__SSE2__)
// Whether 16 bytes hold such a byte: as signed bytes, those below 0x20 and those from 0x80 (the
// negative ones) are less than 0x20.
bool flagged16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i marked = _mm_or_si128(
      _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return _mm_movemask_epi8(marked) != 0;
}
#endif

// Whether `s` has such a byte, many bytes at a time (a report's strings are mostly sentences,
// and its keys a few thousand names; this ran over every byte of them): sixteen at a time where
// SSE2 is (every x86-64), the last sixteen of a string of sixteen or more overlapping those
// before; eight at a time otherwise, the same way; a string shorter than eight is one word
// padded with spaces.
bool needs_escaping(std::string_view s) {
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t w = 0x2020202020202020ULL;
  if (n < 8) {
    if (n == 0) {
      return false; // and an empty view's data() may be null, which memcpy must not be given
    }
    std::memcpy(&w, p, n);
    return flagged(w);
  }
#if defined(__SSE2__)
  if (n >= 16) {
    for (; n > 16; p += 16, n -= 16) {
      if (flagged16(p)) {
        return true;
      }
    }
    return flagged16(p + n - 16);
  }
#endif
  for (; n > 8; p += 8, n -= 8) {
    std::memcpy(&w, p, 8);
    if (flagged(w)) {
      return true;
    }
  }
  std::memcpy(&w, p + n - 8, 8);
  return flagged(w);
}

// Indentation to copy from: as many spaces as a key's piece can hold.
constexpr std::array<char, 256> k_spaces = [] {
  std::array<char, 256> spaces{};
  for (char& c : spaces) {
    c = ' ';
  }
  return spaces;
}();

} // namespace

JsonWriter::JsonWriter(std::string& out, int indent) : m_out(out), m_indent(indent) {}

void JsonWriter::newline_and_indent(std::size_t depth) {
  if (m_indent >= 0) {
    m_out += '\n';
    m_out.append(depth * static_cast<std::size_t>(m_indent), ' ');
  }
}

void JsonWriter::before_value() {
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  if (m_levels.empty()) {
    return;
  }
  Level& level = m_levels.back();
  assert(!level.object && "an object's value needs a key first");
  if (!level.empty) {
    m_out += ',';
  }
  level.empty = false;
  newline_and_indent(m_levels.size());
}

JsonWriter& JsonWriter::key(std::string_view name) {
  assert(!m_levels.empty() && m_levels.back().object && !m_after_key);
  Level& level = m_levels.back();
#ifndef NDEBUG
  // nlohmann keeps an object's members in a std::map: the caller writes them in its order.
  assert((level.empty || level.last_key < name) && "keys must be written in ascending order");
  level.last_key = std::string(name);
#endif
  // The separator, indentation, quoted name and colon appended at once (a plan writes thousands
  // of keys), unless the name needs escaping or the piece is large.
  const std::size_t indent =
      m_indent >= 0 ? m_levels.size() * static_cast<std::size_t>(m_indent) : 0;
  std::array<char, 256> piece; // written before it is read
  if (indent + name.size() + 6 <= piece.size() && !needs_escaping(name)) {
    char* p = piece.data();
    if (!level.empty) {
      *p++ = ',';
    }
    if (m_indent >= 0) {
      *p++ = '\n';
      std::memcpy(p, k_spaces.data(), indent); // indent <= piece's size
      p += indent;
    }
    *p++ = '"';
    if (!name.empty()) { // an empty view's data() may be null
      std::memcpy(p, name.data(), name.size());
      p += name.size();
    }
    *p++ = '"';
    *p++ = ':';
    if (m_indent >= 0) {
      *p++ = ' ';
    }
    m_out.append(piece.data(), static_cast<std::size_t>(p - piece.data()));
  } else {
    if (!level.empty) {
      m_out += ',';
    }
    newline_and_indent(m_levels.size());
    write_string(name);
    m_out += m_indent >= 0 ? ": " : ":";
  }
  level.empty = false;
  m_after_key = true;
  return *this;
}

JsonWriter& JsonWriter::open(char bracket, bool object) {
  before_value();
  m_out += bracket;
  Level level;
  level.object = object;
  m_levels.push_back(std::move(level));
  return *this;
}

JsonWriter& JsonWriter::close(char bracket, bool object) {
  assert(!m_levels.empty() && m_levels.back().object == object && !m_after_key);
  static_cast<void>(object);
  const bool empty = m_levels.back().empty;
  m_levels.pop_back();
  if (!empty) {
    newline_and_indent(m_levels.size());
  }
  m_out += bracket;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  return open('{', true);
}

JsonWriter& JsonWriter::end_object() {
  return close('}', true);
}

JsonWriter& JsonWriter::begin_array() {
  return open('[', false);
}

JsonWriter& JsonWriter::end_array() {
  return close(']', false);
}

JsonWriter& JsonWriter::null() {
  before_value();
  m_out += "null";
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  m_out += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(double x) {
  if (!std::isfinite(x)) {
    return null();
  }
  before_value();
  // A whole number below 10^15 (bytes, counts, prices in round dollars: half of a plan's doubles)
  // comes out of nlohmann's formatting as its digits and ".0" (format_buffer writes the digits
  // with their trailing zeros up to 15 integer digits): written here from the integer, about a
  // tenth of the instructions of grisu2. tests/unit/core/test_json_writer.cpp compares the two.
  if (std::fabs(x) < 1e15 && x == std::trunc(x)) {
    std::array<char, 24> digits; // written before it is read
    char* p = digits.data();
    if (std::signbit(x)) {
      *p++ = '-'; // -0.0 too, as nlohmann writes it
    }
    p = std::to_chars(p, digits.data() + 20, static_cast<std::int64_t>(std::fabs(x))).ptr;
    *p++ = '.';
    *p++ = '0';
    m_out.append(digits.data(), static_cast<std::size_t>(p - digits.data()));
    return *this;
  }
  // nlohmann's own shortest round-trip formatting (what its serializer calls for a double), so
  // that "1.0", "1e+300" and "0.30000000000000004" come out as dump writes them.
  std::array<char, 64> buffer{};
  char* const end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
  m_out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  write_string(s);
  return *this;
}

void JsonWriter::write_string(std::string_view s) {
  if (needs_escaping(s)) {
    m_out += dump_json(nlohmann::json(std::string(s)));
    return;
  }
  m_out += '"';
  m_out += s;
  m_out += '"';
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& list) {
  begin_array();
  for (const auto& s : list) {
    value(s);
  }
  return end_array();
}

JsonWriter& JsonWriter::value(const nlohmann::json& tree) {
  switch (tree.type()) {
  case nlohmann::json::value_t::object:
    begin_object();
    for (const auto& [k, v] : tree.items()) {
      key(k);
      value(v);
    }
    return end_object();
  case nlohmann::json::value_t::array:
    begin_array();
    for (const auto& v : tree) {
      value(v);
    }
    return end_array();
  case nlohmann::json::value_t::string:
    return value(tree.get_ref<const std::string&>());
  case nlohmann::json::value_t::boolean:
    return value(tree.get<bool>());
  case nlohmann::json::value_t::number_integer:
    return integer(tree.get<std::int64_t>());
  case nlohmann::json::value_t::number_unsigned:
    return unsigned_integer(tree.get<std::uint64_t>());
  case nlohmann::json::value_t::number_float:
    return value(tree.get<double>());
  case nlohmann::json::value_t::null:
    break;
  case nlohmann::json::value_t::binary:
  case nlohmann::json::value_t::discarded:
    // Parsed or built values of a report never hold these.
    assert(false && "binary and discarded JSON values are not written");
    break;
  }
  return null();
}

namespace {

// An integer's decimal digits, as nlohmann writes them (20 digits and a sign at most).
// (A pointer and a length: append(first, last) goes through replace().)
template <class T> void append_integer(std::string& out, T n) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), n);
  out.append(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
}

} // namespace

JsonWriter& JsonWriter::integer(std::int64_t n) {
  before_value();
  append_integer(m_out, n);
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t n) {
  before_value();
  append_integer(m_out, n);
  return *this;
}

} // namespace rightsize::detail
