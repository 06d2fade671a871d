#pragma once

// Inside the deploy stage: the steps make_deployment (deploy.cpp) puts together, one concern per
// file. Not a public header.
//   capacity.cpp        how many sequences one replica holds while the targets hold
//   engine_command.cpp  the engine's command line, and shell quoting for multi-node launchers
//   objects.cpp         the Kubernetes objects that serve: Deployment or LeaderWorkerSet, pods,
//                       Service, PodDisruptionBudget, and the helpers every object shares
//   autoscalers.cpp     the autoscaler objects: HPA with its prometheus-adapter rules, or KEDA
//                       with the PodMonitor it reads through
//   disaggregated.cpp   llm-d's objects for disaggregated prefill and decode pools
//   weights.cpp         where the weights come from (token, cache volume, download, cold start)
//                       and what a pod asks of its node besides GPUs

#include <rightsize/deploy/deploy.hpp>

#include <string>
#include <vector>

namespace rightsize::serving {

constexpr int k_probe_period_s = 10;
// How long a probe waits for an answer: SGLang's /health runs a one-token generation and sleeps
// a second before it answers (python/sglang/srt/entrypoints/http_server.py, health_generate), past
// Kubernetes' default of 1 s; llm-d's guides give their probes 5 s.
constexpr int k_probe_timeout_s = 5;

inline std::string engine_key(Engine e) {
  return std::string(to_string(e));
}

// The port the engine listens on: the recipe's unless the settings name another (a decode pod's
// engine behind llm-d's routing sidecar).
inline int engine_port(const ServingSettings& s, const EngineRecipe& r) {
  return s.port > 0 ? s.port : r.port;
}

// --- capacity.cpp

// The largest number of concurrent sequences per replica at which the targets, held as the plan
// holds them (the band's slow edge unless --confidence point), still hold: a bisection over the
// batch with the same estimator, between the plan's batch (which holds) and what fits.
struct Capacity {
  long long sequences = 0;
  InferencePerformance perf;  // at `sequences`
  bool latency_bound = false; // below what fits because a latency target stops it
  bool engine_bound = false;  // else below what fits because the engine's max_num_seqs caps it
};

Capacity capacity_per_replica(const Candidate& c, const DeployInputs& in);

// A disaggregated candidate's pools: the prompts one prefill replica holds at once (all that fit)
// and the sequences one decode replica holds while TTFT and TPOT hold at the band's slow edge (a
// bisection over the load with the disaggregated estimator, from the plan's concurrency).
struct PoolCapacity {
  long long prefill = 0;
  long long decode = 0;
  bool latency_bound = false; // the decode capacity is set by a latency target
};

PoolCapacity pool_capacity(const Candidate& c, const DeployInputs& in);

// --- engine_command.cpp

// The engine's command line, from its recipe and the settings, and beside each value where it
// comes from (`notes`, one per word, empty where the word explains itself).
std::vector<std::string> engine_command_line(const ServingSettings& s,
                                             const EngineRecipe& r,
                                             std::vector<std::string>& notes);

// A word as a POSIX shell reads it back: as it is when plain, else in single quotes.
std::string shell_quote(const std::string& word);

// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

// --- objects.cpp

Node selector_of(const std::string& name);

// The name's selector and the settings' pod labels: one disaggregated pool's pods.
Node pool_selector(const ServingSettings& s);

// A Kubernetes object's head: apiVersion, kind and metadata.
Node object(const char* api_version,
            const char* kind,
            const ServingSettings& s,
            const DeployOptions& o,
            const std::string& name);

// The pods that serve: every replica's pod, or a LeaderWorkerSet group's leader only.
Node serving_labels(const ServingSettings& s, const char* leader_comment);

// One pod's spec: the engine container (its GPUs, probes while `serves`) on a node with the GPU,
// spread over nodes or not.
Node pod_spec(const ServingSettings& s,
              const EngineRecipe& r,
              const DeployData& d,
              const GpuProduct& product,
              const std::string& gpu_resource,
              const std::vector<std::string>& command,
              const std::vector<std::string>& args,
              bool serves,
              bool spread);

// A pod template: the name's labels, the settings' pod labels, a leader's role.
Node pod_template(const ServingSettings& s, Node spec, bool leader);

// The Deployment, or the LeaderWorkerSet when a replica spans nodes.
Node workload_object(const ServingSettings& s,
                     const DeployOptions& o,
                     const EngineRecipe& r,
                     const DeployData& d,
                     const GpuProduct& product,
                     const std::string& gpu_resource);

// A LeaderWorkerSet's group: nodes_per_replica pods, the leader serving.
Node leader_worker_template(const ServingSettings& s,
                            const EngineRecipe& r,
                            const DeployData& d,
                            const GpuProduct& product,
                            const std::string& gpu_resource);

Node service_object(const ServingSettings& s, const DeployOptions& o, const EngineRecipe& r);

// maxSurge 0, maxUnavailable 1: a rollout replaces one replica at a time on no extra GPUs.
Node one_replica_at_a_time();

// maxUnavailable 1 over the replicas (a disaggregated pool's: <name>-<role>, its pods only).
Node disruption_budget(const ServingSettings& s, const DeployOptions& o);

// What an autoscaler scales: the Deployment or the LeaderWorkerSet.
Node scale_target(const ServingSettings& s);

// NVIDIA's ComputeDomain of a replica across the nodes of one NVLink domain: the IMEX channel's
// ResourceClaimTemplate its pods claim.
Node compute_domain_object(const ServingSettings& s, const DeployOptions& o, const DeployData& d);

// --- autoscalers.cpp

// prometheus-adapter's rules ConfigMap, then the HorizontalPodAutoscaler that reads its metric.
std::vector<Node>
hpa_objects(const ServingSettings& s, const DeployOptions& o, const DeployData& d);

// The Prometheus Operator's PodMonitor: Prometheus scrapes the engine's metrics, which KEDA's
// query reads.
Node pod_monitor(const ServingSettings& s, const DeployOptions& o, const EngineRecipe& r);

// KEDA's ScaledObject on the engine's running and waiting requests; with `wake`, also the HTTP
// add-on's external scaler, which counts the requests its interceptor holds while no pod runs.
Node keda_object(const ServingSettings& s,
                 const DeployOptions& o,
                 const EngineRecipe& r,
                 const DeployData& d,
                 bool scale_to_zero,
                 bool wake);

// The HTTP add-on's HTTPScaledObject for `s`: its interceptor routes the Service's host and
// waits for a replica; the ScaledObject above stays rightsize's (the add-on is told not to write
// its own).
Node http_scaled_object(const ServingSettings& s,
                        const DeployOptions& o,
                        const EngineRecipe& r,
                        const DeployData& d);

// A second prometheus trigger in `scaled_object` on DeployOptions::wake_query, a metric that
// exists with no pod (a gateway's queue): any value above zero wakes the deployment.
void add_wake_query(Node& scaled_object, const ServingSettings& s, const DeployOptions& o);

// The host clients name (the Host header) when they send through the interceptor.
std::string wake_host(const ServingSettings& s, const DeployOptions& o);

// --- disaggregated.cpp

// llm-d's objects for a disaggregated configuration: the DisaggregatedSet of both pools (their
// pods labelled for llm-d's router, the decode pods behind its routing sidecar) and a
// PodDisruptionBudget per pool.
std::vector<Node> disaggregated_objects(const ServingSettings& prefill,
                                        const ServingSettings& decode,
                                        const DeployOptions& o,
                                        const EngineRecipe& r,
                                        const DeployData& d,
                                        const GpuProduct& product,
                                        const std::string& gpu_resource);

// --- weights.cpp

// Whole GiB, rounded up: a Kubernetes quantity ("812Gi").
std::string gib_quantity(Bytes b);

// The checkpoint, where it comes from and the cold start: from the Hugging Face Hub (a
// repository id) through an init container into the cache volume `o` asks for, read by each node
// of a replica at data's storage rate, then the engine's own start. The startup probe covers the
// read and the start; the download runs before it, in the init container.
void set_weights(ServingSettings& s,
                 const Plan& plan,
                 const MemoryEstimate& m,
                 const DeployData& data,
                 const EngineRecipe& r,
                 const DeployOptions& o);

// CPU, host memory, /dev/shm and scratch disk for one pod of `s` (after set_weights).
void set_host_resources(ServingSettings& s, const DeployData& d);

// The host requests beside the GPUs in a container's `resources`.
void add_host_requests(Node& resources, const ServingSettings& s, const DeployData& d);

// The weights' init container, the engine's Hub variables, the cache volume and its mount.
void add_weights(
    Node& pod, Node& container, Node& volumes, const ServingSettings& s, const DeployData& d);

// The PersistentVolumeClaim of the model cache.
Node model_cache_claim(const ServingSettings& s, const DeployOptions& o, const DeployData& d);

} // namespace rightsize::serving
