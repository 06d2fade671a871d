#include "json_values.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <utility>

namespace rightsize::calibrate {

namespace {

constexpr std::string_view k_bom = "\xEF\xBB\xBF";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '+' || c == '-';
}

// The bare token at `i`, if one starts there and stands alone (after a separator, before a
// non-word byte): its length.
std::size_t non_finite_token_at(std::string_view text, std::size_t i) {
  if (i > 0) {
    const char before = text[i - 1];
    if (!is_space(before) && before != ':' && before != ',' && before != '[') {
      return 0;
    }
  }
  for (const std::string_view token : {k_infinity, k_minus_infinity, k_nan}) {
    if (text.compare(i, token.size(), token) == 0 &&
        (i + token.size() == text.size() || !is_word(text[i + token.size()]))) {
      return token.size();
    }
  }
  return 0;
}

std::size_t token_length(std::string_view text, std::size_t offset) {
  return text[offset] == '-'   ? k_minus_infinity.size()
         : text[offset] == 'I' ? k_infinity.size()
                               : k_nan.size();
}

// The scan of one value from `begin`, its brackets balanced; returns where it ends.
std::size_t scan_value(std::string_view text, std::size_t begin, JsonValueText& value) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = begin; i < text.size(); ++i) {
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
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) {
        return i + 1;
      }
    } else if (c == 'I' || c == 'N' || c == '-') {
      if (const std::size_t n = non_finite_token_at(text, i); n > 0) {
        value.non_finite.push_back(i);
        i += n - 1;
      }
    }
  }
  return text.size();
}

// "12:34" -> {12, 34}.
std::optional<std::pair<std::size_t, std::size_t>> line_column(std::string_view s) {
  const auto colon = s.find(':');
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t line = 0;
  std::size_t column = 0;
  const char* mid = s.data() + colon;
  const auto a = std::from_chars(s.data(), mid, line);
  const auto b = std::from_chars(mid + 1, s.data() + s.size(), column);
  if (a.ec != std::errc() || a.ptr != mid || b.ec != std::errc() || b.ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return std::pair{line, column};
}

// The byte of the file's text that a byte of the value's mapped text came from: each bare token
// became two bytes longer (its quotes); a byte inside one maps to the token's start.
std::size_t original_offset(std::string_view text, const JsonValueText& value, std::size_t mapped) {
  std::size_t shift = 0;
  for (std::size_t k = 0; k < value.non_finite.size(); ++k) {
    const std::size_t start = value.non_finite[k] - value.begin + 2 * k;
    if (mapped < start) {
      break;
    }
    if (mapped < start + token_length(text, value.non_finite[k]) + 2) {
      return value.non_finite[k];
    }
    shift = 2 * (k + 1);
  }
  return value.begin + mapped - shift;
}

std::size_t offset_of(std::string_view text, std::size_t line, std::size_t column) {
  std::size_t offset = 0;
  for (std::size_t l = 1; l < line && offset < text.size(); ++offset) {
    if (text[offset] == '\n') {
      ++l;
    }
  }
  return offset + (column > 0 ? column - 1 : 0);
}

} // namespace

std::vector<JsonValueText> split_json_values(std::string_view text) {
  std::vector<JsonValueText> values;
  std::size_t i = text.compare(0, k_bom.size(), k_bom) == 0 ? k_bom.size() : 0;
  std::size_t line = 1;
  while (i < text.size()) {
    const char c = text[i];
    if (is_space(c)) {
      line += c == '\n' ? 1 : 0;
      ++i;
      continue;
    }
    JsonValueText value;
    value.begin = i;
    value.line = line;
    value.end = c == '{' || c == '[' ? scan_value(text, i, value) : text.size();
    for (std::size_t k = value.begin; k < value.end; ++k) {
      line += text[k] == '\n' ? 1 : 0;
    }
    i = value.end;
    values.push_back(std::move(value));
  }
  return values;
}

nlohmann::json parse_json_value(std::string_view text,
                                const JsonValueText& value,
                                const std::string& file,
                                const std::string& source) {
  std::string mapped;
  mapped.reserve(value.end - value.begin + 2 * value.non_finite.size());
  std::size_t from = value.begin;
  for (const std::size_t token : value.non_finite) {
    const std::size_t n = token_length(text, token);
    mapped.append(text.substr(from, token - from));
    mapped.append("\"").append(text.substr(token, n)).append("\"");
    from = token + n;
  }
  mapped.append(text.substr(from, value.end - from));
  try {
    return detail::parse_json_text(mapped, file);
  } catch (const InputError& e) {
    const std::string& where = e.where();
    if (where.size() > file.size() && where.compare(0, file.size() + 1, file + ":") == 0) {
      if (const auto lc = line_column(std::string_view(where).substr(file.size() + 1))) {
        const std::size_t at =
            original_offset(text, value, offset_of(mapped, lc->first, lc->second));
        const auto [line, column] = detail::line_and_column(text, at);
        throw InputError(fmt::format("{}:{}:{}", file, line, column), e.detail());
      }
    }
    throw InputError(source, e.detail());
  }
}

} // namespace rightsize::calibrate
