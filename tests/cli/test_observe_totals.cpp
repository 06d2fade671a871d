// rightsize observe's fleet totals are the sums of the rows they show, in every format that shows
// both (issue 43, defect 6: a row saved $547.50 while the summary said $0.00).

#include "cli_helpers.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace rightsize {
namespace {

std::vector<std::string> fleet_args(const std::string& format) {
  const std::string dir = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/observe/";
  return {"observe",
          "--dcgm",
          dir + "cluster.prom",
          "--nvidia-smi",
          dir + "node-12.csv",
          "--group-by",
          "host",
          "--no-mig",
          "--format",
          format};
}

// "$1,234" or "$547.50" -> 1234, 547.5.
double dollars(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '$' || c == ','; }),
             text.end());
  return std::stod(text);
}

struct Sums {
  double saved = 0;
  double added = 0;
};

// The last money cell of a row: "$547.50" saved, "+$3,723 more" added, "-" unknown.
void add_cell(Sums& sums, const std::string& cell) {
  static const std::regex k_money(R"((\+?)(\$[0-9,]+(?:\.[0-9]+)?))");
  std::smatch m;
  if (std::regex_search(cell, m, k_money)) {
    (m[1].length() > 0 ? sums.added : sums.saved) += dollars(m[2].str());
  }
}

// Money under $1,000 prints to the cent, above it to the dollar: one dollar per row is the most
// the printed rows may differ from the total.
constexpr double k_rounding = 1.0;

} // namespace

TEST_CASE("observe: the fleet's totals are the sums of its rows, in every format",
          "[observe][cli]") {
  const auto json = test::run_in_process(fleet_args("json"));
  REQUIRE(json.exit_code == 0);
  const auto report = nlohmann::json::parse(json.out);
  Sums rows;
  double freed = 0;
  for (const auto& w : report.at("workloads")) {
    const auto& r = w.at("recommendation");
    if (r.is_null()) {
      continue;
    }
    const auto& saved = r.at("usd_per_month_saved");
    if (saved.is_number()) {
      (saved.get<double>() >= 0 ? rows.saved : rows.added) += std::abs(saved.get<double>());
    }
    freed += r.at("gpus_freed").get<double>();
  }
  const auto& summary = report.at("summary");
  CHECK(summary.at("usd_per_month_saved").get<double>() == Approx(rows.saved).margin(0.01));
  CHECK(summary.at("usd_per_month_added").get<double>() == Approx(rows.added).margin(0.01));
  CHECK(summary.at("gpus_freed").get<double>() == Approx(freed));
  // The example has a row whose saving the old summary dropped: the test must be able to fail.
  CHECK(rows.saved > 0);

  SECTION("csv rows add up to the JSON summary") {
    const auto csv = test::run_in_process(fleet_args("csv"));
    REQUIRE(csv.exit_code == 0);
    std::istringstream in(csv.out);
    std::string line;
    std::getline(in, line); // header: usd_per_month_saved is the last column
    REQUIRE(line.substr(line.rfind(',') + 1) == "usd_per_month_saved");
    Sums sums;
    while (std::getline(in, line)) {
      const std::string cell = line.substr(line.rfind(',') + 1);
      if (!cell.empty()) {
        const double v = std::stod(cell);
        (v >= 0 ? sums.saved : sums.added) += std::abs(v);
      }
    }
    CHECK(sums.saved == Approx(rows.saved).margin(0.01));
    CHECK(sums.added == Approx(rows.added).margin(0.01));
  }

  for (const std::string format : {"table", "markdown"}) {
    DYNAMIC_SECTION(format << ": the summary line's saving is its rows' SAVED column") {
      const auto text = test::run_in_process(fleet_args(format));
      REQUIRE(text.exit_code == 0);
      std::smatch m;
      static const std::regex k_saves(R"(saves (\$[0-9,.]+)/month)");
      REQUIRE(std::regex_search(text.out, m, k_saves));
      const double total = dollars(m[1].str());
      // The rows: after the header line (WORKLOAD ... or | workload ...), up to a blank line.
      std::istringstream in(text.out);
      std::string line;
      Sums sums;
      std::size_t n = 0;
      bool in_rows = false;
      while (std::getline(in, line)) {
        if (!in_rows) {
          in_rows = line.rfind("WORKLOAD ", 0) == 0 || line.rfind("|---", 0) == 0;
          continue;
        }
        if (line.empty()) {
          break;
        }
        const auto cut = format == "table" ? line.rfind("  ") : line.rfind("| ", line.size() - 2);
        add_cell(sums, line.substr(cut));
        ++n;
      }
      REQUIRE(n == report.at("workloads").size());
      const double margin = k_rounding * static_cast<double>(n);
      CHECK(total == Approx(sums.saved).margin(margin));
      CHECK(total == Approx(summary.at("usd_per_month_saved").get<double>()).margin(k_rounding));
    }
  }
}

} // namespace rightsize
