#pragma once

// The HTML reports' page: one self-contained file (inline CSS and SVG, no script, nothing fetched),
// light and dark aware and printable. Sections, paragraphs, tables and figures are appended in
// order; `finish` closes the document. The markup is also well-formed XML (tests parse it back).
// docs/reports.md.

#include "svg.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rightsize::html {

// The charts' classes (axes, marks, series colours) in light, dark and print; the standalone SVG
// files carry it too.
std::string_view chart_stylesheet();

struct Table {
  std::vector<std::string> header;
  std::vector<bool> numeric; // right-aligned columns; may be shorter than header
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row_class; // per row, may be empty
  std::string caption;
};

class Page {
public:
  // `title` is the document's <title> and heading; `subtitle` a line under it.
  Page(std::string_view title, std::string_view subtitle);

  void section(std::string_view heading, std::string_view id = {});
  void subsection(std::string_view heading);
  void paragraph(std::string_view text, std::string_view cls = {});
  // A paragraph with a bold lead: "<strong>lead</strong> rest".
  void lead(std::string_view lead, std::string_view rest, std::string_view cls = {});
  void list(const std::vector<std::string>& items, std::string_view cls = {});
  void table(const Table& t);
  // A table folded under a summary line (long tables: per-GPU rows, time slices).
  void folded_table(std::string_view summary, const Table& t);
  void figure(const svg::Chart& chart, std::string_view caption);

  [[nodiscard]] std::string finish() const;

private:
  std::string m_title;
  std::string m_body;
};

} // namespace rightsize::html
