// The training search offers only layouts the spec's framework runs (estimate/frameworks.hpp).
// Issue 43, defect 4: full fine-tune of Llama-3.1-8B at zero_stage 3 on transformers was offered
// `H100-PCIE-80GB 4 (TP1 PP4)` and `L4-24GB 32 (TP2 PP16)`; QLoRA was offered TP2 and TP4 PP2.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;

namespace {

Plan plan_finetune(const std::string& framework, int zero_stage, const std::string& method) {
  nlohmann::json body{{"schema_version", 1},
                      {"name", "ft"},
                      {"model", config_path("llama-3.1-8b")},
                      {"workload",
                       {{"type", "finetune"},
                        {"method", method},
                        {"framework", framework},
                        {"zero_stage", zero_stage},
                        {"seq_len", 4096},
                        {"global_batch", 64},
                        {"tokens", 1e9},
                        {"deadline_hours", 24}}},
                      {"deployment", {{"mode", "cloud"}}}};
  PlanOptions o;
  o.today = "2026-11-21";
  o.engines = &rightsize::test::engines();
  return make_plan(parse_spec(body, "ft.json"),
                   catalog(),
                   rightsize::test::constants(),
                   rightsize::test::efficiency(),
                   o);
}

} // namespace

TEST_CASE("framework layouts: transformers at ZeRO-3 trains with data parallelism only",
          "[plan][frameworks]") {
  const Plan p = plan_finetune("transformers", 3, "full");
  REQUIRE(p.feasible());
  for (const Candidate& c : p.candidates) {
    INFO(c.gpu->name << " tp " << c.layout.tp << " pp " << c.layout.pp);
    CHECK(c.layout.pp == 1);
    CHECK(c.layout.tp == 1);
  }
}

TEST_CASE("framework layouts: DeepSpeed at ZeRO-3 has no pipeline stages, at ZeRO-1 it may",
          "[plan][frameworks]") {
  for (const Candidate& c : plan_finetune("deepspeed", 3, "full").candidates) {
    INFO(c.gpu->name);
    CHECK(c.layout.pp == 1);
  }
}

TEST_CASE("framework layouts: QLoRA on transformers runs TP 1 PP 1", "[plan][frameworks]") {
  const Plan p = plan_finetune("transformers", 0, "qlora");
  REQUIRE(p.feasible());
  for (const Candidate& c : p.candidates) {
    INFO(c.gpu->name);
    CHECK(c.layout.tp == 1);
    CHECK(c.layout.pp == 1);
  }
}
