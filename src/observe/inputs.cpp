// What a run of `rightsize observe` reads: checked, read once, judged. docs/observe.md,
// "Options" and "Inputs".

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/inputs.hpp>
#include <rightsize/observe/trace.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

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
                     "--trace FILE or --prometheus URL --range DURATION");
  }
  if (!in.prometheus.empty()) {
    if (in.prometheus.rfind("http://", 0) != 0 && in.prometheus.rfind("https://", 0) != 0) {
      throw InputError(
          "--prometheus",
          fmt::format("must be an http:// or https:// URL, got \"{}\"", in.prometheus));
    }
    if (in.range.empty()) {
      throw InputError("--range", "--prometheus needs the window to read: --range 7d");
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
  for (const auto* inputs : {&in.nvidia_smi, &in.dcgm}) {
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
  return all;
}

std::vector<NamedTrace> read_traces(const ObserveInputs& in, std::vector<std::string>& sources) {
  std::vector<NamedTrace> traces;
  std::vector<std::string> seen;
  std::vector<std::string> warnings;
  for (const auto& given : distinct(in.traces, seen, warnings)) {
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

} // namespace

ObservedFiles read_observe_files(const ObserveInputs& in) {
  ObservedFiles files;
  files.telemetry = read_telemetry_files(in, files.sources);
  files.traces = read_traces(in, files.sources);
  return files;
}

PrometheusQuery prometheus_query(const ObserveInputs& in) {
  PrometheusQuery q;
  q.url = in.prometheus;
  q.range_s = parse_duration(in.range, "--range");
  q.step_s = parse_duration(in.step, "--step");
  q.selector = in.selector;
  q.timeout_s = in.timeout_s;
  return q;
}

ObserveReport observe_once(const ObservedFiles& files,
                           const std::optional<PrometheusQuery>& query,
                           const Catalog& catalog,
                           const GpuProducts& products,
                           const ObserveOptions& options) {
  Telemetry all = files.telemetry;
  if (query) {
    all.merge(query_prometheus(*query));
  }
  ObserveReport report = observe(all, files.traces, catalog, products, options);
  report.sources = files.sources;
  if (query) {
    report.sources.push_back(query->url);
  }
  return report;
}

} // namespace rightsize
