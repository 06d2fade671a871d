#include "cli/deploy_options.hpp"

#include "cli/common_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace rightsize::cli {

namespace {

// An option given as an empty string, or as a word that would read as a flag.
void require_word(const CLI::Option* option, const std::string& value, const std::string& name) {
  if (option->count() == 0) {
    return;
  }
  if (value.empty()) {
    throw InputError(name, "must not be empty");
  }
  if (value.front() == '-') {
    throw InputError(name, fmt::format("must not start with '-', got \"{}\"", value));
  }
  if (value.find_first_of(" \t\n") != std::string::npos) {
    throw InputError(name, fmt::format("must not contain spaces, got \"{}\"", value));
  }
}

// The Secret's name and key, the storage class: names Kubernetes would refuse on apply.
void check_kubernetes_names(const DeployCliOptions& o) {
  if (!o.hf_token_secret.empty() && o.hf_token_secret != "none") {
    const auto colon = o.hf_token_secret.find(':');
    const std::string name = o.hf_token_secret.substr(0, colon);
    if (!dns_subdomain(name)) {
      throw InputError("--hf-token-secret",
                       fmt::format("must name a Secret (a DNS-1123 subdomain: lower-case "
                                   "letters, digits, '-' and '.'), got \"{}\"",
                                   name));
    }
    if (colon != std::string::npos && !secret_key(o.hf_token_secret.substr(colon + 1))) {
      throw InputError("--hf-token-secret",
                       fmt::format("the key after ':' must be letters, digits, '-', '_' or '.', "
                                   "got \"{}\"",
                                   o.hf_token_secret.substr(colon + 1)));
    }
  }
  if (!o.topology_key.empty() && !label_key(o.topology_key)) {
    throw InputError("--topology-key",
                     fmt::format("must be a node label's key ([prefix/]name, the name at most 63 "
                                 "letters, digits, '-', '_' or '.'), got \"{}\"",
                                 o.topology_key));
  }
  if (!o.rdma_resource.empty() &&
      (o.rdma_resource.find('/') == std::string::npos || !label_key(o.rdma_resource))) {
    throw InputError("--rdma-resource",
                     fmt::format("must be an extended resource's name, domain/name "
                                 "(rdma/rdma_shared_device_a), got \"{}\"",
                                 o.rdma_resource));
  }
  if (!o.storage_class.empty() && !dns_subdomain(o.storage_class)) {
    throw InputError("--storage-class",
                     fmt::format("must be a DNS-1123 subdomain (lower-case letters, digits, '-' "
                                 "and '.'), got \"{}\"",
                                 o.storage_class));
  }
}

} // namespace

DeployChecked add_deploy_options(CLI::App& sub, DeployCliOptions& o) {
  DeployChecked checked;
  sub.add_option("SPEC",
                 o.plan.spec,
                 "A rightsize spec, a Hugging Face config.json or a model folder (serving)")
      ->required();
  add_catalog_option(sub, o.plan.common);
  add_plan_options(sub, o.plan.settings);
  auto* k8s = "Kubernetes";
  sub.add_option(
         "--engine", o.engine, "Serving engine: vllm, sglang or tensorrt-llm (default: the spec's)")
      ->check(CLI::IsMember({"vllm", "sglang", "tensorrt-llm"}))
      ->group(k8s);
  checked.autoscaler =
      sub.add_option(
             "--autoscaler",
             o.autoscaler,
             "hpa (GPU metric through prometheus-adapter), keda (the engine's queue through "
             "Prometheus) or none")
          ->check(CLI::IsMember({"hpa", "keda", "none"}))
          ->default_str("hpa")
          ->group(k8s);
  sub.add_option("--namespace", o.name_space, "Namespace of every object")
      ->default_str("default")
      ->group(k8s);
  checked.image = sub.add_option("--image",
                                 o.image,
                                 "Container image (default: the engine's, data/deploy.json)")
                      ->group(k8s);
  checked.model_uri =
      sub.add_option("--model-uri",
                     o.model_uri,
                     "The checkpoint to serve: a Hugging Face id or a path on a mounted volume "
                     "(default: the config's _name_or_path)")
          ->group(k8s);
  sub.add_option("--prometheus", o.prometheus, "Prometheus URL that KEDA queries")
      ->default_str(o.prometheus)
      ->group(k8s);
  sub.add_option("--hf-token-secret",
                 o.hf_token_secret,
                 "Secret[:key] holding the Hugging Face token (default hf-token-secret:token), or "
                 "none for a public model")
      ->type_name("NAME[:KEY]")
      ->group(k8s);
  sub.add_option("--model-cache",
                 o.model_cache,
                 "pvc: a volume the first start fills with the weights; none: each pod "
                 "downloads them")
      ->check(CLI::IsMember({"pvc", "none"}))
      ->default_str("pvc")
      ->group(k8s);
  checked.wake = sub.add_option("--wake",
                                o.wake,
                                "What wakes a deployment KEDA scaled to zero: http-add-on (KEDA's "
                                "HTTP add-on in front of the Service), query (--wake-query) or "
                                "none")
                     ->check(CLI::IsMember({"http-add-on", "query", "none"}))
                     ->default_str("http-add-on")
                     ->group(k8s);
  checked.wake_query =
      sub.add_option("--wake-query",
                     o.wake_query,
                     "With --wake query: PromQL for the requests waiting before any pod (your "
                     "gateway's or router's queue), a metric that exists with no pod")
          ->type_name("PROMQL")
          ->group(k8s);
  sub.add_option("--topology-key",
                 o.topology_key,
                 "A node label whose domains each hold one whole replica across nodes (a rack, "
                 "an NVLink domain: nvidia.com/gpu.clique)")
      ->type_name("LABEL")
      ->group(k8s);
  sub.add_option("--rdma-resource",
                 o.rdma_resource,
                 "Your network plugin's RDMA device resource, requested by each pod of a replica "
                 "across nodes (rdma/rdma_shared_device_a)")
      ->type_name("NAME")
      ->group(k8s);
  checked.adapter_values =
      sub.add_option("--adapter-values",
                     o.adapter_values,
                     "Also write prometheus-adapter's rule as its Helm chart's values to FILE "
                     "(--autoscaler hpa)")
          ->type_name("FILE")
          ->group(k8s);
  sub.add_option("--storage-class", o.storage_class, "The model cache's storage class")
      ->type_name("NAME")
      ->group(k8s);
  checked.lock =
      sub.add_option("--lock",
                     o.lock,
                     "Deploy the configuration locked for this spec (rightsize plan --lock; "
                     "default: rightsize.lock.json beside the spec) instead of a fresh plan's")
          ->expected(0, 1)
          ->type_name("[FILE]");
  checked.output =
      sub.add_option("-o,--output",
                     o.output_dir,
                     "Write one file per object under DIR instead of one YAML stream to stdout")
          ->type_name("DIR");
  return checked;
}

void check_options(const DeployCliOptions& o, const DeployChecked& checked) {
  check_kubernetes_names(o);
  require_word(checked.image, o.image, "--image");
  require_word(checked.model_uri, o.model_uri, "--model-uri");
  if (o.wake == "query" && o.wake_query.find_first_not_of(" \t") == std::string::npos) {
    throw InputError("--wake-query",
                     "must give the PromQL of a metric that exists with no pod (your gateway's "
                     "queue) with --wake query");
  }
  if (checked.wake_query->count() > 0 && o.wake != "query") {
    throw InputError("--wake-query", "is read with --wake query only");
  }
  if (checked.adapter_values->count() > 0) {
    if (o.adapter_values.empty()) {
      throw InputError("--adapter-values", "must name a file");
    }
    if (o.autoscaler != "hpa") {
      throw InputError(
          "--adapter-values",
          fmt::format("is prometheus-adapter's rule for --autoscaler hpa, not {}", o.autoscaler));
    }
  }
  if (checked.output->count() > 0 && o.output_dir.empty()) {
    throw InputError("--output", "must name a directory");
  }
  const auto& url = o.prometheus;
  const auto scheme = url.find("://");
  if ((url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) || url.size() <= scheme + 3) {
    throw InputError("--prometheus",
                     fmt::format("must be an http:// or https:// URL, got \"{}\"", url));
  }
}

DeployOptions deploy_options(const DeployCliOptions& o) {
  DeployOptions options;
  options.autoscaler = o.autoscaler == "keda"   ? Autoscaler::keda
                       : o.autoscaler == "none" ? Autoscaler::none
                                                : Autoscaler::hpa;
  options.name_space = o.name_space;
  options.image = o.image;
  options.model_uri = o.model_uri;
  options.prometheus = o.prometheus;
  options.autoscaler_given = o.autoscaler_given;
  options.model_cache = o.model_cache == "none" ? ModelCache::none : ModelCache::pvc;
  options.storage_class = o.storage_class;
  options.wake = o.wake == "none"    ? Wake::none
                 : o.wake == "query" ? Wake::query
                                     : Wake::http_add_on;
  options.wake_query = o.wake_query;
  options.topology_key = o.topology_key;
  options.rdma_resource = o.rdma_resource;
  if (o.hf_token_secret == "none") {
    options.hf_token_off = true;
  } else if (!o.hf_token_secret.empty()) {
    const auto colon = o.hf_token_secret.find(':');
    options.hf_token =
        SecretKey{o.hf_token_secret.substr(0, colon),
                  colon == std::string::npos ? "token" : o.hf_token_secret.substr(colon + 1)};
  }
  return options;
}

} // namespace rightsize::cli
