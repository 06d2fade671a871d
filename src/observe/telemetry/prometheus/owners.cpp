// Pods folded into the Kubernetes workloads that own them, as krr does, from kube-state-metrics'
// series over the window: kube_pod_owner (a pod's ReplicaSet, StatefulSet, Job, ...),
// kube_replicaset_owner (its Deployment or Argo Rollout), kube_job_owner (its CronJob) and
// kube_pod_labels (the leaderworkerset.sigs.k8s.io/name label of a LeaderWorkerSet's pods).
// docs/observe.md, "Owners".

#include "session.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

namespace rightsize::prometheus {

namespace {

using Owner = std::pair<std::string, std::string>; // kind, name
using Key = std::pair<std::string, std::string>;   // namespace, object

// The label's value, preferring exported_<label>: Prometheus renames the exporter's own labels so
// when the scrape target (kube-state-metrics' pod) has labels of the same name.
std::string label(const Labels& labels, const std::string& name) {
  std::string plain;
  for (const auto& [key, value] : labels) {
    if (key == "exported_" + name && !value.empty()) {
      return value;
    }
    if (key == name) {
      plain = value;
    }
  }
  return plain;
}

bool is_owner(const std::string& kind, const std::string& name) {
  return !kind.empty() && !name.empty() && kind != "<none>" && name != "<none>";
}

// object label -> its owner, from `max by (...) (max_over_time(metric[window]))`.
std::map<Key, Owner> owners_of(Session& session,
                               const std::string& metric,
                               const std::string& object_label,
                               const std::string& matchers = "") {
  const std::string by = fmt::format("namespace, exported_namespace, {0}, exported_{0}, "
                                     "owner_kind, owner_name",
                                     object_label);
  const Answer answer = session.instant(
      fmt::format("max by ({}) (max_over_time({}{}{}))", by, metric, matchers, session.range()));
  std::map<Key, Owner> out;
  for (const auto& series : answer.series) {
    const std::string kind = label(series.labels, "owner_kind");
    const std::string name = label(series.labels, "owner_name");
    const Key key{label(series.labels, "namespace"), label(series.labels, object_label)};
    if (is_owner(kind, name)) {
      out[key] = {kind, name};
    } else {
      out.emplace(key, Owner{}); // known, with no owner
    }
  }
  return out;
}

} // namespace

void add_owners(Session& session, Telemetry& into) {
  std::set<Key> pods;
  for (const auto& gpu : into.gpus) {
    if (!gpu.id.pod.empty()) {
      pods.emplace(gpu.id.namespace_name, gpu.id.pod);
    }
  }
  if (pods.empty()) {
    return;
  }
  const auto pod_owner = owners_of(session, "kube_pod_owner", "pod");
  if (pod_owner.empty()) {
    into.warnings.push_back(fmt::format(
        "{}: no kube_pod_owner series (kube-state-metrics) {}: workloads are pods, not the "
        "Deployments, StatefulSets or Jobs that own them",
        session.base().shown,
        session.window_text()));
    return;
  }
  const auto replicaset_owner = owners_of(session, "kube_replicaset_owner", "replicaset");
  const auto job_owner = owners_of(session, "kube_job_owner", "job_name");
  std::map<Key, std::string> lws;
  const std::string lws_label = "label_leaderworkerset_sigs_k8s_io_name";
  const Answer labels =
      session.instant(fmt::format("max by (namespace, exported_namespace, pod, exported_pod, {0}) "
                                  "(max_over_time(kube_pod_labels{{{0}!=\"\"}}{1}))",
                                  lws_label,
                                  session.range()));
  for (const auto& series : labels.series) {
    lws[{label(series.labels, "namespace"), label(series.labels, "pod")}] =
        label(series.labels, lws_label);
  }

  const auto owner_of = [&](const Key& pod) -> Owner {
    if (const auto it = lws.find(pod); it != lws.end() && !it->second.empty()) {
      return {"LeaderWorkerSet", it->second};
    }
    const auto it = pod_owner.find(pod);
    if (it == pod_owner.end() || it->second.first.empty()) {
      return {};
    }
    const auto& [kind, name] = it->second;
    // A ReplicaSet's Deployment (or Rollout), a Job's CronJob: the object a person manages.
    const std::map<Key, Owner>* parents = kind == "ReplicaSet" ? &replicaset_owner
                                          : kind == "Job"      ? &job_owner
                                                               : nullptr;
    if (parents != nullptr) {
      if (const auto parent = parents->find({pod.first, name});
          parent != parents->end() && !parent->second.first.empty()) {
        return parent->second;
      }
    }
    return it->second;
  };

  // A pod kube-state-metrics says has no owner (owner_kind "<none>") is a bare pod, judged as
  // itself; one it has no series of at all is worth a warning.
  std::size_t without = 0;
  std::map<Key, Owner> resolved;
  for (const auto& pod : pods) {
    if (pod_owner.count(pod) == 0 && lws.count(pod) == 0) {
      ++without;
    }
    resolved.emplace(pod, owner_of(pod));
  }
  for (auto& gpu : into.gpus) {
    if (const auto it = resolved.find({gpu.id.namespace_name, gpu.id.pod}); it != resolved.end()) {
      gpu.id.owner_kind = it->second.first;
      gpu.id.owner_name = it->second.second;
    }
  }
  if (without > 0) {
    into.warnings.push_back(fmt::format("{}: {} of {} pods have no kube_pod_owner series {}: "
                                        "judged as pods",
                                        session.base().shown,
                                        without,
                                        pods.size(),
                                        session.window_text()));
  }
}

} // namespace rightsize::prometheus
