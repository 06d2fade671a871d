// Fits the efficiency factors of the performance model on the fit part of
// ../shared/validation (one configuration in four is held out by a hash of its key, and the 2022
// Megatron MFU table is held out whole), then writes data/efficiency.json.
// Usage: rightsize_fit [VALIDATION_DIR] [OUTPUT]   (default output: data/efficiency.json)

#include "accuracy/perf_cases.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>

using namespace rightsize;
using namespace rightsize::accuracy;

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

} // namespace

int main(int argc, char** argv) {
  const std::string validation = argc > 1 ? argv[1] : RIGHTSIZE_VALIDATION_DIR;
  const std::string output =
      argc > 2 ? argv[2] : std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json";
  try {
    const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    Efficiency eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
    const auto cases = build_perf_cases(validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants);

    // Groups weighted equally, whatever their row counts.
    std::map<std::string, std::vector<const PerfCase*>> fit_groups;
    int fit_rows = 0;
    int held_rows = 0;
    for (const auto& c : cases.cases) {
      if (c.held_out) {
        ++held_rows;
        continue;
      }
      ++fit_rows;
      fit_groups[c.group + "/" + c.metric].push_back(&c);
    }
    const auto loss = [&](const Efficiency& e) {
      double total = 0;
      for (const auto& [name, group] : fit_groups) {
        total += summarize(group, e).mean_absolute_log;
      }
      return total / static_cast<double>(fit_groups.size());
    };

    std::vector<Parameter> params;
    for (const char* fam : {"hopper", "blackwell", "ampere", "ada"}) {
      params.push_back(family_parameter(fam, 0));
      params.push_back(family_parameter(fam, 1));
    }
    params.push_back(family_parameter("ampere", 2));
    for (const std::string engine : {"vllm", "sglang", "tensorrt-llm"}) {
      params.push_back(seconds_parameter(
          engine + ".layer_overhead",
          [engine](Efficiency& e) -> Seconds& { return e.engines[engine].per_layer; },
          1e-3));
      params.push_back(seconds_parameter(
          engine + ".step_overhead",
          [engine](Efficiency& e) -> Seconds& { return e.engines[engine].per_step; },
          0.1));
      params.push_back(
          {engine + ".prefill_interference",
           [engine](const Efficiency& e) { return e.engines.at(engine).prefill_interference; },
           [engine](Efficiency& e, double v) { e.engines[engine].prefill_interference = v; },
           0.05,
           1.0});
      params.push_back({engine + ".ttft_wave_factor",
                        [engine](const Efficiency& e) { return e.engines.at(engine).wave_factor; },
                        [engine](Efficiency& e, double v) { e.engines[engine].wave_factor = v; },
                        0.0,
                        2.0});
      params.push_back(seconds_parameter(
          engine + ".ttft_overhead",
          [engine](Efficiency& e) -> Seconds& { return e.engines[engine].per_request; },
          2.0));
    }
    params.push_back({"training.size_exponent",
                      [](const Efficiency& e) { return e.training_size_exponent; },
                      [](Efficiency& e, double v) { e.training_size_exponent = v; },
                      0.0,
                      1.0});
    params.push_back(seconds_parameter(
        "allreduce_latency", [](Efficiency& e) -> Seconds& { return e.allreduce_latency; }, 1e-3));

    double best = loss(eff);
    fmt::print("fit rows {}, held-out rows {}, groups {}; initial loss {:.4f}\n",
               fit_rows,
               held_rows,
               fit_groups.size(),
               best);
    double step = 0.3;
    for (int round = 0; round < 40 && step > 0.005; ++round) {
      bool improved = false;
      for (auto& prm : params) {
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
      fmt::print("round {:2}: loss {:.4f} (step {:.3f})\n", round, best, step);
    }
    eff.fitted_on = {
        {"status", "fitted"},
        {"tool",
         "bench/fit_efficiency.cpp (coordinate descent on mean absolute log error, each "
         "metric group weighted equally)"},
        {"data",
         {"../shared/validation/serving_measured.csv (aiconfigurator silicon_sample.csv "
          "@095f58a51c4c): "
          "aggregated rows of Llama-3.1-8B/70B, Qwen3-32B/235B, gpt-oss-120b, DeepSeek-V3/R1, "
          "de-duplicated by configuration (median of repeats)",
          "../shared/validation/measurements.jsonl: TensorRT-LLM v0.5/v0.6.1 first-token and "
          "static-batch throughput tables (H100, L40S, A100), Megatron-LM 2021 achieved TFLOP/s "
          "table"}},
        {"held_out",
         "every configuration whose key hashes to 0 mod 4 (FNV-1a), and the whole 2022 Megatron "
         "MFU table; never used in the fit"},
        {"fit_rows", fit_rows},
        {"held_out_rows", held_rows},
        {"final_loss", best},
        {"not_fitted",
         "turing, cdna3 and the transformers engine keep their initial values: no measurements"}};
    std::ofstream(output) << eff.to_json().dump(2) << '\n';
    fmt::print("wrote {}\n", output);
  } catch (const std::exception& e) {
    std::cerr << "rightsize_fit: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
