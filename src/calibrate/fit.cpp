// A site's factors fitted on its own runs (fit.hpp; docs/calibrate.md, "The fit").

#include "fields.hpp"

#include <rightsize/calibrate/fit.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/plan/estimate_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <regex>

namespace rightsize {

namespace {

// What a factor's identification needs of the runs (docs/calibrate.md, "What the runs
// determine").
constexpr double k_compute_prompt_tokens = 512; // a prefill this long is mostly GEMMs
constexpr double k_concurrency_spread = 4;      // two loads this far apart move the batch terms
constexpr double k_prompt_spread = 2;           // two prompts this far apart split TTFT's parts
constexpr std::size_t k_interference_loads = 3; // TPOT at this many loads for interference

// The pull toward the bundled values: the loss adds k_pull x (log of the factor's ratio to its
// bundled value)^2 per fitted factor, so 2x away costs 0.0048, a 0.5% error on every line.
// Chosen on bench/calibration_loo.cpp's table among 0.002, 0.01, 0.03 and 0.05 (the median
// TPOT error of two-run calibrations: 6.0%, 6.2%, 7.0%, 7.7%), the middle for a fit that moves
// only what the runs ask.
constexpr double k_pull = 0.01;
// Fewer leave-one-run-out lines than this size no band by percentiles: the band is then their
// envelope, each edge's log ratio widened by k_small_sample_widening. Both were chosen on
// bench/calibration_loo.cpp's table (docs/calibrate.md, "How well it works"): with 1.5 the TPOT
// and throughput bands of two-run calibrations cover 87% and 90% of the other loads' lines.
constexpr std::size_t k_sized_band_lines = 10;
constexpr double k_small_sample_widening = 1.5;
// The narrowest a calibrated band may be, +-5%: the spread of repeated runs of one
// configuration that a site's own benchmark shows (an assumption, not measured here:
// ../shared/validation's repeats are identical to the digit; docs/calibrate.md, "Bands").
constexpr double k_run_noise = 0.05;
// A run's model name that states a size this far from the spec's model's (either way) is another
// model's: 8B against 70B is refused, Mixtral-8x7B (56B by its name) against its 46.7B is not.
constexpr double k_model_size_slack = 1.5;

std::string run_metric_name(RunMetric m) {
  return std::string(k_run_metric_names.name(m));
}

// The values one trial of the fit sets, installed as the site's override of one family.
struct Trial {
  FamilyEfficiency family;
  EngineOverhead overhead;
  double fixed_scale = 1; // of the bundled per-layer and per-step costs
};

struct Parameter {
  SiteFactor factor;
  std::function<double(const Trial&)> get;
  std::function<void(Trial&, double)> set;
  double lo;
  double hi;
  double epsilon; // of the pull's log ratio: 0 is a value for some
};

std::vector<Parameter> parameters(const EngineOverhead& bundled) {
  return {
      {SiteFactor::memory,
       [](const Trial& t) { return t.family.memory; },
       [](Trial& t, double v) { t.family.memory = v; },
       0.05,
       1.0,
       0.0},
      {SiteFactor::compute,
       [](const Trial& t) { return t.family.compute; },
       [](Trial& t, double v) { t.family.compute = v; },
       0.02,
       1.0,
       0.0},
      {SiteFactor::fixed_overhead,
       [](const Trial& t) { return t.fixed_scale; },
       [bundled](Trial& t, double v) {
         t.fixed_scale = v;
         t.overhead.per_layer = bundled.per_layer * v;
         t.overhead.per_step = bundled.per_step * v;
       },
       0.05,
       20.0,
       0.0},
      {SiteFactor::ttft_overhead,
       [](const Trial& t) { return t.overhead.per_request.si(); },
       [](Trial& t, double v) { t.overhead.per_request = seconds(v); },
       0.0,
       5.0,
       1e-3},
      {SiteFactor::ttft_wave_factor,
       [](const Trial& t) { return t.overhead.wave_factor; },
       [](Trial& t, double v) { t.overhead.wave_factor = v; },
       0.0,
       2.0,
       0.01},
      {SiteFactor::prefill_interference,
       [](const Trial& t) { return t.overhead.prefill_interference; },
       [](Trial& t, double v) { t.overhead.prefill_interference = v; },
       0.05,
       1.0,
       0.0},
  };
}

// Distinct values of a run figure among the runs with a measurement, sorted.
std::vector<double> distinct(const std::vector<const CalibrationRun*>& runs,
                             const std::function<bool(const CalibrationRun&)>& measured,
                             const std::function<double(const CalibrationRun&)>& value) {
  std::vector<double> out;
  for (const auto* r : runs) {
    if (measured(*r)) {
      out.push_back(value(*r));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool spread(const std::vector<double>& values, double factor) {
  return values.size() >= 2 && values.back() >= factor * values.front();
}

Efficiency with_trial(Efficiency efficiency,
                      const std::string& family,
                      const std::string& engine,
                      const Trial& t) {
  efficiency.site[family] = {engine, t.family, t.overhead};
  return efficiency;
}

// measured / predicted of each metric a run measured, with the prediction under `efficiency`.
struct Ratio {
  RunMetric metric;
  double measured;
  double predicted;
};
std::vector<Ratio> ratios(const CalibrationRun& run, const RunPrediction& p) {
  std::vector<Ratio> out;
  const auto add = [&](RunMetric m,
                       const std::optional<double>& measured,
                       const std::optional<double>& predicted) {
    if (measured && predicted && *predicted > 0) {
      out.push_back({m, *measured, *predicted});
    }
  };
  add(RunMetric::ttft, run.ttft, p.ttft);
  add(RunMetric::tpot, run.tpot, p.tpot);
  add(RunMetric::output_tokens_per_s, run.output_tokens_per_s, p.output_tokens_per_s);
  return out;
}

struct GroupFit {
  Trial trial;
  std::vector<SiteFactor> fitted;
  std::vector<HeldFactor> held;
};

class Fitter {
public:
  Fitter(const Efficiency& efficiency, const Uncertainty& uncertainty, const Constants& constants)
      : m_efficiency(efficiency), m_uncertainty(uncertainty), m_constants(constants) {}

  RunPrediction predict(const CalibrationRun& run, const Trial* trial) const {
    if (trial == nullptr) {
      return predict_run(run, m_efficiency, m_uncertainty, m_constants);
    }
    return predict_run(run,
                       with_trial(m_efficiency, run.family, engine_name(run.spec), *trial),
                       m_uncertainty,
                       m_constants);
  }

  // The bundled values of `run`'s family and engine, as a trial.
  Trial bundled(const CalibrationRun& run) const {
    Trial t;
    t.family = m_efficiency.families.at(run.family);
    t.overhead = m_efficiency.engine(run.spec.workload.inference.engine);
    return t;
  }

  GroupFit fit(const std::vector<const CalibrationRun*>& runs) const {
    GroupFit g;
    g.trial = bundled(*runs.front());
    determinable(runs, g.fitted, g.held);
    if (g.fitted.empty()) {
      return g;
    }
    const Trial start = g.trial;
    std::vector<Parameter> params;
    for (auto& p : parameters(start.overhead)) {
      if (std::find(g.fitted.begin(), g.fitted.end(), p.factor) != g.fitted.end()) {
        params.push_back(std::move(p));
      }
    }
    const auto loss = [&](const Trial& t) {
      std::map<RunMetric, std::pair<double, int>> by_metric;
      for (const auto* r : runs) {
        for (const auto& q : ratios(*r, predict(*r, &t))) {
          auto& [sum, n] = by_metric[q.metric];
          sum += std::abs(std::log(q.measured / q.predicted));
          ++n;
        }
      }
      double total = 0;
      for (const auto& [m, s] : by_metric) {
        total += s.first / s.second;
      }
      total /= static_cast<double>(std::max<std::size_t>(1, by_metric.size()));
      for (const auto& p : params) {
        const double r = std::log((p.get(t) + p.epsilon) / (p.get(start) + p.epsilon));
        total += k_pull * r * r;
      }
      return total;
    };
    // Coordinate descent as bench/accuracy/fit.cpp's: each factor up and down by `step`, kept
    // when the loss falls; the step halves when a round improves nothing.
    double best = loss(g.trial);
    double step = 0.3;
    for (int round = 0; round < 60 && step > 0.004; ++round) {
      bool improved = false;
      for (const auto& p : params) {
        for (const double factor : {1.0 + step, 1.0 / (1.0 + step)}) {
          Trial trial = g.trial;
          const double before = p.get(trial);
          const double v = std::clamp(before == 0.0 ? p.hi * 0.01 : before * factor, p.lo, p.hi);
          if (v == before) {
            continue;
          }
          p.set(trial, v);
          const double l = loss(trial);
          if (l < best * (1.0 - 1e-5)) {
            best = l;
            g.trial = trial;
            improved = true;
          }
        }
      }
      if (!improved) {
        step /= 2.0;
      }
    }
    return g;
  }

private:
  const Efficiency& m_efficiency;
  const Uncertainty& m_uncertainty;
  const Constants& m_constants;
};

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return linear_percentile(values, 50);
}

// The band of one metric from the leave-one-run-out ratios (measured / predicted; throughput's
// inverted onto TPOT), never narrower than the runs' noise. Ten ratios or more: their 10th and
// 90th percentiles. Fewer: their envelope widened in log space (k_small_sample_widening), and,
// where `keep_bundled` (TTFT, whose queueing two loads barely pin down), the bundled band kept as
// its floor; no ratio at all (one run): the bundled band. docs/calibrate.md, "Bands".
RatioBand band_from(std::vector<double> loo,
                    const RatioBand& bundled,
                    const std::string& what,
                    bool keep_bundled) {
  RatioBand b;
  b.calibrated = true;
  b.lines = static_cast<long long>(loo.size());
  std::sort(loo.begin(), loo.end());
  if (loo.size() >= k_sized_band_lines) {
    b.low_ratio = linear_percentile(loo, 10);
    b.high_ratio = linear_percentile(loo, 90);
    b.basis = fmt::format("site calibration: the 10th-90th percentiles of {} leave-one-run-out "
                          "{} ratios",
                          loo.size(),
                          what);
  } else if (loo.empty()) {
    b.low_ratio = bundled.low_ratio;
    b.high_ratio = bundled.high_ratio;
    b.basis =
        fmt::format("site calibration: one run, nothing to leave out: the bundled {} band", what);
  } else {
    b.low_ratio = std::min(1.0, std::pow(loo.front(), k_small_sample_widening));
    b.high_ratio = std::max(1.0, std::pow(loo.back(), k_small_sample_widening));
    if (keep_bundled) {
      b.low_ratio = std::min(b.low_ratio, bundled.low_ratio);
      b.high_ratio = std::max(b.high_ratio, bundled.high_ratio);
    }
    b.basis = fmt::format("site calibration: {} leave-one-run-out {} ratio{}, too few to size a "
                          "band: their envelope widened{}",
                          loo.size(),
                          what,
                          loo.size() == 1 ? "" : "s",
                          keep_bundled ? ", with the bundled band as its floor" : "");
  }
  b.low_ratio = std::min(b.low_ratio, 1.0 / (1.0 + k_run_noise));
  b.high_ratio = std::max(b.high_ratio, 1.0 + k_run_noise);
  return b;
}

// The parameter count a model name states ("Llama-3.1-8B-Instruct": 8e9, "Mixtral-8x7B": 56e9,
// "gpt-oss-120b": 120e9), or nullopt when it states none.
std::optional<double> stated_parameters(const std::string& name) {
  const std::regex size(
      R"((?:^|[^0-9A-Za-z.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bBmM])(?=$|[^0-9A-Za-z]))");
  std::smatch m;
  if (!std::regex_search(name, m, size)) {
    return std::nullopt;
  }
  const double experts = m[1].matched ? std::stod(m[1].str()) : 1.0;
  const double scale = (m[3].str() == "b" || m[3].str() == "B") ? 1e9 : 1e6;
  return experts * std::stod(m[2].str()) * scale;
}

// A run whose file names a model of another size than the spec's is another model's run.
void check_model(const Spec& spec, const BenchRun& run) {
  if (!run.model || spec.model.params_total <= 0) {
    return;
  }
  const auto stated = stated_parameters(*run.model);
  if (!stated) {
    return;
  }
  const double ratio = *stated / spec.model.params_total;
  if (ratio > k_model_size_slack || ratio < 1.0 / k_model_size_slack) {
    throw InputError(
        run.source + ":/model",
        fmt::format("the run served {} (about {:.3g}B parameters by its name), the spec's model "
                    "has {:.3g}B: a run of another model cannot calibrate this spec",
                    *run.model,
                    *stated / 1e9,
                    spec.model.params_total / 1e9));
  }
}

} // namespace

CalibrationRun calibration_run(const Spec& spec,
                               const Gpu& gpu,
                               const Parallelism& layout,
                               const BenchRun& run,
                               const Efficiency& efficiency) {
  CalibrationRun c;
  c.name = run.source;
  check_model(spec, run);
  c.spec = run_spec(spec, layout, run, c.load);
  c.gpu = gpu;
  c.layout = layout;
  c.family = efficiency.family_name(gpu);
  const bool online = run.mode == BenchMode::online;
  if (online && run.ttft.mean) {
    c.ttft = run.ttft.mean->si();
  }
  if (online && run.tpot.mean) {
    c.tpot = run.tpot.mean->si();
  }
  c.output_tokens_per_s = output_tokens_per_s(run, c.load);
  if (!c.ttft && !c.tpot && !c.output_tokens_per_s) {
    throw InputError(run.source,
                     "the run records no mean TTFT, TPOT or output throughput: nothing to "
                     "calibrate on");
  }
  return c;
}

RunPrediction predict_run(const CalibrationRun& run,
                          const Efficiency& efficiency,
                          const Uncertainty& uncertainty,
                          const Constants& constants) {
  const EstimateEvaluation e = estimate_configuration(
      run.spec, run.gpu, run.layout, run.load.concurrency, constants, efficiency, uncertainty);
  if (!e.inference) {
    throw InputError(run.name,
                     fmt::format("{} does not fit on {} in this layout: nothing to calibrate",
                                 run.spec.model.family,
                                 run.gpu.name));
  }
  RunPrediction p;
  p.ttft = e.inference->ttft.si();
  p.tpot = e.inference->tpot.si();
  p.output_tokens_per_s = e.inference->output_tokens_per_s;
  return p;
}

void determinable(const std::vector<const CalibrationRun*>& runs,
                  std::vector<SiteFactor>& fitted,
                  std::vector<HeldFactor>& held) {
  const auto has_ttft = [](const CalibrationRun& r) { return r.ttft.has_value(); };
  const auto has_decode = [](const CalibrationRun& r) {
    return r.tpot.has_value() || r.output_tokens_per_s.has_value();
  };
  const auto concurrency = [](const CalibrationRun& r) {
    return static_cast<double>(r.load.concurrency);
  };
  const auto prompt = [](const CalibrationRun& r) {
    return static_cast<double>(r.load.input_tokens);
  };
  const auto decode_loads = distinct(runs, has_decode, concurrency);
  const auto ttft_loads = distinct(runs, has_ttft, concurrency);
  const auto ttft_prompts = distinct(runs, has_ttft, prompt);
  const auto decide = [&](SiteFactor f, bool ok, std::string why) {
    if (ok) {
      fitted.push_back(f);
    } else {
      held.push_back({f, std::move(why)});
    }
  };
  decide(SiteFactor::memory,
         !decode_loads.empty(),
         "needs a run that measures TPOT or output throughput");
  decide(SiteFactor::compute,
         !ttft_prompts.empty() && ttft_prompts.back() >= k_compute_prompt_tokens,
         fmt::format("needs a run that measures TTFT with prompts of {:.0f} tokens or more "
                     "(a shorter prefill is mostly the engine's fixed cost)",
                     k_compute_prompt_tokens));
  decide(SiteFactor::fixed_overhead,
         spread(decode_loads, k_concurrency_spread),
         fmt::format("needs TPOT or throughput at two concurrencies {:.0f}x apart or more (at "
                     "one, a step's fixed cost cannot be told from memory bandwidth)",
                     k_concurrency_spread));
  decide(SiteFactor::ttft_overhead,
         spread(ttft_prompts, k_prompt_spread),
         fmt::format("needs TTFT at two prompt lengths {:.0f}x apart or more (at one, the "
                     "engine's fixed cost cannot be told from compute)",
                     k_prompt_spread));
  decide(
      SiteFactor::ttft_wave_factor,
      spread(ttft_loads, k_concurrency_spread),
      fmt::format("needs TTFT at two concurrencies {:.0f}x apart or more", k_concurrency_spread));
  decide(SiteFactor::prefill_interference,
         decode_loads.size() >= k_interference_loads && spread(decode_loads, k_concurrency_spread),
         fmt::format("needs TPOT or throughput at {} concurrencies or more, spanning {:.0f}x",
                     k_interference_loads,
                     k_concurrency_spread));
}

std::vector<SiteFit> fit_sites(const std::vector<CalibrationRun>& runs,
                               const Efficiency& efficiency,
                               const Uncertainty& uncertainty,
                               const Constants& constants) {
  const Fitter fitter(efficiency, uncertainty, constants);
  std::vector<SiteFit> out;
  std::map<std::string, std::size_t> index; // group key -> out
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const std::string key =
        fmt::format("{}/{}/{}", r.family, engine_name(r.spec), r.spec.model.kind());
    auto [it, added] = index.emplace(key, out.size());
    if (added) {
      SiteFit f;
      f.family = r.family;
      f.engine = engine_name(r.spec);
      f.model_kind = std::string(r.spec.model.kind());
      out.push_back(std::move(f));
    }
    out[it->second].runs.push_back(i);
  }
  for (auto& site : out) {
    std::vector<const CalibrationRun*> group;
    for (const std::size_t i : site.runs) {
      group.push_back(&runs[i]);
    }
    // Every run must fit in its layout (predict_run says which does not).
    std::vector<RunPrediction> bundled;
    for (const auto* r : group) {
      bundled.push_back(fitter.predict(*r, nullptr));
    }
    const Trial start = fitter.bundled(*group.front());
    site.bundled_family = start.family;
    site.bundled_overhead = start.overhead;
    const GroupFit all = fitter.fit(group);
    site.family_efficiency = all.trial.family;
    site.overhead = all.trial.overhead;
    site.fitted = all.fitted;
    site.held = all.held;
    // Leave one run out: each run predicted by the fit on the others.
    std::map<RunMetric, std::pair<std::vector<double>, std::vector<double>>> errors;
    std::vector<double> ttft_ratios;
    std::vector<double> tpot_ratios;
    if (group.size() >= 2) {
      for (std::size_t k = 0; k < group.size(); ++k) {
        std::vector<const CalibrationRun*> others = group;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
        const GroupFit loo = fitter.fit(others);
        const auto after = ratios(*group[k], fitter.predict(*group[k], &loo.trial));
        const auto before = ratios(*group[k], bundled[k]);
        for (std::size_t m = 0; m < after.size(); ++m) {
          const Ratio& a = after[m];
          errors[a.metric].first.push_back(std::abs(before[m].predicted / before[m].measured - 1));
          errors[a.metric].second.push_back(std::abs(a.predicted / a.measured - 1));
          if (a.metric == RunMetric::ttft) {
            ttft_ratios.push_back(a.measured / a.predicted);
          } else if (a.metric == RunMetric::tpot) {
            tpot_ratios.push_back(a.measured / a.predicted);
          } else {
            tpot_ratios.push_back(a.predicted / a.measured); // throughput, as a time ratio
          }
        }
      }
    }
    for (const auto& [metric, name] : k_run_metric_rows) {
      if (const auto e = errors.find(metric); e != errors.end()) {
        site.leave_one_out.push_back({run_metric_name(metric),
                                      static_cast<long long>(e->second.first.size()),
                                      median_of(e->second.first),
                                      median_of(e->second.second)});
      }
    }
    const std::string engine_key = engine_band_key(group.front()->spec, efficiency);
    site.ttft =
        band_from(ttft_ratios, uncertainty.band("ttft", site.family, engine_key), "TTFT", true);
    site.tpot = band_from(tpot_ratios,
                          uncertainty.band("tpot", site.family, engine_key),
                          "TPOT and throughput",
                          false);
  }
  return out;
}

SiteFactors to_site_factors(const SiteFit& fit) {
  SiteFactors f;
  f.family = fit.family;
  f.engine = fit.engine;
  f.model_kind = fit.model_kind;
  f.family_efficiency = fit.family_efficiency;
  f.overhead = fit.overhead;
  f.runs = static_cast<long long>(fit.runs.size());
  f.leave_one_out = fit.leave_one_out;
  f.ttft = fit.ttft;
  f.tpot = fit.tpot;
  return f;
}

} // namespace rightsize
