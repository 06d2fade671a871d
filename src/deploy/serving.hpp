#pragma once

// Inside the deploy stage: the steps make_deployment (deploy.cpp) puts together, one concern per
// file. Not a public header.
//   capacity.cpp        how many sequences one replica holds while the targets hold
//   engine_command.cpp  the engine's command line, and shell quoting for multi-node launchers
//   objects.cpp         the Kubernetes objects that serve: Deployment or LeaderWorkerSet, pods,
//                       Service, PodDisruptionBudget, and the helpers every object shares
//   autoscalers.cpp     the autoscaler objects: HPA with its prometheus-adapter rules, or KEDA
//                       with the PodMonitor it reads through

#include <rightsize/deploy/deploy.hpp>

#include <string>
#include <vector>

namespace rightsize::serving {

constexpr int k_probe_period_s = 10;

inline std::string engine_key(Engine e) {
  return std::string(to_string(e));
}

// --- capacity.cpp

// The largest number of concurrent sequences per replica at which the targets, held as the plan
// holds them (the band's slow edge unless --confidence point), still hold: a bisection over the
// batch with the same estimator, between the plan's batch (which holds) and what fits.
struct Capacity {
  long long sequences = 0;
  InferencePerformance perf;  // at `sequences`
  bool latency_bound = false; // below what fits because a latency target stops it
};

Capacity capacity_per_replica(const Candidate& c, const DeployInputs& in);

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

// A Kubernetes object's head: apiVersion, kind and metadata.
Node object(const char* api_version,
            const char* kind,
            const ServingSettings& s,
            const DeployOptions& o,
            const std::string& name);

// The pods that serve: every replica's pod, or a LeaderWorkerSet group's leader only.
Node serving_labels(const ServingSettings& s, const char* leader_comment);

// The Deployment, or the LeaderWorkerSet when a replica spans nodes.
Node workload_object(const ServingSettings& s,
                     const DeployOptions& o,
                     const EngineRecipe& r,
                     const GpuProduct& product,
                     const std::string& gpu_resource);

Node service_object(const ServingSettings& s, const DeployOptions& o, const EngineRecipe& r);

Node disruption_budget(const ServingSettings& s, const DeployOptions& o);

// What an autoscaler scales: the Deployment or the LeaderWorkerSet.
Node scale_target(const ServingSettings& s);

// --- autoscalers.cpp

// prometheus-adapter's rules ConfigMap, then the HorizontalPodAutoscaler that reads its metric.
std::vector<Node>
hpa_objects(const ServingSettings& s, const DeployOptions& o, const DeployData& d);

// The Prometheus Operator's PodMonitor: Prometheus scrapes the engine's metrics, which KEDA's
// query reads.
Node pod_monitor(const ServingSettings& s, const DeployOptions& o, const EngineRecipe& r);

Node keda_object(const ServingSettings& s,
                 const DeployOptions& o,
                 const EngineRecipe& r,
                 bool scale_to_zero);

} // namespace rightsize::serving
