#pragma once

// JSON text written as it is produced, without building an nlohmann::json tree first: the same
// bytes as detail::dump_json (nlohmann's dump with U+FFFD for bad UTF-8) of the tree the calls
// describe, for reports large enough that the tree is most of their cost (a plan's candidates).
//
// The caller gives each object's keys in the order nlohmann's std::map keeps them (byte-wise
// ascending): the writer does not sort. Debug builds assert it.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rightsize::detail {

class JsonWriter {
public:
  // Appends to `out`; indent < 0 is compact, as dump_json.
  explicit JsonWriter(std::string& out, int indent = 2);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The next member's name; its value follows (a scalar, or an object or array begun).
  JsonWriter& key(std::string_view name);

  JsonWriter& null();
  JsonWriter& value(bool b);
  JsonWriter& value(double x); // non-finite: null, as nlohmann writes it
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  // Integers as nlohmann stores them: signed as int64, unsigned as uint64 (no ".0").
  template <class T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                 !std::is_same_v<T, char>,
                             int> = 0>
  JsonWriter& value(T n) {
    if constexpr (std::is_signed_v<T>) {
      return integer(static_cast<std::int64_t>(n));
    } else {
      return unsigned_integer(static_cast<std::uint64_t>(n));
    }
  }
  // A value or null.
  template <class T> JsonWriter& value(const std::optional<T>& v) { return v ? value(*v) : null(); }
  // An array of strings.
  JsonWriter& value(const std::vector<std::string>& list);
  // A tree built elsewhere (a spec change's value), member by member.
  JsonWriter& value(const nlohmann::json& tree);

  // key(name) then value(v).
  template <class T> JsonWriter& member(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

private:
  struct Level {
    bool object = false;
    bool empty = true;
#ifndef NDEBUG
    std::string last_key;
#endif
  };

  JsonWriter& integer(std::int64_t n);
  JsonWriter& unsigned_integer(std::uint64_t n);
  // Before a value: the separator and indentation of an array element (a member's are written by
  // key()).
  void before_value();
  // A string or key, quoted and escaped.
  void write_string(std::string_view s);
  JsonWriter& open(char bracket, bool object);
  JsonWriter& close(char bracket, bool object);
  void newline_and_indent(std::size_t depth);

  std::string& m_out;
  int m_indent;
  std::vector<Level> m_levels;
  bool m_after_key = false;
};

} // namespace rightsize::detail
