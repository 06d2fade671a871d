#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/plan_setup.hpp"
#include "cli/renderers.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/render/plan.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <sstream>

namespace rightsize::cli {

namespace {

struct PlanCommandOptions {
  PlanCliOptions plan;
  std::string output;
  std::string color = "auto";
  int top = 0;
  std::string lock;
  bool lock_given = false;
  bool wide = false;
};

// A format's renderer, and whether it shows every candidate's simulated latency percentiles
// (the plan simulates them only then: PlanOptions::simulate).
struct PlanRenderer {
  void (*render)(const Plan&, const RenderOptions&, std::ostream&);
  bool percentiles;
};
constexpr std::array<Format<PlanRenderer>, 6> k_formats{
    {{"table", {render_plan_table, false}},
     {"json", {render_plan_json, true}},
     {"markdown", {render_plan_markdown, false}},
     {"csv", {render_plan_csv, false}},
     {"html", {render_plan_html, false}},
     {"svg", {render_plan_svg, false}}}};

} // namespace

void register_plan(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<PlanCommandOptions>();
  auto* sub = app.add_subcommand("plan",
                                 "Rank GPU configurations for a workload: which GPUs, how "
                                 "many, in what layout, at what cost, and why not the others");
  sub->add_option(
         "SPEC", o->plan.spec, "A rightsize spec, a Hugging Face config.json or a model folder")
      ->required();
  add_format_option(*sub, o->plan.common, format_names(k_formats));
  add_catalog_option(*sub, o->plan.common);
  add_plan_options(*sub, o->plan.settings);
  sub->add_option("--top", o->top, "Show only the best N candidates")
      ->transform(whole_number_in(1, 1000));
  sub->add_option("-o,--output", o->output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");
  sub->add_flag("--wide", o->wide, "Table: every column (default: fits 80 columns)");
  sub->add_option("--published",
                  o->plan.published,
                  "The published data whose nearest run each candidate is shown beside "
                  "(default: the bundled data/published/published.json; docs/published.md)")
      ->type_name("FILE");
  sub->add_option("--color", o->color, "Colour in the table: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
  CLI::Option* lock_option =
      sub->add_option("--lock",
                      o->lock,
                      "Also write a lock file for rightsize check (default: rightsize.lock.json "
                      "beside the spec)")
          ->expected(0, 1)
          ->type_name("[FILE]");
  sub->callback([&ctx, o, lock_option]() {
    o->lock_given = lock_option->count() > 0;
    o->plan.with_published = true;
    o->plan.simulate = renderer(k_formats, o->plan.common.format).percentiles;
    ctx.action = [&ctx, o]() {
      if (!o->output.empty() && same_file(o->output, o->plan.spec)) {
        throw InputError("--output",
                         "is the spec itself (" + o->plan.spec +
                             "); refusing to overwrite an input with the report");
      }
      const ScopedData<PlanRun> run(ctx, run_plan(o->plan, ctx, {}, o->lock_given));
      const Plan& plan = run->plan;
      const Spec& spec = run->spec;
      RenderOptions render;
      render.top = o->top;
      render.wide = o->wide;
      render.color =
          o->color == "always" || (o->color == "auto" && o->output.empty() && ctx.out_is_terminal);
      // To standard output's buffer (app.cpp writes it when the command succeeds), or to a file
      // written whole once rendered.
      std::ostringstream file;
      std::ostream& rendered = o->output.empty() ? ctx.out : file;
      renderer(k_formats, o->plan.common.format).render(plan, render, rendered);
      if (!o->output.empty()) {
        write_file_atomically(o->output, file.str());
      }
      if (o->lock_given) {
        const std::string path = o->lock.empty() ? default_lock_path(o->plan.spec) : o->lock;
        write_lock_entry(plan,
                         o->plan.spec,
                         path,
                         model_digest(bundled_data_dir(o->plan.common), o->plan.settings.assume),
                         settings_to_json(o->plan.settings),
                         run->spec_digest,
                         run->calibration ? run->calibration->digest : std::string());
        ctx.log->info("wrote lock {}", path);
      }
      if (!plan.feasible()) {
        ctx.log->error("nothing feasible: {}",
                       infeasible_because(plan).empty()
                           ? "no GPU configuration satisfies " + spec.file
                           : spec.file + ": " + infeasible_because(plan));
        return ExitCode::infeasible;
      }
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
