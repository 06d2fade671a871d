// Accuracy of the estimator against ../shared/validation: prints measured, predicted and error
// per line, with the median and worst absolute percentage error.
// Usage: rightsize_accuracy [VALIDATION_DIR]

#include "accuracy/memory_cases.hpp"
#include "accuracy/perf_cases.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

int main(int argc, char** argv) {
  const std::string validation = argc > 1 ? argv[1] : RIGHTSIZE_VALIDATION_DIR;
  try {
    const auto catalog = rightsize::load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const auto constants =
        rightsize::Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    const auto r = rightsize::accuracy::run_memory_cases(
        validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants);
    fmt::print(
        "memory: {} lines evaluated, {} not expressible\n\n", r.cases.size(), r.skipped.size());
    fmt::print("{:<58} {:>11} {:>11} {:>8} {}\n", "line", "measured", "predicted", "error", "set");
    std::vector<double> errors;
    int outcomes_right = 0;
    int outcomes = 0;
    for (const auto& c : r.cases) {
      if (c.outcome) {
        ++outcomes;
        const bool right = c.predicted == c.measured;
        outcomes_right += right ? 1 : 0;
        fmt::print("{:<58} {:>11} {:>11} {:>8} {}\n",
                   c.id,
                   c.measured > 0 ? "fits" : "OOM",
                   c.predicted > 0 ? "fits" : "OOM",
                   right ? "right" : "WRONG",
                   c.held_out ? "held out" : "informed a constant");
        continue;
      }
      errors.push_back(std::fabs(c.error()));
      fmt::print("{:<58} {:>7.2f} GiB {:>7.2f} GiB {:>+7.1f}% {}\n",
                 c.id,
                 c.measured / 1073741824.0,
                 c.predicted / 1073741824.0,
                 100.0 * c.error(),
                 c.held_out ? "held out" : "informed a constant");
    }
    std::sort(errors.begin(), errors.end());
    const double median = errors.empty() ? 0.0
                          : errors.size() % 2 == 1
                              ? errors[errors.size() / 2]
                              : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
    fmt::print(
        "\nmedian absolute error {:.1f}%, worst {:.1f}% over {} numeric lines; outcomes {}/{} "
        "right (targets: median <= 10%, worst <= 25%)\n",
        100.0 * median,
        errors.empty() ? 0.0 : 100.0 * errors.back(),
        errors.size(),
        outcomes_right,
        outcomes);
    fmt::print("\nnot expressible:\n");
    for (const auto& s : r.skipped) {
      fmt::print("  {}: {}\n", s.id, s.reason);
    }

    // Performance: fit and held-out parts reported separately.
    const auto eff =
        rightsize::Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
    const auto perf = rightsize::accuracy::build_perf_cases(
        validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants);
    fmt::print("\nperformance: {} aggregated serving rows -> {} configurations; {} predictions\n",
               perf.serving_rows_read,
               perf.serving_configurations,
               perf.cases.size());
    std::map<std::string, std::vector<const rightsize::accuracy::PerfCase*>> groups;
    for (const auto& c : perf.cases) {
      groups[c.group + " " + c.metric + (c.held_out ? " held-out" : " fit")].push_back(&c);
      groups[c.group + " " + c.metric + " " + c.family + "/" + c.engine +
             (c.held_out ? " held-out" : " fit")]
          .push_back(&c);
    }
    fmt::print("{:<52} {:>6} {:>9} {:>9}\n", "group", "lines", "median", "worst");
    for (const auto& [name, group] : groups) {
      const auto s = rightsize::accuracy::summarize(group, eff);
      fmt::print(
          "{:<52} {:>6} {:>8.1f}% {:>8.1f}%\n", name, s.count, 100.0 * s.median, 100.0 * s.worst);
    }
    if (argc > 2 && std::string(argv[2]) == "--lines") {
      for (const auto& c : perf.cases) {
        const double p = c.predict(eff);
        fmt::print("{} {} measured {:.4g} predicted {:.4g} error {:+.0f}%\n",
                   c.id,
                   c.metric,
                   c.measured,
                   p,
                   100.0 * (p - c.measured) / c.measured);
      }
    }
    fmt::print("\nperformance lines not expressible:\n");
    for (const auto& s : perf.skipped) {
      fmt::print("  {}: {}\n", s.id, s.reason);
    }
  } catch (const std::exception& e) {
    std::cerr << "rightsize_accuracy: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
