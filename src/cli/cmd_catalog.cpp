#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/render/catalog.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>

namespace rightsize::cli {

namespace {

struct CatalogOptions {
  CommonOptions common;
  std::string name; // show
  std::string file; // validate
  long stale_days = 180;
};

using ListRenderer = void (*)(const CatalogView&, std::ostream&);
constexpr std::array<Format<ListRenderer>, 3> k_list_formats{{{"table", render_catalog_list_table},
                                                              {"json", render_catalog_list_json},
                                                              {"csv", render_catalog_list_csv}}};

void render_gpu_json(const Gpu& g, const CatalogView& view, std::ostream& out) {
  out << detail::dump_json(gpu_to_json(g, view), 2) << '\n';
}
using GpuRenderer = void (*)(const Gpu&, const CatalogView&, std::ostream&);
constexpr std::array<Format<GpuRenderer>, 2> k_show_formats{
    {{"table", render_gpu_table}, {"json", render_gpu_json}}};

void add_stale_option(CLI::App& sub, CatalogOptions& o) {
  sub.add_option("--stale-days", o.stale_days, "Flag prices older than this many days")
      ->transform(whole_number_in(1, 36500))
      ->default_str("180");
}

} // namespace

void register_catalog(CLI::App& app, Context& ctx) {
  auto* catalog = app.add_subcommand("catalog", "List, show and validate the GPU catalog");
  catalog->require_subcommand(1);

  auto list = std::make_shared<CatalogOptions>();
  auto* list_cmd = catalog->add_subcommand("list",
                                           "One row per GPU with its headline numbers and "
                                           "cheapest price");
  add_catalog_option(*list_cmd, list->common);
  add_format_option(*list_cmd, list->common, format_names(k_list_formats));
  add_stale_option(*list_cmd, *list);
  list_cmd->callback([&ctx, list]() {
    ctx.action = [&ctx, list]() {
      const Catalog c =
          load_catalog(bundled_catalog_path(list->common), user_catalog_path(list->common));
      const CatalogView view{c, today(), list->stale_days};
      renderer(k_list_formats, list->common.format)(view, ctx.out);
      return ExitCode::ok;
    };
  });

  auto show = std::make_shared<CatalogOptions>();
  auto* show_cmd = catalog->add_subcommand("show", "Every field of one GPU with its source");
  show_cmd->add_option("NAME", show->name, "GPU name or alias (H100, A100-40GB, L40S, ...)")
      ->required();
  add_catalog_option(*show_cmd, show->common);
  add_format_option(*show_cmd, show->common, format_names(k_show_formats));
  add_stale_option(*show_cmd, *show);
  show_cmd->callback([&ctx, show]() {
    ctx.action = [&ctx, show]() {
      const Catalog c =
          load_catalog(bundled_catalog_path(show->common), user_catalog_path(show->common));
      const Gpu& g = c.resolve(show->name, "NAME");
      const CatalogView view{c, today(), show->stale_days};
      renderer(k_show_formats, show->common.format)(g, view, ctx.out);
      return ExitCode::ok;
    };
  });

  auto validate = std::make_shared<CatalogOptions>();
  auto* validate_cmd = catalog->add_subcommand(
      "validate",
      "Check a catalog file (default: the bundled one and --catalog) and report every "
      "problem at once; exit 2 if any");
  validate_cmd->add_option("FILE", validate->file, "Catalog or overlay file to check");
  add_catalog_option(*validate_cmd, validate->common);
  add_stale_option(*validate_cmd, *validate);
  validate_cmd->callback([&ctx, validate]() {
    ctx.action = [&ctx, validate]() {
      const std::string overlay =
          validate->file.empty() ? user_catalog_path(validate->common) : validate->file;
      const Catalog c = load_catalog(bundled_catalog_path(validate->common), overlay);
      const CatalogView view{c, today(), validate->stale_days};
      render_catalog_summary(view, ctx.out);
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
