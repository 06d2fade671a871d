// Fits the efficiency factors of the performance model on the fit part of
// ../shared/validation (one configuration in four is held out by a hash of its key, and the 2022
// Megatron MFU table is held out whole), then writes data/efficiency.json.
// Usage: rightsize_fit [VALIDATION_DIR] [OUTPUT]   (default output: data/efficiency.json)

#include "accuracy/amd_cases.hpp"
#include "accuracy/fit.hpp"
#include "accuracy/measured_cases.hpp"
#include "accuracy/perf_cases.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <fstream>
#include <iostream>

using namespace rightsize;
using namespace rightsize::accuracy;

int main(int argc, char** argv) {
  const std::string validation = argc > 1 ? argv[1] : RIGHTSIZE_VALIDATION_DIR;
  const std::string output =
      argc > 2 ? argv[2] : std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json";
  try {
    const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const auto constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    Efficiency eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
    auto cases = build_perf_cases(validation, RIGHTSIZE_CONFIGS_DIR, catalog, constants, eff);
    append_measured_cases(cases,
                          std::string(RIGHTSIZE_DATA_DIR) + "/measured/h200-sxm.json",
                          RIGHTSIZE_CONFIGS_DIR,
                          catalog,
                          constants,
                          eff);
    append_amd_cases(cases,
                     std::string(RIGHTSIZE_DATA_DIR) + "/measured/cdna3-public.csv",
                     std::string(RIGHTSIZE_DATA_DIR) + "/..",
                     catalog,
                     constants,
                     eff);

    // The fit itself (bench/accuracy/fit.cpp): stage 1 the families and serving engines on the
    // validation data, stage 2 the transformers engine alone on our own H200 generate runs
    // (data/measured/h200-sxm.json), so that they move nothing else; stage 3 cdna3 alone on
    // public AMD runs (data/measured/cdna3-public.csv).
    const FitResult fit = fit_efficiency(cases, eff, FitOptions{});
    eff = fit.efficiency;
    const int fit_rows = fit.fit_rows;
    const int held_rows = fit.held_rows;
    const double best = fit.loss;
    const double transformers_loss = fit.transformers_loss;
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
          "table",
          "data/measured/h200-sxm.json: our own runs of transformers' generate on one H200 "
          "(bench/gpu/measure.py), the transformers engine only (stage 2)"}},
        {"held_out",
         "every configuration whose key hashes to 0 mod 4 (FNV-1a), and the whole 2022 Megatron "
         "MFU table; never used in the fit"},
        {"fit_rows", fit_rows},
        {"held_out_rows", held_rows},
        {"final_loss", best},
        {"transformers_final_loss", transformers_loss},
        {"cdna3",
         {{"data",
           "data/measured/cdna3-public.csv: public MI300X runs of vLLM and SGLang on ROCm "
           "(AMD blogs and performance pages, Oracle, an SGLang pull request; sources in "
           "data/measured/README.md): offline output throughput, static-batch end-to-end "
           "latency, decode step"},
          {"parameters", "cdna3.compute and cdna3.memory only (stage 3); engines unchanged"},
          {"held_out",
           "every configuration whose key hashes to 0 mod 4 (FNV-1a), and every MoE row (its "
           "decode is not the dense model the family efficiencies stand for)"},
          {"fit_rows", fit.amd_fit_rows},
          {"held_out_rows", fit.amd_held_rows},
          {"final_loss", fit.cdna3_loss}}},
        {"not_fitted",
         "turing keeps its initial values: no measurements; cdna4 carries cdna3's fitted "
         "factors and gaudi, tpu and neuron the mean of the fitted families' (ada, ampere, "
         "blackwell, cdna3, hopper): no measurements of their own"}};
    std::ofstream(output) << eff.to_json().dump(2) << '\n';
    fmt::print("wrote {}\n", output);
  } catch (const std::exception& e) {
    std::cerr << "rightsize_fit: error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
