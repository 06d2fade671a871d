// Dates of prices: parsing YYYY-MM-DD and telling a stale price.

#include <rightsize/catalog/catalog.hpp>

#include <array>
#include <cctype>
#include <string>

namespace rightsize {

std::optional<long> parse_date(const std::string& text) {
  int y = 0;
  unsigned m = 0;
  unsigned d = 0;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  for (const std::size_t i : {0U, 1U, 2U, 3U, 5U, 6U, 8U, 9U}) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      return std::nullopt;
    }
  }
  y = std::stoi(text.substr(0, 4));
  m = static_cast<unsigned>(std::stoi(text.substr(5, 2)));
  d = static_cast<unsigned>(std::stoi(text.substr(8, 2)));
  static const std::array<unsigned, 12> month_days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > month_days[m - 1] + ((m == 2 && leap) ? 1U : 0U)) {
    return std::nullopt;
  }
  // days_from_civil (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  y -= m <= 2 ? 1 : 0;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

bool is_stale(const std::string& as_of, const std::string& today, long max_age_days) {
  const auto a = parse_date(as_of);
  const auto t = parse_date(today);
  return a && t && (*t - *a) > max_age_days;
}

} // namespace rightsize
