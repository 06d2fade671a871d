// The training search's context-parallel sizes (docs/plan.md, "Training layouts").

#include "fixtures.hpp"
#include "plan/search.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <vector>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Spec training(const char* model, long long seq, const char* framework = "megatron") {
  return parse_spec(nlohmann::json{{"model", config_path(model)},
                                   {"workload",
                                    {{"type", "training"},
                                     {"framework", framework},
                                     {"seq_len", seq},
                                     {"global_batch", 64},
                                     {"recompute", "full"},
                                     {"tokens", 1e10},
                                     {"deadline_hours", 24 * 30}}}},
                    "train.json");
}

} // namespace

TEST_CASE("training layouts: context parallelism from 16K tokens, 4K tokens a rank at least",
          "[plan][training]") {
  using detail::cp_options;
  CHECK(cp_options(training("llama-3.1-8b", 8192)) == std::vector<int>{1});
  CHECK(cp_options(training("llama-3.1-8b", 16384)) == std::vector<int>{1, 2, 4});
  CHECK(cp_options(training("llama-3.1-8b", 131072)) == std::vector<int>{1, 2, 4, 8, 16, 32});
  // 2 x cp equal chunks: 20,000 = 2^5 x 625 splits into 4 and 8 chunks, not 16.
  CHECK(cp_options(training("llama-3.1-8b", 20000)) == std::vector<int>{1, 2, 4});
  // Not modelled: DeepSpeed's Ulysses, transformers, state-space layers.
  CHECK(cp_options(training("llama-3.1-8b", 131072, "deepspeed")) == std::vector<int>{1});
  CHECK(cp_options(training("llama-3.1-8b", 131072, "transformers")) == std::vector<int>{1});
}

TEST_CASE("plan: long-context training splits sequences where that is the cheapest layout",
          "[plan][training]") {
  // Llama 3.1 8B at 131,072 tokens, full recompute: some GPUs are cheapest with each sequence
  // split (on 2026-11-28 the B200 came out first at TP1 CP4, the L40S at TP1 CP4 PP8); at 8,192
  // tokens none is.
  PlanOptions o;
  o.today = "2026-11-21";
  const Plan p =
      make_plan(training("llama-3.1-8b", 131072), catalog(), constants(), efficiency(), o);
  REQUIRE(p.feasible());
  int split = 0;
  for (const auto& c : p.candidates) {
    CHECK(c.total_gpus() == c.layout.tp * c.layout.cp * c.layout.pp * c.layout.dp);
    if (c.layout.cp > 1) {
      ++split;
      CHECK(c.training->context_parallel_communication.si() > 0.0);
    }
  }
  CHECK(split > 0);
  const Plan short_seq =
      make_plan(training("llama-3.1-8b", 8192), catalog(), constants(), efficiency(), o);
  REQUIRE(short_seq.feasible());
  for (const auto& c : short_seq.candidates) {
    CHECK(c.layout.cp == 1);
  }
}
