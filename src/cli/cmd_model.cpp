#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/check/validate.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/render/model.hpp>
#include <rightsize/spec/spec.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>

namespace rightsize::cli {

namespace {

struct SpecOptions {
  std::string spec;
  bool list = false; // `model --list`
  CommonOptions common;
};

using FamiliesRenderer = void (*)(std::ostream&);
constexpr std::array<Format<FamiliesRenderer>, 2> k_list_formats{
    {{"table", render_families_table}, {"json", render_families_json}}};
using ModelRenderer = void (*)(const Spec&, std::ostream&);
constexpr std::array<Format<ModelRenderer>, 2> k_model_formats{
    {{"table", render_model_table}, {"json", render_model_json}}};

void render_validation_json(const Spec& spec, std::ostream& out) {
  out << detail::dump_json(validation_to_json(spec), 2) << '\n';
}
constexpr std::array<Format<ModelRenderer>, 2> k_validate_formats{
    {{"text", render_validation_text}, {"json", render_validation_json}}};

void log_warnings(const Context& ctx, const Spec& spec) {
  for (const auto& w : spec.warnings) {
    ctx.log->warn("{}: {}", spec.file, w);
  }
  for (const auto& d : spec.defaults) {
    ctx.log->info("{}: default: {}", spec.file, d);
  }
}

} // namespace

void register_model(CLI::App& app, Context& ctx) {
  auto options = std::make_shared<SpecOptions>();
  auto* sub = app.add_subcommand("model",
                                 "Print the normalized model: architecture, parameters, "
                                 "weight bytes, and where each number came from");
  auto* spec_option = sub->add_option(
      "SPEC", options->spec, "A rightsize spec, a Hugging Face config.json or a model folder");
  auto* list = sub->add_flag("--list",
                             options->list,
                             "List the Hugging Face model families rightsize reads, instead of "
                             "reading a spec");
  spec_option->excludes(list);
  add_format_option(*sub, options->common, format_names(k_model_formats));
  sub->callback([&ctx, options]() {
    if (!options->list && options->spec.empty()) {
      throw CLI::RequiredError("SPEC (or --list)");
    }
    ctx.action = [&ctx, options]() {
      if (options->list) {
        renderer(k_list_formats, options->common.format)(ctx.out);
        return ExitCode::ok;
      }
      const Spec spec = load_spec(options->spec, SpecUse::describe);
      log_warnings(ctx, spec);
      renderer(k_model_formats, options->common.format)(spec, ctx.out);
      return ExitCode::ok;
    };
  });
}

void register_validate(CLI::App& app, Context& ctx) {
  auto options = std::make_shared<SpecOptions>();
  auto* sub = app.add_subcommand("validate",
                                 "Check a workload spec (and the model it points at) "
                                 "without planning; exit 0 when valid, 2 when not");
  sub->add_option(
         "SPEC", options->spec, "A rightsize spec, a Hugging Face config.json or a model folder")
      ->required();
  add_format_option(*sub, options->common, format_names(k_validate_formats));
  add_catalog_option(*sub, options->common);
  sub->callback([&ctx, options]() {
    ctx.action = [&ctx, options]() {
      const Spec spec = load_spec(options->spec);
      log_warnings(ctx, spec);
      // What plan refuses before it searches (constraints.gpus and deployment.provider resolved
      // in the catalog, the demand growth), refused here with plan's errors.
      check_as_plan(
          spec,
          load_catalog(bundled_catalog_path(options->common), user_catalog_path(options->common)));
      renderer(k_validate_formats, options->common.format)(spec, ctx.out);
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
