// The SVG writer behind the HTML and SVG reports. svg.hpp.

#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::svg {

namespace {

std::string coordinate(double v) {
  if (!std::isfinite(v)) {
    return "0";
  }
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) {
    s.resize(s.size() - 2);
  }
  return s == "-0" ? "0" : s;
}

std::string tip_element(std::string_view tip) {
  return tip.empty() ? std::string() : "<title>" + escape(tip) + "</title>";
}

// The mark itself, self-closed, or opened around its <title>.
std::string element(std::string_view tag, const std::string& attributes, std::string_view tip) {
  if (tip.empty()) {
    return fmt::format("<{} {}/>\n", tag, attributes);
  }
  return fmt::format("<{} {}>{}</{}>\n", tag, attributes, tip_element(tip), tag);
}

std::string points_attribute(const std::vector<Point>& points) {
  std::string s;
  for (const auto& p : points) {
    if (!s.empty()) {
      s += ' ';
    }
    s += coordinate(p.x) + "," + coordinate(p.y);
  }
  return s;
}

// The round step (1, 2 or 5 times a power of ten) nearest above `raw`.
double round_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * power * (1 + 1e-9)) {
      return m * power;
    }
  }
  return 10 * power;
}

} // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string number_label(double v) {
  if (v == 0 || !std::isfinite(v)) {
    return "0";
  }
  const double a = std::abs(v);
  if (a >= 1e6) {
    return fmt::format("{:.3g}M", v / 1e6);
  }
  if (a >= 1e3) {
    return fmt::format("{:.3g}k", v / 1e3);
  }
  return fmt::format("{:.4g}", v);
}

Scale Scale::linear(double lo, double hi, double px_lo, double px_hi) {
  Scale s;
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (hi < lo) {
    std::swap(lo, hi);
  }
  if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) {
    hi = lo + std::max(1.0, std::abs(lo));
  }
  const double step = round_step((hi - lo) / 5);
  s.m_lo = std::floor(lo / step + 1e-9) * step;
  s.m_hi = std::ceil(hi / step - 1e-9) * step;
  for (double t = s.m_lo; t <= s.m_hi + step * 1e-6; t += step) {
    s.m_ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  s.m_px_lo = px_lo;
  s.m_px_hi = px_hi;
  return s;
}

Scale Scale::log(double lo, double hi, double px_lo, double px_hi) {
  Scale s;
  s.m_log = true;
  if (!(lo > 0) || !std::isfinite(lo)) {
    lo = 1;
  }
  if (!(hi > lo) || !std::isfinite(hi)) {
    hi = lo * 10;
  }
  // The 1-2-5 values around the domain; only powers of ten once it spans three decades.
  const bool decades_only = hi / lo > 1000;
  std::vector<double> steps;
  for (int e = static_cast<int>(std::floor(std::log10(lo))) - 1;
       e <= static_cast<int>(std::ceil(std::log10(hi))) + 1;
       ++e) {
    const double power = std::pow(10.0, e);
    steps.push_back(power);
    if (!decades_only) {
      steps.push_back(2 * power);
      steps.push_back(5 * power);
    }
  }
  s.m_lo = lo;
  s.m_hi = hi;
  for (const double v : steps) {
    if (v <= lo * (1 + 1e-9)) {
      s.m_lo = v;
    }
  }
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (*it >= hi * (1 - 1e-9)) {
      s.m_hi = *it;
    }
  }
  for (const double v : steps) {
    if (v >= s.m_lo * (1 - 1e-9) && v <= s.m_hi * (1 + 1e-9)) {
      s.m_ticks.push_back(v);
    }
  }
  s.m_px_lo = px_lo;
  s.m_px_hi = px_hi;
  return s;
}

double Scale::operator()(double v) const {
  double f = 0;
  if (m_log) {
    f = (std::log(std::max(v, m_lo * 1e-3)) - std::log(m_lo)) / (std::log(m_hi) - std::log(m_lo));
  } else {
    f = (v - m_lo) / (m_hi - m_lo);
  }
  return m_px_lo + f * (m_px_hi - m_px_lo);
}

Chart::Chart(double width, double height, std::string_view title, std::string_view description)
    : m_width(width), m_height(height), m_title(title), m_description(description) {}

void Chart::line(Point a, Point b, std::string_view cls, std::string_view tip) {
  m_body += element("line",
                    fmt::format(R"(x1="{}" y1="{}" x2="{}" y2="{}" class="{}")",
                                coordinate(a.x),
                                coordinate(a.y),
                                coordinate(b.x),
                                coordinate(b.y),
                                cls),
                    tip);
}

void Chart::rect(
    double x, double y, double w, double h, std::string_view cls, std::string_view tip) {
  if (w < 0) {
    x += w;
    w = -w;
  }
  if (h < 0) {
    y += h;
    h = -h;
  }
  m_body += element("rect",
                    fmt::format(R"(x="{}" y="{}" width="{}" height="{}" class="{}")",
                                coordinate(x),
                                coordinate(y),
                                coordinate(w),
                                coordinate(h),
                                cls),
                    tip);
}

void Chart::circle(Point c, double r, std::string_view cls, std::string_view tip) {
  m_body += element("circle",
                    fmt::format(R"(cx="{}" cy="{}" r="{}" class="{}")",
                                coordinate(c.x),
                                coordinate(c.y),
                                coordinate(r),
                                cls),
                    tip);
}

void Chart::diamond(Point c, double r, std::string_view cls, std::string_view tip) {
  polygon({{c.x, c.y - r}, {c.x + r, c.y}, {c.x, c.y + r}, {c.x - r, c.y}}, cls, tip);
}

void Chart::polyline(const std::vector<Point>& points, std::string_view cls) {
  if (points.size() < 2) {
    return;
  }
  m_body += element(
      "polyline", fmt::format(R"(points="{}" class="{}")", points_attribute(points), cls), {});
}

void Chart::polygon(const std::vector<Point>& points, std::string_view cls, std::string_view tip) {
  if (points.size() < 3) {
    return;
  }
  m_body += element(
      "polygon", fmt::format(R"(points="{}" class="{}")", points_attribute(points), cls), tip);
}

void Chart::text(Point at, std::string_view s, std::string_view cls, Anchor anchor) {
  const char* a = anchor == Anchor::middle ? "middle" : anchor == Anchor::end ? "end" : "start";
  m_body += fmt::format(R"(<text x="{}" y="{}" class="{}" text-anchor="{}">{}</text>)",
                        coordinate(at.x),
                        coordinate(at.y),
                        cls,
                        a,
                        escape(s));
  m_body += '\n';
}

void Chart::labels(std::vector<Label> labels, const std::vector<Point>& marks, double mark_radius) {
  // Greedy, from the top: each label tries its own place, then 13 px steps above and below it
  // in turn, and takes the first whose box overlaps no label placed before it and no mark (a
  // point's square of `mark_radius`); after 8 tries it keeps its own place.
  std::stable_sort(
      labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.at.y < b.at.y; });
  struct Box {
    double x0, x1, y0, y1;
  };
  std::vector<Box> placed;
  for (const auto& m : marks) {
    placed.push_back({m.x - mark_radius, m.x + mark_radius, m.y - mark_radius, m.y + mark_radius});
  }
  const auto box_of = [](const Label& l, double y) {
    // About 6 px per character at 11 px DejaVu Sans.
    const double w = 6.0 * static_cast<double>(l.text.size());
    return Box{l.at.x, l.at.x + w, y - 10, y + 2};
  };
  const auto overlaps = [&](const Box& b) {
    return std::any_of(placed.begin(), placed.end(), [&](const Box& p) {
      return b.x0 < p.x1 && p.x0 < b.x1 && b.y0 < p.y1 && p.y0 < b.y1;
    });
  };
  for (const auto& l : labels) {
    double y = l.at.y;
    for (int step = 1; step <= 8 && overlaps(box_of(l, y)); ++step) {
      y = l.at.y + 13.0 * ((step + 1) / 2) * (step % 2 == 1 ? -1 : 1);
    }
    if (overlaps(box_of(l, y))) {
      y = l.at.y;
    }
    placed.push_back(box_of(l, y));
    text({l.at.x, y}, l.text, l.cls);
  }
}

void Chart::x_axis(const Scale& x, double y_px, double grid_to_px, std::string_view label) {
  for (const double t : x.ticks()) {
    const double px = x(t);
    line({px, grid_to_px}, {px, y_px}, "grid");
    line({px, y_px}, {px, y_px + 4}, "axis");
    text({px, y_px + 16}, number_label(t), "tick", Anchor::middle);
  }
  line({x.px_lo(), y_px}, {x.px_hi(), y_px}, "axis");
  text({(x.px_lo() + x.px_hi()) / 2, y_px + 34}, label, "axis-label", Anchor::middle);
}

void Chart::y_axis(const Scale& y, double x_px, double grid_to_px, std::string_view label) {
  for (const double t : y.ticks()) {
    const double py = y(t);
    line({x_px, py}, {grid_to_px, py}, "grid");
    line({x_px - 4, py}, {x_px, py}, "axis");
    text({x_px - 7, py + 4}, number_label(t), "tick", Anchor::end);
  }
  line({x_px, y.px_lo()}, {x_px, y.px_hi()}, "axis");
  const double mid = (y.px_lo() + y.px_hi()) / 2;
  m_body += fmt::format(
      R"svg(<text x="0" y="0" class="axis-label" text-anchor="middle" transform="translate({} {}) rotate(-90)">{}</text>)svg",
      coordinate(x_px - 48),
      coordinate(mid),
      escape(label));
  m_body += '\n';
}

void Chart::legend(Point at, const std::vector<std::pair<std::string, std::string>>& entries) {
  double x = at.x;
  for (const auto& [cls, label] : entries) {
    rect(x, at.y - 9, 12, 12, cls);
    text({x + 16, at.y + 1}, label, "legend");
    // Legend text is small; about 6.5 px per character.
    x += 16 + 6.5 * static_cast<double>(label.size()) + 18;
  }
}

std::string Chart::open_tag() const {
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" width="{}" height="{}" role="img" class="chart">)",
      coordinate(m_width),
      coordinate(m_height),
      coordinate(m_width),
      coordinate(m_height));
}

std::string Chart::inline_svg() const {
  return open_tag() + "\n<title>" + escape(m_title) + "</title>\n<desc>" + escape(m_description) +
         "</desc>\n" + m_body + "</svg>\n";
}

std::string Chart::standalone(std::string_view stylesheet) const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + open_tag() + "\n<title>" +
         escape(m_title) + "</title>\n<desc>" + escape(m_description) + "</desc>\n<style>\n" +
         std::string(stylesheet) + "</style>\n" +
         fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" class="background"/>)",
                     coordinate(m_width),
                     coordinate(m_height)) +
         "\n" + m_body + "</svg>\n";
}

} // namespace rightsize::svg
