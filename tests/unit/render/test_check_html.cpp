// rightsize check's HTML page and SVG chart (src/render/check_html.cpp), from results built by
// hand: a crossed cost rise is drawn red with its threshold tick where 1 + threshold puts it, one
// under its threshold blue, a throughput drop's tick below the locked figure; every figure is in
// the table; specs that did not move, or were added, removed or failed, are said in words.

#include "occurrences.hpp"

#include <rightsize/render/check.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using namespace rightsize;
using rightsize::test::occurrences;

namespace {

// The first element of `tag` whose text holds every one of `parts`; empty when none does.
std::string element_with(const std::string& text,
                         const std::string& tag,
                         const std::vector<std::string>& parts) {
  for (auto at = text.find("<" + tag + " "); at != std::string::npos;
       at = text.find("<" + tag + " ", at + 1)) {
    std::string e = text.substr(at, text.find('>', at) - at + 1);
    if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) {
          return e.find(p) != std::string::npos;
        })) {
      return e;
    }
  }
  return "";
}

Change change(const std::string& metric,
              const std::string& label,
              double before,
              double after,
              const std::string& before_text,
              const std::string& after_text,
              double threshold,
              bool crossed) {
  Change c;
  c.metric = metric;
  c.label = label;
  c.before = before;
  c.after = after;
  c.before_text = before_text;
  c.after_text = after_text;
  c.threshold = threshold;
  c.crossed = crossed;
  return c;
}

LockedConfiguration configuration(const std::string& gpu, int gpus, double usd_per_month) {
  LockedConfiguration l;
  l.gpu = gpu;
  l.gpus = gpus;
  l.layout.tp = gpus;
  l.weights = "fp8";
  l.kv_cache = "fp8";
  l.usd_per_month = usd_per_month;
  return l;
}

// One spec whose $/hour rose 50% against a 10% threshold (fails), whose TTFT rose 10% against
// 20% (does not), and whose tokens/s fell 5% against a 10% drop (does not).
CheckResult regression() {
  CheckResult r;
  r.spec_file = "specs/chat.json";
  r.lock_file = "specs/rightsize.lock.json";
  r.status = "regression";
  r.exit_code = 1;
  r.cause.catalog = true;
  r.basis = "locked configuration";
  r.locked = configuration("H100-NVL-94GB", 1, 1460);
  r.now = r.locked;
  r.compared = configuration("H100-NVL-94GB", 1, 2190);
  r.changes = {change("usd_per_hour", "$/hour", 2.0, 3.0, "$2.00/h", "$3.00/h", 0.10, true),
               change("ttft_ms", "TTFT", 100, 110, "100 ms", "110 ms", 0.20, false),
               change("output_tokens_per_s", "tokens/s", 1000, 950, "1000", "950", 0.10, false)};
  r.crossed = {{"cost", "cost: $/hour $2.00/h -> $3.00/h (+50.0%), over the 10% threshold"}};
  return r;
}

CheckResult unmoved() {
  CheckResult r;
  r.spec_file = "specs/sla.json";
  r.lock_file = "specs/rightsize.lock.json";
  r.status = "ok";
  r.basis = "locked configuration";
  r.locked = configuration("B200-SXM-180GB", 8, 32120);
  r.now = r.locked;
  r.compared = r.locked;
  return r;
}

std::string html_of(const std::vector<CheckResult>& results, int exit_code) {
  std::ostringstream out;
  render_check_html(results, exit_code, out);
  return out.str();
}

std::string svg_of(const std::vector<CheckResult>& results, int exit_code) {
  std::ostringstream out;
  render_check_svg(results, exit_code, out);
  return out.str();
}

} // namespace

TEST_CASE("check html: a crossed rise is red, with its threshold tick at 1 + threshold",
          "[render][check]") {
  const std::string page = html_of({regression(), unmoved()}, 1);
  // Bars run from x = 150 to 590 (440 px) on each row's own scale, whose largest value (of the
  // two figures and the threshold) reaches 590.
  // $/hour: largest 3.00; locked 2.00 -> 440 * 2/3 = 293.3 px; threshold 2.00 * 1.1 = 2.20
  // -> 150 + 440 * 2.2/3 = 472.7.
  CHECK_FALSE(element_with(page, "rect", {R"(width="440")", R"(class="after-bad")"}).empty());
  CHECK_FALSE(element_with(page, "rect", {R"(width="293.3")", R"(class="before")"}).empty());
  CHECK_FALSE(element_with(page, "line", {R"(x1="472.7")", R"(x2="472.7")", R"(class="threshold")"})
                  .empty());
  // TTFT: threshold 100 * 1.2 = 120 is the largest; now 110 -> 440 * 110/120 = 403.3 px, blue.
  CHECK_FALSE(element_with(page, "rect", {R"(width="403.3")", R"(class="after")"}).empty());
  CHECK_FALSE(element_with(page, "line", {R"(x1="590")", R"(class="threshold")"}).empty());
  // tokens/s is worse when it falls: the tick at 1000 * 0.9 = 900 -> 150 + 396 = 546.
  CHECK_FALSE(element_with(page, "line", {R"(x1="546")", R"(class="threshold")"}).empty());
  // One bar past a threshold that fails (and each class once more, in the legend).
  CHECK(occurrences(page, R"(class="after-bad")") == 1 + 1);
  CHECK(occurrences(page, R"(class="after")") == 2 + 1);
  CHECK(occurrences(page, R"(class="before")") == 3 + 1);
}

TEST_CASE("check html: verdict, summary and every charted figure in a table", "[render][check]") {
  const std::string page = html_of({regression(), unmoved()}, 1);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("<title>rightsize check</title>") != std::string::npos);
  CHECK(page.find("<strong>FAIL:</strong> 2 specs: 1 regression") != std::string::npos);
  CHECK(page.find("Exit code 1: a threshold was crossed") != std::string::npos);
  CHECK(page.find("<tr class=\"failed-row\"><td>specs/chat.json</td><td>$/hour</td><td "
                  "class=\"num\">$2.00/h</td><td class=\"num\">$3.00/h</td><td "
                  "class=\"num\">+50.0%</td><td class=\"num\">10% rise</td><td>yes: "
                  "fails</td></tr>") != std::string::npos);
  CHECK(page.find("<td class=\"num\">-5.0%</td><td class=\"num\">10% drop</td><td>no</td>") !=
        std::string::npos);
  CHECK(page.find("nothing moved: 8 x B200-SXM-180GB") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http://www.w3.org/2000/svg") != std::string::npos);
  CHECK(occurrences(page, "<svg ") == 1);
  CHECK(occurrences(page, "</svg>") == 1);
}

TEST_CASE("check svg: the chart alone, headed by the verdict", "[render][check]") {
  const std::string chart = svg_of({regression(), unmoved()}, 1);
  CHECK(chart.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0) == 0);
  CHECK(chart.find("<style>") != std::string::npos);
  CHECK(chart.find("rightsize check: FAIL: 2 specs: 1 regression") != std::string::npos);
  CHECK(occurrences(chart, R"(class="after-bad")") == 1 + 1);
  CHECK(chart.find("<html") == std::string::npos);
}

TEST_CASE("check html: with nothing moved the chart says so in words", "[render][check]") {
  const std::string page = html_of({unmoved()}, 0);
  CHECK(page.find("<strong>pass:</strong> 1 spec, no sizing change") != std::string::npos);
  CHECK(page.find("No figure moved since the locks") != std::string::npos);
  CHECK(page.find("class=\"before\"") == std::string::npos);
  CHECK(page.find("class=\"threshold\"") == std::string::npos);
  const std::string chart = svg_of({}, 0);
  CHECK(chart.find("No specs checked.") != std::string::npos);
}

TEST_CASE("check html: added, removed, infeasible and failed specs are stated", "[render][check]") {
  CheckResult added;
  added.spec_file = "specs/new.json";
  added.status = "added";
  added.now = configuration("L40S-48GB", 2, 2511);
  added.compared = added.now;
  CheckResult removed;
  removed.spec_file = "specs/old.json";
  removed.status = "removed";
  removed.locked = configuration("A100-SXM-80GB", 4, 8000);
  CheckResult infeasible = unmoved();
  infeasible.spec_file = "specs/big.json";
  infeasible.status = "infeasible";
  infeasible.exit_code = 3;
  infeasible.crossed = {
      {"infeasible", "infeasible: no GPU configuration satisfies the spec any more"}};
  CheckResult error;
  error.spec_file = "specs/bad.json";
  error.status = "error";
  error.exit_code = 2;
  error.error = "specs/bad.json:/workload/batch_size: must be >= 1, got 0";
  const std::string chart = svg_of({added, removed, infeasible, error}, 2);
  CHECK(chart.find("new spec, not locked yet: would lock 2 x L40S-48GB") != std::string::npos);
  CHECK(chart.find("removed: the lock has an entry for this spec") != std::string::npos);
  CHECK(chart.find("FAIL infeasible: no GPU configuration satisfies the spec any more") !=
        std::string::npos);
  CHECK(chart.find("error: specs/bad.json:/workload/batch_size: must be &gt;= 1, got 0") !=
        std::string::npos);
  const std::string page = html_of({added, removed, infeasible, error}, 2);
  CHECK(page.find("Exit code 2:") != std::string::npos);
}
