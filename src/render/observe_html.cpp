// An observe report as an HTML page with SVG charts, and its fleet chart alone as SVG: money
// saved and added and GPUs freed by namespace (or node), then per workload its work and memory
// over the window as percentile bands, the verdict, the reasons and the recommendation. Every
// number drawn is also in a table. docs/reports.md.

#include "html.hpp"
#include "observe_text.hpp"
#include "svg.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/render/observe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace rightsize {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::string dollars(double v) {
  return format_usd(usd(v));
}

// The fleet by namespace (pods) or node (whole GPUs, hosts): the part of the workload's name
// before its first '/'.
struct FleetGroup {
  std::string name;
  int workloads = 0;
  double gpus = 0;
  double gpus_freed = 0;
  double usd_now = 0;
  double usd_saved = 0;
  double usd_added = 0;
};

std::vector<FleetGroup> fleet_groups(const ObserveReport& r) {
  std::map<std::string, FleetGroup> groups;
  for (const auto& w : r.workloads) {
    const std::string key = w.name.substr(0, w.name.find('/'));
    auto& g = groups[key];
    g.name = key;
    ++g.workloads;
    g.gpus += w.gpus;
    if (!w.recommendation) {
      continue;
    }
    const auto& rec = *w.recommendation;
    g.gpus_freed += rec.gpus_freed;
    g.usd_now += rec.usd_per_month_now.value_or(0);
    if (rec.usd_per_month_saved && w.verdict != "right-sized") {
      if (*rec.usd_per_month_saved >= 0) {
        g.usd_saved += *rec.usd_per_month_saved;
      } else {
        g.usd_added += -*rec.usd_per_month_saved;
      }
    }
  }
  std::vector<FleetGroup> out;
  for (auto& [key, g] : groups) {
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(), [](const FleetGroup& a, const FleetGroup& b) {
    return a.usd_saved - a.usd_added > b.usd_saved - b.usd_added;
  });
  return out;
}

// The fleet chart draws at most this many groups: those with the most money at stake (saved plus
// added), in the table's order.
constexpr std::size_t k_max_fleet_rows = 30;

std::vector<FleetGroup> most_at_stake(const std::vector<FleetGroup>& groups) {
  if (groups.size() <= k_max_fleet_rows) {
    return groups;
  }
  std::vector<double> stakes;
  for (const auto& g : groups) {
    stakes.push_back(g.usd_saved + g.usd_added);
  }
  std::vector<double> sorted = stakes;
  std::nth_element(
      sorted.begin(), sorted.begin() + (k_max_fleet_rows - 1), sorted.end(), std::greater<>());
  const double least = sorted[k_max_fleet_rows - 1];
  std::vector<FleetGroup> out;
  for (std::size_t i = 0; i < groups.size() && out.size() < k_max_fleet_rows; ++i) {
    if (stakes[i] > least) {
      out.push_back(groups[i]);
    }
  }
  for (std::size_t i = 0; i < groups.size() && out.size() < k_max_fleet_rows; ++i) {
    if (stakes[i] == least) {
      out.push_back(groups[i]);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const FleetGroup& a, const FleetGroup& b) {
    return a.usd_saved - a.usd_added > b.usd_saved - b.usd_added;
  });
  return out;
}

// Money saved (and added) per month by group, with the GPUs freed written beside each row.
svg::Chart fleet_chart(const std::vector<FleetGroup>& groups) {
  const double width = 780;
  const double row_h = 30;
  const double left = 190;
  const double right = width - 150;
  const double top = 34;
  const double height = top + row_h * static_cast<double>(groups.size()) + 50;
  svg::Chart chart(width,
                   height,
                   "rightsize observe: money and GPUs by namespace or node",
                   "For each namespace (or node), the money per month its recommendations save "
                   "and add, and the GPUs they free.");
  double most = 1;
  for (const auto& g : groups) {
    most = std::max({most, g.usd_saved, g.usd_added});
  }
  const auto x = svg::Scale::linear(0, most, left, right);
  const double bottom = top + row_h * static_cast<double>(groups.size());
  chart.x_axis(x, bottom, top - 4, "$ per month");
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    const double y0 = top + row_h * static_cast<double>(i) + 4;
    const double h = (row_h - 10) / 2;
    chart.text({left - 8, y0 + h + 3}, g.name, "label", svg::Anchor::end);
    chart.rect(left,
               y0,
               x(g.usd_saved) - left,
               h,
               "saved",
               fmt::format("{}: saves {}/month", g.name, dollars(g.usd_saved)));
    chart.rect(left,
               y0 + h,
               x(g.usd_added) - left,
               h,
               "added",
               fmt::format("{}: adds {}/month", g.name, dollars(g.usd_added)));
    const double end = std::max(x(g.usd_saved), x(g.usd_added));
    chart.text({end + 6, y0 + h + 3},
               fmt::format("{:.1f} of {:g} GPUs freed", g.gpus_freed, g.gpus),
               "tick");
  }
  chart.legend({left, 14},
               {{"saved", "saved per month"}, {"added", "added per month (under-provisioned)"}});
  return chart;
}

html::Table fleet_table(const std::vector<FleetGroup>& groups) {
  html::Table t;
  t.header = {"Namespace or node",
              "Workloads",
              "GPUs",
              "GPUs freed",
              "$/month now",
              "Saved/month",
              "Added/month"};
  t.numeric = {false, true, true, true, true, true, true};
  for (const auto& g : groups) {
    t.rows.push_back({g.name,
                      std::to_string(g.workloads),
                      fmt::format("{:g}", g.gpus),
                      fmt::format("{:.1f}", g.gpus_freed),
                      dollars(g.usd_now),
                      dollars(g.usd_saved),
                      dollars(g.usd_added)});
  }
  return t;
}

// The time axis in hours, or minutes for a window under two hours.
struct TimeAxis {
  double scale = 1.0 / 3600;
  const char* unit = "hours";
};

TimeAxis time_axis(double window_s) {
  return window_s < 7200 ? TimeAxis{1.0 / 60, "minutes"} : TimeAxis{};
}

// A percentile band over the slices: the area between two series, and the median as a line.
void band(svg::Chart& chart,
          const std::vector<svg::Point>& lower,
          const std::vector<svg::Point>& upper,
          const char* cls) {
  std::vector<svg::Point> area = upper;
  area.insert(area.end(), lower.rbegin(), lower.rend());
  chart.polygon(area, cls);
}

// Work and memory over the window, two panels on one time axis.
svg::Chart timeline_chart(const WorkloadObservation& w) {
  const bool memory = std::any_of(w.timeline.begin(), w.timeline.end(), [](const TimeSlice& s) {
    return s.memory_used_bytes.has_value();
  });
  const double width = 780;
  const double left = 80;
  const double right = width - 30;
  const double panel = 150;
  const double gap = 50;
  const double top = 30;
  const double height = top + panel + (memory ? gap + panel : 0) + 60;
  const auto t = time_axis(w.window_s);
  svg::Chart chart(width,
                   height,
                   fmt::format("{}: work and memory over the window", w.name),
                   "Per time slice of the window: the median, the 95th percentile and the "
                   "maximum over the workload's GPUs.");
  const double span = std::max(w.window_s, 1.0) * t.scale;
  const auto x = svg::Scale::linear(0, span, left, right);
  const auto mid = [&](const TimeSlice& s) { return x((s.start_s + s.end_s) / 2 * t.scale); };
  const auto y = svg::Scale::linear(0, 100, top + panel, top);
  const std::string work_name = w.work_metric == "sm_active" ? "SM activity" : "GPU utilization";
  chart.y_axis(y, left, right, work_name + " (%)");
  std::vector<svg::Point> p50;
  std::vector<svg::Point> p95;
  std::vector<svg::Point> max;
  for (const auto& s : w.timeline) {
    p50.push_back({mid(s), y(100 * s.work.p50)});
    p95.push_back({mid(s), y(100 * s.work.p95)});
    max.push_back({mid(s), y(100 * s.work.max)});
  }
  band(chart, p95, max, "band-outer");
  band(chart, p50, p95, "band-inner");
  chart.polyline(p50, "median");
  if (w.timeline.size() == 1) {
    chart.circle(p50.front(), 3, "point");
  }
  double bottom = top + panel;
  if (memory) {
    const double m_top = top + panel + gap;
    double most = w.memory_capacity_bytes;
    for (const auto& s : w.timeline) {
      if (s.memory_used_bytes) {
        most = std::max(most, s.memory_used_bytes->max);
      }
    }
    const auto ym = svg::Scale::linear(0, most / k_gib, m_top + panel, m_top);
    chart.y_axis(ym, left, right, "memory used (GiB)");
    std::vector<svg::Point> m50;
    std::vector<svg::Point> mmax;
    for (const auto& s : w.timeline) {
      if (s.memory_used_bytes) {
        m50.push_back({mid(s), ym(s.memory_used_bytes->p50 / k_gib)});
        mmax.push_back({mid(s), ym(s.memory_used_bytes->max / k_gib)});
      }
    }
    band(chart, m50, mmax, "memory-band");
    chart.polyline(m50, "memory-line");
    if (w.memory_capacity_bytes > 0) {
      const double cy = ym(w.memory_capacity_bytes / k_gib);
      const std::string label = fmt::format("capacity {:.1f} GiB", w.memory_capacity_bytes / k_gib);
      chart.line({left, cy}, {right, cy}, "capacity", label);
      chart.text({right - 4, cy - 4}, label, "label", svg::Anchor::end);
    }
    bottom = m_top + panel;
  }
  chart.x_axis(x, bottom, bottom, fmt::format("{} from the window's start", t.unit));
  std::vector<std::pair<std::string, std::string>> legend = {{"band-inner", "p50 to p95"},
                                                             {"band-outer", "p95 to max"}};
  if (memory) {
    legend.emplace_back("memory-band", "memory p50 to max");
  }
  chart.legend({left, height - 8}, legend);
  return chart;
}

html::Table timeline_table(const WorkloadObservation& w) {
  const auto t = time_axis(w.window_s);
  html::Table table;
  table.header = {fmt::format("From ({})", t.unit),
                  fmt::format("To ({})", t.unit),
                  "Samples",
                  "Work p50",
                  "Work p95",
                  "Work max",
                  "Memory p50 (GiB)",
                  "Memory max (GiB)"};
  table.numeric = {true, true, true, true, true, true, true, true};
  for (const auto& s : w.timeline) {
    table.rows.push_back(
        {fmt::format("{:.2f}", s.start_s * t.scale),
         fmt::format("{:.2f}", s.end_s * t.scale),
         std::to_string(s.samples),
         fmt::format("{:.0f}%", 100 * s.work.p50),
         fmt::format("{:.0f}%", 100 * s.work.p95),
         fmt::format("{:.0f}%", 100 * s.work.max),
         s.memory_used_bytes ? fmt::format("{:.1f}", s.memory_used_bytes->p50 / k_gib) : "-",
         s.memory_used_bytes ? fmt::format("{:.1f}", s.memory_used_bytes->max / k_gib) : "-"});
  }
  return table;
}

html::Table workloads_table(const ObserveReport& r) {
  html::Table t;
  t.header = {"Workload",
              "GPU",
              fmt::format("Work p{:g}", r.options.work_percentile),
              "Memory peak",
              "Verdict",
              "Recommendation",
              "$/month",
              "Saved/month"};
  t.numeric = {false, false, true, true, false, false, true, true};
  for (const auto& w : r.workloads) {
    const auto& rec = w.recommendation;
    t.rows.push_back({w.name,
                      gpu_text(w.gpu, w.gpus, w.partition),
                      work_p95(w),
                      memory_peak(w),
                      w.verdict,
                      recommendation_text(w),
                      rec && rec->usd_per_month_now ? dollars(*rec->usd_per_month_now) : "-",
                      saved_text(rec ? rec->usd_per_month_saved : std::nullopt)});
    t.row_class.push_back(w.verdict == "under-provisioned" ? "failed-row" : "");
  }
  return t;
}

std::string verdict_class(const std::string& verdict) {
  if (verdict == "right-sized") {
    return "good";
  }
  return verdict == "under-provisioned" ? "bad" : "warn";
}

// A fleet's page charts at most this many workloads (each chart is about 10 kB): those with the
// most money at stake; the others keep their text and table rows.
constexpr std::size_t k_max_charted = 100;

std::vector<bool> charted(const ObserveReport& r) {
  std::vector<std::size_t> order(r.workloads.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  const auto at_stake = [&](std::size_t i) {
    const auto& rec = r.workloads[i].recommendation;
    return rec && rec->usd_per_month_saved ? std::abs(*rec->usd_per_month_saved) : 0.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return at_stake(a) > at_stake(b);
  });
  std::vector<bool> out(r.workloads.size(), false);
  for (std::size_t k = 0; k < order.size() && k < k_max_charted; ++k) {
    out[order[k]] = true;
  }
  return out;
}

void workload_section(html::Page& page, const WorkloadObservation& w, bool chart) {
  page.subsection(fmt::format("{}: {}", w.name, w.verdict));
  page.lead(gpu_text(w.gpu, w.gpus, w.partition),
            fmt::format("({}), {} {} over {}.",
                        w.observed_gpu,
                        w.samples,
                        w.work_metric == "trace" ? "GPU events" : "samples",
                        format_seconds(seconds(w.window_s))),
            verdict_class(w.verdict));
  std::vector<std::string> lines;
  for (const auto& reason : w.reasons) {
    lines.push_back(reason.code + ": " + reason.text);
  }
  for (auto& line : serving_lines(w)) {
    lines.push_back(std::move(line));
  }
  if (w.recommendation) {
    lines.push_back("recommendation: " + w.recommendation->text);
  }
  page.list(lines);
  if (chart && !w.timeline.empty()) {
    page.figure(timeline_chart(w), "");
    page.folded_table(fmt::format("{} time slices", w.timeline.size()), timeline_table(w));
  }
  if (w.trace) {
    const auto& tr = *w.trace;
    html::Table t;
    t.caption = fmt::format(
        "Trace {} ({}), {}", tr.source, tr.format, format_seconds(seconds(tr.window_s)));
    t.header = {"Busy",
                "Waits on input",
                "GEMM",
                "Attention",
                "Communication",
                "Copies",
                "Other",
                "Host to device"};
    t.numeric = {true, true, true, true, true, true, true, true};
    std::vector<std::string> row = {fmt::format("{:.0f}%", 100 * tr.busy_fraction),
                                    fmt::format("{:.0f}%", 100 * tr.input_wait_fraction)};
    for (const double share : tr.share_by_class) {
      row.push_back(fmt::format("{:.0f}%", 100 * share));
    }
    row.push_back(format_bytes(bytes(tr.host_to_device_bytes)));
    t.rows.push_back(std::move(row));
    page.table(t);
  }
  if (w.per_gpu.size() > 1) {
    html::Table t;
    t.header = {"GPU", "Samples", "Work p50", "Work p95", "Work max", "Memory max (GiB)"};
    t.numeric = {false, true, true, true, true, true};
    for (const auto& g : w.per_gpu) {
      t.rows.push_back(
          {g.label,
           std::to_string(g.samples),
           fmt::format("{:.0f}%", 100 * g.work.p50),
           fmt::format("{:.0f}%", 100 * g.work.p95),
           fmt::format("{:.0f}%", 100 * g.work.max),
           g.memory_used_bytes ? fmt::format("{:.1f}", g.memory_used_bytes->max / k_gib) : "-"});
    }
    page.folded_table(fmt::format("{} GPUs, one by one", w.per_gpu.size()), t);
  }
  page.list(w.notes, "muted");
}

} // namespace

void render_observe_html(const ObserveReport& r, std::ostream& out) {
  const std::string lines = summary_lines(r);
  const auto newline = lines.find('\n');
  // The first line without its "rightsize observe: " (the page's heading says it).
  std::string subtitle = lines.substr(0, newline);
  if (const auto colon = subtitle.find(": "); colon != std::string::npos) {
    subtitle.erase(0, colon + 2);
  }
  html::Page page("rightsize observe", subtitle);
  page.section("Fleet", "fleet");
  page.paragraph(lines.substr(newline + 1, lines.size() - newline - 2));
  const auto groups = fleet_groups(r);
  if (!groups.empty()) {
    const auto drawn = most_at_stake(groups);
    page.figure(fleet_chart(drawn),
                drawn.size() == groups.size()
                    ? "Money per month the recommendations save (green) and add (red), by "
                      "namespace or node, and the GPUs they free."
                    : fmt::format("Money per month the recommendations save (green) and add "
                                  "(red) for the {} namespaces or nodes with the most at stake "
                                  "of {}; the table lists all.",
                                  drawn.size(),
                                  groups.size()));
    page.table(fleet_table(groups));
  }
  page.table(workloads_table(r));
  page.section("Workloads", "workloads");
  const auto with_chart = charted(r);
  if (r.workloads.size() > k_max_charted) {
    page.paragraph(fmt::format("Charts for the {} workloads with the most money per month at "
                               "stake; the other {} are described without one.",
                               k_max_charted,
                               r.workloads.size() - k_max_charted),
                   "muted");
  }
  for (std::size_t i = 0; i < r.workloads.size(); ++i) {
    workload_section(page, r.workloads[i], with_chart[i]);
  }
  if (!r.warnings.empty()) {
    page.section("Warnings", "warnings");
    page.list(r.warnings, "warn");
  }
  page.section("Sources", "sources");
  page.list(r.sources);
  page.paragraph(fmt::format("Work sized at p{:g} and memory at p{:g}, each plus a {:g}% buffer; "
                             "catalog {}. docs/observe.md gives every threshold.",
                             r.options.work_percentile,
                             r.options.memory_percentile,
                             100 * r.options.buffer,
                             r.catalog_version),
                 "muted");
  out << page.finish();
}

void render_observe_svg(const ObserveReport& r, std::ostream& out) {
  const auto groups = fleet_groups(r);
  if (groups.empty()) {
    svg::Chart chart(780, 80, "rightsize observe", "No workloads.");
    chart.text({20, 45}, "rightsize observe: no workloads in the telemetry", "label-strong");
    out << chart.standalone(html::chart_stylesheet());
    return;
  }
  out << fleet_chart(most_at_stake(groups)).standalone(html::chart_stylesheet());
}

} // namespace rightsize
