#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace rightsize::detail {

namespace {

constexpr double k_max_exact_integer = 9007199254740992.0; // 2^53

// Splits `text` into records of fields, quote-aware. `line` counts physical lines, so a quoted
// field that spans lines still leaves the next record's number right.
class CsvScanner {
public:
  CsvScanner(std::string_view text, const std::string& file, std::deque<std::string>& unescaped)
      : m_text(text), m_file(file), m_unescaped(unescaped) {}

  void expect_fields(std::size_t n) { m_expected = n; }

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

  void read_record(std::vector<std::string_view>& fields) {
    fields.reserve(m_expected);
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

  // One tight loop: the bundled results table is 350 KB, read on plans of its models.
  std::string_view plain() {
    const std::size_t start = m_pos;
    const std::size_t size = m_text.size();
    std::size_t i = m_pos;
    for (; i < size; ++i) {
      const char c = m_text[i];
      if (c == ',' || c == '\n') {
        break;
      }
      if (c == '\r') {
        if (i + 1 < size && m_text[i + 1] == '\n') {
          break;
        }
        fail("a carriage return that does not end the line");
      }
      if (c == '"') {
        fail("a quote inside an unquoted field (quote the whole field and double the quote)");
      }
    }
    m_pos = i;
    return m_text.substr(start, i - start);
  }

  // A quoted field: a view of the text between the quotes, or, when it held a doubled quote, of
  // its unescaped copy.
  std::string_view quoted() {
    const std::size_t opened_on = m_line;
    ++m_pos; // the opening quote
    const std::size_t start = m_pos;
    std::string* out = nullptr;
    while (true) {
      // The text up to the next quote, in one piece: a quote ends the field or, doubled, is one.
      const std::size_t quote = m_text.find('"', m_pos);
      if (quote == std::string_view::npos) {
        throw InputError(fmt::format("{}:{}", m_file, opened_on),
                         "a quoted field is not closed before the end of the file");
      }
      const std::string_view piece = m_text.substr(m_pos, quote - m_pos);
      m_line += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
      m_pos = quote + 1;
      if (m_pos < m_text.size() && m_text[m_pos] == '"') {
        if (out == nullptr) {
          out = &m_unescaped.emplace_back();
          *out = m_text.substr(start, quote - start);
        } else {
          *out += piece;
        }
        *out += '"';
        ++m_pos;
        continue;
      }
      if (out != nullptr) {
        *out += piece;
      }
      break;
    }
    const std::string_view field =
        out != nullptr ? std::string_view(*out) : m_text.substr(start, m_pos - 1 - start);
    if (m_pos < m_text.size() && m_text[m_pos] != ',' && !at_line_end()) {
      fail("text after the closing quote of a field");
    }
    return field;
  }

  std::string_view m_text;
  const std::string& m_file;
  std::deque<std::string>& m_unescaped;
  std::size_t m_expected = 0;
  std::size_t m_pos = 0;
  std::size_t m_line = 1;
};

std::string quoted_for_error(std::string_view value) {
  constexpr std::size_t k_max = 60;
  const std::string shown =
      value.size() > k_max ? std::string(value.substr(0, k_max)) + "..." : std::string(value);
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
  table.text = std::make_shared<const std::string>(text);
  table.unescaped = std::make_shared<std::deque<std::string>>();
  CsvScanner scanner(*table.text, file, *table.unescaped);
  CsvRecord header;
  if (!scanner.next(header)) {
    throw InputError(file, "is empty: expected a header line naming the columns");
  }
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const std::string_view name = header.fields[i];
    if (name.empty()) {
      throw InputError(fmt::format("{}:{}", file, header.line),
                       fmt::format("column {} of the header has no name", i + 1));
    }
    if (std::find(header.fields.begin(), header.fields.begin() + static_cast<long>(i), name) !=
        header.fields.begin() + static_cast<long>(i)) {
      throw InputError(fmt::format("{}:{}", file, header.line),
                       fmt::format("column \"{}\" appears twice in the header", std::string(name)));
    }
  }
  table.header.assign(header.fields.begin(), header.fields.end());
  scanner.expect_fields(table.header.size());
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
    table.records.push_back(std::move(record));
    record = CsvRecord{};
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

const std::string_view* CsvRecordReader::field(std::string_view column) const {
  const auto& h = m_table->header;
  const auto it = std::find(h.begin(), h.end(), column);
  if (it == h.end()) {
    return nullptr;
  }
  return &m_record->fields[static_cast<std::size_t>(it - h.begin())];
}

bool CsvRecordReader::has(std::string_view column) const {
  const std::string_view* f = field(column);
  return f != nullptr && !f->empty();
}

void CsvRecordReader::fail(std::string_view column, const std::string& what) const {
  const std::string_view* f = field(column);
  throw InputError(where(column),
                   f == nullptr || f->empty() ? what : what + ", got " + quoted_for_error(*f));
}

std::string_view CsvRecordReader::view(std::string_view column) const {
  const std::string_view* f = field(column);
  if (f == nullptr || f->empty()) {
    throw InputError(where(column), "required field is empty");
  }
  return *f;
}

std::string CsvRecordReader::string(std::string_view column) const {
  return std::string(view(column));
}

std::optional<std::string> CsvRecordReader::optional_string(std::string_view column) const {
  return has(column) ? std::optional<std::string>(std::string(*field(column))) : std::nullopt;
}

double CsvRecordReader::number(std::string_view column, Range range) const {
  const std::string_view text = view(column);
  // from_chars takes more than a number ("inf", "nan"): only what JSON would.
  const bool shaped = std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
  });
  double v = 0;
  const auto [end, error] = shaped
                                ? std::from_chars(text.data(), text.data() + text.size(), v)
                                : std::from_chars_result{text.data(), std::errc::invalid_argument};
  if (!shaped || error != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    fail(column, "must be a number");
  }
  if (!range.contains(v)) {
    fail(column, range.describe());
  }
  return v;
}

std::optional<double> CsvRecordReader::optional_number(std::string_view column, Range range) const {
  return has(column) ? std::optional<double>(number(column, range)) : std::nullopt;
}

long long CsvRecordReader::integer(std::string_view column, Range range) const {
  const std::string_view text = view(column);
  long long v = 0;
  // At most 16 characters: "-" and 15 digits, below 2^53, exact as the doubles Range holds.
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.size() > 16 || text[0] == '+' || error != std::errc() ||
      end != text.data() + text.size() || std::fabs(static_cast<double>(v)) > k_max_exact_integer) {
    fail(column, "must be an integer");
  }
  if (!range.contains(static_cast<double>(v))) {
    fail(column, range.describe());
  }
  return v;
}

std::optional<long long> CsvRecordReader::optional_integer(std::string_view column,
                                                           Range range) const {
  return has(column) ? std::optional<long long>(integer(column, range)) : std::nullopt;
}

} // namespace rightsize::detail
