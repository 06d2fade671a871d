// observe's HTML and SVG reports on reports built by hand: big fleets are charted by what is at
// stake, and every charted workload's timeline is drawn.

#include "occurrences.hpp"

#include <rightsize/render/observe.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <sstream>

using namespace rightsize;
using rightsize::test::occurrences;

namespace {

// `n` over-provisioned workloads, each alone in its namespace "ns-<i>", saving $i+1 a month.
ObserveReport fleet(int n) {
  ObserveReport r;
  for (int i = 0; i < n; ++i) {
    WorkloadObservation w;
    w.name = fmt::format("ns-{:03}/pod", i);
    w.gpu = "H100-SXM-80GB";
    w.gpus = 1;
    w.verdict = "over-provisioned";
    w.window_s = 3600;
    w.work_metric = "gpu_utilization";
    ObserveRecommendation rec;
    rec.gpu = "L40S-48GB";
    rec.gpus = 1;
    rec.usd_per_month_now = 2000;
    rec.usd_per_month_saved = i + 1;
    w.recommendation = rec;
    TimeSlice s;
    s.end_s = 3600;
    s.samples = 10;
    s.work = {0.2, 0.3, 0.4, 10};
    w.timeline = {s, s};
    w.timeline[1].start_s = 3600;
    w.timeline[1].end_s = 7200;
    r.workloads.push_back(std::move(w));
  }
  r.summary.workloads = n;
  return r;
}

} // namespace

TEST_CASE("observe svg: a fleet chart draws the 30 groups with the most at stake", "[render]") {
  std::ostringstream out;
  render_observe_svg(fleet(35), out);
  const std::string svg = out.str();
  CHECK(occurrences(svg, "class=\"saved\"><title>") == 30);
  // ns-000 to ns-004 save $1 to $5: the least, left out; ns-034 saves the most and comes first.
  CHECK(svg.find("ns-004") == std::string::npos);
  CHECK(svg.find("ns-005") != std::string::npos);
  CHECK(svg.find("ns-034") < svg.find("ns-005"));
}

TEST_CASE("observe html: at most 100 workloads get a timeline chart", "[render]") {
  std::ostringstream small;
  render_observe_html(fleet(3), small);
  CHECK(occurrences(small.str(), "work and memory over the window</title>") == 3);
  CHECK(small.str().find("Charts for the") == std::string::npos);

  std::ostringstream big;
  render_observe_html(fleet(101), big);
  const std::string html = big.str();
  CHECK(occurrences(html, "work and memory over the window</title>") == 100);
  // The one without a chart is the one with the least at stake.
  CHECK(html.find("ns-000/pod: work and memory") == std::string::npos);
  CHECK(html.find("the other 1 are described without one") != std::string::npos);
  // Nor a table of its slices: a fleet's page stays a few megabytes.
  CHECK(occurrences(html, "2 time slices") == 100);
}
