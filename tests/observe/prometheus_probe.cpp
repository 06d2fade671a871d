// rightsize_prometheus_probe: query_prometheus() through a real Prometheus server, for
// tests/observe/test_prometheus_live.sh, which checks the library's telemetry (identities, units,
// memory_total, throttled) beside what `rightsize observe` makes of it.
//
//   rightsize_prometheus_probe URL RANGE_S STEP_S [TIMEOUT_S [SELECTOR]]
//
// Writes {"samples": N, "warnings": [...], "gpus": [{"label", "host", "index", "uuid",
// "model_name", "namespace", "pod", "container", "source", "metrics": {"<metric>": {"samples",
// "min", "max", "mean"}}}]} to stdout. An InputError is one line on stderr,
// "rightsize: error: <message>", and exit code 2, as the CLI prints it.

#include <rightsize/core/error.hpp>
#include <rightsize/observe/prometheus.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <iostream>
#include <numeric>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::cerr << "usage: rightsize_prometheus_probe URL RANGE_S STEP_S [TIMEOUT_S [SELECTOR]]\n";
    return 2;
  }
  try {
    rightsize::PrometheusQuery query;
    query.url = argv[1];
    query.range_s = std::stod(argv[2]);
    query.step_s = std::stod(argv[3]);
    // Every raw sample, so that their values and order can be checked; the server's summaries
    // are checked through the binary (test_prometheus_fleet.sh).
    query.aggregate = rightsize::Aggregate::client;
    query.owners = false; // no kube-state-metrics here
    if (argc > 4) {
      query.timeout_s = std::stod(argv[4]);
    }
    if (argc > 5) {
      query.selector = argv[5];
    }
    const auto telemetry = rightsize::query_prometheus(query);
    nlohmann::json out{{"samples", telemetry.samples},
                       {"warnings", telemetry.warnings},
                       {"gpus", nlohmann::json::array()}};
    for (const auto& gpu : telemetry.gpus) {
      nlohmann::json metrics = nlohmann::json::object();
      for (std::size_t m = 0; m < rightsize::k_metric_count; ++m) {
        const auto& s = gpu.metrics[m];
        if (s.empty()) {
          continue;
        }
        const auto [lo, hi] = std::minmax_element(s.value.begin(), s.value.end());
        const double sum = std::accumulate(s.value.begin(), s.value.end(), 0.0);
        const bool ordered = std::is_sorted(s.time_s.begin(), s.time_s.end()) &&
                             std::adjacent_find(s.time_s.begin(), s.time_s.end()) == s.time_s.end();
        metrics[std::string(rightsize::to_string(static_cast<rightsize::Metric>(m)))] = {
            {"samples", s.size()},
            {"min", *lo},
            {"max", *hi},
            {"mean", sum / static_cast<double>(s.size())},
            {"time_ordered", ordered}};
      }
      const auto& id = gpu.id;
      out["gpus"].push_back({{"label", id.label()},
                             {"host", id.host},
                             {"index", id.index},
                             {"uuid", id.uuid},
                             {"model_name", id.model_name},
                             {"namespace", id.namespace_name},
                             {"pod", id.pod},
                             {"container", id.container},
                             {"source", id.source},
                             {"metrics", metrics}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  } catch (const rightsize::InputError& e) {
    std::cerr << "rightsize: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rightsize_prometheus_probe: " << e.what() << "\n";
    return 4;
  }
}
