#pragma once

// Strict JSON reading with errors that name the file and the JSON pointer of the offending field.

#include <rightsize/core/error.hpp>
#include <rightsize/core/names.hpp>

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize::detail {

// Reads and parses a JSON file. Every failure is an InputError naming the file: missing,
// unreadable, a directory, empty, binary, too large, a syntax error (with line:column) or a
// duplicate key.
nlohmann::json load_json_file(const std::string& path);
// Same, and hands back the file's bytes (for digests of what was read).
nlohmann::json load_json_file(const std::string& path, std::string& text);

// FNV-1a 64-bit hash of `text`, as 16 hex digits: a digest for lock files, not for security.
std::string fnv1a_hex(std::string_view text);

// JSON text of `value` for output. Strings that are not valid UTF-8 (a file name with a stray
// byte) are written with U+FFFD in place of the bad bytes instead of throwing; indent < 0 is
// compact.
std::string dump_json(const nlohmann::json& value, int indent = -1);

// `text` with each byte that is not valid UTF-8 replaced by U+FFFD, as dump_json writes it.
std::string valid_utf8(std::string_view text);

// Parses JSON text that came from `source` (a file name used in error messages).
nlohmann::json parse_json_text(std::string_view text, const std::string& source);

// "1:5" style position of a byte offset in text.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t byte);

// Where the first byte that is not valid UTF-8 (or is NUL) sits in `s`, or npos.
std::size_t find_invalid_utf8(std::string_view s);

// An inclusive range check for numbers; min_exclusive makes the lower bound strict.
struct Range {
  double min;
  double max;
  bool min_exclusive = false;

  static Range positive(double max = 1e18) { return {0.0, max, true}; }
  static Range non_negative(double max = 1e18) { return {0.0, max, false}; }
  static Range between(double lo, double hi) { return {lo, hi, false}; }
  [[nodiscard]] bool contains(double v) const;
  [[nodiscard]] std::string describe() const;
};

std::string escape_pointer_token(std::string_view key);

// A view of one JSON value that knows where it sits (file and JSON pointer), so that every
// error it raises can say "file:/a/b: must be >= 1, got 0".
class FieldReader {
public:
  FieldReader(const nlohmann::json& value, std::string file, std::string pointer = "");

  [[nodiscard]] const nlohmann::json& json() const { return *m_value; }
  [[nodiscard]] const std::string& file() const { return m_file; }
  [[nodiscard]] const std::string& pointer() const { return m_pointer; }
  // "file:/pointer" of this value, or of its member `key`.
  [[nodiscard]] std::string where() const;
  [[nodiscard]] std::string where(std::string_view key) const;

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] bool is_object() const { return m_value->is_object(); }

  // Members. The required forms throw when the member is missing or of the wrong type.
  [[nodiscard]] FieldReader object(std::string_view key) const;
  [[nodiscard]] std::optional<FieldReader> optional_object(std::string_view key) const;
  [[nodiscard]] FieldReader member(std::string_view key) const; // any type
  [[nodiscard]] std::vector<FieldReader> array(std::string_view key) const;
  [[nodiscard]] std::vector<FieldReader> elements() const; // this value must be an array

  [[nodiscard]] std::string string(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> string_array(std::string_view key) const;
  [[nodiscard]] double number(std::string_view key, Range range) const;
  [[nodiscard]] std::optional<double> optional_number(std::string_view key, Range range) const;
  [[nodiscard]] long long integer(std::string_view key, Range range) const;
  [[nodiscard]] std::optional<long long> optional_integer(std::string_view key, Range range) const;
  [[nodiscard]] bool boolean(std::string_view key) const;
  [[nodiscard]] std::optional<bool> optional_boolean(std::string_view key) const;

  // This value itself, typed.
  [[nodiscard]] std::string as_string() const;
  [[nodiscard]] double as_number(Range range) const;
  [[nodiscard]] long long as_integer(Range range) const;

  // One of a fixed set of names (case-insensitive), mapped to a value; unknown names get a
  // did-you-mean suggestion.
  template <class E>
  [[nodiscard]] E choice(std::string_view key,
                         const std::vector<std::pair<std::string, E>>& options) const {
    return member(key).as_choice(options);
  }
  template <class E>
  [[nodiscard]] E as_choice(const std::vector<std::pair<std::string, E>>& options) const {
    const std::string given = as_string();
    std::vector<std::string> names;
    for (const auto& [name, value] : options) {
      if (iequals(name, given)) {
        return value;
      }
      names.push_back(name);
    }
    fail("must be one of " + join(names) + did_you_mean(given, names));
  }

  // One of the names of an enum's table (core/names.hpp), aliases included, case-insensitive;
  // an unknown name fails with every row's name and a did-you-mean suggestion, as above.
  template <class E> [[nodiscard]] E choice(std::string_view key, const NameTable<E>& table) const {
    return member(key).as_choice(table);
  }
  template <class E> [[nodiscard]] E as_choice(const NameTable<E>& table) const {
    const std::string given = as_string();
    if (const std::optional<E> value = table.find(given)) {
      return *value;
    }
    const std::vector<std::string> names = table.names();
    fail("must be one of " + join(names) + did_you_mean(given, names));
  }

  // Throws on the first member whose key is not in `known`, with a suggestion.
  void reject_unknown(std::initializer_list<std::string_view> known) const;
  void reject_unknown(const std::vector<std::string>& known) const;

  // Throws an InputError at this value: "file:/ptr: what, got <value>".
  [[noreturn]] void fail(const std::string& what) const;
  // Same, without the ", got" part (for missing fields and structural problems).
  [[noreturn]] void fail_plain(const std::string& what) const;

  static bool iequals(std::string_view a, std::string_view b);
  static std::string join(const std::vector<std::string>& names);

private:
  [[nodiscard]] const nlohmann::json& require(std::string_view key) const;
  [[nodiscard]] FieldReader child(std::string_view key) const;

  const nlohmann::json* m_value;
  std::string m_file;
  std::string m_pointer;
};

} // namespace rightsize::detail
