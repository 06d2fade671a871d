#include "spec_generator.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>

namespace rightsize::bench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
// the same sequence with every compiler and standard library, unlike std::*_distribution.
class Rng {
public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  // True with probability `p`.
  bool chance(double p) { return static_cast<double>(next() >> 11U) * 0x1.0p-53 < p; }
  template <class T> T pick(std::initializer_list<T> choices) {
    return *(choices.begin() + below(choices.size()));
  }
  template <class T> T pick(const std::vector<T>& choices) {
    return choices[below(choices.size())];
  }

private:
  std::uint64_t m_state;
};

// What the generator needs to know of a model to draw valid specs.
struct ModelFacts {
  std::string name;   // folder name
  std::string config; // absolute path of its config.json
  long long context = 0;
  bool quantized = false;
  double params_active = 0;
};

std::vector<ModelFacts> read_models(const std::string& configs_dir) {
  std::vector<ModelFacts> models;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(configs_dir, ec)) {
    const fs::path config = entry.path() / "config.json";
    if (!fs::is_regular_file(config, ec)) {
      continue;
    }
    const ModelArch arch =
        parse_hf_config(detail::load_json_file(config.string()), config.string());
    models.push_back({entry.path().filename().string(),
                      fs::absolute(config).lexically_normal().string(),
                      arch.max_position,
                      arch.quantization.quantized(),
                      arch.params_active});
  }
  if (ec || models.empty()) {
    throw InputError(configs_dir, "holds no model folder with a config.json");
  }
  // Directory order is the file system's: sort so that the same seed gives the same specs.
  std::sort(models.begin(), models.end(), [](const ModelFacts& a, const ModelFacts& b) {
    return a.name < b.name;
  });
  return models;
}

// Some of `choices`, at least one, in their given order.
std::vector<std::string> some_of(Rng& rng, const std::vector<std::string>& choices) {
  std::vector<std::string> out;
  for (const auto& c : choices) {
    if (rng.chance(0.35)) {
      out.push_back(c);
    }
  }
  if (out.empty()) {
    out.push_back(rng.pick(choices));
  }
  return out;
}

// Input and output lengths within the model's context, which vLLM and SGLang enforce; now and
// then left to their defaults, which shrink to fit.
void draw_lengths(Rng& rng, const ModelFacts& m, json& workload) {
  if (rng.chance(0.08)) {
    return;
  }
  const long long context = m.context > 0 ? m.context : 2048;
  std::vector<long long> inputs;
  for (const long long v : {128LL, 256LL, 512LL, 1024LL, 2048LL, 4096LL, 8192LL, 32768LL}) {
    if (v + 64 <= context) {
      inputs.push_back(v);
    }
  }
  const long long input = inputs.empty() ? context / 2 : rng.pick(inputs);
  if (rng.chance(0.05)) {
    workload["input_tokens"] = input; // the output length takes what the context leaves
    return;
  }
  std::vector<long long> outputs;
  for (const long long v : {32LL, 64LL, 128LL, 256LL, 512LL, 1024LL, 2048LL, 4096LL}) {
    if (input + v <= context) {
      outputs.push_back(v);
    }
  }
  workload["input_tokens"] = input;
  workload["output_tokens"] = outputs.empty() ? context - input : rng.pick(outputs);
}

json draw_targets(Rng& rng) {
  json targets = json::object();
  if (rng.chance(0.5)) {
    targets["ttft_ms"] = rng.pick({100.0, 250.0, 500.0, 1000.0, 2000.0, 5000.0});
  }
  if (rng.chance(0.5)) {
    targets["tpot_ms"] = rng.pick({5.0, 10.0, 20.0, 30.0, 50.0, 100.0});
  }
  if (rng.chance(0.4)) {
    targets["output_tokens_per_s"] = rng.pick({50.0, 200.0, 1000.0, 5000.0, 20000.0, 100000.0});
  }
  if (rng.chance(0.3)) {
    targets["requests_per_s"] = rng.pick({0.1, 0.5, 1.0, 2.0, 5.0, 20.0});
  }
  return targets;
}

json inference_workload(Rng& rng, const ModelFacts& m) {
  json w{{"type", "inference"}};
  draw_lengths(rng, m, w);
  if (rng.chance(0.8)) {
    w["concurrency"] = rng.pick({1LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL, 128LL, 256LL, 512LL});
  }
  const std::size_t engine = rng.below(100);
  if (engine < 45) {
    w["engine"] = "vllm";
  } else if (engine < 70) {
    w["engine"] = "sglang";
  } else if (engine < 90) {
    w["engine"] = "tensorrt-llm";
  } // else the default engine
  if (rng.chance(0.1)) {
    w["gpu_memory_utilization"] = rng.pick({0.8, 0.85, 0.9, 0.95});
  }
  if (rng.chance(0.05)) {
    w["max_num_batched_tokens"] = rng.pick({2048LL, 4096LL, 8192LL, 16384LL});
  }
  if (json targets = draw_targets(rng); !targets.empty()) {
    w["targets"] = std::move(targets);
  }
  return w;
}

// Serving precisions: the checkpoint's (absent), one dtype, or weights, KV cache, activations
// and cheaper formats the planner may also consider.
void draw_inference_precision(Rng& rng, json& spec) {
  const std::size_t kind = rng.below(100);
  if (kind < 25) {
    return;
  }
  if (kind < 45) {
    // One dtype is the KV cache's too: 4-bit formats only come as weights, in the object form.
    spec["precision"] = rng.pick<std::string>({"bf16", "fp16", "fp8", "fp8", "int8"});
    return;
  }
  json p = json::object();
  if (rng.chance(0.6)) {
    p["weights"] =
        rng.pick<std::string>({"bf16", "fp16", "fp8", "int8", "int4", "nf4", "fp4", "mxfp4"});
  }
  if (rng.chance(0.5)) {
    p["kv_cache"] = rng.pick<std::string>({"bf16", "fp16", "fp8"});
  }
  if (rng.chance(0.3)) {
    p["activations"] = rng.pick<std::string>({"bf16", "fp16"});
  }
  if (rng.chance(0.5)) {
    p["allow"] = some_of(rng, {"fp8", "int8", "int4", "fp4"});
  }
  spec["precision"] = std::move(p);
}

// Names as a person types them: aliases and full catalog names.
const std::vector<std::string> k_gpu_names{
    "H100",      "H100-NVL",      "H200",      "B200",         "A100",  "A100-40GB",
    "A100 PCIe", "L40S",          "L40",       "L4",           "T4",    "A10G",
    "A10",       "A30",           "GH200",     "RTX-PRO-6000", "GB200", "MI300X",
    "MI325X",    "H100-SXM-80GB", "L40S-48GB", "B300",         "GB300", "H100-PCIe"};

json serving_constraints(Rng& rng) {
  json c = json::object();
  if (rng.chance(0.4)) {
    c["max_gpus"] = rng.pick({1LL, 2LL, 4LL, 8LL, 16LL, 64LL});
  }
  // A GPU list and a vendor list together can leave nothing to plan: one or the other.
  if (rng.chance(0.4)) {
    std::vector<std::string> gpus;
    const std::size_t count = 1 + rng.below(4);
    while (gpus.size() < count) {
      const std::string name = rng.pick(k_gpu_names);
      if (std::find(gpus.begin(), gpus.end(), name) == gpus.end()) {
        gpus.push_back(name);
      }
    }
    c["gpus"] = gpus;
  } else if (rng.chance(0.2)) {
    c["vendors"] = rng.pick<std::vector<std::string>>({{"nvidia"}, {"amd"}, {"nvidia", "amd"}});
  }
  if (rng.chance(0.2)) {
    c["max_gpus_per_node"] = rng.pick({1LL, 2LL, 4LL, 8LL});
  }
  if (rng.chance(0.1)) {
    c["allow_cross_node_tp"] = true;
  }
  return c;
}

json cloud_deployment(Rng& rng, bool training) {
  json d{{"mode", "cloud"}};
  d["horizon_months"] =
      training ? rng.pick({1LL, 2LL}) : rng.pick({1LL, 3LL, 6LL, 12LL, 24LL, 36LL});
  if (!training && rng.chance(0.3)) {
    d["growth_per_month"] = rng.pick({0.0, 0.02, 0.05, 0.1});
  }
  if (rng.chance(0.15)) {
    d["hours_per_month"] = rng.pick({200.0, 360.0, 730.0});
  }
  // Providers in any case, as people write them; spot prices only where the catalog has some.
  std::string provider;
  if (rng.chance(0.3)) {
    provider = rng.pick<std::string>({"aws", "AWS", "Nebius", "runpod", "gcp", "CoreWeave"});
    d["provider"] = provider;
  }
  if (rng.chance(0.15)) {
    const bool spot_priced = provider.empty() || provider == "Nebius" || provider == "runpod";
    d["price_kind"] = spot_priced && rng.chance(0.7) ? "spot" : "on_demand";
  }
  if (rng.chance(0.05)) {
    d["stale_price_days"] = rng.pick({30LL, 365LL});
  }
  return d;
}

json onprem_deployment(Rng& rng, bool training) {
  json d{{"mode", "onprem"}};
  d["horizon_months"] = training ? rng.pick({1LL, 3LL}) : rng.pick({12LL, 24LL, 36LL, 48LL, 60LL});
  if (!training && rng.chance(0.2)) {
    d["growth_per_month"] = rng.pick({0.0, 0.03, 0.08});
  }
  if (rng.chance(0.3)) {
    d["pue"] = rng.pick({1.1, 1.2, 1.4, 1.6});
  }
  if (rng.chance(0.3)) {
    d["electricity_usd_per_kwh"] = rng.pick({0.05, 0.1, 0.2, 0.3});
  }
  if (rng.chance(0.3)) {
    d["amortization_years"] = rng.pick({3.0, 4.0, 5.0});
  }
  if (rng.chance(0.2)) {
    d["utilization"] = rng.pick({0.5, 0.7, 0.9});
  }
  if (rng.chance(0.1)) {
    d["operations_share"] = rng.pick({0.1, 0.2});
  }
  if (rng.chance(0.1)) {
    d["gpus_per_server"] = rng.pick({1LL, 4LL, 8LL});
  }
  return d;
}

json serving_spec(Rng& rng, const ModelFacts& m) {
  json spec{{"schema_version", 1}, {"model", m.config}};
  spec["workload"] = inference_workload(rng, m);
  draw_inference_precision(rng, spec);
  if (rng.chance(0.4)) {
    if (json c = serving_constraints(rng); !c.empty()) {
      spec["constraints"] = std::move(c);
    }
  }
  spec["deployment"] =
      rng.chance(0.7) ? cloud_deployment(rng, false) : onprem_deployment(rng, false);
  return spec;
}

// Settings pre-training and fine-tuning share.
void draw_training_settings(Rng& rng, json& w) {
  if (rng.chance(0.5)) {
    w["optimizer"] = rng.pick<std::string>({"adamw", "adam", "sgd", "adafactor", "adam-8bit"});
  }
  if (rng.chance(0.5)) {
    w["recompute"] = rng.pick<std::string>({"none", "selective", "full"});
  }
  if (rng.chance(0.1)) {
    w["flash_attention"] = false;
  }
  if (rng.chance(0.1)) {
    w["training_precision"] = rng.pick<std::string>({"mixed", "mixed-bf16-grads", "pure-bf16"});
  }
}

json training_spec(Rng& rng, const ModelFacts& m) {
  json w{{"type", "training"}};
  const long long micro = rng.pick({1LL, 2LL, 4LL});
  w["seq_len"] = rng.pick({2048LL, 4096LL, 8192LL});
  w["micro_batch"] = micro;
  w["global_batch"] = micro * rng.pick({64LL, 128LL, 256LL, 512LL});
  w["zero_stage"] = rng.pick({0LL, 1LL, 2LL, 3LL});
  draw_training_settings(rng, w);
  if (rng.chance(0.2)) {
    w["sequence_parallel"] = false;
  }
  if (rng.chance(0.1)) {
    w["pipeline_interleave"] = 2;
  }
  w["tokens"] = rng.pick({1e9, 1e10, 1e11, 2e11});
  if (rng.chance(0.7)) {
    w["deadline_hours"] = rng.pick({24.0, 72.0, 168.0, 720.0});
  }
  json spec{{"schema_version", 1}, {"model", m.config}, {"workload", std::move(w)}};
  // Quantized checkpoints train in bf16; the others keep their own dtype now and then.
  if (m.quantized || rng.chance(0.7)) {
    spec["precision"] = "bf16";
  }
  json c = json::object();
  if (rng.chance(0.6)) {
    c["max_gpus"] = rng.pick({8LL, 64LL, 256LL, 1024LL, 4096LL});
  }
  if (rng.chance(0.3)) {
    c["max_gpus_per_node"] = 8;
  }
  if (!c.empty()) {
    spec["constraints"] = std::move(c);
  }
  spec["deployment"] = rng.chance(0.8) ? cloud_deployment(rng, true) : onprem_deployment(rng, true);
  return spec;
}

json finetune_spec(Rng& rng, const ModelFacts& m, const std::string& method) {
  json w{{"type", "finetune"}, {"method", method}};
  const long long micro = rng.pick({1LL, 2LL, 4LL, 8LL});
  w["seq_len"] = rng.pick({1024LL, 2048LL, 4096LL});
  w["micro_batch"] = micro;
  if (rng.chance(0.6)) {
    w["global_batch"] = micro * rng.pick({1LL, 4LL, 8LL, 16LL});
  }
  if (method != "full") {
    if (rng.chance(0.5)) {
      w["lora_rank"] = rng.pick({8LL, 16LL, 32LL, 64LL});
    }
    if (rng.chance(0.5)) {
      w["lora_targets"] = rng.pick<std::vector<std::string>>(
          {{"q_proj", "v_proj"}, {"q_proj", "k_proj", "v_proj", "o_proj"}, {"all-linear"}});
    }
  }
  draw_training_settings(rng, w);
  w["tokens"] = rng.pick({1e7, 1e8, 1e9});
  if (rng.chance(0.6)) {
    w["deadline_hours"] = rng.pick({4.0, 8.0, 24.0, 72.0});
  }
  json spec{{"schema_version", 1}, {"model", m.config}, {"workload", std::move(w)}};
  if (method == "qlora") {
    spec["precision"] = json{{"weights", "nf4"}}; // QLoRA's base is 4-bit whatever the checkpoint
  } else if (m.quantized || rng.chance(0.6)) {
    spec["precision"] =
        rng.chance(0.5) ? json("bf16") : json{{"weights", "bf16"}, {"activations", "bf16"}};
  }
  if (rng.chance(0.4)) {
    spec["constraints"] = json{{"max_gpus", rng.pick({1LL, 2LL, 8LL, 32LL})}};
  }
  spec["deployment"] = rng.chance(0.8) ? cloud_deployment(rng, true) : onprem_deployment(rng, true);
  return spec;
}

} // namespace

std::vector<std::pair<std::string, json>>
generate_specs(int n, unsigned seed, const std::string& configs_dir) {
  const std::vector<ModelFacts> models = read_models(configs_dir);
  Rng rng(seed);
  std::vector<std::pair<std::string, json>> specs;
  const int width = std::max(4, static_cast<int>(fmt::format("{}", n).size()));
  for (int i = 0; i < n; ++i) {
    const ModelFacts& m = models[static_cast<std::size_t>(i) % models.size()];
    const std::size_t kind = rng.below(20);
    json spec;
    std::string label;
    if (kind < 16) {
      spec = serving_spec(rng, m);
      label = "serve";
    } else if (kind < 18) {
      spec = training_spec(rng, m);
      label = "train";
    } else {
      label = rng.pick<std::string>({"lora", "qlora", "full"});
      spec = finetune_spec(rng, m, label);
      label = "finetune-" + label;
    }
    const std::string stem = fmt::format("{:0{}}-{}-{}", i + 1, width, m.name, label);
    spec["name"] = stem;
    specs.emplace_back(stem + ".json", std::move(spec));
  }
  return specs;
}

} // namespace rightsize::bench
