#pragma once

// What a `rightsize observe` run reads, as its command line names it: telemetry files, traces
// (FILE or WORKLOAD=FILE) and a Prometheus server, checked together, read once each, and judged
// (observe_once) as often as --watch asks. docs/observe.md, "Options" and "Inputs".

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/observe/observe.hpp>
#include <rightsize/observe/prometheus.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// "30s", "5m", "2h", "7d", "1w" or plain seconds -> seconds. Anything else, zero, a negative or
// more than about ten years throws InputError at `where` ("--range").
double parse_duration(const std::string& text, const std::string& where);

struct ObserveInputs {
  std::vector<std::string> nvidia_smi; // nvidia-smi CSV logs
  std::vector<std::string> dcgm;       // dcgm-exporter scrapes
  std::vector<std::string> traces;     // FILE, or WORKLOAD=FILE unless the whole text is a file
  // Serving engines' /metrics scrapes, FILE or WORKLOAD=FILE (as traces), read with these names
  // (data/deploy.json, "serving_metrics").
  std::vector<std::string> engine_metrics;
  EngineMetricCatalog engine_metric_names;
  // The specs the serving workloads serve: a map of workload globs to spec files, and one spec
  // for every serving workload the map leaves out.
  std::string spec_map;
  std::string spec;
  std::string interval = "30s"; // between samples of a file without a clock
  // Prometheus: the base URL (empty: none), the window (14 days when not given) ending at --end
  // (empty: now), its step, label matchers, the seconds per request, where the window is
  // summarized ("server" or "client"), and how to connect.
  std::string prometheus;
  std::string range;
  std::string end;
  std::string step = "30s";
  std::string selector;
  double timeout_s = 120;
  std::string aggregate = "server";
  std::string bearer_token;
  std::string bearer_token_file;
  std::vector<std::string> headers;
  std::string ca_file;
  bool insecure_skip_verify = false;
  // The Prometheus-only options given ("--range", "--step", ...): refused without --prometheus.
  std::vector<std::string> live_flags_given;
  std::string watch;            // --watch INTERVAL; empty: one report
  std::string output;           // -o FILE; empty: standard output
  std::string format = "table"; // the report's --format
};

// Refuses a run that cannot be made, before anything is read: nothing to observe, a --prometheus
// that is not an http(s) URL or lacks --range, a Prometheus-only option without --prometheus,
// --watch with --output or with a format other than table, -o naming one of the telemetry files.
// InputError at the option.
void check_observe_inputs(const ObserveInputs& in);

// The files of a run, read and parsed once.
struct ObservedFiles {
  Telemetry telemetry; // every nvidia-smi log and DCGM scrape, merged; their warnings included
  std::vector<NamedTrace> traces;
  std::vector<std::string> sources; // the files read, in the order read
};

// Reads the telemetry files, then the traces. A file given twice (by its name or another path to
// it) is read once, with a warning: the telemetry's among its warnings, the traces' at the head
// of the first trace's. Each parser names the file in its errors (InputError).
ObservedFiles read_observe_files(const ObserveInputs& in);

// The specs of --spec-map (in its order), then --spec for every other workload ("*"), each read
// once. InputError names the map's file and entry, or the spec's file and field.
std::vector<SpecMapping> read_spec_mappings(const ObserveInputs& in);

// The query of --prometheus and its options: durations and --end parsed, the bearer token read
// from --bearer-token-file, the --ca-file checked readable (InputError at the option).
// `options`' work and memory percentiles are the ones the server is asked for.
PrometheusQuery prometheus_query(const ObserveInputs& in, const ObserveOptions& options);

// --end: Unix seconds, or a UTC time "2026-12-01T00:00:00Z". InputError at --end otherwise.
double parse_end_time(const std::string& text);

// One evaluation: the files' telemetry, with what `query` reads from Prometheus now when set,
// judged with `options`; the report's sources are the files', then the query's URL.
ObserveReport observe_once(const ObservedFiles& files,
                           const std::optional<PrometheusQuery>& query,
                           const Catalog& catalog,
                           const GpuProducts& products,
                           const ObserveOptions& options,
                           PrometheusTraffic* traffic = nullptr);

} // namespace rightsize
