#pragma once

// Something to apply: for each re-sized Kubernetes owner in an observe report, a strategic-merge
// patch of its pod template that asks for the recommended GPU (the resource and count per pod,
// and the node selector of its product), for `kubectl patch KIND NAME -n NS --patch-file FILE`.
// docs/observe.md, "Something to apply".

#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/observe/observe.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

struct OwnerPatch {
  std::string file_name; // "deployment-team-a-vllm-llama.yaml"
  std::string workload;  // the report's name, "team-a/Deployment/vllm-llama"
  WorkloadOwner owner;
  // The keys from the object to its pod spec: {"spec", "template", "spec"}, or for a CronJob
  // {"spec", "jobTemplate", "spec", "template", "spec"}.
  std::vector<std::string> pod_spec_path;
  std::string resource; // nvidia.com/gpu, nvidia.com/mig-3g.40gb, amd.com/gpu
  int per_pod = 0;      // of `resource`, per pod
  // spec.replicas: set where the recommendation holds fewer GPUs than the owner has pods of one
  // GPU each (a Deployment or StatefulSet); nullopt: the replicas stay.
  std::optional<int> replicas;
  std::string old_resource; // the resource asked for now, removed when it differs; else empty
  std::string node_label;   // nvidia.com/gpu.product
  std::string node_value;   // NVIDIA-L4
  std::string why;          // the verdict and recommendation, one line
};

struct OwnerPatches {
  std::vector<OwnerPatch> patches;
  // Re-sized workloads without a patch, and why: not a Kubernetes owner, a kind whose pod
  // template a strategic-merge patch cannot reach (a Job's is immutable; a LeaderWorkerSet or
  // Rollout is a custom resource), a count that does not divide among its pods, a GPU without
  // a known node label.
  std::vector<std::string> skipped;
};

// The patches of `report`'s over- and under-provisioned workloads that have a recommendation on a
// GPU. `products` names each catalog GPU's resource and node label (data/deploy.json).
OwnerPatches owner_patches(const ObserveReport& report, const GpuProducts& products);

} // namespace rightsize
