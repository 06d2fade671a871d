#include "cli/calibration_option.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/published.hpp>
#include <rightsize/render/compare.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <sstream>

namespace rightsize::cli {

namespace {

struct CompareOptions {
  CommonOptions common;
  std::string spec;
  bool list = false;
  std::vector<std::string> gpus;
  std::string scenario;
  std::string published;
  std::string confidence = "band";
  std::string calibration;
};

using CompareRenderer = void (*)(const Comparison&, std::ostream&);
constexpr std::array<Format<CompareRenderer>, 4> k_formats{{{"table", render_compare_table},
                                                            {"json", render_compare_json},
                                                            {"markdown", render_compare_markdown},
                                                            {"csv", render_compare_csv}}};
// --list: JSON, else the table.
using ModelsRenderer = void (*)(const PublishedData&, std::ostream&);
constexpr std::array<Format<ModelsRenderer>, 4> k_list_formats{
    {{"table", render_published_models_table},
     {"json", render_published_models_json},
     {"markdown", render_published_models_table},
     {"csv", render_published_models_table}}};

std::optional<PublishedScenario> scenario_of(const std::string& name) {
  for (const auto s : {PublishedScenario::offline,
                       PublishedScenario::server,
                       PublishedScenario::interactive,
                       PublishedScenario::static_batch}) {
    if (to_string(s) == name) {
      return s;
    }
  }
  return std::nullopt;
}

} // namespace

std::string published_index_path(const CommonOptions& common, const std::string& option) {
  return option.empty() ? bundled_data_dir(common) + "/published/published.json" : option;
}

void register_compare(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CompareOptions>();
  auto* sub = app.add_subcommand("compare",
                                 "Published measurements of the spec's model (vendor tables, "
                                 "MLPerf) across systems, each beside rightsize's prediction of "
                                 "that run, with the error");
  auto* spec_option = sub->add_option(
      "SPEC", o->spec, "A rightsize spec, a Hugging Face config.json or a model folder");
  auto* list = sub->add_flag(
      "--list", o->list, "List the models with published runs, instead of reading a spec");
  spec_option->excludes(list);
  sub->add_option("--gpu", o->gpus, "Only runs on this GPU (name or alias; repeatable)")
      ->type_name("NAME");
  sub->add_option("--scenario", o->scenario, "Only runs of this scenario")
      ->check(CLI::IsMember({"offline", "server", "interactive", "static-batch"}));
  sub->add_option("--published",
                  o->published,
                  "The published data's index (default: the bundled "
                  "data/published/published.json; docs/published.md)")
      ->type_name("FILE");
  add_calibration_option(*sub, o->calibration);
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, format_names(k_formats));
  sub->callback([&ctx, o]() {
    if (!o->list && o->spec.empty()) {
      throw CLI::RequiredError("SPEC (or --list)");
    }
    ctx.action = [&ctx, o]() {
      PublishedData data = load_published_index(published_index_path(o->common, o->published));
      std::ostringstream rendered;
      if (o->list) {
        load_published_results(data);
        renderer(k_list_formats, o->common.format)(data, rendered);
        ctx.out << rendered.str();
        return ExitCode::ok;
      }
      const Spec spec = load_spec(o->spec);
      for (const auto& w : spec.warnings) {
        ctx.log->warn("{}: {}", spec.file, w);
      }
      const Catalog catalog = load_catalog(
          bundled_catalog_path(o->common), user_catalog_path(o->common), CatalogDetail::figures);
      CompareFilter filter;
      for (const auto& g : o->gpus) {
        filter.gpus.push_back(catalog.resolve(g, "--gpu").name);
      }
      filter.scenario = scenario_of(o->scenario);
      const Constants constants = load_constants(o->common, {});
      Efficiency efficiency = Efficiency::load(bundled_data_dir(o->common) + "/efficiency.json");
      Uncertainty uncertainty =
          Uncertainty::load(bundled_data_dir(o->common) + "/uncertainty.json");
      install_calibration(o->calibration, spec, efficiency, uncertainty, *ctx.log);
      const Comparison c =
          compare_published(spec, data, catalog, constants, efficiency, &uncertainty, filter);
      renderer(k_formats, o->common.format)(c, rendered);
      ctx.out << rendered.str();
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
