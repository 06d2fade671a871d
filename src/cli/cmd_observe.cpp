// rightsize observe: telemetry and profiles of what already runs -> verdicts and recommendations.
// docs/observe.md.

#include "cli/commands.hpp"
#include "cli/common_options.hpp"

#include <rightsize/catalog/prices.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/prometheus.hpp>
#include <rightsize/render/observe.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

namespace rightsize::cli {

namespace {

struct ObserveCliOptions {
  CommonOptions common;
  std::vector<std::string> nvidia_smi;
  std::vector<std::string> dcgm;
  std::vector<std::string> traces;
  std::string interval = "30s";
  std::string prometheus;
  std::string range;
  std::string step = "30s";
  std::string selector;
  double timeout_s = 30;
  std::string watch;
  long watch_count = 0;
  std::string output;
  std::vector<std::string> live_flags_given; // --range, --step, ... as given without --prometheus
  bool gpus_given = false;

  // Thresholds, in percent as people write them.
  double work_percentile = 95;
  double memory_percentile = 100;
  double buffer_percent = 20;
  double idle_below = 5;
  double low_below = 40;
  double min_saving = 10;
  double scale_out = 90;
  std::string group_by = "auto";
  std::string gpus;
  long max_gpus = 8;
  bool no_mig = false;
  std::vector<std::string> gpu_models;
  std::string provider;
  std::string price_kind = "on_demand";
  double hours_per_month = 730;
};

// "30s", "5m", "2h", "7d", "1w" or plain seconds -> seconds; InputError at `where` otherwise.
double parse_duration(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = used == 0 ? std::string() : text.substr(used);
  double scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1;
  } else if (unit == "m") {
    scale = 60;
  } else if (unit == "h") {
    scale = 3600;
  } else if (unit == "d") {
    scale = 86400;
  } else if (unit == "w") {
    scale = 7 * 86400;
  }
  if (used == 0 || scale == 0 || !std::isfinite(value) || value <= 0 || value * scale > 3.2e8) {
    throw InputError(where,
                     fmt::format("\"{}\" is not a duration (a positive number with s, m, "
                                 "h, d or w: 30s, 5m, 7d)",
                                 text));
  }
  return value * scale;
}

std::string file_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

ObserveOptions analysis_options(const ObserveCliOptions& o, const Catalog& catalog) {
  ObserveOptions a;
  a.work_percentile = o.work_percentile;
  a.memory_percentile = o.memory_percentile;
  a.buffer = o.buffer_percent / 100;
  a.idle_below = o.idle_below / 100;
  a.low_utilization_below = o.low_below / 100;
  a.min_saving = o.min_saving / 100;
  a.scale_out_efficiency = o.scale_out / 100;
  if (a.idle_below > a.low_utilization_below) {
    throw InputError("--idle-below",
                     fmt::format("{:g}% is above --low-below {:g}%", o.idle_below, o.low_below));
  }
  a.group_by = o.group_by == "host"  ? GroupBy::host
               : o.group_by == "gpu" ? GroupBy::gpu
                                     : GroupBy::automatic;
  a.max_gpus = static_cast<int>(o.max_gpus);
  a.mig = !o.no_mig;
  if (o.gpus_given) {
    std::stringstream list(o.gpus);
    for (std::string name; std::getline(list, name, ',');) {
      a.gpus.push_back(catalog.resolve(name, "--gpus").name);
    }
    if (a.gpus.empty()) {
      throw InputError("--gpus", "names no GPU: give catalog names, comma-separated (L4,L40S)");
    }
  }
  for (const auto& mapping : o.gpu_models) {
    const auto eq = mapping.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == mapping.size()) {
      throw InputError(
          "--gpu-model",
          fmt::format("\"{}\" is not NAME=GPU (\"NVIDIA H100 80GB HBM3=H100\")", mapping));
    }
    a.gpu_models[mapping.substr(0, eq)] =
        catalog.resolve(mapping.substr(eq + 1), "--gpu-model").name;
  }
  a.pricing.price_kind = resolve_price_kind(o.price_kind, "--price-kind");
  if (!o.provider.empty()) {
    a.pricing.provider = resolve_provider(catalog, o.provider, "--provider");
  }
  check_price_kind(catalog, a.pricing.price_kind, a.pricing.provider, "--price-kind");
  a.pricing.hours_per_month = o.hours_per_month;
  return a;
}

// `paths` without the ones that name a file given before (the same log twice would count its
// samples twice); each dropped one is a warning.
std::vector<std::string> distinct(const std::vector<std::string>& paths,
                                  std::vector<std::string>& seen,
                                  std::vector<std::string>& warnings) {
  std::vector<std::string> out;
  for (const auto& path : paths) {
    const bool again = std::any_of(seen.begin(), seen.end(), [&](const std::string& s) {
      return s == path || same_file(s, path);
    });
    if (again) {
      warnings.push_back(fmt::format("{}: given twice; read once", path));
      continue;
    }
    seen.push_back(path);
    out.push_back(path);
  }
  return out;
}

// The files given, read and parsed; each parser names the file in its errors.
Telemetry read_files(const ObserveCliOptions& o, std::vector<std::string>& sources) {
  Telemetry all;
  std::vector<std::string> seen;
  const auto nvidia_smi = distinct(o.nvidia_smi, seen, all.warnings);
  const auto dcgm = distinct(o.dcgm, seen, all.warnings);
  const double interval = parse_duration(o.interval, "--interval");
  for (const auto& path : nvidia_smi) {
    const std::string text = read_input_file(path, k_max_telemetry_file_bytes, "nvidia-smi CSV");
    all.merge(parse_nvidia_smi_csv(text, path, file_stem(path), interval));
    sources.push_back(path);
  }
  for (const auto& path : dcgm) {
    const std::string text = read_input_file(path, k_max_telemetry_file_bytes, "DCGM scrape");
    all.merge(parse_dcgm_text(text, path, interval));
    sources.push_back(path);
  }
  return all;
}

std::vector<NamedTrace> read_traces(const ObserveCliOptions& o, std::vector<std::string>& sources) {
  std::vector<NamedTrace> traces;
  std::vector<std::string> seen;
  std::vector<std::string> warnings;
  for (const auto& given : distinct(o.traces, seen, warnings)) {
    NamedTrace t;
    std::string path = given;
    // WORKLOAD=FILE, unless the whole argument is a file (names may hold '=').
    if (const auto eq = given.find('=');
        eq != std::string::npos && eq > 0 && !std::filesystem::exists(given)) {
      t.workload = given.substr(0, eq);
      path = given.substr(eq + 1);
    }
    t.profile = read_trace(path);
    t.profile.warnings.insert(t.profile.warnings.begin(), warnings.begin(), warnings.end());
    warnings.clear();
    sources.push_back(path);
    traces.push_back(std::move(t));
  }
  return traces;
}

PrometheusQuery prometheus_query(const ObserveCliOptions& o) {
  PrometheusQuery q;
  q.url = o.prometheus;
  q.range_s = parse_duration(o.range, "--range");
  q.step_s = parse_duration(o.step, "--step");
  q.selector = o.selector;
  q.timeout_s = o.timeout_s;
  return q;
}

void render(const ObserveReport& report, const std::string& format, std::ostream& out) {
  if (format == "json") {
    render_observe_json(report, out);
  } else if (format == "markdown") {
    render_observe_markdown(report, out);
  } else if (format == "csv") {
    render_observe_csv(report, out);
  } else if (format == "html") {
    render_observe_html(report, out);
  } else if (format == "svg") {
    render_observe_svg(report, out);
  } else {
    render_observe_table(report, out);
  }
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void check_inputs(const ObserveCliOptions& o) {
  if (o.nvidia_smi.empty() && o.dcgm.empty() && o.traces.empty() && o.prometheus.empty()) {
    throw InputError("observe",
                     "nothing to observe: give --nvidia-smi FILE, --dcgm FILE, "
                     "--trace FILE or --prometheus URL --range DURATION");
  }
  if (!o.prometheus.empty()) {
    if (o.prometheus.rfind("http://", 0) != 0 && o.prometheus.rfind("https://", 0) != 0) {
      throw InputError("--prometheus",
                       fmt::format("must be an http:// or https:// URL, got \"{}\"", o.prometheus));
    }
    if (o.range.empty()) {
      throw InputError("--range", "--prometheus needs the window to read: --range 7d");
    }
  } else {
    for (const auto& flag : o.live_flags_given) {
      throw InputError(flag, "applies to --prometheus only");
    }
  }
  if (!o.watch.empty() && !o.output.empty()) {
    throw InputError("--watch", "prints changes as they come: it cannot write --output");
  }
  if (!o.watch.empty() && o.common.format != "table") {
    throw InputError("--watch",
                     fmt::format("prints the changes as lines of text after the "
                                 "report: use --format table, not {}",
                                 o.common.format));
  }
  // -o must not replace what it reads.
  for (const auto* inputs : {&o.nvidia_smi, &o.dcgm}) {
    for (const auto& path : *inputs) {
      if (!o.output.empty() && (path == o.output || same_file(path, o.output))) {
        throw InputError("--output", fmt::format("{} is an input of this run", o.output));
      }
    }
  }
}

} // namespace

void register_observe(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ObserveCliOptions>();
  auto* sub = app.add_subcommand(
      "observe",
      "Judge what already runs from its telemetry and profiles: verdicts (over-provisioned, "
      "under-provisioned, right-sized, idle), reasons and the GPU it should run on");
  const std::string in = "Inputs";
  sub->add_option(
         "--nvidia-smi", o->nvidia_smi, "nvidia-smi --query-gpu=... --format=csv log (repeatable)")
      ->type_name("FILE")
      ->group(in);
  sub->add_option("--dcgm", o->dcgm, "dcgm-exporter scrapes, Prometheus text format (repeatable)")
      ->type_name("FILE")
      ->group(in);
  sub->add_option("--interval",
                  o->interval,
                  "Time between samples where a file has no clock: --dcgm scrapes without "
                  "timestamps, an nvidia-smi log without a timestamp column")
      ->default_str("30s")
      ->group(in);
  sub->add_option("--trace",
                  o->traces,
                  "torch.profiler Chrome trace (.json) or nsys SQLite export, as FILE or "
                  "WORKLOAD=FILE (repeatable)")
      ->type_name("[WORKLOAD=]FILE")
      ->group(in);
  sub->add_option("--prometheus", o->prometheus, "Read the DCGM series live from this Prometheus")
      ->type_name("URL")
      ->group(in);
  sub->add_option("--range", o->range, "The window to read from Prometheus, ending now (7d, 6h)")
      ->type_name("DURATION")
      ->group(in);
  sub->add_option("--step", o->step, "Resolution of the Prometheus query")
      ->default_str("30s")
      ->type_name("DURATION")
      ->group(in);
  sub->add_option("--selector",
                  o->selector,
                  "Label matchers added to every query: '{namespace=\"serving\"}'")
      ->group(in);
  sub->add_option("--timeout", o->timeout_s, "Seconds per Prometheus request")
      ->check(CLI::Range(0.1, 3600.0))
      ->default_str("30")
      ->group(in);
  sub->add_option("--watch",
                  o->watch,
                  "With --prometheus: re-evaluate every INTERVAL and print what changed")
      ->type_name("INTERVAL")
      ->group(in);
  sub->add_option(
         "--watch-count", o->watch_count, "Stop --watch after this many re-evaluations (0: never)")
      ->check(CLI::Range(0L, 1000000L))
      ->group(in);

  const std::string judge = "Verdicts and recommendations";
  sub->add_option("--percentile", o->work_percentile, "Percentile of the observed work to size for")
      ->check(CLI::Range(1.0, 100.0))
      ->default_str("95")
      ->group(judge);
  sub->add_option("--memory-percentile",
                  o->memory_percentile,
                  "Percentile of the observed memory to size for (100: the peak)")
      ->check(CLI::Range(1.0, 100.0))
      ->default_str("100")
      ->group(judge);
  sub->add_option("--buffer", o->buffer_percent, "Margin added to the observed need, in percent")
      ->check(CLI::Range(0.0, 500.0))
      ->default_str("20")
      ->group(judge);
  sub->add_option("--idle-below", o->idle_below, "Idle: work percentile under this percent")
      ->check(CLI::Range(0.0, 100.0))
      ->default_str("5")
      ->group(judge);
  sub->add_option(
         "--low-below", o->low_below, "Low utilization: work percentile under this percent")
      ->check(CLI::Range(0.0, 100.0))
      ->default_str("40")
      ->group(judge);
  sub->add_option("--min-saving",
                  o->min_saving,
                  "Over-provisioned only when a recommendation saves at least this percent")
      ->check(CLI::Range(0.0, 100.0))
      ->default_str("10")
      ->group(judge);
  sub->add_option("--scale-out-efficiency",
                  o->scale_out,
                  "Percent of the added GPUs' rate a recommendation on more GPUs gets per doubling")
      ->check(CLI::Range(10.0, 100.0))
      ->default_str("90")
      ->group(judge);
  sub->add_option("--group-by", o->group_by, "Workloads: auto (pods, else each GPU), host, or gpu")
      ->check(CLI::IsMember({"auto", "host", "gpu"}))
      ->default_str("auto")
      ->group(judge);
  sub->add_option("--gpus", o->gpus, "Recommend only these catalog GPUs (comma-separated)")
      ->group(judge);
  sub->add_option("--max-gpus", o->max_gpus, "Most GPUs per workload in a recommendation")
      ->check(CLI::Range(1L, 1024L))
      ->default_str("8")
      ->group(judge);
  sub->add_flag("--no-mig", o->no_mig, "Do not recommend MIG slices")->group(judge);
  sub->add_option("--gpu-model",
                  o->gpu_models,
                  "Map an observed GPU name to a catalog GPU: \"NVIDIA H100 80GB HBM3=H100\"")
      ->type_name("NAME=GPU")
      ->group(judge);
  sub->add_option("--provider", o->provider, "Price with this provider's prices")->group(judge);
  sub->add_option("--price-kind", o->price_kind, "on_demand, spot or committed")
      ->default_str("on_demand")
      ->group(judge);
  sub->add_option("--hours-per-month", o->hours_per_month, "Hours a GPU is paid for per month")
      ->check(CLI::Range(1.0, 744.0))
      ->default_str("730")
      ->group(judge);

  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, {"table", "json", "markdown", "csv", "html", "svg"});
  sub->add_option("-o,--output", o->output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");

  sub->callback([&ctx, o, sub]() {
    for (const char* flag :
         {"--range", "--step", "--selector", "--timeout", "--watch", "--watch-count"}) {
      if (sub->get_option(flag)->count() > 0) {
        o->live_flags_given.emplace_back(flag);
      }
    }
    o->gpus_given = sub->get_option("--gpus")->count() > 0;
    check_inputs(*o);
    ctx.action = [&ctx, o]() {
      const Catalog catalog = load_catalog(
          bundled_catalog_path(), user_catalog_path(o->common), CatalogDetail::figures);
      const GpuProducts products = load_gpu_products(bundled_data_dir() + "/deploy.json");
      const ObserveOptions options = analysis_options(*o, catalog);
      std::vector<std::string> sources;
      Telemetry files = read_files(*o, sources);
      const auto traces = read_traces(*o, sources);
      // What the inputs skipped is said now, before an analysis that may find nothing left.
      std::set<std::string> logged;
      const auto log_once = [&](const std::string& w) {
        if (logged.insert(w).second) {
          ctx.log->warn("{}", w);
        }
      };
      for (const auto& w : files.warnings) {
        log_once(w);
      }
      for (const auto& t : traces) {
        for (const auto& w : t.profile.warnings) {
          log_once(w);
        }
      }
      std::optional<PrometheusQuery> query;
      if (!o->prometheus.empty()) {
        query = prometheus_query(*o);
        sources.push_back(o->prometheus);
      }
      const auto evaluate = [&]() {
        Telemetry all = files;
        if (query) {
          all.merge(query_prometheus(*query));
        }
        ObserveReport report = observe(all, traces, catalog, products, options);
        report.sources = sources;
        return report;
      };
      ObserveReport report = evaluate();
      for (const auto& w : report.warnings) {
        log_once(w);
      }
      if (!o->output.empty()) {
        std::ostringstream text;
        render(report, o->common.format, text);
        write_file_atomically(o->output, text.str());
        ctx.log->info("wrote {}", o->output);
      } else {
        render(report, o->common.format, ctx.out);
      }
      if (o->watch.empty()) {
        return ExitCode::ok;
      }
      const double every = parse_duration(o->watch, "--watch");
      for (long n = 0; o->watch_count == 0 || n < o->watch_count; ++n) {
        std::this_thread::sleep_for(std::chrono::duration<double>(every));
        ObserveReport next = evaluate();
        std::ostringstream changes;
        render_observe_changes(report, next, changes);
        if (!changes.str().empty()) {
          ctx.out << "[" << utc_now() << "]\n" << changes.str() << std::flush;
        }
        report = std::move(next);
      }
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
