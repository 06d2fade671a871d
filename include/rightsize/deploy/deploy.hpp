#pragma once

// rightsize deploy: the recommended serving configuration of a plan as Kubernetes objects (the
// engine's Deployment or LeaderWorkerSet, Service, PodDisruptionBudget) with an autoscaler sized
// from the capacity model. Every derived number is explained in docs/deploy.md; the engine
// argument names, metric names and GPU labels come from data/deploy.json, each with its source.

#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/deploy/manifest.hpp>
#include <rightsize/plan/plan.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// --- data/deploy.json

// One engine's command line, as data: a new engine version is a data change.
struct EngineRecipe {
  std::string version;
  std::string image;
  std::vector<std::string> command;
  std::string model_arg; // empty: the model is positional, right after the command
  int port = 8000;
  std::string port_arg;
  std::string host_arg;
  std::string health_path;
  std::string metrics_path;
  Seconds startup; // engine start beyond reading the weights
  // Argument names by role (tensor_parallel, pipeline_parallel, expert_parallel, max_model_len,
  // max_num_seqs, memory_fraction, kv_cache_dtype, quantization, served_model_name); an empty
  // name: the engine has no such argument.
  std::map<std::string, std::string> args;
  bool memory_fraction_of_total = true; // false: of the memory free after the weights
  // Under attention data parallelism, tensor_parallel and max_num_seqs are each rank's (vLLM:
  // every DP rank is an engine of its own) rather than the whole replica's (SGLang).
  bool attention_dp_per_rank = false;
  std::map<std::string, std::string> kv_cache_dtypes; // rightsize dtype -> engine value
  std::map<std::string, std::string> quantizations;   // weight dtype -> engine value
  std::string metric_running;
  std::string metric_waiting;
  std::string metric_model_label;
  // Multi-node under LeaderWorkerSet; absent: the engine has no recipe here.
  struct MultiNode {
    std::string leader; // shell, {serve} = the engine's command line
    std::string worker;
    std::vector<std::string> serve_args; // may hold {nodes}
  };
  std::optional<MultiNode> multi_node;
  // Speculative decoding (docs/deploy.md, "Speculative decoding and prefix caching"): the engine's
  // name of each method and its words, with {method}, {draft_tokens}, {verify_tokens} (k + 1)
  // and {draft} (draft_words with {draft_model}, or nothing); absent: the recipe cannot turn it
  // on (deploy refuses the spec).
  struct Speculative {
    std::map<std::string, std::string> methods; // mtp, eagle, draft -> the engine's name
    std::vector<std::string> words;
    std::string draft_words;
  };
  std::optional<Speculative> speculative;
  std::vector<std::string> prefix_cache_args; // what turns prefix caching on (empty: the default)
  // Disaggregated prefill and decode under llm-d (docs/deploy.md, "Disaggregated serving"): each
  // pool's own words, the decode engine's port behind llm-d's routing sidecar (which takes the
  // recipe's port), the KV transfer's port, the environment the transfer reads from the pod, and
  // the sidecar's arguments; absent: deploy refuses a disaggregated configuration.
  struct Disaggregation {
    std::vector<std::string> prefill_args;
    std::vector<std::string> decode_args;
    int decode_port = 0;
    std::string transfer_port_name; // empty: no port of its own
    int transfer_port = 0;
    std::vector<std::string> transfer_port_roles;     // the pools whose pods listen on it
    std::map<std::string, std::string> pod_field_env; // variable -> pod field (status.podIP)
    std::map<std::string, std::string> env;           // variable -> value
    std::vector<std::string> sidecar_args;
  };
  std::optional<Disaggregation> disaggregation;
  std::map<std::string, std::string> sources;
  [[nodiscard]] const std::string& arg(const std::string& role) const;
};

struct DeployData {
  double storage_read_gb_per_s = 0;
  std::string storage_source;
  // Where a Hugging Face repository's weights come from (docs/deploy.md, "Model weights"): the
  // Hub's download rate, the variables huggingface_hub reads, the default Secret of the token,
  // the files the download takes, and the cache volume's headroom over the checkpoint.
  struct Weights {
    double hub_download_gb_per_s = 0;
    std::string token_env;                     // HF_TOKEN
    std::string home_env;                      // HF_HOME
    std::string cache_path;                    // where the cache volume is mounted
    std::string token_secret;                  // hf-token-secret
    std::string token_key;                     // token
    std::vector<std::string> download_command; // the init container's, the repository after it
    std::vector<std::string> download_patterns;
    double cache_headroom = 0; // the volume's size over the checkpoint's, a fraction
  } weights;
  // What one serving pod asks of its node besides GPUs (docs/deploy.md, "Host resources"): a CPU
  // process per GPU and a few for the server, host memory, /dev/shm and scratch disk.
  struct PodResources {
    int processes_per_pod = 0; // the API server and the scheduler (vLLM: engine core)
    int processes_per_gpu = 0; // one worker per GPU
    int vcpus_per_process = 0; // a physical core each: two hyperthreads
    Bytes memory_per_pod;
    Bytes memory_per_gpu;
    Bytes shm;
    Bytes ephemeral; // logs and compilation caches
  } pod_resources;
  std::map<std::string, EngineRecipe> engines; // vllm, sglang, tensorrt-llm
  GpuProducts gpu_products;                    // catalog/gpu_products.hpp
  std::string mig_resource_prefix;             // nvidia.com/mig-
  std::string dcgm_dram_active;                // DCGM_FI_PROF_DRAM_ACTIVE
  std::string dcgm_pod_label = "pod";
  std::string dcgm_namespace_label = "namespace";
  bool dcgm_dram_active_by_default = false;
  // Where a replica across nodes is placed: LeaderWorkerSet's exclusive topology annotation, and
  // the node label of a multi-node NVLink domain (GPU feature discovery's), named in the notes.
  struct Placement {
    std::string exclusive_topology_annotation;
    std::string nvlink_domain_label;
    std::string compute_domain_api_version; // NVIDIA's DRA driver's ComputeDomain
    std::string compute_domain_driver;
    std::string rdma_capability; // what a pod using RDMA adds to its container (IPC_LOCK)
  } placement;
  // KEDA's HTTP add-on, which wakes a deployment scaled to zero: its interceptor holds a request
  // and its external scaler asks KEDA for a replica.
  struct HttpAddOn {
    std::string version;
    std::string scaler_address;
    std::string interceptor;
    std::string skip_scaled_object_annotation;
  } http_add_on;
  // llm-d, the stack a disaggregated configuration is written for: its routing sidecar's image,
  // and the pod labels its router reads (serving, and the pool's role).
  struct LlmD {
    std::string version;
    std::string sidecar_image;
    std::string serving_label; // set to "true" on every serving pod
    std::string role_label;    // "prefill" or "decode"
  } llm_d;
};

DeployData parse_deploy_data(const nlohmann::json& j, const std::string& file);
DeployData load_deploy_data(const std::string& path);

// --- The deployment

enum class Autoscaler { hpa, keda, none };
std::string_view to_string(Autoscaler a);

// What wakes a deployment KEDA scaled to zero, where the engine's own metrics vanish with its pods:
// KEDA's HTTP add-on (its interceptor in front of the Service), a Prometheus query of a metric
// that exists with no pod (a gateway's or router's queue: DeployOptions::wake_query), or nothing.
enum class Wake { http_add_on, query, none };

// Where a Hugging Face repository's weights are kept between starts: a PersistentVolumeClaim the
// first start fills, or none (each pod downloads them into its own scratch volume).
enum class ModelCache { pvc, none };
std::string_view to_string(ModelCache c);

// A key of a Kubernetes Secret.
struct SecretKey {
  std::string name;
  std::string key;
};

struct DeployOptions {
  Autoscaler autoscaler = Autoscaler::hpa;
  std::string name_space = "default";
  std::string image;     // empty: the engine's image from data/deploy.json (CUDA, x86-64)
  std::string model_uri; // empty: the model's Hugging Face id, else the spec's name
  // Where KEDA reads the engine's metrics.
  std::string prometheus = "http://prometheus-operated.monitoring.svc:9090";
  bool autoscaler_given = false; // --autoscaler was named (a disaggregated deployment has none)
  // The Hugging Face token's Secret: nullopt data/deploy.json's default (hf-token-secret, key
  // token); hf_token_off: none (--hf-token-secret none, a public model).
  std::optional<SecretKey> hf_token;
  bool hf_token_off = false;
  ModelCache model_cache = ModelCache::pvc;
  Wake wake = Wake::http_add_on; // with --autoscaler keda and deployment.scale_to_zero
  std::string wake_query;        // Wake::query: PromQL giving the requests waiting upstream
  // A node label whose domains each hold one whole replica across nodes (a rack, a network
  // block, an NVLink domain): LeaderWorkerSet's exclusive topology. Empty: none.
  std::string topology_key;
  // The network plugin's RDMA device resource (rdma/rdma_shared_device_a), requested by every pod
  // of a replica across nodes; empty: none.
  std::string rdma_resource;
  std::string storage_class; // the cache volume's; empty: the cluster's default class
};

// What one estimate needs besides the plan: the capacity model is re-run per replica.
struct DeployInputs {
  const Constants& constants;
  const Efficiency& efficiency;
  const Uncertainty* uncertainty = nullptr; // null: targets held to the point estimate
  Confidence confidence = Confidence::band;
  const DeployData& data;
};

// The figures behind the manifests, each derived from the plan (docs/deploy.md).
struct ServingSettings {
  std::string name;   // DNS-1123: the spec's name
  std::string engine; // vllm, sglang, tensorrt-llm
  std::string engine_version;
  std::string image;
  std::string model_uri;
  std::string gpu;       // catalog name
  std::string partition; // MIG profile, or empty
  Parallelism layout;
  int port = 0;     // the engine's: 0 the recipe's; the decode pool's behind llm-d's sidecar
  std::string role; // a disaggregated pool's: "prefill" or "decode"; empty when aggregated
  std::map<std::string, std::string> pod_labels; // beyond the name: llm-d's serving and role
  int gpus_per_replica = 1;
  int gpus_per_node = 1; // GPUs one pod requests
  int nodes_per_replica = 1;
  std::string topology_key; // a replica across nodes: the label of the domain it has to itself
  // A replica across the nodes of one multi-node NVLink domain (GB200, GB300 NVL72): its pods
  // claim a channel of the ComputeDomain <name> (NVIDIA's DRA driver), the IMEX channel that
  // lets them share GPU memory over NVLink.
  bool compute_domain = false;
  std::string rdma_resource; // requested by each pod of a replica across nodes
  long long max_model_len = 0;
  // Concurrent sequences one replica holds while its band-edge TTFT and TPOT meet the targets
  // (capped by what fits and the scheduler's limit); the engine's max-num-seqs and the
  // autoscaler's per-replica target.
  long long capacity_per_replica = 0;
  long long planned_per_replica = 0; // the plan's batch per replica at its replica count
  bool latency_bound = false;        // the capacity is set by TTFT/TPOT targets, not memory
  // Else set by the engine's own cap on sequences (max_num_seqs), below what memory holds.
  bool engine_bound = false;
  double memory_fraction = 0;
  std::string kv_cache_dtype; // engine value, empty when the engine default is meant
  std::string quantization;   // engine value, empty: none or a pre-quantized checkpoint
  // Vision-language models: the most images one request may carry, as the engine takes it
  // ({"image":2}); empty for text-only models.
  std::string limit_mm_per_prompt;
  bool embedding = false; // an embedding workload: the engine's pooling flags (role "embedding")
  bool images = false;    // an image embedding workload: each sequence is an image
  bool prequantized_checkpoint = false;
  int replicas = 1;     // the plan's first month
  int min_replicas = 1; // 0 with scale to zero
  int max_replicas = 1; // the horizon's peak month (replicas for the plan's growth)
  bool autoscaled = true;
  Bytes weights_read_per_node;
  // A replica's start once the weights are in the cache volume (or, with no cache, a
  // download's and a start's every time): the scale-from-zero wait.
  Seconds cold_start;
  Seconds engine_load; // the weights read on each node and the engine's start: the probe's span
  int startup_failure_threshold = 0; // x 10 s, twice engine_load
  // The weights: from the Hugging Face Hub (a repository id) through an init container into a
  // cache volume, or from wherever --model-uri points.
  struct Weights {
    bool from_hub = false;
    Bytes checkpoint; // as stored, all of it
    Seconds download; // the checkpoint from the Hub at data's rate
    ModelCache cache = ModelCache::none;
    std::string cache_claim;        // the PersistentVolumeClaim's name (cache pvc)
    Bytes cache_size;               // its request, or the scratch volume's limit (cache none)
    bool shared_cache = false;      // more than one pod mounts it: ReadWriteMany
    std::optional<SecretKey> token; // the Hub token's Secret
  } weights;
  // One pod's requests besides GPUs (docs/deploy.md, "Host resources").
  struct Host {
    int cpus = 0;
    Bytes memory; // with /dev/shm, which counts against it
    Bytes shm;
    Bytes ephemeral;
  } host;
  // Predicted DCGM_FI_PROF_DRAM_ACTIVE at the capacity: the HPA's per-pod target.
  double dram_active_at_capacity = 0;
  std::optional<SpeculativeDecoding> speculative; // the spec's, for the engine's flags
  std::string draft_model_uri;                    // the draft model or EAGLE head to load
  bool prefix_cache = false;                      // the spec counts on prefix cache hits
  std::vector<std::string> engine_args;           // the full command line
  std::vector<std::string> engine_arg_notes;      // where each word comes from ("" where evident)
};

struct DeployReport {
  ServingSettings settings;               // disaggregated: the decode pool's
  std::optional<ServingSettings> prefill; // disaggregated: the prefill pool's
  std::vector<Node> objects;              // Kubernetes objects in apply order
  std::vector<std::string> notes;         // for a person: caveats the manifests cannot say
  // --autoscaler hpa: prometheus-adapter's rule as its Helm chart's values (rules.custom), the
  // ConfigMap's values.yaml.
  std::optional<Node> adapter_values;
};

// The engine's recipe for the spec's workload: InputError at /workload/engine when the engine has
// none in data/deploy.json, or none for an embedding workload (the `embedding` role). Checked
// before the plan's feasibility, so that a recipe problem is not reported as "nothing feasible".
const EngineRecipe& serving_recipe(const Spec& spec, const DeployData& data);

// Why `c`, a disaggregated candidate, cannot be written for llm-d, in a few words ("each
// replica's 16 GPUs span nodes of 8"): its engine has no recipe for it in `d`, or a replica
// spans nodes; nullopt when it can (or `c` is aggregated).
std::optional<std::string> disaggregated_deploy_refusal(const Candidate& c, const DeployData& d);

// The manifests of the plan's recommended candidate. InputError when the plan has no serving
// candidate, the engine has no recipe (or no multi-node recipe when a replica spans nodes), or the
// GPU has no product label.
// `chosen`: the candidate to deploy (a locked configuration); null: the plan's recommendation.
DeployReport make_deployment(const Plan& plan,
                             const DeployInputs& inputs,
                             const DeployOptions& options,
                             const Candidate* chosen = nullptr);

// A DNS-1123 label from free text: lower case, [a-z0-9-], at most 63 characters.
std::string dns_label(std::string_view text);
// Whether `name` is a DNS-1123 subdomain (a Secret's or a StorageClass's name): at most 253
// characters, dot-separated labels of [a-z0-9-] that start and end with a letter or digit.
bool dns_subdomain(std::string_view name);
// Whether `key` may be a label's key: an optional DNS-1123 subdomain prefix and '/', then a name
// of at most 63 of [-_.A-Za-z0-9] that starts and ends with a letter or digit.
bool label_key(std::string_view key);
// Whether `key` may be a Secret's data key: [-._a-zA-Z0-9]+, at most 253 characters.
bool secret_key(std::string_view key);
// A DNS-1035 label (a Service's name): a DNS-1123 label that starts with a letter ("m-" is put
// before one that would start with a digit).
std::string object_name(std::string_view text);

} // namespace rightsize
