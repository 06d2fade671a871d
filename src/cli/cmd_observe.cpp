// rightsize observe: telemetry and profiles of what already runs -> verdicts and recommendations.
// The command parses options, reads and judges through the observe stage (observe/inputs.hpp,
// observe/settings.hpp) and renders. docs/observe.md.

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/observe_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/engines.hpp>
#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/deploy/manifest_files.hpp>
#include <rightsize/observe/inputs.hpp>
#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/patches.hpp>
#include <rightsize/observe/settings.hpp>
#include <rightsize/render/observe.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

namespace rightsize::cli {

namespace {

using ObserveRenderer = void (*)(const ObserveReport&, std::ostream&);
constexpr std::array<Format<ObserveRenderer>, 7> k_formats{{{"table", render_observe_table},
                                                            {"json", render_observe_json},
                                                            {"yaml", render_observe_yaml},
                                                            {"markdown", render_observe_markdown},
                                                            {"csv", render_observe_csv},
                                                            {"html", render_observe_html},
                                                            {"svg", render_observe_svg}}};

// Each format's file under -o DIR/ (or an existing directory), and whether it draws the window
// over time (the charts, which need Prometheus' coarse timeline).
struct FormatFile {
  std::string_view format;
  std::string_view file;
  bool charts;
};
constexpr std::array<FormatFile, 7> k_format_files{{{"table", "report.txt", false},
                                                    {"json", "report.json", false},
                                                    {"yaml", "report.yaml", false},
                                                    {"markdown", "report.md", false},
                                                    {"csv", "report.csv", false},
                                                    {"html", "report.html", true},
                                                    {"svg", "report.svg", true}}};

const FormatFile& format_file(const std::string& format) {
  const auto* it = std::find_if(k_format_files.begin(),
                                k_format_files.end(),
                                [&](const FormatFile& f) { return f.format == format; });
  if (it == k_format_files.end()) {
    throw InternalError("observe: no file name for the format " + format);
  }
  return *it;
}

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

// The report under DIR, and beside it a strategic-merge patch per re-sized owner.
void write_directory(const ObserveCliOptions& o,
                     const ObserveReport& report,
                     const std::string& text,
                     Context& ctx) {
  const GpuProducts products = load_gpu_products(bundled_data_dir(o.common) + "/deploy.json");
  const OwnerPatches patches = owner_patches(report, products);
  std::vector<ManifestFile> files{{std::string(format_file(o.common.format).file), text}};
  for (const auto& p : patches.patches) {
    files.push_back({p.file_name, owner_patch_yaml(p)});
  }
  for (const auto& why : patches.skipped) {
    ctx.log->warn("{}", why);
  }
  write_manifest_files(files, o.inputs.output);
  ctx.log->info("wrote {} and {} patch{} under {}",
                files.front().name,
                patches.patches.size(),
                patches.patches.size() == 1 ? "" : "es",
                o.inputs.output);
}

void render_report(const ObserveCliOptions& o, const ObserveReport& report, Context& ctx) {
  const ObserveRenderer render = renderer(k_formats, o.common.format);
  if (o.inputs.output.empty()) {
    render(report, ctx.out);
    return;
  }
  std::ostringstream text;
  render(report, text);
  std::error_code ec;
  if (o.inputs.output.back() == '/' || std::filesystem::is_directory(o.inputs.output, ec)) {
    write_directory(o, report, text.str(), ctx);
    return;
  }
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
  const std::string deploy_data = bundled_data_dir(o.common) + "/deploy.json";
  options.serving_engines = load_engine_workload_names(deploy_data);
  ObserveInputs inputs = o.inputs;
  inputs.engine_metric_names =
      parse_engine_metric_catalog(detail::load_json_file(deploy_data), deploy_data);
  // Serving workloads mapped to specs are sized by the estimator, as plan sizes them.
  options.specs = read_spec_mappings(inputs);
  SpecPlanning planning;
  Constants constants;
  Efficiency efficiency;
  Uncertainty uncertainty;
  EngineSupport engines;
  if (!options.specs.empty()) {
    constants = load_constants(o.common, {});
    efficiency = Efficiency::load(bundled_data_dir(o.common) + "/efficiency.json");
    uncertainty = Uncertainty::load(bundled_data_dir(o.common) + "/uncertainty.json");
    engines = load_engine_support(bundled_data_dir(o.common) + "/engines.json");
    planning.catalog = &catalog;
    planning.constants = &constants;
    planning.efficiency = &efficiency;
    planning.options.uncertainty = &uncertainty;
    planning.options.engines = &engines;
    planning.options.today = today();
    planning.options.simulate = false; // percentile targets simulate regardless
    planning.options.disaggregate = false;
    options.planning = &planning;
  }
  const ObservedFiles files = read_observe_files(inputs);
  // What the inputs skipped is said now, before an analysis that may find nothing left.
  WarningLog warnings(ctx);
  warnings.log(files.telemetry.warnings);
  for (const auto& t : files.traces) {
    warnings.log(t.profile.warnings);
  }
  std::optional<PrometheusQuery> query;
  if (!o.inputs.prometheus.empty()) {
    query = prometheus_query(o.inputs, options);
    query->owners = !o.no_owners;
    query->engine_metrics = inputs.engine_metric_names;
    // The coarse timeline is read for the charts only.
    query->timeline = format_file(o.common.format).charts;
  }
  const auto evaluate = [&]() {
    PrometheusTraffic traffic;
    ObserveReport r = observe_once(files, query, catalog, products, options, &traffic);
    if (query) {
      ctx.log->info("prometheus: {} requests, {} bytes received ({} on the wire; {} "
                    "aggregation)",
                    traffic.requests,
                    traffic.bytes,
                    traffic.wire_bytes,
                    o.inputs.aggregate);
    }
    return r;
  };
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
  sub->add_option("-o,--output",
                  o->inputs.output,
                  "Write the report to FILE instead of stdout; to DIR/ (or an existing "
                  "directory): the report and a patch per re-sized Kubernetes owner")
      ->type_name("FILE|DIR/");

  sub->callback([&ctx, o, sub]() {
    // PROMETHEUS_URL, as krr and promtool read it: the server when no input is named.
    ObserveInputs& in = o->inputs;
    if (in.prometheus.empty() && in.nvidia_smi.empty() && in.dcgm.empty() && in.traces.empty()) {
      if (const char* env = std::getenv("PROMETHEUS_URL"); env != nullptr && *env != '\0') {
        in.prometheus = env;
      }
    }
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
