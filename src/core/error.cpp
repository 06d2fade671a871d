#include <rightsize/core/error.hpp>

#include <algorithm>
#include <cctype>
#include <numeric>

namespace rightsize {

InputError::InputError(std::string where, std::string detail)
    : std::runtime_error(where.empty() ? detail : where + ": " + detail), m_where(std::move(where)),
      m_detail(std::move(detail)) {}

namespace {
std::string join_messages(const std::vector<InputError>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) {
      out += '\n';
    }
    out += e.what();
  }
  return out;
}
} // namespace

InputErrors::InputErrors(std::vector<InputError> errors)
    : std::runtime_error(join_messages(errors)), m_errors(std::move(errors)) {}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0U : 1U)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_matches(std::string_view given,
                                         const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, given.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(given, c);
    // A misspelt abbreviation ("hiden" for "hidden_size") matches a prefix of the candidate.
    if (c.size() > given.size() + 1 && given.size() >= 3) {
      for (const std::size_t len : {given.size(), given.size() + 1}) {
        d = std::min(d, edit_distance(given, std::string_view(c).substr(0, len)) + 1);
      }
    }
    if (d <= limit) {
      scored.emplace_back(d, c);
    }
  }
  std::stable_sort(
      scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    // Only the closest matches: "q_projj" suggests "q_proj", not also "k_proj".
    if (out.size() == 3 || s.first > scored.front().first) {
      break;
    }
    if (std::find(out.begin(), out.end(), s.second) == out.end()) {
      out.push_back(s.second);
    }
  }
  return out;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  const auto matches = closest_matches(given, candidates);
  if (matches.empty()) {
    return {};
  }
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) {
      out += (i + 1 == matches.size()) ? " or " : ", ";
    }
    out += '"' + matches[i] + '"';
  }
  return out + "?)";
}

std::string quote_value_for_error(std::string_view json_dump) {
  constexpr std::size_t k_max = 60;
  if (json_dump.size() <= k_max) {
    return std::string(json_dump);
  }
  return std::string(json_dump.substr(0, k_max - 3)) + "...";
}

} // namespace rightsize
