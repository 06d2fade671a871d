#pragma once

// The JSON values of a benchmark result file, as Python's json module writes them: one object, or
// one object per line (JSON Lines: SGLang, vLLM --append-result), and the bare tokens Infinity,
// -Infinity and NaN that json.dumps writes for non-finite floats (SGLang's default request_rate is
// Infinity), which strict JSON, and so nlohmann's parser, refuses.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::calibrate {

// The strings the bare tokens become: a number field holding one fails as not finite, a request
// rate of "Infinity" reads as an infinite rate.
inline constexpr std::string_view k_infinity = "Infinity";
inline constexpr std::string_view k_minus_infinity = "-Infinity";
inline constexpr std::string_view k_nan = "NaN";

struct JsonValueText {
  std::size_t begin = 0; // byte offsets into the file's text
  std::size_t end = 0;
  std::size_t line = 1;                // where it begins, 1-based
  std::vector<std::size_t> non_finite; // offsets of the bare tokens inside it
};

// The top-level values of `text`, in order, found by a scan that knows strings and escapes: each
// begins with '{' or '[' and ends where its brackets close; whitespace separates them. Anything
// else at the top level (or brackets that never close) runs to the end of the text, for the parser
// to refuse. Empty when the text is only whitespace.
std::vector<JsonValueText> split_json_values(std::string_view text);

// One value parsed, its bare tokens read as the strings above. A syntax error is an InputError at
// "file:line:column" of the whole text; other parse errors (a duplicate key) name `source`.
nlohmann::json parse_json_value(std::string_view text,
                                const JsonValueText& value,
                                const std::string& file,
                                const std::string& source);

} // namespace rightsize::calibrate
