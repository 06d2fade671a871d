#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/plan_setup.hpp"
#include "cli/renderers.hpp"

#include <rightsize/check/run.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/render/check.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <sstream>

namespace rightsize::cli {

namespace {

struct CheckOptions {
  CommonOptions common;
  PlanSettings settings;
  CheckRequest request;
  std::string fail_on;
};

using CheckRenderer = void (*)(const std::vector<CheckResult>&, int, std::ostream&);
constexpr std::array<Format<CheckRenderer>, 5> k_formats{{{"table", render_check_table},
                                                          {"json", render_check_json},
                                                          {"markdown", render_check_markdown},
                                                          {"html", render_check_html},
                                                          {"svg", render_check_svg}}};

void add_threshold_options(CLI::App& sub, CheckOptions& o) {
  ThresholdOptions& t = o.request.thresholds;
  sub.add_option("--config",
                 t.config,
                 "Thresholds and fail-on list (default: .rightsize.json in the current "
                 "directory, if there is one)")
      ->type_name("FILE");
  const auto* th = "Thresholds (override the config file's)";
  sub.add_option("--max-cost-increase", t.max_cost, "$/hour or TCO rise (10%)")->group(th);
  sub.add_option("--max-latency-increase", t.max_latency, "TTFT, TPOT and time-to-train rise (20%)")
      ->group(th);
  sub.add_option("--max-ttft-increase", t.max_ttft, "TTFT rise (20%)")->group(th);
  sub.add_option("--max-tpot-increase", t.max_tpot, "TPOT rise (20%)")->group(th);
  sub.add_option("--max-throughput-decrease", t.max_throughput_drop, "tokens/s drop (10%)")
      ->group(th);
  sub.add_option("--max-gpus-increase", t.max_gpus, "GPU count rise (0%)")->group(th);
  sub.add_option("--min-memory-headroom", t.min_headroom, "memory budget left free (0%)")
      ->group(th);
  sub.add_option("--fail-on",
                 o.fail_on,
                 "Comma-separated checks that fail the job: infeasible, memory, cost, latency, "
                 "throughput, gpus, gpu-change, added, removed (default: the first five)")
      ->group(th);
  sub.add_flag("--update",
               o.request.update,
               "Accept the current plans: rewrite the lock entries (and drop those of removed "
               "specs); exit 0")
      ->group(th);
}

void log_notes(const Context& ctx, const std::vector<CheckNote>& notes) {
  for (const auto& note : notes) {
    switch (note.level) {
    case CheckNote::Level::info:
      ctx.log->info("{}", note.text);
      break;
    case CheckNote::Level::warning:
      ctx.log->warn("{}", note.text);
      break;
    case CheckNote::Level::error:
      ctx.log->error("{}", note.text);
      break;
    }
  }
}

// The check, its report (to standard output or -o FILE) and its notes; the exit code is the
// check's wherever the report goes.
ExitCode run_check_command(Context& ctx, const CheckOptions& o, CheckRequest request) {
  request.data = {bundled_data_dir(o.common), user_catalog_path(o.common), [] { return today(); }};
  std::vector<CheckNote> notes;
  CheckRun run;
  try {
    run = run_check(request, notes);
  } catch (...) {
    log_notes(ctx, notes); // what came before the error, then the error (app.cpp)
    throw;
  }
  log_notes(ctx, notes);
  std::ostringstream rendered;
  renderer(k_formats, o.common.format)(run.results, run.exit_code, rendered);
  if (request.output.empty()) {
    ctx.out << rendered.str();
  } else {
    write_file_atomically(request.output, rendered.str());
    ctx.log->info("wrote {}", request.output);
  }
  log_notes(ctx, result_notes(run.results));
  return static_cast<ExitCode>(run.exit_code);
}

} // namespace

void register_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand("check",
                                 "Re-plan specs with the settings their locks recorded and "
                                 "compare: exit 1 when a threshold is crossed (for CI, "
                                 "docs/ci.md)");
  sub->add_option("SPEC", o->request.specs, "Specs or directories of specs")->required();
  sub->add_option(
         "--lock", o->request.lock, "Lock file (default: rightsize.lock.json beside each spec)")
      ->type_name("FILE");
  add_threshold_options(*sub, *o);
  sub->add_flag("--replan",
                o->request.replan,
                "Plan every spec again, even those whose spec, catalog, model data, settings and "
                "rightsize version are all as locked (whose plan is then the lock's)");
  sub->add_option("-j,--jobs", o->request.jobs, "Specs planned at once (default: one per core)")
      ->transform(whole_number_in(1, 256))
      ->type_name("N");
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, format_names(k_formats));
  sub->add_option("-o,--output", o->request.output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");
  add_plan_options(*sub, o->settings);
  sub->callback([&ctx, o, sub]() {
    CheckRequest request = o->request;
    if (sub->get_option("--fail-on")->count() > 0) {
      request.thresholds.fail_on = o->fail_on;
    }
    request.given = given_settings(*sub, o->settings);
    ctx.action = [&ctx, o, request]() { return run_check_command(ctx, *o, request); };
  });
}

} // namespace rightsize::cli
