#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/plan/plan.hpp>
#include <rightsize/plan/precision.hpp>
#include <rightsize/plan/published.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

// The fixture's index, no results table read.
PublishedData fixture_index() {
  return load_published_index(std::string(RIGHTSIZE_TESTS_DIR) + "/data/published/published.json");
}

PublishedData fixture() {
  PublishedData data = fixture_index();
  load_published_results(data);
  return data;
}

const PublishedResult& result(const PublishedData& data, const std::string& id) {
  for (const auto& r : data.results) {
    if (r.id == id) {
      return r;
    }
  }
  FAIL("no result " << id);
  throw;
}

Spec spec_of(const std::string& model, nlohmann::json workload = nullptr) {
  nlohmann::json j{{"model", config_path(model)}};
  if (!workload.is_null()) {
    j["workload"] = std::move(workload);
  }
  return parse_spec(j, "test.json");
}

// An 8B chat plan on TensorRT-LLM in FP8, whose runs the fixture publishes.
Plan fp8_chat_plan(const PlanOptions& options) {
  const Spec spec = spec_of("llama-3.1-8b",
                            {{"type", "inference"},
                             {"input_tokens", 2048},
                             {"output_tokens", 128},
                             {"concurrency", 16},
                             {"engine", "tensorrt-llm"}});
  return make_plan(
      with_precision(spec, DType::fp8, DType::fp8), catalog(), constants(), efficiency(), options);
}

} // namespace

TEST_CASE("published: a spec's model matches the published architecture it has", "[published]") {
  const PublishedData data = fixture();
  const auto* m = match_published_model(spec_of("llama-3.1-8b").model, data);
  REQUIRE(m != nullptr);
  CHECK(m->key == "llama-3.1-8b");
  // An AWQ checkpoint of the same model is the same architecture.
  m = match_published_model(spec_of("llama-3.1-8b-awq").model, data);
  REQUIRE(m != nullptr);
  CHECK(m->key == "llama-3.1-8b");
  CHECK(match_published_model(spec_of("llama-3.1-70b").model, data)->key == "llama-3.1-70b");
  // Mistral 7B has Llama 8B's layers, heads and MLP, but not its widths.
  CHECK(match_published_model(spec_of("mistral-7b-v0.1").model, data) == nullptr);
  CHECK(match_published_model(spec_of("qwen3-8b").model, data) == nullptr);
}

TEST_CASE("published: an offline run is the run's layout at the largest batch that fits",
          "[published]") {
  const PublishedData data = fixture();
  const Spec chat = spec_of("llama-3.1-8b",
                            {{"type", "inference"},
                             {"input_tokens", 4000},
                             {"output_tokens", 100},
                             {"concurrency", 7},
                             {"engine", "vllm"}});
  const auto& r = result(data, "trt-8b-h200-2048-128");
  const auto p =
      predict_published(chat, r, data, catalog(), constants(), efficiency(), &uncertainty());
  REQUIRE(p.predicted);
  CHECK(p.unpredicted.empty());
  CHECK(p.layout.tp == 1);
  CHECK_FALSE(p.layout_chosen);
  CHECK(p.replicas == 1);
  CHECK(p.weights == "fp8");
  // Not stated by the source: TensorRT-LLM keeps the KV cache in FP8 when it quantizes to FP8.
  CHECK(p.kv_cache == "fp8");
  CHECK(p.kv_cache_assumed);
  // The same run estimated by hand: the spec's lengths, engine and concurrency replaced by the
  // run's, offline.
  Spec run = spec_of("llama-3.1-8b",
                     {{"type", "inference"},
                      {"input_tokens", 2048},
                      {"output_tokens", 128},
                      {"engine", "tensorrt-llm"}});
  run = with_precision(run, DType::fp8, DType::fp8);
  const Gpu& h200 = catalog().resolve("H200-SXM-141GB", "test");
  Parallelism tp1;
  const MemoryEstimate memory = estimate_memory(run, h200, tp1, constants());
  const auto perf = estimate_inference(run, h200, tp1, memory, efficiency(), constants());
  CHECK(p.batch == memory.batch);
  CHECK(*p.predicted == Approx(perf.output_tokens_per_s).epsilon(1e-12));
  CHECK(p.error() == Approx(*p.predicted / 3538.0 - 1.0));
  REQUIRE(p.band);
  CHECK(p.band->low < *p.predicted);
  CHECK(p.band->high > *p.predicted);
}

TEST_CASE("published: a static batch is prefilled in one step, then decoded together",
          "[published]") {
  const PublishedData data = fixture();
  const auto& r = result(data, "fixture-8b-h100-static");
  const Spec spec = spec_of("llama-3.1-8b");
  const auto p =
      predict_published(spec, r, data, catalog(), constants(), efficiency(), &uncertainty());
  REQUIRE(p.predicted);
  CHECK(p.batch == 64);
  Spec run = spec_of("llama-3.1-8b",
                     {{"type", "inference"},
                      {"input_tokens", 128},
                      {"output_tokens", 128},
                      {"engine", "tensorrt-llm"}});
  run = with_precision(run, DType::fp8, DType::fp8);
  const Gpu& h100 = catalog().resolve("H100-SXM-80GB", "test");
  Parallelism tp1;
  const MemoryEstimate memory = estimate_memory(run, h100, tp1, constants(), 64);
  const auto perf = estimate_inference(run, h100, tp1, memory, efficiency(), constants());
  const double prefill =
      prefill_step_time(run, h100, tp1, efficiency(), 64.0 * 128, 128).total().si();
  const double expected = 64.0 * 128 / (prefill + perf.decode_step.si() * 128);
  CHECK(*p.predicted == Approx(expected).epsilon(1e-12));
  // 64 x 128 output tokens in one prefill and 128 decode steps: far below the continuous rate's
  // ceiling, which would hide the prefill behind other sequences' decode.
  CHECK(*p.predicted < 64.0 / perf.decode_step.si());
}

TEST_CASE("published: a server run takes the most sequences within the scenario's limits",
          "[published]") {
  PublishedData data = fixture();
  // The fixture's server run has lengths of ~300/300 on 8 x H100, layout not published.
  const auto& r = result(data, "fixture-8b-h100-server");
  const Spec spec = spec_of("llama-3.1-8b");
  const auto p =
      predict_published(spec, r, data, catalog(), constants(), efficiency(), &uncertainty());
  REQUIRE(p.predicted);
  CHECK(p.layout_chosen);
  CHECK(p.replicas * p.layout.tp == 8);
  // At the batch found the limits hold; one more sequence breaks one of them (or none fits).
  Spec run = spec_of("llama-3.1-8b",
                     {{"type", "inference"},
                      {"input_tokens", 300},
                      {"output_tokens", 300},
                      {"engine", "tensorrt-llm"}});
  run = with_precision(run, DType::fp8, DType::fp8);
  const Gpu& h100 = catalog().resolve("H100-SXM-80GB", "test");
  const auto at = [&](long long batch) {
    Spec online = run;
    online.workload.inference.concurrency = batch * p.replicas;
    const auto memory = estimate_memory(online, h100, p.layout, constants(), batch);
    return estimate_inference(
        online, h100, p.layout, memory, efficiency(), constants(), p.replicas);
  };
  const auto found = at(p.batch);
  CHECK(found.ttft.si() <= 2.0);
  CHECK(found.tpot.si() <= 0.2);
  CHECK(*p.predicted == Approx(found.output_tokens_per_s).epsilon(1e-12));
  const long long fits = estimate_memory(run, h100, p.layout, constants()).max_batch;
  if (p.batch < fits) {
    const auto more = at(p.batch + 1);
    CHECK((more.ttft.si() > 2.0 || more.tpot.si() > 0.2));
  }
}

TEST_CASE("published: runs rightsize cannot predict say why", "[published]") {
  const PublishedData data = fixture();
  const Spec spec = spec_of("llama-3.1-8b");
  const auto why = [&](const std::string& id) {
    const auto p = predict_published(
        spec, result(data, id), data, catalog(), constants(), efficiency(), &uncertainty());
    CHECK_FALSE(p.predicted);
    return p.unpredicted;
  };
  CHECK(why("fixture-8b-h300") == "H300-SXM-999GB is not in the catalog");
  CHECK(why("fixture-8b-h100-unstated-tp2") == "the run's weight format is not published");
  // Not predicted, the run still shows its published layout.
  const auto unstated = predict_published(spec,
                                          result(data, "fixture-8b-h100-unstated-tp2"),
                                          data,
                                          catalog(),
                                          constants(),
                                          efficiency(),
                                          nullptr);
  CHECK(unstated.layout.tp == 2);
  CHECK(unstated.weights == "?");
  CHECK(why("fixture-8b-mi300x-other") ==
        "rightsize does not model this engine (an engine rightsize does not model)");
  // A Llama 3.1 8B config cut to a 1024-token context cannot hold 1000 + 1000 tokens.
  nlohmann::json short_context = nlohmann::json::parse(std::ifstream(config_path("llama-3.1-8b")));
  short_context["max_position_embeddings"] = 1024;
  const Spec small = parse_spec({{"model", short_context}}, "short.json");
  const auto p = predict_published(small,
                                   result(data, "trt-8b-h100-1000-1000"),
                                   data,
                                   catalog(),
                                   constants(),
                                   efficiency(),
                                   nullptr);
  CHECK(p.unpredicted ==
        "1000 + 1000 tokens exceed the model's context of 1024 tokens in the spec's config");
}

TEST_CASE("published: the run nearest a configuration has its GPU, GPUs per replica, weights "
          "and lengths within 2.5x",
          "[published]") {
  const PublishedData data = fixture();
  const PublishedModel& model = data.models[1];
  REQUIRE(model.key == "llama-3.1-8b");
  const auto nearest = [&](long long in, long long out, const std::string& gpu, int tp, DType w) {
    const Spec s = spec_of("llama-3.1-8b",
                           {{"type", "inference"}, {"input_tokens", in}, {"output_tokens", out}});
    Parallelism p;
    p.tp = tp;
    const auto* r = nearest_published(s, gpu, p, w, data, model);
    return r == nullptr ? std::string("none") : r->id;
  };
  CHECK(nearest(2048, 200, "H200-SXM-141GB", 1, DType::fp8) == "trt-8b-h200-2048-128");
  CHECK(nearest(200, 200, "H200-SXM-141GB", 1, DType::fp8) == "trt-8b-h200-128-128");
  // Output 4x the published one: too far.
  CHECK(nearest(2048, 512, "H200-SXM-141GB", 1, DType::fp8) == "none");
  CHECK(nearest(2048, 200, "H200-SXM-141GB", 1, DType::bf16) == "none");
  CHECK(nearest(2048, 200, "H200-SXM-141GB", 2, DType::fp8) == "none");
  // The static batch is the only H100 TP1 run near 128/128 (1000/1000 is 7.8x away).
  CHECK(nearest(128, 128, "H100-SXM-80GB", 1, DType::fp8) == "fixture-8b-h100-static");
  // The server run publishes no layout: any GPUs per replica; its input length is a mean.
  CHECK(nearest(300, 300, "H100-SXM-80GB", 4, DType::fp8) == "fixture-8b-h100-server");
}

TEST_CASE("published: a plan's serving candidates carry their nearest published run",
          "[published]") {
  PublishedData data = fixture_index();
  const PlanOptions options = rightsize::test::cli_plan_options("2026-11-21");
  Plan plan = fp8_chat_plan(options);
  attach_published(plan, data, catalog(), constants(), efficiency(), options);
  // The plan's model's runs on its candidates' GPUs were read (published_results_where), none
  // kept in `data`.
  CHECK(data.loaded.empty());
  CHECK(data.results.empty());
  bool seen = false;
  for (const auto& c : plan.candidates) {
    if (c.gpu->name == "H200-SXM-141GB" && c.layout.tp == 1) {
      REQUIRE(c.published);
      CHECK(c.published->result.id == "trt-8b-h200-2048-128");
      CHECK(c.published->predicted);
      seen = true;
    } else if (c.gpu->name == "L4-24GB") {
      CHECK_FALSE(c.published);
    }
  }
  CHECK(seen);
}

TEST_CASE("published: a plan's nearest runs are the same with its model's results loaded first",
          "[published]") {
  const PublishedData index = fixture_index();
  const PlanOptions options = rightsize::test::cli_plan_options("2026-11-21");
  const Plan plan = fp8_chat_plan(options);
  PublishedData fresh = index;
  Plan from_table = plan;
  attach_published(from_table, fresh, catalog(), constants(), efficiency(), options);
  PublishedData loaded = index;
  load_published_results(loaded);
  Plan from_loaded = plan;
  attach_published(from_loaded, loaded, catalog(), constants(), efficiency(), options);
  REQUIRE(from_table.candidates.size() == from_loaded.candidates.size());
  int with_run = 0;
  for (std::size_t i = 0; i < from_table.candidates.size(); ++i) {
    const auto& a = from_table.candidates[i].published;
    const auto& b = from_loaded.candidates[i].published;
    REQUIRE((a == nullptr) == (b == nullptr));
    if (a) {
      CHECK(a->result.id == b->result.id);
      CHECK(a->predicted == b->predicted);
      ++with_run;
    }
  }
  CHECK(with_run > 0);
}

TEST_CASE("published: an infeasible plan reads no results table", "[published]") {
  PublishedData data = fixture_index();
  const Spec spec = spec_of("llama-3.1-8b",
                            {{"type", "inference"},
                             {"input_tokens", 2048},
                             {"output_tokens", 128},
                             {"concurrency", 16},
                             {"targets", {{"ttft_ms", 0.001}}}});
  const PlanOptions options = rightsize::test::cli_plan_options("2026-11-21");
  Plan plan = make_plan(spec, catalog(), constants(), efficiency(), options);
  REQUIRE_FALSE(plan.feasible());
  attach_published(plan, data, catalog(), constants(), efficiency(), options);
  CHECK(data.loaded.empty());
}
