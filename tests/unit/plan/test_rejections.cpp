// Rejections: the closest miss across layouts and precisions, and a fix that was tried and works
// (or a plain "no change within the spec helps"). Each fix is applied here and re-planned.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

Plan plan_of(const nlohmann::json& body, const std::string& file) {
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  return make_plan(parse_spec(body, file), catalog(), constants(), efficiency(), o);
}

// The same, with the engine support table: a precision the engine cannot run is not offered.
Plan plan_with_engines(const nlohmann::json& body, const std::string& file) {
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  o.engines = &rightsize::test::engines();
  return make_plan(parse_spec(body, file), catalog(), constants(), efficiency(), o);
}

nlohmann::json chat_70b(double tpot_ms) {
  return {{"schema_version", 1},
          {"name", "chat-70b"},
          {"model", config_path("llama-3.1-70b")},
          {"precision", {{"weights", "bf16"}, {"kv_cache", "bf16"}, {"allow", {"fp8"}}}},
          {"workload",
           {{"type", "inference"},
            {"input_tokens", 2048},
            {"output_tokens", 512},
            {"concurrency", 16},
            {"targets", {{"ttft_ms", 3000}, {"tpot_ms", tpot_ms}}}}},
          {"deployment", {{"mode", "cloud"}, {"horizon_months", 12}}}};
}

const Rejection* rejection_of(const Plan& p, const std::string& gpu) {
  for (const auto& r : p.rejected) {
    if (r.gpu == gpu) {
      return &r;
    }
  }
  return nullptr;
}

bool is_candidate(const Plan& p, const std::string& gpu) {
  for (const auto& c : p.candidates) {
    if (c.gpu->name == gpu) {
      return true;
    }
  }
  return false;
}

// Every rejection's fix, applied to the spec and re-planned, makes that GPU a candidate; no reason
// says "by 0%"; no fix allows a format the spec already allows.
void check_rejections(const nlohmann::json& body, const std::string& file) {
  const Plan p = plan_of(body, file);
  int proven = 0;
  for (const auto& r : p.rejected) {
    INFO(file << ": " << r.gpu << ": " << r.reason << " (try: " << r.nearest_fix << ")");
    CHECK(r.reason.find("by 0%") == std::string::npos);
    if (r.code == "constraint") {
      continue; // excluded by the spec itself
    }
    CHECK_FALSE(r.nearest_fix.empty());
    if (!r.fix) {
      continue;
    }
    nlohmann::json fixed = body;
    fixed[nlohmann::json::json_pointer(r.fix->pointer)] = r.fix->value;
    if (r.fix->pointer == "/precision/allow" && body.contains("precision") &&
        body["precision"].contains("allow")) {
      for (const auto& already : body["precision"]["allow"]) {
        CHECK(std::count(r.fix->value.begin(), r.fix->value.end(), already) == 1);
      }
      CHECK(r.fix->value.size() == body["precision"]["allow"].size() + 1);
    }
    CHECK(is_candidate(plan_of(fixed, file), r.gpu));
    ++proven;
  }
  (void)proven;
}

} // namespace

TEST_CASE("rejections: every suggested fix of every bundled example makes its GPU feasible",
          "[plan][rejections]") {
  for (const auto& entry : std::filesystem::directory_iterator(RIGHTSIZE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json" ||
        entry.path().filename().string().find("prices") != std::string::npos) {
      continue;
    }
    std::ifstream in(entry.path());
    const auto body = nlohmann::json::parse(in);
    if (!body.contains("workload")) {
      continue;
    }
    check_rejections(body, entry.path().string());
  }
}

TEST_CASE("rejections: a GPU that fits at TP=2 is not rejected for memory at TP=1",
          "[plan][rejections]") {
  // Defect: 70B chat rejected A100-PCIE-80GB for "memory_capacity ... at 1 GPU (TP=1)" and
  // suggested allow_cross_node_tp, yet TP=2 fits.
  const nlohmann::json body = chat_70b(40);
  check_rejections(body, "chat-70b.json");
  const Plan p = plan_of(body, "chat-70b.json");
  if (const Rejection* r = rejection_of(p, "A100-PCIE-80GB")) {
    INFO(r->reason);
    CHECK(r->code != "memory_capacity");
  }
}

TEST_CASE("rejections: a 2 ms TPOT target rejects H100 and H200 for latency, not memory",
          "[plan][rejections]") {
  const nlohmann::json body = chat_70b(2);
  const Plan p = plan_of(body, "chat-70b.json");
  for (const char* gpu : {"H100-SXM-80GB", "H200-SXM-141GB"}) {
    const Rejection* r = rejection_of(p, gpu);
    REQUIRE(r != nullptr);
    INFO(r->reason << " (try: " << r->nearest_fix << ")");
    CHECK(r->code == "latency_target");
    // fp8 is already allowed: the fix must not suggest it.
    CHECK(r->nearest_fix.find("fp8 weights") == std::string::npos);
  }
  check_rejections(body, "chat-70b.json");
}

TEST_CASE("rejections: a pinned GPU that misses is under-provisioned", "[plan][rejections]") {
  nlohmann::json body = chat_70b(40);
  body["constraints"] = {{"gpus", {"L4"}}};
  const Plan p = plan_of(body, "chat-70b.json");
  const Rejection* r = rejection_of(p, "L4-24GB");
  REQUIRE(r != nullptr);
  CHECK_THAT(r->reason, Catch::StartsWith("under-provisioned: "));
}

// Neither a GPU the catalog has no rate for nor one the engine has no kernel for is too small:
// "under-provisioned" would send a team that owns it to buy more of what cannot run at all.
TEST_CASE("rejections: a pinned GPU without a rate or a kernel is not under-provisioned",
          "[plan][rejections]") {
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  o.engines = &rightsize::test::engines();
  const nlohmann::json fp32{{"schema_version", 1},
                            {"name", "fp32"},
                            {"model", config_path("llama-3.2-3b")},
                            {"precision", {{"weights", "fp32"}}},
                            {"workload",
                             {{"type", "inference"},
                              {"engine", "transformers"},
                              {"input_tokens", 512},
                              {"output_tokens", 128},
                              {"concurrency", 4}}},
                            {"constraints", {{"gpus", {"A10G", "L4"}}}}};
  const Plan rate =
      make_plan(parse_spec(fp32, "fp32.json"), catalog(), constants(), efficiency(), o);
  const Rejection* a10g = rejection_of(rate, "A10G-24GB");
  REQUIRE(a10g != nullptr);
  CHECK(a10g->code == "compute_rate");
  CHECK_THAT(a10g->reason, !Catch::StartsWith("under-provisioned"));

  // vLLM has no fp32 weights kernel in data/engines.json: the fix serves bf16 weights.
  nlohmann::json on_vllm = fp32;
  on_vllm["workload"]["engine"] = "vllm";
  const Plan kernel =
      make_plan(parse_spec(on_vllm, "fp32.json"), catalog(), constants(), efficiency(), o);
  const Rejection* l4 = rejection_of(kernel, "L4-24GB");
  REQUIRE(l4 != nullptr);
  CHECK(l4->code == "engine_support");
  CHECK_THAT(l4->reason, !Catch::StartsWith("under-provisioned"));
  REQUIRE(l4->fix);
  CHECK(l4->fix->pointer == "/precision/allow");
  CHECK(l4->fix->value == nlohmann::json{"bf16"});
  nlohmann::json fixed = on_vllm;
  fixed["precision"]["allow"] = {"bf16"};
  CHECK(is_candidate(
      make_plan(parse_spec(fixed, "fp32.json"), catalog(), constants(), efficiency(), o),
      "L4-24GB"));

  // A change that makes the GPU serve it, on a GPU with no price: said, not given as a fix to
  // apply (the GPU would still not be ranked), and not "no change helps".
  nlohmann::json unpriced_gpu = fp32;
  unpriced_gpu["constraints"]["gpus"] = {"GH200"};
  const Plan unpriced =
      make_plan(parse_spec(unpriced_gpu, "fp32.json"), catalog(), constants(), efficiency(), o);
  const Rejection* gh200 = rejection_of(unpriced, "GH200-144GB");
  REQUIRE(gh200 != nullptr);
  CHECK(gh200->code == "compute_rate");
  CHECK_FALSE(gh200->fix);
  CHECK_THAT(gh200->nearest_fix,
             Catch::StartsWith("allow bf16 weights (precision.allow: [\"bf16\"]) would serve it, "
                               "but not rentable: no list price for the 144 GB HBM3e GH200: "
                               "Lambda rents the 96 GB HBM3 GH200, a different part: add a "
                               "price"));

  // vLLM has no fp8 KV cache on Turing: the fix is a 16-bit cache.
  nlohmann::json fp8_kv = on_vllm;
  fp8_kv["precision"] = {{"weights", "fp16"}, {"kv_cache", "fp8"}};
  fp8_kv["constraints"]["gpus"] = {"T4"};
  const Plan cache =
      make_plan(parse_spec(fp8_kv, "fp8-kv.json"), catalog(), constants(), efficiency(), o);
  const Rejection* t4 = rejection_of(cache, "T4-16GB");
  REQUIRE(t4 != nullptr);
  CHECK(t4->code == "engine_support");
  REQUIRE(t4->fix);
  CHECK(t4->fix->pointer == "/precision/kv_cache");
  CHECK(t4->fix->value == "bf16");
  fp8_kv["precision"]["kv_cache"] = "bf16";
  CHECK(is_candidate(
      make_plan(parse_spec(fp8_kv, "fp8-kv.json"), catalog(), constants(), efficiency(), o),
      "T4-16GB"));
}

TEST_CASE("verdicts: the best row is over-provisioned when a MIG slice of it would do",
          "[plan][verdicts]") {
  // Defect: the best-ranked candidate could never be over-provisioned, and MIG slices were never
  // considered: a small model at a trickle of requests got a whole GPU, "right-sized".
  const nlohmann::json body{
      {"schema_version", 1},
      {"name", "tiny"},
      {"model", config_path("llama-3.2-3b")},
      {"workload",
       {{"type", "inference"},
        {"input_tokens", 512},
        {"output_tokens", 128},
        {"concurrency", 1},
        {"targets", {{"ttft_ms", 2000}, {"tpot_ms", 100}, {"requests_per_s", 0.05}}}}},
      {"constraints", {{"gpus", {"H100-SXM-80GB"}}}},
      {"deployment", {{"mode", "cloud"}, {"horizon_months", 12}}}};
  const Plan p = plan_of(body, "tiny.json");
  REQUIRE(p.feasible());
  const Candidate& best = p.candidates.front();
  CHECK(best.verdict == "over-provisioned");
  CHECK_THAT(best.verdict_reason, Catch::Contains("MIG slice") && Catch::Contains("g."));
}

TEST_CASE("verdicts: without targets, no reason speaks of beating or meeting one",
          "[plan][verdicts]") {
  // Defect: BGE-M3 embeddings at 16 in flight, no targets: the recommendation read "the cheapest
  // configuration that meets every target; uses 5% of the memory and beats every latency target
  // 99.0x over" (the margin of no target is 1e9, shown capped at 99).
  const nlohmann::json body{
      {"schema_version", 1},
      {"name", "bge"},
      {"model", config_path("encoder/bge-m3")},
      {"workload", {{"type", "embedding"}, {"input_tokens", 512}, {"concurrency", 16}}},
      {"deployment", {{"mode", "cloud"}, {"horizon_months", 12}}}};
  const Plan p = plan_of(body, "bge.json");
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    INFO(c.gpu->name << ": " << c.verdict << ", " << c.verdict_reason);
    CHECK(c.verdict_reason.find("target") == std::string::npos);
  }
  CHECK_THAT(p.candidates.front().verdict_reason,
             Catch::StartsWith("the cheapest configuration; uses "));
  // With a latency target the margin is still given.
  nlohmann::json with = body;
  with["workload"]["targets"] = {{"latency_ms", 5000}};
  const Plan q = plan_of(with, "bge.json");
  REQUIRE(q.feasible());
  CHECK_THAT(q.candidates.front().verdict_reason,
             Catch::Contains("meets every target") &&
                 Catch::Contains("beats every latency target"));
}

TEST_CASE("ranking: with no targets, plans rank by $ per million tokens at full load",
          "[plan][ranking]") {
  // Defect: a bare Llama-2-7B config picked "the cheapest box that loads the model": 1 x L4 at 28
  // tokens/s and $4.30/M tokens, while an L40S serves at $1.28/M.
  const nlohmann::json body = nlohmann::json::parse(std::ifstream(config_path("llama-2-7b")));
  const Spec spec = parse_spec(body, config_path("llama-2-7b"));
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty();
  const Plan p = make_plan(spec, catalog(), constants(), efficiency(), o);
  REQUIRE(p.feasible());
  CHECK(p.objective == Objective::cost_per_token);
  const double best = *p.candidates.front().cost.usd_per_million_at_full_load;
  for (const auto& c : p.candidates) {
    REQUIRE(c.cost.usd_per_million_at_full_load);
    CHECK(*c.cost.usd_per_million_at_full_load >= best);
  }
}

TEST_CASE("engine support: a GPU generation the engine does not run is rejected with the data's "
          "reason",
          "[plan][rejections]") {
  // Defect: T4 rows ran fp8 weights whatever the engine. SGLang does not run on Turing at all
  // (data/engines.json), so a T4 is no candidate for an SGLang deployment.
  nlohmann::json body = chat_70b(200);
  body["model"] = config_path("llama-3.1-8b");
  body["workload"]["engine"] = "sglang";
  body["constraints"] = {{"gpus", {"T4", "L4"}}};
  const Plan p = plan_with_engines(body, "sglang.json");
  const Rejection* t4 = rejection_of(p, "T4-16GB");
  REQUIRE(t4 != nullptr);
  CHECK(t4->code == "engine_support");
  CHECK_THAT(t4->reason, Catch::Contains("sm75"));
  for (const auto& c : p.candidates) {
    CHECK(c.gpu->name != "T4-16GB");
  }
}

TEST_CASE("compute rate: an fp32 encoder on transformers plans at the FP32 rate, and a GPU whose "
          "catalog entry has no FP32 figure is rejected with a proven fix",
          "[plan][rejections]") {
  // Defect: transformers listed no fp32 kernel, so an fp32 checkpoint (BGE-M3's, and every
  // config without torch_dtype) found nothing feasible on any GPU with "no change within the spec
  // helps"; estimate priced fp32 GEMMs at the bf16 tensor-core rate.
  const nlohmann::json body{{"schema_version", 1},
                            {"name", "bge-fp32"},
                            {"model", config_path("encoder/bge-m3")},
                            {"workload",
                             {{"type", "embedding"},
                              {"engine", "transformers"},
                              {"input_tokens", 512},
                              {"concurrency", 16}}},
                            {"constraints", {{"gpus", {"L4", "H100-SXM", "B200"}}}}};
  const Plan p = plan_with_engines(body, "bge.json");
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    CHECK(c.spec->precision.weights == DType::fp32);
    REQUIRE(c.inference);
    CHECK(c.inference->compute_precision == TensorPrecision::fp32);
  }
  CHECK(is_candidate(p, "L4-24GB"));
  CHECK(is_candidate(p, "H100-SXM-80GB"));
  const Rejection* b200 = rejection_of(p, "B200-SXM-180GB");
  REQUIRE(b200 != nullptr);
  CHECK(b200->code == "compute_rate");
  // (A GPU the spec pins that misses reads "under-provisioned: ...".)
  CHECK_THAT(b200->reason,
             Catch::EndsWith("the catalog has no fp32 rate for B200-SXM-180GB "
                             "(dense_tflop_per_s.fp32), which fp32 weights compute at"));
  REQUIRE(b200->fix);
  CHECK(b200->fix->pointer == "/precision/allow");
  CHECK(b200->fix->value == nlohmann::json{"bf16"});
  nlohmann::json fixed = body;
  fixed["precision"] = {{"allow", {"bf16"}}};
  CHECK(is_candidate(plan_with_engines(fixed, "bge.json"), "B200-SXM-180GB"));
}

TEST_CASE("engine support: an encoder in fp8 is not refused for a KV cache it does not keep",
          "[plan][rejections]") {
  // Defect: "precision": "fp8" names the KV cache format too, and the engine support check asked
  // for it: BGE-M3 in fp8 on transformers was rejected on every GPU with "transformers has no fp8
  // KV cache on sm90 (Hopper)", for an encoder that keeps no KV cache.
  const nlohmann::json body{{"schema_version", 1},
                            {"name", "bge-fp8"},
                            {"model", config_path("encoder/bge-m3")},
                            {"precision", "fp8"},
                            {"workload",
                             {{"type", "embedding"},
                              {"engine", "transformers"},
                              {"input_tokens", 512},
                              {"concurrency", 16}}},
                            {"constraints", {{"gpus", {"L4", "H100-SXM", "A100-SXM-80GB"}}}}};
  const Plan p = plan_with_engines(body, "bge.json");
  REQUIRE(p.feasible());
  for (const auto& c : p.candidates) {
    CHECK(c.spec->precision.weights == DType::fp8);
  }
  for (const auto& r : p.rejected) {
    CAPTURE(r.gpu);
    CHECK_THAT(r.reason, !Catch::Contains("KV cache"));
  }
  // The weights still need a kernel: Ampere has none for fp8 on transformers.
  const Rejection* a100 = rejection_of(p, "A100-SXM-80GB");
  REQUIRE(a100 != nullptr);
  CHECK(a100->code == "engine_support");
  CHECK_THAT(a100->reason, Catch::Contains("kernel for fp8 weights"));
}
