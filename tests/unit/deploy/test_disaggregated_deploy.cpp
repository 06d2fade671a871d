// rightsize deploy of a disaggregated configuration (issue 46; docs/deploy.md, "Disaggregated
// serving"): llm-d's DisaggregatedSet carries the plan's pools, each pool's engine words and
// capacity, the decode pods' routing sidecar; TensorRT-LLM (no llm-d recipe) is refused by the
// library and the data is read strictly.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/deploy/deploy.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/plan/evaluate.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/render/deploy.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <yaml-cpp/yaml.h>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

const char* const k_today = "2026-11-21";

const DeployData& deploy_data() {
  static const DeployData d = load_deploy_data(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  return d;
}

DeployInputs inputs() {
  return {constants(), efficiency(), &uncertainty(), Confidence::band, deploy_data()};
}

DeployOptions options() {
  DeployOptions o;
  o.model_uri = "deepseek-ai/DeepSeek-V3";
  return o;
}

Spec long_prompts(const char* engine) {
  Spec spec = load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/deepseek-v3-long-prompts.json");
  spec.workload.inference.engine = *k_engine_names.find(engine);
  return spec;
}

Plan plan_of(const Spec& spec) {
  return make_plan(
      spec, catalog(), constants(), efficiency(), rightsize::test::cli_plan_options(k_today));
}

// The DeepSeek-V3 example's B200 pools, 2 prefill + 3 decode replicas of TP8 with fp8 weights
// and KV cache, evaluated as `deploy --lock` would for `engine`.
Candidate locked_pools(const Spec& spec) {
  ConfigurationRef ref;
  ref.gpu = "B200-SXM-180GB";
  ref.layout = serving_parallelism(8);
  ref.replicas = 5;
  ref.disaggregated = true;
  ref.prefill_replicas = 2;
  ref.weights = DType::fp8;
  ref.kv_cache = DType::fp8;
  const ConfigurationEvaluation e = evaluate_configuration(
      spec, catalog(), constants(), efficiency(), rightsize::test::cli_plan_options(k_today), ref);
  REQUIRE(e.candidate);
  REQUIRE(e.candidate->disaggregation);
  return *e.candidate;
}

std::vector<YAML::Node> as_yaml(const DeployReport& r) {
  std::ostringstream out;
  render_deploy_yaml(r, out);
  return YAML::LoadAll(out.str());
}

std::vector<std::string> strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const auto& n : seq) {
    out.push_back(n.as<std::string>());
  }
  return out;
}

std::string flag_value(const std::vector<std::string>& args, const std::string& flag) {
  const auto it = std::find(args.begin(), args.end(), flag);
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

// A role of the DisaggregatedSet: its spec.
YAML::Node role(const YAML::Node& set, const std::string& name) {
  for (const auto& r : set["spec"]["roles"]) {
    if (r["name"].as<std::string>() == name) {
      return r["spec"];
    }
  }
  FAIL("no role " << name);
  throw;
}

YAML::Node pod(const YAML::Node& role_spec) {
  return role_spec["leaderWorkerTemplate"]["workerTemplate"];
}

} // namespace

TEST_CASE("deploy: a disaggregated recommendation is llm-d's DisaggregatedSet of its pools",
          "[deploy][disaggregation]") {
  const Spec spec = long_prompts("sglang");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  REQUIRE(c.disaggregation); // the plan's recommendation (tests/unit/plan/test_disaggregation.cpp)
  const DisaggregatedPerformance& pools = c.disaggregation->pools;

  const DeployReport r = make_deployment(plan, inputs(), options());
  REQUIRE(r.prefill);
  const auto docs = as_yaml(r);
  // The DisaggregatedSet and a PodDisruptionBudget per pool: no Service, no autoscaler.
  std::vector<std::string> kinds;
  for (const auto& d : docs) {
    kinds.push_back(d["kind"].as<std::string>() + "/" + d["metadata"]["name"].as<std::string>());
  }
  // The model cache both pools mount first.
  CHECK(kinds ==
        std::vector<std::string>{"PersistentVolumeClaim/deepseek-v3-long-prompts-model-cache",
                                 "DisaggregatedSet/deepseek-v3-long-prompts",
                                 "PodDisruptionBudget/deepseek-v3-long-prompts-prefill",
                                 "PodDisruptionBudget/deepseek-v3-long-prompts-decode"});
  CHECK(docs.front()["spec"]["accessModes"][0].as<std::string>() == "ReadWriteMany");
  const YAML::Node set = docs.at(1);
  CHECK(set["apiVersion"].as<std::string>() == "disaggregatedset.x-k8s.io/v1");
  const YAML::Node prefill = role(set, "prefill");
  const YAML::Node decode = role(set, "decode");
  // The plan's pools, one pod (8 GPUs) a replica.
  CHECK(prefill["replicas"].as<int>() == pools.layout.prefill.replicas);
  CHECK(decode["replicas"].as<int>() == pools.layout.decode.replicas);
  CHECK(prefill["replicas"].as<int>() + decode["replicas"].as<int>() == c.replicas);
  CHECK(prefill["leaderWorkerTemplate"]["size"].as<int>() == 1);
  const auto engine = [](const YAML::Node& p) { return p["spec"]["containers"][0]; };
  CHECK(engine(pod(decode))["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 8);
  // Labels llm-d's router reads: serving, and the pool's role.
  CHECK(pod(prefill)["metadata"]["labels"]["llm-d.ai/role"].as<std::string>() == "prefill");
  CHECK(pod(decode)["metadata"]["labels"]["llm-d.ai/role"].as<std::string>() == "decode");
  CHECK(pod(decode)["metadata"]["labels"]["llm-d.ai/inference-serving"].as<std::string>() ==
        "true");
  // Each pool's own words: SGLang's disaggregation mode over NIXL.
  const auto pc = strings(engine(pod(prefill))["command"]);
  const auto dc = strings(engine(pod(decode))["command"]);
  CHECK(flag_value(pc, "--disaggregation-mode") == "prefill");
  CHECK(flag_value(dc, "--disaggregation-mode") == "decode");
  CHECK(flag_value(dc, "--disaggregation-transfer-backend") == "nixl");
  CHECK(flag_value(pc, "--tp-size") == "8");
  // The prefill engine serves on the engine's port, the decode engine on 8200 behind llm-d's
  // routing sidecar, which takes the engine's port and points at 8200.
  CHECK(flag_value(pc, "--port") == "30000");
  CHECK(flag_value(dc, "--port") == "8200");
  // After the weights' download into the model cache, which every pod runs first.
  REQUIRE(pod(decode)["spec"]["initContainers"].size() == 2);
  CHECK(pod(decode)["spec"]["initContainers"][0]["name"].as<std::string>() == "weights");
  const YAML::Node sidecar = pod(decode)["spec"]["initContainers"][1];
  CHECK(sidecar["restartPolicy"].as<std::string>() == "Always");
  CHECK(sidecar["ports"][0]["containerPort"].as<int>() == 30000);
  const auto sa = strings(sidecar["args"]);
  CHECK(std::find(sa.begin(), sa.end(), "--kv-connector=sglang") != sa.end());
  CHECK(std::find(sa.begin(), sa.end(), "--model-server-port=8200") != sa.end());
  REQUIRE(pod(prefill)["spec"]["initContainers"].size() == 1);
  CHECK(pod(prefill)["spec"]["initContainers"][0]["name"].as<std::string>() == "weights");
  // SGLang's bootstrap server runs on the prefill pods only.
  CHECK(engine(pod(prefill))["ports"].size() == 2);
  CHECK(engine(pod(decode))["ports"].size() == 1);

  // Capacities: a prefill replica holds all the prompts that fit; a decode replica at least the
  // plan's batch and at most what fits, held by TTFT and TPOT at the band's edge.
  // A prefill replica keeps prompts only: 248 whole 9,216-token sequences fit its KV cache, so
  // 248 x 9216 / 8192 = 279 8,192-token prompts do.
  REQUIRE(pools.prefill_memory.max_batch == 248);
  CHECK(r.prefill->capacity_per_replica == 279);
  CHECK(flag_value(pc, "--max-running-requests") ==
        std::to_string(r.prefill->capacity_per_replica));
  CHECK(r.settings.planned_per_replica ==
        static_cast<long long>(std::ceil(pools.decode_batch - 1e-9)));
  CHECK(r.settings.capacity_per_replica >= r.settings.planned_per_replica);
  CHECK(r.settings.capacity_per_replica <= pools.decode_max_batch);
  CHECK(flag_value(dc, "--max-running-requests") ==
        std::to_string(r.settings.capacity_per_replica));
  // The capacity is where the targets stop: counted up from the plan's load one request at a time
  // (the deploy bisects), the last load at which the targets hold runs that many sequences a
  // decode replica.
  REQUIRE(r.settings.latency_bound);
  const DisaggregatedLayout& l = pools.layout;
  const DisaggregatedEstimator e(
      *c.spec, *c.gpu, l.prefill.layout, l.decode.layout, constants(), efficiency());
  const DisaggregatedBands b = disaggregated_bands(
      uncertainty(), efficiency().family_name(*c.gpu), engine_band_key(*c.spec, efficiency()));
  const auto& targets = c.spec->workload.inference.targets;
  REQUIRE(targets.tpot); // the example's one target: 40 ms per output token
  const auto holds = [&](long long concurrency) {
    const DisaggregatedPerformance d =
        e(l.prefill.replicas, l.decode.replicas, concurrency, Detail::numbers);
    return d.limited_by.empty() &&
           !(targets.ttft && d.perf.ttft.si() * b.ttft.high_ratio > targets.ttft->si()) &&
           !(targets.tpot && d.perf.tpot.si() * b.tpot.high_ratio > targets.tpot->si());
  };
  long long load = *c.spec->workload.inference.concurrency;
  REQUIRE(holds(load));
  while (holds(load + 1)) {
    ++load;
  }
  const double batch = e(l.prefill.replicas, l.decode.replicas, load, Detail::numbers).decode_batch;
  CHECK(r.settings.capacity_per_replica == static_cast<long long>(std::ceil(batch - 1e-9)));
  // Each pool's memory fraction from its own estimate.
  CHECK(flag_value(pc, "--mem-fraction-static") ==
        fmt::format(
            "{:.2f}",
            std::floor(pools.prefill_memory.budget / pools.prefill_memory.capacity * 100 + 1e-9) /
                100));
}

TEST_CASE("deploy: vLLM's pools as llm-d's guide runs them, NIXL over the pod's IP",
          "[deploy][disaggregation]") {
  const Spec spec = long_prompts("vllm");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate locked = locked_pools(spec);
  const DeployReport r = make_deployment(plan, inputs(), options(), &locked);
  const auto docs = as_yaml(r);
  const YAML::Node set = docs.at(1);
  REQUIRE(set["kind"].as<std::string>() == "DisaggregatedSet");
  CHECK(role(set, "prefill")["replicas"].as<int>() == 2);
  CHECK(role(set, "decode")["replicas"].as<int>() == 3);
  const auto engine = [&](const char* name) {
    return pod(role(set, name))["spec"]["containers"][0];
  };
  const auto pc = strings(engine("prefill")["command"]);
  const auto dc = strings(engine("decode")["command"]);
  const auto connector = [](const std::vector<std::string>& args) {
    return nlohmann::json::parse(flag_value(args, "--kv-transfer-config"));
  };
  CHECK(connector(pc)["kv_connector"] == "NixlConnector");
  CHECK(connector(pc)["kv_role"] == "kv_producer");
  CHECK(connector(dc)["kv_role"] == "kv_consumer");
  CHECK(flag_value(pc, "--port") == "8000");
  CHECK(flag_value(dc, "--port") == "8200");
  for (const char* name : {"prefill", "decode"}) {
    const YAML::Node c = engine(name);
    std::map<std::string, YAML::Node> env;
    for (const auto& v : c["env"]) {
      env.emplace(v["name"].as<std::string>(), static_cast<const YAML::Node&>(v));
    }
    REQUIRE(env.count("VLLM_NIXL_SIDE_CHANNEL_HOST") == 1);
    CHECK(env["VLLM_NIXL_SIDE_CHANNEL_HOST"]["valueFrom"]["fieldRef"]["fieldPath"]
              .as<std::string>() == "status.podIP");
    // Longer than the sidecar's 90 s idle connections (llm-d's guide).
    CHECK(env["VLLM_HTTP_TIMEOUT_KEEP_ALIVE"]["value"].as<std::string>() == "120");
    CHECK(c["ports"][1]["containerPort"].as<int>() == 5600);
  }
  const auto sa = strings(pod(role(set, "decode"))["spec"]["initContainers"][1]["args"]);
  CHECK(sa == std::vector<std::string>{"--port=8000",
                                       "--model-server-port=8200",
                                       "--kv-connector=nixlv2",
                                       "--secure-proxy=false"});
  // The header says what it is and what each replica holds.
  const std::string header = deploy_header(r);
  CHECK_THAT(header, Catch::Contains("disaggregated as 2 prefill + 3 decode replicas"));
  CHECK_THAT(header, Catch::Contains("under llm-d"));
}

TEST_CASE("deploy: a disaggregated configuration needs an engine with an llm-d recipe",
          "[deploy][disaggregation]") {
  const Spec spec = long_prompts("tensorrt-llm");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate locked = locked_pools(spec);
  CHECK_THROWS_WITH(make_deployment(plan, inputs(), options(), &locked),
                    Catch::Contains("cannot write for llm-d") &&
                        Catch::Contains("no llm-d recipe for tensorrt-llm"));
}

TEST_CASE("deploy: data/deploy.json's disaggregation recipes are read strictly",
          "[deploy][disaggregation]") {
  std::ifstream in(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  const nlohmann::json good = nlohmann::json::parse(in);
  CHECK(parse_deploy_data(good, "deploy.json").engines.at("vllm").disaggregation);
  CHECK_FALSE(parse_deploy_data(good, "deploy.json").engines.at("tensorrt-llm").disaggregation);
  const auto fails = [&](const std::function<void(nlohmann::json&)>& edit,
                         const std::string& where) {
    nlohmann::json j = good;
    edit(j);
    CHECK_THROWS_WITH(parse_deploy_data(j, "deploy.json"), Catch::Contains(where));
  };
  fails([](auto& j) { j["engines"]["vllm"]["disaggregation"]["decode_port"] = 8000; },
        "/engines/vllm/disaggregation/decode_port");
  fails([](auto& j) { j["engines"]["sglang"]["disaggregation"]["transfer_port"]["roles"] = {"x"}; },
        "/engines/sglang/disaggregation/transfer_port/roles");
  fails([](auto& j) { j["engines"]["vllm"]["disaggregation"]["sidecar"] = 1; },
        "/engines/vllm/disaggregation");
  fails([](auto& j) { j["llm_d"].erase("sidecar_image"); }, "/llm_d");
  fails([](auto& j) { j["llm_d"]["source"] = ""; }, "/llm_d/source");
}

TEST_CASE("deploy: disaggregated pools are fixed, and growth past them is a note",
          "[deploy][disaggregation]") {
  Spec spec = long_prompts("sglang");
  spec.deployment.growth_per_month = 0.1;
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  REQUIRE(c.disaggregation);
  long long peak = 0;
  for (const auto& m : c.cost.months) {
    peak = std::max(peak, m.replicas);
  }
  REQUIRE(peak > c.replicas);
  const DeployReport r = make_deployment(plan, inputs(), options());
  CHECK_FALSE(r.settings.autoscaled);
  const auto note = std::find_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("demand growth") != std::string::npos;
  });
  REQUIRE(note != r.notes.end());
  CHECK_THAT(*note, Catch::Contains(fmt::format("needs {} replicas in all", peak)));
  CHECK_THAT(*note, Catch::Contains(fmt::format("against {} now", c.replicas)));
}

TEST_CASE("deploy: a pool of one replica surges its replacement, and --autoscaler is noted only "
          "when named",
          "[deploy][disaggregation]") {
  Spec spec = long_prompts("sglang");
  spec.workload.inference.concurrency = 256;
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  REQUIRE(c.disaggregation);
  REQUIRE(c.disaggregation->pools.layout.prefill.replicas == 1);
  DeployOptions o = options();
  const DeployReport quiet = make_deployment(plan, inputs(), o);
  const auto names_autoscaler = [](const DeployReport& r) {
    return std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
      return n.find("--autoscaler") != std::string::npos;
    });
  };
  CHECK_FALSE(names_autoscaler(quiet));
  const YAML::Node prefill = role(as_yaml(quiet).at(1), "prefill");
  const YAML::Node rolling = prefill["rolloutStrategy"]["rollingUpdateConfiguration"];
  CHECK(rolling["maxSurge"].as<int>() == 1);
  CHECK(rolling["maxUnavailable"].as<int>() == 0);
  CHECK(std::any_of(quiet.notes.begin(), quiet.notes.end(), [](const std::string& n) {
    return n.find("the prefill pool is one replica") != std::string::npos;
  }));
  o.autoscaler = Autoscaler::keda;
  o.autoscaler_given = true;
  CHECK(names_autoscaler(make_deployment(plan, inputs(), o)));
}

TEST_CASE("deploy: which disaggregated configurations deploy can write for llm-d",
          "[deploy][disaggregation]") {
  const Spec spec = long_prompts("sglang");
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  Candidate c = plan.candidates.front();
  REQUIRE(c.disaggregation);
  CHECK_FALSE(disaggregated_deploy_refusal(c, deploy_data()));
  // TensorRT-LLM has no llm-d recipe.
  auto trt = std::make_shared<Spec>(*c.spec);
  trt->workload.inference.engine = Engine::tensorrt_llm;
  Candidate on_trt = c;
  on_trt.spec = trt;
  CHECK_THAT(*disaggregated_deploy_refusal(on_trt, deploy_data()), Catch::Contains("tensorrt-llm"));
  // A replica of 16 B200s spans two 8-GPU nodes.
  Candidate wide = c;
  wide.layout = serving_parallelism(16);
  CHECK_THAT(*disaggregated_deploy_refusal(wide, deploy_data()),
             Catch::Contains("each replica's 16 GPUs span nodes of 8"));
  // An aggregated candidate is never refused here.
  CHECK_FALSE(disaggregated_deploy_refusal(plan_of(long_prompts("vllm")).candidates.front(),
                                           deploy_data()));
}
