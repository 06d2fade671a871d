// The patches of re-sized owners. docs/observe.md, "Something to apply".

#include <rightsize/observe/patches.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace rightsize {

namespace {

// A lower-case file-name part: letters and digits kept, anything else one '-'.
std::string file_part(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') {
    out.pop_back();
  }
  return out;
}

// The keys from the object to its pod spec, for the kinds a strategic-merge patch reaches;
// empty with `why` for the others.
std::vector<std::string> pod_spec_path(const std::string& kind, std::string& why) {
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
      kind == "ReplicaSet") {
    return {"spec", "template", "spec"};
  }
  if (kind == "CronJob") {
    return {"spec", "jobTemplate", "spec", "template", "spec"};
  }
  if (kind == "Job") {
    why = "a Job's pod template cannot change; change what creates it";
  } else {
    why = fmt::format("{} is a custom resource, which kubectl patch merges without strategic-merge "
                      "rules (its container list would be replaced); edit its pod template",
                      kind);
  }
  return {};
}

} // namespace

OwnerPatches owner_patches(const ObserveReport& report, const GpuProducts& products) {
  OwnerPatches out;
  for (const auto& w : report.workloads) {
    if (w.verdict != "over-provisioned" && w.verdict != "under-provisioned") {
      continue;
    }
    if (!w.recommendation || w.recommendation->gpu.empty() || w.recommendation->gpus <= 0) {
      continue;
    }
    const auto skip = [&](const std::string& why) {
      out.skipped.push_back(fmt::format("{}: no patch: {}", w.name, why));
    };
    if (!w.owner) {
      skip("not a Kubernetes owner's pods (kube-state-metrics' owners, --group-by owner)");
      continue;
    }
    const ObserveRecommendation& r = *w.recommendation;
    OwnerPatch p;
    p.workload = w.name;
    p.owner = *w.owner;
    std::string why;
    p.pod_spec_path = pod_spec_path(p.owner.kind, why);
    if (p.pod_spec_path.empty()) {
      skip(why);
      continue;
    }
    if (p.owner.container.empty()) {
      skip("the telemetry does not name the container the GPUs were given to");
      continue;
    }
    const auto product = products.find(r.gpu);
    if (product == products.end()) {
      skip(fmt::format("{} has no node label in data/deploy.json's gpu_products", r.gpu));
      continue;
    }
    const int pods = std::max(1, w.pods);
    const bool scalable = p.owner.kind == "Deployment" || p.owner.kind == "StatefulSet";
    if (r.gpus % pods == 0) {
      p.per_pod = r.gpus / pods;
    } else if (scalable && w.gpus == pods && r.gpus < pods) {
      // Pods of one GPU each, fewer GPUs needed: fewer replicas of one GPU.
      p.per_pod = 1;
      p.replicas = r.gpus;
    } else {
      skip(fmt::format("{} GPUs do not divide among its {} pods; choose the replicas and GPUs per "
                       "pod by hand",
                       r.gpus,
                       pods));
      continue;
    }
    p.resource = r.partition.empty() ? product->second.resource
                                     : "nvidia.com/mig-" + r.partition; // the mixed strategy
    // The resource asked for now, removed from limits and requests when it changes.
    std::string current;
    if (!w.partition.empty()) {
      current = "nvidia.com/mig-" + w.partition;
    } else if (const auto now = products.find(w.gpu); now != products.end()) {
      current = now->second.resource;
    }
    if (current != p.resource) {
      p.old_resource = current;
    }
    p.node_label = product->second.label;
    p.node_value = product->second.value;
    p.why = fmt::format("{} is {}: {}", w.name, w.verdict, r.text);
    p.file_name = fmt::format("{}-{}-{}.yaml",
                              file_part(p.owner.kind),
                              file_part(p.owner.namespace_name),
                              file_part(p.owner.name));
    out.patches.push_back(std::move(p));
  }
  return out;
}

} // namespace rightsize
