#pragma once

// One name table per enum: the rows {value, name} that both print a value and parse a name, so
// that the two cannot drift apart (docs/architecture.md, "Registries"). A value's first row is its
// name; later rows of the same value are aliases the parser also accepts ("on-prem" for onprem).
//
//   inline constexpr NameRow<Mode> k_mode_rows[] = {{Mode::cloud, "cloud"},
//                                                   {Mode::onprem, "onprem"},
//                                                   {Mode::onprem, "on-prem"}};
//   inline constexpr NameTable<Mode> k_mode_names{k_mode_rows};
//   k_mode_names.name(Mode::onprem) == "onprem"; k_mode_names.find("On-Prem") == Mode::onprem
//
// FieldReader::choice (core/json_reader.hpp) reads a JSON field through a table, with the error
// text that lists every row's name and a did-you-mean suggestion.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

template <class E> struct NameRow {
  E value;
  std::string_view name;
};

// A view of a static array of rows; the array must outlive the table (tables are namespace-scope
// constants over namespace-scope arrays).
template <class E> class NameTable {
public:
  template <std::size_t N>
  constexpr explicit NameTable(const NameRow<E> (&rows)[N]) : m_rows(rows), m_size(N) {}

  // The value's name: its first row. A value without a row is a bug of the table; it gets the
  // first row's name, as the switches this replaces fell back to their first case.
  [[nodiscard]] constexpr std::string_view name(E value) const {
    for (const NameRow<E>& row : *this) {
      if (row.value == value) {
        return row.name;
      }
    }
    return m_rows[0].name;
  }

  // The value `name` stands for, in any row, ASCII case-insensitive; nullopt when no row has it.
  [[nodiscard]] constexpr std::optional<E> find(std::string_view name) const {
    for (const NameRow<E>& row : *this) {
      if (same_name(row.name, name)) {
        return row.value;
      }
    }
    return std::nullopt;
  }

  // Every row's name, aliases included, in order: what the parser accepts, as errors list it.
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(m_size);
    for (const NameRow<E>& row : *this) {
      out.emplace_back(row.name);
    }
    return out;
  }

  // Each value once, in the order of its first row.
  [[nodiscard]] std::vector<E> values() const {
    std::vector<E> out;
    for (std::size_t i = 0; i < m_size; ++i) {
      if (first_row_of(i)) {
        out.push_back(m_rows[i].value);
      }
    }
    return out;
  }

  // Each value's name (its first row), without the aliases, in order.
  [[nodiscard]] std::vector<std::string> primary_names() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < m_size; ++i) {
      if (first_row_of(i)) {
        out.emplace_back(m_rows[i].name);
      }
    }
    return out;
  }

  [[nodiscard]] constexpr const NameRow<E>* begin() const { return m_rows; }
  [[nodiscard]] constexpr const NameRow<E>* end() const { return m_rows + m_size; }
  [[nodiscard]] constexpr std::size_t size() const { return m_size; }

private:
  [[nodiscard]] constexpr bool first_row_of(std::size_t i) const {
    for (std::size_t j = 0; j < i; ++j) {
      if (m_rows[j].value == m_rows[i].value) {
        return false;
      }
    }
    return true;
  }

  static constexpr char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  }

  static constexpr bool same_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (lower(a[i]) != lower(b[i])) {
        return false;
      }
    }
    return true;
  }

  const NameRow<E>* m_rows;
  std::size_t m_size;
};

} // namespace rightsize
