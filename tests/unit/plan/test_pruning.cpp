// The pruned search and the exhaustive one give identical plans (issue 17): a serving layout is
// skipped only when the lowest score any replica count of it could have cannot beat the best
// found so far on its GPU (PlanOptions::prune, docs/plan.md "Search"). Compared as the JSON a
// user reads, on every bundled example and on generated specs, under each objective the bound
// applies to.

#include "fixtures.hpp"
#include "spec_generator.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/render/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::engines;
using rightsize::test::uncertainty;

namespace {

Plan plan_of(const Spec& spec, Objective objective, bool prune, bool share_gpus) {
  PlanOptions o = rightsize::test::cli_plan_options("2026-11-22");
  o.objective = objective;
  o.share_gpus = share_gpus;
  o.prune = prune;
  return make_plan(spec, catalog(), constants(), efficiency(), o);
}

// The plan as `rightsize plan --format json` prints it, pruned or not.
std::string planned(const Spec& spec, Objective objective, bool prune, bool share_gpus = false) {
  std::ostringstream out;
  render_plan_json(plan_of(spec, objective, prune, share_gpus), RenderOptions{}, out);
  return out.str();
}

// How many plans differ; each difference is reported with what to reproduce it.
int differences(const Spec& spec, Objective objective, bool share_gpus = false) {
  const std::string pruned = planned(spec, objective, true, share_gpus);
  const std::string exhaustive = planned(spec, objective, false, share_gpus);
  if (pruned == exhaustive) {
    return 0;
  }
  UNSCOPED_INFO(spec.file << " objective " << static_cast<int>(objective)
                          << (share_gpus ? " --share-gpus" : ""));
  return 1;
}

} // namespace

TEST_CASE("pruning: every bundled example plans the same pruned and exhaustive",
          "[plan][pruning]") {
  int specs = 0;
  int differ = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RIGHTSIZE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "my-prices.json") {
      continue;
    }
    const Spec spec = load_spec(entry.path().string());
    for (const Objective o : {Objective::tco, Objective::gpus, Objective::power}) {
      differ += differences(spec, o);
    }
    differ += differences(spec, Objective::tco, true);
    ++specs;
  }
  CHECK(specs >= 6);
  CHECK(differ == 0);
}

TEST_CASE("pruning: 200 generated specs plan the same pruned and exhaustive", "[plan][pruning]") {
  const auto generated =
      rightsize::bench::generate_specs(200, 17, std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs");
  REQUIRE(generated.size() == 200);
  int serving = 0;
  int feasible = 0;
  int differ = 0;
  int i = 0;
  for (const auto& [name, body] : generated) {
    const Spec spec = parse_spec(body, name);
    if (!spec.workload.is_training()) {
      ++serving;
    }
    // Every spec under TCO (the default); every fourth under the GPU count and power too.
    differ += differences(spec, Objective::tco);
    if (i % 4 == 0) {
      differ += differences(spec, Objective::gpus);
      differ += differences(spec, Objective::power);
    }
    feasible += plan_of(spec, Objective::tco, true, false).feasible() ? 1 : 0;
    ++i;
  }
  // The comparison means something only if the specs exercise the search.
  CHECK(serving >= 120);
  CHECK(feasible >= 50);
  CHECK(differ == 0);
}
