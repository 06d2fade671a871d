#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace rightsize::detail {

namespace {

constexpr double k_max_exact_integer = 9007199254740992.0; // 2^53

// Splits `text` into records of fields, quote-aware. `line` counts physical lines, so a quoted
// field that spans lines still leaves the next record's number right.
class CsvScanner {
public:
  CsvScanner(std::string_view text, const std::string& file) : m_text(text), m_file(file) {}

  // The next non-blank record, or false at the end.
  bool next(CsvRecord& record) {
    while (m_pos < m_text.size()) {
      record.line = m_line;
      record.fields.clear();
      if (at_line_end()) { // blank line
        skip_line_end();
        continue;
      }
      read_record(record.fields);
      return true;
    }
    return false;
  }

private:
  [[nodiscard]] bool at_line_end() const {
    return m_text[m_pos] == '\n' ||
           (m_text[m_pos] == '\r' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n');
  }

  void skip_line_end() {
    m_pos += m_text[m_pos] == '\r' ? 2 : 1;
    ++m_line;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}:{}", m_file, m_line), what);
  }

  void read_record(std::vector<std::string>& fields) {
    while (true) {
      fields.push_back(m_pos < m_text.size() && m_text[m_pos] == '"' ? quoted() : plain());
      if (m_pos >= m_text.size()) {
        return;
      }
      if (m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      skip_line_end(); // plain() and quoted() stop only at a comma, a line end or the end
      return;
    }
  }

  std::string plain() {
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && m_text[m_pos] != ',' && !at_line_end()) {
      if (m_text[m_pos] == '"') {
        fail("a quote inside an unquoted field (quote the whole field and double the quote)");
      }
      if (m_text[m_pos] == '\r') {
        fail("a carriage return that does not end the line");
      }
      ++m_pos;
    }
    return std::string(m_text.substr(start, m_pos - start));
  }

  std::string quoted() {
    const std::size_t opened_on = m_line;
    ++m_pos; // the opening quote
    std::string out;
    while (true) {
      if (m_pos >= m_text.size()) {
        throw InputError(fmt::format("{}:{}", m_file, opened_on),
                         "a quoted field is not closed before the end of the file");
      }
      const char c = m_text[m_pos++];
      if (c == '"') {
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
          out += '"';
          ++m_pos;
          continue;
        }
        break;
      }
      if (c == '\n') {
        ++m_line;
      }
      out += c;
    }
    if (m_pos < m_text.size() && m_text[m_pos] != ',' && !at_line_end()) {
      fail("text after the closing quote of a field");
    }
    return out;
  }

  std::string_view m_text;
  const std::string& m_file;
  std::size_t m_pos = 0;
  std::size_t m_line = 1;
};

std::string quoted_for_error(const std::string& value) {
  constexpr std::size_t k_max = 60;
  std::string shown = value.size() > k_max ? value.substr(0, k_max) + "..." : value;
  return "\"" + shown + "\"";
}

} // namespace

CsvTable parse_csv(std::string_view text, const std::string& file, std::size_t max_records) {
  if (const auto bad = find_invalid_utf8(text); bad != std::string_view::npos) {
    const auto [line, column] = line_and_column(text, bad);
    throw InputError(fmt::format("{}:{}:{}", file, line, column),
                     text[bad] == '\0' ? "a NUL byte (is this a binary file?)"
                                       : "not valid UTF-8 text");
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") { // a byte-order mark some spreadsheets write
    text.remove_prefix(3);
  }
  CsvTable table;
  table.file = file;
  CsvScanner scanner(text, file);
  CsvRecord header;
  if (!scanner.next(header)) {
    throw InputError(file, "is empty: expected a header line naming the columns");
  }
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const std::string& name = header.fields[i];
    if (name.empty()) {
      throw InputError(fmt::format("{}:{}", file, header.line),
                       fmt::format("column {} of the header has no name", i + 1));
    }
    if (std::find(header.fields.begin(), header.fields.begin() + static_cast<long>(i), name) !=
        header.fields.begin() + static_cast<long>(i)) {
      throw InputError(fmt::format("{}:{}", file, header.line),
                       fmt::format("column \"{}\" appears twice in the header", name));
    }
  }
  table.header = std::move(header.fields);
  CsvRecord record;
  while (scanner.next(record)) {
    if (record.fields.size() != table.header.size()) {
      throw InputError(fmt::format("{}:{}", file, record.line),
                       fmt::format("has {} fields, the header names {} columns",
                                   record.fields.size(),
                                   table.header.size()));
    }
    if (table.records.size() == max_records) {
      throw InputError(fmt::format("{}:{}", file, record.line),
                       fmt::format("more than {} records", max_records));
    }
    table.records.push_back(record);
  }
  return table;
}

CsvColumns::CsvColumns(const CsvTable& table) : m_table(&table) {}

std::optional<std::size_t> CsvColumns::index(std::string_view name) const {
  const auto& h = m_table->header;
  const auto it = std::find(h.begin(), h.end(), name);
  if (it == h.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(it - h.begin());
}

void CsvColumns::require(std::initializer_list<std::string_view> names) const {
  for (const auto name : names) {
    if (!index(name)) {
      throw InputError(m_table->file + ":1",
                       fmt::format("the header has no column \"{}\"", std::string(name)));
    }
  }
}

void CsvColumns::reject_unknown(std::initializer_list<std::string_view> known) const {
  std::vector<std::string> names(known.begin(), known.end());
  for (const auto& column : m_table->header) {
    if (std::find(names.begin(), names.end(), column) == names.end()) {
      throw InputError(m_table->file + ":1",
                       fmt::format("unknown column \"{}\"{}", column, did_you_mean(column, names)));
    }
  }
}

CsvRecordReader::CsvRecordReader(const CsvTable& table, const CsvRecord& record)
    : m_table(&table), m_record(&record) {}

std::string CsvRecordReader::where() const {
  return fmt::format("{}:{}", m_table->file, m_record->line);
}

std::string CsvRecordReader::where(std::string_view column) const {
  return fmt::format("{}:{}: column \"{}\"", m_table->file, m_record->line, column);
}

const std::string* CsvRecordReader::field(std::string_view column) const {
  const auto& h = m_table->header;
  const auto it = std::find(h.begin(), h.end(), column);
  if (it == h.end()) {
    return nullptr;
  }
  return &m_record->fields[static_cast<std::size_t>(it - h.begin())];
}

bool CsvRecordReader::has(std::string_view column) const {
  const std::string* f = field(column);
  return f != nullptr && !f->empty();
}

void CsvRecordReader::fail(std::string_view column, const std::string& what) const {
  const std::string* f = field(column);
  throw InputError(where(column),
                   f == nullptr || f->empty() ? what : what + ", got " + quoted_for_error(*f));
}

std::string CsvRecordReader::string(std::string_view column) const {
  if (!has(column)) {
    throw InputError(where(column), "required field is empty");
  }
  return *field(column);
}

std::optional<std::string> CsvRecordReader::optional_string(std::string_view column) const {
  return has(column) ? std::optional<std::string>(*field(column)) : std::nullopt;
}

double CsvRecordReader::number(std::string_view column, Range range) const {
  const std::string text = string(column);
  // strtod accepts more than a number (hex, "inf", "nan", leading spaces): take only what
  // JSON would.
  const bool shaped = std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
  });
  char* end = nullptr;
  errno = 0;
  const double v = shaped ? std::strtod(text.c_str(), &end) : 0.0;
  if (!shaped || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) {
    fail(column, "must be a number");
  }
  if (!range.contains(v)) {
    fail(column, range.describe());
  }
  return v;
}

std::optional<double> CsvRecordReader::optional_number(std::string_view column,
                                                       Range range) const {
  return has(column) ? std::optional<double>(number(column, range)) : std::nullopt;
}

long long CsvRecordReader::integer(std::string_view column, Range range) const {
  const std::string text = string(column);
  const bool digits = !text.empty() && std::all_of(text.begin() + (text[0] == '-' ? 1 : 0),
                                                   text.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || text == "-" || text.size() > 16) {
    fail(column, "must be an integer");
  }
  const double v = std::strtod(text.c_str(), nullptr);
  if (std::fabs(v) > k_max_exact_integer) {
    fail(column, "must be an integer");
  }
  if (!range.contains(v)) {
    fail(column, range.describe());
  }
  return std::strtoll(text.c_str(), nullptr, 10);
}

std::optional<long long> CsvRecordReader::optional_integer(std::string_view column,
                                                           Range range) const {
  return has(column) ? std::optional<long long>(integer(column, range)) : std::nullopt;
}

} // namespace rightsize::detail
