// rightsize observe: telemetry and profiles of what already runs -> verdicts and recommendations.
// The command parses options, reads and judges through the observe stage (observe/inputs.hpp,
// observe/settings.hpp) and renders. docs/observe.md.

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/core/files.hpp>
#include <rightsize/observe/inputs.hpp>
#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/settings.hpp>
#include <rightsize/render/observe.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <ctime>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace rightsize::cli {

namespace {

struct ObserveCliOptions {
  CommonOptions common;
  ObserveInputs inputs;
  ObserveSettings settings;
  long watch_count = 0;
  bool no_mig = false;
};

using ObserveRenderer = void (*)(const ObserveReport&, std::ostream&);
constexpr std::array<Format<ObserveRenderer>, 6> k_formats{{{"table", render_observe_table},
                                                            {"json", render_observe_json},
                                                            {"markdown", render_observe_markdown},
                                                            {"csv", render_observe_csv},
                                                            {"html", render_observe_html},
                                                            {"svg", render_observe_svg}}};

// The options that apply to --prometheus only.
constexpr std::array<const char*, 6> k_live_flags{
    "--range", "--step", "--selector", "--timeout", "--watch", "--watch-count"};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Each warning logged once, however many times the inputs and reports repeat it.
class WarningLog {
public:
  explicit WarningLog(const Context& ctx) : m_ctx(ctx) {}
  void log(const std::vector<std::string>& warnings) {
    for (const auto& w : warnings) {
      if (m_logged.insert(w).second) {
        m_ctx.log->warn("{}", w);
      }
    }
  }

private:
  const Context& m_ctx;
  std::set<std::string> m_logged;
};

void add_input_options(CLI::App& sub, ObserveCliOptions& o) {
  ObserveInputs& in = o.inputs;
  const std::string group = "Inputs";
  sub.add_option(
         "--nvidia-smi", in.nvidia_smi, "nvidia-smi --query-gpu=... --format=csv log (repeatable)")
      ->type_name("FILE")
      ->group(group);
  sub.add_option("--dcgm", in.dcgm, "dcgm-exporter scrapes, Prometheus text format (repeatable)")
      ->type_name("FILE")
      ->group(group);
  sub.add_option("--interval",
                 in.interval,
                 "Time between samples where a file has no clock: --dcgm scrapes without "
                 "timestamps, an nvidia-smi log without a timestamp column")
      ->default_str("30s")
      ->group(group);
  sub.add_option("--trace",
                 in.traces,
                 "torch.profiler Chrome trace (.json) or nsys SQLite export, as FILE or "
                 "WORKLOAD=FILE (repeatable)")
      ->type_name("[WORKLOAD=]FILE")
      ->group(group);
  sub.add_option("--prometheus", in.prometheus, "Read the DCGM series live from this Prometheus")
      ->type_name("URL")
      ->group(group);
  sub.add_option("--range", in.range, "The window to read from Prometheus, ending now (7d, 6h)")
      ->type_name("DURATION")
      ->group(group);
  sub.add_option("--step", in.step, "Resolution of the Prometheus query")
      ->default_str("30s")
      ->type_name("DURATION")
      ->group(group);
  sub.add_option("--selector",
                 in.selector,
                 "Label matchers added to every query: '{namespace=\"serving\"}'")
      ->group(group);
  sub.add_option("--timeout", in.timeout_s, "Seconds per Prometheus request")
      ->check(number_in(0.1, 3600.0))
      ->default_str("30")
      ->group(group);
  sub.add_option("--watch",
                 in.watch,
                 "With --prometheus: re-evaluate every INTERVAL and print what changed")
      ->type_name("INTERVAL")
      ->group(group);
  sub.add_option(
         "--watch-count", o.watch_count, "Stop --watch after this many re-evaluations (0: never)")
      ->transform(whole_number_in(0, 1000000))
      ->group(group);
}

void add_threshold_options(CLI::App& sub, ObserveSettings& s, const std::string& group) {
  sub.add_option("--percentile", s.work_percentile, "Percentile of the observed work to size for")
      ->check(number_in(1.0, 100.0))
      ->default_str("95")
      ->group(group);
  sub.add_option("--memory-percentile",
                 s.memory_percentile,
                 "Percentile of the observed memory to size for (100: the peak)")
      ->check(number_in(1.0, 100.0))
      ->default_str("100")
      ->group(group);
  sub.add_option("--buffer", s.buffer_percent, "Margin added to the observed need, in percent")
      ->check(number_in(0.0, 500.0))
      ->default_str("20")
      ->group(group);
  sub.add_option("--idle-below", s.idle_below_percent, "Idle: work percentile under this percent")
      ->check(number_in(0.0, 100.0))
      ->default_str("5")
      ->group(group);
  sub.add_option(
         "--low-below", s.low_below_percent, "Low utilization: work percentile under this percent")
      ->check(number_in(0.0, 100.0))
      ->default_str("40")
      ->group(group);
  sub.add_option("--min-saving",
                 s.min_saving_percent,
                 "Over-provisioned only when a recommendation saves at least this percent")
      ->check(number_in(0.0, 100.0))
      ->default_str("10")
      ->group(group);
  sub.add_option("--scale-out-efficiency",
                 s.scale_out_percent,
                 "Percent of the added GPUs' rate a recommendation on more GPUs gets per doubling")
      ->check(number_in(10.0, 100.0))
      ->default_str("90")
      ->group(group);
  sub.add_option(
         "--min-window", s.min_window, "Shortest telemetry window judged (else: observe longer)")
      ->default_str("10m")
      ->group(group);
  sub.add_option("--min-samples", s.min_samples, "Fewest work samples per GPU judged")
      ->check(CLI::Range(1L, 1000000L))
      ->default_str("10")
      ->group(group);
}

void add_recommendation_options(CLI::App& sub, ObserveCliOptions& o, const std::string& group) {
  ObserveSettings& s = o.settings;
  sub.add_option("--group-by", s.group_by, "Workloads: auto (pods, else each GPU), host, or gpu")
      ->check(CLI::IsMember(group_by_names()))
      ->default_str("auto")
      ->group(group);
  sub.add_option("--gpus", s.gpus, "Recommend only these catalog GPUs (comma-separated)")
      ->group(group);
  sub.add_option("--max-gpus", s.max_gpus, "Most GPUs per workload in a recommendation")
      ->transform(whole_number_in(1, 1024))
      ->default_str("8")
      ->group(group);
  sub.add_flag("--no-mig", o.no_mig, "Do not recommend MIG slices")->group(group);
  sub.add_option("--gpu-model",
                 s.gpu_models,
                 "Map an observed GPU name to a catalog GPU: \"NVIDIA H100 80GB HBM3=H100\"")
      ->type_name("NAME=GPU")
      ->group(group);
  sub.add_option("--provider", s.provider, "Price with this provider's prices")->group(group);
  sub.add_option(
         "--price-kind", s.price_kind, "on_demand, spot, committed_1y, committed_3y or committed")
      ->default_str("on_demand")
      ->group(group);
  sub.add_option("--hours-per-month", s.hours_per_month, "Hours a GPU is paid for per month")
      ->check(number_in(1.0, 744.0))
      ->default_str("730")
      ->group(group);
}

void render_report(const ObserveCliOptions& o, const ObserveReport& report, Context& ctx) {
  const ObserveRenderer render = renderer(k_formats, o.common.format);
  if (o.inputs.output.empty()) {
    render(report, ctx.out);
    return;
  }
  std::ostringstream text;
  render(report, text);
  write_file_atomically(o.inputs.output, text.str());
  ctx.log->info("wrote {}", o.inputs.output);
}

// --watch: every INTERVAL a new evaluation, and what changed since the last one.
void watch(const ObserveCliOptions& o,
           ObserveReport report,
           const std::function<ObserveReport()>& evaluate,
           Context& ctx) {
  const double every = parse_duration(o.inputs.watch, "--watch");
  for (long n = 0; o.watch_count == 0 || n < o.watch_count; ++n) {
    std::this_thread::sleep_for(std::chrono::duration<double>(every));
    ObserveReport next = evaluate();
    std::ostringstream changes;
    render_observe_changes(report, next, changes);
    if (!changes.str().empty()) {
      ctx.out << "[" << utc_now() << "]\n" << changes.str() << std::flush;
    }
    report = std::move(next);
  }
}

ExitCode run_observe(const ObserveCliOptions& o, Context& ctx) {
  const Catalog catalog = load_catalog(
      bundled_catalog_path(o.common), user_catalog_path(o.common), CatalogDetail::figures);
  const GpuProducts products = load_gpu_products(bundled_data_dir(o.common) + "/deploy.json");
  ObserveOptions options = resolve_observe_options(o.settings, catalog);
  options.serving_engines = load_engine_workload_names(bundled_data_dir(o.common) + "/deploy.json");
  const ObservedFiles files = read_observe_files(o.inputs);
  // What the inputs skipped is said now, before an analysis that may find nothing left.
  WarningLog warnings(ctx);
  warnings.log(files.telemetry.warnings);
  for (const auto& t : files.traces) {
    warnings.log(t.profile.warnings);
  }
  std::optional<PrometheusQuery> query;
  if (!o.inputs.prometheus.empty()) {
    query = prometheus_query(o.inputs);
  }
  const auto evaluate = [&]() { return observe_once(files, query, catalog, products, options); };
  ObserveReport report = evaluate();
  warnings.log(report.warnings);
  render_report(o, report, ctx);
  if (!o.inputs.watch.empty()) {
    watch(o, std::move(report), evaluate, ctx);
  }
  return ExitCode::ok;
}

} // namespace

void register_observe(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ObserveCliOptions>();
  auto* sub = app.add_subcommand(
      "observe",
      "Judge what already runs from its telemetry and profiles: verdicts (over-provisioned, "
      "under-provisioned, right-sized, idle), reasons and the GPU it should run on");
  add_input_options(*sub, *o);
  const std::string judge = "Verdicts and recommendations";
  add_threshold_options(*sub, o->settings, judge);
  add_recommendation_options(*sub, *o, judge);
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, format_names(k_formats));
  sub->add_option("-o,--output", o->inputs.output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");

  sub->callback([&ctx, o, sub]() {
    for (const char* flag : k_live_flags) {
      if (sub->get_option(flag)->count() > 0) {
        o->inputs.live_flags_given.emplace_back(flag);
      }
    }
    o->settings.gpus_given = sub->get_option("--gpus")->count() > 0;
    o->settings.mig = !o->no_mig;
    o->inputs.format = o->common.format;
    check_observe_inputs(o->inputs);
    ctx.action = [&ctx, o]() { return run_observe(*o, ctx); };
  });
}

} // namespace rightsize::cli
