#pragma once

// A small SVG writer for the HTML and SVG reports (docs/reports.md). Elements carry classes that
// the report's stylesheet colours (light, dark and print); nothing here computes a report. The
// output is well-formed XML, coordinates are written with one decimal so goldens are stable, and
// every mark can carry a <title> (a browser's tooltip, no script).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize::svg {

// `text` with &, <, >, " and ' escaped, for XML text and attribute values.
std::string escape(std::string_view text);

// A round, short tick label: 0.5, 12, 250, 1.2k, 3.5M.
std::string number_label(double v);

// A map from data values to pixels, linear or logarithmic, with round ticks. A linear scale
// widens its domain to its outer ticks; a log scale to whole 1-2-5 steps.
class Scale {
public:
  static Scale linear(double lo, double hi, double px_lo, double px_hi);
  static Scale log(double lo, double hi, double px_lo, double px_hi);

  [[nodiscard]] double operator()(double v) const;
  [[nodiscard]] const std::vector<double>& ticks() const { return m_ticks; }
  [[nodiscard]] double lo() const { return m_lo; }
  [[nodiscard]] double hi() const { return m_hi; }
  [[nodiscard]] double px_lo() const { return m_px_lo; }
  [[nodiscard]] double px_hi() const { return m_px_hi; }

private:
  bool m_log = false;
  double m_lo = 0;
  double m_hi = 1;
  double m_px_lo = 0;
  double m_px_hi = 1;
  std::vector<double> m_ticks;
};

enum class Anchor { start, middle, end };

struct Point {
  double x = 0;
  double y = 0;
};

// One chart. Marks are appended in drawing order; `finish` closes the document.
class Chart {
public:
  // `title` is the chart's accessible name (<title>), `description` its one-sentence summary.
  Chart(double width, double height, std::string_view title, std::string_view description);

  void line(Point a, Point b, std::string_view cls, std::string_view tip = {});
  void
  rect(double x, double y, double w, double h, std::string_view cls, std::string_view tip = {});
  void circle(Point c, double r, std::string_view cls, std::string_view tip = {});
  // A diamond (the recommendation's marker) of half-diagonal r.
  void diamond(Point c, double r, std::string_view cls, std::string_view tip = {});
  void polyline(const std::vector<Point>& points, std::string_view cls);
  void polygon(const std::vector<Point>& points, std::string_view cls, std::string_view tip = {});
  void text(Point at, std::string_view s, std::string_view cls, Anchor anchor = Anchor::start);

  // Text labels placed so that none overlaps another or a mark: each moves up or down, 13 px at
  // a time, until it is clear.
  struct Label {
    Point at;
    std::string text;
    std::string cls;
  };
  void
  labels(std::vector<Label> labels, const std::vector<Point>& marks = {}, double mark_radius = 0);

  // Axes along a plot area: ticks, grid lines across it and the axis label.
  void x_axis(const Scale& x, double y_px, double grid_to_px, std::string_view label);
  void y_axis(const Scale& y, double x_px, double grid_to_px, std::string_view label);
  // A row of legend swatches at (x, y): each a class and its label.
  void legend(Point at, const std::vector<std::pair<std::string, std::string>>& entries);

  // The <svg> element for inline use in HTML.
  [[nodiscard]] std::string inline_svg() const;
  // A standalone .svg file: XML declaration, the stylesheet inside, then the same marks.
  [[nodiscard]] std::string standalone(std::string_view stylesheet) const;

private:
  [[nodiscard]] std::string open_tag() const;
  double m_width;
  double m_height;
  std::string m_title;
  std::string m_description;
  std::string m_body;
};

} // namespace rightsize::svg
