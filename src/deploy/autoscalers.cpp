// The autoscaler objects, sized from the capacity model (docs/deploy.md, "Autoscaling"): the
// HPA on the GPU's predicted DRAM activity through prometheus-adapter, or KEDA on the engine's
// running and waiting requests through a PodMonitor.

#include "serving.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::serving {

namespace {

// The per-pod metric prometheus-adapter serves to the HPA.
constexpr const char* k_hpa_metric = "rightsize_gpu_dram_active";

} // namespace

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
  target.set("averageValue",
             Node::str(fmt::format("{}m", milli)),
             fmt::format("DRAM active {:.2f}: predicted at {} concurrent {} per replica, "
                         "{}",
                         s.dram_active_at_capacity,
                         s.capacity_per_replica,
                         s.images ? "images" : "sequences",
                         s.latency_bound  ? "the most at which the latency targets hold"
                         : s.engine_bound ? "the engine's cap on sequences (more fit)"
                                          : "all that fit"));
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
  rules.push(rule);
  Node config = Node::map();
  config.set("rules", std::move(rules));
  // The same rule as prometheus-adapter's Helm chart takes it (prometheus-community's chart
  // 5.3.0, values.yaml): rules.custom, after the chart's default rules.
  Node custom = Node::seq();
  custom.push(std::move(rule));
  Node chart_rules = Node::map();
  chart_rules.set("custom", std::move(custom));
  Node values = Node::map();
  values.set("rules", std::move(chart_rules));
  Node cm = object("v1", "ConfigMap", s, o, s.name + "-prometheus-adapter-rules");
  Node& meta = *cm.find("metadata");
  Node* labels = meta.find("labels");
  labels->set("app.kubernetes.io/component", Node::str("prometheus-adapter-config"));
  Node annotations = Node::map();
  annotations.set("rightsize.dev/usage",
                  Node::str("values.yaml: helm upgrade --install prometheus-adapter "
                            "prometheus-community/prometheus-adapter --reuse-values -f "
                            "values.yaml (rightsize deploy --adapter-values writes it); "
                            "config.yaml: the same rule for an adapter configured by hand"));
  meta.set("annotations", std::move(annotations));
  Node data = Node::map();
  data.set("values.yaml", Node::document(std::move(values)));
  data.set("config.yaml", Node::document(std::move(config)));
  cm.set("data", std::move(data));
  std::vector<Node> out;
  out.push_back(std::move(cm));
  out.push_back(std::move(hpa));
  return out;
}

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
                 const DeployData& d,
                 bool scale_to_zero,
                 bool wake) {
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
                       s.latency_bound  ? "at which the latency targets hold"
                       : s.engine_bound ? "the engine runs (more fit)"
                                        : "that fit",
                       s.planned_per_replica));
  if (scale_to_zero) {
    meta.set("activationThreshold",
             Node::str("0"),
             "active while any request runs or waits; with no pod the series is gone");
  }
  Node trigger = Node::map();
  trigger.set("type", Node::str("prometheus"));
  trigger.set("metadata", std::move(meta));
  Node triggers = Node::seq();
  triggers.push(std::move(trigger));
  if (wake) {
    Node push = Node::map();
    push.set("httpScaledObject", Node::str(s.name), "the HTTPScaledObject beside it");
    push.set("scalerAddress",
             Node::str(d.http_add_on.scaler_address),
             fmt::format("KEDA HTTP add-on {}'s external scaler", d.http_add_on.version));
    Node wakes = Node::map();
    wakes.set("type",
              Node::str("external-push"),
              "requests the interceptor holds: the signal that exists with no pod");
    wakes.set("metadata", std::move(push));
    triggers.push(std::move(wakes));
  }
  spec.set("triggers", std::move(triggers));
  so.set("spec", std::move(spec));
  return so;
}

void add_wake_query(Node& scaled_object, const ServingSettings& s, const DeployOptions& o) {
  Node meta = Node::map();
  meta.set("serverAddress", Node::str(o.prometheus));
  meta.set("query", Node::str(o.wake_query), "--wake-query: requests waiting before any pod");
  meta.set("threshold",
           Node::str(std::to_string(s.capacity_per_replica)),
           "requests per replica, as the engine's trigger");
  meta.set("activationThreshold", Node::str("0"), "any request waiting wakes it");
  Node trigger = Node::map();
  trigger.set("type", Node::str("prometheus"));
  trigger.set("metadata", std::move(meta));
  scaled_object.find("spec")->find("triggers")->push(std::move(trigger));
}

std::string wake_host(const ServingSettings& s, const DeployOptions& o) {
  return fmt::format("{}.{}.svc.cluster.local", s.name, o.name_space);
}

Node http_scaled_object(const ServingSettings& s,
                        const DeployOptions& o,
                        const EngineRecipe& r,
                        const DeployData& d) {
  Node hso = object("http.keda.sh/v1alpha1", "HTTPScaledObject", s, o, s.name);
  Node annotations = Node::map();
  annotations.set(d.http_add_on.skip_scaled_object_annotation,
                  Node::str("true"),
                  "the ScaledObject is rightsize's, with the engine's queue beside this");
  hso.find("metadata")->set("annotations", std::move(annotations));
  Node spec = Node::map();
  Node hosts = Node::seq();
  hosts.push(Node::str(wake_host(s, o)),
             fmt::format("the Host header of requests sent through {}", d.http_add_on.interceptor));
  spec.set("hosts", std::move(hosts));
  Node target = scale_target(s);
  target.set("service", Node::str(s.name));
  target.set("port", Node::integer(r.port), "the Service's port");
  spec.set("scaleTargetRef", std::move(target));
  Node replicas = Node::map();
  replicas.set("min", Node::integer(0));
  replicas.set("max", Node::integer(s.max_replicas));
  spec.set("replicas", std::move(replicas));
  Node concurrency = Node::map();
  concurrency.set("targetValue",
                  Node::integer(s.capacity_per_replica),
                  "requests in flight per replica: the ScaledObject's threshold");
  Node metric = Node::map();
  metric.set("concurrency", std::move(concurrency));
  spec.set("scalingMetric", std::move(metric));
  spec.set("scaledownPeriod", Node::integer(300), "the ScaledObject's cooldown");
  Node timeouts = Node::map();
  timeouts.set(
      "conditionWait",
      Node::str(fmt::format("{}s", static_cast<long long>(std::ceil(2.0 * s.cold_start.si())))),
      fmt::format("a request waits for a replica: twice the cold start of {}",
                  format_seconds(s.cold_start)));
  spec.set("timeouts", std::move(timeouts));
  hso.set("spec", std::move(spec));
  return hso;
}

} // namespace rightsize::serving
