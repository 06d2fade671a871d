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
  RunMetric metric;
  double before; // |error| of the bundled prediction
  double after;  // |error| of the calibrated one
  bool in_band;  // inside the calibrated 80% band
};

double median(std::vector<double> v) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

SiteCalibration as_calibration(const std::vector<SiteFit>& fits, long long runs) {
  SiteCalibration c;
  c.file = "loo";
  c.runs = runs;
  for (const auto& f : fits) {
    c.factors.push_back(to_site_factors(f));
  }
  return c;
}

} // namespace

int main(int argc, char** argv) {
  bool held_only = false;
  bool per_series = false;
  for (int i = 1; i < argc; ++i) {
    held_only = held_only || std::strcmp(argv[i], "--held-out-only") == 0;
    per_series = per_series || std::strcmp(argv[i], "--series") == 0;
  }
  try {
    const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    const auto eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
    const auto unc = Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
    const auto cases =
        build_perf_cases(RIGHTSIZE_VALIDATION_DIR, RIGHTSIZE_CONFIGS_DIR, catalog, constants, eff);
    // id "serving:model|system|backend|version|precision|gemm|isl|osl|batch|tp|ep[|adp]":
    // the series is the id without its batch.
    std::map<std::string, std::map<long long, CalibrationRun>> series;
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
    std::vector<Line> lines;
    int used = 0;
    for (auto& [key, by_batch] : series) {
      if (by_batch.size() < 3) {
        continue;
      }
      for (auto& [batch, run] : by_batch) {
        if (run.ttft && run.tpot) {
          const double osl = static_cast<double>(run.load.output_tokens);
          run.output_tokens_per_s =
              static_cast<double>(batch) * osl / (*run.ttft + (osl - 1) * *run.tpot);
        }
      }
      const std::vector<CalibrationRun> fit_runs{by_batch.begin()->second,
                                                 by_batch.rbegin()->second};
      std::vector<SiteFit> fits;
      try {
        fits = fit_sites(fit_runs, eff, unc, constants);
      } catch (const InputError&) {
        continue;
      }
      ++used;
      const SiteCalibration cal = as_calibration(fits, 2);
      for (auto it = std::next(by_batch.begin()); it != std::prev(by_batch.end()); ++it) {
        const CalibrationRun& run = it->second;
        Efficiency calibrated = eff;
        Uncertainty bands = unc;
        apply_site_calibration(cal, run.spec, calibrated, bands);
        RunPrediction before;
        RunPrediction after;
        try {
          before = predict_run(run, eff, unc, constants);
          after = predict_run(run, calibrated, bands, constants);
        } catch (const InputError&) {
          continue;
        }
        const SiteFactors& f = cal.factors.front();
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
                           m,
                           std::abs(*b / *measured - 1),
                           std::abs(*a / *measured - 1),
                           ratio >= band.low_ratio && ratio <= band.high_ratio});
          if (per_series) {
            fmt::print("{} c={} {} measured {:.4g} bundled {:.4g} calibrated {:.4g}\n",
                       key,
                       it->first,
                       k_run_metric_names.name(m),
                       *measured,
                       *b,
                       *a);
          }
        };
        add(RunMetric::ttft, run.ttft, before.ttft, after.ttft, f.ttft, false);
        add(RunMetric::tpot, run.tpot, before.tpot, after.tpot, f.tpot, false);
        add(RunMetric::output_tokens_per_s,
            run.output_tokens_per_s,
            before.output_tokens_per_s,
            after.output_tokens_per_s,
            f.tpot,
            true);
      }
    }
    fmt::print("series calibrated on their lowest and highest concurrency: {}{}\n\n",
               used,
               held_only ? " (held-out lines only)" : "");
    fmt::print("| group | metric | lines | median error, bundled | calibrated | in 80% band |\n");
    fmt::print("|---|---|---:|---:|---:|---:|\n");
    std::map<std::pair<std::string, RunMetric>, std::vector<const Line*>> groups;
    for (const auto& l : lines) {
      groups[{l.group, l.metric}].push_back(&l);
      groups[{"all", l.metric}].push_back(&l);
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
  } catch (const std::exception& e) {
    fmt::print(stderr, "rightsize_calibration_loo: {}\n", e.what());
    return 1;
  }
  return 0;
}
