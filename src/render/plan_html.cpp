// A plan as an HTML page with SVG charts, and its trade-off chart alone as SVG. The charts draw
// what make_plan computed: cost against latency (or time to train) with each prediction's band
// and the Pareto front, memory per GPU by term against capacity, cost and replicas month by
// month. Every number drawn is also in a table. docs/reports.md.

#include "html.hpp"
#include "plan_text.hpp"
#include "svg.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/plan/trade_off.hpp>
#include <rightsize/plan/unit_values.hpp>
#include <rightsize/render/plan.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// A table's number: four significant digits, no thousands suffix ("1126", "27.98").
// Four significant digits, whole numbers from 10,000 up ("132800", never "1.328e+05").
std::string table_number(double v) {
  return std::fabs(v) >= 1e4 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
}

std::string gpu_label(const Candidate& c) {
  const std::string name =
      c.partition.empty() ? c.gpu->name : c.whole_gpu->name + " " + c.partition;
  return c.total_gpus() > 1 ? fmt::format("{} x {}", c.total_gpus(), name) : name;
}

std::string layout_cell(const Candidate& c) {
  return replicas_text(c);
}

// What the trade-off chart calls plan's trade-off (plan/trade_off.hpp): for serving, $ per million
// output tokens against TPOT (TTFT when only a TTFT target is set); for training, the run's cost
// against its time (step time when the spec gives no token count).
struct TradeAxes {
  std::string x_name;   // "TPOT"
  std::string x_unit;   // "ms"
  double x_scale = 1e3; // from seconds
  std::string y_name;   // "$ per million output tokens"
  std::optional<double> target_s;
  std::string target_label;
  std::vector<TradePoint> points; // Pareto front marked
  std::vector<std::size_t> front; // indices into points, fastest first
};

const char* time_name(TradeTime t) {
  switch (t) {
  case TradeTime::time_to_train:
    return "Time to train";
  case TradeTime::step_time:
    return "Step time";
  case TradeTime::latency:
    return "Latency";
  case TradeTime::ttft:
    return "TTFT";
  case TradeTime::tpot:
    break;
  }
  return "TPOT";
}

std::string price_name(const TradeOff& t) {
  switch (t.price) {
  case TradePrice::run:
    return "Cost of the run ($)";
  case TradePrice::per_hour:
    return "$ per hour";
  case TradePrice::unit:
    break;
  }
  return fmt::format("$ per {}{}", names(t.basis).words, t.full_load ? ", full load" : "");
}

TradeAxes trade_axes(const Plan& plan) {
  TradeOff t = trade_off(plan);
  TradeAxes a;
  a.x_name = time_name(t.time);
  a.x_unit = t.time == TradeTime::time_to_train ? "hours"
             : t.time == TradeTime::step_time   ? "s"
                                                : "ms";
  a.x_scale = t.time == TradeTime::time_to_train ? 1.0 / 3600
              : t.time == TradeTime::step_time   ? 1.0
                                                 : 1e3;
  a.y_name = price_name(t);
  if (t.target != TradeTarget::none) {
    a.target_s = t.target_time.si();
    a.target_label = t.target == TradeTarget::deadline ? "deadline " + format_seconds(t.target_time)
                     : t.target == TradeTarget::ttft
                         ? a.x_name + " target " + format_seconds(t.target_time)
                         : "TPOT target " + format_seconds(t.target_time);
  }
  a.points = std::move(t.points);
  a.front = std::move(t.front);
  return a;
}

// A scale over [lo, hi]: logarithmic when the values span more than a factor of 4.
svg::Scale fitted_scale(double lo, double hi, double px_lo, double px_hi) {
  if (lo > 0 && hi / lo > 4) {
    return svg::Scale::log(lo, hi, px_lo, px_hi);
  }
  return svg::Scale::linear(std::min(0.0, lo), hi, px_lo, px_hi);
}

std::string value_text(double v, const std::string& unit) {
  return fmt::format("{} {}", table_number(v), unit);
}

std::string money_axis_text(double v) {
  return v >= 100 ? money(v) : fmt::format("${:.3g}", v);
}

svg::Chart trade_chart(const Plan& plan, const TradeAxes& a) {
  const double width = 780;
  const double height = 430;
  const double left = 80;
  const double right = width - 170;
  const double top = 20;
  const double bottom = height - 60;
  svg::Chart chart(width,
                   height,
                   fmt::format("{}: {} against {}", plan.spec.name, a.y_name, a.x_name),
                   fmt::format("Every feasible GPU configuration, its {} band as error bars, the "
                               "Pareto front dashed and the recommendation as a diamond.",
                               a.x_name));
  double x_lo = std::numeric_limits<double>::infinity();
  double x_hi = 0;
  double y_lo = std::numeric_limits<double>::infinity();
  double y_hi = 0;
  for (const auto& p : a.points) {
    x_lo = std::min(x_lo, p.x_low * a.x_scale);
    x_hi = std::max(x_hi, p.x_high * a.x_scale);
    y_lo = std::min(y_lo, p.y_low);
    y_hi = std::max(y_hi, p.y_high);
  }
  if (a.target_s) {
    x_lo = std::min(x_lo, *a.target_s * a.x_scale);
    x_hi = std::max(x_hi, *a.target_s * a.x_scale);
  }
  const auto x = fitted_scale(x_lo, x_hi, left, right);
  const auto y = fitted_scale(y_lo, y_hi, bottom, top);
  chart.x_axis(x, bottom, top, fmt::format("{} ({}), band as error bars", a.x_name, a.x_unit));
  chart.y_axis(y, left, right, a.y_name);
  if (a.target_s) {
    const double tx = x(*a.target_s * a.x_scale);
    chart.line({tx, top}, {tx, bottom}, "target", a.target_label);
    chart.text({tx + 4, top + 12}, a.target_label, "target-text");
  }
  std::vector<svg::Point> stairs;
  for (std::size_t i = 0; i < a.front.size(); ++i) {
    const TradePoint& p = a.points[a.front[i]];
    const svg::Point here{x(p.x * a.x_scale), y(p.y)};
    if (i > 0) {
      stairs.push_back({here.x, stairs.back().y});
    }
    stairs.push_back(here);
  }
  chart.polyline(stairs, "front");
  for (const auto& p : a.points) {
    const double px = x(p.x * a.x_scale);
    const double py = y(p.y);
    if (p.x_high > p.x_low) {
      const double l = x(p.x_low * a.x_scale);
      const double h = x(p.x_high * a.x_scale);
      chart.line({l, py}, {h, py}, "error-bar");
      chart.line({l, py - 4}, {l, py + 4}, "error-bar");
      chart.line({h, py - 4}, {h, py + 4}, "error-bar");
    }
    if (p.y_high > p.y_low) {
      const double l = y(p.y_low);
      const double h = y(p.y_high);
      chart.line({px, l}, {px, h}, "error-bar");
      chart.line({px - 4, l}, {px + 4, l}, "error-bar");
      chart.line({px - 4, h}, {px + 4, h}, "error-bar");
    }
  }
  std::vector<svg::Chart::Label> labels;
  std::vector<svg::Point> marks;
  for (const auto& p : a.points) {
    marks.push_back({x(p.x * a.x_scale), y(p.y)});
  }
  for (const auto& p : a.points) {
    const Candidate& c = *p.candidate;
    const svg::Point at{x(p.x * a.x_scale), y(p.y)};
    const std::string tip = fmt::format("#{} {} ({}): {} {} ({} to {}), {}",
                                        c.rank,
                                        gpu_label(c),
                                        layout_cell(c),
                                        a.x_name,
                                        value_text(p.x * a.x_scale, a.x_unit),
                                        table_number(p.x_low * a.x_scale),
                                        table_number(p.x_high * a.x_scale),
                                        money_axis_text(p.y));
    if (c.rank == 1) {
      chart.diamond(at, 8, "recommended", tip);
      labels.push_back({{at.x + 11, at.y - 6}, "#1 " + gpu_label(c), "label-strong"});
    } else {
      chart.circle(at, 5, p.front ? "point" : "point-off", tip);
      if (p.front) {
        labels.push_back(
            {{at.x + 8, at.y + 4}, fmt::format("#{} {}", c.rank, gpu_label(c)), "label"});
      }
    }
  }
  chart.labels(std::move(labels), marks, 6);
  chart.legend({left, height - 10},
               {{"recommended", "recommended"},
                {"point", "on the Pareto front"},
                {"point-off", "dominated"}});
  return chart;
}

// Memory per GPU by term for the first candidates, against capacity and the runtime's budget.
svg::Chart memory_chart(const Plan& plan, const std::vector<const Candidate*>& rows) {
  const double width = 780;
  const double row_h = 26;
  const double left = 200;
  const double right = width - 30;
  const double top = 34;
  const double height = top + row_h * static_cast<double>(rows.size()) + 50;
  svg::Chart chart(width,
                   height,
                   fmt::format("{}: memory per GPU", plan.spec.name),
                   "Memory of one GPU by term for the top candidates, the GPU's capacity as a "
                   "solid tick and the runtime's budget dashed.");
  double most = 0;
  for (const auto* c : rows) {
    most = std::max({most, c->memory.capacity.si(), c->memory.per_gpu.total().si()});
  }
  const auto x = svg::Scale::linear(0, most / k_gib, left, right);
  const double bottom = top + row_h * static_cast<double>(rows.size());
  chart.x_axis(x, bottom, top - 4, "GiB per GPU");
  const bool training = !plan.units.serving;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Candidate& c = *rows[i];
    const double y0 = top + row_h * static_cast<double>(i) + 4;
    const double h = row_h - 8;
    chart.text({left - 8, y0 + h - 4},
               fmt::format("#{} {}", c.rank, gpu_label(c)),
               "label",
               svg::Anchor::end);
    const auto& m = c.memory.per_gpu;
    const std::vector<std::pair<const char*, double>> terms = {{"weights", m.weights.si()},
                                                               {"kv-cache", m.kv_cache.si()},
                                                               {"activations", m.activations.si()},
                                                               {"gradients", m.gradients.si()},
                                                               {"optimizer", m.optimizer.si()},
                                                               {"overhead", m.overhead.si()}};
    double at = 0;
    for (const auto& [cls, bytes] : terms) {
      if (bytes <= 0) {
        continue;
      }
      chart.rect(x(at / k_gib),
                 y0,
                 x((at + bytes) / k_gib) - x(at / k_gib),
                 h,
                 cls,
                 fmt::format("#{} {}: {} {:.1f} GiB", c.rank, gpu_label(c), cls, bytes / k_gib));
      at += bytes;
    }
    const double cap = x(c.memory.capacity.si() / k_gib);
    chart.line({cap, y0 - 3},
               {cap, y0 + h + 3},
               "capacity",
               fmt::format("capacity {:.1f} GiB", c.memory.capacity.si() / k_gib));
    if (c.memory.budget.si() > 0 && c.memory.budget.si() < c.memory.capacity.si()) {
      const double b = x(c.memory.budget.si() / k_gib);
      chart.line({b, y0 - 3},
                 {b, y0 + h + 3},
                 "budget",
                 fmt::format("budget {:.1f} GiB", c.memory.budget.si() / k_gib));
    }
  }
  std::vector<std::pair<std::string, std::string>> legend = {{"weights", "weights"}};
  if (training) {
    legend.insert(
        legend.end(),
        {{"activations", "activations"}, {"gradients", "gradients"}, {"optimizer", "optimizer"}});
  } else {
    legend.insert(legend.end(), {{"kv-cache", "KV cache"}, {"activations", "activations"}});
  }
  legend.emplace_back("overhead", "overhead");
  chart.legend({left, 14}, legend);
  return chart;
}

// Cost month by month over the horizon, the replica count over each bar; from the month demand
// outgrows the size bought for month 1 (the plan adds replicas then), bars take another colour.
svg::Chart months_chart(const Plan& plan, const Candidate& c) {
  const auto& months = c.cost.months;
  const double width = 780;
  const double height = 300;
  const double left = 80;
  const double right = width - 20;
  const double top = 30;
  const double bottom = height - 60;
  svg::Chart chart(width,
                   height,
                   fmt::format("{}: cost and replicas by month", plan.spec.name),
                   "The recommendation's cost each month of the horizon as the load grows, with "
                   "the replicas over each bar.");
  double most = 0;
  for (const auto& m : months) {
    most = std::max(most, m.cost.si());
  }
  const auto y = svg::Scale::linear(0, most, bottom, top);
  const double slot = (right - left) / static_cast<double>(months.size());
  chart.y_axis(y, left, right, "$ per month");
  const auto grown_from = c.cost.stops_meeting_targets_month;
  for (std::size_t i = 0; i < months.size(); ++i) {
    const auto& m = months[i];
    const double x0 = left + slot * static_cast<double>(i) + slot * 0.15;
    const bool grown = grown_from && m.month >= *grown_from;
    chart.rect(x0,
               y(m.cost.si()),
               slot * 0.7,
               bottom - y(m.cost.si()),
               grown ? "cost-grown" : "cost",
               fmt::format("month {}: {} replicas, {}", m.month, m.replicas, money(m.cost.si())));
    chart.text({x0 + slot * 0.35, y(m.cost.si()) - 4},
               fmt::format("{}", m.replicas),
               "tick",
               svg::Anchor::middle);
    chart.text(
        {x0 + slot * 0.35, bottom + 16}, fmt::format("{}", m.month), "tick", svg::Anchor::middle);
  }
  chart.line({left, bottom}, {right, bottom}, "axis");
  chart.text({(left + right) / 2, bottom + 34},
             "month (replicas over each bar)",
             "axis-label",
             svg::Anchor::middle);
  if (grown_from) {
    const double mx = left + slot * static_cast<double>(*grown_from - 1);
    const std::string label =
        fmt::format("month {}: demand outgrows month 1's size; replicas added", *grown_from);
    chart.line({mx, top - 10}, {mx, bottom}, "target", label);
    // Right of the line in the first half of the chart, left of it in the second.
    if (mx < (left + right) / 2) {
      chart.text({mx + 4, top - 14}, label, "target-text");
    } else {
      chart.text({mx - 4, top - 14}, label, "target-text", svg::Anchor::end);
    }
  }
  chart.legend(
      {left, height - 8},
      grown_from ? std::vector<std::pair<std::string, std::string>>{{"cost", "month 1's size"},
                                                                    {"cost-grown", "more replicas"}}
                 : std::vector<std::pair<std::string, std::string>>{{"cost", "cost"}});
  return chart;
}

std::string band_text(double point, double low, double high, double scale) {
  if (high <= low) {
    return table_number(point * scale);
  }
  return fmt::format("{} ({} to {})",
                     table_number(point * scale),
                     table_number(low * scale),
                     table_number(high * scale));
}

html::Table candidates_table(const Plan& plan, const TradeAxes& a) {
  html::Table t;
  const WorkloadUnits& u = plan.units;
  const bool training = !u.serving;
  if (training) {
    t.header = {"#",
                "GPU",
                "GPUs",
                "Layout",
                "Memory/GPU (GiB)",
                "Step",
                "MFU",
                a.x_name + " (" + a.x_unit + ")",
                a.y_name,
                "$/hour",
                "TCO",
                "Verdict",
                "Pareto front",
                "Calibrated"};
    t.numeric = {
        true, false, true, false, true, true, true, true, true, true, true, false, false, false};
  } else {
    t.header = {"#",
                "GPU",
                "GPUs",
                "Layout",
                "Memory/GPU (GiB)",
                fmt::format("{} (ms)", names(u.latency).title),
                u.shows_tpot() ? "TPOT (ms)" : std::string(names(u.rate).title),
                // A pipeline's tokens are the denoiser's latent positions.
                u.tokens == TokenRate::latent ? "Latent tokens/s" : "Tokens/s",
                "$/hour",
                a.y_name,
                "TCO",
                "Verdict",
                "Pareto front",
                "Calibrated"};
    t.numeric = {
        true, false, true, false, true, true, true, true, true, true, true, false, false, false};
  }
  t.caption = "Every feasible configuration, best first; the band is the range the prediction's "
              "measured error gives.";
  for (const auto& p : a.points) {
    const Candidate& c = *p.candidate;
    std::vector<std::string> row = {std::to_string(c.rank),
                                    gpu_label(c),
                                    std::to_string(c.total_gpus()),
                                    layout_cell(c),
                                    fmt::format("{:.1f}", c.memory.per_gpu.total().si() / k_gib)};
    if (training) {
      const auto& tr = *c.training;
      row.push_back(format_seconds(tr.step));
      row.push_back(fmt::format("{:.0f}%", 100 * tr.mfu));
      row.push_back(band_text(p.x, p.x_low, p.x_high, a.x_scale));
      row.push_back(p.y_high > p.y_low
                        ? fmt::format("{} ({} to {})", money(p.y), money(p.y_low), money(p.y_high))
                        : money(p.y));
    } else {
      const auto& in = *c.inference;
      const auto& b = c.inference_bands;
      row.push_back(b ? band_text(in.ttft.si(), b->ttft.low, b->ttft.high, 1e3)
                      : table_number(in.ttft.si() * 1e3));
      if (u.shows_tpot()) {
        row.push_back(b ? band_text(in.tpot.si(), b->tpot.low, b->tpot.high, 1e3)
                        : table_number(in.tpot.si() * 1e3));
      } else {
        row.push_back(fmt::format("{:.{}f}", rate_of(in, u.rate), names(u.rate).decimals));
      }
      row.push_back(fmt::format("{:.0f}", tokens_of(in, u.tokens)));
    }
    row.push_back(money(c.cost.per_hour.si()));
    if (!training) {
      row.push_back(money_axis_text(p.y));
    }
    row.push_back(money(c.cost.tco.si()));
    row.push_back(c.verdict);
    row.push_back(c.rank == 1 ? (p.front ? "yes, recommended" : "recommended")
                              : (p.front ? "yes" : ""));
    row.push_back(!c.calibration ? "" : c.calibration->measured ? "yes" : "no");
    t.rows.push_back(std::move(row));
    t.row_class.push_back(c.rank == 1 ? "recommended-row" : "");
  }
  return t;
}

html::Table memory_table(const std::vector<const Candidate*>& rows) {
  html::Table t;
  t.header = {"#",
              "GPU",
              "Weights",
              "KV cache",
              "Activations",
              "Gradients",
              "Optimizer",
              "Overhead",
              "Total",
              "Budget",
              "Capacity"};
  t.numeric = {true, false, true, true, true, true, true, true, true, true, true};
  t.caption = "Memory of one GPU, GiB.";
  const auto gib = [](Bytes b) { return fmt::format("{:.1f}", b.si() / k_gib); };
  for (const auto* c : rows) {
    const auto& m = c->memory.per_gpu;
    t.rows.push_back({std::to_string(c->rank),
                      gpu_label(*c),
                      gib(m.weights),
                      gib(m.kv_cache),
                      gib(m.activations),
                      gib(m.gradients),
                      gib(m.optimizer),
                      gib(m.overhead),
                      gib(m.total()),
                      gib(c->memory.budget),
                      gib(c->memory.capacity)});
  }
  return t;
}

std::vector<const Candidate*> top_candidates(const Plan& plan, const RenderOptions& o, int most) {
  std::vector<const Candidate*> rows;
  const int limit = o.top > 0 ? std::min(o.top, most) : most;
  for (const auto& c : plan.candidates) {
    if (static_cast<int>(rows.size()) >= limit) {
      break;
    }
    rows.push_back(&c);
  }
  return rows;
}

Plan shown_plan(const Plan& plan, const RenderOptions& o) {
  if (o.top <= 0 || static_cast<int>(plan.candidates.size()) <= o.top) {
    return plan;
  }
  Plan shown = plan;
  shown.candidates.resize(static_cast<std::size_t>(o.top));
  return shown;
}

// The recommendation's price in the workload's own unit (per audio hour, per thousand images),
// else per million of its tokens (image generation's latent positions named output tokens).
std::string price_text(const Plan& plan, const Candidate& b) {
  const WorkloadUnits& u = plan.units;
  if (const auto own = price_of(b.cost, u.price); own && !names(u.price).per_token) {
    return fmt::format(", {} per {}", money_axis_text(*own), names(u.price).words);
  }
  if (b.cost.usd_per_million_tokens) {
    return fmt::format(", {} per {}",
                       money_axis_text(*b.cost.usd_per_million_tokens),
                       names(u.token_price.value_or(PriceBasis::per_million_output_tokens)).words);
  }
  return "";
}

// The recommendation's simulated latency distribution, where the targets name percentiles
// (docs/model.md, "Latency distributions").
void render_latency_distribution(const Plan& plan, html::Page& page) {
  const Candidate& best = plan.candidates.front();
  if (!plan.spec.workload.inference.targets.names_percentiles() || !best.inference ||
      !best.inference->simulated) {
    return;
  }
  const SimulatedLatency& d = *best.inference->simulated;
  page.section("Latency distribution", "latency");
  page.paragraph(fmt::format("The recommendation's latencies over {} simulated requests in the "
                             "steady state, at the estimate (targets are held at the slow edge "
                             "of the band).",
                             d.requests));
  html::Table t;
  t.header = {"Latency", "Mean", "p50", "p90", "p99"};
  t.numeric = {false, true, true, true, true};
  for (const auto& [name, stats] :
       {std::pair{"TTFT", &d.ttft}, std::pair{"TPOT", &d.tpot}, std::pair{"End to end", &d.e2e}}) {
    t.rows.push_back({name,
                      format_seconds(stats->mean),
                      format_seconds(stats->p50),
                      format_seconds(stats->p90),
                      format_seconds(stats->p99)});
  }
  page.table(t);
}

} // namespace

void render_plan_html(const Plan& full_plan, const RenderOptions& o, std::ostream& out) {
  const Plan plan = shown_plan(full_plan, o);
  const Spec& s = plan.spec;
  html::Page page("rightsize plan: " + s.name, workload_line(plan));
  page.section("Recommendation", "recommendation");
  if (plan.feasible()) {
    const auto& b = plan.candidates.front();
    std::string rest = fmt::format(
        "{}; {} per hour, TCO {}", b.verdict, money(b.cost.per_hour.si()), money(b.cost.tco.si()));
    if (plan.units.serving) {
      rest += fmt::format(" over {} months", s.deployment.horizon_months) + price_text(plan, b);
    }
    page.lead(fmt::format("{} ({})", gpu_label(b), layout_cell(b)), rest + ".", "good");
    if (!b.verdict_reason.empty()) {
      page.paragraph(b.verdict_reason);
    }
  } else {
    page.lead("Nothing feasible:",
              infeasible_because(plan).empty() ? "no GPU configuration meets the spec; the reasons "
                                                 "and the nearest fixes are below."
                                               : infeasible_because(plan) + ".",
              "bad");
  }
  page.list({"Requirements: " + requirements_line(plan), "Targets: " + targets_line(plan)});
  {
    std::vector<const Candidate*> rows;
    for (const auto& c : plan.candidates) {
      rows.push_back(&c);
    }
    std::vector<std::string> lines;
    for (const auto& text : uncalibrated_lines(rows)) {
      lines.push_back("Uncalibrated: " + text);
    }
    page.list(lines, "warn");
  }
  if (!plan.uncertainty_note.empty()) {
    page.paragraph(plan.uncertainty_note, "muted");
  }
  if (plan.feasible()) {
    auto axes = trade_axes(plan);
    page.section("Cost against " + axes.x_name, "trade-off");
    if (!axes.points.empty()) {
      const auto chart = trade_chart(plan, axes);
      page.figure(chart,
                  fmt::format("{} against {} for every feasible configuration. Lower left "
                              "is better; the dashed line joins the configurations no "
                              "other beats on both.",
                              axes.y_name,
                              axes.x_name));
    }
    page.table(candidates_table(plan, axes));
    render_latency_distribution(plan, page);

    const auto rows = top_candidates(plan, o, 8);
    page.section("Memory per GPU", "memory");
    page.figure(memory_chart(plan, rows), "");
    page.table(memory_table(rows));

    const auto& best = plan.candidates.front();
    if (best.cost.months.size() > 1) {
      page.section("Growth over the horizon", "growth");
      page.figure(months_chart(plan, best), best.cost.basis);
      html::Table t;
      t.header = {"Month", "Replicas", "Cost", "Beyond month 1's size"};
      t.numeric = {true, true, true, false};
      for (const auto& m : best.cost.months) {
        const bool grown = best.cost.stops_meeting_targets_month &&
                           m.month >= *best.cost.stops_meeting_targets_month;
        t.rows.push_back({std::to_string(m.month),
                          std::to_string(m.replicas),
                          money(m.cost.si()),
                          grown ? "yes" : "no"});
      }
      page.folded_table(fmt::format("{} months, month by month", best.cost.months.size()), t);
    }
  }
  if (!plan.rejected.empty()) {
    page.section(fmt::format("Not recommended ({})", plan.rejected.size()), "rejected");
    html::Table t;
    t.header = {"GPU", "Reason", "Why", "Nearest fix"};
    for (const auto& r : plan.rejected) {
      t.rows.push_back({r.gpu, r.code, r.reason, r.nearest_fix});
    }
    page.table(t);
  }
  std::vector<std::string> notes = plan.notes;
  for (const auto& a : plan.assumptions) {
    notes.push_back(fmt::format("{} = {:g} ({})", a.name, a.value, a.source));
  }
  if (!notes.empty()) {
    page.section("Notes and assumptions", "notes");
    page.list(notes);
  }
  page.paragraph(fmt::format("Catalog {} ({}), objective {}.",
                             plan.catalog_version,
                             plan.catalog_digest,
                             objective_text(plan)),
                 "muted");
  out << page.finish();
}

void render_plan_svg(const Plan& full_plan, const RenderOptions& o, std::ostream& out) {
  const Plan plan = shown_plan(full_plan, o);
  if (!plan.feasible()) {
    // Nothing to trade off: the chart says so rather than drawing empty axes.
    svg::Chart chart(780, 80, "rightsize plan: " + plan.spec.name, "Nothing feasible.");
    chart.text({20, 45},
               fmt::format("{}: nothing feasible; {} GPUs rejected (see the plan's "
                           "table for the reasons)",
                           plan.spec.name,
                           plan.rejected.size()),
               "label-strong");
    out << chart.standalone(html::chart_stylesheet());
    return;
  }
  auto axes = trade_axes(plan);
  out << trade_chart(plan, axes).standalone(html::chart_stylesheet());
}

} // namespace rightsize
