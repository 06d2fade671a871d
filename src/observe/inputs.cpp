// What a run of `rightsize observe` reads: checked, read once, judged. docs/observe.md,
// "Options" and "Inputs".

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/net/http_get.hpp>
#include <rightsize/observe/inputs.hpp>
#include <rightsize/observe/trace.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

namespace rightsize {

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

void check_observe_inputs(const ObserveInputs& in) {
  if (in.nvidia_smi.empty() && in.dcgm.empty() && in.traces.empty() && in.prometheus.empty()) {
    throw InputError("observe",
                     "nothing to observe: give --nvidia-smi FILE, --dcgm FILE, "
                     "--trace FILE or --prometheus URL (or PROMETHEUS_URL)");
  }
  if (!in.prometheus.empty()) {
    if (in.prometheus.rfind("http://", 0) != 0 && in.prometheus.rfind("https://", 0) != 0) {
      throw InputError(
          "--prometheus",
          fmt::format("must be an http:// or https:// URL, got \"{}\"", in.prometheus));
    }
    if (in.aggregate != "server" && in.aggregate != "client") {
      throw InputError("--aggregate",
                       fmt::format("must be server or client, got \"{}\"", in.aggregate));
    }
    if (!in.bearer_token.empty() && !in.bearer_token_file.empty()) {
      throw InputError("--bearer-token-file", "give the token once: --bearer-token or this");
    }
  } else {
    for (const auto& flag : in.live_flags_given) {
      throw InputError(flag, "applies to --prometheus only");
    }
  }
  if (!in.watch.empty() && !in.output.empty()) {
    throw InputError("--watch", "prints changes as they come: it cannot write --output");
  }
  if (!in.watch.empty() && in.format != "table") {
    throw InputError("--watch",
                     fmt::format("prints the changes as lines of text after the "
                                 "report: use --format table, not {}",
                                 in.format));
  }
  // -o must not replace what it reads.
  for (const auto* inputs : {&in.nvidia_smi, &in.dcgm, &in.engine_metrics}) {
    for (const auto& path : *inputs) {
      if (!in.output.empty() && (path == in.output || same_file(path, in.output))) {
        throw InputError("--output", fmt::format("{} is an input of this run", in.output));
      }
    }
  }
}

namespace {

std::string file_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
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

// WORKLOAD=FILE, unless the whole argument is a file (names may hold '=').
std::pair<std::string, std::string> workload_and_path(const std::string& given) {
  if (const auto eq = given.find('=');
      eq != std::string::npos && eq > 0 && !std::filesystem::exists(given)) {
    return {given.substr(0, eq), given.substr(eq + 1)};
  }
  return {std::string(), given};
}

Telemetry read_telemetry_files(const ObserveInputs& in, std::vector<std::string>& sources) {
  Telemetry all;
  std::vector<std::string> seen;
  const auto nvidia_smi = distinct(in.nvidia_smi, seen, all.warnings);
  const auto dcgm = distinct(in.dcgm, seen, all.warnings);
  const double interval = parse_duration(in.interval, "--interval");
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
  // A file of both (Prometheus' /federate of DCGM and engine series) may be given as each.
  std::vector<std::string> seen_engine;
  for (const auto& given : distinct(in.engine_metrics, seen_engine, all.warnings)) {
    const auto [workload, path] = workload_and_path(given);
    const std::string text =
        read_input_file(path, k_max_telemetry_file_bytes, "serving engine metrics");
    all.merge(parse_engine_metrics_text(text, path, workload, in.engine_metric_names, interval));
    sources.push_back(path);
  }
  return all;
}

std::vector<NamedTrace> read_traces(const ObserveInputs& in, std::vector<std::string>& sources) {
  std::vector<NamedTrace> traces;
  std::vector<std::string> seen;
  std::vector<std::string> warnings;
  for (const auto& given : distinct(in.traces, seen, warnings)) {
    NamedTrace t;
    std::string path;
    std::tie(t.workload, path) = workload_and_path(given);
    t.profile = read_trace(path);
    t.profile.warnings.insert(t.profile.warnings.begin(), warnings.begin(), warnings.end());
    warnings.clear();
    sources.push_back(path);
    traces.push_back(std::move(t));
  }
  return traces;
}

} // namespace

ObservedFiles read_observe_files(const ObserveInputs& in) {
  ObservedFiles files;
  files.telemetry = read_telemetry_files(in, files.sources);
  files.traces = read_traces(in, files.sources);
  return files;
}

std::vector<SpecMapping> read_spec_mappings(const ObserveInputs& in) {
  std::vector<SpecMapEntry> entries;
  if (!in.spec_map.empty()) {
    entries = read_spec_map(in.spec_map);
  }
  if (!in.spec.empty()) {
    entries.push_back(SpecMapEntry{"*", in.spec, "--spec"});
  }
  std::map<std::string, std::shared_ptr<const Spec>> loaded;
  std::vector<SpecMapping> out;
  for (const auto& e : entries) {
    auto& spec = loaded[e.spec_file];
    if (!spec) {
      Spec s;
      try {
        s = load_spec(e.spec_file);
      } catch (const InputError& error) {
        // Which entry named the spec, then what is wrong with it.
        throw InputError(e.where, error.what());
      }
      if (s.workload.type != WorkloadType::inference || s.workload.is_embedding()) {
        throw InputError(e.where,
                         fmt::format("{}: observe judges LLM serving on its engine's metrics: "
                                     "the spec must be an inference workload (workload.type "
                                     "\"inference\")",
                                     e.spec_file));
      }
      spec = std::make_shared<const Spec>(std::move(s));
    }
    out.push_back(SpecMapping{e.pattern, spec, e.spec_file});
  }
  return out;
}

double parse_end_time(const std::string& text) {
  std::size_t used = 0;
  double seconds = 0;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == text.size() && used > 0) {
    if (!std::isfinite(seconds) || seconds <= 0 || seconds > 4.1e9) {
      throw InputError("--end", fmt::format("{} is not a time in Unix seconds", text));
    }
    return seconds;
  }
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (rest == nullptr || *rest != '\0') {
    throw InputError("--end",
                     fmt::format("\"{}\" is neither Unix seconds (1764547200) nor a UTC time "
                                 "(2025-12-01T00:00:00Z)",
                                 text));
  }
  return static_cast<double>(timegm(&tm));
}

PrometheusQuery prometheus_query(const ObserveInputs& in, const ObserveOptions& options) {
  PrometheusQuery q;
  q.url = in.prometheus;
  q.range_s = parse_duration(in.range.empty() ? "14d" : in.range, "--range");
  q.end_s = in.end.empty() ? 0 : parse_end_time(in.end);
  q.step_s = parse_duration(in.step, "--step");
  q.selector = in.selector;
  q.timeout_s = in.timeout_s;
  q.aggregate = in.aggregate == "client" ? Aggregate::client : Aggregate::server;
  q.percentiles = {options.work_percentile, options.memory_percentile};
  q.headers = in.headers;
  q.ca_file = in.ca_file;
  q.insecure_skip_verify = in.insecure_skip_verify;
  q.bearer_token = in.bearer_token;
  if (!in.bearer_token_file.empty()) {
    std::string token = read_input_file(in.bearer_token_file, 64 * 1024, "--bearer-token-file");
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                              token.back() == '\t')) {
      token.pop_back();
    }
    if (token.empty()) {
      throw InputError(in.bearer_token_file, "--bearer-token-file: the file is empty");
    }
    q.bearer_token = std::move(token);
  }
  if (!in.ca_file.empty()) {
    read_input_file(in.ca_file, 16 * 1024 * 1024, "--ca-file");
  }
  return q;
}

ObserveReport observe_once(const ObservedFiles& files,
                           const std::optional<PrometheusQuery>& query,
                           const Catalog& catalog,
                           const GpuProducts& products,
                           const ObserveOptions& options,
                           PrometheusTraffic* traffic) {
  Telemetry all = files.telemetry;
  if (query) {
    all.merge(query_prometheus(*query, traffic));
  }
  ObserveReport report = observe(all, files.traces, catalog, products, options);
  report.sources = files.sources;
  if (query) {
    // The server as messages name it: a user:password@ in the URL is a secret, not a source.
    report.sources.push_back(net::shown_url(query->url));
  }
  return report;
}

} // namespace rightsize
