// The sections of an estimate's JSON that a plan's candidates repeat (render/estimate.hpp), and
// the bands beside them.

#include "estimate_parts.hpp"

#include <rightsize/core/json_writer.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <fmt/format.h>

#include <cmath>

namespace rightsize {

using detail::BandFields;
using detail::JsonWriter;
using detail::write_band;

// Members are written in the order nlohmann's std::map keeps keys (JsonWriter's contract).

namespace {

Band in_ms(const Band& b) {
  return Band{b.low * 1e3, b.high * 1e3};
}

Band in_hours(const Band& b) {
  return Band{b.low / 3600.0, b.high / 3600.0};
}

// The training time band in hours, when the time to train is known.
std::optional<Band> time_to_train_band(const EstimateReport& r, const TrainingBands& b) {
  if (r.training && r.training->time_to_train) {
    return in_hours(b.time_to_train);
  }
  return std::nullopt;
}

} // namespace

void detail::write_band(JsonWriter& w, const std::optional<Band>& b) {
  if (!b) {
    w.null();
    return;
  }
  w.begin_array().value(b->low).value(b->high).end_array();
}

void detail::write_bands(JsonWriter& w, const EstimateReport& r, BandFields fields) {
  const bool all = fields == BandFields::all;
  const auto* const inference =
      all || fields == BandFields::inference ? &r.inference_bands : nullptr;
  const auto* const training = all || fields == BandFields::training ? &r.training_bands : nullptr;
  w.begin_object();
  if (r.training_bands) {
    w.key("basis").begin_object().member("step_time", r.training_bands->step_ratio.basis);
    w.end_object();
    if (r.training_bands->step_ratio.unsized) {
      w.key("unsized").begin_object().member("step_time", true);
      w.member("lines", r.training_bands->step_ratio.lines).end_object();
    }
  } else if (r.inference_bands) {
    w.key("basis").begin_object();
    w.member("tpot", r.inference_bands->tpot_ratio.basis)
        .member("ttft", r.inference_bands->ttft_ratio.basis);
    w.end_object();
  }
  if (all) {
    w.member("coverage", r.band_coverage).key("memory_total_bytes");
    write_band(w, r.memory_band);
  }
  if (inference != nullptr && *inference) {
    w.key("output_tokens_per_s");
    write_band(w, (*inference)->output_tokens_per_s);
    w.key("requests_per_s");
    write_band(w, (*inference)->requests_per_s);
  }
  if (training != nullptr && *training) {
    const auto& b = **training;
    w.key("step_time_s");
    write_band(w, b.step);
    w.key("time_to_train_hours");
    write_band(w, time_to_train_band(r, b));
    w.key("tokens_per_s");
    write_band(w, b.tokens_per_s);
  }
  if (inference != nullptr && *inference) {
    w.key("tpot_ms");
    write_band(w, in_ms((*inference)->tpot));
    w.key("ttft_ms");
    write_band(w, in_ms((*inference)->ttft));
  }
  w.end_object();
}

void write_parallelism_json(JsonWriter& w, const EstimateReport& r) {
  const auto& p = r.parallelism;
  w.begin_object()
      .member("attention_dp", p.attention_dp)
      .member("cp", p.cp)
      .member("dp", p.dp * r.replicas)
      .member("ep", p.ep)
      .member("pp", p.pp)
      .member("tp", p.tp)
      .end_object();
}

void write_memory_json(JsonWriter& w, const EstimateReport& r) {
  const auto& m = r.memory;
  w.begin_object();
  if (r.memory_band) {
    w.key("bands").begin_object().key("total_bytes");
    write_band(w, r.memory_band);
    w.end_object();
  }
  w.member("budget_bytes", m.budget.si()).member("capacity_bytes", m.capacity.si());
  if (m.draft_weights.si() > 0) { // speculative decoding: of weights_bytes, the drafter's
    w.member("draft_weights_bytes", m.draft_weights.si());
  }
  w.member("headroom_bytes", (m.budget - m.per_gpu.total()).si());
  if (m.kv_draft.si() > 0) { // of kv_cache_bytes: the drafter's keys and values
    w.member("kv_cache_draft_bytes", m.kv_draft.si());
  }
  if (m.kv_prefix_cache.si() > 0) { // of kv_cache_bytes: cached prefixes beside the sequences
    w.member("kv_cache_prefix_bytes", m.kv_prefix_cache.si());
  }
  w.key("per_gpu")
      .begin_object()
      .member("activations_bytes", m.per_gpu.activations.si())
      .member("gradients_bytes", m.per_gpu.gradients.si())
      .member("kv_cache_bytes", m.per_gpu.kv_cache.si())
      .member("optimizer_bytes", m.per_gpu.optimizer.si())
      .member("overhead_bytes", m.per_gpu.overhead.si())
      .member("total_bytes", m.per_gpu.total().si())
      .member("weights_bytes", m.per_gpu.weights.si())
      .end_object();
  w.end_object();
}

// An embedding workload's serving figures, under their own names: a sequence's latency, sequences
// and tokens embedded per second, one forward pass of the batch.
void write_embedding_json(JsonWriter& w, const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& perf = *r.inference;
  // An image encoder's sequence is an image: images_per_s for sequences_per_s (keys in byte
  // order, as JsonWriter wants them).
  const WorkloadUnits u = workload_units(r.spec);
  const bool images = u.rate == RateUnit::images;
  w.begin_object();
  if (const auto& b = r.inference_bands) {
    w.key("bands").begin_object();
    w.key("basis").begin_object().member("latency", b->ttft_ratio.basis).end_object();
    if (images) {
      w.key("images_per_s");
      write_band(w, b->requests_per_s);
    }
    w.key("latency_ms");
    write_band(w, Band{b->ttft.low * 1e3, b->ttft.high * 1e3});
    if (!images) {
      w.key("sequences_per_s");
      write_band(w, b->requests_per_s);
    }
    w.end_object();
  }
  w.member("batch", m.batch)
      .member("compute_precision", std::string(to_string(perf.compute_precision)))
      .member("engine", engine_name(r.spec));
  if (images) {
    const auto& g = r.spec.workload.inference.generation;
    w.member("flops_per_image",
             g ? r.spec.model.diffusion->image_flops(g->height, g->width, g->steps)
               : image_flops(r.spec.model))
        .member("images_per_s", perf.requests_per_s);
  }
  // Little's law, per replica: the requests this rate and latency keep in flight, most of them in
  // the engine's per-request work while `batch` are in a pass.
  w.member("in_flight", perf.requests_per_s / r.replicas * perf.ttft.si())
      .member("kv_cache_per_sequence_bytes", m.kv_per_sequence.si())
      .member("latency_ms", to_ms(perf.ttft));
  // A pipeline's tokens are the denoiser's latent positions (FLUX's and SD3's 2 x 2 patches):
  // named as such, and no rate of them, which no one buys.
  const bool latent = u.tokens == TokenRate::latent;
  if (latent) {
    w.member("latent_tokens_per_image", r.spec.workload.inference.input_tokens);
  }
  w.member("max_batch", m.max_batch).member("pass_ms", to_ms(perf.prefill));
  if (images && !latent) {
    w.member("tokens_per_image", r.spec.workload.inference.input_tokens);
  } else if (!images) {
    w.member("sequences_per_s", perf.requests_per_s);
  }
  if (!latent) {
    w.member("tokens_per_s", perf.prefill_tokens_per_s);
  }
  w.end_object();
}

// A transcription workload's serving figures (docs/model.md "Transcription workloads"): audio
// seconds per second and a request's latency first, then the windows (the sequences) and what one
// holds: its decoder tokens' KV cache and the cross-attention's keys and values of its encoder
// output.
void write_transcription_json(JsonWriter& w, const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& perf = *r.inference;
  const auto& inf = r.spec.workload.inference;
  const Transcription& a = *inf.transcription;
  const double per_window = a.audio_per_window();
  w.begin_object()
      .member("audio_seconds_per_s", perf.audio_seconds_per_s)
      .member("audio_seconds_per_window", per_window);
  if (const auto& b = r.inference_bands) {
    w.key("bands").begin_object();
    w.key("audio_seconds_per_s");
    write_band(w, Band{b->requests_per_s.low * per_window, b->requests_per_s.high * per_window});
    w.key("basis").begin_object().member("latency", b->ttft_ratio.basis).end_object();
    w.key("latency_ms");
    write_band(w, Band{b->ttft.low * 1e3, b->ttft.high * 1e3});
    w.end_object();
  }
  w.member("compute_precision", std::string(to_string(perf.compute_precision)))
      .member("cross_attention_kv_per_window_bytes", m.kv_fixed_per_sequence.si())
      .member("decode_step_ms", to_ms(perf.decode_step))
      .member("encoder_pass_ms", to_ms(perf.prefill))
      .member("engine", to_string(inf.engine))
      .member("kv_cache_per_window_bytes", m.kv_per_sequence.si())
      .member("latency_ms", to_ms(perf.ttft))
      .member("max_windows_in_flight", m.max_batch)
      .member("output_tokens_per_s", perf.output_tokens_per_s)
      .member("output_tokens_per_window", inf.output_tokens)
      .member("requests_per_s", perf.requests_per_s / static_cast<double>(a.windows))
      .member("tpot_ms", to_ms(perf.tpot))
      .member("windows_in_flight", m.batch)
      .member("windows_per_request", a.windows)
      .member("windows_per_s", perf.requests_per_s)
      .end_object();
}

namespace {

// A latency's statistics over the simulated requests, in milliseconds.
void write_latency_stats(JsonWriter& w, const LatencyPercentiles& s) {
  w.begin_object()
      .member("mean", to_ms(s.mean))
      .member("p50", to_ms(s.p50))
      .member("p90", to_ms(s.p90))
      .member("p99", to_ms(s.p99))
      .end_object();
}

// The simulated distribution (docs/model.md, "Latency distributions"): each latency's mean and
// percentiles, and the run they are of.
void write_percentiles_json(JsonWriter& w, const SimulatedLatency& s) {
  w.begin_object();
  w.key("e2e_ms");
  write_latency_stats(w, s.e2e);
  w.member("peak_running", s.peak_running)
      .member("preemptions", s.preemptions)
      .member("requests", s.requests);
  w.key("tpot_ms");
  write_latency_stats(w, s.tpot);
  w.key("ttft_ms");
  write_latency_stats(w, s.ttft);
  w.end_object();
}

} // namespace

void write_inference_json(JsonWriter& w, const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& perf = r.inference;
  if (perf && perf->prefill_only) {
    write_embedding_json(w, r);
    return;
  }
  if (perf && r.spec.workload.inference.transcription) {
    write_transcription_json(w, r);
    return;
  }
  w.begin_object();
  if (r.inference_bands) {
    w.key("bands");
    write_bands(w, r, BandFields::inference);
  }
  w.member("batch", m.batch)
      .member("compute_precision",
              perf ? std::string(to_string(perf->compute_precision)) : std::string())
      .member("decode_step_ms", perf ? to_ms(perf->decode_step) : 0.0)
      .member("engine", to_string(r.spec.workload.inference.engine))
      .member("kv_cache_per_sequence_bytes", m.kv_per_sequence.si())
      .member("kv_cache_per_token_bytes", m.kv_per_token.si())
      .member("kv_cache_pool_bytes", m.kv_pool.si())
      // The statistic ttft_ms, tpot_ms and the rates are: steady-state means (docs/model.md).
      .member("latency_statistic", "mean");
  if (const auto& inf = r.spec.workload.inference; !inf.fixed_lengths()) {
    // Drawn lengths (a range or a histogram): the means speed runs at, the longest memory holds.
    w.key("lengths")
        .begin_object()
        .member("bins", static_cast<long long>(inf.length_histogram.size()))
        .member("longest_request_tokens", inf.longest_request())
        .member("mean_input_tokens", inf.mean_prompt_tokens())
        .member("mean_output_tokens", inf.mean_output_tokens())
        .end_object();
  }
  w.member("max_batch", m.max_batch)
      .member("max_context_tokens", m.max_context)
      .member("output_tokens_per_s", perf ? perf->output_tokens_per_s : 0.0);
  if (perf && perf->simulated) {
    w.key("percentiles");
    write_percentiles_json(w, *perf->simulated);
  }
  w.member("prefill_ms", perf ? to_ms(perf->prefill) : 0.0)
      .member("prefill_tokens_per_s", perf ? perf->prefill_tokens_per_s : 0.0);
  const auto& inf = r.spec.workload.inference;
  if (inf.prefix_cache_hit_rate > 0) {
    w.member("prefix_cache_hit_rate", inf.prefix_cache_hit_rate);
  }
  w.member("requests_per_s", perf ? perf->requests_per_s : 0.0);
  if (const auto& s = inf.speculative) {
    w.key("speculative")
        .begin_object()
        .member("acceptance_rate", s->acceptance_rate)
        .member("draft_step_ms", perf ? to_ms(perf->draft_step) : 0.0)
        .member("draft_tokens", s->draft_tokens)
        .member("method", to_string(s->method))
        .member("proposed_acceptance", s->proposed_acceptance())
        .member("tokens_per_step", s->tokens_per_step())
        .end_object();
  }
  w.member("tpot_ms", perf ? to_ms(perf->tpot) : 0.0)
      .member("ttft_ms", perf ? to_ms(perf->ttft) : 0.0)
      .end_object();
}

void write_training_json(JsonWriter& w, const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& t = r.training;
  const auto& spec = r.spec.workload.training;
  w.begin_object();
  if (r.training_bands) {
    w.key("bands");
    write_bands(w, r, BandFields::training);
  }
  w.key("breakdown_s");
  if (t) {
    w.begin_object()
        .member("compute", t->compute.si())
        .member("context_parallel", t->context_parallel_communication.si())
        .member("data_parallel_exposed", t->data_parallel_exposed.si())
        .member("dequantization", t->dequantization.si())
        .member("pipeline_bubble", t->pipeline_bubble.si())
        .member("tensor_parallel", t->tensor_parallel_communication.si())
        .end_object();
  } else {
    w.null();
  }
  w.member("bytes_per_trainable_param", m.bytes_per_param)
      .member("global_batch", spec.global_batch)
      .member("meets_deadline", t ? t->meets_deadline : std::nullopt)
      .member("mfu", t ? t->mfu : 0.0)
      .member("micro_batch", m.batch)
      .member("precision_recipe", m.precision_recipe)
      .member("recompute", to_string(spec.recompute))
      .member("seq_len", spec.seq_len)
      .member("step_time_s", t ? t->step.si() : 0.0)
      .key("time_to_train_hours");
  if (t && t->time_to_train) {
    w.value(to_hours(*t->time_to_train));
  } else {
    w.null();
  }
  w.member("tokens_per_s", t ? t->tokens_per_s : 0.0)
      .member("trainable_params", m.trainable_params)
      .member("zero_stage", spec.zero_stage)
      .end_object();
}

void write_precision_json(JsonWriter& w, const Spec& spec) {
  w.begin_object()
      .member("kv_cache", to_string(spec.precision.kv_cache))
      .member("weights", to_string(spec.precision.weights))
      .end_object();
}

void write_calibration_json(JsonWriter& w, const Calibration& c) {
  w.begin_object().member("basis", c.text).member("measured", c.measured).end_object();
}

std::optional<Bottleneck> bottleneck(const EstimateReport& r) {
  if (r.inference) {
    return Bottleneck{r.inference->bottleneck, r.inference->explanation};
  }
  if (r.training) {
    return Bottleneck{r.training->bottleneck, r.training->explanation};
  }
  return std::nullopt;
}

void write_disaggregation_json(JsonWriter& w,
                               const Gpu& gpu,
                               const DisaggregatedPerformance& d,
                               std::string_view why) {
  const ServingPool& q = d.layout.decode;
  w.begin_object()
      .key("decode")
      .begin_object()
      .member("attention_dp", q.layout.attention_dp)
      .member("batch", d.decode_batch)
      .member("ep", q.layout.ep)
      .member("gpu", gpu.name)
      .member("gpus_per_replica", q.layout.gpus())
      .member("max_batch", d.decode_max_batch)
      .member("replicas", q.replicas)
      .member("tp", q.layout.tp)
      .end_object();
  w.member("kv_link", d.kv_link)
      .member("kv_transfer_bytes", d.kv_transfer_bytes.si())
      .member("kv_transfer_ms", to_ms(d.kv_transfer));
  w.key("limited_by");
  if (d.limited_by.empty()) {
    w.null();
  } else {
    w.value(d.limited_by);
  }
  const ServingPool& p = d.layout.prefill;
  w.key("prefill")
      .begin_object()
      .member("attention_dp", p.layout.attention_dp)
      .member("ep", p.layout.ep)
      .member("gpu", gpu.name)
      .member("gpus_per_replica", p.layout.gpus())
      .member("prefill_ms", to_ms(d.prefill))
      .member("replicas", p.replicas)
      .member("tp", p.layout.tp)
      .member("utilization", d.prefill_utilization)
      .member("wait_ms", to_ms(d.prefill_wait))
      .end_object();
  w.key("why");
  if (why.empty()) {
    w.null();
  } else {
    w.value(why);
  }
  w.end_object();
}

std::string disaggregation_text(const DisaggregatedPerformance& d) {
  const ServingPool& p = d.layout.prefill;
  const ServingPool& q = d.layout.decode;
  const auto layout = [](const Parallelism& l) {
    std::string s = fmt::format("TP{}", l.tp);
    if (l.ep > 1) {
      s += fmt::format(" EP{}", l.ep);
    }
    if (l.attention_dp > 1) {
      s += fmt::format(" attention DP{}", l.attention_dp);
    }
    return s;
  };
  return fmt::format("{} prefill replica{} ({}, {:.0f}% busy) + {} decode replica{} ({}, {:.0f} "
                     "sequences each on average, at most {}); each prompt's KV cache, {} a GPU, "
                     "crosses {} in {}{}",
                     p.replicas,
                     p.replicas == 1 ? "" : "s",
                     layout(p.layout),
                     100.0 * d.prefill_utilization,
                     q.replicas,
                     q.replicas == 1 ? "" : "s",
                     layout(q.layout),
                     d.decode_batch,
                     d.decode_max_batch,
                     format_bytes(d.kv_transfer_bytes),
                     d.kv_link == "network" ? "the network" : d.kv_link,
                     format_seconds(d.kv_transfer),
                     d.limited_by.empty()
                         ? std::string()
                         : fmt::format("; the {} pool is full and requests queue", d.limited_by));
}

} // namespace rightsize
