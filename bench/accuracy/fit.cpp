#include "fit.hpp"

#include "amd_cases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace rightsize::accuracy {

namespace {

struct Parameter {
  std::string name;
  std::function<double(const Efficiency&)> get;
  std::function<void(Efficiency&, double)> set;
  double lo;
  double hi;
};

Parameter family_parameter(const std::string& family, int which) {
  const auto field = [which](FamilyEfficiency& f) -> double& {
    return which == 0 ? f.compute : which == 1 ? f.memory : f.training_compute;
  };
  const char* names[] = {"compute", "memory", "training_compute"};
  return {family + "." + names[which],
          [family, field](const Efficiency& e) {
            FamilyEfficiency f = e.families.at(family);
            return field(f);
          },
          [family, field](Efficiency& e, double v) { field(e.families[family]) = v; },
          0.05,
          1.0};
}

Parameter
seconds_parameter(const std::string& name, std::function<Seconds&(Efficiency&)> ref, double hi) {
  return {name,
          [ref](const Efficiency& e) {
            Efficiency copy = e;
            return ref(copy).si();
          },
          [ref](Efficiency& e, double v) { ref(e) = seconds(v); },
          0.0,
          hi};
}

// An engine's five parameters; `layer_hi` bounds its per-layer cost (seconds).
std::vector<Parameter> engine_parameters(const std::string& engine, double layer_hi) {
  return {seconds_parameter(
              engine + ".layer_overhead",
              [engine](Efficiency& e) -> Seconds& { return e.engines[engine].per_layer; },
              layer_hi),
          seconds_parameter(
              engine + ".step_overhead",
              [engine](Efficiency& e) -> Seconds& { return e.engines[engine].per_step; },
              0.1),
          {engine + ".prefill_interference",
           [engine](const Efficiency& e) { return e.engines.at(engine).prefill_interference; },
           [engine](Efficiency& e, double v) { e.engines[engine].prefill_interference = v; },
           0.05,
           1.0},
          {engine + ".ttft_wave_factor",
           [engine](const Efficiency& e) { return e.engines.at(engine).wave_factor; },
           [engine](Efficiency& e, double v) { e.engines[engine].wave_factor = v; },
           0.0,
           2.0},
          seconds_parameter(
              engine + ".ttft_overhead",
              [engine](Efficiency& e) -> Seconds& { return e.engines[engine].per_request; },
              2.0)};
}

// Coordinate descent: each parameter in turn scaled up and down by `step`, kept when the loss
// falls; the step halves when a round improves nothing. Returns the final loss.
double descend(Efficiency& eff,
               const std::vector<Parameter>& params,
               const std::function<double(const Efficiency&)>& loss,
               const FitOptions& options) {
  double best = loss(eff);
  if (options.verbose) {
    fmt::print("initial loss {:.4f}\n", best);
  }
  double step = 0.3;
  for (int round = 0; round < options.max_rounds && step > 0.005; ++round) {
    bool improved = false;
    for (const auto& prm : params) {
      for (const double factor : {1.0 + step, 1.0 / (1.0 + step)}) {
        Efficiency trial = eff;
        const double before = prm.get(trial);
        const double v =
            std::clamp(before == 0.0 ? prm.hi * 0.05 : before * factor, prm.lo, prm.hi);
        if (v == before) {
          continue;
        }
        prm.set(trial, v);
        const double l = loss(trial);
        if (l < best * (1.0 - 1e-4)) {
          best = l;
          eff = trial;
          improved = true;
        }
      }
    }
    if (!improved) {
      step /= 2.0;
    }
    if (options.verbose) {
      fmt::print("round {:2}: loss {:.4f} (step {:.3f})\n", round, best, step);
    }
  }
  return best;
}

using Groups = std::map<std::string, std::vector<const PerfCase*>>;

std::function<double(const Efficiency&)> loss_over(const Groups& groups) {
  return [&groups](const Efficiency& e) {
    double total = 0;
    for (const auto& [name, group] : groups) {
      total += summarize(group, e).mean_absolute_log;
    }
    return total / static_cast<double>(groups.size());
  };
}

bool frozen(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Stage 1's parameters: the fitted families' compute and memory, Ampere's training compute, the
// serving engines', the training size exponent and the all-reduce latency.
std::vector<Parameter> stage1_parameters(const FitOptions& options) {
  std::vector<Parameter> params;
  for (const char* fam : {"hopper", "blackwell", "ampere", "ada"}) {
    if (!frozen(options.frozen_families, fam)) {
      params.push_back(family_parameter(fam, 0));
      params.push_back(family_parameter(fam, 1));
    }
  }
  if (!frozen(options.frozen_families, "ampere")) {
    params.push_back(family_parameter("ampere", 2));
  }
  for (const std::string engine : {"vllm", "sglang", "tensorrt-llm"}) {
    if (!frozen(options.frozen_engines, engine)) {
      const auto more = engine_parameters(engine, 1e-3);
      params.insert(params.end(), more.begin(), more.end());
    }
  }
  params.push_back({"training.size_exponent",
                    [](const Efficiency& e) { return e.training_size_exponent; },
                    [](Efficiency& e, double v) { e.training_size_exponent = v; },
                    0.0,
                    1.0});
  params.push_back(seconds_parameter(
      "allreduce_latency", [](Efficiency& e) -> Seconds& { return e.allreduce_latency; }, 1e-3));
  return params;
}

} // namespace

FitResult
fit_efficiency(const PerfCases& cases, const Efficiency& start, const FitOptions& options) {
  // Groups weighted equally, whatever their row counts. The H200 step and training measurements
  // are diagnostics, never fitted: the step physics is compared without engine costs
  // (docs/accuracy.md, "Measured on an H200").
  // Stage 3 fits cdna3's compute and memory alone on the public AMD runs (amd_cases.hpp), each
  // metric weighted equally, after the others: it moves nothing else.
  Groups fit_groups;
  Groups transformers_groups;
  Groups amd_groups;
  FitResult r{start};
  for (const auto& c : cases.cases) {
    if (c.group == "h200-steps" || c.group == "h200-train") {
      continue;
    }
    const bool amd = c.group == k_amd_group;
    if (c.held_out) {
      ++(amd ? r.amd_held_rows : r.held_rows);
      continue;
    }
    if (options.exclude && options.exclude(c)) {
      continue;
    }
    if (amd) {
      ++r.amd_fit_rows;
      amd_groups[c.metric].push_back(&c);
      continue;
    }
    ++r.fit_rows;
    (c.group == "h200-generate" ? transformers_groups : fit_groups)[c.group + "/" + c.metric]
        .push_back(&c);
  }
  if (options.verbose) {
    fmt::print("fit rows {}, held-out rows {}, groups {} + {}\n",
               r.fit_rows,
               r.held_rows,
               fit_groups.size(),
               transformers_groups.size());
  }
  r.loss = descend(r.efficiency, stage1_parameters(options), loss_over(fit_groups), options);
  if (!transformers_groups.empty() && !frozen(options.frozen_engines, "transformers")) {
    r.transformers_loss = descend(r.efficiency,
                                  engine_parameters("transformers", 5e-3),
                                  loss_over(transformers_groups),
                                  options);
  }
  if (!amd_groups.empty() && !frozen(options.frozen_families, "cdna3")) {
    r.cdna3_loss = descend(r.efficiency,
                           {family_parameter("cdna3", 0), family_parameter("cdna3", 1)},
                           loss_over(amd_groups),
                           options);
  }
  return r;
}

} // namespace rightsize::accuracy
