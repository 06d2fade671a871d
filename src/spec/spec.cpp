// Reading and normalizing workload specs. Field reference: docs/spec.md.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace fs = std::filesystem;

std::optional<TrainingPrecision> training_precision_preset(std::string_view name) {
  TrainingPrecision p;
  p.name = std::string(name);
  if (name == "mixed") {
    return p; // bf16 weights, fp32 gradients, fp32 master weights, fp32 states (Megatron-LM)
  }
  if (name == "mixed-bf16-grads") {
    p.gradients = DType::bf16; // ZeRO paper's 2 + 2 + 12 bytes
    return p;
  }
  if (name == "pure-bf16") {
    p.gradients = DType::bf16; // bf16 parameters updated in place, torch optimizer states in bf16
    p.master_weights = std::nullopt;
    p.optimizer_states = DType::bf16;
    return p;
  }
  if (name == "fp8") {
    // Transformer Engine: mixed's bf16 weights, fp32 gradients, master weights and states, with
    // the GEMM inputs cast to fp8 (NVIDIA Transformer Engine, fp8 autocast; Megatron-LM --fp8).
    p.compute = DType::fp8;
    return p;
  }
  if (name == "fp32" || name == "amp") {
    p.weights = DType::fp32; // amp: fp32 parameters, bf16 autocast compute
    p.gradients = DType::fp32;
    p.master_weights = std::nullopt;
    p.optimizer_states = DType::fp32;
    return p;
  }
  return std::nullopt;
}

std::vector<std::string> training_precision_presets() {
  return {"mixed", "mixed-bf16-grads", "pure-bf16", "fp8", "fp32", "amp"};
}

Bytes activation_element_bytes(const Precision& p) {
  return element_bits(p.activations) < 8 ? element_bytes(DType::bf16)
                                         : element_bytes(p.activations);
}

namespace {

bool looks_like_hf_config(const nlohmann::json& j) {
  // diffusers configs name their class instead; parse_hf_config refuses them by name.
  return j.is_object() &&
         (j.contains("model_type") || j.contains("architectures") || j.contains("_class_name"));
}

DType read_dtype(const FieldReader& field) {
  const auto name = field.as_string();
  const auto d = parse_dtype(name);
  if (!d) {
    field.fail("unknown precision (expected one of " + FieldReader::join(dtype_names()) + ")" +
               did_you_mean(name, dtype_names()));
  }
  return *d;
}

// The file that describes the model in a model folder: config.json (a Hugging Face model), else
// model_index.json (a diffusers pipeline, beside a folder per component); none when it has neither.
std::optional<fs::path> model_file_in(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {"config.json", "model_index.json"}) {
    if (fs::exists(dir / name, ec)) {
      return dir / name;
    }
  }
  return std::nullopt;
}

// Reads config.json (or a directory holding it), plus safetensors headers and
// hf_quant_config.json beside it.
ModelArch load_model_from_path(const FieldReader& field, const fs::path& spec_dir) {
  const std::string given = field.as_string();
  fs::path path = fs::path(given).is_absolute() ? fs::path(given) : spec_dir / given;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    field.fail("model path does not exist (resolved to " + path.lexically_normal().string() + ")");
  }
  if (fs::is_directory(path, ec)) {
    const auto file = model_file_in(path);
    if (!file) {
      field.fail("model directory has neither config.json nor model_index.json");
    }
    path = *file;
  }
  const std::string file = path.lexically_normal().string();
  if (path.filename() == "model_index.json") {
    return read_diffusers_pipeline(file);
  }
  const auto config = detail::load_json_file(file);
  if (!looks_like_hf_config(config)) {
    throw InputError(file + ":/",
                     "not a Hugging Face config: neither model_type nor "
                     "architectures is set");
  }
  ModelArch model = parse_hf_config(config, file);
  const std::string dir = path.parent_path().string();
  const fs::path quant = path.parent_path() / "hf_quant_config.json";
  if (fs::exists(quant, ec) && !model.quantization.quantized()) {
    model.quantization = parse_hf_quant_config(
        detail::load_json_file(quant.string()), quant.string(), model.torch_dtype);
  }
  read_safetensors(dir.empty() ? "." : dir, model);
  return model;
}

void read_targets(const FieldReader& r, InferenceTargets& t) {
  r.reject_unknown({"output_tokens_per_s", "ttft_ms", "tpot_ms", "requests_per_s"});
  t.output_tokens_per_s = r.optional_number("output_tokens_per_s", Range::positive(1e12));
  if (auto ms = r.optional_number("ttft_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
  if (auto ms = r.optional_number("tpot_ms", Range::positive(1e9))) {
    t.tpot = milliseconds(*ms);
  }
  t.requests_per_s = r.optional_number("requests_per_s", Range::positive(1e9));
}

// What generation and embedding workloads share: concurrency and the engine's settings.
void read_serving_engine(const FieldReader& r, InferenceWorkload& w) {
  w.concurrency = r.optional_integer("concurrency", Range{1, limits::k_max_concurrency});
  if (r.has("engine")) {
    w.engine = r.choice("engine", k_engine_names);
  }
  w.gpu_memory_utilization = r.optional_number("gpu_memory_utilization", Range{0.0, 1.0, true});
  w.max_num_batched_tokens =
      r.optional_integer("max_num_batched_tokens", Range{1, limits::k_max_tokens});
}

void read_inference(const FieldReader& r, InferenceWorkload& w) {
  r.reject_unknown({"type",
                    "input_tokens",
                    "output_tokens",
                    "concurrency",
                    "engine",
                    "gpu_memory_utilization",
                    "max_num_batched_tokens",
                    "targets",
                    "images_per_request",
                    "image_width",
                    "image_height"});
  w.input_tokens =
      r.optional_integer("input_tokens", Range{1, limits::k_max_tokens}).value_or(w.input_tokens);
  w.output_tokens =
      r.optional_integer("output_tokens", Range{1, limits::k_max_tokens}).value_or(w.output_tokens);
  read_serving_engine(r, w);
  if (auto t = r.optional_object("targets")) {
    read_targets(*t, w.targets);
  }
  w.images_per_request = r.optional_integer("images_per_request", Range{0, 1000}).value_or(0);
  w.image_width = r.optional_integer("image_width", Range{1, 100000}).value_or(w.image_width);
  w.image_height = r.optional_integer("image_height", Range{1, 100000}).value_or(w.image_height);
}

// Image tokens join each prompt: the tower's tokens per image (fixed-resolution towers resize
// every image; Qwen2-VL merges 2 x 2 patches of 14 pixels of the image as sent).
void read_images(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  const auto& vision = spec.model.vision;
  if (!vision) {
    if (w.images_per_request > 0) {
      workload->member("images_per_request")
          .fail(fmt::format("the model ({}) has no vision tower", spec.model.family));
    }
    return;
  }
  if (w.images_per_request == 0) {
    spec.defaults.push_back(fmt::format(
        "workload.images_per_request = 0: text-only prompts (the {} vision tower is loaded)",
        vision->kind));
    return;
  }
  const long long per_image = vision->tokens(w.image_width, w.image_height);
  w.image_tokens = w.images_per_request * per_image;
  if (!vision->grid_pinpoints.empty()) {
    const auto [pin_h, pin_w] = vision->anyres_resolution(w.image_width, w.image_height);
    spec.defaults.push_back(
        fmt::format("{} image(s) x {} tokens per request ({} x {} pixels fitted into {} x {}: {} "
                    "tiles of {} px and the whole image)",
                    w.images_per_request,
                    per_image,
                    w.image_width,
                    w.image_height,
                    pin_w,
                    pin_h,
                    (pin_h / vision->image_size) * (pin_w / vision->image_size),
                    vision->image_size));
    return;
  }
  spec.defaults.push_back(
      vision->image_size > 0
          ? fmt::format("{} image(s) x {} tokens per request (each resized to {} x {} pixels)",
                        w.images_per_request,
                        per_image,
                        vision->image_size,
                        vision->image_size)
          : fmt::format("{} image(s) x {} tokens per request ({} x {} pixels, {}-pixel patches "
                        "merged {} x {})",
                        w.images_per_request,
                        per_image,
                        w.image_width,
                        w.image_height,
                        vision->patch,
                        vision->merge,
                        vision->merge));
}

const std::vector<std::string>& lora_target_names() {
  static const std::vector<std::string> names{
      "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "all-linear"};
  return names;
}

void read_training(const FieldReader& r,
                   WorkloadType type,
                   TrainingWorkload& w,
                   std::vector<std::string>& defaults) {
  std::vector<std::string> known{"type",
                                 "seq_len",
                                 "global_batch",
                                 "micro_batch",
                                 "optimizer",
                                 "zero_stage",
                                 "recompute",
                                 "sequence_parallel",
                                 "pipeline_interleave",
                                 "flash_attention",
                                 "tokens",
                                 "deadline_hours",
                                 "framework",
                                 "training_precision",
                                 "dropout"};
  if (type == WorkloadType::finetune) {
    known.insert(known.end(), {"method", "lora_rank", "lora_targets"});
  }
  r.reject_unknown(known);
  w.seq_len = r.integer("seq_len", Range{1, limits::k_max_tokens});
  w.micro_batch = r.optional_integer("micro_batch", Range{1, limits::k_max_batch}).value_or(1);
  if (auto gb = r.optional_integer("global_batch", Range{1, limits::k_max_batch})) {
    w.global_batch = *gb;
  } else if (type == WorkloadType::finetune) {
    w.global_batch = w.micro_batch;
    defaults.push_back("workload.global_batch = micro_batch (default for finetune)");
  } else {
    throw InputError(r.where("global_batch"), "required field is missing");
  }
  if (w.global_batch % w.micro_batch != 0) {
    r.member("global_batch")
        .fail(fmt::format("must be a multiple of micro_batch ({})", w.micro_batch));
  }
  if (r.has("optimizer")) {
    w.optimizer = r.choice("optimizer", k_optimizer_names);
  }
  w.zero_stage =
      static_cast<int>(r.optional_integer("zero_stage", Range::between(0, 3)).value_or(0));
  if (r.has("recompute")) {
    w.recompute = r.choice("recompute", k_recompute_names);
  }
  w.sequence_parallel = r.optional_boolean("sequence_parallel").value_or(true);
  w.pipeline_interleave = static_cast<int>(
      r.optional_integer("pipeline_interleave", Range::between(1, 64)).value_or(1));
  w.flash_attention = r.optional_boolean("flash_attention").value_or(true);
  w.dropout = r.optional_boolean("dropout").value_or(false);
  w.framework = type == WorkloadType::finetune ? Framework::transformers : Framework::megatron;
  if (r.has("framework")) {
    w.framework = r.choice("framework", k_framework_names);
  }
  if (r.has("training_precision")) {
    const auto field = r.member("training_precision");
    if (field.json().is_string()) {
      const auto name = field.as_string();
      const auto preset = training_precision_preset(name);
      if (!preset) {
        field.fail("unknown training precision preset (expected one of " +
                   FieldReader::join(training_precision_presets()) + ")" +
                   did_you_mean(name, training_precision_presets()));
      }
      w.precision = *preset;
    } else {
      const auto o = r.object("training_precision");
      o.reject_unknown({"weights", "gradients", "master_weights", "optimizer_states", "compute"});
      const auto dtype_of = [&](const char* key, DType fallback) {
        if (!o.has(key)) {
          return fallback;
        }
        const auto name = o.string(key);
        const auto d = parse_dtype(name);
        if (!d || element_bits(*d) < 8) {
          o.member(key).fail("must be fp32, bf16, fp16 or fp8" + did_you_mean(name, dtype_names()));
        }
        return *d;
      };
      TrainingPrecision p;
      p.name = "custom";
      p.weights = dtype_of("weights", p.weights);
      p.gradients = dtype_of("gradients", p.gradients);
      p.optimizer_states = dtype_of("optimizer_states", p.optimizer_states);
      if (o.has("master_weights") && o.member("master_weights").json() == "none") {
        p.master_weights = std::nullopt;
      } else {
        p.master_weights = dtype_of("master_weights", DType::fp32);
      }
      p.compute = dtype_of("compute", p.compute);
      if (p.compute == DType::fp32) {
        o.member("compute").fail("must be bf16, fp16 or fp8 (the GEMM inputs)");
      }
      w.precision = p;
    }
  } else {
    defaults.push_back("workload.training_precision = mixed: bf16 weights, fp32 gradients, fp32 "
                       "master weights, fp32 optimizer states (default)");
  }
  w.tokens = r.optional_number("tokens", Range::positive(limits::k_max_train_tokens));
  if (auto h = r.optional_number("deadline_hours", Range::positive(1e6))) {
    w.deadline = hours(*h);
  }
  if (type == WorkloadType::finetune) {
    w.method = r.choice("method", k_finetune_method_names);
    if (w.method != FinetuneMethod::full) {
      w.lora_rank = r.optional_integer("lora_rank", Range::between(1, 65536)).value_or(16);
      if (r.has("lora_targets")) {
        for (const auto& e : r.array("lora_targets")) {
          const auto name = e.as_string();
          const auto& valid = lora_target_names();
          if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
            e.fail("unknown LoRA target module" + did_you_mean(name, valid));
          }
          w.lora_targets.push_back(name);
        }
      } else {
        w.lora_targets = {"q_proj", "v_proj"};
        defaults.push_back("workload.lora_targets = [q_proj, v_proj] (PEFT's default for "
                           "Llama-style models)");
      }
    } else if (r.has("lora_rank") || r.has("lora_targets")) {
      r.member(r.has("lora_rank") ? "lora_rank" : "lora_targets")
          .fail_plain("only applies to method lora or qlora");
    }
  }
}

void read_constraints(const FieldReader& r, Constraints& c) {
  r.reject_unknown({"gpus", "vendors", "max_gpus", "max_gpus_per_node", "allow_cross_node_tp"});
  c.where = r.where();
  if (r.has("gpus")) {
    c.gpus = r.string_array("gpus");
    if (c.gpus.empty()) {
      r.member("gpus").fail_plain("must list at least one GPU when present");
    }
  }
  if (r.has("vendors")) {
    for (const auto& e : r.array("vendors")) {
      c.vendors.push_back(e.as_choice<std::string>({{"nvidia", "nvidia"}, {"amd", "amd"}}));
    }
  }
  c.max_gpus = r.optional_integer("max_gpus", Range{1, 1e6});
  c.max_gpus_per_node = r.optional_integer("max_gpus_per_node", Range{1, 1024});
  c.allow_cross_node_tp = r.optional_boolean("allow_cross_node_tp").value_or(false);
}

void read_deployment(const FieldReader& r, Deployment& d) {
  r.reject_unknown({"mode",
                    "horizon_months",
                    "growth_per_month",
                    "hours_per_month",
                    "provider",
                    "price_kind",
                    "utilization",
                    "pue",
                    "electricity_usd_per_kwh",
                    "amortization_years",
                    "operations_share",
                    "stale_price_days",
                    "gpus_per_server",
                    "scale_to_zero"});
  if (r.has("mode")) {
    d.mode = r.choice("mode", k_deployment_mode_names);
  }
  d.horizon_months = r.optional_integer("horizon_months", Range{1, 240}).value_or(d.horizon_months);
  d.growth_per_month =
      r.optional_number("growth_per_month", Range{-0.5, 10.0}).value_or(d.growth_per_month);
  d.hours_per_month =
      r.optional_number("hours_per_month", Range{0.0, 744.0, true}).value_or(d.hours_per_month);
  d.provider = r.optional_string("provider");
  if (r.has("price_kind")) {
    d.price_kind = r.choice<std::string>(
        "price_kind", {{"on_demand", "on_demand"}, {"spot", "spot"}, {"committed", "committed"}});
  }
  d.utilization = r.optional_number("utilization", Range{0.0, 1.0, true}).value_or(d.utilization);
  d.pue = r.optional_number("pue", Range{1.0, 5.0}).value_or(d.pue);
  d.electricity_usd_per_kwh =
      r.optional_number("electricity_usd_per_kwh", Range::non_negative(10.0))
          .value_or(d.electricity_usd_per_kwh);
  d.amortization_years = r.optional_number("amortization_years", Range{0.0, 20.0, true})
                             .value_or(d.amortization_years);
  d.operations_share =
      r.optional_number("operations_share", Range::non_negative(5.0)).value_or(d.operations_share);
  d.stale_price_days =
      r.optional_integer("stale_price_days", Range{1, 36500}).value_or(d.stale_price_days);
  d.gpus_per_server = r.optional_integer("gpus_per_server", Range{1, 576});
  d.scale_to_zero = r.optional_boolean("scale_to_zero").value_or(d.scale_to_zero);
}

// The dtype a serving engine computes in when the checkpoint says `t`: vLLM and SGLang serve
// fp32 checkpoints in fp16 (vLLM --dtype auto).
DType serving_dtype(DType t, Engine engine) {
  if (t == DType::fp32 && engine != Engine::transformers) {
    return DType::fp16;
  }
  return element_bits(t) < 16 ? DType::bf16 : t;
}

// Activations of at least 8 bits, or 4-bit floats with 4-bit float weights: NVFP4 and MXFP4 W4A4
// GEMMs run on Blackwell's fp4 tensor cores (TensorRT-LLM NVFP4). Integer and nf4 activations
// have no tensor-core path.
DType read_activations(const FieldReader& field, DType weights) {
  const DType d = read_dtype(field);
  if (element_bits(d) >= 8 || (is_float4(d) && is_float4(weights))) {
    return d;
  }
  field.fail(is_float4(d)
                 ? fmt::format("4-bit activations need fp4 or mxfp4 weights (W4A4), not {}",
                               to_string(weights))
                 : std::string("must be at least 8-bit, or fp4/mxfp4 with fp4 or mxfp4 weights "
                               "(W4A4)"));
}

void read_precision(const FieldReader& root, Spec& spec) {
  const ModelArch& m = spec.model;
  const bool qlora = spec.workload.type == WorkloadType::finetune &&
                     spec.workload.training.method == FinetuneMethod::qlora;
  const DType compute = spec.workload.is_training()
                            ? (m.torch_dtype == DType::fp16 ? DType::fp16 : DType::bf16)
                            : serving_dtype(m.torch_dtype, spec.workload.inference.engine);
  // Defaults: the checkpoint as stored.
  Precision p;
  p.weights = m.quantization.quantized() ? m.quantization.dtype : compute;
  if (qlora && !m.quantization.quantized()) {
    p.weights = DType::nf4;
  }
  p.activations = m.quantization.quantized() ? m.quantization.high_precision : compute;
  p.kv_cache = m.quantization.kv_cache.value_or(p.activations);
  bool weights_given = false;
  if (root.has("precision")) {
    const auto field = root.member("precision");
    if (field.json().is_string()) {
      // The shorthand sets the weights, and the KV cache where a KV cache format of it exists:
      // engines cache keys and values in 16 or 8 bits (fp8 under fp4 weights, as under fp4
      // activations); under int4 or nf4 weights the cache keeps its 16-bit default.
      const DType d = read_dtype(field);
      p.weights = d;
      if (element_bits(d) >= 8) {
        p.kv_cache = d;
      } else if (is_float4(d)) {
        p.kv_cache = DType::fp8;
      }
      p.activations = element_bits(d) < 16 ? DType::bf16 : d;
      weights_given = true;
    } else {
      const auto r = root.object("precision");
      r.reject_unknown({"weights", "kv_cache", "activations", "allow"});
      if (r.has("weights")) {
        p.weights = read_dtype(r.member("weights"));
        weights_given = true;
      }
      if (r.has("activations")) {
        p.activations = read_activations(r.member("activations"), p.weights);
        p.activations_stated_for = p.weights;
      }
      if (r.has("kv_cache")) {
        p.kv_cache = read_dtype(r.member("kv_cache"));
      } else if (r.has("activations")) {
        // The KV cache follows the activations; under 4-bit activations it takes fp8, the
        // narrowest KV format vLLM, SGLang and TensorRT-LLM all offer.
        p.kv_cache = element_bits(p.activations) < 8 ? DType::fp8 : p.activations;
      }
      if (r.has("allow")) {
        for (const auto& e : r.array("allow")) {
          p.allow.push_back(read_dtype(e));
        }
      }
    }
  } else {
    spec.defaults.push_back(fmt::format(
        "precision: weights {}{}, activations {} (from the checkpoint)",
        to_string(p.weights),
        spec.keeps_kv_cache() ? fmt::format(", kv_cache {}", to_string(p.kv_cache)) : "",
        to_string(p.activations)));
  }
  if (qlora && p.weights != DType::nf4 && p.weights != DType::int4) {
    root.member("precision").fail_plain("qlora needs 4-bit base weights (nf4)");
  }
  // Planned in 16 or 32 bits only: diffusers loads a pipeline in one torch_dtype (quantized
  // pipelines are not modelled), and transformers quantizes nn.Linear layers only (fp8, int8 and
  // the 4-bit schemes alike), so a CNN's convolutions would stay in 16 bits and run at 16-bit
  // rates whatever the spec says (its activations are checked too).
  const bool cnn = m.image && m.image->cnn;
  if (m.diffusion || cnn) {
    auto asked = p.allow;
    asked.push_back(p.weights);
    if (cnn) {
      asked.push_back(p.activations);
    }
    for (const DType d : asked) {
      if (element_bits(d) < 16) {
        root.member("precision")
            .fail_plain(cnn ? fmt::format("{} is a CNN, planned in bf16, fp16 or fp32, got {} "
                                          "(quantization replaces linear layers only: its "
                                          "convolutions would stay 16-bit)",
                                          m.family,
                                          to_string(d))
                            : fmt::format("a diffusers pipeline is planned in bf16, fp16 or fp32, "
                                          "got {} (quantized pipelines are not modelled)",
                                          to_string(d)));
      }
    }
  }
  spec.precision = p;
  // How the weights are stored: the checkpoint's own scheme when it matches, else the default
  // scheme for the requested dtype.
  if (m.quantization.quantized() && (!weights_given || p.weights == m.quantization.dtype)) {
    spec.weights = m.quantization;
  } else {
    spec.weights = quantization_for(p.weights, p.activations);
  }
}

// "" when the model's context comes from its config, else how it was assumed (hf_config.cpp
// records "assumed: ..." provenance for a config without max_position_embeddings).
std::string assumed_context(const ModelArch& m) {
  for (const auto& [field, where] : m.provenance) {
    if (field == "max_position" && where.rfind("assumed: ", 0) == 0) {
      return where.substr(9);
    }
  }
  return {};
}

std::string describe_context(const ModelArch& m) {
  const std::string assumed = assumed_context(m);
  return fmt::format("the model's context of {} tokens ({})",
                     m.max_position,
                     assumed.empty() ? "max_position_embeddings" : "assumed: " + assumed);
}

// A context the config does not state is an assumption the report lists.
void note_assumed_context(Spec& spec) {
  const std::string assumed = assumed_context(spec.model);
  if (!assumed.empty()) {
    spec.defaults.push_back(
        fmt::format("model context = {} tokens, {}", spec.model.max_position, assumed));
  }
}

// Training past the context is how context is extended (long-context fine-tuning), so it is
// only worth a warning.
void warn_long_training(Spec& spec) {
  const long long seq_len = spec.workload.training.seq_len;
  if (spec.workload.is_training() && spec.model.max_position > 0 &&
      seq_len > spec.model.max_position) {
    spec.warnings.push_back(
        fmt::format("seq_len of {} tokens exceeds {}", seq_len, describe_context(spec.model)));
  }
}

// Whether serving refuses a request longer than the model's context. vLLM and SGLang refuse a
// max_model_len / context_length above it (vllm/config.py _get_and_verify_max_len, sglang
// model_config.py; both unless an environment variable overrides). TensorRT-LLM serves up to its
// build's max_seq_len (NVIDIA's published GPT-J 6B runs use 2048 + 2048 tokens on a 2048-token
// model), and transformers only warns, except that learned position embeddings (GPT-2,
// StarCoder) have no row past the last.
bool context_enforced(const Spec& spec) {
  const Engine e = spec.workload.inference.engine;
  return e == Engine::vllm || e == Engine::sglang || spec.model.learned_positions > 0;
}

// Lengths the user gave past the model's context: an error where serving refuses them, else a
// warning. `field` is the one to blame.
void check_given_lengths(Spec& spec, const FieldReader& workload, const char* field) {
  const auto& w = spec.workload.inference;
  const long long context = spec.model.max_position;
  if (context <= 0 || w.prompt_tokens() + w.output_tokens <= context) {
    return;
  }
  const std::string what =
      fmt::format("{} input{} + {} output tokens exceed {}",
                  w.input_tokens,
                  w.image_tokens > 0 ? fmt::format(" + {} image", w.image_tokens) : std::string(),
                  w.output_tokens,
                  describe_context(spec.model));
  if (!context_enforced(spec)) {
    spec.warnings.push_back(what);
    return;
  }
  throw InputError(workload.where(field),
                   fmt::format("{}, {}: shorten the request or plan a model with a longer "
                               "context",
                               what,
                               spec.model.learned_positions > 0
                                   ? std::string("past its learned position embeddings")
                                   : fmt::format("which {} refuses", to_string(w.engine))));
}

// One length given: the other, left to its default, takes at most what the given one and the
// images leave.
void fit_other_length(Spec& spec, const FieldReader& workload, bool input_given) {
  auto& w = spec.workload.inference;
  const long long context = spec.model.max_position;
  const char* given = input_given ? "input_tokens" : "output_tokens";
  const long long kept = (input_given ? w.input_tokens : w.output_tokens) + w.image_tokens;
  long long& other = input_given ? w.output_tokens : w.input_tokens;
  const long long asked = other;
  if (context > 0 && kept < context) {
    other = std::min(asked, context - kept);
  }
  spec.defaults.push_back(
      fmt::format("workload.{} = {} (default{})",
                  input_given ? "output_tokens" : "input_tokens",
                  other,
                  other == asked ? std::string()
                                 : fmt::format(": {} cut to fit {} after {}{}",
                                               asked,
                                               describe_context(spec.model),
                                               given,
                                               w.image_tokens > 0 ? " and the images" : "")));
  check_given_lengths(spec, workload, given);
}

// Neither length given: 4096 + 1024, or what the images leave of the context split 4:1 when it
// is shorter. Images that leave fewer than 2 tokens are refused at `images_per_request`.
void fit_default_lengths(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  const long long context = spec.model.max_position;
  const long long budget = context - w.image_tokens;
  const char* why = spec.bare_hf_config ? "default for a bare config.json" : "default";
  if (context <= 0 || w.input_tokens + w.output_tokens <= budget) {
    spec.defaults.push_back(fmt::format("workload.input_tokens = {}, output_tokens = {} ({})",
                                        w.input_tokens,
                                        w.output_tokens,
                                        why));
    return;
  }
  if (budget < 2) {
    // Only images make the budget negative, and images come from a workload.
    workload->member("images_per_request")
        .fail(fmt::format("{} image tokens leave no room for text in {}",
                          w.image_tokens,
                          describe_context(spec.model)));
  }
  const std::string asked = fmt::format("{} + {}", w.input_tokens, w.output_tokens);
  w.input_tokens = std::max(1LL, budget * 4 / 5);
  w.output_tokens = std::max(1LL, budget - w.input_tokens);
  spec.defaults.push_back(fmt::format(
      "workload.input_tokens = {}, output_tokens = {} ({}: {} cut to fit {}{}, keeping 4:1)",
      w.input_tokens,
      w.output_tokens,
      why,
      asked,
      describe_context(spec.model),
      w.image_tokens > 0 ? fmt::format(" after {} image tokens", w.image_tokens) : std::string()));
}

// Inference lengths against the model's context: lengths given are checked, lengths left to
// their defaults shrink to fit. `workload` is the spec's /workload, absent for a bare
// config.json or a spec without one.
void fit_inference_lengths(Spec& spec, const std::optional<FieldReader>& workload) {
  const bool input_given = workload && workload->has("input_tokens");
  const bool output_given = workload && workload->has("output_tokens");
  if (input_given && output_given) {
    check_given_lengths(spec, *workload, "input_tokens");
  } else if (input_given || output_given) {
    fit_other_length(spec, *workload, input_given);
  } else {
    fit_default_lengths(spec, workload);
  }
}

// An embedding workload: sequences of input_tokens, one forward pass each, pooled into a vector;
// no output tokens, no images. Its targets: sequences per second and the latency of one sequence.
// Sequences default to 512 tokens (the chunk size retrieval pipelines split documents into, and
// BERT's whole context), cut to a shorter context.
constexpr long long k_default_embedding_tokens = 512;

void read_embedding_targets(const FieldReader& r, InferenceTargets& t) {
  r.reject_unknown({"sequences_per_s", "latency_ms"});
  t.requests_per_s = r.optional_number("sequences_per_s", Range::positive(1e9));
  if (auto ms = r.optional_number("latency_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
}

// An embedding workload on an image encoder speaks images (docs/spec.md, "Image embeddings"):
// every image is resized to the encoder's image_size and read as its tokens per image, one
// forward pass each; the lengths, the images of a prompt and the generation targets are the
// encoder's or meaningless, and are refused by name. Engine: transformers runs every image
// encoder; vLLM serves CLIPModel and SiglipModel (docs/model.md, "Image embedding workloads").
void refuse_for_images(const FieldReader& field, const ModelArch& m) {
  const ImageEncoder& e = *m.image;
  field.fail_plain(fmt::format("does not apply to an image encoder: {} resizes every image to {} "
                               "x {} pixels and reads it as {}; targets are images_per_s and "
                               "latency_ms",
                               m.family,
                               e.image_size,
                               e.image_size,
                               e.cnn ? std::string("one input (a CNN; config.json image_size, "
                                                   "else 224)")
                                     : fmt::format("{} tokens (config.json image_size and "
                                                   "patch_size)",
                                                   e.tokens())));
}

void read_image_targets(const FieldReader& r, const ModelArch& m, InferenceTargets& t) {
  for (const char* key :
       {"sequences_per_s", "requests_per_s", "output_tokens_per_s", "ttft_ms", "tpot_ms"}) {
    if (r.has(key)) {
      refuse_for_images(r.member(key), m);
    }
  }
  r.reject_unknown({"images_per_s", "latency_ms"});
  t.requests_per_s = r.optional_number("images_per_s", Range::positive(1e9));
  if (auto ms = r.optional_number("latency_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
}

} // namespace

std::string engine_name(const Spec& spec) {
  return spec.generates_images() ? "diffusers"
                                 : std::string(to_string(spec.workload.inference.engine));
}

std::optional<std::string> image_engine_refusal(const ModelArch& m, Engine e) {
  if (!m.image || e == Engine::transformers || (e == Engine::vllm && m.image->text > 0)) {
    return std::nullopt;
  }
  return e == Engine::vllm ? fmt::format("vLLM embeds images with CLIPModel and SiglipModel (text "
                                         "and vision towers), not with a {} vision-only or "
                                         "classifier checkpoint: use transformers",
                                         m.family)
                           : std::string("rightsize plans image encoders on transformers, and "
                                         "CLIP and SigLIP dual encoders also on vllm");
}

namespace {

// Whether the model's provenance records `field` as assumed rather than read.
bool provenance_says_assumed(const ModelArch& m, const std::string& field) {
  return std::any_of(m.provenance.begin(), m.provenance.end(), [&](const auto& p) {
    return p.first == field && p.second.rfind("assumed", 0) == 0;
  });
}

void read_image_embedding(Spec& spec, const std::optional<FieldReader>& workload) {
  const ModelArch& m = spec.model;
  const ImageEncoder& e = *m.image;
  auto& w = spec.workload.inference;
  w.output_tokens = 0;
  w.input_tokens = e.tokens();
  w.engine = Engine::transformers;
  if (workload) {
    const FieldReader& r = *workload;
    for (const char* key :
         {"input_tokens", "output_tokens", "images_per_request", "image_width", "image_height"}) {
      if (r.has(key)) {
        refuse_for_images(r.member(key), m);
      }
    }
    r.reject_unknown({"type",
                      "concurrency",
                      "engine",
                      "gpu_memory_utilization",
                      "max_num_batched_tokens",
                      "targets"});
    read_serving_engine(r, w);
    if (const auto refused = image_engine_refusal(m, w.engine)) {
      r.member("engine").fail(*refused);
    }
    if (auto t = r.optional_object("targets")) {
      read_image_targets(*t, m, w.targets);
    }
  }
  if (!workload || !workload->has("engine")) {
    spec.defaults.push_back("workload.engine = transformers (default for an image encoder: it "
                            "runs every one; vllm serves CLIP and SigLIP dual encoders)");
  }
  if (e.cnn) {
    spec.defaults.push_back(fmt::format(
        "one input per image: every image resized to {} x {} pixels for the {} CNN ({})",
        e.image_size,
        e.image_size,
        m.family,
        provenance_says_assumed(m, "image_size") ? "its processor's crop; config.json states no "
                                                   "image_size"
                                                 : "config.json image_size"));
    return;
  }
  spec.defaults.push_back(fmt::format(
      "{} tokens per image: every image resized to {} x {} pixels, {} x {} patches of {} "
      "pixels{} (config.json image_size, patch_size)",
      w.input_tokens,
      e.image_size,
      e.image_size,
      e.patches() > 0 ? e.image_size / e.patch : 0,
      e.patches() > 0 ? e.image_size / e.patch : 0,
      e.patch,
      e.class_token ? " and a class token" : ""));
  if (e.text > 0) {
    spec.defaults.push_back(fmt::format(
        "dual encoder: the whole checkpoint is loaded ({:.3g}M parameters, the text tower's "
        "{:.3g}M among them); images run through the vision tower only ({:.3g}M)",
        m.params_total / 1e6,
        m.params.text_tower / 1e6,
        m.params_active / 1e6));
  }
}

// An image generation workload on a diffusers pipeline (docs/spec.md, "Image generation"): the
// image size and step count default to the pipeline's own; each image is one sequence of the
// embedding path, its work a whole denoising loop; concurrency counts requests, each of
// images_per_request images. The engine is diffusers, priced with transformers' efficiencies.
void read_image_generation(Spec& spec, const std::optional<FieldReader>& workload) {
  const DiffusionPipeline& p = *spec.model.diffusion;
  auto& w = spec.workload.inference;
  ImageGeneration g;
  g.height = p.default_size;
  g.width = p.default_size;
  g.steps = p.default_steps;
  w.engine = Engine::transformers;
  // Latent positions per side must halve evenly through the UNet's levels; FLUX packs 2 x 2.
  const long long multiple =
      p.vae.scale() *
      (p.mmdit.empty() ? (1LL << (p.unet.front().levels.size() - 1)) : p.mmdit.front().patch);
  if (workload) {
    const FieldReader& r = *workload;
    r.reject_unknown({"type",
                      "height",
                      "width",
                      "steps",
                      "images_per_request",
                      "concurrency",
                      "engine",
                      "targets"});
    for (const char* key : {"height", "width"}) {
      if (const auto v = r.optional_integer(key, Range{64, 8192})) {
        if (*v % multiple != 0) {
          r.member(key).fail(fmt::format("must be a multiple of {} pixels for {} ({} pixels per "
                                         "latent position{})",
                                         multiple,
                                         p.pipeline,
                                         p.vae.scale(),
                                         p.mmdit.empty() ? ", halved at each UNet level"
                                                         : ", 2 x 2 latent patches per token"));
        }
        (key[0] == 'h' ? g.height : g.width) = *v;
      }
    }
    g.steps = r.optional_integer("steps", Range{1, 1000}).value_or(g.steps);
    g.images_per_request = r.optional_integer("images_per_request", Range{1, 64}).value_or(1);
    g.requests_in_flight = r.optional_integer("concurrency", Range{1, limits::k_max_concurrency});
    if (r.has("engine") && r.string("engine") != "diffusers") {
      r.member("engine").fail("a diffusers pipeline runs on diffusers (the only engine "
                              "rightsize plans image generation on)");
    }
    if (auto t = r.optional_object("targets")) {
      t->reject_unknown({"images_per_s", "latency_ms"});
      w.targets.requests_per_s = t->optional_number("images_per_s", Range::positive(1e9));
      if (auto ms = t->optional_number("latency_ms", Range::positive(1e9))) {
        w.targets.ttft = milliseconds(*ms);
      }
    }
  }
  const auto given = [&](const char* key) { return workload && workload->has(key); };
  if (!given("height") || !given("width")) {
    spec.defaults.push_back(fmt::format("workload image size {} x {} pixels (the size {} was "
                                        "trained at)",
                                        g.width,
                                        g.height,
                                        spec.model.name));
  }
  const bool sd3 = p.pipeline == "StableDiffusion3Pipeline";
  const bool schnell = !p.mmdit.empty() && !sd3 && !p.mmdit.front().guidance_embeds;
  if (!given("steps")) {
    spec.defaults.push_back(
        fmt::format("workload.steps = {} ({})",
                    g.steps,
                    schnell ? std::string("the FLUX.1-schnell card's num_inference_steps")
                            : fmt::format("{}'s num_inference_steps default{}",
                                          p.pipeline,
                                          p.pipeline == "FluxPipeline" ? ", FLUX.1-dev" : "")));
  }
  if (!given("engine")) {
    spec.defaults.push_back("workload.engine = diffusers (the only engine for a diffusers "
                            "pipeline; timed with transformers' efficiencies, one GPU per "
                            "replica)");
  }
  spec.defaults.push_back(
      p.classifier_free_guidance
          ? fmt::format("classifier-free guidance: the {} runs twice per step (prompt and "
                        "negative prompt as one batch of 2; {} guidance_scale {})",
                        p.denoiser_component,
                        p.pipeline,
                        sd3 ? "7.0" : "5.0")
          : fmt::format("no classifier-free guidance: one {} pass per step ({})",
                        p.denoiser_component,
                        p.mmdit.front().guidance_embeds
                            ? "FLUX.1-dev's guidance is distilled into an embedding"
                            : "FLUX.1-schnell is guidance-distilled"));
  for (const auto& t : p.text_encoders) {
    if (t.class_name == "T5EncoderModel") {
      spec.defaults.push_back(
          fmt::format("T5 prompt of {} tokens ({})",
                      t.tokens,
                      schnell ? std::string("the FLUX.1-schnell card's max_sequence_length")
                              : p.pipeline + "'s max_sequence_length default"));
    }
  }
  w.output_tokens = 0;
  w.input_tokens = p.latent_tokens(g.height, g.width);
  if (g.requests_in_flight) {
    w.concurrency = *g.requests_in_flight * g.images_per_request;
  }
  w.generation = g;
}

void read_embedding(Spec& spec, const std::optional<FieldReader>& workload) {
  if (spec.model.image) {
    read_image_embedding(spec, workload);
    return;
  }
  auto& w = spec.workload.inference;
  w.output_tokens = 0;
  w.input_tokens = k_default_embedding_tokens;
  const long long context = spec.model.max_position;
  if (workload) {
    const FieldReader& r = *workload;
    r.reject_unknown({"type",
                      "input_tokens",
                      "concurrency",
                      "engine",
                      "gpu_memory_utilization",
                      "max_num_batched_tokens",
                      "targets"});
    read_serving_engine(r, w);
    if (w.engine == Engine::tensorrt_llm) {
      r.member("engine").fail(
          "rightsize does not model TensorRT-LLM for embedding workloads: use vllm, sglang or "
          "transformers");
    }
    if (auto t = r.optional_object("targets")) {
      read_embedding_targets(*t, w.targets);
    }
    if (auto given = r.optional_integer("input_tokens", Range{1, limits::k_max_tokens})) {
      w.input_tokens = *given;
      if (context > 0 && *given > context) {
        const std::string what =
            fmt::format("{} tokens per sequence exceed {}", *given, describe_context(spec.model));
        if (!context_enforced(spec)) {
          spec.warnings.push_back(what);
          return;
        }
        r.member("input_tokens")
            .fail_plain(fmt::format("{}, {}: split the text into shorter chunks or plan a model "
                                    "with a "
                                    "longer context",
                                    what,
                                    spec.model.learned_positions > 0
                                        ? std::string("past its learned position embeddings")
                                        : fmt::format("which {} refuses", to_string(w.engine))));
      }
      return;
    }
  }
  if (context > 0 && context < w.input_tokens) {
    w.input_tokens = context;
  }
  spec.defaults.push_back(
      fmt::format("workload.input_tokens = {} (default for an embedding workload: {}-token "
                  "chunks{})",
                  w.input_tokens,
                  k_default_embedding_tokens,
                  w.input_tokens < k_default_embedding_tokens
                      ? fmt::format(", cut to {}", describe_context(spec.model))
                      : std::string()));
}

// A transcription workload (Whisper): each request's audio is cut into windows of what the
// encoder reads (max_source_positions x 2 mel frames of 10 ms: 30 s), each window one sequence:
// an encoder pass, then the decoder's task prompt and output_tokens decoded; a request's windows
// run one after another (docs/spec.md "Transcription"). Fields of other workloads are refused by
// name.
constexpr long long k_whisper_prompt_tokens = 4; // <|startoftranscript|><|lang|><|transcribe|>
                                                 // <|notimestamps|>
constexpr long long k_default_window_tokens = 100;
constexpr double k_mel_frames_per_s = 100; // WhisperFeatureExtractor: hop 160 at 16 kHz
constexpr double k_encoder_stride = 2;     // the second convolution's stride

bool plans_transcription(const ModelArch& m) {
  return m.encoder_decoder && m.mel_bins > 0 && m.encoder_positions > 0;
}

void refuse_transcription_fields(const FieldReader& r, const std::string& family) {
  static const std::vector<std::pair<const char*, const char*>> refused{
      {"input_tokens",
       "a transcription request sends audio, not a prompt: give audio_seconds (the decoder's "
       "prompt is Whisper's {} task tokens)"},
      {"images_per_request", "{} transcribes audio: a transcription workload has no images"},
      {"image_width", "{} transcribes audio: a transcription workload has no images"},
      {"image_height", "{} transcribes audio: a transcription workload has no images"}};
  for (const auto& [field, why] : refused) {
    if (r.has(field)) {
      r.member(field).fail_plain(fmt::format(fmt::runtime(why),
                                             std::string_view(field) == "input_tokens"
                                                 ? std::to_string(k_whisper_prompt_tokens)
                                                 : family));
    }
  }
}

void read_transcription_targets(const FieldReader& r, InferenceTargets& t, Transcription& a) {
  static const std::vector<std::pair<const char*, const char*>> refused{
      {"ttft_ms",
       "a transcription request's latency is latency_ms (arrival to the whole transcript); "
       "Whisper streams no first token"},
      {"tpot_ms",
       "a transcription request's latency is latency_ms (arrival to the whole "
       "transcript)"},
      {"output_tokens_per_s", "a transcription workload's throughput is audio_seconds_per_s"},
      {"requests_per_s",
       "a transcription workload's throughput is audio_seconds_per_s (requests per second x "
       "audio_seconds)"},
      {"sequences_per_s", "a transcription workload's throughput is audio_seconds_per_s"}};
  for (const auto& [field, why] : refused) {
    if (r.has(field)) {
      r.member(field).fail_plain(why);
    }
  }
  r.reject_unknown({"audio_seconds_per_s", "latency_ms"});
  a.audio_seconds_per_s = r.optional_number("audio_seconds_per_s", Range::positive(1e12));
  if (a.audio_seconds_per_s) {
    // The machinery holds windows per second.
    t.requests_per_s = *a.audio_seconds_per_s / a.audio_per_window();
  }
  if (auto ms = r.optional_number("latency_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
}

void read_transcription(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  const ModelArch& m = spec.model;
  Transcription a;
  a.window_seconds =
      static_cast<double>(m.encoder_positions) * k_encoder_stride / k_mel_frames_per_s;
  a.audio_seconds = a.window_seconds;
  w.input_tokens = k_whisper_prompt_tokens;
  w.output_tokens = k_default_window_tokens;
  // What the decoder holds: its prompt and the tokens decoded, within max_target_positions.
  const long long most = m.max_position - k_whisper_prompt_tokens;
  if (most < 1) {
    throw InputError(spec.file,
                     fmt::format("{} holds {} decoder positions, too few for its {} "
                                 "task tokens and one output token",
                                 m.family,
                                 m.max_position,
                                 k_whisper_prompt_tokens));
  }
  bool given_tokens = false;
  bool given_audio = false;
  if (workload) {
    const FieldReader& r = *workload;
    refuse_transcription_fields(r, m.family);
    r.reject_unknown({"type",
                      "audio_seconds",
                      "output_tokens",
                      "concurrency",
                      "engine",
                      "gpu_memory_utilization",
                      "max_num_batched_tokens",
                      "targets"});
    read_serving_engine(r, w);
    if (w.engine == Engine::tensorrt_llm || w.engine == Engine::sglang) {
      r.member("engine").fail(
          w.engine == Engine::sglang
              ? "rightsize models Whisper transcription on vllm and transformers (how SGLang "
                "holds Whisper's cross-attention keys and values is not modelled)"
              : "rightsize models Whisper transcription on vllm and transformers (TensorRT-LLM "
                "runs Whisper through its own example runtime, which rightsize does not model)");
    }
    if (auto s = r.optional_number("audio_seconds", Range::positive(1e6))) {
      a.audio_seconds = *s;
      given_audio = true;
    }
    if (r.has("output_tokens")) {
      const long long n = r.integer("output_tokens", Range{1, limits::k_max_tokens});
      if (n > most) {
        r.member("output_tokens")
            .fail_plain(fmt::format("{} output tokens per {:g} s window exceed what {}'s decoder "
                                    "holds: {} positions (max_target_positions) less its {} task "
                                    "tokens, at most {}",
                                    n,
                                    a.window_seconds,
                                    m.family,
                                    m.max_position,
                                    k_whisper_prompt_tokens,
                                    most));
      }
      w.output_tokens = n;
      given_tokens = true;
    }
    a.windows = static_cast<long long>(std::ceil(a.audio_seconds / a.window_seconds));
    a.requests_in_flight = w.concurrency.value_or(0);
    if (auto t = r.optional_object("targets")) {
      read_transcription_targets(*t, w.targets, a);
    }
  }
  a.windows = static_cast<long long>(std::ceil(a.audio_seconds / a.window_seconds));
  if (!given_audio) {
    spec.defaults.push_back(fmt::format(
        "workload.audio_seconds = {:g} (default for a transcription workload: one window)",
        a.audio_seconds));
  }
  if (!given_tokens) {
    spec.defaults.push_back(fmt::format(
        "workload.output_tokens = {} per {:g} s window (default: about 150 spoken words a "
        "minute at 1.3 tokens a word, with punctuation and the end token)",
        w.output_tokens,
        a.window_seconds));
  }
  if (a.windows > 1) {
    spec.defaults.push_back(fmt::format("{:g} s of audio per request: {} windows of {:g} s, "
                                        "transcribed one after another",
                                        a.audio_seconds,
                                        a.windows,
                                        a.window_seconds));
  }
  w.transcription = a;
}

// A text-to-text workload (T5, mT5, UMT5: translation, summarization): the generation workload
// as a request sees it (input_tokens in, output_tokens out), mapped onto the sequences the serving
// machinery runs as a Whisper window is (docs/spec.md "Text-to-text generation"): the input is
// what the encoder reads, once per request (encoder_positions of the spec's model), and the
// decoder's prompt is its one start token (decoder_start_token_id, T5's pad token), after which
// it decodes output_tokens. T5's relative position buckets set no length limit; its
// pre-training read 512 tokens (Raffel et al. 2020, section 3.1.2), past which a warning says
// the quality is unmeasured.
constexpr long long k_decoder_start_tokens = 1;
constexpr long long k_text_to_text_input = 512;  // T5's pre-training input length
constexpr long long k_text_to_text_output = 128; // about 100 words: a summary's length

bool plans_text_to_text(const ModelArch& m) {
  return m.encoder_decoder && !plans_transcription(m);
}

// The engines that run T5 today (sources checked 2026-11; docs/spec.md "Text-to-text
// generation"): transformers. Why each other one is refused.
std::string text_to_text_engine_refusal(const ModelArch& m, Engine e) {
  const char* why = "";
  switch (e) {
  case Engine::vllm:
    why = "vLLM has no T5 model: its registry lists no T5ForConditionalGeneration and dropped "
          "every encoder-decoder but Whisper with its V0 engine "
          "(vllm/model_executor/models/registry.py)";
    break;
  case Engine::sglang:
    why = "SGLang has no T5 model (python/sglang/srt/models)";
    break;
  case Engine::tensorrt_llm:
    why = "TensorRT-LLM runs T5 as separate encoder and decoder engines, splitting its KV cache "
          "between self- and cross-attention by cross_kv_cache_fraction (0.5 by default), "
          "which rightsize does not model";
    break;
  case Engine::transformers:
    return {};
  }
  return fmt::format(
      "rightsize plans {} text-to-text generation on transformers only ({})", m.family, why);
}

void read_text_to_text(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  w.input_tokens = k_text_to_text_input;
  w.output_tokens = k_text_to_text_output;
  w.engine = Engine::transformers;
  bool input_given = false;
  bool output_given = false;
  bool engine_given = false;
  if (workload) {
    const FieldReader& r = *workload;
    for (const char* key : {"images_per_request", "image_width", "image_height"}) {
      if (r.has(key)) {
        r.member(key).fail_plain(
            fmt::format("{} reads text: a text-to-text workload has no images", spec.model.family));
      }
    }
    read_inference(r, w);
    const std::string refusal = text_to_text_engine_refusal(spec.model, w.engine);
    if (!refusal.empty()) {
      r.member("engine").fail(refusal);
    }
    input_given = r.has("input_tokens");
    output_given = r.has("output_tokens");
    engine_given = r.has("engine");
  }
  if (!input_given) {
    spec.defaults.push_back(fmt::format("workload.input_tokens = {} (default for a text-to-text "
                                        "model: T5's pre-training input length)",
                                        w.input_tokens));
  }
  if (!output_given) {
    spec.defaults.push_back(fmt::format("workload.output_tokens = {} (default for a text-to-text "
                                        "model: a summary of about 100 words)",
                                        w.output_tokens));
  }
  if (!engine_given) {
    spec.defaults.push_back(fmt::format("workload.engine = transformers (default for {}: vLLM "
                                        "and SGLang do not run T5)",
                                        spec.model.family));
  }
  if (w.input_tokens > k_text_to_text_input) {
    spec.warnings.push_back(fmt::format(
        "{} input tokens: T5 was pre-trained on {}-token inputs and its relative position "
        "buckets set no limit; memory and time are planned, quality past {} is unmeasured",
        w.input_tokens,
        k_text_to_text_input,
        k_text_to_text_input));
  }
  // The encoder reads the input; the decoder starts from its start token.
  spec.model.encoder_positions = w.input_tokens;
  w.input_tokens = k_decoder_start_tokens;
}
} // namespace

std::string InferenceWorkload::describe_input() const {
  if (images_per_request == 0) {
    return fmt::format("{} in", input_tokens);
  }
  return fmt::format("{} in + {} image{} ({} tokens)",
                     input_tokens,
                     images_per_request,
                     images_per_request == 1 ? "" : "s",
                     image_tokens);
}

namespace {

// An encoder-only model is planned as an embedding workload only: it does not generate, and
// training is derived for decoders. A text-to-text encoder-decoder (T5) is planned as
// generation only, Whisper as transcription only. An image encoder, likewise, is planned as an
// embedding workload of images.
std::string encoder_refusal(const ModelArch& m) {
  if (plans_transcription(m)) {
    return fmt::format("{} is a speech-recognition model: plan it as a transcription workload "
                       "(\"type\": \"transcription\")",
                       m.family);
  }
  if (m.image) {
    return fmt::format("{} is an image encoder (image embeddings, classification): it does not "
                       "generate and rightsize does not plan its training; plan it as an "
                       "embedding workload (\"type\": \"embedding\"), one forward pass per image",
                       m.family);
  }
  if (m.encoder_decoder) {
    return fmt::format("{} is a text-to-text encoder-decoder model (translation, summarization): "
                       "rightsize plans its generation (\"type\": \"inference\"), not its "
                       "training, which is not modelled (the encoder's and cross-attention's "
                       "activations and FLOPs)",
                       m.family);
  }
  return fmt::format("{} is an encoder-only model (embeddings, reranking, classification): it "
                     "does not generate and rightsize does not plan its training; plan it as an "
                     "embedding workload (\"type\": \"embedding\")",
                     m.family);
}

} // namespace

Spec parse_spec(const nlohmann::json& json, const std::string& file, SpecUse use) {
  const FieldReader root(json, file);
  if (!json.is_object()) {
    root.fail("a spec must be a JSON object");
  }
  const fs::path dir = fs::path(file).parent_path();
  Spec spec;
  spec.file = file;

  if (!json.contains("model") && looks_like_hf_config(json)) {
    // A bare Hugging Face config.json: the model is the file, the workload takes defaults.
    spec.bare_hf_config = true;
    if (fs::path(file).filename() == "model_index.json") {
      // A diffusers pipeline: image generation with the pipeline's defaults.
      spec.model = read_diffusers_pipeline(file);
      spec.name = spec.model.name;
      spec.workload.type = WorkloadType::image_generation;
      spec.defaults.push_back("input is a diffusers model_index.json: image generation workload "
                              "with defaults");
      read_image_generation(spec, std::nullopt);
      spec.defaults.push_back("workload.concurrency absent: offline, the largest batch that fits");
      read_precision(root, spec);
      return spec;
    }
    spec.model = parse_hf_config(json, file);
    std::error_code ec;
    if (fs::exists(dir / "hf_quant_config.json", ec) && !spec.model.quantization.quantized()) {
      const auto q = (dir / "hf_quant_config.json").string();
      spec.model.quantization =
          parse_hf_quant_config(detail::load_json_file(q), q, spec.model.torch_dtype);
    }
    read_safetensors(dir.empty() ? "." : dir.string(), spec.model);
    spec.name = spec.model.name;
    note_assumed_context(spec);
    if (plans_transcription(spec.model)) {
      spec.workload.type = WorkloadType::transcription;
      spec.defaults.push_back("input is a bare config.json of a speech-recognition model: "
                              "transcription workload with defaults");
      read_transcription(spec, std::nullopt);
    } else if (spec.model.encoder_decoder && use == SpecUse::describe) {
      // `rightsize model` describes the checkpoint: no input length to read into the encoder.
      spec.defaults.push_back("input is a bare config.json of an encoder-decoder model: no "
                              "workload");
    } else if (spec.model.encoder_decoder) {
      spec.workload.type = WorkloadType::inference;
      spec.defaults.push_back("input is a bare config.json of a text-to-text encoder-decoder "
                              "model: generation workload with defaults");
      read_text_to_text(spec, std::nullopt);
    } else if (spec.model.encoder_only) {
      spec.workload.type = WorkloadType::embedding;
      spec.defaults.push_back(spec.model.image ? "input is a bare config.json of an image "
                                                 "encoder: image embedding workload with defaults"
                                               : "input is a bare config.json of an "
                                                 "encoder-only model: embedding workload with "
                                                 "defaults");
      read_embedding(spec, std::nullopt);
    } else {
      spec.workload.type = WorkloadType::inference;
      spec.defaults.push_back("input is a bare config.json: inference workload with defaults");
      read_images(spec, std::nullopt);
      fit_inference_lengths(spec, std::nullopt);
    }
    spec.defaults.push_back("workload.concurrency absent: offline, the largest batch that fits");
    if (!spec.model.encoder_decoder && !spec.model.image) {
      spec.defaults.push_back("workload.engine = vllm (default)");
    }
    read_precision(root, spec);
    spec.warnings.insert(
        spec.warnings.begin(), spec.model.warnings.begin(), spec.model.warnings.end());
    return spec;
  }
  if (!json.contains("model")) {
    root.fail_plain("neither a rightsize spec (no \"model\" field) nor a Hugging Face config.json "
                    "(no \"model_type\" or \"architectures\")");
  }

  root.reject_unknown({"schema_version",
                       "name",
                       "description",
                       "model",
                       "precision",
                       "workload",
                       "constraints",
                       "deployment"});
  if (root.has("schema_version")) {
    const auto v = root.integer("schema_version", Range::positive(1e6));
    if (v != 1) {
      root.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
    }
  }
  spec.name = root.optional_string("name").value_or(fs::path(file).stem().string());

  const auto model_field = root.member("model");
  if (model_field.json().is_string()) {
    spec.model = load_model_from_path(model_field, dir);
  } else if (model_field.json().is_object()) {
    if (looks_like_hf_config(model_field.json())) {
      spec.model = parse_hf_config(model_field.json(), file, "/model");
    } else {
      spec.model = parse_generic_model(model_field.json(), file, "/model");
    }
  } else {
    model_field.fail("must be a path to a config.json, an inline config object or a generic "
                     "model description");
  }

  note_assumed_context(spec);
  const auto w = root.optional_object("workload");
  const bool transcribes = plans_transcription(spec.model);
  const bool text_to_text = plans_text_to_text(spec.model);
  if (w) {
    spec.workload.type = w->choice("type", k_workload_type_names);
    if (spec.model.diffusion.has_value() != spec.workload.is_image_generation()) {
      w->member("type").fail_plain(
          spec.model.diffusion
              ? fmt::format("a diffusers pipeline ({}) is planned as image_generation only",
                            spec.model.family)
              : fmt::format("an image_generation workload needs a diffusers pipeline (a folder "
                            "with model_index.json), got {}",
                            spec.model.family));
    }
    if (!spec.model.diffusion && ((spec.model.encoder_only && !spec.workload.is_embedding()) ||
                                  (transcribes && !spec.workload.is_transcription()))) {
      w->member("type").fail_plain(encoder_refusal(spec.model));
    }
    if (spec.workload.is_transcription() && !transcribes) {
      w->member("type").fail_plain(fmt::format(
          "a transcription workload needs a speech-recognition model (Whisper), got {}{}",
          spec.model.family,
          spec.model.encoder_decoder ? " (a text-to-text encoder-decoder)" : ""));
    }
    if (text_to_text && spec.workload.type != WorkloadType::inference) {
      w->member("type").fail_plain(encoder_refusal(spec.model));
    }
  } else if (spec.model.diffusion) {
    spec.workload.type = WorkloadType::image_generation;
    spec.defaults.push_back("workload absent: image generation with defaults (a diffusers "
                            "pipeline)");
  } else if (transcribes) {
    spec.workload.type = WorkloadType::transcription;
    spec.defaults.push_back(
        "workload absent: transcription with defaults (a speech-recognition model)");
  } else if (spec.model.encoder_only) {
    spec.workload.type = WorkloadType::embedding;
    spec.defaults.push_back(spec.model.image
                                ? "workload absent: image embeddings with defaults (an image "
                                  "encoder)"
                                : "workload absent: embedding with default lengths (an "
                                  "encoder-only model)");
  } else {
    spec.defaults.push_back("workload absent: inference with default lengths");
  }
  if (spec.workload.is_image_generation()) {
    read_image_generation(spec, w);
  } else if (spec.workload.is_embedding()) {
    read_embedding(spec, w);
  } else if (spec.workload.is_transcription()) {
    read_transcription(spec, w);
  } else if (text_to_text) {
    read_text_to_text(spec, w);
  } else if (spec.workload.type == WorkloadType::inference) {
    if (w) {
      read_inference(*w, spec.workload.inference);
    }
    read_images(spec, w);
    fit_inference_lengths(spec, w);
  } else {
    if (spec.model.ssm_layers > 0) {
      // The activation memory and FLOPs of training are derived per attention + MLP layer
      // (Korthikanti et al. 2022); a Mamba or linear-attention layer's are not modelled.
      w->member("type").fail(fmt::format(
          "training a model with {} layers ({}, {} of {} layers) is not modelled; plan its "
          "inference",
          spec.model.ssm.kind == RecurrentKind::gated_deltanet ? "linear-attention" : "Mamba",
          spec.model.family,
          spec.model.ssm_layers,
          spec.model.layers));
    }
    read_training(*w, spec.workload.type, spec.workload.training, spec.defaults);
  }
  read_precision(root, spec);
  if (const auto c = root.optional_object("constraints")) {
    read_constraints(*c, spec.constraints);
  }
  if (const auto d = root.optional_object("deployment")) {
    read_deployment(*d, spec.deployment);
  }
  // The model's warnings first, then those of the workload.
  spec.warnings.insert(
      spec.warnings.begin(), spec.model.warnings.begin(), spec.model.warnings.end());
  warn_long_training(spec);
  return spec;
}

Spec load_spec(const std::string& path, SpecUse use) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    return parse_spec(detail::load_json_file(path), path, use);
  }
  // A model folder, read as the spec's "model" field reads one: its config.json or
  // model_index.json as a bare config.
  const auto file = model_file_in(path);
  if (!file) {
    throw InputError(path,
                     "a directory with neither config.json nor model_index.json: give a spec "
                     "file, a Hugging Face model folder (config.json) or a diffusers pipeline "
                     "folder (model_index.json)");
  }
  const std::string name = file->lexically_normal().string();
  return parse_spec(detail::load_json_file(name), name, use);
}

} // namespace rightsize
