// rightsize deploy: where the weights come from (the Hugging Face token's Secret, the model cache
// volume, the init container that fills it), the cold start that follows, and what each pod asks
// of its node besides GPUs, against hand-checked figures (docs/deploy.md, "Model weights" and
// "Host resources").

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/units.hpp>
#include <rightsize/deploy/deploy.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/render/deploy.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <yaml-cpp/yaml.h>

using namespace rightsize;

namespace {

const DeployData& data() {
  static const DeployData d = load_deploy_data(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  return d;
}

const Plan& plan_405b() {
  static const Plan p = make_plan(
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/deploy/llama-3.1-405b-multinode.json"),
      test::catalog(),
      test::constants(),
      test::efficiency(),
      test::cli_plan_options("2026-11-21"));
  return p;
}

DeployReport deploy(const DeployOptions& o) {
  const DeployInputs in{
      test::constants(), test::efficiency(), &test::uncertainty(), Confidence::band, data()};
  return make_deployment(plan_405b(), in, o);
}

// The notes of the 405B's deployment with no options.
const std::vector<std::string>& plan_405b_notes() {
  static const std::vector<std::string> notes = deploy(DeployOptions{}).notes;
  return notes;
}

std::vector<YAML::Node> objects(const DeployReport& r) {
  std::ostringstream out;
  render_deploy_yaml(r, out);
  return YAML::LoadAll(out.str());
}

const YAML::Node* find_kind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  for (const auto& d : docs) {
    if (d["kind"].as<std::string>() == kind) {
      return &d;
    }
  }
  return nullptr;
}

// The name -> variable entries of a container's env.
std::map<std::string, YAML::Node> env_of(const YAML::Node& container) {
  std::map<std::string, YAML::Node> env;
  for (const auto& var : container["env"]) {
    env.emplace(var["name"].as<std::string>(), static_cast<const YAML::Node&>(var));
  }
  return env;
}

} // namespace

TEST_CASE("deploy: the 405B's weights come from the Hub through the model cache, hand-checked",
          "[deploy][weights]") {
  DeployOptions o;
  const DeployReport r = deploy(o); // its config names meta-llama/Llama-3.1-405B-Instruct
  const ServingSettings& s = r.settings;
  REQUIRE(s.weights.from_hub);
  // 405,853,388,800 parameters x 2 bytes (bf16) = 811.7 GB = 755.9 GiB, all of it from the Hub
  // at data/deploy.json's 0.5 GB/s: 1,623 s. The volume holds it and 10%: 831.5 GiB -> 832Gi.
  CHECK(s.weights.checkpoint.si() == Approx(811.7e9).epsilon(1e-3));
  CHECK(s.weights.download.si() == Approx(s.weights.checkpoint.si() / 0.5e9));
  CHECK(s.weights.download.si() == Approx(1623.4).epsilon(1e-3));
  // Each of the 2 nodes reads its half from the cache at 2.097 GB/s, then vLLM starts in 150 s:
  // 405.85 / 2.097 = 193.5 s + 150 s = 343.5 s, the cold start once the cache is full. The
  // probe allows twice that: ceil(687.1 / 10) = 69 periods; the download runs before it.
  CHECK(s.engine_load.si() == Approx(343.5).epsilon(1e-3));
  CHECK(s.cold_start.si() == Approx(s.engine_load.si()));
  CHECK(s.startup_failure_threshold == 69);
  // Per pod (8 GPUs): 2 x (2 + 8) = 20 vCPUs; 8 GiB + 8 x 4 GiB + 2 GiB of /dev/shm = 42 GiB.
  CHECK(s.host.cpus == 20);
  CHECK(to_gib(s.host.memory) == Approx(42.0));
  CHECK(to_gib(s.host.ephemeral) == Approx(20.0));

  const auto docs = objects(r);
  const YAML::Node* pvc = find_kind(docs, "PersistentVolumeClaim");
  REQUIRE(pvc != nullptr);
  CHECK((*pvc)["metadata"]["name"].as<std::string>() == "llama-3-1-405b-model-cache");
  CHECK((*pvc)["spec"]["resources"]["requests"]["storage"].as<std::string>() == "832Gi");
  // Both pods of the replica mount it, on two nodes.
  CHECK((*pvc)["spec"]["accessModes"][0].as<std::string>() == "ReadWriteMany");
  CHECK(!(*pvc)["spec"]["storageClassName"]);
  const YAML::Node* lws = find_kind(docs, "LeaderWorkerSet");
  REQUIRE(lws != nullptr);
  for (const char* t : {"leaderTemplate", "workerTemplate"}) {
    const YAML::Node pod = (*lws)["spec"]["leaderWorkerTemplate"][t]["spec"];
    const YAML::Node init = pod["initContainers"][0];
    CHECK(init["name"].as<std::string>() == "weights");
    CHECK(init["command"][3].as<std::string>() == "meta-llama/Llama-3.1-405B-Instruct");
    for (const YAML::Node& c : {init, pod["containers"][0]}) {
      auto env = env_of(c);
      CHECK(env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["name"].as<std::string>() ==
            "hf-token-secret");
      CHECK(env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["key"].as<std::string>() == "token");
      CHECK(env["HF_HOME"]["value"].as<std::string>() == "/models/huggingface");
    }
    const YAML::Node requests = pod["containers"][0]["resources"]["requests"];
    CHECK(requests["cpu"].as<std::string>() == "20");
    CHECK(requests["memory"].as<std::string>() == "42Gi");
    CHECK(requests["ephemeral-storage"].as<std::string>() == "20Gi");
    CHECK(pod["volumes"][0]["emptyDir"]["sizeLimit"].as<std::string>() == "2Gi");
    CHECK(pod["volumes"][1]["persistentVolumeClaim"]["claimName"].as<std::string>() ==
          "llama-3-1-405b-model-cache");
  }
}

TEST_CASE("deploy: with no model cache every start downloads the weights", "[deploy][weights]") {
  DeployOptions o;
  o.model_cache = ModelCache::none;
  o.hf_token = SecretKey{"team-hf", "hf_token"};
  const DeployReport r = deploy(o);
  const ServingSettings& s = r.settings;
  // 1,623 s of download before the 343.5 s read and start, at every start.
  CHECK(s.cold_start.si() == Approx(s.weights.download.si() + s.engine_load.si()));
  CHECK(s.cold_start.si() == Approx(1966.9).epsilon(1e-3));
  CHECK(s.startup_failure_threshold == 69); // the probe starts after the init container
  // The scratch disk holds the download: 20 GiB + 831.5 GiB.
  CHECK(to_gib(s.host.ephemeral) == Approx(20.0 + 1.1 * to_gib(s.weights.checkpoint)));
  const auto docs = objects(r);
  CHECK(find_kind(docs, "PersistentVolumeClaim") == nullptr);
  const YAML::Node pod = (*find_kind(
      docs, "LeaderWorkerSet"))["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"];
  CHECK(pod["volumes"][1]["emptyDir"]["sizeLimit"].as<std::string>() == "832Gi");
  CHECK(pod["containers"][0]["resources"]["requests"]["ephemeral-storage"].as<std::string>() ==
        "852Gi");
  auto env = env_of(pod["containers"][0]);
  CHECK(env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["name"].as<std::string>() == "team-hf");
  CHECK(env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["key"].as<std::string>() == "hf_token");
}

TEST_CASE("deploy: a public model needs no token, a storage class is passed on",
          "[deploy][weights]") {
  DeployOptions o;
  o.hf_token_off = true;
  o.storage_class = "fast-nfs";
  const auto docs = objects(deploy(o));
  CHECK((*find_kind(docs, "PersistentVolumeClaim"))["spec"]["storageClassName"].as<std::string>() ==
        "fast-nfs");
  const YAML::Node pod = (*find_kind(
      docs, "LeaderWorkerSet"))["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"];
  CHECK(env_of(pod["initContainers"][0]).count("HF_TOKEN") == 0);
  CHECK(env_of(pod["containers"][0]).count("HF_TOKEN") == 0);
  CHECK(env_of(pod["containers"][0]).count("HF_HOME") == 1);
}

TEST_CASE("deploy: weights that are not a Hub repository are the user's to mount",
          "[deploy][weights]") {
  for (const char* uri : {"/mnt/models/llama-405b", "s3://bucket/llama", "org/repo/sub"}) {
    DeployOptions o;
    o.model_uri = uri;
    const DeployReport r = deploy(o);
    CHECK_FALSE(r.settings.weights.from_hub);
    CHECK(r.settings.cold_start.si() == Approx(r.settings.engine_load.si()));
    const auto docs = objects(r);
    CHECK(find_kind(docs, "PersistentVolumeClaim") == nullptr);
    const YAML::Node pod = (*find_kind(
        docs, "LeaderWorkerSet"))["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"];
    CHECK(!pod["initContainers"]);
    CHECK(!pod["containers"][0]["env"]);
    CHECK(pod["volumes"].size() == 1); // /dev/shm only
  }
  // The flags that act on Hub weights are said to be unused, not silently dropped.
  DeployOptions o;
  o.model_uri = "/mnt/models/llama-405b";
  o.hf_token = SecretKey{"team-hf", "token"};
  o.storage_class = "fast-nfs";
  const DeployReport r = deploy(o);
  for (const char* flag : {"--hf-token-secret is for weights", "--storage-class names"}) {
    CHECK(std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
      return n.find(flag) != std::string::npos;
    }));
  }
}

TEST_CASE("deploy: Secret and storage class names as Kubernetes takes them", "[deploy][weights]") {
  CHECK(dns_subdomain("hf-token-secret"));
  CHECK(dns_subdomain("team.hf-token"));
  CHECK(dns_subdomain(std::string(253, 'a'))); // 253 in all; a subdomain's labels have no cap
  CHECK_FALSE(dns_subdomain(std::string(254, 'a')));
  CHECK_FALSE(dns_subdomain(""));
  CHECK_FALSE(dns_subdomain("HF-Token"));
  CHECK_FALSE(dns_subdomain("-token"));
  CHECK_FALSE(dns_subdomain("token."));
  CHECK_FALSE(dns_subdomain("a..b"));
  CHECK_FALSE(dns_subdomain("hf_token"));
  CHECK(secret_key("token"));
  CHECK(secret_key("HF_TOKEN.v2-x"));
  CHECK_FALSE(secret_key(""));
  CHECK_FALSE(secret_key("a/b"));
  CHECK_FALSE(secret_key("a b"));
}

TEST_CASE("deploy: a replica across nodes is kept in one domain only when told which",
          "[deploy][placement]") {
  DeployOptions o;
  const DeployReport loose = deploy(o);
  REQUIRE(loose.settings.nodes_per_replica == 2);
  CHECK(loose.settings.topology_key.empty());
  CHECK(std::any_of(loose.notes.begin(), loose.notes.end(), [](const std::string& n) {
    return n.find("--topology-key") != std::string::npos;
  }));
  CHECK(!(*find_kind(objects(loose), "LeaderWorkerSet"))["metadata"]["annotations"]);

  o.topology_key = "cloud.google.com/gke-nodepool";
  const DeployReport placed = deploy(o);
  const YAML::Node lws = *find_kind(objects(placed), "LeaderWorkerSet");
  CHECK(lws["metadata"]["annotations"]["leaderworkerset.sigs.k8s.io/exclusive-topology"]
            .as<std::string>() == "cloud.google.com/gke-nodepool");
  CHECK(std::none_of(placed.notes.begin(), placed.notes.end(), [](const std::string& n) {
    return n.find("--topology-key") != std::string::npos;
  }));

  CHECK(label_key("nvidia.com/gpu.clique"));
  CHECK(label_key("rack"));
  CHECK_FALSE(label_key(""));
  CHECK_FALSE(label_key("bad key"));
  CHECK_FALSE(label_key("Example.com/rack"));
  CHECK_FALSE(label_key("example.com/"));
  CHECK_FALSE(label_key(std::string(64, 'a')));
}

TEST_CASE("deploy: a replica across NVL72 trays shares a ComputeDomain, across HGX nodes RDMA",
          "[deploy][placement]") {
  const Plan plan = make_plan(
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/deploy/llama-3.1-405b-gb200.json"),
      test::catalog(),
      test::constants(),
      test::efficiency(),
      test::cli_plan_options("2026-11-21"));
  REQUIRE(plan.feasible());
  const DeployInputs in{
      test::constants(), test::efficiency(), &test::uncertainty(), Confidence::band, data()};
  DeployOptions o;
  o.image = "registry.example.com/vllm-openai:v0.27.0-arm64"; // Grace nodes are arm64
  const DeployReport r = make_deployment(plan, in, o);
  // TP=8 on compute trays of 4: two pods per replica, one NVLink domain of 72.
  REQUIRE(r.settings.nodes_per_replica == 2);
  CHECK(r.settings.compute_domain);
  const auto docs = objects(r);
  const YAML::Node* cd = find_kind(docs, "ComputeDomain");
  REQUIRE(cd != nullptr);
  CHECK((*cd)["apiVersion"].as<std::string>() == "resource.nvidia.com/v1beta1");
  CHECK((*cd)["spec"]["numNodes"].as<int>() == 0);
  const std::string channel =
      (*cd)["spec"]["channel"]["resourceClaimTemplate"]["name"].as<std::string>();
  const YAML::Node lws = *find_kind(docs, "LeaderWorkerSet");
  for (const char* t : {"leaderTemplate", "workerTemplate"}) {
    const YAML::Node pod = lws["spec"]["leaderWorkerTemplate"][t]["spec"];
    CHECK(pod["resourceClaims"][0]["resourceClaimTemplateName"].as<std::string>() == channel);
    CHECK(pod["containers"][0]["resources"]["claims"][0]["name"].as<std::string>() ==
          pod["resourceClaims"][0]["name"].as<std::string>());
  }
  // The tensor-parallel all-reduces stay on NVLink: no note that they cross the network.
  CHECK(std::none_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("cross the network") != std::string::npos;
  }));

  // The H100 405B spans two HGX nodes over the network: no ComputeDomain; RDMA on request.
  DeployOptions hgx;
  hgx.rdma_resource = "rdma/rdma_shared_device_a";
  const DeployReport h = deploy(hgx);
  CHECK_FALSE(h.settings.compute_domain);
  const auto hdocs = objects(h);
  CHECK(find_kind(hdocs, "ComputeDomain") == nullptr);
  const YAML::Node worker =
      (*find_kind(hdocs, "LeaderWorkerSet"))["spec"]["leaderWorkerTemplate"]["workerTemplate"]
                                            ["spec"]["containers"][0];
  CHECK(worker["resources"]["limits"]["rdma/rdma_shared_device_a"].as<int>() == 1);
  CHECK(worker["resources"]["requests"]["rdma/rdma_shared_device_a"].as<int>() == 1);
  CHECK(worker["securityContext"]["capabilities"]["add"][0].as<std::string>() == "IPC_LOCK");
  // Without it, a note names the flag.
  CHECK(std::any_of(plan_405b_notes().begin(), plan_405b_notes().end(), [](const std::string& n) {
    return n.find("--rdma-resource") != std::string::npos;
  }));
}
