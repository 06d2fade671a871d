// Where a replica's weights come from and what its pods ask of their nodes besides GPUs
// (docs/deploy.md, "Model weights" and "Host resources"): the Hugging Face token from a Secret,
// a cache volume the first start fills through an init container, the cold start that follows
// from it, and CPU, host memory, /dev/shm and scratch disk.

#include "serving.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace rightsize::serving {

namespace {

constexpr const char* k_cache_volume = "model-cache";

// A Hugging Face repository id ("org/name"): no scheme, no path, one slash.
bool hub_repository(const std::string& uri) {
  const auto slash = uri.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == uri.size() ||
      uri.find('/', slash + 1) != std::string::npos) {
    return false;
  }
  return std::all_of(uri.begin(),
                     uri.end(),
                     [](char ch) {
                       return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '-' ||
                              ch == '_' || ch == '.' || ch == '/';
                     }) &&
         uri.front() != '.';
}

Node env_value(const std::string& name, const std::string& value, const std::string& comment) {
  Node var = Node::map();
  var.set("name", Node::str(name));
  var.set("value", Node::str(value), comment);
  return var;
}

Node env_secret(const std::string& name, const SecretKey& secret) {
  Node ref = Node::map();
  ref.set("name", Node::str(secret.name));
  ref.set("key", Node::str(secret.key));
  Node from = Node::map();
  from.set("secretKeyRef", std::move(ref));
  Node var = Node::map();
  var.set("name", Node::str(name));
  var.set("valueFrom",
          std::move(from),
          fmt::format(
              "the Hugging Face token: kubectl create secret generic {} --from-literal={}=hf_...",
              secret.name,
              secret.key));
  return var;
}

// The variables huggingface_hub reads: its cache on the volume, the token.
std::vector<Node> hub_env(const ServingSettings& s, const DeployData& d) {
  std::vector<Node> env;
  if (s.weights.token) {
    env.push_back(env_secret(d.weights.token_env, *s.weights.token));
  }
  env.push_back(env_value(d.weights.home_env,
                          d.weights.cache_path + "/huggingface",
                          "huggingface_hub's cache, on the model cache volume"));
  return env;
}

Node cache_mount(const DeployData& d) {
  Node m = Node::map();
  m.set("name", Node::str(k_cache_volume));
  m.set("mountPath", Node::str(d.weights.cache_path));
  return m;
}

// The init container that puts the repository's weights in the cache before the engine starts:
// the engine's image, which carries huggingface_hub. A filled cache costs a check of the
// repository's file list.
Node download_container(const ServingSettings& s, const DeployData& d) {
  Node c = Node::map();
  c.set("name", Node::str("weights"));
  c.set("image", Node::str(s.image), "the engine's image, which carries huggingface_hub");
  Node command = Node::seq();
  for (const auto& w : d.weights.download_command) {
    command.push(Node::str(w));
  }
  command.push(Node::str(s.model_uri),
               fmt::format("{} from the Hugging Face Hub: about {} at {:g} GB/s the first time",
                           format_bytes(s.weights.checkpoint),
                           format_seconds(s.weights.download),
                           d.weights.hub_download_gb_per_s));
  for (const auto& p : d.weights.download_patterns) {
    command.push(Node::str(p));
  }
  c.set("command", std::move(command));
  Node env = Node::seq();
  for (auto& var : hub_env(s, d)) {
    env.push(std::move(var));
  }
  c.set("env", std::move(env));
  Node mounts = Node::seq();
  mounts.push(cache_mount(d));
  c.set("volumeMounts", std::move(mounts));
  return c;
}

} // namespace

std::string gib_quantity(Bytes b) {
  return fmt::format("{}Gi", static_cast<long long>(std::ceil(to_gib(b) - 1e-9)));
}

void set_weights(ServingSettings& s,
                 const Plan& plan,
                 const MemoryEstimate& m,
                 const DeployData& data,
                 const EngineRecipe& r,
                 const DeployOptions& o) {
  // The checkpoint as stored (a pre-quantized one: about the served weights, per GPU times the
  // GPUs), read by each node of a replica from where it is kept.
  s.weights.checkpoint = s.prequantized_checkpoint
                             ? m.per_gpu.weights * static_cast<double>(s.gpus_per_replica)
                             : plan.requirements.weights;
  s.weights_read_per_node = s.weights.checkpoint / static_cast<double>(s.nodes_per_replica);
  s.engine_load =
      seconds(s.weights_read_per_node.si() / (data.storage_read_gb_per_s * 1e9)) + r.startup;
  s.startup_failure_threshold =
      static_cast<int>(std::max(3.0, std::ceil(2.0 * s.engine_load.si() / k_probe_period_s)));
  s.cold_start = s.engine_load;
  s.weights.from_hub = hub_repository(s.model_uri);
  if (!s.weights.from_hub) {
    return; // a path on a volume the user mounts, or a URI the engine reads itself
  }
  s.weights.download =
      seconds(s.weights.checkpoint.si() / (data.weights.hub_download_gb_per_s * 1e9));
  if (!o.hf_token_off) {
    s.weights.token =
        o.hf_token.value_or(SecretKey{data.weights.token_secret, data.weights.token_key});
  }
  s.weights.cache = o.model_cache;
  s.weights.cache_size = s.weights.checkpoint * (1.0 + data.weights.cache_headroom);
  if (o.model_cache == ModelCache::pvc) {
    s.weights.cache_claim = s.name + "-model-cache";
  } else {
    s.cold_start = s.weights.download + s.engine_load; // every pod downloads its own copy
  }
}

void set_host_resources(ServingSettings& s, const DeployData& d) {
  const auto& p = d.pod_resources;
  s.host.cpus = p.vcpus_per_process * (p.processes_per_pod + p.processes_per_gpu * s.gpus_per_node);
  s.host.shm = p.shm;
  s.host.memory =
      p.memory_per_pod + p.memory_per_gpu * static_cast<double>(s.gpus_per_node) + p.shm;
  s.host.ephemeral = p.ephemeral;
  if (s.weights.from_hub && s.weights.cache == ModelCache::none) {
    s.host.ephemeral = s.host.ephemeral + s.weights.cache_size;
  }
}

void add_host_requests(Node& resources, const ServingSettings& s, const DeployData& d) {
  const auto& p = d.pod_resources;
  Node* requests = resources.find("requests");
  requests->set("cpu",
                Node::str(std::to_string(s.host.cpus)),
                fmt::format("{} x ({} + {}) vCPUs: a core for each of the server's {} processes "
                            "and each GPU's worker (vLLM's 2 + N cores); no limit: a throttled "
                            "scheduler stalls the GPUs",
                            p.vcpus_per_process,
                            p.processes_per_pod,
                            p.processes_per_gpu * s.gpus_per_node,
                            p.processes_per_pod));
  requests->set("memory",
                Node::str(gib_quantity(s.host.memory)),
                fmt::format("{} for the server, {} per GPU worker, {} of /dev/shm; the weights "
                            "pass through the page cache, which is reclaimed",
                            format_bytes(p.memory_per_pod),
                            format_bytes(p.memory_per_gpu),
                            format_bytes(s.host.shm)));
  requests->set("ephemeral-storage",
                Node::str(gib_quantity(s.host.ephemeral)),
                s.host.ephemeral > p.ephemeral
                    ? "logs, compilation caches and the downloaded weights (no cache volume)"
                    : "logs and the engine's compilation caches");
}

void add_weights(
    Node& pod, Node& container, Node& volumes, const ServingSettings& s, const DeployData& d) {
  if (!s.weights.from_hub) {
    return;
  }
  Node* env = container.find("env");
  if (env == nullptr) {
    env = &container.set("env", Node::seq());
  }
  for (auto& var : hub_env(s, d)) {
    env->push(std::move(var));
  }
  container.find("volumeMounts")->push(cache_mount(d));
  pod.set("initContainers", Node::seq()).push(download_container(s, d));
  Node volume = Node::map();
  volume.set("name", Node::str(k_cache_volume));
  if (s.weights.cache == ModelCache::pvc) {
    Node claim = Node::map();
    claim.set("claimName", Node::str(s.weights.cache_claim));
    volume.set("persistentVolumeClaim",
               std::move(claim),
               "the weights, downloaded by the first pod and read by every later start");
  } else {
    Node scratch = Node::map();
    scratch.set("sizeLimit",
                Node::str(gib_quantity(s.weights.cache_size)),
                fmt::format("the checkpoint and {:.0f}% (--model-cache none: each pod "
                            "downloads its own)",
                            100.0 * d.weights.cache_headroom));
    volume.set("emptyDir", std::move(scratch));
  }
  volumes.push(std::move(volume));
}

Node model_cache_claim(const ServingSettings& s, const DeployOptions& o, const DeployData& d) {
  Node pvc = object("v1", "PersistentVolumeClaim", s, o, s.weights.cache_claim);
  Node spec = Node::map();
  Node modes = Node::seq();
  modes.push(Node::str(s.weights.shared_cache ? "ReadWriteMany" : "ReadWriteOnce"),
             s.weights.shared_cache
                 ? "every pod mounts it, on any node: a storage class with ReadWriteMany (NFS, "
                   "CephFS, EFS, Filestore, Azure Files)"
                 : "one pod at a time mounts it");
  spec.set("accessModes", std::move(modes));
  if (!o.storage_class.empty()) {
    spec.set("storageClassName", Node::str(o.storage_class), "--storage-class");
  }
  Node requests = Node::map();
  requests.set("storage",
               Node::str(gib_quantity(s.weights.cache_size)),
               fmt::format("the checkpoint's {} and {:.0f}% (data/deploy.json "
                           "weights.cache_headroom)",
                           format_bytes(s.weights.checkpoint),
                           100.0 * d.weights.cache_headroom));
  Node resources = Node::map();
  resources.set("requests", std::move(requests));
  spec.set("resources", std::move(resources));
  pvc.set("spec", std::move(spec));
  return pvc;
}

} // namespace rightsize::serving
