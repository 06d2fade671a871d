#pragma once

// Strict reading of a CSV table (RFC 4180: comma-separated, double quotes around a field that
// holds a comma, quote or line break, "" for a quote inside one) whose first line names the
// columns. Every error names the file and line, and the column where one is concerned:
// "results.csv:12: column \"gpus\": must be an integer between 1 and 100000, got \"8x\"".

#include <rightsize/core/json_reader.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize::detail {

struct CsvRecord {
  std::size_t line = 0;                 // where the record starts, 1-based
  std::vector<std::string_view> fields; // views into the table's text (or its unescaped copies)
};

// The fields are views, not copies: a table of 350 KB parses in a few allocations. The storage they
// view is the table's and does not move with it.
struct CsvTable {
  std::string file;
  std::vector<std::string> header;
  std::vector<CsvRecord> records;          // every record has exactly header.size() fields
  std::shared_ptr<const std::string> text; // what the fields view
  std::shared_ptr<std::deque<std::string>> unescaped; // quoted fields that held a doubled quote
};

// Parses `text` (the content of `file`). Refuses, with the line: bytes that are not UTF-8 or
// NUL, an unterminated quote, a quote inside an unquoted field, text after a closing quote, a
// record whose field count differs from the header's, an empty or duplicate column name, and
// more than `max_records` records. Lines ending in CR LF are read as LF; blank lines are skipped.
CsvTable parse_csv(std::string_view text, const std::string& file, std::size_t max_records);

// The columns of a table, checked once: reject_unknown_columns() names a column it does not
// expect, with a suggestion; require() a missing one.
class CsvColumns {
public:
  explicit CsvColumns(const CsvTable& table);
  void require(std::initializer_list<std::string_view> names) const;
  void reject_unknown(std::initializer_list<std::string_view> known) const;
  // The index of `name`, or none when the table lacks it.
  [[nodiscard]] std::optional<std::size_t> index(std::string_view name) const;

private:
  const CsvTable* m_table;
};

// One record, read field by field with the same vocabulary as FieldReader. An empty field is
// absent: the optional forms return none, the required forms throw "required".
class CsvRecordReader {
public:
  CsvRecordReader(const CsvTable& table, const CsvRecord& record);

  [[nodiscard]] std::size_t line() const { return m_record->line; }
  // "file:line" and "file:line: column \"name\"".
  [[nodiscard]] std::string where() const;
  [[nodiscard]] std::string where(std::string_view column) const;

  [[nodiscard]] bool has(std::string_view column) const; // present and not empty
  [[nodiscard]] std::string string(std::string_view column) const;
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view column) const;
  [[nodiscard]] double number(std::string_view column, Range range) const;
  [[nodiscard]] std::optional<double> optional_number(std::string_view column, Range range) const;
  [[nodiscard]] long long integer(std::string_view column, Range range) const;
  [[nodiscard]] std::optional<long long> optional_integer(std::string_view column,
                                                          Range range) const;

  // One of a fixed set of names (case-insensitive), with a did-you-mean suggestion.
  template <class E>
  [[nodiscard]] E choice(std::string_view column,
                         const std::vector<std::pair<std::string, E>>& options) const {
    const std::string_view given = view(column);
    for (const auto& [name, value] : options) {
      if (FieldReader::iequals(name, given)) {
        return value;
      }
    }
    std::vector<std::string> names;
    for (const auto& option : options) {
      names.push_back(option.first);
    }
    fail(column,
         "must be one of " + FieldReader::join(names) + did_you_mean(std::string(given), names));
  }

  // Throws an InputError at `column`: "file:line: column \"c\": what, got \"value\"".
  [[noreturn]] void fail(std::string_view column, const std::string& what) const;

private:
  [[nodiscard]] const std::string_view* field(std::string_view column) const;
  // The field of a required column, not copied.
  [[nodiscard]] std::string_view view(std::string_view column) const;

  const CsvTable* m_table;
  const CsvRecord* m_record;
};

} // namespace rightsize::detail
