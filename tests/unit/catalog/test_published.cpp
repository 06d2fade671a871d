#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

std::string fixture() {
  return std::string(RIGHTSIZE_TESTS_DIR) + "/data/published/published.json";
}

std::string bundled() {
  return std::string(RIGHTSIZE_DATA_DIR) + "/published/published.json";
}

const std::string k_index = R"({
  "schema_version": 1,
  "sources": {"s": {"title": "t", "url": "u", "date": "2026", "method": "m"}},
  "models": {"m": {"name": "M", "results": "results.csv",
    "architecture": {"layers": 2, "hidden_size": 64, "heads": 4, "kv_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "parameters": 1000}}}
})";

const PublishedResult& by_id(const PublishedData& data, const std::string& id) {
  for (const auto& r : data.results) {
    if (r.id == id) {
      return r;
    }
  }
  FAIL("no result " << id);
  throw;
}

const std::string k_header = "id,source,location,model,model_name,system,gpu,gpus,tp,pp,ep,"
                             "engine,engine_version,weights,kv_cache,scenario,input_tokens,"
                             "output_tokens,lengths,batch,ttft_ms,tpot_ms,metric,scope,value\n";

// A results table of the header and one row, `row` given as its 25 fields.
std::string load_error(const std::string& row, const std::string& index = k_index) {
  const ScratchDir dir;
  dir.write("results.csv", k_header + row + "\n");
  const std::string path = dir.write("published.json", index);
  try {
    PublishedData data = load_published_index(path);
    load_published_results(data);
  } catch (const InputError& e) {
    std::string what = e.what();
    const std::string prefix = dir.path() + "/";
    for (auto at = what.find(prefix); at != std::string::npos; at = what.find(prefix)) {
      what.erase(at, prefix.size());
    }
    return what;
  }
  return "";
}

const std::string k_good =
    "r1,s,loc,m,M,sys,H100-SXM-80GB,2,2,,,vllm,,fp8,,offline,128,64,fixed,,,,output_tokens_per_s,"
    "system,100";

} // namespace

TEST_CASE("published: the fixture's index and results load field by field", "[published]") {
  PublishedData data = load_published_index(fixture());
  REQUIRE(data.sources.size() == 2);
  REQUIRE(data.models.size() == 2);
  CHECK(data.results.empty());
  const auto& m = data.models[1];
  CHECK(m.key == "llama-3.1-8b");
  CHECK(m.layers == 32);
  CHECK(m.kv_heads == 8);
  CHECK(m.parameters == 8030261248.0);
  // One model's table, then the rest: each read once.
  load_published_results(data, "llama-3.1-8b");
  CHECK(data.loaded == std::vector<std::string>{"llama-3.1-8b"});
  CHECK(data.results.size() == 8);
  load_published_results(data);
  REQUIRE(data.results.size() == 9);
  CHECK(data.is_loaded("llama-3.1-70b"));
  const auto& r = by_id(data, "trt-8b-h200-128-128");
  CHECK(r.id == "trt-8b-h200-128-128");
  CHECK(r.gpu == "H200-SXM-141GB");
  CHECK(r.tp == 1);
  CHECK(r.weights == "fp8");
  CHECK(r.kv_cache.empty());
  CHECK(r.scenario == PublishedScenario::offline);
  CHECK(r.output_tokens_per_s == 27911.0);
  // scope "gpu": the value times the run's GPUs.
  const auto& stat = by_id(data, "fixture-8b-h100-static");
  CHECK(stat.scenario == PublishedScenario::static_batch);
  CHECK(stat.batch == 64);
  CHECK(stat.output_tokens_per_s == 9000.0);
  const auto& server = by_id(data, "fixture-8b-h100-server");
  CHECK(server.scenario == PublishedScenario::server);
  CHECK(server.mean_lengths);
  CHECK(server.ttft_ms == 2000.0);
  CHECK(server.tpot_ms == 200.0);
  CHECK_FALSE(server.tp);
}

TEST_CASE("published: the bundled data loads, and each model is rightsize's reading of its "
          "config",
          "[published]") {
  PublishedData data = load_published_index(bundled());
  load_published_results(data);
  REQUIRE(data.results.size() >= 800);
  const Catalog catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  std::set<std::string> models;
  for (const auto& r : data.results) {
    INFO(r.id);
    CHECK(catalog.find(r.gpu) != nullptr);
    models.insert(r.model);
  }
  for (const auto& m : data.models) {
    INFO(m.key);
    CHECK(models.count(m.key) == 1);
    const Spec spec = load_spec(rightsize::test::config_path(m.key), SpecUse::describe);
    CHECK(spec.model.layers == m.layers);
    CHECK(spec.model.hidden == m.hidden);
    CHECK(spec.model.heads == m.heads);
    CHECK(spec.model.kv_heads == m.kv_heads);
    CHECK(spec.model.intermediate == m.intermediate);
    CHECK(spec.model.vocab == m.vocab);
    CHECK(spec.model.experts == m.experts);
    CHECK(spec.model.experts_active == m.experts_active);
    CHECK(spec.model.moe_intermediate ==
          (m.experts > 0 ? m.moe_intermediate : spec.model.moe_intermediate));
    CHECK(spec.model.params.total() == m.parameters);
  }
}

TEST_CASE("published: the runs a filter keeps are those it keeps of the loaded table",
          "[published]") {
  // The bundled tables (read past in the embedded blob) and the fixture's (parsed from the file).
  for (const auto& index : {bundled(), fixture()}) {
    CAPTURE(index);
    PublishedData loaded = load_published_index(index);
    load_published_results(loaded);
    const PublishedData fresh = load_published_index(index);
    for (const auto& model : fresh.models) {
      CAPTURE(model.key);
      const auto keep = [](const PublishedResult& r) {
        return r.weights == "fp8" && r.gpu.find("H100") != std::string::npos;
      };
      std::vector<std::string> expected;
      for (const auto& r : loaded.results) {
        if (r.model == model.key && keep(r)) {
          expected.push_back(r.id);
        }
      }
      const auto ids = [](const std::vector<PublishedResult>& rows) {
        std::vector<std::string> out;
        for (const auto& r : rows) {
          out.push_back(r.id);
        }
        return out;
      };
      // From the table, without adding anything to the data; and from the loaded runs.
      CHECK(ids(published_results_where(fresh, model, keep)) == expected);
      CHECK(ids(published_results_where(loaded, model, keep)) == expected);
      // Every run kept: each as the full load reads it.
      const auto all = published_results_where(fresh, model, [](const auto&) { return true; });
      std::size_t i = 0;
      for (const auto& r : loaded.results) {
        if (r.model != model.key) {
          continue;
        }
        REQUIRE(i < all.size());
        CHECK(all[i].id == r.id);
        CHECK(all[i].location == r.location);
        CHECK(all[i].engine_version == r.engine_version);
        CHECK(all[i].tp == r.tp);
        CHECK(all[i].ttft_ms == r.ttft_ms);
        CHECK(all[i].output_tokens_per_s == r.output_tokens_per_s);
        ++i;
      }
      CHECK(i == all.size());
    }
    CHECK(fresh.results.empty());
    CHECK(fresh.loaded.empty());
  }
}

TEST_CASE("published: a filter that keeps no run still reads its table whole", "[published]") {
  const ScratchDir dir;
  dir.write("results.csv", k_header + k_good + "\n" + k_good + "\n");
  const PublishedData data = load_published_index(dir.write("published.json", k_index));
  CHECK_THROWS_WITH(
      published_results_where(data, data.models.at(0), [](const auto&) { return false; }),
      Catch::Contains("results.csv:3: column \"id\": appears twice"));
}

TEST_CASE("published: a bad record names the file, the line and the column", "[published]") {
  CHECK(load_error(k_good).empty());
  CHECK(load_error(k_good + "\n" + k_good) ==
        "results.csv:3: column \"id\": appears twice, got \"r1\"");
  CHECK(load_error("r1,t,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,offline,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100") ==
        "results.csv:2: column \"source\": names no source of published.json (did you mean "
        "\"s\"?), got \"t\"");
  CHECK(load_error("r1,s,loc,m,M,sys,H100,3,2,,,vllm,,fp8,,offline,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100") ==
        "results.csv:2: column \"gpus\": must be a multiple of tp x pp = 2, got \"3\"");
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp9,,offline,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100")
            .rfind("results.csv:2: column \"weights\": must be one of fp32, bf16", 0) == 0);
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,server,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100") ==
        "results.csv:2: column \"ttft_ms\": server and interactive results state both latency "
        "limits; other scenarios none");
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,static-batch,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100") ==
        "results.csv:2: column \"batch\": is given exactly for the static-batch scenario");
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,offline,,64,fixed,,,,"
                   "output_tokens_per_s,system,100") ==
        "results.csv:2: column \"input_tokens\": required field is empty");
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,offline,128,64,fixed,,,,"
                   "samples_per_s,system,100") ==
        "results.csv:2: column \"metric\": must be one of output_tokens_per_s, got "
        "\"samples_per_s\"");
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,offline,128,64,fixed,,,,"
                   "output_tokens_per_s,system,-5") ==
        "results.csv:2: column \"value\": must be > 0 and <= 1e+12, got \"-5\"");
  CHECK(load_error("r1,s,loc,llama,M,sys,H100,2,2,,,vllm,,fp8,,offline,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100") ==
        "results.csv:2: column \"model\": names no model of published.json, got \"llama\"");
  // A model's table holds that model's runs only.
  const std::string two_models = R"({
  "schema_version": 1,
  "sources": {"s": {"title": "t", "url": "u", "date": "2026", "method": "m"}},
  "models": {
    "m": {"name": "M", "results": "results.csv", "architecture": {"layers": 2, "hidden_size": 64,
      "heads": 4, "kv_heads": 4, "intermediate_size": 128, "vocab_size": 100, "parameters": 1000}},
    "n": {"name": "N", "results": "n.csv", "architecture": {"layers": 3, "hidden_size": 64,
      "heads": 4, "kv_heads": 4, "intermediate_size": 128, "vocab_size": 100, "parameters": 1500}}}
})";
  CHECK(load_error("r1,s,loc,n,N,sys,H100,2,2,,,vllm,,fp8,,offline,128,64,fixed,,,,"
                   "output_tokens_per_s,system,100",
                   two_models) ==
        "results.csv:2: column \"model\": must be m: this is that model's results table, got "
        "\"n\"");
  // A dataset's mean input length may be unknown; a fixed one may not.
  CHECK(load_error("r1,s,loc,m,M,sys,H100,2,2,,,vllm,,fp8,,offline,,64,mean,,,,"
                   "output_tokens_per_s,system,100")
            .empty());
}

TEST_CASE("published: a bad index names the file and the field", "[published]") {
  const ScratchDir dir;
  auto index = nlohmann::json::parse(k_index);
  index["models"]["m"]["architecture"]["experts"] = 8;
  const std::string path = dir.write("published.json", index.dump());
  REQUIRE_THROWS_WITH(load_published_index(path),
                      Catch::Contains("published.json:/models/m/architecture: experts_active must "
                                      "be between 1 and experts"));
  index = nlohmann::json::parse(k_index);
  index["models"]["m"]["results"] = "../results.csv";
  dir.write("published.json", index.dump());
  REQUIRE_THROWS_WITH(load_published_index(path),
                      Catch::Contains("published.json:/models/m/results: must name a file beside "
                                      "the index or below it"));
  index = nlohmann::json::parse(k_index);
  index["sources"]["s"]["titel"] = "x";
  dir.write("published.json", index.dump());
  REQUIRE_THROWS_WITH(load_published_index(path),
                      Catch::Contains("unknown field \"titel\" (did you mean \"title\"?)"));
  index = nlohmann::json::parse(k_index);
  index["sources"]["Bad Key"] = index["sources"]["s"];
  dir.write("published.json", index.dump());
  REQUIRE_THROWS_WITH(load_published_index(path),
                      Catch::Contains("key \"Bad Key\" must be 1-120 characters"));
}
