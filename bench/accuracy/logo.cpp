#include "logo.hpp"

#include "fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <set>
#include <thread>

namespace rightsize::accuracy {

namespace {

// The families and engines the fitter fits (fit.cpp), whose means stand in for a held-out one.
const std::vector<std::string> k_fitted_families{"hopper", "blackwell", "ampere", "ada"};
const std::vector<std::string> k_serving_engines{"vllm", "sglang", "tensorrt-llm"};

// A held-out family gets the mean compute and memory efficiency of the other fitted families.
void stand_in_family(Efficiency& eff, const std::string& family) {
  FamilyEfficiency mean{0, 0, eff.families.at(family).training_compute};
  double n = 0;
  for (const auto& other : k_fitted_families) {
    if (other != family) {
      mean.compute += eff.families.at(other).compute;
      mean.memory += eff.families.at(other).memory;
      n += 1;
    }
  }
  mean.compute /= n;
  mean.memory /= n;
  eff.families[family] = mean;
}

// A held-out engine gets the mean overheads of the other serving engines.
void stand_in_engine(Efficiency& eff, const std::string& engine) {
  EngineOverhead mean{};
  mean.wave_factor = 0;
  mean.prefill_interference = 0;
  double n = 0;
  for (const auto& other : k_serving_engines) {
    if (other != engine) {
      const auto& o = eff.engines.at(other);
      mean.per_layer += o.per_layer;
      mean.per_step += o.per_step;
      mean.per_request += o.per_request;
      mean.wave_factor += o.wave_factor;
      mean.prefill_interference += o.prefill_interference;
      n += 1;
    }
  }
  mean.per_layer = seconds(mean.per_layer.si() / n);
  mean.per_step = seconds(mean.per_step.si() / n);
  mean.per_request = seconds(mean.per_request.si() / n);
  mean.wave_factor /= n;
  mean.prefill_interference /= n;
  eff.engines[engine] = mean;
}

LogoGroup refit_without(const PerfCases& cases,
                        const Efficiency& start,
                        const std::string& dimension,
                        const std::string& name,
                        const LogoOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  Efficiency eff = start;
  FitOptions fit;
  fit.max_rounds = options.max_rounds;
  fit.verbose = false;
  fit.exclude = [dimension, name](const PerfCase& c) { return group_of(c, dimension) == name; };
  if (dimension == "gpu_family") {
    stand_in_family(eff, name);
    fit.frozen_families = {name};
  } else if (dimension == "engine") {
    stand_in_engine(eff, name);
    fit.frozen_engines = {name};
  }
  const FitResult r = fit_efficiency(cases, eff, fit);
  LogoGroup g{dimension, name, {}, 0};
  for (const auto& c : cases.cases) {
    if (group_of(c, dimension) == name) {
      g.ratios[band_metric(c)].push_back(band_ratio(c, r.efficiency));
    }
  }
  g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return g;
}

} // namespace

const std::vector<std::string>& logo_dimensions() {
  static const std::vector<std::string> dims{
      "gpu_family", "engine", "model_kind", "input_length", "output_length", "kv_regime"};
  return dims;
}

std::string band_metric(const PerfCase& c) {
  const bool serving =
      c.group == "serving" || c.group == "h200-generate" || c.group == "trtllm-table";
  if (!serving) {
    return "";
  }
  if (c.metric == "ttft" || c.metric == "first_token") {
    return "ttft";
  }
  if (c.metric == "tpot" || c.metric == "throughput") {
    return "tpot";
  }
  return "";
}

double band_ratio(const PerfCase& c, const Efficiency& eff) {
  const double predicted = std::max(c.predict(eff), 1e-12);
  return c.metric == "throughput" ? predicted / c.measured : c.measured / predicted;
}

std::string group_of(const PerfCase& c, const std::string& dimension) {
  if (band_metric(c).empty()) {
    return "";
  }
  if (dimension == "gpu_family") {
    return c.family;
  }
  if (dimension == "engine") {
    return c.engine;
  }
  if (dimension == "model_kind") {
    return c.serving.model_kind;
  }
  if (dimension == "input_length") {
    return c.serving.input_tokens <= 1024 ? "input<=1024" : "input>1024";
  }
  if (dimension == "output_length") {
    return c.serving.output_tokens <= 256 ? "output<=256" : "output>256";
  }
  if (dimension == "kv_regime") {
    return c.serving.queueing ? "queues" : "fits";
  }
  return "";
}

std::vector<LogoGroup>
leave_one_group_out(const PerfCases& cases, const Efficiency& start, const LogoOptions& options) {
  std::vector<std::pair<std::string, std::string>> work;
  for (const auto& dimension : logo_dimensions()) {
    std::set<std::string> names;
    for (const auto& c : cases.cases) {
      if (auto g = group_of(c, dimension); !g.empty()) {
        names.insert(g);
      }
    }
    for (const auto& n : names) {
      work.emplace_back(dimension, n);
    }
  }
  std::vector<LogoGroup> out(work.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < work.size(); i = next++) {
      out[i] = refit_without(cases, start, work[i].first, work[i].second, options);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, options.threads); ++t) {
    threads.emplace_back(worker);
  }
  worker();
  for (auto& t : threads) {
    t.join();
  }
  return out;
}

CoverageTable band_coverage(const PerfCases& cases, const Efficiency& eff, const Uncertainty& u) {
  CoverageTable table;
  for (const auto& c : cases.cases) {
    const std::string metric = band_metric(c);
    if (!c.held_out || metric.empty()) {
      continue;
    }
    // An overflowing KV cache widens the band, as inference_bands() does for a report.
    const RatioBand band = c.serving.queueing
                               ? u.overflowing(u.band(metric, c.family, c.engine), metric)
                               : u.band(metric, c.family, c.engine);
    const double predicted = c.predict(eff);
    // The band as a report prints it: a time scaled, a throughput inverted (uncertainty.cpp).
    const bool inside =
        c.metric == "throughput"
            ? c.measured >= predicted / band.high_ratio && c.measured <= predicted / band.low_ratio
            : c.measured >= predicted * band.low_ratio && c.measured <= predicted * band.high_ratio;
    const auto count = [&](Coverage& cov) {
      ++cov.lines;
      cov.inside += inside ? 1 : 0;
    };
    count(table["all"]["all"][metric]);
    for (const auto& dimension : logo_dimensions()) {
      count(table[dimension][group_of(c, dimension)][metric]);
    }
  }
  return table;
}

} // namespace rightsize::accuracy

namespace rightsize::accuracy {

namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  const double frac = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1.0 - frac) + v[i + 1] * frac : v[i];
}

double round4(double v) {
  return std::round(v * 1e4) / 1e4;
}

// The `tail` and 1 - `tail` quantiles of `ratios` (p10 and p90 by default) as a band entry; the
// band is never narrower than the point (low <= 1 <= high), as data/uncertainty.json requires.
nlohmann::json entry_of(const std::vector<double>& ratios, double tail = 0.1) {
  return {{"low_ratio", round4(std::min(1.0, quantile(ratios, tail)))},
          {"high_ratio", round4(std::max(1.0, quantile(ratios, 1.0 - tail)))},
          {"lines", static_cast<long long>(ratios.size())}};
}

// The tails of a never-fitted layout's band (disaggregated, attention data-parallel): p10-p90 of
// the disaggregated runs held 67% (TTFT) and 76% (TPOT) of the other half's in the split-half
// check, p5-p95 83% and 91% (docs/accuracy.md, "Disaggregated serving"): an 80% band of unseen
// runs needs the wider quantiles.
constexpr double k_disaggregated_tail = 0.05;

double share_inside(const std::vector<double>& ratios, const nlohmann::json& band) {
  const double lo = band["low_ratio"].get<double>();
  const double hi = band["high_ratio"].get<double>();
  const auto inside =
      std::count_if(ratios.begin(), ratios.end(), [&](double r) { return r >= lo && r <= hi; });
  return static_cast<double>(inside) / static_cast<double>(ratios.size());
}

} // namespace

nlohmann::json transfer_bands(const std::vector<LogoGroup>& groups) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& dimension : logo_dimensions()) {
    nlohmann::json dim = {{"groups", nlohmann::json::object()}};
    for (const char* metric : {"ttft", "tpot"}) {
      std::vector<double> pooled;
      double covered = 0;
      for (const auto& g : groups) {
        const auto it = g.ratios.find(metric);
        if (g.dimension != dimension || it == g.ratios.end() || it->second.empty()) {
          continue;
        }
        pooled.insert(pooled.end(), it->second.begin(), it->second.end());
        // The band this group would get were it unknown: the other groups' pooled ratios.
        std::vector<double> others;
        for (const auto& o : groups) {
          if (o.dimension == dimension && o.name != g.name && o.ratios.count(metric) == 1) {
            others.insert(others.end(), o.ratios.at(metric).begin(), o.ratios.at(metric).end());
          }
        }
        nlohmann::json e = entry_of(it->second);
        const double cov = others.empty() ? 0.0 : share_inside(it->second, entry_of(others));
        e["coverage"] = round4(cov);
        covered += cov * static_cast<double>(it->second.size());
        dim["groups"][g.name][metric] = e;
      }
      if (!pooled.empty()) {
        dim[metric] = entry_of(pooled);
        dim[metric]["coverage"] = round4(covered / static_cast<double>(pooled.size()));
      }
    }
    out[dimension] = dim;
  }
  return out;
}

namespace {

// A layout's band from lines never fitted: p5 and p95 of measured / predicted per metric, and the
// split-half coverage (each half's lines inside the other half's band, pooled).
nlohmann::json never_fitted_band(const std::vector<PerfCase>& cases,
                                 const Efficiency& eff,
                                 const std::function<bool(const PerfCase&)>& in_second_half) {
  nlohmann::json group = nlohmann::json::object();
  for (const char* metric : {"ttft", "tpot"}) {
    std::vector<double> all;
    std::vector<double> halves[2];
    for (const auto& c : cases) {
      if (c.metric == metric) {
        const double r = band_ratio(c, eff);
        all.push_back(r);
        halves[in_second_half(c) ? 1 : 0].push_back(r);
      }
    }
    if (all.empty() || halves[0].empty() || halves[1].empty()) {
      continue;
    }
    const double t = k_disaggregated_tail;
    nlohmann::json e = entry_of(all, t);
    const double inside =
        share_inside(halves[0], entry_of(halves[1], t)) * static_cast<double>(halves[0].size()) +
        share_inside(halves[1], entry_of(halves[0], t)) * static_cast<double>(halves[1].size());
    e["coverage"] = round4(inside / static_cast<double>(all.size()));
    group[metric] = e;
  }
  return group;
}

} // namespace

nlohmann::json disaggregated_transfer(const std::vector<PerfCase>& cases, const Efficiency& eff) {
  const nlohmann::json group =
      never_fitted_band(cases, eff, [](const PerfCase& c) { return c.held_out; });
  nlohmann::json out = group;
  out["groups"] = {{"disaggregated", group}};
  return out;
}

nlohmann::json attention_dp_band(const std::vector<PerfCase>& cases, const Efficiency& eff) {
  // Every attention-DP line is held out of the fit; the split is held_out_key's on its run.
  return never_fitted_band(cases, eff, [](const PerfCase& c) {
    const std::string prefix = "serving:";
    return held_out_key(c.id.rfind(prefix, 0) == 0 ? c.id.substr(prefix.size()) : c.id);
  });
}

void print_coverage(const CoverageTable& table, const nlohmann::json& transfer) {
  fmt::print("\nband coverage on held-out lines (the band `rightsize` prints; 80% bands), and "
             "the leave-one-group-out transfer ratios (p10-p90, lines, coverage of the band from "
             "the other groups)\n");
  fmt::print("| dimension | group | TTFT lines | TTFT coverage | TPOT lines | TPOT coverage | "
             "LOGO TTFT | LOGO TPOT |\n|---|---|---|---|---|---|---|---|\n");
  const auto logo = [&](const std::string& dim, const std::string& group, const char* metric) {
    const auto d = transfer.find(dim);
    if (d == transfer.end() || !d->contains("groups") || !(*d)["groups"].contains(group) ||
        !(*d)["groups"][group].contains(metric)) {
      return std::string("-");
    }
    const auto& e = (*d)["groups"][group][metric];
    return fmt::format("{:.2f}-{:.2f} ({}, {:.0f}%)",
                       e["low_ratio"].get<double>(),
                       e["high_ratio"].get<double>(),
                       e["lines"].get<long long>(),
                       100.0 * e["coverage"].get<double>());
  };
  std::vector<std::string> order{"all"};
  order.insert(order.end(), logo_dimensions().begin(), logo_dimensions().end());
  for (const auto& dim : order) {
    const auto it = table.find(dim);
    if (it == table.end()) {
      continue;
    }
    for (const auto& entry : it->second) {
      const auto& group = entry.first;
      const auto& metrics = entry.second; // a reference, not a binding: lambdas capture it (C++17)
      const auto cell = [&](const char* metric) {
        const auto m = metrics.find(metric);
        return m == metrics.end() ? std::pair<std::string, std::string>{"0", "-"}
                                  : std::pair<std::string, std::string>{
                                        std::to_string(m->second.lines),
                                        fmt::format("{:.0f}%", 100.0 * m->second.share())};
      };
      const auto [tl, tc] = cell("ttft");
      const auto [pl, pc] = cell("tpot");
      fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                 dim,
                 group,
                 tl,
                 tc,
                 pl,
                 pc,
                 logo(dim, group, "ttft"),
                 logo(dim, group, "tpot"));
    }
  }
}

} // namespace rightsize::accuracy
