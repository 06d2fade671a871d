#include "published_cases.hpp"

#include "perf_cases.hpp"

#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace rightsize::accuracy {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n == 0 ? 0.0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

PublishedGroup summarize(const std::string& name,
                         const std::vector<const PublishedPrediction*>& rows) {
  PublishedGroup g;
  g.name = name;
  std::vector<double> errors;
  std::vector<double> abs_errors;
  for (const auto* r : rows) {
    if (!r->predicted) {
      ++g.unpredicted;
      continue;
    }
    errors.push_back(r->error());
    abs_errors.push_back(std::fabs(r->error()));
  }
  g.runs = static_cast<int>(errors.size());
  g.median_error = median_of(errors);
  g.median_abs_error = median_of(abs_errors);
  g.worst = abs_errors.empty() ? 0.0 : *std::max_element(abs_errors.begin(), abs_errors.end());
  return g;
}

std::string
family_of(const Catalog& catalog, const Efficiency& efficiency, const std::string& gpu) {
  const Gpu* g = catalog.find(gpu);
  return g == nullptr ? "not in the catalog" : efficiency.family_name(*g);
}

} // namespace

bool seen_by_fit(const PublishedResult& r) {
  return r.source == "trtllm-performance-v0.6.1";
}

PublishedAccuracy run_published_cases(const std::string& index_path,
                                      const std::string& configs_dir,
                                      const Catalog& catalog,
                                      const Constants& constants,
                                      const Efficiency& efficiency,
                                      const Uncertainty& uncertainty) {
  PublishedAccuracy out;
  PublishedData data = load_published_index(index_path);
  load_published_results(data);
  for (const auto& m : data.models) {
    const Spec spec = load_spec(configs_dir + "/" + m.key + "/config.json");
    const Comparison c =
        compare_published(spec, data, catalog, constants, efficiency, &uncertainty, {});
    out.rows.insert(out.rows.end(), c.rows.begin(), c.rows.end());
  }
  // Groups, each a name and a test; a run may be in several.
  std::map<std::string, std::vector<const PublishedPrediction*>> groups;
  for (const auto& p : out.rows) {
    const auto& r = p.result;
    const std::string scenario = to_string(r.scenario);
    groups["all " + scenario].push_back(&p);
    groups["source " + r.source + " " + scenario].push_back(&p);
    if (r.scenario == PublishedScenario::offline && !r.mean_lengths) {
      groups["offline family " + family_of(catalog, efficiency, r.gpu)].push_back(&p);
      groups[fmt::format("offline lengths {}/{}", r.input_tokens, r.output_tokens)].push_back(&p);
      groups[std::string("offline kv ") + (r.kv_cache.empty() ? "not stated" : "stated")].push_back(
          &p);
      groups[std::string("offline weights ") + (r.weights.empty() ? "?" : r.weights)].push_back(&p);
      if (!seen_by_fit(r)) {
        groups["offline never fitted"].push_back(&p);
        if (!r.kv_cache.empty()) {
          groups["offline never fitted, formats stated"].push_back(&p);
        }
      }
    }
    groups[std::string(seen_by_fit(r) ? "seen by the fit" : "never fitted") + " " + scenario]
        .push_back(&p);
  }
  for (const auto& [name, rows] : groups) {
    out.groups.push_back(summarize(name, rows));
  }
  return out;
}

} // namespace rightsize::accuracy
