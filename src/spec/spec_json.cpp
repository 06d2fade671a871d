// The normalized spec as JSON: the data behind `rightsize model --format json` and
// `rightsize validate --format json`, and the canonical form `check` digests.

#include <rightsize/spec/spec_json.hpp>

#include <fmt/format.h>

#include <optional>

namespace rightsize {

namespace {

nlohmann::json optional_seconds_ms(const std::optional<Seconds>& s) {
  return s ? nlohmann::json(to_ms(*s)) : nlohmann::json(nullptr);
}

// A latency target as a spec writes it: milliseconds for the mean alone, else an object of its
// statistics; nullopt when there is none.
std::optional<nlohmann::json>
latency_target_json(const std::optional<Seconds>& mean,
                    const std::vector<PercentileTarget>& percentiles) {
  if (percentiles.empty()) {
    return mean ? std::optional<nlohmann::json>(to_ms(*mean)) : std::nullopt;
  }
  nlohmann::json j = nlohmann::json::object();
  if (mean) {
    j["mean"] = to_ms(*mean);
  }
  for (const PercentileTarget& p : percentiles) {
    j[statistic_name(p.percentile)] = to_ms(p.limit);
  }
  return j;
}

nlohmann::json workload_to_json(const Spec& spec) {
  const auto& w = spec.workload;
  nlohmann::json j{{"type", std::string(to_string(w.type))}};
  if (const auto& g = w.inference.generation; g && spec.generates_images()) {
    const auto& i = w.inference;
    j["height"] = g->height;
    j["width"] = g->width;
    j["steps"] = g->steps;
    j["images_per_request"] = g->images_per_request;
    j["classifier_free_guidance"] = spec.model.diffusion->classifier_free_guidance;
    j["latent_tokens_per_image"] = i.input_tokens;
    j["concurrency"] =
        g->requests_in_flight ? nlohmann::json(*g->requests_in_flight) : nlohmann::json(nullptr);
    j["engine"] = engine_name(spec);
    nlohmann::json t = nlohmann::json::object();
    if (i.targets.requests_per_s) {
      t["images_per_s"] = *i.targets.requests_per_s;
    }
    if (i.targets.ttft) {
      t["latency_ms"] = optional_seconds_ms(i.targets.ttft);
    }
    j["targets"] = t;
  } else if (w.is_embedding()) {
    const auto& i = w.inference;
    const bool images = spec.embeds_images();
    j[images ? "tokens_per_image" : "input_tokens"] = i.input_tokens;
    j["concurrency"] = i.concurrency ? nlohmann::json(*i.concurrency) : nlohmann::json(nullptr);
    j["engine"] = std::string(to_string(i.engine));
    nlohmann::json t = nlohmann::json::object();
    if (i.targets.requests_per_s) {
      t[images ? "images_per_s" : "sequences_per_s"] = *i.targets.requests_per_s;
    }
    if (i.targets.ttft) {
      t["latency_ms"] = optional_seconds_ms(i.targets.ttft);
    }
    j["targets"] = t;
  } else if (w.is_transcription() && w.inference.transcription) {
    const auto& i = w.inference;
    const auto& a = *i.transcription;
    j["audio_seconds"] = a.audio_seconds;
    j["windows_per_request"] = a.windows;
    j["window_seconds"] = a.window_seconds;
    j["output_tokens"] = i.output_tokens;
    j["concurrency"] =
        a.requests_in_flight > 0 ? nlohmann::json(a.requests_in_flight) : nlohmann::json(nullptr);
    j["engine"] = std::string(to_string(i.engine));
    nlohmann::json t = nlohmann::json::object();
    if (a.audio_seconds_per_s) {
      t["audio_seconds_per_s"] = *a.audio_seconds_per_s;
    }
    if (i.targets.ttft) {
      t["latency_ms"] = optional_seconds_ms(i.targets.ttft);
    }
    j["targets"] = t;
  } else if (w.type == WorkloadType::inference) {
    const auto& i = w.inference;
    // A text-to-text model's input is what its encoder reads; its decoder starts from one token.
    j["input_tokens"] = spec.model.encoder_decoder ? spec.model.encoder_positions : i.input_tokens;
    j["output_tokens"] = i.output_tokens;
    j["concurrency"] = i.concurrency ? nlohmann::json(*i.concurrency) : nlohmann::json(nullptr);
    j["engine"] = std::string(to_string(i.engine));
    if (i.images_per_request > 0) { // absent otherwise: text-only specs keep their digest
      j["images_per_request"] = i.images_per_request;
      j["image_width"] = i.image_width;
      j["image_height"] = i.image_height;
      j["image_tokens"] = i.image_tokens;
    }
    if (i.speculative) { // absent otherwise, as the images: other specs keep their digest
      const SpeculativeDecoding& s = *i.speculative;
      nlohmann::json drafting = {{"method", std::string(to_string(s.method))},
                                 {"draft_tokens", s.draft_tokens},
                                 {"acceptance_rate", s.acceptance_rate},
                                 {"tokens_per_step", s.tokens_per_step()}};
      if (s.draft_model) {
        drafting["draft_model"] = *s.draft_model;
      }
      j["speculative"] = drafting;
    }
    if (i.prefix_cache_hit_rate > 0) {
      j["prefix_cache_hit_rate"] = i.prefix_cache_hit_rate;
    }
    // Drawn lengths, absent when fixed: other specs keep their digest.
    if (i.length_low_ratio < 1.0) {
      j["length_low_ratio"] = i.length_low_ratio;
    }
    if (!i.length_histogram.empty()) {
      nlohmann::json bins = nlohmann::json::array();
      for (const LengthBin& b : i.length_histogram) {
        bins.push_back({{"input_tokens", b.input_tokens},
                        {"output_tokens", b.output_tokens},
                        {"share", b.share}});
      }
      j["length_histogram"] = bins;
    }
    if (i.arrivals !=
        ArrivalKind::closed) { // absent for a closed loop: other specs keep their digest
      j["arrivals"] = {{"process", std::string(to_string(i.arrivals))}};
      if (i.arrivals == ArrivalKind::gamma) {
        j["arrivals"]["burstiness"] = i.burstiness;
      }
    }
    nlohmann::json t = nlohmann::json::object();
    if (i.targets.output_tokens_per_s) {
      t["output_tokens_per_s"] = *i.targets.output_tokens_per_s;
    }
    if (auto ttft = latency_target_json(i.targets.ttft, i.targets.ttft_percentiles)) {
      t["ttft_ms"] = *ttft;
    }
    if (auto tpot = latency_target_json(i.targets.tpot, i.targets.tpot_percentiles)) {
      t["tpot_ms"] = *tpot;
    }
    if (i.targets.requests_per_s) {
      t["requests_per_s"] = *i.targets.requests_per_s;
    }
    j["targets"] = t;
  } else {
    const auto& t = w.training;
    j["seq_len"] = t.seq_len;
    j["global_batch"] = t.global_batch;
    j["micro_batch"] = t.micro_batch;
    j["optimizer"] = std::string(to_string(t.optimizer));
    j["zero_stage"] = t.zero_stage;
    j["recompute"] = std::string(to_string(t.recompute));
    j["sequence_parallel"] = t.sequence_parallel;
    j["pipeline_interleave"] = t.pipeline_interleave;
    j["tokens"] = t.tokens ? nlohmann::json(*t.tokens) : nlohmann::json(nullptr);
    j["deadline_hours"] =
        t.deadline ? nlohmann::json(to_hours(*t.deadline)) : nlohmann::json(nullptr);
    if (w.type == WorkloadType::finetune) {
      j["method"] = std::string(to_string(t.method));
      if (t.method != FinetuneMethod::full) {
        j["lora_rank"] = t.lora_rank;
        j["lora_targets"] = t.lora_targets;
      }
    }
  }
  return j;
}

} // namespace

namespace {

// The layers by kind. A model without a transformer stack (a CNN, a diffusers pipeline) has
// always been written here as `layers` blocks of attention and MLP: the digests keep those bytes.
nlohmann::json layer_types_to_json(const ModelArch& m) {
  const bool blocks = m.stack.empty();
  const bool linear_attention = m.stack.linear_attention() > 0;
  return {{"attention", blocks ? m.layers : m.attention_layers()},
          {linear_attention ? "linear_attention" : "mamba", m.recurrent_layers()},
          {"mlp", blocks ? m.layers : m.mlp_layers()}};
}

nlohmann::json state_space_to_json(const ModelArch& m) {
  if (m.recurrent_layers() == 0) {
    return nullptr;
  }
  nlohmann::json j{
      {"version", m.ssm.version},
      {"inner", m.ssm.inner},
      {"state", m.ssm.state},
      {"conv_kernel", m.ssm.conv_kernel},
      {"heads", m.ssm.heads},
      {"groups", m.ssm.groups},
      {"dt_rank", m.ssm.dt_rank},
      // Falcon-H1: each recurrent mixer runs beside a layer's attention.
      {"beside_attention", m.stack.side_by_side() > 0},
      {"state_elements_per_layer", m.ssm.conv_state_elements() + m.ssm.ssm_state_elements()}};
  // Linear attention only, so that the JSON (and the digests) of Mamba hybrids stay as they were.
  if (m.stack.linear_attention() > 0) {
    j["kind"] = "gated_deltanet";
  }
  return j;
}

nlohmann::json vision_to_json(const Spec& spec) {
  const auto& v = spec.model.vision;
  if (!v) {
    return nullptr;
  }
  return {{"kind", v->kind},
          {"layers", v->layers},
          {"hidden_size", v->hidden},
          {"intermediate_size", v->intermediate},
          {"patch_size", v->patch},
          {"image_size", v->image_size},
          {"merge", v->merge},
          {"tokens_per_image",
           v->tokens(spec.workload.inference.image_width, spec.workload.inference.image_height)},
          {"params", v->params}};
}

nlohmann::json quantization_to_json(const Spec& spec) {
  const Quantization& q = spec.weights;
  return {{"method", q.method},
          {"bits_per_weight", q.bits_per_weight},
          {"high_precision_dtype", std::string(to_string(q.high_precision))},
          {"attention_quantized", q.quantized() && q.attention_quantized},
          {"mlp_quantized", q.quantized() && q.mlp_quantized},
          {"source", q.source}};
}

nlohmann::json params_to_json(const ParamBreakdown& p) {
  return {{"embedding", p.embedding},
          {"lm_head", p.lm_head},
          {"attention", p.attention},
          {"dense_mlp", p.dense_mlp},
          {"routed_experts", p.routed_experts},
          {"shared_experts", p.shared_experts},
          {"router", p.router},
          {"norms", p.norms},
          {"state_space", p.state_space},
          {"vision", p.vision}};
}

// What every model has: its shape, its layers by kind, its weights and where each number came
// from.
nlohmann::json architecture_to_json(const Spec& spec) {
  const ModelArch& m = spec.model;
  const auto w = weight_bytes(m, spec.weights);
  nlohmann::json provenance = nlohmann::json::object();
  for (const auto& [field, where] : m.provenance) {
    provenance[field] = where;
  }
  nlohmann::json by_dtype = nlohmann::json::object();
  for (const auto& [dtype, n] : m.safetensors_params_by_dtype) {
    by_dtype[dtype] = n;
  }
  return {
      {"schema_version", 1},
      {"name", m.name},
      {"family", m.family},
      {"params_total", m.params_total},
      {"params_active", m.params_active},
      {"param_source", m.param_source},
      {"layers", m.layers},
      {"hidden_size", m.hidden},
      {"intermediate_size", m.intermediate},
      {"heads", m.heads},
      {"kv_heads", m.kv_heads},
      {"head_dim", m.head_dim},
      {"v_head_dim", m.v_head_dim},
      {"vocab_size", m.vocab},
      {"max_position_embeddings", m.max_position},
      {"attention", std::string(to_string(m.attention))},
      {"kv_lora_rank", m.kv_lora_rank},
      {"qk_rope_head_dim", m.qk_rope_head_dim},
      {"gated_mlp", m.gated_mlp},
      {"tied_embeddings", m.tied_embeddings},
      {"experts", m.experts},
      {"experts_active", m.experts_active},
      {"shared_experts", m.shared_experts},
      {"moe_intermediate_size", m.moe_intermediate},
      {"moe_layers", m.moe_layers()},
      {"sliding_window", m.sliding_window},
      {"sliding_window_layers", m.local_layers()},
      {"vision", vision_to_json(spec)},
      {"layer_types", layer_types_to_json(m)},
      {"state_space", state_space_to_json(m)},
      {"dtype", std::string(to_string(m.torch_dtype))},
      {"weight_dtype", std::string(to_string(spec.precision.weights))},
      {"weight_bytes", w.total().si()},
      {"bytes_per_weight", w.total().si() / m.params_total},
      {"quantization", quantization_to_json(spec)},
      {"params_breakdown", params_to_json(m.params)},
      {"safetensors_bytes",
       m.safetensors_bytes ? nlohmann::json(m.safetensors_bytes->si()) : nlohmann::json(nullptr)},
      {"safetensors_elements_by_dtype", by_dtype},
      {"provenance", provenance},
      {"warnings", m.warnings},
  };
}

nlohmann::json cnn_to_json(const ModelArch& m) {
  const ConvNet& c = *m.image->cnn;
  auto stages = nlohmann::json::array();
  for (const ConvStage& s : c.stages) {
    stages.push_back({{"depth", s.depth},
                      {"channels", s.channels},
                      {"stride", s.stride},
                      {"feature_map_side", s.side}});
  }
  return {{"kind", m.image->kind},
          {"image_size", m.image->image_size},
          {"num_channels", m.image->channels},
          {"layer_type", c.layer_type},
          {"embedding_size", c.embedding},
          {"stages", stages},
          {"convolutions", c.convolutions.size()},
          {"batch_norms", c.batch_norms},
          {"flops_per_image", c.flops()},
          {"peak_activation_elements_per_image", c.peak_activation_elements},
          {"tokens_per_image", m.image->tokens()}};
}

nlohmann::json image_encoder_to_json(const ImageEncoder& e) {
  return {{"kind", e.kind},
          {"image_size", e.image_size},
          {"patch_size", e.patch},
          {"num_channels", e.channels},
          {"class_token", e.class_token},
          {"patches_per_image", e.patches()},
          {"tokens_per_image", e.tokens()}};
}

nlohmann::json diffusion_to_json(const DiffusionPipeline& d) {
  auto components = nlohmann::json::array();
  components.push_back({{"component", d.denoiser_component},
                        {"class", d.denoiser_class},
                        {"params", d.denoiser_params()}});
  for (const auto& t : d.text_encoders) {
    components.push_back({{"component", t.component},
                          {"class", t.class_name},
                          {"params", t.params()},
                          {"tokens_per_prompt", t.tokens}});
  }
  components.push_back(
      {{"component", "vae"}, {"class", "AutoencoderKL"}, {"params", d.vae.params()}});
  return {{"pipeline", d.pipeline},
          {"components", components},
          {"classifier_free_guidance", d.classifier_free_guidance},
          {"default_size", d.default_size},
          {"default_steps", d.default_steps},
          {"vae_scale_factor", d.vae.scale()}};
}

// The fields of one kind of model only (an encoder, an image encoder, a pipeline, an
// encoder-decoder), so that the JSON (and the digests) of the others stay as they were.
void add_kind_fields(const ModelArch& m, nlohmann::json& j) {
  if (m.stack.linear_attention() > 0) {
    j["attention_output_gate"] = m.attention_gate;
  }
  if (m.encoder_only) {
    j["encoder_only"] = true;
    j["token_types"] = m.token_types;
    j["params_breakdown"]["pooler"] = m.params.pooler;
  }
  if (m.image && m.image->cnn) {
    j["image_encoder"] = cnn_to_json(m);
    j["params_breakdown"]["convolution"] = m.params.convolution;
  } else if (m.image) {
    j["image_encoder"] = image_encoder_to_json(*m.image);
    j["params_breakdown"]["text_tower"] = m.params.text_tower;
  }
  if (m.diffusion) {
    j["diffusion"] = diffusion_to_json(*m.diffusion);
    j["params_breakdown"]["denoiser"] = m.params.denoiser;
    j["params_breakdown"]["text_encoders"] = m.params.text_encoders;
    j["params_breakdown"]["autoencoder"] = m.params.autoencoder;
  }
  if (m.encoder_decoder) {
    j["encoder_decoder"] = true;
    j["decoder_layers"] = m.decoder_layers;
    j["relative_attention_buckets"] = m.relative_buckets;
    j["relative_attention_bias_tables"] = m.relative_bias_tables;
    j["num_mel_bins"] = m.mel_bins;
    j["encoder_positions"] = m.encoder_positions;
    j["params_breakdown"]["cross_attention"] = m.params.cross_attention;
    j["params_breakdown"]["audio"] = m.params.audio;
  }
}

} // namespace

// Field names and values are what `check` digests (lock files record them): a change here is a
// change of every lock's digest.
nlohmann::json model_to_json(const Spec& spec) {
  nlohmann::json j = architecture_to_json(spec);
  add_kind_fields(spec.model, j);
  return j;
}

nlohmann::json validation_to_json(const Spec& spec) {
  // An embedding or image generation workload keeps no KV cache: no format to name.
  const auto kv_cache = spec.keeps_kv_cache()
                            ? nlohmann::json(std::string(to_string(spec.precision.kv_cache)))
                            : nlohmann::json(nullptr);
  return nlohmann::json{{"schema_version", 1},
                        {"valid", true},
                        {"file", spec.file},
                        {"name", spec.name},
                        {"bare_hf_config", spec.bare_hf_config},
                        {"model", spec.model.name},
                        {"params_total", spec.model.params_total},
                        {"precision",
                         {{"weights", std::string(to_string(spec.precision.weights))},
                          {"kv_cache", kv_cache},
                          {"activations", std::string(to_string(spec.precision.activations))}}},
                        {"workload", workload_to_json(spec)},
                        {"defaults", spec.defaults},
                        {"warnings", spec.warnings}};
}

} // namespace rightsize
