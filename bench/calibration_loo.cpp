// The site-calibration check (docs/calibrate.md, "How well it works"): issue 45's protocol on
// ../shared/validation/serving_measured.csv. Each series of one model, GPU, engine, version,
// precision, lengths and layout measured at three or more concurrencies is calibrated on its
// lowest and highest concurrency (calibrate's fit_sites) and the others are predicted with the
// calibration installed as `--calibration` installs it; each is compared with the bundled
// prediction. Output tokens/s is derived from the measured means (concurrency x output /
// (TTFT + (output - 1) x TPOT)): the file has no throughput column.
//
//   build/bench/rightsize_calibration_loo [--held-out-only] [--series]

#include "accuracy/perf_cases.hpp"

#include <rightsize/calibrate/fit.hpp>
#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/site_calibration.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace rightsize;
using namespace rightsize::accuracy;

namespace {

struct Line {
  std::string group; // gpu family/engine
  std::string kind;  // the model's (ModelArch::kind)
  RunMetric metric;
  double before;            // |error| of the bundled prediction
  double after;             // |error| of the calibrated one
  bool in_band;             // inside the calibrated 80% band
  std::string differs = {}; // --transfer: how the predicted series differs from the calibrated
};

double median(std::vector<double> v) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

SiteCalibration as_calibration(const std::vector<SiteFit>& fits,
                               const std::vector<CalibrationRun>& runs) {
  SiteCalibration c;
  c.file = "loo";
  c.runs = static_cast<long long>(runs.size());
  for (const auto& f : fits) {
    c.factors.push_back(to_site_factors(f));
    for (const std::size_t i : f.runs) {
      const CalibrationRun& r = runs[i];
      c.factors.back().measured.push_back({r.gpu.name,
                                           r.spec.model.params_total,
                                           std::string(to_string(r.spec.precision.weights)),
                                           std::string(to_string(r.spec.precision.kv_cache)),
                                           r.layout.tp,
                                           r.layout.pp,
                                           r.layout.ep,
                                           r.layout.attention_dp,
                                           r.load.input_tokens,
                                           r.load.output_tokens,
                                           r.load.concurrency});
    }
  }
  return c;
}

using Series = std::map<std::string, std::map<long long, CalibrationRun>>;

// The serving lines as runs, by series (the id without its batch) and concurrency.
Series series_of(const PerfCases& cases, bool held_only) {
  // id "serving:model|system|backend|version|precision|gemm|isl|osl|batch|tp|ep[|adp]":
  // the series is the id without its batch.
  Series series;
  for (const auto& c : cases.cases) {
    if (c.group != "serving" || !c.serving.prepared || (held_only && !c.held_out)) {
      continue;
    }
    std::vector<std::string> f;
    for (std::size_t at = 0, next; at <= c.id.size(); at = next + 1) {
      next = c.id.find('|', at);
      next = next == std::string::npos ? c.id.size() : next;
      f.push_back(c.id.substr(at, next - at));
    }
    const long long batch = std::stoll(f[8]);
    f.erase(f.begin() + 8);
    std::string key;
    for (const auto& part : f) {
      key += part + "|";
    }
    auto& run = series[key][batch];
    if (run.name.empty()) {
      run.name = c.id;
      run.spec = c.serving.prepared->spec;
      run.gpu = c.serving.prepared->gpu;
      run.layout = c.serving.prepared->p;
      run.family = c.family;
      run.load = {run.spec.workload.inference.input_tokens,
                  run.spec.workload.inference.output_tokens,
                  batch,
                  LoadSource::max_concurrency};
    }
    (c.metric == "ttft" ? run.ttft : run.tpot) = c.measured / 1e3;
  }
  return series;
}

void print_table(const std::vector<Line>& lines) {
  fmt::print("| group | metric | lines | median error, bundled | calibrated | in 80% band |\n");
  fmt::print("|---|---|---:|---:|---:|---:|\n");
  std::map<std::pair<std::string, RunMetric>, std::vector<const Line*>> groups;
  for (const auto& l : lines) {
    groups[{l.group, l.metric}].push_back(&l);
    groups[{"all", l.metric}].push_back(&l);
    groups[{"model kind: " + l.kind, l.metric}].push_back(&l);
    if (!l.differs.empty()) {
      groups[{l.differs, l.metric}].push_back(&l);
    }
  }
  for (const auto& [k, ls] : groups) {
    std::vector<double> b;
    std::vector<double> a;
    double in = 0;
    for (const auto* l : ls) {
      b.push_back(l->before);
      a.push_back(l->after);
      in += l->in_band ? 1 : 0;
    }
    fmt::print("| {} | {} | {} | {:.1f}% | {:.1f}% | {:.0f}% |\n",
               k.first,
               k_run_metric_names.name(k.second),
               ls.size(),
               100 * median(b),
               100 * median(a),
               100 * in / static_cast<double>(ls.size()));
  }
}

// How series `b` differs from `a` (keys "model|system|backend|version|precision|gemm|isl|osl|
// tp|ep[|adp]|"), the first difference in this order.
std::string difference(const std::string& a, const std::string& b) {
  const auto fields = [](const std::string& key) {
    std::vector<std::string> f;
    for (std::size_t at = 0, next; (next = key.find('|', at)) != std::string::npos; at = next + 1) {
      f.push_back(key.substr(at, next - at));
    }
    return f;
  };
  const auto x = fields(a);
  const auto y = fields(b);
  if (x[0] != y[0]) {
    return "transfer: another model";
  }
  if (x[6] != y[6] || x[7] != y[7]) {
    return "transfer: same model, other lengths";
  }
  if (x[1] != y[1]) {
    return "transfer: same model and lengths, another GPU";
  }
  if (x[8] != y[8] || x[9] != y[9]) {
    return "transfer: same model, lengths and GPU, another layout";
  }
  return "transfer: same model, lengths, GPU and layout, another version or precision";
}

struct Data {
  Constants constants;
  Efficiency eff;
  Uncertainty unc;
};

// One run predicted with and without the calibration: its lines (none when it does not fit).
void compare_run(const CalibrationRun& run,
                 const SiteCalibration& cal,
                 const Data& d,
                 std::vector<Line>& lines,
                 const std::string* print_key) {
  Efficiency calibrated = d.eff;
  Uncertainty bands = d.unc;
  if (apply_site_calibration(cal, run.spec, calibrated, bands) == 0) {
    return;
  }
  RunPrediction before;
  RunPrediction after;
  try {
    before = predict_run(run, d.eff, d.unc, d.constants);
    after = predict_run(run, calibrated, bands, d.constants);
  } catch (const InputError&) {
    return;
  }
  const SiteFactors& f = cal.factors.front();
  // The bands estimate prints: the site's own inside what it measured, else enveloped.
  const auto* inside = bands.measured_site(
      run.family, f.engine, run.gpu, run.layout, run.spec, run.load.concurrency);
  const RatioBand ttft_band =
      inside ? inside->measured_ttft : bands.band("ttft", f.family, f.engine);
  const RatioBand tpot_band =
      inside ? inside->measured_tpot : bands.band("tpot", f.family, f.engine);
  const auto add = [&](RunMetric m,
                       const std::optional<double>& measured,
                       const std::optional<double>& b,
                       const std::optional<double>& a,
                       const RatioBand& band,
                       bool inverse) {
    if (!measured || !b || !a) {
      return;
    }
    const double ratio = inverse ? *a / *measured : *measured / *a;
    lines.push_back({run.family + "/" + f.engine,
                     f.model_kind,
                     m,
                     std::abs(*b / *measured - 1),
                     std::abs(*a / *measured - 1),
                     ratio >= band.low_ratio && ratio <= band.high_ratio});
    if (print_key != nullptr) {
      fmt::print("{} c={} {} measured {:.4g} bundled {:.4g} calibrated {:.4g}\n",
                 *print_key,
                 run.load.concurrency,
                 k_run_metric_names.name(m),
                 *measured,
                 *b,
                 *a);
    }
  };
  add(RunMetric::ttft, run.ttft, before.ttft, after.ttft, ttft_band, false);
  add(RunMetric::tpot, run.tpot, before.tpot, after.tpot, tpot_band, false);
  add(RunMetric::output_tokens_per_s,
      run.output_tokens_per_s,
      before.output_tokens_per_s,
      after.output_tokens_per_s,
      tpot_band,
      true);
}

// Each series of three loads or more calibrated on its lowest and highest.
std::map<std::string, SiteCalibration> calibrate_series(Series& series, const Data& d) {
  std::map<std::string, SiteCalibration> out;
  for (auto& [key, by_batch] : series) {
    for (auto& [batch, run] : by_batch) {
      if (run.ttft && run.tpot) {
        const double osl = static_cast<double>(run.load.output_tokens);
        run.output_tokens_per_s =
            static_cast<double>(batch) * osl / (*run.ttft + (osl - 1) * *run.tpot);
      }
    }
    if (by_batch.size() < 3) {
      continue;
    }
    const std::vector<CalibrationRun> fit_runs{by_batch.begin()->second, by_batch.rbegin()->second};
    try {
      out.emplace(key, as_calibration(fit_sites(fit_runs, d.eff, d.unc, d.constants), fit_runs));
    } catch (const InputError&) {
      continue;
    }
  }
  return out;
}

} // namespace

int main(int argc, char** argv) {
  bool held_only = false;
  bool per_series = false;
  bool transfer = false;
  for (int i = 1; i < argc; ++i) {
    held_only = held_only || std::strcmp(argv[i], "--held-out-only") == 0;
    per_series = per_series || std::strcmp(argv[i], "--series") == 0;
    transfer = transfer || std::strcmp(argv[i], "--transfer") == 0;
  }
  try {
    const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const Data d{Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json"),
                 Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json"),
                 Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json")};
    const auto cases = build_perf_cases(
        RIGHTSIZE_VALIDATION_DIR, RIGHTSIZE_CONFIGS_DIR, catalog, d.constants, d.eff);
    auto series = series_of(cases, held_only);
    const auto calibrations = calibrate_series(series, d);
    std::vector<Line> lines;
    for (const auto& [key, cal] : calibrations) {
      if (!transfer) {
        // The loads between the two calibrated ones.
        const auto& by_batch = series.at(key);
        for (auto it = std::next(by_batch.begin()); it != std::prev(by_batch.end()); ++it) {
          compare_run(it->second, cal, d, lines, per_series ? &key : nullptr);
        }
        continue;
      }
      // Every load of every other series that the calibration applies to (its GPU family,
      // engine and model kind): other models, lengths, layouts and GPUs of the family.
      for (const auto& [other, by_batch] : series) {
        if (other != key) {
          const std::size_t from = lines.size();
          for (const auto& [batch, run] : by_batch) {
            compare_run(run, cal, d, lines, nullptr);
          }
          const std::string differs = difference(key, other);
          for (std::size_t i = from; i < lines.size(); ++i) {
            lines[i].differs = differs;
          }
        }
      }
    }
    fmt::print("series calibrated on their lowest and highest concurrency: {}{}{}\n\n",
               calibrations.size(),
               held_only ? " (held-out lines only)" : "",
               transfer ? "; each predicting every other series of its GPU family, engine and "
                          "model kind"
                        : "");
    print_table(lines);
  } catch (const std::exception& e) {
    fmt::print(stderr, "rightsize_calibration_loo: {}\n", e.what());
    return 1;
  }
  return 0;
}
