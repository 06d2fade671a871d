#include "perf_cases.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace rightsize::accuracy {

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) {
    out.push_back(field);
  }
  if (!line.empty() && line.back() == ',') {
    out.emplace_back();
  }
  return out;
}

std::uint64_t fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// The q-quantile (0..1) of `v`, linear between order statistics.
double quantile_of(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  const double frac = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1.0 - frac) + v[i + 1] * frac : v[i];
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// Rows skipped, counted by reason.
using SkipCounts = std::map<std::string, int>;

} // namespace

// --- Serving (serving_measured.csv): the names its columns use, as this repository's.

// model_path -> the model's folder under tests/data/configs.
const std::map<std::string, std::string> k_serving_models{
    {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
    {"nvidia/Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b"},
    {"meta-llama/Llama-3.1-70B", "llama-3.1-70b"},
    {"Qwen/Qwen3-32B", "qwen3-32b"},
    {"nvidia/Qwen3-32B-NVFP4", "qwen3-32b"},
    {"openai/gpt-oss-120b", "gpt-oss-120b"},
    {"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-R1", "deepseek-v3"},
    {"nvidia/DeepSeek-R1-NVFP4", "deepseek-v3"},
    {"Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b"}};
// system -> the catalog's GPU name.
const std::map<std::string, std::string> k_serving_systems{{"h100_sxm", "H100"},
                                                           {"h200_sxm", "H200"},
                                                           {"b200_sxm", "B200"},
                                                           {"b300_sxm", "B300"},
                                                           {"gb200", "GB200"},
                                                           {"gb300", "GB300"}};
// backend -> rightsize's engine name.
const std::map<std::string, std::string> k_serving_engines{
    {"trtllm", "tensorrt-llm"}, {"vllm", "vllm"}, {"sglang", "sglang"}};

namespace {

// The repeats of one serving configuration.
struct ServingGroup {
  std::vector<double> ttft;
  std::vector<double> tpot;
  std::map<std::string, std::string> row;
};

// Serving: aggregated rows, grouped by configuration (key: its fields joined by '|').
std::map<std::string, ServingGroup>
read_serving_groups(const std::string& validation_dir, PerfCases& out, SkipCounts& skips) {
  const auto skip = [&](const std::string& reason) { ++skips[reason]; };
  std::ifstream csv(validation_dir + "/serving_measured.csv");
  if (!csv) {
    throw InputError(validation_dir + "/serving_measured.csv", "cannot read the validation data");
  }
  std::string header_line;
  std::getline(csv, header_line);
  const auto header = split_csv_line(header_line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) {
    col[header[i]] = i;
  }
  std::map<std::string, ServingGroup> groups;
  for (std::string line; std::getline(csv, line);) {
    const auto f = split_csv_line(line);
    if (f.size() != header.size()) {
      skip("serving: malformed CSV row");
      continue;
    }
    const auto get = [&](const char* name) { return f[col.at(name)]; };
    if (get("mode") != "agg") {
      skip("serving: disaggregated, predicted apart (the disaggregated prefill/decode lines)");
      continue;
    }
    ++out.serving_rows_read;
    if (k_serving_models.count(get("model_path")) == 0) {
      skip("serving: model without a config here (MiniMax-M2.5, Qwen3.5, Kimi-K2.5, GLM-5)");
      continue;
    }
    if (get("tp_size").empty() || get("batch_size").empty() || get("pp_size") != "1") {
      skip("serving: incomplete parallelism fields");
      continue;
    }
    // Empty or 0 (some dense rows): no attention data parallelism.
    const std::string adp = get("attention_dp_size").empty() || get("attention_dp_size") == "0"
                                ? "1"
                                : get("attention_dp_size");
    const std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}{}",
                                        get("model_path"),
                                        get("system"),
                                        get("backend"),
                                        get("backend_version"),
                                        get("precision"),
                                        get("gemm_quant_mode"),
                                        get("isl"),
                                        get("osl"),
                                        get("batch_size"),
                                        get("tp_size"),
                                        get("moe_ep_size"),
                                        adp == "1" ? std::string() : "|adp" + adp);
    auto& g = groups[key];
    g.ttft.push_back(std::stod(get("silicon_ttft_ms")));
    g.tpot.push_back(std::stod(get("silicon_tpot_ms")));
    for (const char* name : {"model_path",
                             "system",
                             "backend",
                             "precision",
                             "gemm_quant_mode",
                             "isl",
                             "osl",
                             "batch_size",
                             "tp_size",
                             "moe_ep_size",
                             "moe_tp_size"}) {
      g.row[name] = get(name);
    }
    g.row["attention_dp_size"] = adp;
  }
  return groups;
}

} // namespace

nlohmann::json serving_precision(const std::string& prec, const std::string& gemm) {
  if (prec == "fp8" || gemm == "fp8" || gemm == "fp8_block") {
    return {{"weights", "fp8"}, {"kv_cache", "fp8"}};
  }
  if (prec == "fp4" || gemm == "nvfp4") {
    return {{"weights", "fp4"}, {"kv_cache", "fp8"}};
  }
  if (prec == "int4" || gemm == "int4_wo") {
    return {{"weights", "int4"}, {"kv_cache", "bf16"}};
  }
  return "bf16";
}

namespace {

// One configuration's TTFT and TPOT cases, each the median of its repeats.
void append_serving_cases(PerfCases& out,
                          const std::string& key,
                          const ServingGroup& g,
                          const std::string& configs_dir,
                          const Catalog& catalog,
                          const Constants& constants,
                          const Efficiency& efficiency,
                          SkipCounts& skips) {
  const auto skip = [&](const std::string& reason) { ++skips[reason]; };
  const auto& row = g.row;
  const Gpu& gpu = catalog.resolve(k_serving_systems.at(row.at("system")), "serving");
  const nlohmann::json precision =
      serving_precision(row.at("precision"), row.at("gemm_quant_mode"));
  const std::string model = k_serving_models.at(row.at("model_path"));
  Spec spec;
  try {
    spec = parse_spec({{"model", configs_dir + "/" + model + "/config.json"},
                       {"precision", precision},
                       {"workload",
                        {{"type", "inference"},
                         {"engine", k_serving_engines.at(row.at("backend"))},
                         {"input_tokens", std::stoll(row.at("isl"))},
                         {"output_tokens", std::stoll(row.at("osl"))},
                         {"concurrency", std::stoll(row.at("batch_size"))}}}},
                      "serving:" + key);
  } catch (const InputError&) {
    skip("serving: the spec could not be expressed");
    return;
  }
  // The columns' layout: attention over attention_dp_size groups of tp_size GPUs, the replica's
  // GPUs moe_tp_size x moe_ep_size (= tp_size x attention_dp_size in every row).
  const int adp = std::stoi(row.at("attention_dp_size"));
  const int ep = row.at("moe_ep_size").empty() ? 1 : std::stoi(row.at("moe_ep_size"));
  const Parallelism p = serving_parallelism(
      std::stoi(row.at("tp_size")) * adp, 1, (ep > 1 && spec.model.is_moe()) ? ep : 1, adp);
  if (spec.model.heads % p.attention_tp() != 0 || spec.model.heads % p.tp != 0) {
    skip("serving: tensor parallelism does not divide the heads");
    return;
  }
  if (p.ep > 1 && p.tp % p.ep != 0) {
    skip("serving: expert parallelism does not divide the GPUs");
    return;
  }
  if (attention_dp_refusal(spec, p)) {
    skip("serving: data-parallel attention the engine does not run");
    return;
  }
  const MemoryEstimate memory = estimate_memory(spec, gpu, p, constants);
  if (memory.max_batch < 1) {
    skip("serving: rightsize's memory model says the weights do not fit");
    return;
  }
  auto prepared = std::make_shared<Prepared>(Prepared{spec, gpu, p, memory});
  const bool held = held_out_key(key);
  const std::string family = efficiency.family_name(gpu);
  const auto predictor = [prepared, &constants](bool want_ttft) {
    return [prepared, &constants, want_ttft](const Efficiency& eff) {
      const auto r = estimate_inference(
          prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff, constants);
      return want_ttft ? to_ms(r.ttft) : to_ms(r.tpot);
    };
  };
  // Data-parallel attention lines: reported apart, never fitted (held out, in their own list).
  auto& into = p.attention_dp > 1 ? out.attention_dp : out.cases;
  into.push_back({"serving:" + key,
                  "ttft",
                  "serving",
                  family,
                  k_serving_engines.at(row.at("backend")),
                  median_of(g.ttft),
                  held || p.attention_dp > 1,
                  predictor(true),
                  {}});
  into.push_back({"serving:" + key,
                  "tpot",
                  "serving",
                  family,
                  k_serving_engines.at(row.at("backend")),
                  median_of(g.tpot),
                  held || p.attention_dp > 1,
                  predictor(false),
                  {}});
  describe_serving(into[into.size() - 2], *prepared, efficiency, constants);
  describe_serving(into.back(), *prepared, efficiency, constants);
  into[into.size() - 2].serving.prepared = prepared;
  into.back().serving.prepared = prepared;
}

// --- TensorRT-LLM tables (measurements.jsonl): first-token latency at batch 1, and offline
// static-batch throughput.

// The tables' model names -> the model's folder under tests/data/configs.
const std::map<std::string, std::string> k_table_models{
    {"LLaMA 7B", "llama-2-7b"}, {"LLaMA 70B", "llama-2-70b"}, {"GPT-J 6B", "gpt-j-6b"}};

// The tables' GPU names (with their form factor after the name) -> the catalog's GPU.
const Gpu* table_gpu(const Catalog& catalog, const std::string& name) {
  if (name.rfind("H100", 0) == 0) {
    return &catalog.resolve("H100", "table");
  }
  if (name.rfind("L40S", 0) == 0) {
    return &catalog.resolve("L40S", "table");
  }
  if (name.rfind("A100", 0) == 0) {
    return &catalog.resolve("A100-80GB", "table");
  }
  return nullptr;
}

// One table line, `kind` latency or throughput, `w` its workload.
void append_trtllm_table_case(PerfCases& out,
                              const nlohmann::json& j,
                              const nlohmann::json& w,
                              const std::string& kind,
                              const std::string& configs_dir,
                              const Catalog& catalog,
                              const Constants& constants,
                              const Efficiency& efficiency,
                              SkipCounts& skips) {
  std::string model_name = j["model"].get<std::string>();
  model_name = model_name.substr(0, model_name.find(" ("));
  const Gpu* gpu = table_gpu(catalog, j["gpu"].get<std::string>());
  if (k_table_models.count(model_name) == 0 || gpu == nullptr) {
    ++skips["trtllm table: model or GPU not in the catalog"];
    return;
  }
  const bool fp8 = j.value("precision", "") == "fp8";
  const long long batch = w.value("batch", 1);
  const long long isl = w.value("input_len", 128);
  const long long osl = w.value("output_len", 1);
  Spec spec = parse_spec(
      {{"model", configs_dir + "/" + k_table_models.at(model_name) + "/config.json"},
       {"precision",
        fp8 ? nlohmann::json{{"weights", "fp8"}, {"kv_cache", "fp8"}} : nlohmann::json("fp16")},
       {"workload",
        {{"type", "inference"},
         {"engine", "tensorrt-llm"},
         {"input_tokens", isl},
         {"output_tokens", std::max<long long>(osl, 1)},
         {"concurrency", batch}}}},
      "table:" + j["id"].get<std::string>());
  Parallelism p;
  p.tp = w.value("tp", 1);
  const MemoryEstimate memory = estimate_memory(spec, *gpu, p, constants);
  auto prepared = std::make_shared<Prepared>(Prepared{spec, *gpu, p, memory});
  const std::string id = j["id"].get<std::string>();
  const bool held = held_out_key(id);
  if (kind == "latency") {
    out.cases.push_back({id,
                         "first_token",
                         "trtllm-table",
                         efficiency.family_name(*gpu),
                         "tensorrt-llm",
                         j["value"].get<double>(),
                         held,
                         [prepared, &constants](const Efficiency& eff) {
                           MemoryEstimate m = prepared->memory;
                           m.batch = 1;
                           m.max_batch = std::max<long long>(1, m.max_batch);
                           const auto r = estimate_inference(
                               prepared->spec, prepared->gpu, prepared->p, m, eff, constants);
                           return to_ms(r.prefill);
                         },
                         {}});
    describe_serving(out.cases.back(), *prepared, efficiency, constants);
    out.cases.back().serving.queueing = false; // one request alone
    return;
  }
  // Static batch: all prompts prefilled together, then all outputs decoded together.
  const bool per_gpu =
      j["unit"].get<std::string>().find("per-GPU column header") != std::string::npos ||
      j["unit"].get<std::string>().find("tok/s/GPU") != std::string::npos;
  out.cases.push_back(
      {id,
       "throughput",
       "trtllm-table",
       efficiency.family_name(*gpu),
       "tensorrt-llm",
       j["value"].get<double>(),
       held,
       [prepared, &constants, batch, isl, osl, per_gpu](const Efficiency& eff) {
         Spec one = prepared->spec;
         MemoryEstimate m = prepared->memory;
         m.batch = 1;
         m.max_batch = std::max<long long>(1, m.max_batch);
         one.workload.inference.input_tokens = isl * batch;
         const auto prefill_all =
             estimate_inference(one, prepared->gpu, prepared->p, m, eff, constants).prefill;
         MemoryEstimate full = prepared->memory;
         full.batch = batch;
         full.max_batch = std::max(full.max_batch, batch);
         const auto decode =
             estimate_inference(prepared->spec, prepared->gpu, prepared->p, full, eff, constants)
                 .decode_step;
         const double total = static_cast<double>(batch * osl) /
                              (prefill_all + decode * static_cast<double>(osl)).si();
         return per_gpu ? total / prepared->p.tp : total;
       },
       {}});
  describe_serving(out.cases.back(), *prepared, efficiency, constants);
}

// --- Megatron-LM: 2021 table (achieved TFLOP/s with full recompute) and 2022 MFU (selective
// recompute + sequence parallelism, DP = 1). Heads per Narayanan et al. 2021 Table 1 and
// Korthikanti et al. 2022 Table 3.
struct Gpt {
  const char* tag;
  int hidden;
  int heads;
  int layers;
};
const std::vector<Gpt> k_gpts{{"1.7B", 2304, 24, 24},
                              {"3.6B", 3072, 32, 30},
                              {"7.5B", 4096, 32, 36},
                              {"18B", 6144, 48, 40},
                              {"39B", 8192, 64, 48},
                              {"76B", 10240, 80, 60},
                              {"145B", 12288, 96, 80},
                              {"310B", 16384, 128, 96},
                              {"530B", 20480, 128, 105},
                              {"1T", 25600, 160, 128},
                              {"22B", 6144, 64, 48},
                              {"175B", 12288, 96, 96}};
// The 2022 runs' layouts by model size: TP, PP and global batch.
const std::map<std::string, std::array<int, 3>> k_megatron22_layouts{
    {"22B", {8, 1, 4}}, {"175B", {8, 8, 64}}, {"530B", {8, 35, 280}}, {"1T", {8, 64, 512}}};

// One Megatron line (kind "mfu"), `w` its workload.
void append_megatron_case(PerfCases& out,
                          const nlohmann::json& j,
                          const nlohmann::json& w,
                          const Catalog& catalog,
                          const Constants& constants,
                          SkipCounts& skips) {
  const std::string id = j["id"].get<std::string>();
  const bool is2022 = id.rfind("megatron22", 0) == 0;
  const std::string tag = id.substr(id.rfind('-') + 1);
  const auto gpt = std::find_if(k_gpts.begin(), k_gpts.end(), [&](const Gpt& g) {
    return tag == g.tag && (is2022 || std::string(g.tag) != "22B");
  });
  if (gpt == k_gpts.end()) {
    ++skips["megatron: model size not in the configuration table"];
    return;
  }
  int tp = 8;
  int pp = 1;
  int gpus = 8;
  long long global = 0;
  if (is2022) {
    const auto l = k_megatron22_layouts.at(tag);
    tp = l[0];
    pp = l[1];
    gpus = tp * pp;
    global = l[2];
  } else {
    const int mp = w.value("model_parallel_size", 1);
    tp = std::min(mp, 8);
    pp = mp / tp;
    gpus = j["gpu_count"].get<int>();
    global = w.value("global_batch", 512);
  }
  const std::string name = std::string("gpt-") + gpt->tag;
  Spec spec = parse_spec({{"model",
                           {{"name", name},
                            {"layers", gpt->layers},
                            {"hidden_size", gpt->hidden},
                            {"heads", gpt->heads},
                            {"vocab_size", 51200},
                            {"gated_mlp", false},
                            {"intermediate_size", 4 * gpt->hidden},
                            {"tied_embeddings", true}}},
                          {"workload",
                           {{"type", "training"},
                            {"seq_len", 2048},
                            {"global_batch", global},
                            {"micro_batch", 1},
                            {"recompute", is2022 ? "selective" : "full"},
                            {"sequence_parallel", is2022}}}},
                         "megatron:" + id);
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.dp = gpus / (tp * pp);
  const Gpu& a100 = catalog.resolve("A100-80GB", "megatron");
  const MemoryEstimate memory = estimate_memory(spec, a100, p, constants);
  auto prepared = std::make_shared<Prepared>(Prepared{spec, a100, p, memory});
  const double measured = is2022 ? j["value"].get<double>() / 100.0 : j["value"].get<double>();
  out.cases.push_back(
      {id,
       is2022 ? "mfu" : "achieved_tflops",
       "megatron",
       "ampere",
       "megatron",
       measured,
       is2022,
       [prepared, is2022](const Efficiency& eff) {
         const auto r =
             estimate_training(prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff);
         return is2022 ? r.mfu
                       : r.hardware_flops_utilization *
                             to_tflop_per_s(*prepared->gpu.rate(TensorPrecision::bf16));
       },
       {}});
}

// measurements.jsonl's TensorRT-LLM table lines and Megatron lines, in the file's order.
void append_measurement_cases(PerfCases& out,
                              const std::string& validation_dir,
                              const std::string& configs_dir,
                              const Catalog& catalog,
                              const Constants& constants,
                              const Efficiency& efficiency,
                              SkipCounts& skips) {
  std::ifstream jsonl(validation_dir + "/measurements.jsonl");
  for (std::string line; std::getline(jsonl, line);) {
    if (line.empty()) {
      continue;
    }
    const auto j = nlohmann::json::parse(line);
    const std::string kind = j.value("kind", "");
    const auto& w = j["workload"];
    const std::string framework = w.value("framework", "");
    if ((kind == "latency" || kind == "throughput") && framework.rfind("TensorRT-LLM", 0) == 0) {
      append_trtllm_table_case(out, j, w, kind, configs_dir, catalog, constants, efficiency, skips);
    } else if (kind == "mfu") {
      append_megatron_case(out, j, w, catalog, constants, skips);
    }
  }
}

} // namespace

void describe_serving(PerfCase& c,
                      const Prepared& prepared,
                      const Efficiency& efficiency,
                      const Constants& constants) {
  const auto& model = prepared.spec.model;
  c.serving.model_kind = std::string(model.kind());
  c.serving.input_tokens = prepared.spec.workload.inference.input_tokens;
  c.serving.output_tokens = prepared.spec.workload.inference.output_tokens;
  // The KV-overflow regime (queueing for a cache slot, not for the engine's cap): its own LOGO
  // group and, in reports, its wider band.
  c.serving.queueing =
      estimate_inference(
          prepared.spec, prepared.gpu, prepared.p, prepared.memory, efficiency, constants)
          .kv_overflow();
}

bool held_out_key(const std::string& key) {
  return fnv(key) % 4 == 0;
}

ErrorSummary summarize(const std::vector<const PerfCase*>& cases, const Efficiency& eff) {
  ErrorSummary s;
  std::vector<double> errors;
  std::vector<double> ratios;
  double log_sum = 0;
  for (const auto* c : cases) {
    const double predicted = c->predict(eff);
    const double e = std::fabs(predicted - c->measured) / c->measured;
    errors.push_back(e);
    ratios.push_back(c->measured / std::max(predicted, 1e-12));
    log_sum += std::fabs(std::log(std::max(predicted, 1e-12) / c->measured));
  }
  s.count = static_cast<int>(errors.size());
  if (!errors.empty()) {
    s.median = median_of(errors);
    s.worst = *std::max_element(errors.begin(), errors.end());
    s.mean_absolute_log = log_sum / static_cast<double>(errors.size());
    s.ratio_p10 = quantile_of(ratios, 0.10);
    s.ratio_p90 = quantile_of(ratios, 0.90);
  }
  return s;
}

PerfCases build_perf_cases(const std::string& validation_dir,
                           const std::string& configs_dir,
                           const Catalog& catalog,
                           const Constants& constants,
                           const Efficiency& efficiency) {
  PerfCases out;
  SkipCounts skips;
  const auto groups = read_serving_groups(validation_dir, out, skips);
  out.serving_configurations = static_cast<int>(groups.size());
  for (const auto& [key, g] : groups) {
    append_serving_cases(out, key, g, configs_dir, catalog, constants, efficiency, skips);
  }
  append_measurement_cases(out, validation_dir, configs_dir, catalog, constants, efficiency, skips);
  for (const auto& [reason, n] : skips) {
    out.skipped.push_back({fmt::format("{} rows", n), reason});
  }
  return out;
}

} // namespace rightsize::accuracy
