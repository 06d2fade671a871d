#pragma once

// A command's renderers as a table, one row per --format value: the command offers the table's
// formats (the first row is the default) and renders with the row of the format asked for,
// instead of a chain of string comparisons (STYLE.md 5b; bloaty's OutputFormat).
//
//   using PlanRenderer = void (*)(const Plan&, const RenderOptions&, std::ostream&);
//   constexpr std::array<Format<PlanRenderer>, 2> k_formats{{{"table", render_plan_table},
//                                                            {"json", render_plan_json}}};
//   add_format_option(*sub, o.common, format_names(k_formats));
//   renderer(k_formats, o.common.format)(plan, options, out);

#include "cli/common_options.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize::cli {

// One row: the --format value and the function that renders it.
template <class Render> struct Format {
  std::string_view name;
  Render render;
};

// The formats of a table, in its order, for add_format_option.
template <class Render, std::size_t N>
std::vector<std::string> format_names(const std::array<Format<Render>, N>& formats) {
  std::vector<std::string> names;
  names.reserve(N);
  for (const auto& f : formats) {
    names.emplace_back(f.name);
  }
  return names;
}

// The renderer of `format`. add_format_option offers exactly the table's names and turns a
// format typed in another case into its name ("JSON" -> "json"), so a miss is a bug of the
// command's registration.
template <class Render, std::size_t N>
const Render& renderer(const std::array<Format<Render>, N>& formats, std::string_view format) {
  static_assert(N > 0, "a command has at least one format");
  for (const auto& f : formats) {
    if (f.name == format) {
      return f.render;
    }
  }
  throw InternalError("no renderer for --format " + std::string(format));
}

} // namespace rightsize::cli
