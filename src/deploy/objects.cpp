// The Kubernetes objects that serve the plan: the Deployment (or a LeaderWorkerSet when a replica
// spans nodes) with its pods, the Service and the PodDisruptionBudget.

#include "serving.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::serving {

namespace {

// The claim of a ComputeDomain's IMEX channel in each pod, and the template it is made from.
constexpr const char* k_channel_claim = "compute-domain-channel";

std::string channel_template(const ServingSettings& s) {
  return s.name + "-channel";
}

Node labels_of(const std::string& name) {
  Node l = Node::map();
  l.set("app.kubernetes.io/name", Node::str(name));
  l.set("app.kubernetes.io/managed-by", Node::str("rightsize"));
  return l;
}

Node metadata(const ServingSettings& s, const DeployOptions& o, const std::string& name) {
  Node m = Node::map();
  m.set("name", Node::str(name));
  m.set("namespace", Node::str(o.name_space));
  m.set("labels", labels_of(s.name));
  return m;
}

Node strings(const std::vector<std::string>& v, const std::vector<std::string>& notes = {}) {
  Node n = Node::seq();
  for (std::size_t i = 0; i < v.size(); ++i) {
    n.push(Node::str(v[i]), i < notes.size() ? notes[i] : std::string());
  }
  return n;
}

Node http_probe(const ServingSettings& s,
                const EngineRecipe& r,
                int period,
                int failures,
                const std::string& comment) {
  Node get = Node::map();
  get.set("path", Node::str(r.health_path));
  get.set("port", Node::str("http"));
  Node p = Node::map();
  p.set("httpGet", std::move(get));
  p.set("periodSeconds", Node::integer(period), fmt::format("ask every {} s", period));
  p.set("timeoutSeconds",
        Node::integer(k_probe_timeout_s),
        s.engine == "sglang"
            ? "SGLang's /health generates a token and answers after 1 s at the soonest"
            : "past Kubernetes' 1 s: a busy engine's event loop may answer late");
  p.set("failureThreshold", Node::integer(failures), comment);
  return p;
}

// The GPUs one pod requests, with why that many.
Node gpu_resources(const ServingSettings& s, const std::string& gpu_resource) {
  std::string why;
  if (!s.partition.empty()) {
    why = fmt::format("one MIG slice {} of an {}", s.partition, s.gpu);
  } else if (s.nodes_per_replica > 1) {
    why = fmt::format("{} of the replica's {} GPUs (TP={} x PP={}) on each of {} nodes",
                      s.gpus_per_node,
                      s.gpus_per_replica,
                      s.layout.tp,
                      s.layout.pp,
                      s.nodes_per_replica);
  } else {
    why = fmt::format("the replica's GPU{}: TP={} x PP={}",
                      s.gpus_per_replica > 1 ? "s" : "",
                      s.layout.tp,
                      s.layout.pp);
  }
  Node limits = Node::map();
  limits.set(gpu_resource, Node::integer(s.gpus_per_node), why);
  Node requests = Node::map();
  requests.set(
      gpu_resource, Node::integer(s.gpus_per_node), "the same: GPUs are not overcommitted");
  Node resources = Node::map();
  resources.set("limits", std::move(limits));
  resources.set("requests", std::move(requests));
  return resources;
}

// The engine container with its GPUs, probes and shared memory.
Node engine_container(const ServingSettings& s,
                      const EngineRecipe& r,
                      const DeployData& d,
                      const std::string& gpu_resource,
                      const std::vector<std::string>& command,
                      const std::vector<std::string>& args,
                      bool serves) {
  Node container = Node::map();
  container.set("name", Node::str("engine"));
  container.set(
      "image",
      Node::str(s.image),
      s.image == r.image
          ? fmt::format("{} {}", s.engine, s.engine_version)
          : fmt::format("--image; arguments written for {} {}", s.engine, s.engine_version));
  container.set(
      "command",
      strings(command, command == s.engine_args ? s.engine_arg_notes : std::vector<std::string>{}));
  if (!args.empty()) {
    container.set("args", strings(args));
  }
  Node ports = Node::seq();
  Node port = Node::map();
  port.set("name", Node::str("http"));
  port.set(
      "containerPort", Node::integer(engine_port(s, r)), "the engine's port (data/deploy.json)");
  ports.push(std::move(port));
  if (!s.role.empty() && r.disaggregation->transfer_port > 0 &&
      std::count(r.disaggregation->transfer_port_roles.begin(),
                 r.disaggregation->transfer_port_roles.end(),
                 s.role) > 0) {
    Node transfer = Node::map();
    transfer.set("name", Node::str(r.disaggregation->transfer_port_name));
    transfer.set("containerPort",
                 Node::integer(r.disaggregation->transfer_port),
                 "the KV transfer's side channel (data/deploy.json)");
    ports.push(std::move(transfer));
  }
  if (!s.role.empty() &&
      (!r.disaggregation->pod_field_env.empty() || !r.disaggregation->env.empty())) {
    Node env = Node::seq();
    for (const auto& [name, value] : r.disaggregation->env) {
      Node var = Node::map();
      var.set("name", Node::str(name));
      var.set("value", Node::str(value), "data/deploy.json's disaggregation recipe");
      env.push(std::move(var));
    }
    for (const auto& [name, field] : r.disaggregation->pod_field_env) {
      Node ref = Node::map();
      ref.set("fieldPath", Node::str(field));
      Node from = Node::map();
      from.set("fieldRef", std::move(ref));
      Node var = Node::map();
      var.set("name", Node::str(name));
      var.set("valueFrom", std::move(from), "where the other pool reaches this pod's KV cache");
      env.push(std::move(var));
    }
    container.set("env", std::move(env));
  }
  container.set("ports", std::move(ports));
  Node resources = gpu_resources(s, gpu_resource);
  add_host_requests(resources, s, d);
  if (!s.rdma_resource.empty()) {
    resources.find("limits")->set(
        s.rdma_resource, Node::integer(1), "--rdma-resource: GPUDirect RDMA between the nodes");
    resources.find("requests")->set(s.rdma_resource, Node::integer(1));
  }
  if (s.compute_domain) {
    Node claim = Node::map();
    claim.set("name", Node::str(k_channel_claim));
    Node claims = Node::seq();
    claims.push(std::move(claim), "the ComputeDomain's IMEX channel");
    resources.set("claims", std::move(claims));
  }
  container.set("resources", std::move(resources));
  if (!s.rdma_resource.empty()) {
    Node add = Node::seq();
    add.push(Node::str(d.placement.rdma_capability), "RDMA pins its buffers in memory");
    Node capabilities = Node::map();
    capabilities.set("add", std::move(add));
    Node security = Node::map();
    security.set("capabilities", std::move(capabilities));
    container.set("securityContext", std::move(security));
  }
  if (serves) {
    container.set("startupProbe",
                  http_probe(s,
                             r,
                             k_probe_period_s,
                             s.startup_failure_threshold,
                             fmt::format("x {} s = twice the expected cold start of {}",
                                         k_probe_period_s,
                                         format_seconds(s.cold_start))));
    container.set("readinessProbe",
                  http_probe(s,
                             r,
                             k_probe_period_s,
                             3,
                             s.role.empty() ? "out of the Service after 30 s without an answer"
                                            : "out of llm-d's pool after 30 s without an answer"));
    container.set("livenessProbe", http_probe(s, r, 30, 3, "after the startup probe has passed"));
  }
  Node mounts = Node::seq();
  Node shm = Node::map();
  shm.set("name", Node::str("dshm"));
  shm.set("mountPath", Node::str("/dev/shm"));
  mounts.push(std::move(shm));
  container.set("volumeMounts", std::move(mounts));
  return container;
}

} // namespace

Node compute_domain_object(const ServingSettings& s, const DeployOptions& o, const DeployData& d) {
  Node cd = object(d.placement.compute_domain_api_version.c_str(), "ComputeDomain", s, o, s.name);
  Node spec = Node::map();
  spec.set("numNodes",
           Node::integer(0),
           fmt::format("{}: zero, the default, with its daemons named by DNS",
                       d.placement.compute_domain_driver));
  Node rct = Node::map();
  rct.set("name", Node::str(channel_template(s)), "the template each pod claims its channel from");
  Node channel = Node::map();
  channel.set("resourceClaimTemplate", std::move(rct));
  spec.set("channel", std::move(channel));
  cd.set("spec", std::move(spec));
  return cd;
}

// One pod's spec: the engine container on a node with the GPU, spread over nodes or not.
Node pod_spec(const ServingSettings& s,
              const EngineRecipe& r,
              const DeployData& d,
              const GpuProduct& product,
              const std::string& gpu_resource,
              const std::vector<std::string>& command,
              const std::vector<std::string>& args,
              bool serves,
              bool spread) {
  Node container = engine_container(s, r, d, gpu_resource, command, args, serves);
  Node spec = Node::map();
  Node selector = Node::map();
  selector.set(
      product.label, Node::str(product.value), "the node label naming the GPU (data/deploy.json)");
  spec.set("nodeSelector", std::move(selector));
  Node tolerations = Node::seq();
  Node toleration = Node::map();
  toleration.set("key", Node::str(product.resource));
  toleration.set("operator", Node::str("Exists"));
  toleration.set("effect", Node::str("NoSchedule"));
  tolerations.push(std::move(toleration));
  spec.set("tolerations", std::move(tolerations));
  if (spread) {
    Node constraint = Node::map();
    constraint.set(
        "maxSkew", Node::integer(1), "at most one replica more on any node than on another");
    constraint.set("topologyKey", Node::str("kubernetes.io/hostname"));
    constraint.set("whenUnsatisfiable",
                   Node::str("ScheduleAnyway"),
                   "replicas on different nodes where there is room: one node's loss takes one");
    Node match = Node::map();
    match.set("matchLabels", pool_selector(s));
    constraint.set("labelSelector", std::move(match));
    Node constraints = Node::seq();
    constraints.push(std::move(constraint));
    spec.set("topologySpreadConstraints", std::move(constraints));
  }
  Node volumes = Node::seq();
  Node dshm = Node::map();
  dshm.set("name", Node::str("dshm"));
  Node empty = Node::map();
  empty.set("medium", Node::str("Memory"));
  empty.set("sizeLimit",
            Node::str(gib_quantity(s.host.shm)),
            "shared memory for NCCL and the engine's workers, as vLLM's Kubernetes example "
            "gives it; it counts against the pod's memory");
  dshm.set("emptyDir", std::move(empty));
  volumes.push(std::move(dshm));
  add_weights(spec, container, volumes, s, d);
  Node containers = Node::seq();
  containers.push(std::move(container));
  spec.set("containers", std::move(containers));
  spec.set("volumes", std::move(volumes));
  if (s.compute_domain) {
    Node claim = Node::map();
    claim.set("name", Node::str(k_channel_claim));
    claim.set("resourceClaimTemplateName", Node::str(channel_template(s)));
    Node claims = Node::seq();
    claims.push(std::move(claim));
    spec.set("resourceClaims", std::move(claims));
  }
  return spec;
}

Node pod_template(const ServingSettings& s, Node spec, bool leader) {
  Node meta = Node::map();
  Node labels = labels_of(s.name);
  if (leader) {
    labels.set("rightsize.dev/role", Node::str("leader"));
  }
  for (const auto& [key, value] : s.pod_labels) {
    labels.set(key, Node::str(value));
  }
  meta.set("labels", std::move(labels));
  Node t = Node::map();
  t.set("metadata", std::move(meta));
  t.set("spec", std::move(spec));
  return t;
}

Node selector_of(const std::string& name) {
  Node l = Node::map();
  l.set("app.kubernetes.io/name", Node::str(name));
  return l;
}

Node pool_selector(const ServingSettings& s) {
  Node l = selector_of(s.name);
  for (const auto& [key, value] : s.pod_labels) {
    l.set(key, Node::str(value));
  }
  return l;
}

Node object(const char* api_version,
            const char* kind,
            const ServingSettings& s,
            const DeployOptions& o,
            const std::string& name) {
  Node n = Node::map();
  n.set("apiVersion", Node::str(api_version));
  n.set("kind", Node::str(kind));
  n.set("metadata", metadata(s, o, name));
  return n;
}

Node serving_labels(const ServingSettings& s, const char* leader_comment) {
  Node labels = selector_of(s.name);
  if (s.nodes_per_replica > 1) {
    labels.set("rightsize.dev/role", Node::str("leader"), leader_comment);
  }
  return labels;
}

Node workload_object(const ServingSettings& s,
                     const DeployOptions& o,
                     const EngineRecipe& r,
                     const DeployData& d,
                     const GpuProduct& product,
                     const std::string& gpu_resource) {
  const std::string replicas_comment =
      s.max_replicas > s.replicas
          ? fmt::format("the plan's replicas in its first month; no autoscaler: its peak month "
                        "needs {}",
                        s.max_replicas)
          : "the plan's replicas; no autoscaler";
  if (s.nodes_per_replica == 1) {
    Node deployment = object("apps/v1", "Deployment", s, o, s.name);
    Node spec = Node::map();
    if (!s.autoscaled) {
      spec.set("replicas", Node::integer(s.replicas), replicas_comment);
    }
    Node sel = Node::map();
    sel.set("matchLabels", selector_of(s.name));
    spec.set("selector", std::move(sel));
    Node strategy = Node::map();
    strategy.set("type", Node::str("RollingUpdate"));
    strategy.set("rollingUpdate", one_replica_at_a_time());
    spec.set("strategy", std::move(strategy));
    std::vector<std::string> command = s.engine_args;
    spec.set("template",
             pod_template(s,
                          pod_spec(s,
                                   r,
                                   d,
                                   product,
                                   gpu_resource,
                                   command,
                                   {},
                                   true,
                                   s.replicas > 1 || s.max_replicas > 1),
                          false));
    deployment.set("spec", std::move(spec));
    return deployment;
  }
  Node lws = object("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", s, o, s.name);
  if (!s.topology_key.empty()) {
    Node annotations = Node::map();
    annotations.set(d.placement.exclusive_topology_annotation,
                    Node::str(s.topology_key),
                    "--topology-key: each replica's pods in one domain of this node label, one "
                    "replica per domain");
    lws.find("metadata")->set("annotations", std::move(annotations));
  }
  Node spec = Node::map();
  if (!s.autoscaled) {
    spec.set("replicas", Node::integer(s.replicas), replicas_comment);
  }
  spec.set("leaderWorkerTemplate", leader_worker_template(s, r, d, product, gpu_resource));
  lws.set("spec", std::move(spec));
  return lws;
}

Node leader_worker_template(const ServingSettings& s,
                            const EngineRecipe& r,
                            const DeployData& d,
                            const GpuProduct& product,
                            const std::string& gpu_resource) {
  // A replica across nodes: a LeaderWorkerSet group of nodes_per_replica pods, the leader serving.
  const auto& mn = *r.multi_node;
  std::vector<std::string> serve = s.engine_args;
  for (const auto& a : mn.serve_args) {
    serve.push_back(replace_all(a, "{nodes}", std::to_string(s.nodes_per_replica)));
  }
  std::string serve_line;
  for (const auto& w : serve) {
    serve_line += (serve_line.empty() ? "" : " ") + shell_quote(w);
  }
  const auto shell = [&](const std::string& templ) {
    return std::vector<std::string>{"/bin/sh",
                                    "-c",
                                    replace_all(replace_all(templ, "{serve}", serve_line),
                                                "{nodes}",
                                                std::to_string(s.nodes_per_replica))};
  };
  Node group = Node::map();
  group.set("size",
            Node::integer(s.nodes_per_replica),
            fmt::format(
                "nodes per replica: {} GPUs at {} per node", s.gpus_per_replica, s.gpus_per_node));
  group.set(
      "restartPolicy", Node::str("RecreateGroupOnPodRestart"), "a replica lives or dies whole");
  group.set(
      "leaderTemplate",
      pod_template(
          s, pod_spec(s, r, d, product, gpu_resource, shell(mn.leader), {}, true, false), true));
  group.set(
      "workerTemplate",
      pod_template(
          s, pod_spec(s, r, d, product, gpu_resource, shell(mn.worker), {}, false, false), false));
  return group;
}

Node service_object(const ServingSettings& s, const DeployOptions& o, const EngineRecipe& r) {
  Node svc = object("v1", "Service", s, o, s.name);
  Node spec = Node::map();
  spec.set("selector", serving_labels(s, "only a group's leader serves"));
  Node port = Node::map();
  port.set("name", Node::str("http"));
  port.set("port", Node::integer(r.port), "the engine's port");
  port.set("targetPort", Node::str("http"));
  Node ports = Node::seq();
  ports.push(std::move(port));
  spec.set("ports", std::move(ports));
  svc.set("spec", std::move(spec));
  return svc;
}

Node one_replica_at_a_time() {
  Node rolling = Node::map();
  rolling.set("maxSurge", Node::integer(0), "no extra GPUs during a rollout");
  rolling.set("maxUnavailable", Node::integer(1), "one replica replaced at a time");
  return rolling;
}

Node disruption_budget(const ServingSettings& s, const DeployOptions& o) {
  Node pdb = object(
      "policy/v1", "PodDisruptionBudget", s, o, s.role.empty() ? s.name : s.name + "-" + s.role);
  Node spec = Node::map();
  spec.set("maxUnavailable",
           Node::integer(1),
           !s.role.empty() ? "drains evict one replica of the pool at a time"
           : s.nodes_per_replica > 1
               ? "drains evict one pod at a time; a LeaderWorkerSet recreates that pod's group"
               : "drains evict one replica at a time");
  Node sel = Node::map();
  sel.set("matchLabels", pool_selector(s));
  spec.set("selector", std::move(sel));
  pdb.set("spec", std::move(spec));
  return pdb;
}

Node scale_target(const ServingSettings& s) {
  Node ref = Node::map();
  const bool lws = s.nodes_per_replica > 1;
  ref.set("apiVersion", Node::str(lws ? "leaderworkerset.x-k8s.io/v1" : "apps/v1"));
  ref.set("kind", Node::str(lws ? "LeaderWorkerSet" : "Deployment"));
  ref.set("name", Node::str(s.name));
  return ref;
}

} // namespace rightsize::serving
