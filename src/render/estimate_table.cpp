// An estimate as a table for people (render_estimate_table).

#include "estimate_parts.hpp"
#include "plan_text.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace rightsize {

namespace {

using detail::target_summary;
using detail::target_value;

std::string gib_text(Bytes b) {
  return fmt::format("{:.1f} GiB", to_gib(b));
}

// A bar of `width` cells: filled for `part` of `whole`.
std::string bar(Bytes part, Bytes whole, int width) {
  const double share = whole.si() > 0 ? std::clamp(part / whole, 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(std::lround(share * width));
  return std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.');
}

// A band in one unit chosen by its high end: "339-612 ms", "1.2-2.31 s", "9.1-10.2 days".
std::string seconds_band(const Band& b) {
  const auto in = [&](double scale, const char* unit) {
    return fmt::format("{:.3g}-{:.3g} {}", b.low * scale, b.high * scale, unit);
  };
  if (b.high < 1.0) {
    return in(1e3, "ms");
  }
  if (b.high < 3600.0) { // a band from seconds to minutes reads best in seconds: 7.38-432 s
    return in(1.0, "s");
  }
  if (b.high < 48.0 * 3600.0) {
    return in(1.0 / 3600.0, "h");
  }
  return in(1.0 / 86400.0, "days");
}

// Whole units, or two significant digits under 10 (an image generation band of 0.44-4.0
// images/s read "0-4").
std::string rate_band(const Band& b) {
  if (b.low > 0.0 && b.low < 10.0) {
    return fmt::format("{:.2g}-{:.2g}", b.low, b.high);
  }
  return fmt::format("{:.0f}-{:.0f}", b.low, b.high);
}

std::string weights_text(const Spec& s) {
  return s.weights.quantized() ? s.weights.method : std::string(to_string(s.precision.weights));
}

std::string training_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& m = r.memory;
  const auto& w = s.workload.training;
  const std::string kind = s.workload.type == WorkloadType::finetune
                               ? fmt::format("{} fine-tuning", to_string(w.method))
                               : std::string("training");
  return fmt::format("{} on {}, seq {} x micro-batch {}, {} recipe ({:.1f} B per trainable "
                     "parameter), ZeRO {}, recompute {}",
                     kind,
                     to_string(w.framework),
                     w.seq_len,
                     m.batch,
                     m.precision_recipe,
                     m.bytes_per_param,
                     w.zero_stage,
                     to_string(w.recompute));
}

std::string generation_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& i = s.workload.inference;
  return fmt::format("inference on {}, {}, weights {}, KV cache {}{}",
                     to_string(i.engine),
                     i.describe_lengths(),
                     weights_text(s),
                     to_string(s.precision.kv_cache),
                     decoding_features(i));
}

// A text-to-text model's input is what its encoder reads (its decoder starts from one token).
std::string text_to_text_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& i = s.workload.inference;
  return fmt::format(
      "text-to-text generation on {}, {} in (encoder) + {} out tokens, weights {}, KV cache {}",
      to_string(i.engine),
      s.model.encoder_positions,
      i.output_tokens,
      weights_text(s),
      to_string(s.precision.kv_cache));
}

std::string text_embedding_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& i = s.workload.inference;
  return fmt::format("embedding on {}, {} tokens per sequence, weights {}{}",
                     to_string(i.engine),
                     i.input_tokens,
                     weights_text(s),
                     s.model.encoder_only
                         ? std::string()
                         : fmt::format(", KV cache {}", to_string(s.precision.kv_cache)));
}

std::string image_embedding_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& i = s.workload.inference;
  return fmt::format("image embeddings on {}, {} x {} pixels, {}, weights {}",
                     to_string(i.engine),
                     s.model.image->image_size,
                     s.model.image->image_size,
                     s.model.image->cnn ? std::string("a CNN (one input per image)")
                                        : fmt::format("{} tokens per image", i.input_tokens),
                     weights_text(s));
}

std::string image_generation_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& g = s.workload.inference.generation;
  if (!g) {
    return generation_workload(r);
  }
  return fmt::format("image generation on diffusers, {} x {} pixels, {} steps{}, weights {}",
                     g->width,
                     g->height,
                     g->steps,
                     s.model.diffusion->classifier_free_guidance ? " (x2: guidance)" : "",
                     to_string(s.precision.weights));
}

std::string transcription_workload(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& i = s.workload.inference;
  const auto& a = i.transcription;
  if (!a) {
    return generation_workload(r);
  }
  return fmt::format(
      "transcription on {}, {:g} s of audio per request ({} x {:g} s window{}), {} output tokens "
      "per window, weights {}, KV cache {}",
      to_string(i.engine),
      a->audio_seconds,
      a->windows,
      a->window_seconds,
      a->windows == 1 ? "" : "s",
      i.output_tokens,
      weights_text(s),
      to_string(s.precision.kv_cache));
}

// Each kind's workload line, in WorkloadKind's order.
using WorkloadSentence = std::string (*)(const EstimateReport&);
constexpr std::array<WorkloadSentence, 8> k_workload_lines{{
    generation_workload,       // text_generation
    text_to_text_workload,     // text_to_text
    text_embedding_workload,   // text_embedding
    image_embedding_workload,  // image_embedding
    image_generation_workload, // image_generation
    transcription_workload,    // transcription
    training_workload,         // training
    training_workload,         // finetune
}};

std::string workload_line(const EstimateReport& r) {
  return k_workload_lines[static_cast<std::size_t>(workload_kind(r.spec))](r);
}

// "8b: llama on 2 x H100 (tp 2, pp 1, dp 1, ep 1)", or with replicas "on 8 x H100: 4 replicas
// of tp 2, pp 1, ep 1 (2 GPUs each)".
void render_header(const EstimateReport& r, std::ostream& out) {
  const auto& p = r.parallelism;
  const auto& s = r.spec;
  if (r.disaggregation != nullptr) {
    const DisaggregatedLayout& l = r.disaggregation->layout;
    out << fmt::format("{}: {} on {} x {}, disaggregated: {} prefill + {} decode replica{} of tp "
                       "{}, pp {}, ep {} ({} GPU{} each)\n",
                       s.name,
                       s.model.name,
                       l.gpus(),
                       r.gpu.name,
                       l.prefill.replicas,
                       l.decode.replicas,
                       l.decode.replicas == 1 ? "" : "s",
                       p.tp,
                       p.pp,
                       p.ep,
                       p.gpus(),
                       p.gpus() == 1 ? "" : "s");
  } else if (r.replicas > 1) {
    out << fmt::format("{}: {} on {} x {}: {} replicas of tp {}, pp {}, ep {} ({} GPU{} each)\n",
                       s.name,
                       s.model.name,
                       p.gpus() * r.replicas,
                       r.gpu.name,
                       r.replicas,
                       p.tp,
                       p.pp,
                       p.ep,
                       p.gpus(),
                       p.gpus() == 1 ? "" : "s");
  } else {
    out << fmt::format(
        "{}: {} on {} x {} (tp {}, {}pp {}, dp {}, ep {}{})\n",
        s.name,
        s.model.name,
        p.gpus(),
        r.gpu.name,
        p.tp,
        p.cp > 1 ? fmt::format("cp {}, ", p.cp) : std::string(),
        p.pp,
        p.dp,
        p.ep,
        p.attention_dp > 1
            ? fmt::format(", attention dp {} of tp {}", p.attention_dp, p.attention_tp())
            : std::string());
  }
  out << "  " << workload_line(r) << "\n\n";
}

void render_memory(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  out << fmt::format("memory per {}GPU: {}{} of {} usable ({} capacity)\n",
                     r.disaggregation != nullptr ? "decode " : "",
                     gib_text(m.per_gpu.total()),
                     r.memory_band ? fmt::format(" (band {:.1f}-{:.1f} GiB)",
                                                 to_gib(Bytes(r.memory_band->low)),
                                                 to_gib(Bytes(r.memory_band->high)))
                                   : std::string(),
                     gib_text(m.budget),
                     gib_text(m.capacity));
  const auto row = [&](const char* name, Bytes b) {
    if (b.si() <= 0) {
      return;
    }
    // Under 0.05 GiB in its own unit: a CNN's 48.8 MiB of weights is not "0.0 GiB".
    out << fmt::format("  {:<12} {:>10}  {}\n",
                       name,
                       to_gib(b) < 0.05 ? format_bytes(b) : gib_text(b),
                       bar(b, m.capacity, 40));
  };
  row("weights", m.per_gpu.weights);
  row(" drafter", m.draft_weights); // of the weights: speculative decoding's drafter
  row("kv cache", m.per_gpu.kv_cache);
  row(" prefixes", m.kv_prefix_cache); // of the KV cache: cached prefixes held beside sequences
  row(" drafter kv", m.kv_draft);
  row("activations", m.per_gpu.activations);
  row("gradients", m.per_gpu.gradients);
  row("optimizer", m.per_gpu.optimizer);
  row("overhead", m.per_gpu.overhead);
  out << fmt::format("  {:<12} {:>10}  {}  {:.0f}% of capacity\n",
                     "total",
                     gib_text(m.per_gpu.total()),
                     bar(m.per_gpu.total(), m.capacity, 40),
                     100.0 * (m.per_gpu.total() / m.capacity));
  out << '\n';
}

void render_training(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  out << fmt::format(
      "fits: {} ({} headroom)\n", m.fits ? "yes" : "NO", gib_text(m.budget - m.per_gpu.total()));
  if (!r.training) {
    return;
  }
  const auto& t = *r.training;
  // Context parallel and QLoRA's dequantization are named only where the layout or method has
  // them; the parts always add up to the step.
  out << fmt::format(
      "\nspeed: step {} (compute {}, pipeline bubble {}, tensor-parallel {}, "
      "{}exposed data-parallel {}{})\n",
      format_seconds(t.step),
      format_seconds(t.compute),
      format_seconds(t.pipeline_bubble),
      format_seconds(t.tensor_parallel_communication),
      r.parallelism.cp > 1
          ? fmt::format("context-parallel {}, ", format_seconds(t.context_parallel_communication))
          : std::string(),
      format_seconds(t.data_parallel_exposed),
      t.dequantization.si() > 0
          ? fmt::format(", 4-bit dequantization {}", format_seconds(t.dequantization))
          : std::string());
  out << fmt::format("  {:.0f} tokens/s, MFU {:.1f}%", t.tokens_per_s, 100.0 * t.mfu);
  if (t.time_to_train) {
    out << fmt::format(", {} to train", format_seconds(*t.time_to_train));
  }
  out << '\n';
  if (const auto& b = r.training_bands) {
    out << fmt::format("  {}: step {}, {} tokens/s",
                       b->step_ratio.unsized ? std::string("band (unsized)")
                                             : fmt::format("{:.0f}% band", 100.0 * r.band_coverage),
                       seconds_band(b->step),
                       rate_band(b->tokens_per_s));
    if (t.time_to_train) {
      out << fmt::format(", {} to train", seconds_band(b->time_to_train));
    }
    out << '\n';
    if (b->step_ratio.unsized) {
      out << fmt::format("  training step time: band unsized, {} measured lines (their envelope, "
                         "not an {:.0f}% band)\n",
                         b->step_ratio.lines,
                         100.0 * r.band_coverage);
    }
  }
  out << "  " << t.explanation << '\n';
}

// An embedding workload's speed: latency, sequences and tokens per second, one pass's parts.
void render_embedding_speed(const EstimateReport& r, std::ostream& out) {
  const auto& i = *r.inference;
  const double n = r.replicas;
  const WorkloadUnits u = workload_units(r.spec);
  const std::string_view unit = u.items;
  const auto& generation = r.spec.workload.inference.generation;
  const auto& image = r.spec.model.image;
  const bool cnn = image && image->cnn;
  // Image generation runs at a few images per second: two decimals. A pipeline's tokens are
  // latent positions, and a CNN has none (one input per image): no tokens/s for either.
  const bool tokens = !generation && !cnn;
  out << fmt::format("\nspeed ({} math){}: latency {}, {:.{}f} {}/s{}\n",
                     to_string(i.compute_precision),
                     r.replicas > 1 ? ", per replica" : "",
                     format_seconds(i.ttft),
                     i.requests_per_s / n,
                     generation ? 2 : 1,
                     unit,
                     tokens ? fmt::format(", {:.0f} tokens/s", i.prefill_tokens_per_s / n)
                            : std::string());
  if (r.replicas > 1) {
    out << fmt::format("  all {} replicas: {:.{}f} {}/s{}\n",
                       r.replicas,
                       i.requests_per_s,
                       generation ? 2 : 1,
                       unit,
                       tokens ? fmt::format(", {:.0f} tokens/s", i.prefill_tokens_per_s)
                              : std::string());
  }
  if (const auto& b = r.inference_bands) {
    out << fmt::format("  {:.0f}% band: latency {}, {} {}/s{} ({})\n",
                       100.0 * r.band_coverage,
                       seconds_band(b->ttft),
                       rate_band(b->requests_per_s),
                       unit,
                       r.replicas > 1 ? " over all replicas" : "",
                       b->ttft_ratio.basis);
  }
  if (generation) {
    out << fmt::format("  one pass of {} image{} ({} denoising steps and the decode): {}\n",
                       i.concurrency,
                       i.concurrency == 1 ? "" : "s",
                       generation->steps,
                       format_seconds(i.prefill));
  } else if (cnn) {
    out << fmt::format("  one forward pass of {} image{} ({} x {} pixels): {}\n",
                       i.concurrency,
                       i.concurrency == 1 ? "" : "s",
                       image->image_size,
                       image->image_size,
                       format_seconds(i.prefill));
  } else {
    out << fmt::format("  one forward pass of {} {} x {} tokens: {}\n",
                       i.concurrency,
                       i.concurrency == 1 ? u.item : unit,
                       r.spec.workload.inference.input_tokens,
                       format_seconds(i.prefill));
  }
  // Little's law: what this rate and latency keep in flight. The passes run back to back while
  // the engine's per-request work (HTTP, tokenization, pooling) overlaps them, so most requests
  // in flight are in that work, not in a pass (docs/model.md, "Embedding workloads").
  const double in_flight = i.requests_per_s / n * i.ttft.si();
  if (in_flight > static_cast<double>(i.concurrency) * 1.05) {
    out << fmt::format("  in flight at this rate{}: {:.0f} requests ({} in each pass, the rest "
                       "in the engine's per-request work of {}, which overlaps the passes)\n",
                       r.replicas > 1 ? ", per replica" : "",
                       in_flight,
                       i.concurrency,
                       format_seconds(i.ttft - i.prefill));
  }
  out << "  " << i.explanation << '\n';
}

// A transcription workload: windows (the sequences) and what each holds, then audio seconds per
// second, a request's latency and a window's encoder pass and decode.
void render_transcription(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  const Transcription& a = *r.spec.workload.inference.transcription;
  out << fmt::format("fits: {}: {} windows in flight{}; at most {} fit ({} of KV cache each: {} "
                     "of cross-attention keys and values of the encoder output, {} per decoder "
                     "token)\n",
                     m.fits ? "yes" : "NO",
                     m.batch,
                     r.replicas > 1 ? " per replica" : "",
                     m.max_batch,
                     format_bytes(m.kv_per_sequence),
                     format_bytes(m.kv_fixed_per_sequence),
                     format_bytes(m.kv_per_token));
  if (!r.inference || r.inference->concurrency <= 0) {
    return;
  }
  const auto& i = *r.inference;
  const double n = r.replicas;
  out << fmt::format("\nspeed ({} math){}: {:.0f} audio seconds/s ({:.0f}x real time), latency "
                     "{} per {:g} s request, {:.2f} requests/s, {:.0f} output tokens/s\n",
                     to_string(i.compute_precision),
                     r.replicas > 1 ? ", per replica" : "",
                     i.audio_seconds_per_s / n,
                     i.audio_seconds_per_s / n,
                     format_seconds(i.ttft),
                     a.audio_seconds,
                     i.requests_per_s / n / static_cast<double>(a.windows),
                     i.output_tokens_per_s / n);
  if (r.replicas > 1) {
    out << fmt::format(
        "  all {} replicas: {:.0f} audio seconds/s\n", r.replicas, i.audio_seconds_per_s);
  }
  if (const auto& b = r.inference_bands) {
    const double k = a.audio_per_window();
    out << fmt::format("  {:.0f}% band: latency {}, {:.0f}-{:.0f} audio seconds/s{} ({})\n",
                       100.0 * r.band_coverage,
                       seconds_band(b->ttft),
                       b->requests_per_s.low * k,
                       b->requests_per_s.high * k,
                       r.replicas > 1 ? " over all replicas" : "",
                       b->tpot_ratio.basis);
  }
  out << fmt::format("  per window: encoder pass {} alone; one decode step of {} windows {} "
                     "(memory {}, compute {}, all-reduce {}, fixed {}); {} per output token\n",
                     format_seconds(i.prefill),
                     i.concurrency,
                     format_seconds(i.decode_step),
                     format_seconds(i.decode_memory),
                     format_seconds(i.decode_compute),
                     format_seconds(i.decode_communication),
                     format_seconds(i.decode_fixed),
                     format_seconds(i.tpot));
  out << "  " << i.explanation << '\n';
}

void render_inference(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  if (r.spec.workload.inference.transcription) {
    render_transcription(r, out);
    return;
  }
  const WorkloadUnits u = workload_units(r.spec);
  const bool images = u.rate == RateUnit::images;
  const auto unit = [images](long long count) {
    return count == 1 ? (images ? "image" : "sequence") : (images ? "images" : "sequences");
  };
  // A pass takes its sequences (or images) together; more wait in the engine's per-request work
  // (render_embedding_speed says how many).
  const std::string held = u.one_pass() ? fmt::format("{} {} per pass", m.batch, unit(m.batch))
                                        : fmt::format("{} concurrent {}", m.batch, unit(m.batch));
  // Asked more than it runs at once: the rest queue (the speed section says for how long).
  const long long asked = r.inference ? r.inference->offered : m.batch;
  const std::string queued =
      asked > m.batch ? fmt::format(" of the {} asked, the rest queue", asked) : std::string();
  const std::string sequences =
      r.disaggregation != nullptr
          ? fmt::format("per decode replica: {} of the {} in flight ({} decode replicas; the "
                        "rest wait for or run their prefill)",
                        held,
                        asked,
                        r.disaggregation->layout.decode.replicas)
      : r.replicas > 1 ? fmt::format("per replica: {}{} ({} over {} replicas)",
                                     held,
                                     queued,
                                     m.batch * r.replicas,
                                     r.replicas)
                       : held + queued;
  if (u.tokens == TokenRate::latent) {
    out << fmt::format("fits: {}{} {}; one pass takes at most {} {} (no KV cache: the pipeline "
                       "denoises and decodes a batch of images together)\n",
                       m.fits ? "yes" : "NO",
                       r.replicas > 1 ? "," : ":",
                       sequences,
                       m.max_batch,
                       unit(m.max_batch));
  } else if (u.one_pass() && m.kv_per_token.si() <= 0) {
    const bool cnn = r.spec.model.image && r.spec.model.image->cnn;
    out << fmt::format("fits: {}{} {}; one forward pass takes at most {} {} (no KV cache: {} "
                       "each whole {} in one pass)\n",
                       m.fits ? "yes" : "NO",
                       r.replicas > 1 ? "," : ":",
                       sequences,
                       m.max_batch,
                       unit(m.max_batch),
                       cnn ? "the CNN reads" : "the encoder attends over",
                       u.item);
  } else {
    out << fmt::format("fits: {}{} {}; at most {} fit ({} of KV cache each, {} per token)\n",
                       m.fits ? "yes" : "NO",
                       r.replicas > 1 ? "," : ":",
                       sequences,
                       m.max_batch,
                       format_bytes(m.kv_per_sequence),
                       format_bytes(m.kv_per_token));
    if (!u.encoder_pass.empty()) {
      // Text to text: the input is the encoder's, held as cross-attention state beside the
      // decoder's own tokens.
      out << fmt::format("longest decode that fits after the {}-token input: {} decoder tokens\n",
                         r.spec.model.encoder_positions,
                         m.max_context);
    } else {
      out << fmt::format("longest single sequence that fits: {} tokens\n", m.max_context);
    }
  }
  if (!r.inference || r.inference->concurrency <= 0) {
    return;
  }
  const auto& i = *r.inference;
  const double n = r.replicas;
  if (i.prefill_only) {
    render_embedding_speed(r, out);
    return;
  }
  // Disaggregated, the two pools serve each request together: no per-replica rate.
  const bool split = r.disaggregation != nullptr;
  out << fmt::format("\nspeed ({} math){}: TTFT {}, TPOT {}, {:.0f} output tokens/s, {:.2f} "
                     "requests/s\n",
                     to_string(i.compute_precision),
                     split            ? ", both pools"
                     : r.replicas > 1 ? ", per replica"
                                      : "",
                     format_seconds(i.ttft),
                     format_seconds(i.tpot),
                     split ? i.output_tokens_per_s : i.output_tokens_per_s / n,
                     split ? i.requests_per_s : i.requests_per_s / n);
  if (r.replicas > 1 && !split) {
    out << fmt::format("  all {} replicas: {:.0f} output tokens/s, {:.2f} requests/s\n",
                       r.replicas,
                       i.output_tokens_per_s,
                       i.requests_per_s);
  }
  if (const auto& b = r.inference_bands) {
    out << fmt::format("  {:.0f}% band: TTFT {}, TPOT {}, {} output tokens/s{} ({})\n",
                       100.0 * r.band_coverage,
                       seconds_band(b->ttft),
                       seconds_band(b->tpot),
                       rate_band(b->output_tokens_per_s),
                       r.replicas > 1 ? " over all replicas" : "",
                       b->tpot_ratio.basis);
  }
  if (i.simulated && r.spec.workload.inference.targets.names_percentiles()) {
    out << "  " << latency_distribution_text(*i.simulated) << '\n';
  }
  if (r.disaggregation != nullptr) {
    out << "  disaggregated: " << disaggregation_text(*r.disaggregation) << '\n';
  }
  out << fmt::format(
      "  one prefill {} alone; one decode step {} (memory {}, compute {}, "
      "all-reduce {}, fixed {}){}\n",
      format_seconds(i.prefill),
      format_seconds(i.decode_step),
      format_seconds(i.decode_memory),
      format_seconds(i.decode_compute),
      format_seconds(i.decode_communication),
      format_seconds(i.decode_fixed),
      r.disaggregation != nullptr
          ? std::string("; decode steps never wait for a prefill")
          : fmt::format("; prefills take {:.0f}% of the time", 100.0 * i.prefill_share));
  if (i.tokens_per_step > 1) {
    out << fmt::format("  speculative decoding: each step drafts for {} and verifies, {:.2f} "
                       "tokens per step per sequence: TPOT is the step over {:.2f}\n",
                       format_seconds(i.draft_step),
                       i.tokens_per_step,
                       i.tokens_per_step);
  }
  out << "  " << i.explanation << '\n';
}

// Each target against the value it is judged at, and the point estimate beside it.
void render_targets(const EstimateReport& r, std::ostream& out) {
  if (r.targets.empty()) {
    return;
  }
  const bool any_band = std::any_of(
      r.targets.begin(), r.targets.end(), [](const TargetCheck& t) { return t.band.has_value(); });
  if (any_band && r.judged_at_band_edge) {
    out << fmt::format("\ntargets (at the slow edge of each {:.0f}% band; --confidence point: "
                       "at the estimate):\n",
                       100.0 * r.band_coverage);
  } else if (any_band) {
    out << "\ntargets (at the estimate, --confidence point; by default at the band's slow "
           "edge):\n";
  } else {
    out << "\ntargets:\n";
  }
  for (const auto& t : r.targets) {
    out << "  " << target_summary(t, r.replicas);
    if (t.band && r.judged_at_band_edge) {
      out << fmt::format(" (estimate {})", target_value(t.target, t.predicted));
      if (t.met != t.met_at_point) {
        out << ", met at the estimate";
      }
    } else if (t.band && t.met_at_point) {
      const double edge = t.at_most ? t.band->high : t.band->low;
      const bool edge_met = t.at_most ? edge <= t.limit : edge >= t.limit;
      out << fmt::format(
          " (band's slow edge {}: {})", target_value(t.target, edge), edge_met ? "met" : "missed");
    }
    out << '\n';
  }
}

void render_cost(const EstimateReport& r, std::ostream& out) {
  if (!r.cost) {
    if (!r.cost_note.empty()) {
      out << "\ncost: " << r.cost_note << '\n';
    }
    return;
  }
  const auto& c = *r.cost;
  const int gpus = r.parallelism.gpus() * r.replicas;
  // The label is what is rented: "2 x $5.67/h AWS g5.12xlarge (4 GPUs, instance) ...".
  out << fmt::format("\ncost: {} for {} GPU{}: {}{}\n",
                     format_usd_per_hour(c.per_hour),
                     gpus,
                     gpus == 1 ? "" : "s",
                     c.price_label,
                     c.price_stale ? " (stale price)" : "");
  if (c.usd_per_thousand_images) {
    out << fmt::format("  {} per thousand images at this load",
                       format_usd(Usd(*c.usd_per_thousand_images)));
  }
  if (c.usd_per_audio_hour) {
    out << fmt::format("  {} per audio hour at this load\n",
                       format_usd(Usd(*c.usd_per_audio_hour)));
  }
  if (c.usd_per_million_tokens && (workload_units(r.spec).tokens == TokenRate::latent ||
                                   (r.spec.model.image && r.spec.model.image->cnn))) {
    out << '\n'; // a pipeline's latent tokens, a CNN's one input per image: no price to compare
  } else if (c.usd_per_million_tokens) {
    out << fmt::format("{}{} per million {} tokens at this load",
                       c.usd_per_thousand_images ? "; " : "  ",
                       format_usd(Usd(*c.usd_per_million_tokens)),
                       r.training                                 ? "trained"
                       : r.inference && r.inference->prefill_only ? "input"
                                                                  : "output");
    if (c.to_train) {
      out << fmt::format("; {} to train", format_usd(*c.to_train));
    }
    out << '\n';
  }
}

} // namespace

void render_estimate_table(const EstimateReport& r, std::ostream& out) {
  render_header(r, out);
  render_memory(r, out);
  if (!workload_units(r.spec).serving) {
    render_training(r, out);
  } else {
    render_inference(r, out);
  }
  render_targets(r, out);
  render_cost(r, out);
  if (r.calibration) {
    out << (r.calibration->measured ? "calibration: " : "UNCALIBRATED: ") << r.calibration->text
        << '\n';
  }
  for (const auto& n : r.memory.notes) {
    out << "note: " << n << '\n';
  }
  out << "\nassumptions:\n";
  for (const auto& a : r.memory.assumptions) {
    out << fmt::format("  {} = {:g}  ({})\n", a.name, a.value, a.source);
  }
  for (const auto& d : r.spec.defaults) {
    out << "  " << d << '\n';
  }
}

} // namespace rightsize
