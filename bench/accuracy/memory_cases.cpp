#include "memory_cases.hpp"

#include "measured_cases.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>

namespace rightsize::accuracy {

namespace {

// A GPU that is not in the catalog (RTX 3090 in the FastChat measurements): only its capacity
// matters for a memory estimate.
Gpu consumer_gpu(const std::string& name, Bytes capacity) {
  Gpu g;
  g.name = name;
  g.memory = capacity;
  return g;
}

Spec spec_from(const nlohmann::json& body, const std::string& configs_dir, const char* name) {
  nlohmann::json j = body;
  if (j["model"].is_string()) {
    j["model"] = configs_dir + "/" + j["model"].get<std::string>() + "/config.json";
  }
  return parse_spec(j, std::string("accuracy:") + name);
}

Bytes reserved_peak(const MemoryEstimate& e) {
  return e.per_gpu.total();
}

// What torch's caching allocator sees of an estimate: all but the CUDA context. The cuBLAS
// workspace is allocated through the allocator, and the fragmentation term stands for the
// segments it holds reserved beyond what is allocated, so both stay in.
Bytes allocator_view(const MemoryEstimate& e, const Constants& c) {
  return e.per_gpu.total() - mib(c.get(Constant::cuda_context_mib));
}

// One measured peak (torch's peak reserved bytes) beside rightsize's estimate for the spec that
// describes its run, on `gpu` at tp 1; held out, since no constant was chosen with it in view.
void append_peak(MemoryResults& out,
                 const std::string& id,
                 std::string what,
                 const nlohmann::json& spec,
                 const nlohmann::json& row,
                 const Gpu& gpu,
                 const Constants& constants) {
  const Spec s = parse_spec(spec, "accuracy:" + id);
  const auto e = estimate_memory(s, gpu, Parallelism{}, constants);
  out.cases.push_back({id,
                       std::move(what),
                       "total less CUDA context vs peak reserved",
                       row.at("peak_reserved_bytes").get<double>(),
                       allocator_view(e, constants).si(),
                       false,
                       true});
}

// transformers' eager generate in bf16: a static batch prefilled at once, then decoded together.
void append_generate(MemoryResults& out,
                     const nlohmann::json& rows,
                     const std::string& configs_dir,
                     const Gpu& gpu,
                     const Constants& constants) {
  for (const auto& row : rows) {
    if (!measured(row, "peak_reserved_bytes")) {
      continue;
    }
    const std::string model = row.at("model");
    const long long batch = row.at("batch");
    const long long isl = row.at("input_tokens");
    const long long osl = row.at("output_tokens");
    append_peak(
        out,
        fmt::format("h200-generate-{}-b{}-{}/{}", model, batch, isl, osl),
        fmt::format("{} generate, b {} x {}+{} tokens, bf16 eager, H200", model, batch, isl, osl),
        measured_generate_spec(row, configs_dir),
        row,
        gpu,
        constants);
  }
}

// Fine-tuning steps (bench/gpu/measure.py train()): full fine-tuning keeps fp32 weights,
// gradients and AdamW moments under bf16 autocast, rightsize's "amp" recipe; LoRA r 16 on q, k,
// v, o over a bf16 base with fp32 adapters. One sequence length, global batch = micro-batch.
void append_training(MemoryResults& out,
                     const nlohmann::json& rows,
                     const std::string& configs_dir,
                     const Gpu& gpu,
                     const Constants& constants) {
  for (const auto& row : rows) {
    if (!measured(row, "peak_reserved_bytes")) {
      continue;
    }
    const std::string method = row.at("method");
    const std::string model = row.at("model");
    const long long micro = row.at("micro_batch");
    const std::string recompute = row.at("recompute");
    const std::string recipe =
        method == "full" ? "recipe amp: fp32 weights, grads and AdamW moments, bf16 autocast"
                         : "LoRA r 16 on q, k, v, o, bf16 base, fp32 adapters";
    append_peak(out,
                fmt::format("h200-{}-{}-mb{}-recompute-{}", method, model, micro, recompute),
                fmt::format("{} {} fine-tune, mb {} x {}, recompute {}, H200; {}",
                            model,
                            method,
                            micro,
                            row.at("seq_len").get<long long>(),
                            recompute,
                            recipe),
                measured_training_spec(row, configs_dir),
                row,
                gpu,
                constants);
  }
}

using MemoryLines = std::map<std::string, nlohmann::json>;

// The memory lines of measurements.jsonl, by id.
MemoryLines read_memory_lines(const std::string& validation_dir) {
  MemoryLines lines;
  std::ifstream in(validation_dir + "/measurements.jsonl");
  if (!in) {
    throw InputError(validation_dir + "/measurements.jsonl", "cannot read the validation data");
  }
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      continue;
    }
    auto j = nlohmann::json::parse(line);
    if (j.value("kind", "") == "memory") {
      lines[j["id"].get<std::string>()] = j;
    }
  }
  return lines;
}

double measured_gib(const MemoryLines& lines, const std::string& id) {
  nlohmann::json line = lines.at(id); // a copy: a line without a value fails in get<double>()
  return gib(line["value"].get<double>()).si();
}

double measured_mib(const MemoryLines& lines, const std::string& id) {
  nlohmann::json line = lines.at(id); // a copy: a line without a value fails in get<double>()
  return mib(line["value"].get<double>()).si();
}

// PEFT MetaMathQA: Llama-3.2-3B, batch 4, max length 768, AdamW, no gradient checkpointing,
// model loaded in bf16 without AMP (so parameters, gradients and AdamW states are bf16),
// transformers with SDPA attention. Measured: peak reserved memory (torch).
void append_peft_cases(MemoryResults& out,
                       const MemoryLines& lines,
                       const std::string& configs_dir,
                       const Gpu& l40s,
                       const Constants& constants) {
  const Parallelism single;
  const auto peft =
      [&](const std::string& id, const nlohmann::json& method, const char* what, bool held_out) {
        nlohmann::json w{{"type", "finetune"},
                         {"seq_len", 768},
                         {"micro_batch", 4},
                         {"optimizer", "adamw"},
                         {"recompute", "none"},
                         {"framework", "transformers"},
                         {"training_precision", "pure-bf16"}};
        w.update(method);
        const Spec s =
            spec_from({{"model", "llama-3.2-3b"}, {"precision", "bf16"}, {"workload", w}},
                      configs_dir,
                      id.c_str());
        const auto e = estimate_memory(s, l40s, single, constants);
        out.cases.push_back({id,
                             what,
                             "total per GPU vs peak reserved",
                             measured_gib(lines, id),
                             reserved_peak(e).si(),
                             false,
                             held_out});
      };
  peft("peft-metamathqa-full-finetuning--llama-3.2-3B-lr_0.00001",
       {{"method", "full"}},
       "Llama-3.2-3B full fine-tune, L40S",
       true);
  peft("peft-metamathqa-lora--llama-3.2-3B-rank32",
       {{"method", "lora"}, {"lora_rank", 32}, {"lora_targets", {"q_proj", "v_proj"}}},
       "Llama-3.2-3B LoRA r32, L40S",
       true);
  peft("peft-metamathqa-lora--llama-3.2-3B-rank64",
       {{"method", "lora"}, {"lora_rank", 64}, {"lora_targets", {"q_proj", "v_proj"}}},
       "Llama-3.2-3B LoRA r64, L40S",
       true);
}

// FastChat serving Llama-2-7B with transformers on an RTX 3090: nvidia-smi process memory
// (CUDA context included) for a short chat.
void append_fastchat_cases(MemoryResults& out,
                           const MemoryLines& lines,
                           const std::string& configs_dir,
                           const Constants& constants) {
  const Gpu rtx3090 = consumer_gpu("RTX-3090-24GB", gib(24));
  const Parallelism single;
  const auto fastchat =
      [&](const std::string& id, const char* precision, const char* what, bool held_out) {
        const Spec s = spec_from({{"model", "llama-2-7b"},
                                  {"precision", precision},
                                  {"workload",
                                   {{"type", "inference"},
                                    {"engine", "transformers"},
                                    {"input_tokens", 512},
                                    {"output_tokens", 256},
                                    {"concurrency", 1}}}},
                                 configs_dir,
                                 id.c_str());
        const auto e = estimate_memory(s, rtx3090, single, constants);
        out.cases.push_back({id,
                             what,
                             "total per GPU vs nvidia-smi process memory",
                             measured_mib(lines, id),
                             e.per_gpu.total().si(),
                             false,
                             held_out});
      };
  fastchat("fastchat-llama2-7b-3090-fp16",
           "fp16",
           "Llama-2-7B fp16 chat, transformers, RTX 3090",
           false);
  fastchat(
      "fastchat-llama2-7b-3090-int8", "int8", "Llama-2-7B int8 chat, transformers, RTX 3090", true);
}

// accelerate's model-size estimator page: bert-base-cased loaded in fp32 takes 413.68 MB
// (MiB, from torch.cuda.memory_allocated): the weights term alone. The published config, read
// as BertModel (token-type embeddings, biases, LayerNorms, pooler); no workload is planned for
// an encoder, so the model is read as `rightsize model` reads it.
void append_bert_load_case(MemoryResults& out,
                           const MemoryLines& lines,
                           const std::string& configs_dir) {
  const std::string id = "accelerate-bert-base-cased-load";
  const Spec s = parse_spec(
      {{"model", configs_dir + "/encoder/bert-base-cased/config.json"}, {"precision", "fp32"}},
      "accuracy:" + id,
      SpecUse::describe);
  out.cases.push_back({id,
                       "bert-base-cased fp32 load",
                       "weights per GPU vs allocated after load",
                       measured_mib(lines, id),
                       weights_per_gpu(s.model, s.weights, Parallelism{}).total().si(),
                       false,
                       true});
}

// PEFT README: bloomz-7b1 full fine-tuning runs out of memory on an A100 80GB (recipe and
// batch not stated: the default mixed recipe at micro-batch 1).
void append_bloomz_oom_case(MemoryResults& out,
                            const std::string& configs_dir,
                            const Gpu& a100,
                            const Constants& constants) {
  const std::string id = "peft-readme-bloomz-7b1-full-oom";
  const Spec s = spec_from(
      {{"model",
        {{"name", "bloomz-7b1"},
         {"params", 7.069e9},
         {"layers", 30},
         {"hidden_size", 4096},
         {"heads", 32},
         {"vocab_size", 250880},
         {"gated_mlp", false},
         {"tied_embeddings", true}}},
       {"workload",
        {{"type", "finetune"}, {"method", "full"}, {"seq_len", 512}, {"micro_batch", 1}}}},
      configs_dir,
      id.c_str());
  const auto e = estimate_memory(s, a100, Parallelism{}, constants);
  out.cases.push_back({id,
                       "bloomz-7b1 full fine-tune, A100 80GB",
                       "fits on one GPU (outcome)",
                       0.0,
                       e.fits ? 1.0 : 0.0,
                       true,
                       true});
}

// Every memory line no case evaluates, with why.
void append_skipped(MemoryResults& out, const MemoryLines& lines) {
  const std::map<std::string, std::string> reasons{
      {"peft-metamathqa-lora--llama-3.2-3B-rank32-dora",
       "DoRA adds a magnitude vector and a weight-norm pass that rightsize does not model"},
      {"peft-metamathqa-ia3--llama-3.2-3B-default", "IA3 is not a modeled fine-tuning method"},
      {"peft-metamathqa-prompt_tuning--llama-3.2-3B-default",
       "prompt tuning is not a modeled fine-tuning method"},
      {"peft-readme-T0_3B-full", "T5 encoder-decoder; batch and sequence length not stated"},
      {"peft-readme-T0_3B-PEFT-LoRA", "T5 encoder-decoder; batch and sequence length not stated"},
      {"peft-readme-T0_3B-PEFT-LoRA-ds", "T5 encoder-decoder with CPU offload"},
      {"peft-readme-mt0-xxl-PEFT-LoRA", "T5 encoder-decoder; batch and sequence length not stated"},
      {"peft-readme-mt0-xxl-PEFT-LoRA-ds", "T5 encoder-decoder with CPU offload"},
      {"peft-readme-bloomz-7b1-PEFT-LoRA", "batch and sequence length not stated"},
      {"peft-readme-bloomz-7b1-PEFT-LoRA-ds", "DeepSpeed CPU offload is not modeled"},
      {"peft-readme-mt0-xxl-full-oom", "T5 encoder-decoder"},
      {"peft-readme-sd14-full", "a diffusion model, not a transformer language model"},
      {"peft-readme-sd14-PEFT-LoRA", "a diffusion model, not a transformer language model"},
      {"peft-readme-sd14-PEFT-LoRA-gc", "a diffusion model, not a transformer language model"},
  };
  for (const auto& entry : lines) {
    // A named copy: C++17 lambdas cannot capture structured bindings (clang refuses).
    const auto& id = entry.first;
    const bool evaluated = std::any_of(
        out.cases.begin(), out.cases.end(), [&id](const MemoryCase& c) { return c.id == id; });
    if (!evaluated) {
      const auto r = reasons.find(id);
      out.skipped.push_back({id, r == reasons.end() ? "not expressible" : r->second});
    }
  }
}

} // namespace

MemoryResults run_memory_cases(const std::string& validation_dir,
                               const std::string& configs_dir,
                               const Catalog& catalog,
                               const Constants& constants) {
  const MemoryLines lines = read_memory_lines(validation_dir);
  MemoryResults out;
  const Gpu& l40s = catalog.resolve("L40S", "accuracy");
  const Gpu& a100 = catalog.resolve("A100-80GB", "accuracy");
  append_peft_cases(out, lines, configs_dir, l40s, constants);
  append_fastchat_cases(out, lines, configs_dir, constants);
  append_bert_load_case(out, lines, configs_dir);
  append_bloomz_oom_case(out, configs_dir, a100, constants);
  append_skipped(out, lines);
  return out;
}

void append_measured_memory_cases(MemoryResults& out,
                                  const std::string& measured_file,
                                  const std::string& configs_dir,
                                  const Catalog& catalog,
                                  const Constants& constants) {
  const nlohmann::json j = read_measured(measured_file);
  const Gpu& h200 = catalog.resolve("H200-SXM-141GB", measured_file);
  append_generate(out, j.at("generate"), configs_dir, h200, constants);
  append_training(out, j.at("train"), configs_dir, h200, constants);
}

} // namespace rightsize::accuracy
