// Accuracy of the estimator against ../shared/validation and the project's own H200 measurements
// (data/measured/h200-sxm.json): prints measured, predicted and error per line, with the median
// and worst absolute percentage error.
// Usage: rightsize_accuracy [VALIDATION_DIR] [--lines] [--bands FILE] [--coverage]
//   --lines       every performance line with its error, and every published run's
//   --bands FILE  write the uncertainty bands derived from the held-out lines and the
//                 leave-one-group-out refits (data/uncertainty.json; derivation in
//                 docs/accuracy.md, "Uncertainty bands")
//   --coverage    per group of every dimension, the share of held-out lines inside the band the
//                 library prints (data/uncertainty.json as bundled), with the transfer ratios
//   --logo-rounds N  the fitter's rounds per leave-one-group-out refit (default 40, as
//   rightsize_fit)

#include "accuracy/amd_cases.hpp"
#include "accuracy/disaggregated_cases.hpp"
#include "accuracy/logo.hpp"
#include "accuracy/measured_cases.hpp"
#include "accuracy/memory_cases.hpp"
#include "accuracy/perf_cases.hpp"
#include "accuracy/published_cases.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>

namespace {

// Bands need this many held-out lines in a family/engine group before the group gets its own; the
// rest take the transfer band of what they lack (leave-one-group-out; docs/accuracy.md).
constexpr int k_min_group_lines = 20;

nlohmann::json band_entry(double low, double high, int lines) {
  const auto round4 = [](double v) { return std::round(v * 1e4) / 1e4; };
  return {{"low_ratio", round4(low)}, {"high_ratio", round4(high)}, {"lines", lines}};
}

// Training step time from every measured training line the project has: the Megatron 2021
// (achieved TFLOP/s) and 2022 (MFU) tables, whose step-time ratio is predicted / measured (a step
// is inverse to its throughput), and our own H200 fine-tuning steps (measured / predicted).
// Fewer than k_min_group_lines lines give no percentiles worth the name: the band is then
// unsized, the envelope of every line's ratio widened by k_unsized_margin on each side.
constexpr double k_unsized_margin = 1.1;

nlohmann::json step_time_band(const rightsize::accuracy::PerfCases& perf,
                              const rightsize::Efficiency& eff) {
  std::vector<double> ratios;
  for (const auto& c : perf.cases) {
    if (c.group == "megatron") {
      ratios.push_back(c.predict(eff) / c.measured);
    } else if (c.group == "h200-train") {
      ratios.push_back(c.measured / c.predict(eff));
    }
  }
  const int lines = static_cast<int>(ratios.size());
  if (lines >= k_min_group_lines) {
    std::sort(ratios.begin(), ratios.end());
    const auto at = [&](double q) { return ratios[static_cast<std::size_t>(q * (lines - 1))]; };
    return band_entry(std::min(1.0, at(0.1)), std::max(1.0, at(0.9)), lines);
  }
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  auto e = band_entry(
      std::min(1.0, *lo) / k_unsized_margin, std::max(1.0, *hi) * k_unsized_margin, lines);
  e["unsized"] = true;
  e["reason"] = fmt::format("{} measured training lines (Megatron 2021 and 2022 tables, our H200 "
                            "fine-tuning runs), fewer than {}: the envelope of their ratios, "
                            "widened x{:g}",
                            lines,
                            k_min_group_lines,
                            k_unsized_margin);
  return e;
}

// Serving TTFT and TPOT per family/engine and overall; training step time from every measured
// training line (step_time_band); memory from the held-out numeric memory lines.
nlohmann::json derive_bands(const rightsize::accuracy::PerfCases& perf,
                            const rightsize::accuracy::MemoryResults& memory,
                            const rightsize::Efficiency& eff,
                            const nlohmann::json& transfer) {
  using rightsize::accuracy::PerfCase;
  std::map<std::string, std::map<std::string, std::vector<const PerfCase*>>> groups;
  for (const auto& c : perf.cases) {
    if (!c.held_out) {
      continue;
    }
    if (c.group == "serving" && (c.metric == "ttft" || c.metric == "tpot")) {
      groups[c.metric]["all"].push_back(&c);
      groups[c.metric][c.family + "/" + c.engine].push_back(&c);
    }
  }
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [metric, by_group] : groups) {
    for (const auto& [name, cases] : by_group) {
      if (name != "all" && static_cast<int>(cases.size()) < k_min_group_lines) {
        continue;
      }
      const auto s = rightsize::accuracy::summarize(cases, eff);
      metrics[metric][name] = metric == "step_time"
                                  ? band_entry(1.0 / s.ratio_p90, 1.0 / s.ratio_p10, s.count)
                                  : band_entry(s.ratio_p10, s.ratio_p90, s.count);
    }
  }
  metrics["step_time"]["all"] = step_time_band(perf, eff);
  std::vector<double> ratios;
  for (const auto& c : memory.cases) {
    // The H200 lines (transformers' growing KV cache, PyTorch training) compare another quantity
    // (total less the CUDA context) and would widen the band of every engine by their
    // allocator's reserve: they are reported, not used for the band (docs/accuracy.md, "Memory").
    if (!c.outcome && c.held_out && c.id.rfind("h200-", 0) != 0) {
      ratios.push_back(c.measured / c.predicted);
    }
  }
  if (!ratios.empty()) {
    // Too few lines for percentiles: the extremes.
    const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
    metrics["memory"]["all"] = band_entry(*lo, *hi, static_cast<int>(ratios.size()));
  }
  // Calibration: which GPU families (and, serving, engines) the efficiencies were fitted on, on
  // how many measured runs, and the held-out median error. Serving from the aggregated serving
  // table (TTFT and TPOT lines of one configuration count once); training from the Megatron
  // tables (achieved TFLOP/s fitted, MFU held out). Families and engines absent are uncalibrated.
  std::map<std::string, std::map<std::string, std::vector<const PerfCase*>>> by_key;
  for (const auto& c : perf.cases) {
    // Our own H200 measurements of transformers' generate count as serving runs.
    const bool serving_run = c.group == "serving" || c.group == "h200-generate";
    if (serving_run && (c.metric == "tpot" || c.metric == "ttft")) {
      by_key["serving/" + c.family + "/" + c.engine][c.metric + (c.held_out ? "/held" : "/fit")]
          .push_back(&c);
    } else if (c.group == "trtllm-table" || c.group == rightsize::accuracy::k_amd_group) {
      by_key["serving/" + c.family + "/" + c.engine][c.held_out ? "table/held" : "table/fit"]
          .push_back(&c);
    } else if (c.group == "megatron") {
      by_key["training/" + c.family][c.held_out ? "held" : "fit"].push_back(&c);
    }
  }
  nlohmann::json calibration = {{"serving", nlohmann::json::object()},
                                {"training", nlohmann::json::object()}};
  const auto round4 = [](double v) { return std::round(v * 1e4) / 1e4; };
  const auto count = [](const auto& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0 : static_cast<int>(it->second.size());
  };
  const auto median = [&](const auto& m, const std::string& k) -> nlohmann::json {
    const auto it = m.find(k);
    if (it == m.end() || it->second.empty()) {
      return nullptr;
    }
    return round4(rightsize::accuracy::summarize(it->second, eff).median);
  };
  for (const auto& [key, parts] : by_key) {
    if (key.rfind("serving/", 0) == 0) {
      // The serving table's runs (a TPOT and a TTFT line each) and TensorRT-LLM's published
      // throughput and first-token tables (one line each); medians only where held-out lines are.
      nlohmann::json entry = {
          {"fit_runs", count(parts, "tpot/fit") + count(parts, "table/fit")},
          {"held_out_runs", count(parts, "tpot/held") + count(parts, "table/held")}};
      for (const auto& [field, part] : {std::pair{"tpot_median_error", "tpot/held"},
                                        {"ttft_median_error", "ttft/held"},
                                        {"table_median_error", "table/held"}}) {
        if (auto m = median(parts, part); !m.is_null()) {
          entry[field] = m;
        }
      }
      calibration["serving"][key.substr(8)] = entry;
    } else {
      nlohmann::json entry = {{"fit_runs", count(parts, "fit")},
                              {"held_out_runs", count(parts, "held")}};
      if (auto m = median(parts, "held"); !m.is_null()) {
        entry["median_error"] = m;
      }
      calibration["training"][key.substr(9)] = entry;
    }
  }
  return {{"schema_version", 2},
          {"description",
           "Uncertainty bands of rightsize's predictions: a prediction p is reported with "
           "[p x low_ratio, p x high_ratio], the 10th and 90th percentiles of measured / "
           "predicted over the held-out lines of ../shared/validation (docs/accuracy.md). A "
           "GPU family and engine pair without a band of its own takes the transfer band of "
           "what it lacks (transfer: leave-one-group-out refits); uncalibrated_widening now "
           "widens only the step-time band of families without training runs."},
          {"generated_by", "build/bench/rightsize_accuracy --bands data/uncertainty.json"},
          {"coverage", 0.8},
          {"min_group_lines", k_min_group_lines},
          {"uncalibrated_widening", 1.5},
          {"transfer", transfer},
          {"metrics", metrics},
          {"calibration", calibration}};
}

// The leave-one-group-out refits (bench/accuracy/logo.hpp) and their transfer bands, timed.
nlohmann::json derive_transfer(const rightsize::accuracy::PerfCases& perf,
                               const rightsize::Efficiency& eff,
                               int rounds) {
  const auto t0 = std::chrono::steady_clock::now();
  rightsize::accuracy::LogoOptions options;
  options.max_rounds = rounds;
  const auto groups = rightsize::accuracy::leave_one_group_out(perf, eff, options);
  for (const auto& g : groups) {
    fmt::print("leave out {} {}: refit in {:.1f} s\n", g.dimension, g.name, g.seconds);
  }
  fmt::print("leave-one-group-out: {} refits in {:.1f} s\n",
             groups.size(),
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  auto transfer = rightsize::accuracy::transfer_bands(groups);
  transfer["layout"] = rightsize::accuracy::disaggregated_transfer(perf.disaggregated, eff);
  transfer["layout"]["groups"]["attention_dp"] =
      rightsize::accuracy::attention_dp_band(perf.attention_dp, eff);
  transfer["description"] =
      "Leave-one-group-out: per dimension, the efficiencies refitted (bench/accuracy/fit.cpp) with "
      "one whole group out of the fit set, its lines predicted; measured / predicted pooled over "
      "the groups (p10, p90). A held-out GPU family or engine takes the mean parameters of the "
      "other fitted ones. coverage: the share of a group's lines inside the band pooled from the "
      "other groups of its dimension.";
  transfer["max_rounds"] = rounds;
  return transfer;
}

// The published measurements (data/published), every run predicted as `rightsize compare` does
// (docs/accuracy.md, "Published results").
void print_published(const rightsize::Catalog& catalog,
                     const rightsize::Constants& constants,
                     const rightsize::Efficiency& eff,
                     bool lines) {
  const auto uncertainty =
      rightsize::Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
  const auto published = rightsize::accuracy::run_published_cases(std::string(RIGHTSIZE_DATA_DIR) +
                                                                      "/published/published.json",
                                                                  RIGHTSIZE_CONFIGS_DIR,
                                                                  catalog,
                                                                  constants,
                                                                  eff,
                                                                  uncertainty);
  fmt::print("\npublished: {} runs (output tokens/s; error = predicted / published - 1)\n",
             published.rows.size());
  fmt::print("{:<64} {:>5} {:>5} {:>8} {:>8} {:>8}\n",
             "group",
             "runs",
             "unpr.",
             "median",
             "bias",
             "worst");
  for (const auto& g : published.groups) {
    fmt::print("{:<64} {:>5} {:>5} {:>7.1f}% {:>+7.1f}% {:>7.1f}%\n",
               g.name,
               g.runs,
               g.unpredicted,
               100.0 * g.median_abs_error,
               100.0 * g.median_error,
               100.0 * g.worst);
  }
  if (lines) {
    for (const auto& p : published.rows) {
      if (p.predicted) {
        fmt::print("{} published {:.6g} predicted {:.6g} error {:+.0f}%\n",
                   p.result.id,
                   p.result.output_tokens_per_s,
                   *p.predicted,
                   100.0 * p.error());
      } else {
        fmt::print("{} published {:.6g} not predicted: {}\n",
                   p.result.id,
                   p.result.output_tokens_per_s,
                   p.unpredicted);
      }
    }
  }
}

// The performance lines by group, metric and part (fit, held-out), and by family/engine and
// (AMD rows) source: median and worst absolute error.
void print_groups(const rightsize::accuracy::PerfCases& perf, const rightsize::Efficiency& eff) {
  std::map<std::string, std::vector<const rightsize::accuracy::PerfCase*>> groups;
  for (const auto& c : perf.cases) {
    groups[c.group + " " + c.metric + (c.held_out ? " held-out" : " fit")].push_back(&c);
    groups[c.group + " " + c.metric + " " + c.family + "/" + c.engine +
           (c.held_out ? " held-out" : " fit")]
        .push_back(&c);
    if (c.group == rightsize::accuracy::k_amd_group) {
      groups[c.group + " " + c.metric + " " + rightsize::accuracy::amd_source(c) +
             (c.held_out ? " held-out" : " fit")]
          .push_back(&c);
    }
  }
  fmt::print("{:<52} {:>6} {:>9} {:>9}\n", "group", "lines", "median", "worst");
  for (const auto& [name, group] : groups) {
    const auto s = rightsize::accuracy::summarize(group, eff);
    fmt::print(
        "{:<52} {:>6} {:>8.1f}% {:>8.1f}%\n", name, s.count, 100.0 * s.median, 100.0 * s.worst);
  }
}

// The data-parallel attention lines, never fitted: median absolute error and the p10-p90 of
// measured / predicted, per family/engine and overall (docs/accuracy.md).
void print_attention_dp(const rightsize::accuracy::PerfCases& perf,
                        const rightsize::Efficiency& eff) {
  std::map<std::string, std::vector<const rightsize::accuracy::PerfCase*>> groups;
  for (const auto& c : perf.attention_dp) {
    groups[c.metric + " " + c.family + "/" + c.engine].push_back(&c);
    groups[c.metric + " all"].push_back(&c);
  }
  fmt::print("\nattention data-parallel lines (never fitted; measured / predicted p10-p90):\n");
  for (const auto& [name, group] : groups) {
    const auto s = rightsize::accuracy::summarize(group, eff);
    fmt::print("  serving {:<40} {:>6} {:>8.1f}%  ratio {:.2f}-{:.2f}\n",
               name,
               s.count,
               100.0 * s.median,
               s.ratio_p10,
               s.ratio_p90);
  }
}

// The disaggregated prefill/decode runs, never fitted: median absolute error, the p10-p90 of
// measured / predicted and the share inside the disaggregated band (data/uncertainty.json
// transfer.layout) per engine/family and overall (docs/accuracy.md, "Disaggregated serving").
void print_disaggregated(const rightsize::accuracy::PerfCases& perf,
                         const rightsize::Efficiency& eff) {
  std::map<std::string, std::vector<const rightsize::accuracy::PerfCase*>> groups;
  for (const auto& c : perf.disaggregated) {
    groups[c.metric + " " + c.family + "/" + c.engine].push_back(&c);
    groups[c.metric + " all"].push_back(&c);
  }
  const auto u =
      rightsize::Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
  fmt::print("\ndisaggregated prefill/decode lines (never fitted; measured / predicted p10-p90; "
             "inside the disaggregated band):\n");
  for (const auto& [name, group] : groups) {
    const auto s = rightsize::accuracy::summarize(group, eff);
    int inside = 0;
    for (const auto* c : group) {
      const rightsize::RatioBand b =
          u.disaggregated(u.band(c->metric, c->family, c->engine), c->metric);
      const double p = c->predict(eff);
      inside += c->measured >= p * b.low_ratio && c->measured <= p * b.high_ratio ? 1 : 0;
    }
    fmt::print("  serving {:<40} {:>6} {:>8.1f}%  ratio {:.2f}-{:.2f}  in band {:.0f}%\n",
               name,
               s.count,
               100.0 * s.median,
               s.ratio_p10,
               s.ratio_p90,
               100.0 * inside / static_cast<double>(group.size()));
  }
}

} // namespace

int main(int argc, char** argv) {
  std::string validation = RIGHTSIZE_VALIDATION_DIR;
  bool lines = false;
  bool coverage = false;
  int logo_rounds = 40;
  std::string bands_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lines") {
      lines = true;
    } else if (a == "--bands" && i + 1 < argc) {
      bands_file = argv[++i];
    } else if (a == "--coverage") {
      coverage = true;
    } else if (a == "--logo-rounds" && i + 1 < argc) {
      logo_rounds = std::stoi(argv[++i]);
    } else {
      validation = a;
    }
  }
  try {
    const auto catalog = rightsize::load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const auto constants =
        rightsize::Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    auto r = rightsize::accuracy::run_memory_cases(
        validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants);
    rightsize::accuracy::append_measured_memory_cases(r,
                                                      std::string(RIGHTSIZE_DATA_DIR) +
                                                          "/measured/h200-sxm.json",
                                                      RIGHTSIZE_CONFIGS_DIR,
                                                      catalog,
                                                      constants);
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
    auto perf = rightsize::accuracy::build_perf_cases(
        validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants, eff);
    rightsize::accuracy::append_measured_cases(perf,
                                               std::string(RIGHTSIZE_DATA_DIR) +
                                                   "/measured/h200-sxm.json",
                                               RIGHTSIZE_CONFIGS_DIR,
                                               catalog,
                                               constants,
                                               eff);
    rightsize::accuracy::append_amd_cases(perf,
                                          std::string(RIGHTSIZE_DATA_DIR) +
                                              "/measured/cdna3-public.csv",
                                          std::string(RIGHTSIZE_DATA_DIR) + "/..",
                                          catalog,
                                          constants,
                                          eff);
    rightsize::accuracy::append_disaggregated_cases(
        perf, validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants, eff);
    fmt::print("\nperformance: {} aggregated serving rows -> {} configurations; {} predictions\n",
               perf.serving_rows_read,
               perf.serving_configurations,
               perf.cases.size());
    print_groups(perf, eff);
    print_attention_dp(perf, eff);
    print_disaggregated(perf, eff);
    if (!bands_file.empty()) {
      const auto transfer = derive_transfer(perf, eff, logo_rounds);
      std::ofstream(bands_file) << derive_bands(perf, r, eff, transfer).dump(2) << '\n';
      fmt::print("\nbands written to {}\n", bands_file);
    }
    if (coverage) {
      const std::string file = std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json";
      const auto u = rightsize::Uncertainty::load(file);
      nlohmann::json raw = nlohmann::json::parse(std::ifstream(file));
      rightsize::accuracy::print_coverage(rightsize::accuracy::band_coverage(perf, eff, u),
                                          raw.value("transfer", nlohmann::json::object()));
    }
    if (lines) {
      std::vector<const rightsize::accuracy::PerfCase*> all;
      for (const auto* list : {&perf.cases, &perf.attention_dp, &perf.disaggregated}) {
        for (const auto& c : *list) {
          all.push_back(&c);
        }
      }
      for (const auto* line : all) {
        const auto& c = *line;
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
    print_published(catalog, constants, eff, lines);
  } catch (const std::exception& e) {
    std::cerr << "rightsize_accuracy: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
