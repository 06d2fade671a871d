#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace rightsize::detail {

namespace {

constexpr std::size_t k_max_json_file_bytes = 64U * 1024U * 1024U;
constexpr double k_max_exact_integer = 9007199254740992.0; // 2^53

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

// Where the first byte that is not valid UTF-8 sits, or npos.
std::size_t find_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
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

// nlohmann's own DOM builder, plus a check for duplicate keys (nlohmann keeps the last one
// silently, which hides typos). Faster than the callback parser. Objects are small, so a linear
// scan of the keys seen at each depth is cheapest.
class DuplicateCheckingSax {
public:
  explicit DuplicateCheckingSax(nlohmann::json& result)
      : m_dom(result, /*allow_exceptions=*/true) {}

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
    if (m_keys.size() <= m_depth) {
      m_keys.emplace_back();
    }
    m_keys[m_depth++].clear();
    return m_dom.start_object(n);
  }
  bool key(std::string& k) {
    auto& keys = m_keys[m_depth - 1];
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) {
      if (duplicate.empty()) {
        duplicate = k;
      }
    } else {
      keys.push_back(k);
    }
    return m_dom.key(k);
  }
  bool end_object() {
    --m_depth;
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) { return m_dom.start_array(n); }
  bool end_array() { return m_dom.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    return m_dom.parse_error(position, token, ex);
  }

  std::string duplicate;

private:
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> m_dom;
  std::vector<std::vector<std::string>> m_keys;
  std::size_t m_depth = 0;
};

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
  // Duplicate keys are rejected: nlohmann keeps the last one silently, which hides typos.
  nlohmann::json value;
  DuplicateCheckingSax sax(value);
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the position of the character that could not be read.
    const auto [line, col] = line_and_column(text, e.byte == 0 ? 0 : e.byte - 1);
    throw InputError(fmt::format("{}:{}:{}", source, line, col),
                     "invalid JSON: " + short_parse_message(e.what()));
  }
  const std::string& duplicate = sax.duplicate;
  if (!duplicate.empty()) {
    throw InputError(source, fmt::format("duplicate key \"{}\"", duplicate));
  }
  return value;
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
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw InputError(path, "cannot read file: no such file or directory");
  }
  if (S_ISDIR(info.st_mode)) {
    throw InputError(path, "is a directory, expected a JSON file");
  }
  if (static_cast<std::size_t>(info.st_size) > k_max_json_file_bytes) {
    throw InputError(path,
                     fmt::format("file is {} bytes, larger than the {} byte limit for JSON input",
                                 info.st_size,
                                 k_max_json_file_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, "cannot read file: permission denied or not a regular file");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
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
  if (std::floor(v) != v || std::fabs(v) > k_max_exact_integer) {
    fail("must be an integer");
  }
  if (!range.contains(v)) {
    fail(range.describe());
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
