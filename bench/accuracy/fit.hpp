#pragma once

// The efficiency fit (bench/fit_efficiency.cpp, docs/accuracy.md "Performance"), as a function that
// the fitter and the leave-one-group-out derivation (logo.hpp) share: coordinate descent on the
// mean absolute log error of the fit lines, each group/metric weighted equally. Stage 1 fits the
// GPU families and the serving engines on the validation data; stage 2 the transformers engine
// alone on the project's H200 generate runs; stage 3 cdna3 alone on public AMD runs.

#include "perf_cases.hpp"

#include <functional>
#include <string>
#include <vector>

namespace rightsize::accuracy {

struct FitOptions {
  int max_rounds = 40; // rounds of the descent per stage (each: every parameter up and down)
  bool verbose = true; // print the losses as rightsize_fit does
  // Lines left out of the fit on top of the held-out ones (a whole group, for leave-one-group-out).
  std::function<bool(const PerfCase&)> exclude;
  // Parameters not fitted: a GPU family's ("ampere") or an engine's ("vllm"), left as given.
  std::vector<std::string> frozen_families;
  std::vector<std::string> frozen_engines;
};

struct FitResult {
  Efficiency efficiency;
  int fit_rows = 0;
  int held_rows = 0;
  double loss = 0;              // stage 1's final loss
  double transformers_loss = 0; // stage 2's (0 when it had no lines)
  int amd_fit_rows = 0;         // stage 3: the public AMD runs (amd_cases.hpp)
  int amd_held_rows = 0;
  double cdna3_loss = 0; // stage 3's (0 when it had no lines)
};

// Fits `start` on `cases` (their fit part, less `options.exclude`).
FitResult
fit_efficiency(const PerfCases& cases, const Efficiency& start, const FitOptions& options);

} // namespace rightsize::accuracy
