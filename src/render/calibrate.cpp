// rightsize calibrate (include/rightsize/render/calibrate.hpp, docs/calibrate.md).

#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/calibrate.hpp>

#include <fmt/format.h>

namespace rightsize {

namespace {

std::string layout_cell(const Parallelism& p) {
  std::string s = fmt::format("TP{}", p.tp);
  if (p.pp > 1) {
    s += fmt::format(" PP{}", p.pp);
  }
  if (p.ep > 1) {
    s += fmt::format(" EP{}", p.ep);
  }
  if (p.attention_dp > 1) {
    s += fmt::format(" ADP{}", p.attention_dp);
  }
  return s;
}

std::string value_cell(RunMetric m, double v) {
  return m == RunMetric::output_tokens_per_s ? fmt::format("{:.1f} tok/s", v)
                                             : format_seconds(seconds(v));
}

std::string predicted_cell(RunMetric m, const std::optional<double>& p, double measured) {
  if (!p) {
    return "-";
  }
  return fmt::format("{} ({:+.0f}%)", value_cell(m, *p), 100.0 * (*p / measured - 1.0));
}

const std::optional<double>& metric_of(const RunPrediction& p, RunMetric m) {
  return m == RunMetric::ttft ? p.ttft : m == RunMetric::tpot ? p.tpot : p.output_tokens_per_s;
}
const std::optional<double>& metric_of(const RunRecord& r, RunMetric m) {
  return m == RunMetric::ttft ? r.ttft : m == RunMetric::tpot ? r.tpot : r.output_tokens_per_s;
}

std::string metric_label(RunMetric m) {
  return m == RunMetric::ttft ? "TTFT" : m == RunMetric::tpot ? "TPOT" : "output";
}

// A factor's bundled and fitted values, in data/efficiency.json's units.
std::string factor_values(const SiteFit& f, SiteFactor factor) {
  switch (factor) {
  case SiteFactor::memory:
    return fmt::format("{:.3f} -> {:.3f}", f.bundled_family.memory, f.family_efficiency.memory);
  case SiteFactor::compute:
    return fmt::format("{:.3f} -> {:.3f}", f.bundled_family.compute, f.family_efficiency.compute);
  case SiteFactor::fixed_overhead:
    return fmt::format("{:.1f} us/layer + {:.3f} ms/step -> {:.1f} us/layer + {:.3f} ms/step",
                       f.bundled_overhead.per_layer.si() * 1e6,
                       to_ms(f.bundled_overhead.per_step),
                       f.overhead.per_layer.si() * 1e6,
                       to_ms(f.overhead.per_step));
  case SiteFactor::ttft_overhead:
    return fmt::format("{:.1f} ms -> {:.1f} ms",
                       to_ms(f.bundled_overhead.per_request),
                       to_ms(f.overhead.per_request));
  case SiteFactor::ttft_wave_factor:
    return fmt::format("{:.3f} -> {:.3f}", f.bundled_overhead.wave_factor, f.overhead.wave_factor);
  case SiteFactor::prefill_interference:
    return fmt::format("{:.3f} -> {:.3f}",
                       f.bundled_overhead.prefill_interference,
                       f.overhead.prefill_interference);
  }
  return "";
}

} // namespace

void render_calibrate_table(const CalibrationReport& r, std::ostream& out) {
  out << fmt::format("Calibration: {} run{} ({} added{}{}){}\n",
                     r.runs.size(),
                     r.runs.size() == 1 ? "" : "s",
                     r.added,
                     r.replaced > 0 ? fmt::format(", {} replaced", r.replaced) : std::string(),
                     r.kept > 0 ? fmt::format(", {} kept from the file", r.kept) : std::string(),
                     r.output.empty() ? std::string(" (no -o: nothing written)")
                                      : " -> " + detail::valid_utf8(r.output));
  out << "\nRuns, measured against rightsize's prediction (bundled, then calibrated):\n";
  out << fmt::format("  {:<34} {:<14} {:<8} {:<16} {:<6} {:>13} {:>21} {:>21}\n",
                     "run",
                     "GPU",
                     "layout",
                     "in/out @ conc",
                     "metric",
                     "measured",
                     "bundled",
                     "calibrated");
  for (const auto& run : r.runs) {
    bool first = true;
    for (const auto& [metric, name] : k_run_metric_rows) {
      const auto& measured = metric_of(run.record, metric);
      if (!measured) {
        continue;
      }
      out << fmt::format("  {:<34} {:<14} {:<8} {:<16} {:<6} {:>13} {:>21} {:>21}\n",
                         first ? detail::valid_utf8(run.record.result) : "",
                         first ? run.record.gpu : "",
                         first ? layout_cell(run.record.layout) : "",
                         first ? fmt::format("{}/{} @ {}",
                                             run.record.load.input_tokens,
                                             run.record.load.output_tokens,
                                             run.record.load.concurrency)
                               : "",
                         metric_label(metric),
                         value_cell(metric, *measured),
                         predicted_cell(metric, metric_of(run.bundled, metric), *measured),
                         predicted_cell(metric, metric_of(run.calibrated, metric), *measured));
      first = false;
    }
  }
  for (const auto& f : r.fits) {
    out << fmt::format("\nSite factors for {}/{}/{} ({} run{}):\n",
                       f.family,
                       f.engine,
                       f.model_kind,
                       f.runs.size(),
                       f.runs.size() == 1 ? "" : "s");
    for (const SiteFactor s : f.fitted) {
      out << fmt::format(
          "  {:<21} fitted      {}\n", k_site_factor_names.name(s), factor_values(f, s));
    }
    for (const auto& h : f.held) {
      out << fmt::format("  {:<21} not fitted  {}\n", k_site_factor_names.name(h.factor), h.why);
    }
    if (f.leave_one_out.empty()) {
      out << "  Leave-one-run-out error: needs two runs or more\n";
    } else {
      out << "  Leave-one-run-out median error (each run predicted by a fit on the others):\n";
      for (const auto& e : f.leave_one_out) {
        out << fmt::format("    {:<20} {:>3} run{}  bundled {:>4.0f}%  calibrated {:>4.0f}%\n",
                           e.metric,
                           e.lines,
                           e.lines == 1 ? " " : "s",
                           100.0 * e.before,
                           100.0 * e.after);
      }
    }
    out << fmt::format("  80% bands: TTFT x{:.2f} to x{:.2f}, TPOT x{:.2f} to x{:.2f} ({})\n",
                       f.ttft.low_ratio,
                       f.ttft.high_ratio,
                       f.tpot.low_ratio,
                       f.tpot.high_ratio,
                       f.tpot.basis);
  }
}

void render_calibrate_json(const CalibrationReport& r, std::ostream& out) {
  std::vector<RunRecord> records;
  for (const auto& run : r.runs) {
    records.push_back(run.record);
  }
  nlohmann::json doc = calibration_document(records, r.fits);
  nlohmann::json report = {
      {"output",
       r.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(detail::valid_utf8(r.output))},
      {"added", r.added},
      {"replaced", r.replaced},
      {"kept", r.kept}};
  // Each run's predictions, in the order of calibration.runs (the file itself has none).
  nlohmann::json predictions = nlohmann::json::array();
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    nlohmann::json predicted = {{"result", detail::valid_utf8(r.runs[i].record.result)}};
    for (const auto& [metric, name] : k_run_metric_rows) {
      if (metric_of(r.runs[i].record, metric)) {
        predicted[std::string(name)] = {
            {"bundled", metric_of(r.runs[i].bundled, metric).value_or(0.0)},
            {"calibrated", metric_of(r.runs[i].calibrated, metric).value_or(0.0)}};
      }
    }
    predictions.push_back(predicted);
  }
  report["predictions"] = predictions;
  report["calibration"] = doc;
  out << detail::dump_json(report, 2) << "\n";
}

} // namespace rightsize
