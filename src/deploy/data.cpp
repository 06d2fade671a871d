// data/deploy.json: engine recipes, GPU product labels (read by the catalog's gpu_products.cpp)
// and the storage figure (docs/deploy.md, docs/deploy-data.md for the sources).

#include <rightsize/core/json_reader.hpp>
#include <rightsize/deploy/deploy.hpp>

#include <fmt/format.h>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

const std::vector<std::string> k_arg_roles{"tensor_parallel",
                                           "pipeline_parallel",
                                           "expert_parallel",
                                           "expert_parallel_size",
                                           "max_model_len",
                                           "max_num_seqs",
                                           "memory_fraction",
                                           "kv_cache_dtype",
                                           "quantization",
                                           "served_model_name"};
// Roles an engine's recipe may leave out (recipes written before they existed stay valid).
const std::vector<std::string> k_optional_arg_roles{
    "limit_mm_per_prompt", "embedding", "attention_dp", "attention_dp_size"};

// A data entry's `source`, which must say where `what` come from.
void require_source(const FieldReader& r, const char* what) {
  if (r.string("source").empty()) {
    r.member("source").fail_plain(fmt::format("must say where the {} come from", what));
  }
}

std::map<std::string, std::string> string_map(const FieldReader& r) {
  if (!r.is_object()) {
    r.fail("must be an object of strings");
  }
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : r.json().items()) {
    out[key] = r.string(key);
  }
  return out;
}

EngineRecipe read_engine(const FieldReader& e) {
  e.reject_unknown({"version",
                    "workload_names",
                    "image",
                    "command",
                    "model_arg",
                    "port",
                    "port_arg",
                    "host_arg",
                    "health_path",
                    "metrics_path",
                    "startup_s",
                    "args",
                    "memory_fraction_meaning",
                    "attention_dp_args",
                    "kv_cache_dtypes",
                    "quantizations",
                    "metrics",
                    "serving_metrics",
                    "multi_node",
                    "speculative",
                    "prefix_cache_args",
                    "disaggregation",
                    "sources",
                    "notes"});
  EngineRecipe r;
  r.version = e.string("version");
  r.image = e.string("image");
  r.command = e.string_array("command");
  if (r.command.empty()) {
    e.member("command").fail_plain("must name the engine's executable");
  }
  r.model_arg = e.string("model_arg");
  r.port = static_cast<int>(e.integer("port", Range{1, 65535}));
  r.port_arg = e.string("port_arg");
  r.host_arg = e.string("host_arg");
  r.health_path = e.string("health_path");
  r.metrics_path = e.string("metrics_path");
  r.startup = seconds(e.number("startup_s", Range::non_negative(3600)));
  const FieldReader args = e.object("args");
  std::vector<std::string> roles = k_arg_roles;
  roles.insert(roles.end(), k_optional_arg_roles.begin(), k_optional_arg_roles.end());
  args.reject_unknown(roles);
  for (const auto& role : k_arg_roles) {
    r.args[role] = args.string(role);
  }
  for (const auto& role : k_optional_arg_roles) {
    r.args[role] = args.optional_string(role).value_or("");
  }
  r.memory_fraction_of_total =
      e.choice<bool>("memory_fraction_meaning", {{"total", true}, {"kv_of_free", false}});
  if (e.has("attention_dp_args")) {
    r.attention_dp_per_rank =
        e.choice<bool>("attention_dp_args", {{"per_rank", true}, {"per_replica", false}});
  }
  r.kv_cache_dtypes = string_map(e.object("kv_cache_dtypes"));
  r.quantizations = string_map(e.object("quantizations"));
  const FieldReader m = e.object("metrics");
  m.reject_unknown({"running", "waiting", "model_label"});
  r.metric_running = m.string("running");
  r.metric_waiting = m.string("waiting");
  r.metric_model_label = m.string("model_label");
  if (const auto mn = e.optional_object("multi_node")) {
    mn->reject_unknown({"leader", "worker", "serve_args", "source"});
    r.multi_node = EngineRecipe::MultiNode{
        mn->string("leader"), mn->string("worker"), mn->string_array("serve_args")};
    if (r.multi_node->leader.find("{serve}") == std::string::npos) {
      mn->member("leader").fail("must contain {serve}, where the engine's command line goes");
    }
  }
  if (const auto sp = e.optional_object("speculative")) {
    sp->reject_unknown({"methods", "words", "draft_words"});
    r.speculative = EngineRecipe::Speculative{
        string_map(sp->object("methods")), sp->string_array("words"), sp->string("draft_words")};
  }
  if (e.has("prefix_cache_args")) {
    r.prefix_cache_args = e.string_array("prefix_cache_args");
  }
  if (const auto dg = e.optional_object("disaggregation")) {
    dg->reject_unknown({"prefill_args",
                        "decode_args",
                        "decode_port",
                        "transfer_port",
                        "pod_field_env",
                        "env",
                        "sidecar_args",
                        "source"});
    EngineRecipe::Disaggregation d;
    d.prefill_args = dg->string_array("prefill_args");
    d.decode_args = dg->string_array("decode_args");
    d.decode_port = static_cast<int>(dg->integer("decode_port", Range{1, 65535}));
    if (d.decode_port == r.port) {
      dg->member("decode_port")
          .fail("must differ from the engine's port, which the routing "
                "sidecar takes in a decode pod");
    }
    if (const auto tp = dg->optional_object("transfer_port")) {
      tp->reject_unknown({"name", "port", "roles"});
      d.transfer_port_name = tp->string("name");
      d.transfer_port = static_cast<int>(tp->integer("port", Range{1, 65535}));
      d.transfer_port_roles = tp->string_array("roles");
      for (const std::string& role : d.transfer_port_roles) {
        if (role != "prefill" && role != "decode") {
          tp->member("roles").fail_plain("must name prefill or decode, got \"" + role + "\"");
        }
      }
    }
    d.pod_field_env = string_map(dg->object("pod_field_env"));
    if (dg->has("env")) {
      d.env = string_map(dg->object("env"));
    }
    d.sidecar_args = dg->string_array("sidecar_args");
    require_source(*dg, "flags");
    r.disaggregation = std::move(d);
  }
  for (const auto& [key, value] : e.object("sources").json().items()) {
    r.sources[key] = e.object("sources").string(key);
  }
  return r;
}

DeployData::Weights read_weights(const FieldReader& w) {
  w.reject_unknown({"hub_download_gb_per_s",
                    "token_env",
                    "home_env",
                    "cache_path",
                    "token_secret",
                    "token_key",
                    "download_command",
                    "download_patterns",
                    "cache_headroom",
                    "sources"});
  DeployData::Weights d;
  d.hub_download_gb_per_s = w.number("hub_download_gb_per_s", Range::positive(1e4));
  d.token_env = w.string("token_env");
  d.home_env = w.string("home_env");
  d.cache_path = w.string("cache_path");
  d.token_secret = w.string("token_secret");
  d.token_key = w.string("token_key");
  d.download_command = w.string_array("download_command");
  d.download_patterns = w.string_array("download_patterns");
  d.cache_headroom = w.number("cache_headroom", Range::non_negative(10));
  if (d.download_command.empty()) {
    w.member("download_command").fail_plain("must name the download's program");
  }
  string_map(w.object("sources"));
  return d;
}

DeployData::PodResources read_pod_resources(const FieldReader& p) {
  p.reject_unknown({"processes_per_pod",
                    "processes_per_gpu",
                    "vcpus_per_process",
                    "memory_gib_per_pod",
                    "memory_gib_per_gpu",
                    "shm_gib",
                    "ephemeral_gib",
                    "sources"});
  DeployData::PodResources d;
  d.processes_per_pod = static_cast<int>(p.integer("processes_per_pod", Range::non_negative(64)));
  d.processes_per_gpu = static_cast<int>(p.integer("processes_per_gpu", Range::positive(64)));
  d.vcpus_per_process = static_cast<int>(p.integer("vcpus_per_process", Range::positive(8)));
  d.memory_per_pod = gib(p.number("memory_gib_per_pod", Range::non_negative(4096)));
  d.memory_per_gpu = gib(p.number("memory_gib_per_gpu", Range::non_negative(4096)));
  d.shm = gib(p.number("shm_gib", Range::positive(4096)));
  d.ephemeral = gib(p.number("ephemeral_gib", Range::positive(1e5)));
  string_map(p.object("sources"));
  return d;
}

} // namespace

const std::string& EngineRecipe::arg(const std::string& role) const {
  static const std::string none;
  const auto it = args.find(role);
  return it == args.end() ? none : it->second;
}

DeployData parse_deploy_data(const nlohmann::json& j, const std::string& file) {
  const FieldReader root(j, file);
  root.reject_unknown({"schema_version",
                       "description",
                       "storage",
                       "weights",
                       "pod_resources",
                       "engines",
                       "gpu_products",
                       "gpu_products_source",
                       "mig_resource_prefix",
                       "mig_source",
                       "dcgm",
                       "keda_http_add_on",
                       "placement",
                       "llm_d"});
  if (root.integer("schema_version", Range::positive(1e6)) != 1) {
    root.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
  }
  DeployData d;
  const FieldReader storage = root.object("storage");
  storage.reject_unknown({"read_gb_per_s", "source"});
  d.storage_read_gb_per_s = storage.number("read_gb_per_s", Range::positive(1e4));
  d.storage_source = storage.string("source");
  d.weights = read_weights(root.object("weights"));
  d.pod_resources = read_pod_resources(root.object("pod_resources"));
  const FieldReader engines = root.object("engines");
  for (const auto& [name, value] : engines.json().items()) {
    d.engines[name] = read_engine(engines.object(name));
  }
  d.gpu_products = parse_gpu_products(j, file);
  d.mig_resource_prefix = root.string("mig_resource_prefix");
  const FieldReader dcgm = root.object("dcgm");
  dcgm.reject_unknown({"dram_active",
                       "gpu_util",
                       "pod_label",
                       "namespace_label",
                       "exported_by_default",
                       "source",
                       "note"});
  d.dcgm_dram_active = dcgm.string("dram_active");
  d.dcgm_pod_label = dcgm.string("pod_label");
  d.dcgm_namespace_label = dcgm.string("namespace_label");
  d.dcgm_dram_active_by_default = dcgm.boolean("exported_by_default");
  const FieldReader placement = root.object("placement");
  placement.reject_unknown({"exclusive_topology_annotation",
                            "nvlink_domain_label",
                            "compute_domain_api_version",
                            "compute_domain_driver",
                            "rdma_capability",
                            "source"});
  d.placement.exclusive_topology_annotation = placement.string("exclusive_topology_annotation");
  d.placement.nvlink_domain_label = placement.string("nvlink_domain_label");
  d.placement.compute_domain_api_version = placement.string("compute_domain_api_version");
  d.placement.compute_domain_driver = placement.string("compute_domain_driver");
  d.placement.rdma_capability = placement.string("rdma_capability");
  require_source(placement, "names");
  const FieldReader http = root.object("keda_http_add_on");
  http.reject_unknown(
      {"version", "scaler_address", "interceptor", "skip_scaled_object_annotation", "source"});
  d.http_add_on.version = http.string("version");
  d.http_add_on.scaler_address = http.string("scaler_address");
  d.http_add_on.interceptor = http.string("interceptor");
  d.http_add_on.skip_scaled_object_annotation = http.string("skip_scaled_object_annotation");
  require_source(http, "names");
  const FieldReader llmd = root.object("llm_d");
  llmd.reject_unknown({"version", "sidecar_image", "serving_label", "role_label", "source"});
  d.llm_d.version = llmd.string("version");
  d.llm_d.sidecar_image = llmd.string("sidecar_image");
  d.llm_d.serving_label = llmd.string("serving_label");
  d.llm_d.role_label = llmd.string("role_label");
  require_source(llmd, "image and labels");
  return d;
}

DeployData load_deploy_data(const std::string& path) {
  return parse_deploy_data(detail::load_json_file(path), path);
}

} // namespace rightsize
