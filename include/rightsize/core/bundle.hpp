#pragma once

// Data files compiled into the binary (docs/catalog.md, "How the bundled data is loaded"): a
// stage's build-time tool loads each bundled data file with the stage's own validating loader and
// writes a source file holding the file's exact text and the loaded value, serialized. At run time
// a loader that reads a file whose bytes equal the embedded text returns the embedded value
// instead of parsing and validating the text again; any other file (edited data, an overlay) is
// parsed as before. The catalog stage embeds gpus.json and engines.json, the estimate stage
// memory.json, efficiency.json and uncertainty.json.
//
// A stage adds a file by: describe() for each struct of its value (below), a serialize and a
// deserialize function over BlobWriter and BlobReader, a line in its tool calling
// embed_bundled_file(), an accessor in its stand-in without data, and the file among the tool's
// inputs in its CMakeLists.txt (src/catalog/ and src/estimate/ for examples).

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/units.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rightsize::detail {

// One data file as the build embedded it. Both empty when the build could not load the file:
// it is then read at run time like any other, and reports its problems there.
struct BundledFile {
  std::string_view text;  // the file's bytes
  std::string_view value; // the loader's value, serialized
  // The bytes a file must hold for `value` to stand for it (read_input_file_unless,
  // core/files.hpp); empty, matching no file, when nothing is embedded.
  [[nodiscard]] std::string_view known() const { return value.empty() ? std::string_view() : text; }
};

// The fields of a struct for the blob, in one list that serves writing (const) and reading:
//   template <class A, class T, if_is<T, Price> = 0> void describe(A& a, T& p) {
//     a(p.provider, p.kind, p.per_gpu);
//   }
// declared in namespace rightsize::detail (or the struct's own), where the blob finds it.
template <class T, class U>
using if_is = std::enable_if_t<std::is_same_v<std::remove_const_t<T>, U>, int>;

// Written in front of every blob, so that a blob of another layout is refused, not misread.
inline constexpr std::string_view k_blob_magic = "rightsize-bundle-1";

template <class T> constexpr bool is_quantity = false;
template <class Tag> constexpr bool is_quantity<Quantity<Tag>> = true;

// A value's bytes: bools, integers, enums, doubles and quantities (their SI value), strings,
// vectors, maps, optionals, JSON values (as their dump) and structs with describe().
class BlobWriter {
public:
  BlobWriter() { m_out.append(k_blob_magic); }

  template <class... T> void operator()(const T&... values) { (write(values), ...); }
  // A field a reader may drop (BlobReader's `drop_droppable`): its length in bytes, then the
  // field, so that dropping it is one step.
  template <class T> void droppable(const T& value) {
    const std::size_t at = m_out.size();
    size(0);
    const std::size_t start = m_out.size();
    write(value);
    const auto length = static_cast<std::uint64_t>(m_out.size() - start);
    std::memcpy(&m_out[at], &length, sizeof length);
  }
  std::string take() { return std::move(m_out); }

private:
  template <class T> void write(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      raw(static_cast<std::uint8_t>(value ? 1 : 0));
    } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
      raw(static_cast<std::int64_t>(value));
    } else if constexpr (std::is_same_v<T, double>) {
      raw(value);
    } else if constexpr (is_quantity<T>) {
      raw(value.si());
    } else {
      describe(*this, value);
    }
  }
  void write(const std::string& s) {
    size(s.size());
    m_out.append(s);
  }
  void write(const nlohmann::json& j) { write(j.dump()); }
  template <class T> void write(const std::vector<T>& v) {
    size(v.size());
    for (const auto& e : v) {
      write(e);
    }
  }
  template <class K, class V, class C> void write(const std::map<K, V, C>& m) {
    size(m.size());
    for (const auto& [k, v] : m) {
      write(k);
      write(v);
    }
  }
  template <class T> void write(const std::optional<T>& o) {
    write(o.has_value());
    if (o) {
      write(*o);
    }
  }

  void size(std::size_t n) { raw(static_cast<std::uint64_t>(n)); }
  // In the host's byte order: the blob is read by the binary built beside it.
  template <class T> void raw(T value) {
    std::array<char, sizeof value> bytes{};
    std::memcpy(bytes.data(), &value, sizeof value);
    m_out.append(bytes.data(), bytes.size());
  }

  std::string m_out;
};

// Reads what BlobWriter wrote; malformed input (never written by it) throws InternalError.
class BlobReader {
public:
  // With `drop_droppable`, the fields written as droppable() are read past and left empty (the
  // catalog's sources, for a command that reads none).
  explicit BlobReader(std::string_view blob, bool drop_droppable = false)
      : m_rest(blob), m_drop(drop_droppable) {
    if (m_rest.substr(0, k_blob_magic.size()) != k_blob_magic) {
      throw InternalError("bundled data: not a blob of this build");
    }
    m_rest.remove_prefix(k_blob_magic.size());
  }

  template <class... T> void operator()(T&... values) { (read(values), ...); }
  template <class T> void droppable(T& value) {
    const std::size_t length = size();
    if (m_drop) {
      value = T{};
      take(length);
      return;
    }
    const std::size_t before = m_rest.size();
    read(value);
    if (before - m_rest.size() != length) {
      throw InternalError("bundled data: a field's length is not what was written");
    }
  }
  // A vector, as the writer wrote it, keeping only the elements `keep` accepts: each is read into
  // one scratch value, moved out when kept; the strings of one that is not keep their buffers for
  // the next.
  template <class T, class Keep> void read_where(std::vector<T>& v, const Keep& keep) {
    const std::size_t n = size();
    v.clear();
    v.reserve(n); // pages only the kept elements touch
    T scratch{};
    for (std::size_t i = 0; i < n; ++i) {
      read(scratch);
      if (keep(static_cast<const T&>(scratch))) {
        v.push_back(std::move(scratch));
      }
    }
  }
  void expect_end() const {
    if (!m_rest.empty()) {
      throw InternalError("bundled data: bytes left over");
    }
  }

private:
  template <class T> void read(T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      value = raw<std::uint8_t>() != 0;
    } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
      value = static_cast<T>(raw<std::int64_t>());
    } else if constexpr (std::is_same_v<T, double>) {
      value = raw<double>();
    } else if constexpr (is_quantity<T>) {
      value = T(raw<double>());
    } else {
      describe(*this, value);
    }
  }
  void read(std::string& s) {
    const std::size_t n = size();
    const char* bytes = take(n);
    if (s.empty()) {
      s = std::string(bytes, n); // a fresh string built at its size: fewer steps than assign's
    } else {
      s.assign(bytes, n); // read_where's scratch: its buffer reused
    }
  }
  void read(nlohmann::json& j) {
    std::string text;
    read(text);
    j = nlohmann::json::parse(text);
  }
  template <class T> void read(std::vector<T>& v) {
    const std::size_t n = size();
    v.clear();
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      read(v.emplace_back());
    }
  }
  // Written in key order, so each entry goes in at the end.
  template <class K, class V, class C> void read(std::map<K, V, C>& m) {
    const std::size_t n = size();
    m.clear();
    for (std::size_t i = 0; i < n; ++i) {
      K key{};
      read(key);
      read(m.emplace_hint(m.end(), std::move(key), V{})->second);
    }
  }
  template <class T> void read(std::optional<T>& o) {
    o.reset();
    if (raw<std::uint8_t>() != 0) {
      read(o.emplace());
    }
  }

  // The throw apart, so that size() and take() stay small enough to be inlined wherever they
  // are called (in a unit of many reads, GCC's unit growth limit otherwise keeps them calls).
  [[noreturn]] static void truncated() { throw InternalError("bundled data: truncated"); }
  std::size_t size() {
    const auto n = raw<std::uint64_t>();
    if (n > m_rest.size()) {
      truncated();
    }
    return static_cast<std::size_t>(n);
  }
  const char* take(std::size_t n) {
    if (n > m_rest.size()) {
      truncated();
    }
    const char* p = m_rest.data();
    m_rest.remove_prefix(n);
    return p;
  }
  template <class T> T raw() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }

  std::string_view m_rest;
  bool m_drop = false;
};

template <class T> std::string serialize_blob(const T& value) {
  BlobWriter writer;
  writer(value);
  return writer.take();
}

template <class T> T deserialize_blob(std::string_view blob, bool drop_droppable = false) {
  T value;
  BlobReader reader(blob, drop_droppable);
  reader(value);
  reader.expect_end();
  return value;
}

// --- For the build-time tools

// A C++ string literal of `bytes`, broken into lines: printable ASCII as is, the rest as
// three-digit octal escapes (which, unlike \x, cannot swallow a following digit).
inline std::string bundle_literal(std::string_view bytes) {
  std::string out = "\"";
  std::size_t column = 0;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += fmt::format("\\{:03o}", c);
    }
    if (c == '\n' || ++column >= 100) {
      out += "\"\n    \"";
      column = 0;
    }
  }
  return out + "\"";
}

// The definition of the accessor `function` returning `path`'s text and `value(path)` (the file
// loaded and serialized), or nothing, with a warning from `tool`, when the file does not load.
inline std::string embed_bundled_file(const std::string& tool,
                                      const std::string& function,
                                      const std::string& path,
                                      const std::function<std::string(const std::string&)>& value) {
  const std::string text = read_input_file(path, k_max_json_file_bytes, "JSON input");
  std::string blob;
  try {
    blob = value(path);
  } catch (const std::exception& e) {
    std::cerr << tool << ": warning: " << path
              << " does not load, so it is not embedded; rightsize will read it at run time and "
                 "report:\n"
              << e.what() << "\n";
    return fmt::format("BundledFile {}() {{\n  return {{}};\n}}\n", function);
  }
  if (read_input_file(path, k_max_json_file_bytes, "JSON input") != text) {
    throw InputError(path, "changed while it was being embedded; build again");
  }
  return fmt::format("BundledFile {}() {{\n"
                     "  static constexpr char text[] =\n    {};\n"
                     "  static constexpr char value[] =\n    {};\n"
                     "  return {{{{text, sizeof text - 1}}, {{value, sizeof value - 1}}}};\n"
                     "}}\n",
                     function,
                     bundle_literal(text),
                     bundle_literal(blob));
}

} // namespace rightsize::detail
