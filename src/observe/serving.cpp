// Serving engines' metric names (data/deploy.json), latency histograms, and the map of workloads to
// the specs they serve. docs/observe.md, "Serving engines".

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/observe/serving.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fnmatch.h>
#include <map>

namespace rightsize {

using detail::FieldReader;

EngineMetricCatalog parse_engine_metric_catalog(const nlohmann::json& deploy_json,
                                                const std::string& file) {
  EngineMetricCatalog out;
  const FieldReader engines = FieldReader(deploy_json, file).object("engines");
  for (const auto& [name, value] : engines.json().items()) {
    const auto m = engines.object(name).optional_object("serving_metrics");
    if (!m) {
      continue;
    }
    m->reject_unknown(
        {"running", "waiting", "kv_cache_usage", "preemptions", "ttft_seconds", "itl_seconds"});
    EngineMetricNames n;
    n.running = m->string_array("running");
    n.waiting = m->string_array("waiting");
    n.kv_cache_usage = m->string_array("kv_cache_usage");
    n.preemptions = m->string_array("preemptions");
    n.ttft_seconds = m->string_array("ttft_seconds");
    n.itl_seconds = m->string_array("itl_seconds");
    out[name] = std::move(n);
  }
  return out;
}

std::optional<double> LatencyHistogram::quantile(double q) const {
  if (buckets.empty() || buckets.back().second <= 0) {
    return std::nullopt;
  }
  const double total = buckets.back().second;
  const double rank = std::clamp(q, 0.0, 1.0) * total;
  double lower = 0;
  double below = 0;
  for (const auto& [le, cumulative] : buckets) {
    if (cumulative >= rank && cumulative > below) {
      if (std::isinf(le)) {
        return lower; // above the largest finite bound: histogram_quantile returns it
      }
      // The share of the bucket first (at most 1): a bound near the largest double must not
      // overflow to infinity when multiplied.
      return lower + (le - lower) * ((rank - below) / (cumulative - below));
    }
    if (!std::isinf(le)) {
      lower = le;
    }
    below = cumulative;
  }
  return lower;
}

std::optional<double> LatencyHistogram::mean() const {
  if (count <= 0) {
    return std::nullopt;
  }
  return sum / count;
}

void LatencyHistogram::add(const LatencyHistogram& other) {
  // Each bound's cumulative count is a step function of the bound: add the two step functions.
  const auto at = [](const std::vector<std::pair<double, double>>& b, double le) {
    double c = 0;
    for (const auto& [bound, cumulative] : b) {
      if (bound <= le) {
        c = cumulative;
      }
    }
    return c;
  };
  std::map<double, double> merged;
  for (const auto& [le, c] : buckets) {
    merged[le] = 0;
  }
  for (const auto& [le, c] : other.buckets) {
    merged[le] = 0;
  }
  for (auto& [le, c] : merged) {
    c = at(buckets, le) + at(other.buckets, le);
  }
  buckets.assign(merged.begin(), merged.end());
  sum += other.sum;
  count += other.count;
}

std::vector<SpecMapEntry> read_spec_map(const std::string& path) {
  const nlohmann::json json = detail::load_json_file(path);
  const FieldReader root(json, path);
  root.reject_unknown({"schema_version", "specs"});
  const auto entries = root.array("specs");
  if (entries.empty()) {
    root.member("specs").fail("must list at least one {\"workload\": GLOB, \"spec\": FILE}");
  }
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::vector<SpecMapEntry> out;
  for (const FieldReader& e : entries) {
    e.reject_unknown({"workload", "spec"});
    SpecMapEntry m;
    m.pattern = e.string("workload");
    if (m.pattern.empty()) {
      e.member("workload").fail("must be a glob of workload names (llm-serving/*)");
    }
    const std::string spec = e.string("spec");
    if (spec.empty()) {
      e.member("spec").fail("must name a spec file");
    }
    const std::filesystem::path p(spec);
    m.spec_file =
        p.is_absolute() || folder.empty() ? spec : (folder / p).lexically_normal().string();
    m.where = e.where("spec");
    out.push_back(std::move(m));
  }
  return out;
}

bool workload_matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

} // namespace rightsize
