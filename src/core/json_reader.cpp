#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::detail {

std::size_t find_invalid_utf8(std::string_view s) {
  constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
  constexpr std::uint64_t k_highs = 0x8080808080808080ULL;
  std::size_t i = 0;
  while (i < s.size()) {
    // Eight bytes of ASCII without NUL at a time, the common case (a high bit set, or a zero byte,
    // sends the word to the byte-by-byte checks below).
    if (i + 8 <= s.size()) {
      std::uint64_t word = 0;
      std::memcpy(&word, s.data() + i, 8);
      if (((word | ((word - k_ones) & ~word)) & k_highs) == 0) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    if (c == 0) {
      return i;
    }
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xE0U) == 0xC0U) {
      extra = 1;
    } else if ((c & 0xF0U) == 0xE0U) {
      extra = 2;
    } else if ((c & 0xF8U) == 0xF0U) {
      extra = 3;
    } else {
      return i;
    }
    if (i + extra >= s.size() && extra > 0) {
      return i;
    }
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0U) != 0x80U) {
        return i;
      }
    }
    i += extra + 1;
  }
  return std::string_view::npos;
}

namespace {

constexpr double k_max_exact_integer = 9007199254740992.0; // 2^53
constexpr std::size_t k_max_json_depth = 256;

std::string describe_type(const nlohmann::json& v) {
  if (v.is_number()) {
    return "a number";
  }
  if (v.is_string()) {
    return "a string";
  }
  if (v.is_boolean()) {
    return "a boolean";
  }
  if (v.is_null()) {
    return "null";
  }
  if (v.is_array()) {
    return "an array";
  }
  return "an object";
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1,
// column 5: "; keep only what follows the last ": " prefix we can recognise.
std::string short_parse_message(const std::string& what) {
  const auto pos = what.find("syntax error while parsing");
  std::string msg = pos == std::string::npos ? what : what.substr(pos);
  const auto colon = msg.find(" - ");
  if (colon != std::string::npos) {
    msg = msg.substr(colon + 3);
  }
  return msg;
}

// The keys of one open object, to find a duplicate: an open-addressing table of hashes into a
// byte arena of the keys, reused from one object to the next at the same depth (a generation
// number marks the slots in use), so that checking a key allocates nothing once the table has
// grown. A std::unordered_set<std::string> allocated a node and a copy of every key: an image
// classifier's config.json, with 1,000 labels in id2label and again in label2id, spent 1.5 M
// instructions there (docs/performance.md).
class KeySet {
public:
  void clear() {
    m_keys.clear();
    m_count = 0;
    if (++m_generation == 0) { // wrapped: no slot may look current
      std::fill(m_slots.begin(), m_slots.end(), Slot{});
      m_generation = 1;
    }
  }
  // False when `key` is in the set already.
  bool insert(std::string_view key) {
    if (2 * (m_count + 1) > m_slots.size()) {
      grow();
    }
    const std::uint64_t h = hash(key);
    for (std::size_t i = h & (m_slots.size() - 1);; i = (i + 1) & (m_slots.size() - 1)) {
      Slot& slot = m_slots[i];
      if (slot.generation != m_generation) {
        slot = {h, m_keys.size(), key.size(), m_generation};
        m_keys.append(key);
        ++m_count;
        return true;
      }
      if (slot.hash == h && text(slot) == key) {
        return false;
      }
    }
  }

private:
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t offset = 0; // of the key in m_keys
    std::size_t length = 0;
    std::uint32_t generation = 0; // in use when m_generation
  };
  static std::uint64_t hash(std::string_view key) {
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a
    for (const char c : key) {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    return h;
  }
  [[nodiscard]] std::string_view text(const Slot& slot) const {
    return std::string_view(m_keys).substr(slot.offset, slot.length);
  }
  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(16, 2 * m_slots.size()));
    old.swap(m_slots);
    for (const Slot& slot : old) {
      if (slot.generation == m_generation) {
        std::size_t i = slot.hash & (m_slots.size() - 1);
        while (m_slots[i].generation == m_generation) {
          i = (i + 1) & (m_slots.size() - 1);
        }
        m_slots[i] = slot;
      }
    }
  }

  std::vector<Slot> m_slots; // a power of two, at most half full
  std::string m_keys;
  std::size_t m_count = 0;
  std::uint32_t m_generation = 1;
};

// nlohmann's own DOM builder, plus what it does not check: duplicate keys (nlohmann keeps the last
// one silently, which hides typos; a hash set per open object keeps this linear) and nesting depth
// (the parser is iterative, but printing or destroying a value is recursive). Every parse error,
// including a number that overflows a double (nlohmann's out_of_range 406), is recorded instead
// of thrown, so that the caller reports one InputError with a position.
class CheckingSax {
public:
  explicit CheckingSax(nlohmann::json& result) : m_dom(result, /*allow_exceptions=*/false) {}

  bool null() { return m_dom.null(); }
  bool boolean(bool v) { return m_dom.boolean(v); }
  bool number_integer(nlohmann::json::number_integer_t v) { return m_dom.number_integer(v); }
  bool number_unsigned(nlohmann::json::number_unsigned_t v) { return m_dom.number_unsigned(v); }
  bool number_float(nlohmann::json::number_float_t v, const std::string& s) {
    return m_dom.number_float(v, s);
  }
  bool string(std::string& v) { return m_dom.string(v); }
  bool binary(nlohmann::json::binary_t& v) { return m_dom.binary(v); }
  bool start_object(std::size_t n) {
    if (!enter()) {
      return false;
    }
    if (m_keys.size() < m_depth) {
      m_keys.resize(m_depth);
    }
    m_keys[m_depth - 1].clear();
    return m_dom.start_object(n);
  }
  bool key(std::string& k) {
    if (!m_keys[m_depth - 1].insert(k) && !duplicate) {
      duplicate = k;
    }
    return m_dom.key(k);
  }
  bool end_object() {
    --m_depth;
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) { return enter() && m_dom.start_array(n); }
  bool end_array() {
    --m_depth;
    return m_dom.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& /*token*/, const Exception& ex) {
    error_byte = position;
    error = ex.what();
    return false;
  }

  std::optional<std::string> duplicate; // the first key seen twice in one object ("" is a key)
  std::string error; // empty unless the text is not valid JSON (or nests too deep)
  std::size_t error_byte = 0;

private:
  bool enter() {
    if (++m_depth > k_max_json_depth) {
      error = fmt::format("nesting deeper than {} levels", k_max_json_depth);
      return false;
    }
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<nlohmann::json> m_dom;
  // One set of keys per open object; arrays leave their slot unused.
  std::vector<KeySet> m_keys;
  std::size_t m_depth = 0;
};

// The byte offset where nesting first exceeds the limit (the SAX interface gives no position).
std::size_t deep_nesting_offset(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > k_max_json_depth) {
        return i;
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return 0;
}

// nlohmann's number overflow message: "number overflow parsing '1e400'".
std::string describe_parse_error(const std::string& what) {
  const auto overflow = what.find("number overflow parsing ");
  if (overflow != std::string::npos) {
    return "number out of range of a double: " +
           what.substr(overflow + std::string_view("number overflow parsing ").size());
  }
  return short_parse_message(what);
}

} // namespace

std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1;
  std::size_t column = 1;
  const std::size_t end = std::min(byte, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

nlohmann::json parse_json_text(std::string_view text, const std::string& source) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw InputError(source, "file is empty, expected a JSON object");
  }
  if (const auto bad = find_invalid_utf8(text); bad != std::string_view::npos) {
    const auto [line, col] = line_and_column(text, bad);
    throw InputError(fmt::format("{}:{}:{}", source, line, col),
                     "not a JSON text file (binary or non-UTF-8 data)");
  }
  nlohmann::json value;
  CheckingSax sax(value);
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &sax) || !sax.error.empty()) {
    if (sax.error.rfind("nesting deeper", 0) == 0) {
      const auto [line, col] = line_and_column(text, deep_nesting_offset(text));
      throw InputError(fmt::format("{}:{}:{}", source, line, col), "invalid JSON: " + sax.error);
    }
    // error_byte is 1-based: the position of the character that could not be read.
    const std::size_t byte = sax.error_byte == 0 ? 0 : sax.error_byte - 1;
    const auto [line, col] = line_and_column(text, byte);
    throw InputError(fmt::format("{}:{}:{}", source, line, col),
                     "invalid JSON: " + describe_parse_error(sax.error));
  }
  if (sax.duplicate) {
    throw InputError(source, fmt::format("duplicate key \"{}\"", *sax.duplicate));
  }
  return value;
}

std::string dump_json(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string valid_utf8(std::string_view text) {
  if (find_invalid_utf8(text) == std::string_view::npos) {
    return std::string(text);
  }
  return nlohmann::json::parse(dump_json(nlohmann::json(std::string(text)))).get<std::string>();
}

nlohmann::json load_json_file(const std::string& path) {
  std::string text;
  return load_json_file(path, text);
}

std::string fnv1a_hex(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

nlohmann::json load_json_file(const std::string& path, std::string& text) {
  text = read_input_file(path, k_max_json_file_bytes, "JSON input");
  return parse_json_text(text, path);
}

bool Range::contains(double v) const {
  if (!std::isfinite(v)) {
    return false;
  }
  const bool above = min_exclusive ? v > min : v >= min;
  return above && v <= max;
}

std::string Range::describe() const {
  if (min_exclusive && min == 0.0) {
    return max >= 1e18 ? "must be > 0" : fmt::format("must be > 0 and <= {:g}", max);
  }
  if (max >= 1e18) {
    return fmt::format("must be >= {:g}", min);
  }
  return fmt::format("must be between {:g} and {:g}", min, max);
}

std::string escape_pointer_token(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

FieldReader::FieldReader(const nlohmann::json& value, std::string file, std::string pointer)
    : m_value(&value), m_file(std::move(file)), m_pointer(std::move(pointer)) {}

std::string FieldReader::where() const {
  return m_file + ":" + (m_pointer.empty() ? "/" : m_pointer);
}

std::string FieldReader::where(std::string_view key) const {
  return m_file + ":" + m_pointer + "/" + escape_pointer_token(key);
}

bool FieldReader::has(std::string_view key) const {
  if (!m_value->is_object()) {
    return false;
  }
  const auto it = m_value->find(key);
  return it != m_value->end() && !it->is_null();
}

const nlohmann::json& FieldReader::require(std::string_view key) const {
  if (!m_value->is_object()) {
    fail("must be an object");
  }
  const auto it = m_value->find(key);
  if (it == m_value->end() || it->is_null()) {
    throw InputError(where(key), "required field is missing");
  }
  return *it;
}

FieldReader FieldReader::child(std::string_view key) const {
  return FieldReader(require(key), m_file, m_pointer + "/" + escape_pointer_token(key));
}

FieldReader FieldReader::member(std::string_view key) const {
  return child(key);
}

FieldReader FieldReader::object(std::string_view key) const {
  auto c = child(key);
  if (!c.json().is_object()) {
    c.fail("must be an object");
  }
  return c;
}

std::optional<FieldReader> FieldReader::optional_object(std::string_view key) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return object(key);
}

std::vector<FieldReader> FieldReader::elements() const {
  if (!m_value->is_array()) {
    fail("must be an array");
  }
  std::vector<FieldReader> out;
  out.reserve(m_value->size());
  for (std::size_t i = 0; i < m_value->size(); ++i) {
    out.emplace_back((*m_value)[i], m_file, m_pointer + "/" + std::to_string(i));
  }
  return out;
}

std::vector<FieldReader> FieldReader::array(std::string_view key) const {
  return child(key).elements();
}

std::string FieldReader::as_string() const {
  if (!m_value->is_string()) {
    fail("must be a string");
  }
  return m_value->get<std::string>();
}

double FieldReader::as_number(Range range) const {
  if (!m_value->is_number()) {
    fail("must be a number");
  }
  const double v = m_value->get<double>();
  if (!range.contains(v)) {
    fail(range.describe());
  }
  return v;
}

long long FieldReader::as_integer(Range range) const {
  if (!m_value->is_number()) {
    fail("must be an integer");
  }
  const double v = m_value->get<double>();
  if (std::floor(v) != v) {
    fail("must be an integer");
  }
  // 1e308 is a whole number, just far too large: say the range it misses.
  if (!range.contains(v)) {
    fail(range.describe());
  }
  if (std::fabs(v) > k_max_exact_integer) {
    fail("must be an integer of at most 2^53 (9007199254740992), exactly as JSON numbers hold");
  }
  return m_value->is_number_float() ? static_cast<long long>(v) : m_value->get<long long>();
}

std::string FieldReader::string(std::string_view key) const {
  return child(key).as_string();
}

std::optional<std::string> FieldReader::optional_string(std::string_view key) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return string(key);
}

std::vector<std::string> FieldReader::string_array(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& e : array(key)) {
    out.push_back(e.as_string());
  }
  return out;
}

double FieldReader::number(std::string_view key, Range range) const {
  return child(key).as_number(range);
}

std::optional<double> FieldReader::optional_number(std::string_view key, Range range) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return number(key, range);
}

long long FieldReader::integer(std::string_view key, Range range) const {
  return child(key).as_integer(range);
}

std::optional<long long> FieldReader::optional_integer(std::string_view key, Range range) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return integer(key, range);
}

bool FieldReader::boolean(std::string_view key) const {
  const auto c = child(key);
  if (!c.json().is_boolean()) {
    c.fail("must be true or false");
  }
  return c.json().get<bool>();
}

std::optional<bool> FieldReader::optional_boolean(std::string_view key) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return boolean(key);
}

void FieldReader::reject_unknown(std::initializer_list<std::string_view> known) const {
  if (!m_value->is_object()) {
    fail("must be an object");
  }
  for (const auto& [key, value] : m_value->items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      reject_unknown(std::vector<std::string>(known.begin(), known.end())); // builds the message
    }
  }
}

void FieldReader::reject_unknown(const std::vector<std::string>& known) const {
  if (!m_value->is_object()) {
    fail("must be an object");
  }
  for (const auto& [key, value] : m_value->items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw InputError(where(key),
                       fmt::format("unknown field \"{}\"{}", key, did_you_mean(key, known)));
    }
  }
}

void FieldReader::fail(const std::string& what) const {
  std::string shown = m_value->is_string() || m_value->is_number() || m_value->is_boolean()
                          ? quote_value_for_error(m_value->dump())
                          : describe_type(*m_value);
  throw InputError(where(), what + ", got " + shown);
}

void FieldReader::fail_plain(const std::string& what) const {
  throw InputError(where(), what);
}

bool FieldReader::iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string FieldReader::join(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += names[i];
  }
  return out;
}

} // namespace rightsize::detail
