// The recommended serving configuration as Kubernetes objects: make_deployment's steps, in order.
// How each number is derived: docs/deploy.md. The objects themselves: objects.cpp and
// autoscalers.cpp; the engine's command line: engine_command.cpp.

#include "serving.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace rightsize {

namespace {

using namespace serving;

// GPUs one Kubernetes node holds: the catalog's server size, except NVL72 racks, whose nodes are
// compute trays of 4 GPUs (72 GPUs in 18 trays).
int gpus_per_node(const Gpu& g) {
  const int server = g.purchase ? g.purchase->gpus_per_server : 8;
  return server > 8 ? 4 : std::max(1, server);
}

// What is deployed: the candidate, its whole GPU and that GPU's Kubernetes product, and the
// engine's recipe.
struct Target {
  const EngineRecipe& recipe;
  const Candidate& candidate;
  const Gpu& whole;
  const GpuProduct& product;
};

// The refusals that need nothing of the settings: a training job, no recipe, nothing feasible, no
// product label, an image that cannot run on the GPU's nodes, an HPA without DCGM.
Target deploy_target(const Plan& plan,
                     const DeployInputs& in,
                     const DeployOptions& o,
                     const Candidate* chosen) {
  if (!plan.units.serving) {
    throw InputError(plan.spec.file + ":/workload/type",
                     "rightsize deploy writes serving deployments; this spec is a training job");
  }
  const EngineRecipe& r = serving_recipe(plan.spec, in.data);
  if (!plan.feasible()) {
    throw InputError(plan.spec.file,
                     "nothing feasible to deploy: no GPU configuration satisfies the spec "
                     "(rightsize plan says why)");
  }
  const Candidate& c = chosen != nullptr ? *chosen : plan.candidates.front();
  if (const auto refused = disaggregated_deploy_refusal(c, in.data)) {
    throw InputError(plan.spec.file,
                     fmt::format("the configuration to deploy serves prefill and decode "
                                 "disaggregated, which deploy cannot write for llm-d: {} "
                                 "(docs/deploy.md)",
                                 *refused));
  }
  const Gpu& whole = c.whole_gpu != nullptr ? *c.whole_gpu : *c.gpu;
  // TPUs, Trainium, Inferentia and Gaudi serve through their own engine builds, whose flags
  // (NeuronCores as the tensor-parallel unit, TPU slice topologies) deploy does not write.
  if (whole.vendor != "nvidia" && whole.vendor != "amd") {
    throw InputError(plan.spec.file,
                     fmt::format("the configuration to deploy runs on {} ({}), for which deploy "
                                 "writes no manifests yet: its engine build's flags and node "
                                 "topology are not modelled (docs/catalog.md, \"Accelerators "
                                 "beyond NVIDIA and AMD\"); constrain the spec to nvidia or amd "
                                 "(constraints.vendors) to deploy",
                                 whole.name,
                                 whole.vendor));
  }
  const auto product_it = in.data.gpu_products.find(whole.name);
  if (product_it == in.data.gpu_products.end()) {
    throw InputError("data/deploy.json:/gpu_products",
                     "has no Kubernetes product label for " + whole.name);
  }
  const GpuProduct& product = product_it->second;
  if (o.image.empty() && whole.vendor != "nvidia") {
    static const std::map<std::string, std::string> builds{{"amd", "ROCm build"},
                                                           {"google", "TPU build (tpu-inference)"},
                                                           {"intel", "Gaudi build (vllm-gaudi)"},
                                                           {"aws", "Neuron build"}};
    const auto build = builds.find(whole.vendor);
    throw InputError("--image",
                     fmt::format("is needed: {} is built for NVIDIA's CUDA, and {} needs the "
                                 "engine's {}",
                                 r.image,
                                 whole.name,
                                 build != builds.end() ? build->second : whole.vendor + " build"));
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
  return {r, c, whole, product};
}

// Speculative decoding and prefix caching as the engine's recipe turns them on: the draft model
// or EAGLE head to load, or a refusal naming what the recipe lacks.
void set_decoding_features(ServingSettings& s, const Spec& spec, const EngineRecipe& recipe) {
  const auto& inf = spec.workload.inference;
  s.prefix_cache = inf.prefix_cache_hit_rate > 0;
  s.speculative = inf.speculative;
  if (!inf.speculative) {
    return;
  }
  const std::string where = spec.file + ":/workload/speculative";
  if (!recipe.speculative) {
    throw InputError(
        where,
        fmt::format("data/deploy.json's {} recipe has no speculative decoding flags "
                    "(trtllm-serve takes it only in its YAML speculative_config, which "
                    "deploy does not write)",
                    s.engine));
  }
  const SpeculativeDecoding& sp = *inf.speculative;
  if (sp.method == SpeculativeMethod::eagle && !sp.draft_model) {
    throw InputError(where + "/draft_model",
                     "deploy needs the EAGLE head's checkpoint to load (a Hugging Face id or a "
                     "path on a mounted volume)");
  }
  if (sp.draft && sp.draft->name.find('/') != std::string::npos) {
    s.draft_model_uri = sp.draft->name; // the draft's Hugging Face id (_name_or_path)
  } else if (sp.draft_model) {
    s.draft_model_uri = *sp.draft_model;
  }
}

// What is served, by which engine and image, on which GPU and layout.
void set_identity(ServingSettings& s, const Plan& plan, const Target& t, const DeployOptions& o) {
  const Spec& spec = *t.candidate.spec;
  s.name = object_name(plan.spec.name);
  s.engine = engine_key(plan.spec.workload.inference.engine);
  s.engine_version = t.recipe.version;
  s.image = o.image.empty() ? t.recipe.image : o.image;
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
  s.gpu = t.whole.name;
  s.partition = t.candidate.partition;
  s.layout = t.candidate.layout;
  s.gpus_per_replica = t.candidate.gpus_per_replica();
  set_decoding_features(s, spec, t.recipe);
}

// A replica's pods over nodes; returns the resource its pods request (the GPU's, or the MIG
// slice's).
std::string
place_on_nodes(DeployReport& report, const Plan& plan, const Target& t, const DeployData& data) {
  ServingSettings& s = report.settings;
  const Candidate& c = t.candidate;
  const std::string gpu_resource =
      c.partition.empty() ? t.product.resource : data.mig_resource_prefix + c.partition;
  const int node_gpus = gpus_per_node(t.whole);
  s.nodes_per_replica =
      c.partition.empty() ? static_cast<int>((s.gpus_per_replica + node_gpus - 1) / node_gpus) : 1;
  s.gpus_per_node = s.gpus_per_replica / s.nodes_per_replica;
  if (s.gpus_per_node * s.nodes_per_replica != s.gpus_per_replica) {
    throw InputError(plan.spec.file,
                     fmt::format("a replica of {} GPUs does not split evenly over nodes of {}",
                                 s.gpus_per_replica,
                                 node_gpus));
  }
  if (s.nodes_per_replica > 1 && !t.recipe.multi_node) {
    throw InputError("--engine",
                     fmt::format("{} has no multi-node recipe in data/deploy.json, and a replica "
                                 "of {} needs {} nodes; use --engine vllm or sglang",
                                 s.engine,
                                 s.gpus_per_replica,
                                 s.nodes_per_replica));
  }
  if (s.nodes_per_replica > 1 && s.layout.tp > s.gpus_per_node &&
      s.layout.tp <= t.whole.nvlink_domain) {
    report.notes.push_back(fmt::format(
        "tensor parallelism (TP={}) spans trays of {} GPUs inside the {}'s NVLink domain of {}: "
        "its all-reduces stay on NVLink through the ComputeDomain's IMEX channel",
        s.layout.tp,
        s.gpus_per_node,
        t.whole.name,
        t.whole.nvlink_domain));
  } else if (s.nodes_per_replica > 1 && s.layout.tp > s.gpus_per_node) {
    report.notes.push_back(fmt::format(
        "tensor parallelism (TP={}) spans nodes of {} GPUs: its all-reduces cross the network",
        s.layout.tp,
        s.gpus_per_node));
  }
  return gpu_resource;
}

// The weights' flags that have nothing to act on: a note each, so that a typo'd plan is seen.
void note_unused_weights_flags(DeployReport& report, const DeployOptions& o) {
  const ServingSettings& s = report.settings;
  if (!s.weights.from_hub && (o.hf_token || o.model_cache == ModelCache::none)) {
    report.notes.push_back(fmt::format(
        "{} is for weights from the Hugging Face Hub; {} is not a repository id, so it is not used",
        o.hf_token ? "--hf-token-secret" : "--model-cache none",
        s.model_uri));
  }
  if (!o.storage_class.empty() && s.weights.cache_claim.empty()) {
    report.notes.push_back("--storage-class names the model cache's class; this deployment has no "
                           "model cache volume, so it is not used");
  }
}

// A replica across nodes: the domain its nodes share, or a note that nothing keeps them close.
void set_topology(DeployReport& report,
                  const Target& t,
                  const DeployData& data,
                  const DeployOptions& o) {
  ServingSettings& s = report.settings;
  if (s.nodes_per_replica == 1) {
    // A disaggregated configuration's pools send the KV cache between nodes: RDMA there too.
    const bool pools = t.candidate.disaggregation != nullptr;
    if (pools) {
      s.rdma_resource = o.rdma_resource;
    }
    for (const auto& [given, flag] :
         {std::pair{!o.topology_key.empty(), "--topology-key"},
          std::pair{!o.rdma_resource.empty() && !pools, "--rdma-resource"}}) {
      if (given) {
        report.notes.push_back(fmt::format(
            "{} is for a replica across nodes; each replica here fits one node, so it is not "
            "used",
            flag));
      }
    }
    return;
  }
  s.topology_key = o.topology_key;
  s.rdma_resource = o.rdma_resource;
  const bool nvlink_domain = t.whole.nvlink_domain > gpus_per_node(t.whole);
  s.compute_domain = nvlink_domain;
  if (s.rdma_resource.empty() && !nvlink_domain) {
    report.notes.push_back(fmt::format(
        "a replica's {} nodes talk over the network: --rdma-resource NAME requests your network "
        "plugin's RDMA device (with {}) for GPUDirect RDMA, else NCCL may fall back to TCP",
        s.nodes_per_replica,
        data.placement.rdma_capability));
  }
  if (!s.topology_key.empty()) {
    return;
  }
  const std::string domain =
      nvlink_domain ? fmt::format(", {} for the {}'s NVLink domain: its ComputeDomain's IMEX "
                                  "channel joins the GPUs of one domain only",
                                  data.placement.nvlink_domain_label,
                                  t.whole.name)
                    : std::string();
  report.notes.push_back(fmt::format(
      "a replica's {} nodes may be scheduled far apart (other racks, other network blocks): "
      "--topology-key LABEL gives each replica a domain of that node label to itself "
      "(LeaderWorkerSet's exclusive topology){} (docs/deploy.md, \"Placement\")",
      s.nodes_per_replica,
      domain));
}

// What one request is: its length, whether it is embedded (text or images), its images.
void set_request_shape(DeployReport& report,
                       const Spec& spec,
                       const WorkloadUnits& units,
                       const EngineRecipe& r) {
  ServingSettings& s = report.settings;
  s.max_model_len = spec.workload.inference.longest_request();
  s.embedding =
      units.kind == WorkloadKind::text_embedding || units.kind == WorkloadKind::image_embedding;
  s.images = units.kind == WorkloadKind::image_embedding;
  if (spec.model.vision) {
    s.limit_mm_per_prompt =
        fmt::format(R"({{"image":{}}})", spec.workload.inference.images_per_request);
    if (r.arg("limit_mm_per_prompt").empty()) {
      report.notes.push_back(fmt::format(
          "{} takes no per-request image limit here (data/deploy.json): a request with more than "
          "the planned {} image(s) is served, with a longer prompt than the KV cache was sized for",
          s.engine,
          spec.workload.inference.images_per_request));
    }
  }
}

// The memory fraction the estimate assumed, in the engine's own terms, rounded down to 0.01.
double memory_fraction(const EngineRecipe& r, const MemoryEstimate& m) {
  double fraction = 0;
  if (r.memory_fraction_of_total) {
    fraction = m.budget / m.capacity;
  } else {
    const Bytes outside = m.budget - m.kv_pool;
    fraction = m.kv_pool / (m.capacity - outside);
  }
  return std::floor(fraction * 100.0 + 1e-9) / 100.0;
}

// The KV-cache and weight formats the engine is told, or the notes where it cannot be.
void set_formats(DeployReport& report, const Plan& plan, const Spec& spec, const EngineRecipe& r) {
  ServingSettings& s = report.settings;
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
        s.engine,
        kv,
        kv));
  }
  if (r.arg("served_model_name").empty()) {
    report.notes.push_back(fmt::format("{} takes no served model name: clients send the model "
                                       "as --model-uri names it ({})",
                                       s.engine,
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
          s.engine,
          w));
    }
  }
}

// The replicas: the plan's first month, the horizon's peak, and the autoscaler's floor. The
// peak is read from the plan's own month-by-month series (cost.months: each month the fewest
// replicas that meet the targets under the grown concurrency and rates), so that plan and
// deploy cannot disagree.
void set_replicas(ServingSettings& s,
                  const Candidate& c,
                  const Spec& spec,
                  const DeployOptions& o) {
  s.replicas = c.replicas;
  s.max_replicas = c.replicas;
  for (const auto& month : c.cost.months) {
    s.max_replicas = std::max<int>(s.max_replicas, static_cast<int>(month.replicas));
  }
  s.autoscaled = o.autoscaler != Autoscaler::none;
  s.min_replicas = spec.deployment.scale_to_zero && o.autoscaler == Autoscaler::keda ? 0 : 1;
}

// DRAM busy at the capacity: bytes read per decode step per GPU over the step at peak
// bandwidth, while decoding (not prefilling).
void set_dram_active(DeployReport& report,
                     const InferencePerformance& p,
                     const MemoryEstimate& m,
                     const Gpu& gpu,
                     const DeployOptions& o) {
  ServingSettings& s = report.settings;
  if (p.prefill_only && p.prefill.si() > 0) {
    // An embedding workload: each forward pass reads the weights once, back to back.
    s.dram_active_at_capacity = std::clamp(
        m.per_gpu.weights.si() / (gpu.memory_bandwidth.si() * p.prefill.si()), 0.01, 0.95);
    if (o.autoscaler == Autoscaler::hpa) {
      report.notes.push_back(fmt::format(
          "an embedding replica is compute bound: DRAM is busy {:.0f}% of the time at capacity, "
          "a weak signal to scale on; --autoscaler keda scales on the engine's running and "
          "waiting requests instead",
          100.0 * s.dram_active_at_capacity));
    }
  } else if (p.decode_step.si() > 0) {
    const double per_gpu_bytes = p.decode_bytes.si() / static_cast<double>(s.layout.pp);
    s.dram_active_at_capacity = std::clamp(
        per_gpu_bytes / (gpu.memory_bandwidth.si() * p.decode_step.si()) * (1.0 - p.prefill_share),
        0.01,
        0.95);
  }
}

// The objects, in apply order, and the notes the autoscaler choice needs.
void add_objects(DeployReport& report,
                 const Spec& spec,
                 const Target& t,
                 const std::string& gpu_resource,
                 const DeployInputs& in,
                 const DeployOptions& o) {
  const ServingSettings& s = report.settings;
  const EngineRecipe& r = t.recipe;
  if (!s.weights.cache_claim.empty()) {
    report.objects.push_back(model_cache_claim(s, o, in.data));
  }
  if (o.autoscaler == Autoscaler::hpa) {
    for (auto& obj : hpa_objects(s, o, in.data)) {
      if (const Node* values = obj.at({"data", "values.yaml"})) {
        report.adapter_values = values->items().front();
      }
      report.objects.push_back(std::move(obj));
    }
    if (!in.data.dcgm_dram_active_by_default) {
      report.notes.push_back(fmt::format(
          "the HPA reads {}, which dcgm-exporter exports only with its profiling counters "
          "enabled (docs/deploy.md, \"HPA\")",
          in.data.dcgm_dram_active));
    }
  }
  if (s.compute_domain) {
    report.objects.push_back(compute_domain_object(s, o, in.data));
  }
  report.objects.push_back(workload_object(s, o, r, in.data, t.product, gpu_resource));
  report.objects.push_back(service_object(s, o, r));
  report.objects.push_back(disruption_budget(s, o));
  if (o.autoscaler == Autoscaler::keda) {
    if (r.metric_running.empty() || r.metric_waiting.empty()) {
      throw InputError("--autoscaler",
                       fmt::format("keda scales on the engine's running and waiting requests, "
                                   "which {} {} does not export (data/deploy.json); use "
                                   "--autoscaler hpa",
                                   s.engine,
                                   r.version));
    }
    const bool wake = s.min_replicas == 0 && o.wake == Wake::http_add_on;
    const bool query = s.min_replicas == 0 && o.wake == Wake::query;
    report.objects.push_back(pod_monitor(s, o, r));
    if (wake) {
      report.objects.push_back(http_scaled_object(s, o, r, in.data));
    }
    report.objects.push_back(keda_object(s, o, r, in.data, s.min_replicas == 0, wake));
    if (query) {
      add_wake_query(report.objects.back(), s, o);
    }
    if (s.min_replicas == 0) {
      const auto& ttft = spec.workload.inference.targets.ttft;
      const std::string wait = fmt::format(
          "a request that finds no replica waits about {} (cold start){}",
          format_seconds(s.cold_start),
          ttft ? fmt::format(" against a TTFT target of {}", format_seconds(*ttft)) : "");
      report.notes.push_back(
          query  ? fmt::format("scale to zero: your query ({}) wakes it; {} (docs/deploy.md, "
                               "\"Scale to zero\")",
                              o.wake_query,
                              wait)
          : wake ? fmt::format("scale to zero: send requests through KEDA's HTTP add-on, to {} "
                               "with the header Host: {}, to wake it; {} (docs/deploy.md, "
                               "\"Scale to zero\")",
                               in.data.http_add_on.interceptor,
                               wake_host(s, o),
                               wait)
                 : fmt::format("scale to zero: {}, and the engine's metrics vanish with its pods; "
                               "nothing wakes it (--wake none): add a trigger on your gateway's "
                               "request metric (docs/deploy.md, \"Scale to zero\")",
                               wait));
    }
  }
  if (spec.deployment.scale_to_zero && o.autoscaler != Autoscaler::keda) {
    report.notes.push_back("deployment.scale_to_zero needs --autoscaler keda; ignored");
  }
}

// Disaggregated: the decode pool's settings (report.settings) and the prefill pool's, each
// pool's capacity, memory and engine words, and llm-d's objects.
void add_disaggregated(DeployReport& report,
                       const Target& t,
                       const std::string& gpu_resource,
                       const DeployInputs& in,
                       const DeployOptions& o) {
  const Candidate& c = t.candidate;
  const DisaggregatedChoice& choice = *c.disaggregation;
  const DisaggregatedPerformance& d = choice.pools;
  const EngineRecipe& r = t.recipe;
  ServingSettings& decode = report.settings;
  decode.autoscaled = false;
  decode.min_replicas = 0;
  ServingSettings prefill = decode;
  const PoolCapacity cap = pool_capacity(c, in);
  const auto set_pool =
      [&](ServingSettings& s, const char* role, int replicas, const MemoryEstimate& m) {
        s.role = role;
        s.pod_labels = {{in.data.llm_d.serving_label, "true"}, {in.data.llm_d.role_label, role}};
        s.replicas = replicas;
        s.max_replicas = replicas;
        s.memory_fraction = memory_fraction(r, m);
      };
  set_pool(prefill, "prefill", d.layout.prefill.replicas, d.prefill_memory);
  set_pool(decode, "decode", d.layout.decode.replicas, d.decode_memory);
  decode.port = r.disaggregation->decode_port;
  prefill.capacity_per_replica = cap.prefill;
  prefill.latency_bound = false;
  prefill.planned_per_replica = 0;
  decode.capacity_per_replica = cap.decode;
  decode.latency_bound = cap.latency_bound;
  decode.planned_per_replica = static_cast<long long>(std::ceil(d.decode_batch - 1e-9));
  prefill.engine_args = engine_command_line(prefill, r, prefill.engine_arg_notes);
  decode.engine_args = engine_command_line(decode, r, decode.engine_arg_notes);
  report.prefill = prefill;
  report.objects = disaggregated_objects(prefill, decode, o, r, in.data, t.product, gpu_resource);
  report.notes.push_back(
      fmt::format("disaggregated under llm-d {}: needs LeaderWorkerSet v0.10 or later with its "
                  "DisaggregatedSet controller, and llm-d's router chart selecting "
                  "app.kubernetes.io/name={} with its prefill/decode profiles (docs/deploy.md, "
                  "\"Disaggregated serving\")",
                  in.data.llm_d.version,
                  decode.name));
  report.notes.push_back(fmt::format(
      "the plan sends each prompt's KV cache ({} per prefill GPU, {} over {}){}",
      format_bytes(d.kv_transfer_bytes),
      format_seconds(d.kv_transfer),
      d.kv_link,
      d.kv_link == "NVLink" ? ": both pools must run in one NVLink domain"
      : d.kv_link == "network"
          ? (decode.rdma_resource.empty()
                 ? std::string(", which assumes GPUDirect RDMA at each GPU's NIC rate: "
                               "--rdma-resource NAME requests your network plugin's RDMA device "
                               "(with IPC_LOCK) in each pod; NIXL over TCP is many times slower "
                               "(docs/deploy.md)")
                 : fmt::format(", which assumes GPUDirect RDMA at each GPU's NIC rate (each pod "
                               "requests {})",
                               decode.rdma_resource))
          : ""));
  for (const ServingSettings* s : {&prefill, &decode}) {
    if (s->replicas == 1) {
      report.notes.push_back(fmt::format(
          "the {} pool is one replica: a rollout starts its replacement first ({} more GPUs for "
          "a while), and a node drain stops the pool until it is rescheduled",
          s->role,
          s->gpus_per_replica));
    }
  }
  long long peak = c.replicas;
  for (const auto& month : c.cost.months) {
    peak = std::max<long long>(peak, static_cast<long long>(month.replicas));
  }
  if (peak > c.replicas) {
    report.notes.push_back(fmt::format(
        "the plan's demand growth needs {} replicas in all (prefill and decode) by its peak "
        "month, against {} now; the pools here are the first month's (cost.months in plan's "
        "JSON)",
        peak,
        c.replicas));
  }
  if (o.autoscaler_given && o.autoscaler != Autoscaler::none) {
    report.notes.push_back(fmt::format(
        "the pools are fixed at the plan's {} prefill and {} decode replicas: deploy writes "
        "no autoscaler for a disaggregated configuration (--autoscaler {} is not used)",
        prefill.replicas,
        decode.replicas,
        to_string(o.autoscaler)));
  }
}

} // namespace

std::optional<std::string> disaggregated_deploy_refusal(const Candidate& c, const DeployData& d) {
  if (!c.disaggregation) {
    return std::nullopt;
  }
  const std::string engine = engine_key(c.spec->workload.inference.engine);
  const auto recipe = d.engines.find(engine);
  if (recipe == d.engines.end() || !recipe->second.disaggregation) {
    return fmt::format("data/deploy.json has no llm-d recipe for {} (vllm and sglang have one)",
                       engine);
  }
  const Gpu& whole = c.whole_gpu != nullptr ? *c.whole_gpu : *c.gpu;
  if (const int node = gpus_per_node(whole); c.gpus_per_replica() > node) {
    return fmt::format("each replica's {} GPUs span nodes of {}", c.gpus_per_replica(), node);
  }
  return std::nullopt;
}

DeployReport make_deployment(const Plan& plan,
                             const DeployInputs& in,
                             const DeployOptions& o,
                             const Candidate* chosen) {
  const Target t = deploy_target(plan, in, o, chosen);
  const Candidate& c = t.candidate;
  const Spec& spec = *c.spec;
  const EngineRecipe& r = t.recipe;

  DeployReport report;
  ServingSettings& s = report.settings;
  set_identity(s, plan, t, o);
  const std::string gpu_resource = place_on_nodes(report, plan, t, in.data);
  set_topology(report, t, in.data, o);
  set_request_shape(report, spec, plan.units, r);
  if (c.disaggregation) {
    set_formats(report, plan, spec, r);
    set_weights(s, plan, c.memory, in.data, r, o);
    note_unused_weights_flags(report, o);
    set_host_resources(s, in.data);
    s.weights.shared_cache = true; // both pools mount it
    add_disaggregated(report, t, gpu_resource, in, o);
    if (!s.weights.cache_claim.empty()) {
      report.objects.insert(report.objects.begin(), model_cache_claim(s, o, in.data));
    }
    return report;
  }

  const Capacity cap = capacity_per_replica(c, in);
  s.capacity_per_replica = cap.sequences;
  s.latency_bound = cap.latency_bound;
  s.engine_bound = cap.engine_bound;
  s.planned_per_replica = c.memory.batch;

  const MemoryEstimate& m = c.memory;
  s.memory_fraction = memory_fraction(r, m);
  set_formats(report, plan, spec, r);
  set_replicas(s, c, spec, o);
  set_weights(s, plan, m, in.data, r, o);
  note_unused_weights_flags(report, o);
  set_host_resources(s, in.data);
  s.weights.shared_cache = s.max_replicas * s.nodes_per_replica > 1;
  set_dram_active(report, cap.perf, m, *c.gpu, o);
  s.engine_args = engine_command_line(s, r, s.engine_arg_notes);

  add_objects(report, spec, t, gpu_resource, in, o);
  return report;
}

} // namespace rightsize
