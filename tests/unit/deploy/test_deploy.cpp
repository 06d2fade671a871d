// rightsize deploy: the numbers in the manifests against the plan they come from, the capacity
// search, the cold start and memory fraction against hand-checked figures, the YAML as Kubernetes
// reads it, and the refusals (docs/deploy.md).

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/deploy/deploy.hpp>
#include <rightsize/estimate/latency_distribution.hpp>
#include <rightsize/plan/evaluate.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/render/deploy.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::engines;
using rightsize::test::uncertainty;

namespace {

const DeployData& deploy_data() {
  static const DeployData d = load_deploy_data(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  return d;
}

std::string example(const std::string& name) {
  return std::string(RIGHTSIZE_EXAMPLES_DIR) + "/" + name;
}

// The plan `rightsize plan` makes with no flags (or --share-gpus).
Plan plan_of(const Spec& spec, bool share_gpus = false) {
  PlanOptions o = rightsize::test::cli_plan_options("2026-11-21");
  o.share_gpus = share_gpus;
  return make_plan(spec, catalog(), constants(), efficiency(), o);
}

DeployReport deploy(const Plan& plan, Autoscaler a, const std::string& uri = "org/model") {
  const DeployInputs in{constants(), efficiency(), &uncertainty(), Confidence::band, deploy_data()};
  DeployOptions o;
  o.autoscaler = a;
  o.model_uri = uri;
  return make_deployment(plan, in, o);
}

// The value after `flag` in a command line, or "".
std::string flag_value(const std::vector<std::string>& args, const std::string& flag) {
  const auto it = std::find(args.begin(), args.end(), flag);
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

// Every object's YAML, read back as Kubernetes' YAML reader would.
std::vector<YAML::Node> as_yaml(const DeployReport& r) {
  std::ostringstream out;
  render_deploy_yaml(r, out);
  return YAML::LoadAll(out.str());
}

YAML::Node yaml_object(const std::vector<YAML::Node>& docs, const std::string& kind) {
  for (const auto& d : docs) {
    if (d["kind"].as<std::string>() == kind) {
      return d;
    }
  }
  FAIL("no " << kind);
  throw;
}

std::vector<std::string> yaml_strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const auto& item : seq) {
    out.push_back(item.as<std::string>());
  }
  return out;
}

} // namespace

TEST_CASE("deploy: the YAML carries the plan's GPUs, layout, replicas and thresholds", "[deploy]") {
  const Spec spec = load_spec(example("deploy/chat-8b-keda.json"));
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  const DeployReport r = deploy(plan, Autoscaler::keda);
  const auto docs = as_yaml(r);
  // PersistentVolumeClaim, Deployment, Service, PodDisruptionBudget, PodMonitor,
  // HTTPScaledObject (what wakes it from zero), ScaledObject
  REQUIRE(docs.size() == 7);
  const YAML::Node pm = yaml_object(docs, "PodMonitor");
  CHECK(pm["spec"]["podMetricsEndpoints"][0]["port"].as<std::string>() == "http");

  const YAML::Node d = yaml_object(docs, "Deployment");
  CHECK(!d["spec"]["replicas"]); // the autoscaler owns it: re-applying must not reset it
  CHECK(r.settings.replicas == c.replicas);
  const YAML::Node container = d["spec"]["template"]["spec"]["containers"][0];
  CHECK(container["resources"]["limits"]["nvidia.com/gpu"].as<int>() == c.gpus_per_replica());
  CHECK(container["resources"]["requests"]["nvidia.com/gpu"].as<int>() == c.gpus_per_replica());
  const auto cmd = yaml_strings(container["command"]);
  CHECK(flag_value(cmd, "--tensor-parallel-size") == std::to_string(c.layout.tp));
  CHECK(flag_value(cmd, "--max-num-seqs") == std::to_string(r.settings.capacity_per_replica));
  CHECK(flag_value(cmd, "--max-model-len") == "2560"); // 2048 in + 512 out
  CHECK(std::find(cmd.begin(), cmd.end(), "--limit-mm-per-prompt") == cmd.end()); // text only
  // The plan serves fp8 weights and KV cache from a bf16 checkpoint: quantized on load.
  CHECK(to_string(c.spec->precision.weights) == "fp8");
  CHECK(flag_value(cmd, "--kv-cache-dtype") == "fp8");
  CHECK(flag_value(cmd, "--quantization") ==
        deploy_data().engines.at("vllm").quantizations.at("fp8"));
  // Strings stay strings: a YAML reader must not turn "0.90" or "8000" into numbers.
  CHECK(flag_value(cmd, "--gpu-memory-utilization") == "0.90");
  for (const auto& word : container["command"]) {
    if (word.as<std::string>() == "8000") {
      CHECK(word.Tag() == "!"); // quoted
    }
  }

  const YAML::Node so = yaml_object(docs, "ScaledObject");
  CHECK(so["spec"]["minReplicaCount"].as<int>() == 0); // deployment.scale_to_zero
  int peak = c.replicas;
  for (const auto& m : c.cost.months) {
    peak = std::max<int>(peak, static_cast<int>(m.replicas));
  }
  // The plan's months, or more where the concurrency grown over the horizon needs more:
  // 32 x 1.05^23 = 98.2 sequences over the capacity.
  const double grown = 32.0 * std::pow(1.05, 23.0);
  const int by_concurrency =
      static_cast<int>(std::ceil(grown / static_cast<double>(r.settings.capacity_per_replica)));
  CHECK(so["spec"]["maxReplicaCount"].as<int>() == std::max(peak, by_concurrency));
  const YAML::Node trigger = so["spec"]["triggers"][0];
  CHECK(trigger["metadata"]["threshold"].as<std::string>() ==
        std::to_string(r.settings.capacity_per_replica));
  CHECK(trigger["metadata"]["query"].as<std::string>() ==
        "sum(vllm:num_requests_running{namespace=\"default\",model_name=\"llama-3-1-8b-chat\"}) "
        "+ sum(vllm:num_requests_waiting{namespace=\"default\",model_name=\"llama-3-1-8b-chat\"})");
  CHECK(so["spec"]["scaleTargetRef"]["name"].as<std::string>() == "llama-3-1-8b-chat");

  // Issue 49: at zero the engine's series are gone, so KEDA's HTTP add-on wakes it: its
  // external scaler is a second trigger, and its HTTPScaledObject (whose own ScaledObject the
  // add-on is told not to write) holds requests for twice the cold start.
  const YAML::Node wakes = so["spec"]["triggers"][1];
  CHECK(wakes["type"].as<std::string>() == "external-push");
  CHECK(wakes["metadata"]["httpScaledObject"].as<std::string>() == "llama-3-1-8b-chat");
  CHECK(wakes["metadata"]["scalerAddress"].as<std::string>() ==
        "keda-add-ons-http-external-scaler.keda:9090");
  const YAML::Node hso = yaml_object(docs, "HTTPScaledObject");
  CHECK(hso["metadata"]["annotations"]["httpscaledobject.keda.sh/skip-scaledobject-creation"]
            .as<std::string>() == "true");
  CHECK(hso["spec"]["hosts"][0].as<std::string>() == "llama-3-1-8b-chat.default.svc.cluster.local");
  CHECK(hso["spec"]["scaleTargetRef"]["service"].as<std::string>() == "llama-3-1-8b-chat");
  CHECK(hso["spec"]["scaleTargetRef"]["port"].as<int>() == 8000);
  CHECK(hso["spec"]["replicas"]["max"].as<int>() == so["spec"]["maxReplicaCount"].as<int>());
  CHECK(hso["spec"]["scalingMetric"]["concurrency"]["targetValue"].as<long long>() ==
        r.settings.capacity_per_replica);
  // 2 x 157.66 s = 315.3 s, rounded up.
  CHECK(hso["spec"]["timeouts"]["conditionWait"].as<std::string>() == "316s");

  // --wake none: the engine's trigger alone, and a note that nothing wakes it.
  const DeployInputs in{constants(), efficiency(), &uncertainty(), Confidence::band, deploy_data()};
  DeployOptions quiet;
  quiet.autoscaler = Autoscaler::keda;
  quiet.model_uri = "org/model";
  quiet.wake = Wake::none;
  const DeployReport none = make_deployment(plan, in, quiet);
  const auto none_docs = as_yaml(none);
  CHECK(none_docs.size() == 6);
  CHECK(yaml_object(none_docs, "ScaledObject")["spec"]["triggers"].size() == 1);
  CHECK(std::any_of(none.notes.begin(), none.notes.end(), [](const std::string& n) {
    return n.find("nothing wakes it") != std::string::npos;
  }));
  // --wake query: the gateway's queue as a second prometheus trigger, no HTTP add-on.
  quiet.wake = Wake::query;
  quiet.wake_query = "sum(gateway_pending_requests)";
  const auto query_docs = as_yaml(make_deployment(plan, in, quiet));
  CHECK(query_docs.size() == 6);
  const YAML::Node gate = yaml_object(query_docs, "ScaledObject")["spec"]["triggers"][1];
  CHECK(gate["type"].as<std::string>() == "prometheus");
  CHECK(gate["metadata"]["query"].as<std::string>() == "sum(gateway_pending_requests)");
  CHECK(gate["metadata"]["activationThreshold"].as<std::string>() == "0");
}

TEST_CASE("deploy: capacity per replica is the largest batch whose band edge meets the targets",
          "[deploy]") {
  for (const char* name : {"deploy/chat-8b-keda.json", "llama-3.1-70b-sla.json"}) {
    DYNAMIC_SECTION(name) {
      const Spec spec = load_spec(example(name));
      const Plan plan = plan_of(spec);
      const Candidate& c = plan.candidates.front();
      const DeployReport r = deploy(plan, Autoscaler::hpa);
      const long long cap = r.settings.capacity_per_replica;
      CHECK(cap >= c.memory.batch); // the plan's own batch meets its targets
      const auto& t = spec.workload.inference.targets;
      const std::string family = efficiency().family_name(*c.gpu);
      const double ttft_high = uncertainty().high_ratio("ttft", family, "vllm");
      const double tpot_high = uncertainty().high_ratio("tpot", family, "vllm");
      const auto holds = [&](long long batch) {
        const MemoryEstimate m = estimate_memory(*c.spec, *c.gpu, c.layout, constants(), batch);
        const InferencePerformance p =
            estimate_inference(*c.spec, *c.gpu, c.layout, m, efficiency(), constants());
        return p.ttft.si() * ttft_high <= t.ttft->si() && p.tpot.si() * tpot_high <= t.tpot->si();
      };
      CHECK(holds(cap));
      const long long limit = std::min<long long>(
          c.memory.max_batch, static_cast<long long>(constants().get(Constant::max_num_seqs)));
      CHECK(cap <= limit);
      if (cap < limit) {
        CHECK_FALSE(holds(cap + 1));
      }
    }
  }
}

TEST_CASE("deploy: capacity per replica holds percentile targets on the simulation", "[deploy]") {
  const Spec spec = load_spec(example("llama-3.1-70b-sla-p99.json"));
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  const DeployReport r = deploy(plan, Autoscaler::hpa);
  const long long cap = r.settings.capacity_per_replica;
  CHECK(cap >= c.memory.batch); // the plan's own batch meets its targets
  const std::string family = efficiency().family_name(*c.gpu);
  const double ttft_high = uncertainty().high_ratio("ttft", family, "vllm");
  const double tpot_high = uncertainty().high_ratio("tpot", family, "vllm");
  // p99 TTFT <= 2 s and p99 TPOT <= 40 ms at the band's slow edge, simulated at that load.
  const auto holds = [&](long long batch) {
    const MemoryEstimate m = estimate_memory(*c.spec, *c.gpu, c.layout, constants(), batch);
    const InferencePerformance p =
        estimate_inference(*c.spec, *c.gpu, c.layout, m, efficiency(), constants());
    const auto d = simulate_percentiles(*c.spec, *c.gpu, c.layout, constants(), efficiency(), m, p);
    REQUIRE(d);
    return d->ttft.p99.si() * ttft_high <= 2.0 && d->tpot.p99.si() * tpot_high <= 0.040;
  };
  CHECK(holds(cap));
  // Without the percentiles, the cap would be what the cache holds: far more than hold them.
  CHECK(cap < c.memory.max_batch);
  CHECK_FALSE(holds(cap + 1));
}

TEST_CASE("deploy: cold start and memory fraction, hand-checked", "[deploy]") {
  const Spec spec = load_spec(example("deploy/chat-8b-keda.json"));
  const Plan plan = plan_of(spec);
  const DeployReport r = deploy(plan, Autoscaler::keda);
  // The bf16 checkpoint is read whole (8,030,261,248 parameters x 2 bytes = 16.06 GB; fp8 is
  // made on load), at data/deploy.json's 2.097 GB/s, then vLLM's 150 s start:
  // 16.0605 / 2.097 = 7.659 s + 150 s = 157.66 s. The startup probe allows twice that:
  // ceil(315.3 / 10) = 32 periods.
  CHECK(plan.requirements.weights.si() == Approx(16.0605e9).epsilon(1e-4));
  CHECK(r.settings.cold_start.si() == Approx(157.66).margin(0.01));
  CHECK(r.settings.startup_failure_threshold == 32);
  // vLLM's --gpu-memory-utilization is the fraction the estimate assumed: data/memory.json's
  // vllm_gpu_memory_utilization, 0.90.
  CHECK(r.settings.memory_fraction == Approx(0.90));

  Spec sg = spec;
  sg.workload.inference.engine = Engine::sglang;
  const DeployReport rs = deploy(plan_of(sg), Autoscaler::hpa);
  CHECK(rs.settings.memory_fraction == Approx(0.88)); // sglang_mem_fraction_static
  CHECK(flag_value(rs.settings.engine_args, "--mem-fraction-static") == "0.88");
  CHECK(flag_value(rs.settings.engine_args, "--kv-cache-dtype") == "fp8_e4m3");

  Spec trt = spec;
  trt.workload.inference.engine = Engine::tensorrt_llm;
  const DeployReport rt = deploy(plan_of(trt), Autoscaler::hpa);
  // Of the memory left after weights, activations and overhead: trtllm 0.90.
  CHECK(rt.settings.memory_fraction == Approx(0.90));
  CHECK(flag_value(rt.settings.engine_args, "--kv_cache_free_gpu_memory_fraction") == "0.90");
}

// Issue 16: a vision-language deployment caps the images per request at what the plan sized the
// KV cache and the prompt for; an engine without the flag says so.
TEST_CASE("deploy: a vision-language model's images per request are the engine's limit",
          "[deploy]") {
  Spec spec = load_spec(example("qwen2.5-vl-7b-documents.json"));
  const long long images = spec.workload.inference.images_per_request;
  REQUIRE(images > 0);
  const DeployReport r = deploy(plan_of(spec), Autoscaler::hpa);
  CHECK(r.settings.limit_mm_per_prompt == "{\"image\":" + std::to_string(images) + "}");
  CHECK(flag_value(r.settings.engine_args, "--limit-mm-per-prompt") ==
        r.settings.limit_mm_per_prompt);
  CHECK(flag_value(r.settings.engine_args, "--max-model-len") ==
        std::to_string(spec.workload.inference.prompt_tokens() +
                       spec.workload.inference.output_tokens));
  spec.workload.inference.engine = Engine::sglang;
  const DeployReport sglang = deploy(plan_of(spec), Autoscaler::hpa);
  CHECK(flag_value(sglang.settings.engine_args, "--limit-mm-data-per-request") ==
        r.settings.limit_mm_per_prompt);
  spec.workload.inference.engine = Engine::tensorrt_llm;
  const DeployReport trt = deploy(plan_of(spec), Autoscaler::hpa);
  CHECK(std::none_of(trt.settings.engine_args.begin(),
                     trt.settings.engine_args.end(),
                     [](const std::string& a) { return a.find("limit-mm") != std::string::npos; }));
  CHECK(std::any_of(trt.notes.begin(), trt.notes.end(), [](const std::string& n) {
    return n.find("takes no per-request image limit") != std::string::npos;
  }));
}

TEST_CASE("deploy: a replica across nodes is a LeaderWorkerSet", "[deploy]") {
  const Spec spec = load_spec(example("deploy/llama-3.1-405b-multinode.json"));
  const Plan plan = plan_of(spec);
  REQUIRE(plan.feasible());
  const Candidate& c = plan.candidates.front();
  REQUIRE(c.layout.tp == 8);
  REQUIRE(c.layout.pp == 2);
  const DeployReport r = deploy(plan, Autoscaler::hpa);
  CHECK(r.settings.nodes_per_replica == 2);
  CHECK(r.settings.gpus_per_node == 8);
  const auto docs = as_yaml(r);
  const YAML::Node lws = yaml_object(docs, "LeaderWorkerSet");
  const YAML::Node group = lws["spec"]["leaderWorkerTemplate"];
  CHECK(group["size"].as<int>() == 2);
  for (const char* t : {"leaderTemplate", "workerTemplate"}) {
    CHECK(group[t]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"].as<int>() ==
          8);
  }
  const std::string leader =
      group["leaderTemplate"]["spec"]["containers"][0]["command"][2].as<std::string>();
  CHECK(leader.find("--tensor-parallel-size 8 --pipeline-parallel-size 2") != std::string::npos);
  CHECK(leader.find("--distributed-executor-backend ray") != std::string::npos);
  CHECK(!group["workerTemplate"]["spec"]["containers"][0]["startupProbe"]);
  // Only leaders serve.
  const YAML::Node svc = yaml_object(docs, "Service");
  CHECK(svc["spec"]["selector"]["rightsize.dev/role"].as<std::string>() == "leader");
  const YAML::Node hpa = yaml_object(docs, "HorizontalPodAutoscaler");
  CHECK(hpa["spec"]["scaleTargetRef"]["kind"].as<std::string>() == "LeaderWorkerSet");
  // Each node reads its half of the 811.7 GB checkpoint.
  CHECK(r.settings.weights_read_per_node.si() ==
        Approx(plan.requirements.weights.si() / 2).epsilon(1e-9));
}

TEST_CASE("deploy: the HPA's target is the predicted DRAM activity at the capacity", "[deploy]") {
  const Spec spec = load_spec(example("llama-3.1-70b-sla.json"));
  const Plan plan = plan_of(spec);
  const Candidate& c = plan.candidates.front();
  const DeployReport r = deploy(plan, Autoscaler::hpa);
  const MemoryEstimate m =
      estimate_memory(*c.spec, *c.gpu, c.layout, constants(), r.settings.capacity_per_replica);
  const InferencePerformance p =
      estimate_inference(*c.spec, *c.gpu, c.layout, m, efficiency(), constants());
  const double expected = p.decode_bytes.si() / c.layout.pp /
                          (c.gpu->memory_bandwidth.si() * p.decode_step.si()) *
                          (1.0 - p.prefill_share);
  CHECK(r.settings.dram_active_at_capacity == Approx(expected));
  // Reading at the family's achievable bandwidth at most: below its memory efficiency.
  CHECK(r.settings.dram_active_at_capacity < efficiency().family(*c.gpu).memory);
  const auto docs = as_yaml(r);
  const YAML::Node hpa = yaml_object(docs, "HorizontalPodAutoscaler");
  const YAML::Node metric = hpa["spec"]["metrics"][0]["pods"];
  CHECK(metric["metric"]["name"].as<std::string>() == "rightsize_gpu_dram_active");
  CHECK(metric["target"]["averageValue"].as<std::string>() ==
        std::to_string(std::llround(expected * 1000)) + "m");
  // The adapter rule is a YAML document inside the ConfigMap.
  const YAML::Node cm = yaml_object(docs, "ConfigMap");
  const YAML::Node rules = YAML::Load(cm["data"]["config.yaml"].as<std::string>())["rules"];
  CHECK(rules[0]["name"]["as"].as<std::string>() == "rightsize_gpu_dram_active");
}

TEST_CASE("deploy: a MIG slice is requested by its profile", "[deploy]") {
  const Spec spec = load_spec(example("deploy/small-mig.json"));
  const Plan plan = plan_of(spec, true);
  const Candidate& c = plan.candidates.front();
  REQUIRE_FALSE(c.partition.empty());
  const DeployReport r = deploy(plan, Autoscaler::none);
  CHECK(r.objects.size() == 4); // the model cache, no autoscaler
  CHECK(yaml_object(as_yaml(r), "Deployment")["spec"]["replicas"].as<int>() == c.replicas);
  const auto docs = as_yaml(r);
  const YAML::Node limits = yaml_object(
      docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"];
  CHECK(limits["nvidia.com/mig-" + c.partition].as<int>() == 1);
  CHECK(!limits["nvidia.com/gpu"]);
}

TEST_CASE("deploy: refusals are input errors that say what to do", "[deploy]") {
  SECTION("a training spec") {
    const Plan plan = plan_of(load_spec(example("llama-3.1-70b-pretrain.json")));
    CHECK_THROWS_WITH(deploy(plan, Autoscaler::hpa), Catch::Contains("training job"));
  }
  SECTION("no Hugging Face id and no --model-uri") {
    const Plan plan = plan_of(load_spec(example("llama-3.1-8b-chat.json")));
    CHECK_THROWS_AS(deploy(plan, Autoscaler::hpa, ""), InputError);
    CHECK_THROWS_WITH(deploy(plan, Autoscaler::hpa, ""), Catch::Contains("--model-uri"));
  }
  SECTION("the transformers engine has no serving recipe") {
    Spec spec = load_spec(example("llama-3.1-8b-chat.json"));
    spec.workload.inference.engine = Engine::transformers;
    CHECK_THROWS_WITH(deploy(plan_of(spec), Autoscaler::hpa), Catch::Contains("no serving recipe"));
  }
  SECTION("KEDA on an engine without a queue metric") {
    Spec spec = load_spec(example("llama-3.1-8b-chat.json"));
    spec.workload.inference.engine = Engine::tensorrt_llm;
    CHECK_THROWS_WITH(deploy(plan_of(spec), Autoscaler::keda), Catch::Contains("--autoscaler hpa"));
  }
  SECTION("a GPU without a product label") {
    const Plan plan = plan_of(load_spec(example("llama-3.1-8b-chat.json")));
    DeployData data = deploy_data();
    data.gpu_products.erase(plan.candidates.front().gpu->name);
    const DeployInputs in{constants(), efficiency(), &uncertainty(), Confidence::band, data};
    DeployOptions o;
    o.model_uri = "org/model";
    CHECK_THROWS_WITH(make_deployment(plan, in, o), Catch::Contains("product label"));
  }
}

TEST_CASE("deploy: data/deploy.json covers the catalog and is read strictly", "[deploy]") {
  // MI350X, MI355X and Gaudi have no sourced node label yet (docs/catalog.md, "Accelerators
  // beyond NVIDIA and AMD"): deploy refuses them naming the file (the case above).
  const std::set<std::string> unlabelled{
      "MI355X-288GB", "MI350X-288GB", "Gaudi3-128GB", "Gaudi2-96GB"};
  for (const Gpu& g : catalog().gpus) {
    INFO(g.name);
    CHECK(deploy_data().gpu_products.count(g.name) == (unlabelled.count(g.name) ? 0U : 1U));
  }
  for (const char* e : {"vllm", "sglang", "tensorrt-llm"}) {
    CHECK(deploy_data().engines.count(e) == 1);
  }
  nlohmann::json j = detail::load_json_file(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  j["engines"]["vllm"]["args"]["tensor_paralel"] = "--tp";
  CHECK_THROWS_WITH(parse_deploy_data(j, "deploy.json"),
                    Catch::Contains("deploy.json:/engines/vllm/args") &&
                        Catch::Contains("tensor_paralel"));
  j["engines"]["vllm"]["args"].erase("tensor_paralel");
  j["storage"]["read_gb_per_s"] = 0;
  CHECK_THROWS_WITH(parse_deploy_data(j, "deploy.json"),
                    Catch::Contains("deploy.json:/storage/read_gb_per_s"));
}

TEST_CASE("deploy: AMD and Grace GPUs need an image of their own, AMD no DCGM metric", "[deploy]") {
  // examples/mixtral-8x7b.json held to AMD GPUs (constraints.vendors).
  const Plan plan =
      plan_of(load_spec(std::string(RIGHTSIZE_TESTS_DIR) + "/data/deploy/mixtral-amd.json"));
  REQUIRE(plan.candidates.front().gpu->vendor == "amd");
  CHECK_THROWS_WITH(deploy(plan, Autoscaler::keda), Catch::Contains("ROCm"));
  const DeployInputs in{constants(), efficiency(), &uncertainty(), Confidence::band, deploy_data()};
  DeployOptions o;
  o.autoscaler = Autoscaler::hpa;
  o.model_uri = "org/model";
  o.image = "rocm/vllm:latest";
  CHECK_THROWS_WITH(make_deployment(plan, in, o), Catch::Contains("use --autoscaler keda"));
  o.autoscaler = Autoscaler::keda;
  CHECK(make_deployment(plan, in, o).objects.size() == 6);
  CHECK(deploy_data().gpu_products.at("GH200-144GB").cpu_arch == "arm64");
  CHECK(deploy_data().gpu_products.at("H100-SXM-80GB").cpu_arch == "amd64");
}

TEST_CASE("deploy: names are DNS-1123 labels", "[deploy]") {
  CHECK(object_name("70b-chat") == "m-70b-chat"); // a Service's name starts with a letter
  CHECK(dns_label("llama-3.1-8b-chat") == "llama-3-1-8b-chat");
  CHECK(dns_label("My Model_v2!") == "my-model-v2");
  CHECK(dns_label("---") == "rightsize");
  CHECK(dns_label(std::string(100, 'a')).size() == 63);
  CHECK(dns_label(std::string(62, 'a') + "-b") == std::string(62, 'a'));
}

TEST_CASE("deploy: manifest nodes", "[deploy]") {
  Node m = Node::map();
  m.set("a", Node::integer(1));
  m.set("a", Node::str("x"), "replaced");
  CHECK(m.entries().size() == 1);
  CHECK(m.find("a")->text() == "x");
  CHECK(m.find("a")->comment() == "replaced");
  CHECK(Node::number(0.1).text() == "0.1");
  CHECK_THROWS_AS(Node::number(std::nan("")), InternalError);
  Node s = Node::seq();
  CHECK_THROWS_AS(s.set("k", Node::integer(1)), InternalError);
  // Strings YAML would read as something else come back as the same strings.
  for (const char* text : {"8000", "0.90", "true", "no", "", "1e3", "null", "0x1F", "~"}) {
    Node obj = Node::map();
    obj.set("v", Node::str(text));
    const YAML::Node back = YAML::Load(manifest_yaml(obj));
    INFO(text);
    CHECK(back["v"].Tag() == "!");
    CHECK(back["v"].as<std::string>() == text);
  }
}

// The words of a deployment follow its workload: an image embedding replica holds images, a text
// embedding replica sequences; neither keeps a KV cache, so no KV-cache format is set or named.
TEST_CASE("deploy: an image embedding deployment speaks images and a text one sequences",
          "[deploy]") {
  const auto yaml = [](const DeployReport& r) {
    std::ostringstream out;
    render_deploy_yaml(r, out);
    return out.str();
  };
  Spec siglip = load_spec(example("siglip-image-embeddings.json"));
  siglip.workload.inference.engine = Engine::vllm; // deploy --engine vllm: transformers has none
  const Plan images = plan_of(siglip);
  REQUIRE(images.feasible());
  for (const Autoscaler a : {Autoscaler::hpa, Autoscaler::keda}) {
    const DeployReport r = deploy(images, a, "google/siglip-so400m-patch14-384");
    const std::string text = yaml(r);
    INFO(text);
    CHECK_THAT(text, !Catch::Contains("sequence"));
    CHECK_THAT(text, Catch::Contains("concurrent images"));
    CHECK_THAT(text, !Catch::Contains("KV"));
    CHECK(flag_value(r.settings.engine_args, "--kv-cache-dtype").empty());
  }
  const DeployReport keda = deploy(images, Autoscaler::keda, "google/siglip-so400m-patch14-384");
  CHECK_THAT(yaml(keda), Catch::Contains("the engine pools each image into a vector"));

  const DeployReport text = deploy(
      plan_of(load_spec(example("bge-m3-rag-embeddings.json"))), Autoscaler::keda, "BAAI/bge-m3");
  CHECK_THAT(yaml(text), Catch::Contains("concurrent sequences"));
  CHECK(flag_value(text.settings.engine_args, "--kv-cache-dtype").empty());
}

TEST_CASE("deploy: a locked attention data-parallel layout, as each engine spells it", "[deploy]") {
  // DeepSeek-V3 on 8 x B200, experts over all 8, attention in 8 groups of one GPU (a lock's
  // parallelism.attention_dp; plans do not choose it yet, docs/model.md).
  const auto deploy_locked = [](const char* engine) {
    const Spec spec = parse_spec({{"model", rightsize::test::config_path("deepseek-v3")},
                                  {"precision", {{"weights", "fp8"}, {"kv_cache", "fp8"}}},
                                  {"workload",
                                   {{"type", "inference"},
                                    {"engine", engine},
                                    {"input_tokens", 4096},
                                    {"output_tokens", 1024},
                                    {"concurrency", 256}}}},
                                 "ds.json");
    const Plan plan = plan_of(spec);
    REQUIRE(plan.feasible());
    ConfigurationRef ref;
    ref.gpu = "B200-SXM-180GB";
    ref.layout = serving_parallelism(8, 1, 8, 8);
    ref.weights = DType::fp8;
    ref.kv_cache = DType::fp8;
    const ConfigurationEvaluation locked =
        evaluate_configuration(spec,
                               catalog(),
                               constants(),
                               efficiency(),
                               rightsize::test::cli_plan_options("2026-11-21"),
                               ref);
    REQUIRE(locked.candidate);
    CHECK(locked.candidate->layout.expert_tp == 1);
    const DeployInputs in{
        constants(), efficiency(), &uncertainty(), Confidence::band, deploy_data()};
    DeployOptions o;
    o.autoscaler = Autoscaler::hpa;
    o.model_uri = "deepseek-ai/DeepSeek-V3";
    return make_deployment(plan, in, o, &*locked.candidate);
  };
  const auto command = [](const DeployReport& r) {
    return yaml_strings(yaml_object(
        as_yaml(r), "Deployment")["spec"]["template"]["spec"]["containers"][0]["command"]);
  };
  // SGLang: --tp-size counts the replica's GPUs, the switch and the group count beside it, and
  // --max-running-requests is the replica's (the scheduler splits it).
  const DeployReport sg = deploy_locked("sglang");
  const auto sgc = command(sg);
  CHECK(flag_value(sgc, "--tp-size") == "8");
  CHECK(std::find(sgc.begin(), sgc.end(), "--enable-dp-attention") != sgc.end());
  CHECK(flag_value(sgc, "--dp-size") == "8");
  CHECK(flag_value(sgc, "--ep-size") == "8");
  CHECK(flag_value(sgc, "--max-running-requests") ==
        std::to_string(sg.settings.capacity_per_replica));
  // vLLM: every DP rank is an engine of its own with tp / 8 = 1 GPU and an eighth of the
  // sequences (rounded up); experts over all DP x TP ranks.
  const DeployReport vl = deploy_locked("vllm");
  const auto vlc = command(vl);
  CHECK(flag_value(vlc, "--tensor-parallel-size") == "1");
  CHECK(flag_value(vlc, "--data-parallel-size") == "8");
  CHECK(std::find(vlc.begin(), vlc.end(), "--enable-expert-parallel") != vlc.end());
  CHECK(flag_value(vlc, "--max-num-seqs") ==
        std::to_string((vl.settings.capacity_per_replica + 7) / 8));
  // TensorRT-LLM turns it on in a YAML file this recipe does not write: exit 2, naming the layout.
  CHECK_THROWS_WITH(deploy_locked("tensorrt-llm"), Catch::Contains("attention data-parallel"));
}

TEST_CASE("deploy: speculative decoding and prefix caching as each engine spells them",
          "[deploy]") {
  const auto spec_with = [](const char* engine, const nlohmann::json& speculative) {
    nlohmann::json w = {{"type", "inference"},
                        {"engine", engine},
                        {"input_tokens", 2048},
                        {"output_tokens", 512},
                        {"concurrency", 16},
                        {"prefix_cache_hit_rate", 0.4},
                        {"speculative", speculative}};
    return parse_spec({{"model", example("models/llama-3.1-8b/config.json")},
                       {"precision", "bf16"},
                       {"constraints", {{"gpus", {"H100-SXM-80GB"}}}},
                       {"workload", w}},
                      "spec.json");
  };
  const nlohmann::json eagle = {{"method", "eagle"},
                                {"draft_tokens", 3},
                                {"acceptance_rate", 0.7},
                                {"draft_model", "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}};
  const auto command = [](const DeployReport& r) {
    return yaml_strings(yaml_object(
        as_yaml(r), "Deployment")["spec"]["template"]["spec"]["containers"][0]["command"]);
  };
  SECTION("vLLM: --speculative-config JSON and --enable-prefix-caching") {
    const auto cmd = command(deploy(plan_of(spec_with("vllm", eagle)), Autoscaler::hpa));
    CHECK(
        flag_value(cmd, "--speculative-config") ==
        R"({"method": "eagle", "num_speculative_tokens": 3, "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"})");
    CHECK(std::find(cmd.begin(), cmd.end(), "--enable-prefix-caching") != cmd.end());
  }
  SECTION("SGLang: a chain of k steps verifying k + 1 tokens; its radix cache needs no word") {
    const auto cmd = command(deploy(plan_of(spec_with("sglang", eagle)), Autoscaler::hpa));
    CHECK(flag_value(cmd, "--speculative-algorithm") == "EAGLE");
    CHECK(flag_value(cmd, "--speculative-num-steps") == "3");
    CHECK(flag_value(cmd, "--speculative-eagle-topk") == "1");
    CHECK(flag_value(cmd, "--speculative-num-draft-tokens") == "4");
    CHECK(flag_value(cmd, "--speculative-draft-model-path") ==
          "yuhuili/EAGLE-LLaMA3.1-Instruct-8B");
    CHECK(std::find(cmd.begin(), cmd.end(), "--enable-prefix-caching") == cmd.end());
  }
}
