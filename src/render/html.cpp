// The HTML reports' page and stylesheet. html.hpp.

#include "html.hpp"

#include <fmt/format.h>

namespace rightsize::html {

namespace {

using svg::escape;

// Colours as custom properties, so one set of rules serves light, dark and print. The palette is
// the one GitHub's Primer uses for charts (readable on both backgrounds); series colours are
// told apart by lightness as well as hue, so a grey printout keeps them apart.
constexpr std::string_view k_chart_css = R"(:root {
  color-scheme: light dark;
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --grid: #e1e4e8;
  --axis: #59636e; --accent: #0969da; --good: #1a7f37; --bad: #cf222e; --warn: #9a6700;
  --s1: #0969da; --s2: #bf8700; --s3: #8250df; --s4: #1a7f37; --s5: #cf222e; --s6: #8c959f;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --grid: #2f353d;
    --axis: #9198a1; --accent: #4493f8; --good: #3fb950; --bad: #f85149; --warn: #d29922;
    --s1: #4493f8; --s2: #d29922; --s3: #ab7df8; --s4: #3fb950; --s5: #f85149; --s6: #9198a1;
  }
}
@media print {
  :root {
    color-scheme: light;
    --fg: #000000; --muted: #444444; --bg: #ffffff; --panel: #ffffff; --grid: #dddddd;
    --axis: #444444; --accent: #0550ae; --good: #116329; --bad: #a40e26; --warn: #7d4e00;
    --s1: #0550ae; --s2: #9a6700; --s3: #6639ba; --s4: #116329; --s5: #a40e26; --s6: #6e7781;
  }
}
svg.chart { font-family: system-ui, "DejaVu Sans", sans-serif; max-width: 100%; height: auto; }
.background { fill: var(--bg); }
.grid { stroke: var(--grid); stroke-width: 1; }
.axis { stroke: var(--axis); stroke-width: 1; }
.tick, .legend, .note { fill: var(--muted); font-size: 11px; }
.axis-label { fill: var(--fg); font-size: 12px; }
.label { fill: var(--fg); font-size: 11px; }
.label-strong { fill: var(--fg); font-size: 12px; font-weight: bold; }
.point { fill: var(--s1); fill-opacity: 0.85; stroke: var(--bg); stroke-width: 1; }
.point-off { fill: var(--s6); fill-opacity: 0.8; stroke: var(--bg); stroke-width: 1; }
.recommended { fill: var(--good); stroke: var(--fg); stroke-width: 1.5; }
.error-bar { stroke: var(--muted); stroke-width: 1.2; }
.front { fill: none; stroke: var(--s1); stroke-width: 1.5; stroke-dasharray: 5 3; }
.target { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 6 4; }
.target-text { fill: var(--bad); font-size: 11px; }
.capacity { stroke: var(--fg); stroke-width: 2; }
.budget { stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 3 3; }
.weights { fill: var(--s1); }
.kv-cache { fill: var(--s2); }
.activations { fill: var(--s3); }
.gradients { fill: var(--s4); }
.optimizer { fill: var(--s5); }
.overhead { fill: var(--s6); }
.before { fill: var(--s6); }
.after { fill: var(--s1); }
.after-bad { fill: var(--bad); }
.threshold { stroke: var(--warn); stroke-width: 2; }
.cost { fill: var(--s1); }
.cost-grown { fill: var(--s2); }
.saved { fill: var(--good); }
.added { fill: var(--bad); }
.freed { fill: var(--s1); }
.band-outer { fill: var(--s1); fill-opacity: 0.15; }
.band-inner { fill: var(--s1); fill-opacity: 0.35; }
.median { fill: none; stroke: var(--s1); stroke-width: 1.5; }
.memory-band { fill: var(--s2); fill-opacity: 0.25; }
.memory-line { fill: none; stroke: var(--s2); stroke-width: 1.5; }
)";

constexpr std::string_view k_page_css = R"(body {
  margin: 0 auto; max-width: 1100px; padding: 24px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, "DejaVu Sans", sans-serif;
}
h1 { font-size: 22px; margin: 0 0 4px 0; }
h2 { font-size: 18px; margin: 28px 0 8px 0; border-bottom: 1px solid var(--grid); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px 0; }
p, ul { margin: 6px 0; }
.subtitle, .muted { color: var(--muted); }
.good { color: var(--good); }
.bad { color: var(--bad); }
.warn { color: var(--warn); }
figure { margin: 12px 0; padding: 8px; background: var(--panel); border-radius: 6px; }
figcaption { color: var(--muted); font-size: 12px; margin-top: 4px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
caption { text-align: left; color: var(--muted); font-size: 12px; padding-bottom: 4px; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--grid); text-align: left; vertical-align: top; }
th { background: var(--panel); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.recommended-row td { font-weight: bold; }
tr.failed-row td { color: var(--bad); }
details { margin: 8px 0; }
summary { cursor: pointer; color: var(--accent); }
code { font-size: 12px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  figure, table, tr { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  details > summary { display: none; }
}
)";

} // namespace

std::string_view chart_stylesheet() {
  return k_chart_css;
}

Page::Page(std::string_view title, std::string_view subtitle) : m_title(title) {
  m_body += fmt::format("<h1>{}</h1>\n", escape(title));
  if (!subtitle.empty()) {
    m_body += fmt::format("<p class=\"subtitle\">{}</p>\n", escape(subtitle));
  }
}

void Page::section(std::string_view heading, std::string_view id) {
  if (id.empty()) {
    m_body += fmt::format("<h2>{}</h2>\n", escape(heading));
  } else {
    m_body += fmt::format("<h2 id=\"{}\">{}</h2>\n", escape(id), escape(heading));
  }
}

void Page::subsection(std::string_view heading) {
  m_body += fmt::format("<h3>{}</h3>\n", escape(heading));
}

void Page::paragraph(std::string_view text, std::string_view cls) {
  if (cls.empty()) {
    m_body += fmt::format("<p>{}</p>\n", escape(text));
  } else {
    m_body += fmt::format("<p class=\"{}\">{}</p>\n", escape(cls), escape(text));
  }
}

void Page::lead(std::string_view lead, std::string_view rest, std::string_view cls) {
  const std::string open = cls.empty() ? "<p>" : fmt::format("<p class=\"{}\">", escape(cls));
  m_body += fmt::format("{}<strong>{}</strong> {}</p>\n", open, escape(lead), escape(rest));
}

void Page::list(const std::vector<std::string>& items, std::string_view cls) {
  if (items.empty()) {
    return;
  }
  m_body += cls.empty() ? "<ul>\n" : fmt::format("<ul class=\"{}\">\n", escape(cls));
  for (const auto& item : items) {
    m_body += fmt::format("<li>{}</li>\n", escape(item));
  }
  m_body += "</ul>\n";
}

void Page::table(const Table& t) {
  const auto numeric = [&](std::size_t i) { return i < t.numeric.size() && t.numeric[i]; };
  m_body += "<table>\n";
  if (!t.caption.empty()) {
    m_body += fmt::format("<caption>{}</caption>\n", escape(t.caption));
  }
  m_body += "<thead><tr>";
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    m_body +=
        fmt::format(numeric(i) ? "<th class=\"num\">{}</th>" : "<th>{}</th>", escape(t.header[i]));
  }
  m_body += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const bool classed = r < t.row_class.size() && !t.row_class[r].empty();
    m_body += classed ? fmt::format("<tr class=\"{}\">", escape(t.row_class[r])) : "<tr>";
    for (std::size_t i = 0; i < t.rows[r].size(); ++i) {
      m_body += fmt::format(numeric(i) ? "<td class=\"num\">{}</td>" : "<td>{}</td>",
                            escape(t.rows[r][i]));
    }
    m_body += "</tr>\n";
  }
  m_body += "</tbody>\n</table>\n";
}

void Page::folded_table(std::string_view summary, const Table& t) {
  m_body += fmt::format("<details>\n<summary>{}</summary>\n", escape(summary));
  table(t);
  m_body += "</details>\n";
}

void Page::figure(const svg::Chart& chart, std::string_view caption) {
  m_body += "<figure>\n" + chart.inline_svg();
  if (!caption.empty()) {
    m_body += fmt::format("<figcaption>{}</figcaption>\n", escape(caption));
  }
  m_body += "</figure>\n";
}

std::string Page::finish() const {
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta name="color-scheme" content="light dark"/>
<title>{}</title>
<style>
{}{}</style>
</head>
<body>
{}<p class="muted">Generated by rightsize. Every number on a chart is also in a table beside it.</p>
</body>
</html>
)",
                     escape(m_title),
                     chart_stylesheet(),
                     k_page_css,
                     m_body);
}

} // namespace rightsize::html
