#pragma once

// Serving engines judged on their own metrics (vLLM, SGLang, TensorRT-LLM): what each engine calls
// its queue, KV-cache usage and latency histograms (data/deploy.json, "serving_metrics"), those
// metrics read from the engine's /metrics scrapes and summarized per pod, and the specs the
// workloads serve (--spec-map). docs/observe.md, "Serving engines".

#include <rightsize/observe/telemetry.hpp>
#include <rightsize/plan/plan.hpp>

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize {

struct Spec;

// The "serving_metrics" of each engine of data/deploy.json's "engines"; throws InputError at
// file:/engines/<name>/serving_metrics/<role>.
EngineMetricCatalog parse_engine_metric_catalog(const nlohmann::json& deploy_json,
                                                const std::string& file);

// A serving engine's /metrics in the Prometheus text format, one scrape or many concatenated
// (samples with a timestamp in milliseconds are placed by it; without, the k-th sample of a series
// is at k * `interval_s`). Series are grouped by their namespace and pod labels, or all under
// `workload` when it is given (a plain scrape of one pod has no such labels). Metric names come
// from `names`; the engine is the one whose names the file holds. The result has engine_pods and
// warnings, no GPUs. Throws InputError naming the file and line for text that is not the
// exposition format, or a file with no engine metric at all.
Telemetry parse_engine_metrics_text(std::string_view text,
                                    const std::string& source,
                                    const std::string& workload,
                                    const EngineMetricCatalog& names,
                                    double interval_s);

// Workloads mapped to the specs they serve (--spec-map, --spec): the first pattern that matches
// the workload's name (a shell glob, `*` across `/` too: "llm-serving/*") gives its spec.
struct SpecMapping {
  std::string pattern;
  std::shared_ptr<const Spec> spec;
  std::string spec_file;
};

// The lines of a spec map (YAML or JSON): a list of {workload: GLOB, spec: FILE}, FILE relative to
// the map. Throws InputError at file:/<index>/<field>.
struct SpecMapEntry {
  std::string pattern;
  std::string spec_file; // resolved against the map's folder
  std::string where;     // "map.json:/specs/0/spec", for errors about the spec
};
std::vector<SpecMapEntry> read_spec_map(const std::string& path);

// What observe needs to size a workload's spec with the estimator, as rightsize plan does
// (make_plan's inputs); must outlive observe().
struct SpecPlanning {
  const Catalog* catalog = nullptr; // with figures (CatalogDetail::figures)
  const Constants* constants = nullptr;
  const Efficiency* efficiency = nullptr;
  PlanOptions options;
};

// Whether `name` matches the shell glob `pattern` (`*`, `?`, `[...]`; `*` matches `/`).
bool workload_matches(const std::string& pattern, const std::string& name);

} // namespace rightsize
