// The SVG writer behind the HTML and SVG reports (src/render/svg.hpp): escaping, tick labels,
// scales against hand-computed pixels, marks, and labels that do not overlap. And the plan's
// trade-off chart: its Pareto front against a front computed here from the plan itself.

#include "fixtures.hpp"
#include "occurrences.hpp"
#include "render/svg.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/render/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace rightsize;
using rightsize::test::occurrences;

TEST_CASE("svg: text and attributes are escaped", "[render]") {
  CHECK(svg::escape("a<b & 'c' \"d\">") == "a&lt;b &amp; &#39;c&#39; &quot;d&quot;&gt;");
  CHECK(svg::escape("H100-SXM-80GB") == "H100-SXM-80GB");
}

TEST_CASE("svg: tick labels are short and round", "[render]") {
  CHECK(svg::number_label(0) == "0");
  CHECK(svg::number_label(0.5) == "0.5");
  CHECK(svg::number_label(12) == "12");
  CHECK(svg::number_label(250) == "250");
  CHECK(svg::number_label(1500) == "1.5k");
  CHECK(svg::number_label(20000) == "20k");
  CHECK(svg::number_label(3.5e6) == "3.5M");
  CHECK(svg::number_label(std::nan("")) == "0");
}

TEST_CASE("svg: a linear scale widens to round ticks", "[render]") {
  // 0.3..9.7: a fifth of the span is 1.88, rounded up to a step of 2; the domain becomes 0..10.
  const auto s = svg::Scale::linear(0.3, 9.7, 100, 300);
  CHECK(s.lo() == Approx(0));
  CHECK(s.hi() == Approx(10));
  CHECK(s.ticks() == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(s(5) == Approx(200));
  // Pixels may run downwards (a y axis): 0 at the bottom.
  const auto y = svg::Scale::linear(0, 100, 400, 20);
  CHECK(y(25) == Approx(305));
  // An empty span still makes a scale.
  const auto flat = svg::Scale::linear(3, 3, 0, 10);
  CHECK(flat.hi() > flat.lo());
}

TEST_CASE("svg: a log scale steps 1-2-5 and maps geometric means to the middle", "[render]") {
  const auto s = svg::Scale::log(1.39, 10.7, 0, 100);
  CHECK(s.lo() == Approx(1));
  CHECK(s.hi() == Approx(20));
  CHECK(s.ticks() == std::vector<double>{1, 2, 5, 10, 20});
  CHECK(s(std::sqrt(20.0)) == Approx(50));
  // Over three decades only the powers of ten are ticks.
  const auto wide = svg::Scale::log(0.02, 300, 0, 100);
  CHECK(wide.ticks() == std::vector<double>{0.01, 0.1, 1, 10, 100, 1000});
}

TEST_CASE("svg: marks carry their tooltip; labels move apart", "[render]") {
  svg::Chart chart(100, 50, "A & B", "desc");
  chart.circle({1, 2}, 3, "point", "x < y");
  chart.rect(10, 10, -4, 5, "bar"); // a negative width is drawn from the other edge
  chart.labels({{{10, 20}, "first", "label"}, {{10, 20}, "second", "label"}});
  const std::string svg = chart.inline_svg();
  CHECK(svg.find(R"(<circle cx="1" cy="2" r="3" class="point"><title>x &lt; y</title></circle>)") !=
        std::string::npos);
  CHECK(svg.find(R"(<rect x="6" y="10" width="4" height="5" class="bar"/>)") != std::string::npos);
  CHECK(svg.find(R"(<text x="10" y="20" class="label" text-anchor="start">first</text>)") !=
        std::string::npos);
  // The second label tries 13 px above first: clear.
  CHECK(svg.find(R"(<text x="10" y="7" class="label" text-anchor="start">second</text>)") !=
        std::string::npos);
  CHECK(svg.find("<title>A &amp; B</title>") != std::string::npos);
  // A label over a mark (a point's 6 px square at (2, 16)) moves off it.
  svg::Chart marked(100, 50, "t", "d");
  marked.labels({{{0, 20}, "x", "label"}}, {{2, 16}}, 6);
  CHECK(marked.inline_svg().find(R"(<text x="0" y="7" class="label")") != std::string::npos);
  const std::string file = chart.standalone(".point { fill: red; }\n");
  CHECK(file.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 0) == 0);
  CHECK(file.find("<style>\n.point { fill: red; }\n</style>") != std::string::npos);
}

TEST_CASE("plan svg: the Pareto front is the set no other candidate beats on both axes",
          "[render]") {
  auto body = nlohmann::json::parse(R"({
    "model": "llama-3.1-8b",
    "workload": {"type": "inference", "input_tokens": 2048, "output_tokens": 512,
                 "concurrency": 32, "targets": {"tpot_ms": 50}},
    "deployment": {"horizon_months": 12}})");
  body["model"] = test::config_path("llama-3.1-8b");
  const Spec spec = parse_spec(body, "plan.json");
  PlanOptions o;
  o.today = "2026-11-21";
  const Plan plan = make_plan(spec, test::catalog(), test::constants(), test::efficiency(), o);
  REQUIRE(plan.candidates.size() >= 3);
  // Dominated: another candidate is at most as slow and as dear, and better on one.
  std::size_t dominated = 0;
  bool best_dominated = false;
  for (const auto& c : plan.candidates) {
    const double x = c.inference->tpot.si();
    const double y = *c.cost.usd_per_million_tokens;
    for (const auto& d : plan.candidates) {
      const double dx = d.inference->tpot.si();
      const double dy = *d.cost.usd_per_million_tokens;
      if (dx <= x && dy <= y && (dx < x || dy < y)) {
        ++dominated;
        best_dominated = best_dominated || c.rank == 1;
        break;
      }
    }
  }
  REQUIRE(dominated > 0); // else the test shows nothing
  std::ostringstream out;
  render_plan_svg(plan, {}, out);
  const std::string svg = out.str();
  // Every candidate is drawn once: the recommendation as a diamond, the others blue on the
  // front and grey off it.
  CHECK(occurrences(svg, "class=\"recommended\"><title>") == 1);
  CHECK(occurrences(svg, "class=\"point\"><title>") +
            occurrences(svg, "class=\"point-off\"><title>") + 1 ==
        plan.candidates.size());
  CHECK(occurrences(svg, "class=\"point-off\"><title>") == dominated - (best_dominated ? 1 : 0));
}
