// The recommended serving configuration as Kubernetes objects. How each number is derived:
// docs/deploy.md.

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/deploy/deploy.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace rightsize {

namespace {

constexpr int k_probe_period_s = 10;

// GPUs one Kubernetes node holds: the catalog's server size, except NVL72 racks, whose nodes are
// compute trays of 4 GPUs (72 GPUs in 18 trays).
int gpus_per_node(const Gpu& g) {
  const int server = g.purchase ? g.purchase->gpus_per_server : 8;
  return server > 8 ? 4 : std::max(1, server);
}

std::string engine_key(Engine e) {
  return std::string(to_string(e));
}

// The largest number of concurrent sequences per replica at which the targets, held as the plan
// holds them (the band's slow edge unless --confidence point), still hold: a bisection over the
// batch with the same estimator, between the plan's batch (which holds) and what fits.
struct Capacity {
  long long sequences = 0;
  InferencePerformance perf;  // at `sequences`
  bool latency_bound = false; // below what fits because a latency target stops it
};

Capacity capacity_per_replica(const Candidate& c, const DeployInputs& in) {
  const Spec& spec = *c.spec;
  const Gpu& g = *c.gpu;
  const auto& targets = spec.workload.inference.targets;
  double ttft_high = 1.0;
  double tpot_high = 1.0;
  if (in.uncertainty != nullptr && in.confidence == Confidence::band) {
    const std::string family = in.efficiency.family_name(g);
    const std::string engine = engine_key(spec.workload.inference.engine);
    ttft_high = in.uncertainty->high_ratio("ttft", family, engine);
    tpot_high = in.uncertainty->high_ratio("tpot", family, engine);
  }
  const auto evaluate = [&](long long batch) {
    const MemoryEstimate m =
        estimate_memory(spec, g, c.layout, in.constants, batch, Detail::numbers);
    return estimate_inference(
        spec, g, c.layout, m, in.efficiency, in.constants, 1, Detail::numbers);
  };
  const auto holds = [&](long long batch) {
    const InferencePerformance p = evaluate(batch);
    return (!targets.ttft || p.ttft.si() * ttft_high <= targets.ttft->si()) &&
           (!targets.tpot || p.tpot.si() * tpot_high <= targets.tpot->si());
  };
  const long long limit = std::min<long long>(
      c.memory.max_batch, static_cast<long long>(in.constants.get(Constant::max_num_seqs)));
  const long long planned = std::clamp<long long>(c.memory.batch, 1, std::max(1LL, limit));
  long long cap = limit;
  if ((targets.ttft || targets.tpot) && !holds(limit)) {
    cap = holds(planned) ? first_holding(planned, limit, [&](long long b) { return !holds(b); }) - 1
                         : planned;
  }
  cap = std::max(1LL, cap);
  return {cap, evaluate(cap), cap < limit};
}

Node labels_of(const std::string& name) {
  Node l = Node::map();
  l.set("app.kubernetes.io/name", Node::str(name));
  l.set("app.kubernetes.io/managed-by", Node::str("rightsize"));
  return l;
}

Node selector_of(const std::string& name) {
  Node l = Node::map();
  l.set("app.kubernetes.io/name", Node::str(name));
  return l;
}

Node metadata(const ServingSettings& s, const DeployOptions& o, const std::string& name) {
  Node m = Node::map();
  m.set("name", Node::str(name));
  m.set("namespace", Node::str(o.name_space));
  m.set("labels", labels_of(s.name));
  return m;
}

// A Kubernetes object's head: apiVersion, kind and metadata.
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

// The pods that serve: every replica's pod, or a LeaderWorkerSet group's leader only.
Node serving_labels(const ServingSettings& s, const char* leader_comment) {
  Node labels = selector_of(s.name);
  if (s.nodes_per_replica > 1) {
    labels.set("rightsize.dev/role", Node::str("leader"), leader_comment);
  }
  return labels;
}

Node strings(const std::vector<std::string>& v, const std::vector<std::string>& notes = {}) {
  Node n = Node::seq();
  for (std::size_t i = 0; i < v.size(); ++i) {
    n.push(Node::str(v[i]), i < notes.size() ? notes[i] : std::string());
  }
  return n;
}

Node http_probe(const EngineRecipe& r, int period, int failures, const std::string& comment) {
  Node get = Node::map();
  get.set("path", Node::str(r.health_path));
  get.set("port", Node::str("http"));
  Node p = Node::map();
  p.set("httpGet", std::move(get));
  p.set("periodSeconds", Node::integer(period), fmt::format("ask every {} s", period));
  p.set("failureThreshold", Node::integer(failures), comment);
  return p;
}

// The engine's command line, from its recipe and the settings, and beside each value where it
// comes from (`notes`, one per word, empty where the word explains itself).
std::vector<std::string> engine_command_line(const ServingSettings& s,
                                             const EngineRecipe& r,
                                             std::vector<std::string>& notes) {
  std::vector<std::string> a = r.command;
  notes.assign(a.size(), "");
  const auto word = [&](std::string w, std::string note = {}) {
    a.push_back(std::move(w));
    notes.push_back(std::move(note));
  };
  if (!r.model_arg.empty()) {
    word(r.model_arg);
  }
  word(s.model_uri, "the checkpoint to serve");
  const auto add = [&](const std::string& role, const std::string& value, std::string note) {
    const std::string& flag = r.arg(role);
    if (!flag.empty() && !value.empty()) {
      word(flag);
      word(value, std::move(note));
    }
  };
  add("served_model_name", s.name, "the name clients ask for, and the model label of its metrics");
  if (!r.host_arg.empty()) {
    word(r.host_arg);
    word("0.0.0.0", "reachable through the Service");
  }
  if (!r.port_arg.empty()) {
    word(r.port_arg);
    word(std::to_string(r.port), "the engine's port (data/deploy.json)");
  }
  add("tensor_parallel", std::to_string(s.layout.tp), "the plan's tensor-parallel size");
  if (s.layout.pp > 1) {
    add("pipeline_parallel", std::to_string(s.layout.pp), "the plan's pipeline stages");
  }
  if (s.layout.ep > 1) {
    if (!r.arg("expert_parallel").empty()) {
      word(r.arg("expert_parallel"), "the plan's experts spread over the TP group");
    }
    add("expert_parallel_size", std::to_string(s.layout.ep), "the plan's expert-parallel size");
  }
  const char* unit = s.images ? "images" : "sequences";
  add("max_model_len",
      std::to_string(s.max_model_len),
      s.embedding ? fmt::format("tokens per {} of the spec: longer inputs are refused",
                                s.images ? "image" : "sequence")
                  : "input + output tokens of the spec: the length the KV cache was sized for");
  add("max_num_seqs",
      std::to_string(s.capacity_per_replica),
      s.latency_bound
          ? fmt::format("capacity per replica: the most {} at which {} (docs/deploy.md)",
                        unit,
                        s.embedding ? "the latency target holds" : "TTFT and TPOT hold")
          : fmt::format("capacity per replica: all the {} that fit (no latency target stops it "
                        "sooner)",
                        unit));
  add("memory_fraction",
      fmt::format("{:.2f}", s.memory_fraction),
      "the memory fraction the estimate assumed (data/memory.json or --assume)");
  add("kv_cache_dtype", s.kv_cache_dtype, "the plan's KV-cache format");
  add("quantization", s.quantization, "the plan's weight format, made on load");
  if (s.embedding) {
    // The role's words as they stand ("--runner pooling", "--is-embedding").
    const std::string& flags = r.arg("embedding");
    std::size_t start = 0;
    while (start < flags.size()) {
      const std::size_t end = std::min(flags.find(' ', start), flags.size());
      if (end > start) {
        word(flags.substr(start, end - start),
             end == flags.size() ? fmt::format("an embedding workload: the engine pools each {} "
                                               "into a vector and decodes nothing",
                                               s.images ? "image" : "sequence")
                                 : "");
      }
      start = end + 1;
    }
  }
  add("limit_mm_per_prompt",
      s.limit_mm_per_prompt,
      "the spec's images per request: more are refused, and the engine sizes its multimodal "
      "budget for these (0: text only)");
  return a;
}

std::string shell_quote(const std::string& word) {
  const bool plain = std::all_of(word.begin(), word.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
           std::string_view("-_./:=,@%+$()").find(ch) != std::string_view::npos;
  });
  if (plain && !word.empty()) {
    return word;
  }
  std::string out = "'";
  for (const char ch : word) {
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  }
  return out + "'";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// One pod's spec: the engine container with its GPUs, probes and shared memory.
Node pod_spec(const ServingSettings& s,
              const EngineRecipe& r,
              const GpuProduct& product,
              const std::string& gpu_resource,
              const std::vector<std::string>& command,
              const std::vector<std::string>& args,
              bool serves,
              bool spread) {
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
  port.set("containerPort", Node::integer(r.port), "the engine's port (data/deploy.json)");
  ports.push(std::move(port));
  container.set("ports", std::move(ports));
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
  container.set("resources", std::move(resources));
  if (serves) {
    container.set("startupProbe",
                  http_probe(r,
                             k_probe_period_s,
                             s.startup_failure_threshold,
                             fmt::format("x {} s = twice the expected cold start of {}",
                                         k_probe_period_s,
                                         format_seconds(s.cold_start))));
    container.set(
        "readinessProbe",
        http_probe(r, k_probe_period_s, 3, "out of the Service after 30 s without an answer"));
    container.set("livenessProbe", http_probe(r, 30, 3, "after the startup probe has passed"));
  }
  Node mounts = Node::seq();
  Node shm = Node::map();
  shm.set("name", Node::str("dshm"));
  shm.set("mountPath", Node::str("/dev/shm"));
  mounts.push(std::move(shm));
  container.set("volumeMounts", std::move(mounts));

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
    match.set("matchLabels", selector_of(s.name));
    constraint.set("labelSelector", std::move(match));
    Node constraints = Node::seq();
    constraints.push(std::move(constraint));
    spec.set("topologySpreadConstraints", std::move(constraints));
  }
  Node containers = Node::seq();
  containers.push(std::move(container));
  spec.set("containers", std::move(containers));
  Node volumes = Node::seq();
  Node dshm = Node::map();
  dshm.set("name", Node::str("dshm"));
  Node empty = Node::map();
  empty.set("medium", Node::str("Memory"));
  dshm.set("emptyDir", std::move(empty), "shared memory for NCCL and the engine's workers");
  volumes.push(std::move(dshm));
  spec.set("volumes", std::move(volumes));
  return spec;
}

Node pod_template(const ServingSettings& s, Node spec, bool leader) {
  Node meta = Node::map();
  Node labels = labels_of(s.name);
  if (leader) {
    labels.set("rightsize.dev/role", Node::str("leader"));
  }
  meta.set("labels", std::move(labels));
  Node t = Node::map();
  t.set("metadata", std::move(meta));
  t.set("spec", std::move(spec));
  return t;
}

Node workload_object(const ServingSettings& s,
                     const DeployOptions& o,
                     const EngineRecipe& r,
                     const GpuProduct& product,
                     const std::string& gpu_resource) {
  const std::string replicas_comment =
      s.max_replicas > s.replicas
          ? fmt::format("the plan's replicas in its first month; no autoscaler: its peak month "
                        "needs {}",
                        s.max_replicas)
          : "the plan's replicas; no autoscaler";
  if (s.nodes_per_replica == 1) {
    Node d = object("apps/v1", "Deployment", s, o, s.name);
    Node spec = Node::map();
    if (!s.autoscaled) {
      spec.set("replicas", Node::integer(s.replicas), replicas_comment);
    }
    Node sel = Node::map();
    sel.set("matchLabels", selector_of(s.name));
    spec.set("selector", std::move(sel));
    Node rolling = Node::map();
    rolling.set("maxSurge", Node::integer(0), "no extra GPUs during a rollout");
    rolling.set("maxUnavailable", Node::integer(1), "one replica replaced at a time");
    Node strategy = Node::map();
    strategy.set("type", Node::str("RollingUpdate"));
    strategy.set("rollingUpdate", std::move(rolling));
    spec.set("strategy", std::move(strategy));
    std::vector<std::string> command = s.engine_args;
    spec.set("template",
             pod_template(s,
                          pod_spec(s,
                                   r,
                                   product,
                                   gpu_resource,
                                   command,
                                   {},
                                   true,
                                   s.replicas > 1 || s.max_replicas > 1),
                          false));
    d.set("spec", std::move(spec));
    return d;
  }
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
  Node lws = object("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", s, o, s.name);
  Node spec = Node::map();
  if (!s.autoscaled) {
    spec.set("replicas", Node::integer(s.replicas), replicas_comment);
  }
  Node group = Node::map();
  group.set("size",
            Node::integer(s.nodes_per_replica),
            fmt::format(
                "nodes per replica: {} GPUs at {} per node", s.gpus_per_replica, s.gpus_per_node));
  group.set(
      "restartPolicy", Node::str("RecreateGroupOnPodRestart"), "a replica lives or dies whole");
  group.set("leaderTemplate",
            pod_template(
                s, pod_spec(s, r, product, gpu_resource, shell(mn.leader), {}, true, false), true));
  group.set("workerTemplate",
            pod_template(s,
                         pod_spec(s, r, product, gpu_resource, shell(mn.worker), {}, false, false),
                         false));
  spec.set("leaderWorkerTemplate", std::move(group));
  lws.set("spec", std::move(spec));
  return lws;
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

Node disruption_budget(const ServingSettings& s, const DeployOptions& o) {
  Node pdb = object("policy/v1", "PodDisruptionBudget", s, o, s.name);
  Node spec = Node::map();
  spec.set("maxUnavailable",
           Node::integer(1),
           s.nodes_per_replica > 1
               ? "drains evict one pod at a time; a LeaderWorkerSet recreates that pod's group"
               : "drains evict one replica at a time");
  Node sel = Node::map();
  sel.set("matchLabels", selector_of(s.name));
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

// The per-pod metric prometheus-adapter serves to the HPA.
constexpr const char* k_hpa_metric = "rightsize_gpu_dram_active";

std::vector<Node>
hpa_objects(const ServingSettings& s, const DeployOptions& o, const DeployData& d) {
  const std::string metric = k_hpa_metric;
  Node hpa = object("autoscaling/v2", "HorizontalPodAutoscaler", s, o, s.name);
  Node spec = Node::map();
  spec.set("scaleTargetRef", scale_target(s));
  spec.set("minReplicas",
           Node::integer(std::max(1, s.min_replicas)),
           "an HPA does not scale to zero: one replica stays up");
  spec.set("maxReplicas",
           Node::integer(s.max_replicas),
           "the replicas the peak month of the plan's growth horizon needs");
  Node target = Node::map();
  target.set("type", Node::str("AverageValue"));
  const long long milli = std::max(1LL, std::llround(s.dram_active_at_capacity * 1000.0));
  target.set(
      "averageValue",
      Node::str(fmt::format("{}m", milli)),
      fmt::format("DRAM active {:.2f}: predicted at {} concurrent {} per replica, "
                  "{}",
                  s.dram_active_at_capacity,
                  s.capacity_per_replica,
                  s.images ? "images" : "sequences",
                  s.latency_bound ? "the most at which the latency targets hold" : "all that fit"));
  Node name = Node::map();
  name.set("name", Node::str(metric));
  Node pods = Node::map();
  pods.set("metric", std::move(name));
  pods.set("target", std::move(target));
  Node m = Node::map();
  m.set("type", Node::str("Pods"));
  m.set("pods", std::move(pods));
  Node metrics = Node::seq();
  metrics.push(std::move(m));
  spec.set("metrics", std::move(metrics));
  Node down = Node::map();
  down.set("stabilizationWindowSeconds",
           Node::integer(300),
           "the HPA's default, kept explicit: a replica takes minutes to come back");
  Node behavior = Node::map();
  behavior.set("scaleDown", std::move(down));
  spec.set("behavior", std::move(behavior));
  hpa.set("spec", std::move(spec));

  // prometheus-adapter: the per-pod metric, from dcgm-exporter's series.
  Node overrides = Node::map();
  Node ns = Node::map();
  ns.set("resource", Node::str("namespace"));
  overrides.set(d.dcgm_namespace_label, std::move(ns));
  Node pod = Node::map();
  pod.set("resource", Node::str("pod"));
  overrides.set(d.dcgm_pod_label, std::move(pod));
  Node resources = Node::map();
  resources.set("overrides", std::move(overrides));
  Node naming = Node::map();
  naming.set("matches", Node::str("^" + d.dcgm_dram_active + "$"));
  naming.set("as", Node::str(metric));
  Node rule = Node::map();
  rule.set(
      "seriesQuery",
      Node::str(fmt::format(
          "{}{{{}!=\"\",{}!=\"\"}}", d.dcgm_dram_active, d.dcgm_namespace_label, d.dcgm_pod_label)),
      "the GPU's pod, as dcgm-exporter labels it: its ServiceMonitor needs honorLabels: "
      "true, or Prometheus renames them exported_namespace and exported_pod");
  rule.set("resources", std::move(resources));
  rule.set("name", std::move(naming));
  rule.set("metricsQuery", Node::str("avg(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)"));
  Node rules = Node::seq();
  rules.push(std::move(rule));
  Node config = Node::map();
  config.set("rules", std::move(rules));
  Node cm = object("v1", "ConfigMap", s, o, s.name + "-prometheus-adapter-rules");
  Node& meta = *cm.find("metadata");
  Node* labels = meta.find("labels");
  labels->set("app.kubernetes.io/component", Node::str("prometheus-adapter-config"));
  Node annotations = Node::map();
  annotations.set(
      "rightsize.dev/usage",
      Node::str("merge these rules into the rules of prometheus-adapter's config.yaml"));
  meta.set("annotations", std::move(annotations));
  Node data = Node::map();
  data.set("config.yaml", Node::document(std::move(config)));
  cm.set("data", std::move(data));
  std::vector<Node> out;
  out.push_back(std::move(cm));
  out.push_back(std::move(hpa));
  return out;
}

// The Prometheus Operator's PodMonitor: Prometheus scrapes the engine's metrics, which KEDA's
// query reads.
Node pod_monitor(const ServingSettings& s, const DeployOptions& o, const EngineRecipe& r) {
  Node pm = object("monitoring.coreos.com/v1", "PodMonitor", s, o, s.name);
  Node spec = Node::map();
  Node selector = Node::map();
  selector.set("matchLabels", serving_labels(s, "a group's leader serves and counts"));
  spec.set("selector", std::move(selector));
  Node endpoint = Node::map();
  endpoint.set("port", Node::str("http"));
  endpoint.set("path", Node::str(r.metrics_path), "the engine's metrics (data/deploy.json)");
  endpoint.set("interval", Node::str("15s"), "as often as KEDA asks");
  Node endpoints = Node::seq();
  endpoints.push(std::move(endpoint));
  spec.set("podMetricsEndpoints", std::move(endpoints));
  pm.set("spec", std::move(spec));
  return pm;
}

Node keda_object(const ServingSettings& s,
                 const DeployOptions& o,
                 const EngineRecipe& r,
                 bool scale_to_zero) {
  Node so = object("keda.sh/v1alpha1", "ScaledObject", s, o, s.name);
  Node spec = Node::map();
  spec.set("scaleTargetRef", scale_target(s));
  spec.set("minReplicaCount",
           Node::integer(s.min_replicas),
           scale_to_zero ? "deployment.scale_to_zero: idle means no replica"
                         : "scale_to_zero not set: one replica stays up");
  spec.set("maxReplicaCount",
           Node::integer(s.max_replicas),
           "the replicas the peak month of the plan's growth horizon needs");
  spec.set("pollingInterval", Node::integer(15), "seconds between queries (KEDA's default is 30)");
  spec.set("cooldownPeriod", Node::integer(300), "seconds without load before going to zero");
  const std::string match =
      fmt::format("{{namespace=\"{}\",{}=\"{}\"}}", o.name_space, r.metric_model_label, s.name);
  Node meta = Node::map();
  meta.set("serverAddress", Node::str(o.prometheus));
  meta.set("query",
           Node::str(fmt::format(
               "sum({}{}) + sum({}{})", r.metric_running, match, r.metric_waiting, match)),
           "requests running and waiting, over every replica");
  meta.set("threshold",
           Node::str(std::to_string(s.capacity_per_replica)),
           fmt::format("requests per replica: the most concurrent {} {} (the plan runs "
                       "{})",
                       s.images ? "images" : "sequences",
                       s.latency_bound ? "at which the latency targets hold" : "that fit",
                       s.planned_per_replica));
  if (scale_to_zero) {
    meta.set("activationThreshold", Node::str("0"), "any request wakes it");
  }
  Node trigger = Node::map();
  trigger.set("type", Node::str("prometheus"));
  trigger.set("metadata", std::move(meta));
  Node triggers = Node::seq();
  triggers.push(std::move(trigger));
  spec.set("triggers", std::move(triggers));
  so.set("spec", std::move(spec));
  return so;
}

} // namespace

std::string_view to_string(Autoscaler a) {
  switch (a) {
  case Autoscaler::hpa:
    return "hpa";
  case Autoscaler::keda:
    return "keda";
  case Autoscaler::none:
    return "none";
  }
  return "none";
}

std::string dns_label(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') {
    out.pop_back();
  }
  if (out.size() > 63) {
    out.resize(63);
    while (!out.empty() && out.back() == '-') {
      out.pop_back();
    }
  }
  return out.empty() ? std::string("rightsize") : out;
}

std::string object_name(std::string_view text) {
  std::string name = dns_label(text);
  if (std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    name = dns_label("m-" + name);
  }
  return name;
}

const EngineRecipe& serving_recipe(const Spec& spec, const DeployData& data) {
  if (spec.workload.is_image_generation()) {
    // diffusers is a library, not a server: data/deploy.json has no recipe that serves it.
    throw InputError(spec.file + ":/workload/type",
                     "rightsize deploy has no image generation recipe (diffusers is a library, "
                     "not a server); `rightsize plan` sizes it");
  }
  if (spec.workload.is_transcription()) {
    // vLLM serves Whisper (/v1/audio/transcriptions), but data/deploy.json has no transcription
    // recipe yet (its autoscaling metrics speak of tokens and prompts).
    throw InputError(spec.file + ":/workload/type",
                     "rightsize deploy has no transcription recipe yet; `rightsize plan` sizes "
                     "it, and vLLM serves it with `vllm serve <model>` "
                     "(/v1/audio/transcriptions)");
  }
  if (spec.model.encoder_decoder && !spec.workload.is_transcription()) {
    // T5 is planned on transformers only (docs/spec.md "Text-to-text generation"), which
    // data/deploy.json has no server recipe for; whatever --engine says.
    throw InputError(spec.file + ":/workload/engine",
                     fmt::format("rightsize deploy has no text-to-text recipe for {}: it is "
                                 "planned on transformers, a library with no server recipe "
                                 "(vLLM and SGLang do not run T5, and TensorRT-LLM's "
                                 "encoder-decoder runtime is not modelled); `rightsize plan` "
                                 "sizes it",
                                 spec.model.family));
  }
  const std::string engine = engine_key(spec.workload.inference.engine);
  const auto it = data.engines.find(engine);
  if (it == data.engines.end()) {
    // Of the engines with a recipe, only vLLM serves image embeddings, and only of CLIPModel
    // and SiglipModel (docs/spec.md, "Image embeddings").
    throw InputError(spec.file + ":/workload/engine",
                     fmt::format("engine {} has no serving recipe in data/deploy.json; deploy "
                                 "{}",
                                 engine,
                                 !spec.model.image ? "with --engine vllm, sglang or tensorrt-llm"
                                 : spec.model.image->text > 0
                                     ? "this image encoder with --engine vllm"
                                     : "an image encoder with --engine vllm: a CLIPModel or "
                                       "SiglipModel checkpoint (vLLM serves no vision-only one)"));
  }
  if (spec.workload.is_embedding() && it->second.arg("embedding").empty()) {
    throw InputError(spec.file + ":/workload/engine",
                     fmt::format("{} has no embedding recipe in data/deploy.json; deploy an "
                                 "embedding workload with --engine vllm or sglang",
                                 engine));
  }
  return it->second;
}

DeployReport make_deployment(const Plan& plan,
                             const DeployInputs& in,
                             const DeployOptions& o,
                             const Candidate* chosen) {
  if (plan.spec.workload.is_training()) {
    throw InputError(plan.spec.file + ":/workload/type",
                     "rightsize deploy writes serving deployments; this spec is a training job");
  }
  const std::string engine = engine_key(plan.spec.workload.inference.engine);
  const EngineRecipe& r = serving_recipe(plan.spec, in.data);
  if (!plan.feasible()) {
    throw InputError(plan.spec.file,
                     "nothing feasible to deploy: no GPU configuration satisfies the spec "
                     "(rightsize plan says why)");
  }
  const Candidate& c = chosen != nullptr ? *chosen : plan.candidates.front();
  const Spec& spec = *c.spec;
  const Gpu& whole = c.whole_gpu != nullptr ? *c.whole_gpu : *c.gpu;
  const auto product_it = in.data.gpu_products.find(whole.name);
  if (product_it == in.data.gpu_products.end()) {
    throw InputError("data/deploy.json:/gpu_products",
                     "has no Kubernetes product label for " + whole.name);
  }
  const GpuProduct& product = product_it->second;
  if (o.image.empty() && whole.vendor == "amd") {
    throw InputError("--image",
                     fmt::format("is needed: {} is built for NVIDIA's CUDA, and {} needs the "
                                 "engine's ROCm build",
                                 r.image,
                                 whole.name));
  }
  if (o.image.empty() && product.cpu_arch != "amd64") {
    throw InputError("--image",
                     fmt::format("is needed: {} nodes have {} CPUs (Grace) and {} is built for "
                                 "x86-64; give the engine's {} image",
                                 whole.name,
                                 product.cpu_arch,
                                 r.image,
                                 product.cpu_arch));
  }
  if (o.autoscaler == Autoscaler::hpa && whole.vendor != "nvidia") {
    throw InputError("--autoscaler",
                     fmt::format("hpa reads {} from NVIDIA's dcgm-exporter, which {} GPUs do not "
                                 "have; use --autoscaler keda or none",
                                 in.data.dcgm_dram_active,
                                 whole.vendor));
  }

  DeployReport report;
  ServingSettings& s = report.settings;
  s.name = object_name(plan.spec.name);
  s.engine = engine;
  s.engine_version = r.version;
  s.image = o.image.empty() ? r.image : o.image;
  if (!o.model_uri.empty()) {
    s.model_uri = o.model_uri;
  } else if (spec.model.name.find('/') != std::string::npos) {
    s.model_uri = spec.model.name;
  } else {
    throw InputError("--model-uri",
                     fmt::format("is needed: the model ({}) names no Hugging Face id "
                                 "(_name_or_path in its config.json); give the checkpoint to "
                                 "serve, an id or a path on a mounted volume",
                                 spec.model.name));
  }
  s.gpu = whole.name;
  s.partition = c.partition;
  s.layout = c.layout;
  s.gpus_per_replica = c.gpus_per_replica();
  const std::string gpu_resource =
      c.partition.empty() ? product.resource : in.data.mig_resource_prefix + c.partition;
  const int node_gpus = gpus_per_node(whole);
  s.nodes_per_replica =
      c.partition.empty() ? static_cast<int>((s.gpus_per_replica + node_gpus - 1) / node_gpus) : 1;
  s.gpus_per_node = s.gpus_per_replica / s.nodes_per_replica;
  if (s.gpus_per_node * s.nodes_per_replica != s.gpus_per_replica) {
    throw InputError(plan.spec.file,
                     fmt::format("a replica of {} GPUs does not split evenly over nodes of {}",
                                 s.gpus_per_replica,
                                 node_gpus));
  }
  if (s.nodes_per_replica > 1 && !r.multi_node) {
    throw InputError("--engine",
                     fmt::format("{} has no multi-node recipe in data/deploy.json, and a replica "
                                 "of {} needs {} nodes; use --engine vllm or sglang",
                                 engine,
                                 s.gpus_per_replica,
                                 s.nodes_per_replica));
  }
  if (s.nodes_per_replica > 1 && s.layout.tp > s.gpus_per_node) {
    report.notes.push_back(fmt::format(
        "tensor parallelism (TP={}) spans nodes of {} GPUs: its all-reduces cross the network",
        s.layout.tp,
        s.gpus_per_node));
  }
  s.max_model_len = spec.workload.inference.prompt_tokens() + spec.workload.inference.output_tokens;
  s.embedding = spec.workload.is_embedding();
  s.images = spec.embeds_images();
  if (spec.model.vision) {
    s.limit_mm_per_prompt =
        fmt::format(R"({{"image":{}}})", spec.workload.inference.images_per_request);
    if (r.arg("limit_mm_per_prompt").empty()) {
      report.notes.push_back(fmt::format(
          "{} takes no per-request image limit here (data/deploy.json): a request with more than "
          "the planned {} image(s) is served, with a longer prompt than the KV cache was sized for",
          engine,
          spec.workload.inference.images_per_request));
    }
  }

  const Capacity cap = capacity_per_replica(c, in);
  s.capacity_per_replica = cap.sequences;
  s.latency_bound = cap.latency_bound;
  s.planned_per_replica = c.memory.batch;

  // The memory fraction the estimate assumed, in the engine's own terms.
  const MemoryEstimate& m = c.memory;
  if (r.memory_fraction_of_total) {
    s.memory_fraction = m.budget / m.capacity;
  } else {
    const Bytes outside = m.budget - m.kv_pool;
    s.memory_fraction = m.kv_pool / (m.capacity - outside);
  }
  s.memory_fraction = std::floor(s.memory_fraction * 100.0 + 1e-9) / 100.0;
  const std::string kv = std::string(to_string(spec.precision.kv_cache));
  if (!spec.keeps_kv_cache()) {
    // An encoder keeps no KV cache: no format to set, nothing for the checkpoint to carry.
  } else if (const auto it = r.kv_cache_dtypes.find(kv); it != r.kv_cache_dtypes.end()) {
    s.kv_cache_dtype = it->second;
  } else {
    // The capacity, the batch limit and the KV pool all assume this format: it has to come
    // from the checkpoint's own quantization config.
    report.notes.push_back(fmt::format(
        "the plan keeps the KV cache in {}, which {}'s command line cannot set "
        "(data/deploy.json): --model-uri must name a checkpoint whose quantization config "
        "stores the KV cache in {}, or plan without {} in precision.allow",
        kv,
        engine,
        kv,
        kv));
  }
  if (r.arg("served_model_name").empty()) {
    report.notes.push_back(fmt::format("{} takes no served model name: clients send the model "
                                       "as --model-uri names it ({})",
                                       engine,
                                       s.model_uri));
  }
  const std::string w = std::string(to_string(spec.precision.weights));
  const bool stored_as_planned = spec.precision.weights == plan.spec.precision.weights;
  if (!stored_as_planned) {
    if (const auto it = r.quantizations.find(w); it != r.quantizations.end()) {
      s.quantization = it->second;
    } else {
      s.prequantized_checkpoint = true;
      report.notes.push_back(fmt::format(
          "the plan serves {} weights, which {} does not make on load: --model-uri must name a "
          "checkpoint already quantized to {}",
          w,
          engine,
          w));
    }
  }

  s.replicas = c.replicas;
  s.max_replicas = c.replicas;
  for (const auto& month : c.cost.months) {
    s.max_replicas = std::max<int>(s.max_replicas, static_cast<int>(month.replicas));
  }
  // The plan grows the rate targets; the concurrency grows with demand too, and each replica
  // holds at most the capacity: the peak month's concurrency over the capacity.
  const auto& d = spec.deployment;
  if (spec.workload.inference.concurrency && d.growth_per_month > 0) {
    const double peak =
        static_cast<double>(*spec.workload.inference.concurrency) *
        std::pow(1.0 + d.growth_per_month, static_cast<double>(d.horizon_months - 1));
    const double needed = std::ceil(peak / static_cast<double>(s.capacity_per_replica) - 1e-9);
    s.max_replicas = std::max(s.max_replicas, static_cast<int>(std::min(needed, 1e6)));
  }
  s.autoscaled = o.autoscaler != Autoscaler::none;
  s.min_replicas = spec.deployment.scale_to_zero && o.autoscaler == Autoscaler::keda ? 0 : 1;

  // Cold start: the checkpoint read from storage by each node, then the engine's own start.
  // (A pre-quantized checkpoint: about the served weights, per GPU times the GPUs.)
  const Bytes stored = s.prequantized_checkpoint
                           ? m.per_gpu.weights * static_cast<double>(s.gpus_per_replica)
                           : plan.requirements.weights;
  s.weights_read_per_node = stored / static_cast<double>(s.nodes_per_replica);
  s.cold_start =
      seconds(s.weights_read_per_node.si() / (in.data.storage_read_gb_per_s * 1e9)) + r.startup;
  s.startup_failure_threshold =
      static_cast<int>(std::max(3.0, std::ceil(2.0 * s.cold_start.si() / k_probe_period_s)));

  // DRAM busy at the capacity: bytes read per decode step per GPU over the step at peak
  // bandwidth, while decoding (not prefilling).
  const InferencePerformance& p = cap.perf;
  if (p.prefill_only && p.prefill.si() > 0) {
    // An embedding workload: each forward pass reads the weights once, back to back.
    s.dram_active_at_capacity = std::clamp(
        m.per_gpu.weights.si() / (c.gpu->memory_bandwidth.si() * p.prefill.si()), 0.01, 0.95);
    if (o.autoscaler == Autoscaler::hpa) {
      report.notes.push_back(fmt::format(
          "an embedding replica is compute bound: DRAM is busy {:.0f}% of the time at capacity, "
          "a weak signal to scale on; --autoscaler keda scales on the engine's running and "
          "waiting requests instead",
          100.0 * s.dram_active_at_capacity));
    }
  } else if (p.decode_step.si() > 0) {
    const double per_gpu_bytes = p.decode_bytes.si() / static_cast<double>(s.layout.pp);
    s.dram_active_at_capacity =
        std::clamp(per_gpu_bytes / (c.gpu->memory_bandwidth.si() * p.decode_step.si()) *
                       (1.0 - p.prefill_share),
                   0.01,
                   0.95);
  }
  s.engine_args = engine_command_line(s, r, s.engine_arg_notes);

  // The objects, in apply order.
  if (o.autoscaler == Autoscaler::hpa) {
    for (auto& obj : hpa_objects(s, o, in.data)) {
      report.objects.push_back(std::move(obj));
    }
    if (!in.data.dcgm_dram_active_by_default) {
      report.notes.push_back(fmt::format(
          "the HPA reads {}, which dcgm-exporter exports only with its profiling counters "
          "enabled (docs/deploy.md, \"HPA\")",
          in.data.dcgm_dram_active));
    }
  }
  report.objects.push_back(workload_object(s, o, r, product, gpu_resource));
  report.objects.push_back(service_object(s, o, r));
  report.objects.push_back(disruption_budget(s, o));
  if (o.autoscaler == Autoscaler::keda) {
    if (r.metric_running.empty() || r.metric_waiting.empty()) {
      throw InputError("--autoscaler",
                       fmt::format("keda scales on the engine's running and waiting requests, "
                                   "which {} {} does not export (data/deploy.json); use "
                                   "--autoscaler hpa",
                                   engine,
                                   r.version));
    }
    report.objects.push_back(pod_monitor(s, o, r));
    report.objects.push_back(keda_object(s, o, r, s.min_replicas == 0));
    if (s.min_replicas == 0) {
      const auto& ttft = spec.workload.inference.targets.ttft;
      report.notes.push_back(fmt::format(
          "scale to zero: a request that finds no replica waits about {} (cold start){}, and the "
          "engine's metrics vanish with its pods; wake it from your gateway's request metric "
          "(docs/deploy.md, \"Scale to zero\")",
          format_seconds(s.cold_start),
          ttft ? fmt::format(" against a TTFT target of {}", format_seconds(*ttft)) : ""));
    }
  }
  if (spec.deployment.scale_to_zero && o.autoscaler != Autoscaler::keda) {
    report.notes.push_back("deployment.scale_to_zero needs --autoscaler keda; ignored");
  }
  return report;
}

} // namespace rightsize
