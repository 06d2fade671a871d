#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/instances.hpp>
#include <rightsize/catalog/refresh.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/net/http_get.hpp>
#include <rightsize/render/catalog.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <set>
#include <unistd.h>

namespace rightsize::cli {

namespace {

struct CatalogOptions {
  CommonOptions common;
  std::string name; // show
  std::string file; // validate
  long stale_days = 180;
};

struct RefreshOptions {
  CommonOptions common;
  std::string provider;
  std::string region;
  std::string output;
  std::string url;
  double timeout_s = 30;
  long retries = 2;
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

// The overlay, checked by loading it over the bundled catalog as `plan --catalog` will, then
// written in one rename: a failure leaves no file, and an existing one as it was.
void write_overlay(const RefreshOptions& o, const RefreshResult& result) {
  const std::string text = detail::dump_json(result.overlay, 2) + "\n";
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("rightsize-refresh-" + std::to_string(::getpid()) + ".json");
  write_file_atomically(scratch.string(), text);
  // A problem is the overlay's, as it would be written: named by -o, not the scratch file.
  const auto as_output = [&](const std::string& where) {
    const std::string s = scratch.string();
    return where.rfind(s, 0) == 0 ? o.output + where.substr(s.size()) : where;
  };
  try {
    (void)load_catalog(bundled_catalog_path(o.common), scratch.string());
  } catch (const InputError& e) {
    std::remove(scratch.c_str());
    throw InputError(as_output(e.where()), e.detail());
  } catch (const InputErrors& e) {
    std::remove(scratch.c_str());
    std::vector<InputError> renamed;
    for (const auto& one : e.errors()) {
      renamed.emplace_back(as_output(one.where()), one.detail());
    }
    throw InputErrors(std::move(renamed));
  } catch (...) {
    std::remove(scratch.c_str());
    throw;
  }
  std::remove(scratch.c_str());
  write_file_atomically(o.output, text);
}

// -o before any download (AWS's file is hundreds of MB): a path, in a directory that exists and
// can be written, and not a file of the data directory the refresh reads.
void check_output(const RefreshOptions& o) {
  namespace fs = std::filesystem;
  if (o.output.empty()) {
    throw InputError("-o", "needs a file name for the overlay");
  }
  const fs::path out(o.output);
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError("-o", fmt::format("{}: no such directory", dir.string()));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw InputError("-o", fmt::format("{}: the directory is not writable", dir.string()));
  }
  if (fs::is_directory(out, ec)) {
    throw InputError("-o", fmt::format("{} is a directory; give a file name", o.output));
  }
  const fs::path data = fs::weakly_canonical(bundled_data_dir(o.common), ec);
  const fs::path target = fs::weakly_canonical(out, ec);
  if (!ec && target.parent_path() == data) {
    throw InputError("-o",
                     fmt::format("{} is in the data directory rightsize reads ({}): write the "
                                 "overlay elsewhere and give it to --catalog",
                                 o.output,
                                 data.string()));
  }
}

ExitCode run_refresh(const RefreshOptions& o, std::ostream& out) {
  check_output(o);
  const Catalog catalog = load_catalog(bundled_catalog_path(o.common), "");
  const InstanceTable table =
      load_instances(bundled_data_dir(o.common) + "/instances.json", catalog);
  RefreshRequest request;
  request.api = o.provider == "aws" ? PriceApi::aws : PriceApi::azure;
  request.region = o.region;
  request.base_url = o.url;
  request.today = today();
  net::GetOptions get;
  get.timeout_s = o.timeout_s;
  get.retries = static_cast<int>(o.retries);
  // AWS's offer file of a region is a few hundred MB; a page of Azure's is small (refresh.cpp).
  get.max_body_bytes = std::size_t{8} << 30;
  net::HttpGet http(get);
  const RefreshResult result = refresh_prices(
      table,
      request,
      [&](const std::string& url, const std::function<void(std::string_view)>& sink) {
        spdlog::debug("GET {}", net::shown_url(url));
        http.get(url, sink);
      });
  write_overlay(o, result);
  std::set<std::string> instances;
  for (const auto& p : result.prices) {
    instances.insert(p.instance);
  }
  out << fmt::format("wrote {}: {} price{} of {} {} instance type{} in {}, {} {} ({} request{}, "
                     "{:.1f} MB)\n",
                     o.output,
                     result.prices.size(),
                     result.prices.size() == 1 ? "" : "s",
                     instances.size(),
                     provider_name(request.api),
                     instances.size() == 1 ? "" : "s",
                     request.region.empty() ? default_region(request.api) : request.region,
                     result.as_of_stated ? "published" : "retrieved",
                     result.as_of,
                     result.urls.size(),
                     result.urls.size() == 1 ? "" : "s",
                     static_cast<double>(http.bytes_received()) / 1e6);
  if (!result.unpriced.empty()) {
    // The shapes instances.json lists that this region does not price (not sold there, or new).
    constexpr std::size_t k_shown = 8;
    const std::size_t n = result.unpriced.size();
    const std::vector<std::string> shown(
        result.unpriced.begin(), result.unpriced.begin() + static_cast<long>(std::min(n, k_shown)));
    out << fmt::format("no price here for {} listed instance type{}: {}{}\n",
                       n,
                       n == 1 ? "" : "s",
                       fmt::join(shown, ", "),
                       n > k_shown ? fmt::format(" and {} more", n - k_shown) : "");
  }
  if (is_stale(result.as_of, request.today, 180)) {
    out << fmt::format("note: the price list is dated {}: reports flag its prices STALE (older "
                       "than --stale-days, default 180)\n",
                       result.as_of);
  }
  out << "use it with: rightsize plan SPEC --catalog " << o.output << "\n";
  return ExitCode::ok;
}

void register_refresh(CLI::App& catalog, Context& ctx) {
  auto o = std::make_shared<RefreshOptions>();
  auto* sub = catalog.add_subcommand(
      "refresh",
      "Read a provider's public GPU instance prices into a dated catalog overlay "
      "(docs/catalog.md, \"Fresh prices\")");
  sub->add_option("--provider", o->provider, "azure or aws")
      ->required()
      ->transform(CLI::IsMember({"azure", "aws"}, CLI::ignore_case));
  sub->add_option("--data", o->common.data, "Data directory (instances.json, gpus.json)")
      ->type_name("DIR");
  sub->add_option("--region", o->region, "Region (default: eastus for azure, us-east-1 for aws)");
  sub->add_option("-o,--output", o->output, "The overlay to write (JSON)")->required();
  sub->add_option("--url",
                  o->url,
                  "Base URL of the price service or a mirror of it (default: "
                  "https://prices.azure.com, https://pricing.us-east-1.amazonaws.com)");
  sub->add_option("--timeout", o->timeout_s, "Seconds to connect, or without a byte received")
      ->transform(number_in(0.1, 3600))
      ->default_str("30");
  sub->add_option("--retries", o->retries, "Attempts after the first on 429, 5xx, refusals")
      ->transform(whole_number_in(0, 10))
      ->default_str("2");
  sub->callback([&ctx, o]() { ctx.action = [&ctx, o]() { return run_refresh(*o, ctx.out); }; });
}

} // namespace

void register_catalog(CLI::App& app, Context& ctx) {
  auto* catalog = app.add_subcommand("catalog", "List, show, validate and refresh the GPU catalog");
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
      const InstanceTable shapes =
          load_instances(bundled_data_dir(show->common) + "/instances.json", c);
      const CatalogView view{c, today(), show->stale_days, &shapes};
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
      // The instance shapes, against this catalog: a price that names a listed shape must state
      // its GPU count.
      const std::string shapes_path = bundled_data_dir(validate->common) + "/instances.json";
      const InstanceTable shapes = load_instances(shapes_path, c);
      ctx.out << fmt::format("{}: ok: {} instance shapes of {} sources\n",
                             shapes_path,
                             shapes.shapes.size(),
                             shapes.sources.size());
      return ExitCode::ok;
    };
  });

  register_refresh(*catalog, ctx);
}

} // namespace rightsize::cli
