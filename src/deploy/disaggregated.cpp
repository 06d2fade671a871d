// llm-d's objects for disaggregated prefill and decode (docs/deploy.md, "Disaggregated serving"):
// one DisaggregatedSet (kubernetes-sigs/lws) holding both pools, each pool's pods labelled for
// llm-d's router (its InferencePool and scheduler come from llm-d's router chart), the decode
// pods behind llm-d's routing sidecar; a PodDisruptionBudget per pool.

#include "serving.hpp"

#include <fmt/format.h>

namespace rightsize::serving {

namespace {

// llm-d's routing sidecar in a decode pod: a native sidecar (an init container that keeps
// running) on the engine's port, which sends each prompt to a prefill pod first.
Node routing_sidecar(const ServingSettings& decode, const EngineRecipe& r, const DeployData& d) {
  Node c = Node::map();
  c.set("name", Node::str("routing-proxy"));
  c.set("image", Node::str(d.llm_d.sidecar_image), fmt::format("llm-d {}", d.llm_d.version));
  Node args = Node::seq();
  for (const std::string& a : r.disaggregation->sidecar_args) {
    args.push(Node::str(replace_all(replace_all(a, "{port}", std::to_string(r.port)),
                                    "{engine_port}",
                                    std::to_string(decode.port))));
  }
  c.set("args", std::move(args));
  Node port = Node::map();
  port.set("name", Node::str("sidecar"));
  port.set("containerPort",
           Node::integer(r.port),
           "the pod's serving port: the scheduler sends requests here, the sidecar asks a "
           "prefill pod for the prompt's KV cache, then the engine");
  Node ports = Node::seq();
  ports.push(std::move(port));
  c.set("ports", std::move(ports));
  c.set("restartPolicy",
        Node::str("Always"),
        "a native sidecar: it starts before the engine and runs beside it");
  return c;
}

// One pool as a DisaggregatedSet role: its replicas of one pod each.
Node role(const ServingSettings& s,
          const EngineRecipe& r,
          const DeployData& d,
          const GpuProduct& product,
          const std::string& gpu_resource) {
  Node pod = pod_spec(s, r, d, product, gpu_resource, s.engine_args, {}, true, s.replicas > 1);
  if (s.role == "decode") {
    Node* init = pod.find("initContainers");
    if (init == nullptr) {
      init = &pod.set("initContainers", Node::seq());
    }
    init->push(routing_sidecar(s, r, d));
  }
  Node group = Node::map();
  group.set("size", Node::integer(1), fmt::format("one pod a replica: {} GPUs", s.gpus_per_node));
  group.set("workerTemplate", pod_template(s, std::move(pod), false));
  Node rolling = Node::map();
  if (s.replicas == 1) {
    rolling.set("maxSurge", Node::integer(1), "a pool of one: its replacement starts first");
    rolling.set("maxUnavailable", Node::integer(0), "the pool never stops for a rollout");
  } else {
    rolling = one_replica_at_a_time();
  }
  Node rollout = Node::map();
  rollout.set("type", Node::str("RollingUpdate"));
  rollout.set("rollingUpdateConfiguration", std::move(rolling));
  Node spec = Node::map();
  spec.set("replicas",
           Node::integer(s.replicas),
           s.max_replicas > s.replicas
               ? fmt::format("the plan's {} pool in its first month; its peak month needs {}",
                             s.role,
                             s.max_replicas)
               : fmt::format("the plan's {} pool", s.role));
  spec.set("rolloutStrategy", std::move(rollout));
  spec.set("leaderWorkerTemplate", std::move(group));
  Node n = Node::map();
  n.set("name", Node::str(s.role));
  n.set("spec", std::move(spec));
  return n;
}

Node disaggregated_set(const ServingSettings& prefill,
                       const ServingSettings& decode,
                       const DeployOptions& o,
                       const EngineRecipe& r,
                       const DeployData& d,
                       const GpuProduct& product,
                       const std::string& gpu_resource) {
  Node set = object("disaggregatedset.x-k8s.io/v1", "DisaggregatedSet", decode, o, decode.name);
  Node spec = Node::map();
  spec.set("slices",
           Node::integer(1),
           fmt::format("one copy of the plan's {}P+{}D: each role's replicas below",
                       prefill.replicas,
                       decode.replicas));
  Node roles = Node::seq();
  roles.push(role(prefill, r, d, product, gpu_resource));
  roles.push(role(decode, r, d, product, gpu_resource));
  spec.set("roles", std::move(roles));
  set.set("spec", std::move(spec));
  return set;
}

} // namespace

std::vector<Node> disaggregated_objects(const ServingSettings& prefill,
                                        const ServingSettings& decode,
                                        const DeployOptions& o,
                                        const EngineRecipe& r,
                                        const DeployData& d,
                                        const GpuProduct& product,
                                        const std::string& gpu_resource) {
  std::vector<Node> objects;
  objects.push_back(disaggregated_set(prefill, decode, o, r, d, product, gpu_resource));
  objects.push_back(disruption_budget(prefill, o));
  objects.push_back(disruption_budget(decode, o));
  return objects;
}

} // namespace rightsize::serving
