#pragma once

// Statistics over samples, computed as the benchmark clients compute them, so that rightsize's
// figures and theirs mean the same thing.

#include <vector>

namespace rightsize {

// The p-th percentile (0-100) of `sorted` (ascending, not empty), interpolated linearly between
// the two nearest ranks: numpy's default (`np.percentile`, method "linear"), which vLLM's and
// SGLang's benchmark clients, genai-perf and AIPerf report.
double linear_percentile(const std::vector<double>& sorted, double p);

} // namespace rightsize
