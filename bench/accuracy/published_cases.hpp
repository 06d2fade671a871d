#pragma once

// rightsize against the published measurements (data/published, docs/published.md): every run
// predicted on the model's config from tests/data/configs, as `rightsize compare` predicts it,
// and the error summarized by what the data states (docs/accuracy.md, "Published results").

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/published.hpp>

#include <string>
#include <vector>

namespace rightsize::accuracy {

struct PublishedGroup {
  std::string name;
  int runs = 0;        // predicted
  int unpredicted = 0; // listed, not predicted
  double median_abs_error = 0;
  double median_error = 0; // signed: above 0, rightsize predicts more
  double worst = 0;        // largest absolute error
};

struct PublishedAccuracy {
  std::vector<PublishedPrediction> rows;
  // By source and scenario; by GPU family; by lengths (offline runs of fixed lengths); whether
  // the source states the KV cache's format; whether the efficiencies' fit saw the run.
  std::vector<PublishedGroup> groups;
};

// Whether the fit of data/efficiency.json saw a published run: the static-batch tables of
// TensorRT-LLM v0.6.1 are also in ../shared/validation, three in four of them fitted.
bool seen_by_fit(const PublishedResult& r);

PublishedAccuracy run_published_cases(const std::string& index_path,
                                      const std::string& configs_dir,
                                      const Catalog& catalog,
                                      const Constants& constants,
                                      const Efficiency& efficiency,
                                      const Uncertainty& uncertainty);

} // namespace rightsize::accuracy
