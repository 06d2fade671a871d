// The options of `rightsize observe`, added to its subcommand. docs/observe.md, "Options".

#include "cli/observe_options.hpp"

#include <rightsize/observe/settings.hpp>

#include <CLI/CLI.hpp>

namespace rightsize::cli {

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
  sub.add_option("--engine-metrics",
                 in.engine_metrics,
                 "A serving engine's /metrics scrapes (vLLM, SGLang, TensorRT-LLM), Prometheus "
                 "text, as FILE (series with namespace and pod labels) or WORKLOAD=FILE "
                 "(repeatable)")
      ->type_name("[WORKLOAD=]FILE")
      ->group(group);
  sub.add_option("--spec-map",
                 in.spec_map,
                 "JSON map of workload globs to the specs they serve: their latency targets, "
                 "and the estimator's size for them (docs/observe.md, \"Serving engines\")")
      ->type_name("FILE")
      ->group(group);
  sub.add_option("--spec", in.spec, "The spec of every serving workload --spec-map does not map")
      ->type_name("FILE")
      ->group(group);
  sub.add_option("--prometheus",
                 in.prometheus,
                 "Read the DCGM series live from this Prometheus (or Thanos, Mimir, "
                 "VictoriaMetrics)")
      ->type_name("URL")
      ->group(group);
  sub.add_option("--range", in.range, "The window to read from Prometheus (7d, 6h)")
      ->default_str("14d")
      ->type_name("DURATION")
      ->group(group);
  sub.add_option("--end", in.end, "The window's end: Unix seconds or 2026-12-01T00:00:00Z")
      ->default_str("now")
      ->type_name("TIME")
      ->group(group);
  sub.add_option("--step",
                 in.step,
                 "Resolution of the raw pull (--aggregate client) and of the clock-reason "
                 "subquery")
      ->default_str("30s")
      ->type_name("DURATION")
      ->group(group);
  sub.add_option("--aggregate",
                 in.aggregate,
                 "server: Prometheus summarizes each series (quantile_over_time, ...); client: "
                 "pull every raw sample")
      ->check(CLI::IsMember({"server", "client"}))
      ->default_str("server")
      ->group(group);
  sub.add_flag("--no-owners",
               o.no_owners,
               "Do not read kube-state-metrics' owner series (workloads stay pods)")
      ->group(group);
  sub.add_option("--bearer-token", in.bearer_token, "Send Authorization: Bearer TOKEN")
      ->type_name("TOKEN")
      ->group(group);
  sub.add_option("--bearer-token-file", in.bearer_token_file, "Read the bearer token from FILE")
      ->type_name("FILE")
      ->group(group);
  sub.add_option("--header",
                 in.headers,
                 "Send this HTTP header with every request, 'X-Scope-OrgID: team' (repeatable)")
      ->type_name("'NAME: VALUE'")
      ->group(group);
  sub.add_option("--ca-file", in.ca_file, "PEM CA bundle that verifies an https Prometheus")
      ->type_name("FILE")
      ->group(group);
  sub.add_flag("--insecure-skip-verify",
               in.insecure_skip_verify,
               "Do not verify the https server's certificate")
      ->group(group);
  sub.add_option("--selector",
                 in.selector,
                 "Label matchers added to every query: '{namespace=\"serving\"}'")
      ->group(group);
  sub.add_option("--timeout", in.timeout_s, "Seconds per Prometheus request")
      ->check(number_in(0.1, 3600.0))
      ->default_str("120")
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
  sub.add_option("--group-by",
                 s.group_by,
                 "Workloads: auto (owners where kube-state-metrics says, else pods, else each "
                 "GPU), owner, pod, host, or gpu")
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

} // namespace rightsize::cli
