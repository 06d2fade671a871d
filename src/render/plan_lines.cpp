// The sentences of a plan's reports (src/render/plan_text.hpp): the workload, its targets and
// requirements, each kind in its own words through one table of functions (k_sentences).

#include "plan_text.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstddef>

namespace rightsize {

// ", speculative eagle: 3 draft tokens at acceptance 0.80 (2.95 tokens per step), prefix cache
// hit rate 50%, Poisson arrivals", or nothing when the workload uses none of them.
std::string decoding_features(const InferenceWorkload& i) {
  std::string out;
  if (const auto& s = i.speculative) {
    out += fmt::format(", speculative {}: {} draft token{} at acceptance {:.2f} ({:.2f} tokens per "
                       "step)",
                       to_string(s->method),
                       s->draft_tokens,
                       s->draft_tokens == 1 ? "" : "s",
                       s->acceptance_rate,
                       s->tokens_per_step());
  }
  if (i.prefix_cache_hit_rate > 0) {
    out += fmt::format(", prefix cache hit rate {:.0f}%", 100.0 * i.prefix_cache_hit_rate);
  }
  if (i.arrivals == ArrivalKind::poisson) {
    out += ", Poisson arrivals";
  } else if (i.arrivals == ArrivalKind::gamma) {
    out += fmt::format(", gamma arrivals (burstiness {:g})", i.burstiness);
  }
  return out;
}

namespace {

std::string offline_or(const std::optional<long long>& concurrency, const char* items) {
  return concurrency ? fmt::format("{} concurrent {}", *concurrency, items)
                     : std::string("offline (largest batch)");
}

// --- The workload, in its kind's words

std::string training_workload(const Spec& s) {
  const auto& w = s.workload.training;
  std::string what = s.workload.type == WorkloadType::finetune
                         ? fmt::format("{} fine-tuning", to_string(w.method))
                         : std::string("training");
  std::string line = fmt::format("{}, seq {} x global batch {}, {}, {} recipe",
                                 what,
                                 w.seq_len,
                                 w.global_batch,
                                 to_string(w.optimizer),
                                 w.precision.name);
  if (w.tokens) {
    line += fmt::format(", {:.3g} tokens", *w.tokens);
  }
  if (w.deadline) {
    line += fmt::format(" within {}", format_seconds(*w.deadline));
  }
  return line;
}

std::string generation_workload(const Spec& s) {
  const auto& i = s.workload.inference;
  return fmt::format("inference on {}, {}, {}{}",
                     to_string(i.engine),
                     i.describe_lengths(),
                     offline_or(i.concurrency, "requests"),
                     decoding_features(i));
}

// A text-to-text model's input is what its encoder reads (its decoder starts from one token).
std::string text_to_text_workload(const Spec& s) {
  const auto& i = s.workload.inference;
  return fmt::format("text-to-text generation on {}, {} in (encoder) + {} out tokens, {}",
                     to_string(i.engine),
                     s.model.encoder_positions,
                     i.output_tokens,
                     offline_or(i.concurrency, "requests"));
}

std::string text_embedding_workload(const Spec& s) {
  const auto& i = s.workload.inference;
  return fmt::format("embedding on {}, {} tokens per sequence, {}",
                     to_string(i.engine),
                     i.input_tokens,
                     offline_or(i.concurrency, "sequences"));
}

std::string image_embedding_workload(const Spec& s) {
  const auto& i = s.workload.inference;
  return fmt::format("image embeddings on {}, {} x {} pixels, {}, {}",
                     to_string(i.engine),
                     s.model.image->image_size,
                     s.model.image->image_size,
                     s.model.image->cnn ? std::string("a CNN (one input per image)")
                                        : fmt::format("{} tokens per image", i.input_tokens),
                     offline_or(i.concurrency, "images"));
}

std::string image_generation_workload(const Spec& s) {
  const auto& i = s.workload.inference;
  if (!i.generation) {
    return generation_workload(s);
  }
  const auto& g = *i.generation;
  return fmt::format("image generation on diffusers, {} x {} pixels, {} steps{}, {} image{} "
                     "per request, {}",
                     g.width,
                     g.height,
                     g.steps,
                     s.model.diffusion->classifier_free_guidance ? " (x2: guidance)" : "",
                     g.images_per_request,
                     g.images_per_request == 1 ? "" : "s",
                     offline_or(i.concurrency, "images"));
}

std::string transcription_workload(const Spec& s) {
  const auto& i = s.workload.inference;
  if (!i.transcription) {
    return generation_workload(s);
  }
  const Transcription& a = *i.transcription;
  return fmt::format(
      "transcription on {}, {:g} s of audio per request ({} window{} of {:g} s), {} output "
      "tokens per window, {}",
      to_string(i.engine),
      a.audio_seconds,
      a.windows,
      a.windows == 1 ? "" : "s",
      a.window_seconds,
      i.output_tokens,
      a.requests_in_flight > 0 ? fmt::format("{} concurrent requests", a.requests_in_flight)
                               : std::string("offline (largest batch)"));
}

// --- The targets

std::string listed(const std::vector<std::string>& t, std::string_view none) {
  return t.empty() ? fmt::format("none: ranked by $ per {} at full load", none)
                   : fmt::format("{}", fmt::join(t, ", "));
}

// A training plan's deadline, if any.
std::string training_targets(const Plan& p) {
  const auto& w = p.spec.workload.training;
  if (w.deadline) {
    return "deadline " + format_seconds(*w.deadline);
  }
  // The deployment line names the ranking (tco by default: the run's cost for its tokens, a
  // month's without tokens); "$ per million output tokens" was a serving default's.
  return "none: no deadline";
}

std::string serving_targets(const Plan& p) {
  const auto& x = p.spec.workload.inference.targets;
  const WorkloadUnits& u = p.units;
  std::vector<std::string> t;
  if (x.ttft) {
    t.push_back(fmt::format("{} <= {}", names(u.latency).words, format_seconds(*x.ttft)));
  }
  for (const PercentileTarget& q : x.ttft_percentiles) {
    t.push_back(
        fmt::format("{} TTFT <= {}", statistic_name(q.percentile), format_seconds(q.limit)));
  }
  if (x.tpot) {
    t.push_back("TPOT <= " + format_seconds(*x.tpot));
  }
  for (const PercentileTarget& q : x.tpot_percentiles) {
    t.push_back(
        fmt::format("{} TPOT <= {}", statistic_name(q.percentile), format_seconds(q.limit)));
  }
  if (x.output_tokens_per_s) {
    t.push_back(fmt::format(">= {:g} output tokens/s", *x.output_tokens_per_s));
  }
  if (x.requests_per_s) {
    t.push_back(fmt::format(">= {:g} {}/s", *x.requests_per_s, u.items));
  }
  return listed(t, names(u.price).words);
}

// A transcription's targets: a request's latency and audio seconds per second.
std::string transcription_targets(const Plan& p) {
  const auto& a = p.spec.workload.inference.transcription;
  if (!a) {
    return serving_targets(p);
  }
  const auto& x = p.spec.workload.inference.targets;
  std::vector<std::string> t;
  if (x.ttft) {
    t.push_back(fmt::format("{} <= {}", names(p.units.latency).words, format_seconds(*x.ttft)));
  }
  if (a->audio_seconds_per_s) {
    t.push_back(fmt::format(">= {:g} {}", *a->audio_seconds_per_s, names(p.units.rate).words));
  }
  return listed(t, names(p.units.price).words);
}

// --- The requirements beyond the weights

std::string kv_per(const Plan& p, std::string_view per) {
  return fmt::format("KV cache {} per {} ({}",
                     format_bytes(p.requirements.kv_per_request),
                     per,
                     to_string(p.spec.precision.kv_cache));
}

std::string training_requirements(const Plan& p) {
  return fmt::format(", {} per trained token", format_flops(p.requirements.flops_per_token));
}

// Recurrent layers keep a constant state per request beside (or instead of) the KV cache.
std::string generation_requirements(const Plan& p) {
  const auto& r = p.requirements;
  return fmt::format(", {} {} per request ({}), {} per output token",
                     words(p.units.memory),
                     format_bytes(r.kv_per_request),
                     to_string(p.spec.precision.kv_cache),
                     format_flops(r.flops_per_token));
}

// The encoder pass a request (text to text, whose input is the encoder's, read once) or a window
// (a transcription) makes, beside the decoder's self- and cross-attention cache.
std::string encoder_decoder_requirements(const Plan& p, const std::string& per) {
  const auto& r = p.requirements;
  return fmt::format(", {}; self- and cross-attention), {} per {}'s encoder pass, {} per output "
                     "token",
                     kv_per(p, per),
                     format_flops(r.encoder_flops_per_window),
                     p.units.encoder_pass,
                     format_flops(r.flops_per_token));
}

std::string text_to_text_requirements(const Plan& p) {
  return encoder_decoder_requirements(p, std::string(p.units.encoder_pass));
}

std::string transcription_requirements(const Plan& p) {
  return encoder_decoder_requirements(
      p,
      fmt::format("{:g} s {}",
                  p.spec.workload.inference.transcription->window_seconds,
                  p.units.encoder_pass));
}

std::string embedding_kv(const Plan& p) {
  // An image is one sequence of its encoder's tokens.
  return p.requirements.kv_per_request.si() > 0 ? ", " + kv_per(p, "sequence") + ")"
                                                : std::string();
}

std::string text_embedding_requirements(const Plan& p) {
  return embedding_kv(p) +
         fmt::format(", {} per token embedded", format_flops(p.requirements.flops_per_token));
}

std::string image_embedding_requirements(const Plan& p) {
  return embedding_kv(p) +
         fmt::format(", {} per image", format_flops(p.requirements.flops_per_image));
}

std::string image_generation_requirements(const Plan& p) {
  const auto& r = p.requirements;
  const auto& g = *p.spec.workload.inference.generation;
  const auto& d = *p.spec.model.diffusion;
  return fmt::format(", {} per image ({} per {} pass x {} steps{}; text encoders {}, VAE "
                     "decode {})",
                     format_flops(r.flops_per_image),
                     format_flops(Flops(d.step_flops(g.height, g.width))),
                     d.denoiser_component,
                     g.steps,
                     d.classifier_free_guidance ? " x 2 for guidance" : "",
                     format_flops(Flops(d.text_flops())),
                     format_flops(Flops(d.vae.decode_flops(g.height, g.width))));
}

// Each kind's sentences, in WorkloadKind's order.
struct Sentences {
  WorkloadKind kind;
  std::string (*workload)(const Spec&);
  std::string (*targets)(const Plan&);
  std::string (*requirements)(const Plan&);
};

constexpr std::array<Sentences, 8> k_sentences{{
    {WorkloadKind::text_generation, generation_workload, serving_targets, generation_requirements},
    {WorkloadKind::text_to_text, text_to_text_workload, serving_targets, text_to_text_requirements},
    {WorkloadKind::text_embedding,
     text_embedding_workload,
     serving_targets,
     text_embedding_requirements},
    {WorkloadKind::image_embedding,
     image_embedding_workload,
     serving_targets,
     image_embedding_requirements},
    {WorkloadKind::image_generation,
     image_generation_workload,
     serving_targets,
     image_generation_requirements},
    {WorkloadKind::transcription,
     transcription_workload,
     transcription_targets,
     transcription_requirements},
    {WorkloadKind::training, training_workload, training_targets, training_requirements},
    {WorkloadKind::finetune, training_workload, training_targets, training_requirements},
}};

constexpr bool sentences_in_kind_order() {
  for (std::size_t i = 0; i < k_sentences.size(); ++i) {
    if (static_cast<std::size_t>(k_sentences[i].kind) != i) {
      return false;
    }
  }
  return true;
}
static_assert(sentences_in_kind_order(), "k_sentences must list the kinds in WorkloadKind's order");

const Sentences& sentences(const WorkloadUnits& u) {
  return k_sentences[static_cast<std::size_t>(u.kind)];
}

// "8.03B", or "25.6M" below a billion: a CNN of 25.6M parameters is not "0.03B".
std::string parameter_count(double params) {
  return params >= 1e9 ? fmt::format("{:.2f}B", params / 1e9)
                       : fmt::format("{:.1f}M", params / 1e6);
}

} // namespace

std::string replicas_text(const Candidate& c) {
  if (c.disaggregation) {
    const DisaggregatedLayout& l = c.disaggregation->pools.layout;
    return fmt::format("{}P+{}D x {}", l.prefill.replicas, l.decode.replicas, layout_text(c));
  }
  return c.replicas > 1 ? fmt::format("{} x {}", c.replicas, layout_text(c)) : layout_text(c);
}

std::string layout_text(const Candidate& c) {
  std::string s = fmt::format("TP{}", c.layout.tp);
  if (c.layout.cp > 1) {
    s += fmt::format(" CP{}", c.layout.cp);
  }
  if (c.layout.pp > 1) {
    s += fmt::format(" PP{}", c.layout.pp);
  }
  if (c.layout.dp > 1) {
    s += fmt::format(" DP{}", c.layout.dp);
  }
  if (c.layout.ep > 1) {
    s += fmt::format(" EP{}", c.layout.ep);
  }
  if (c.layout.attention_dp > 1) {
    s += fmt::format(" DP-attention{}", c.layout.attention_dp);
  }
  return s;
}

std::string money(double usd) {
  if (usd >= 1e6) {
    return fmt::format("${:.2f}M", usd / 1e6);
  }
  if (usd >= 1e4) {
    return fmt::format("${:.0f}k", usd / 1e3);
  }
  return format_usd(Usd(usd));
}
std::string workload_line(const Plan& p) {
  return sentences(p.units).workload(p.spec);
}

std::string targets_line(const Plan& p) {
  return sentences(p.units).targets(p);
}

std::string objective_text(const Plan& p) {
  // The score of cost_per_token is $ per million tokens, which ranks an image or audio workload
  // as its own unit does (a fixed number of tokens per image, per audio hour).
  const PriceNames& price = names(p.units.price);
  if (p.objective == Objective::cost_per_token && !price.per_token) {
    return fmt::format("$ per {}", price.words);
  }
  return std::string(to_string(p.objective));
}

std::string requirements_line(const Plan& p) {
  const auto& r = p.requirements;
  return fmt::format("weights {} ({}), {} parameters ({} active)",
                     format_bytes(r.weights),
                     p.spec.weights.quantized() ? p.spec.weights.method
                                                : std::string(to_string(p.spec.precision.weights)),
                     parameter_count(r.params_total),
                     parameter_count(r.params_active)) +
         sentences(p.units).requirements(p);
}

std::vector<const Candidate*> shown(const Plan& plan, const RenderOptions& o) {
  std::vector<const Candidate*> out;
  for (const auto& c : plan.candidates) {
    if (o.top > 0 && static_cast<int>(out.size()) >= o.top) {
      break;
    }
    out.push_back(&c);
  }
  return out;
}

std::string short_verdict(const std::string& v) {
  if (v == "over-provisioned") {
    return "over";
  }
  if (v == "right-sized") {
    return "right";
  }
  return v;
}

// Replicas are serving's estimate --dp, and --batch the sequences asked of each replica (those
// beyond what it runs at once queue: estimate works out the same running batch). A workload whose
// precision.kv_cache names nothing (an encoder, a diffusion pipeline) is given no --kv-cache
// format.
std::string estimate_args(const Plan& plan, const Candidate& c) {
  if (c.disaggregation) {
    const DisaggregatedLayout& l = c.disaggregation->pools.layout;
    return fmt::format(
        "estimate {} --gpu {} --tp {} --pp {} --ep {}{} --prefill-replicas {} --decode-replicas {} "
        "--weights {}{}",
        plan.spec.file,
        c.gpu->name,
        c.layout.tp,
        c.layout.pp,
        c.layout.ep,
        c.layout.attention_dp > 1 ? fmt::format(" --attention-dp {}", c.layout.attention_dp)
                                  : std::string(),
        l.prefill.replicas,
        l.decode.replicas,
        to_string(c.spec->precision.weights),
        plan.units.kv_format ? fmt::format(" --kv-cache {}", to_string(c.spec->precision.kv_cache))
                             : std::string());
  }
  return fmt::format(
      "estimate {} --gpu {} --tp {}{} --pp {} --ep {}{} --dp {} --weights {}{} "
      "--batch {}",
      plan.spec.file,
      c.gpu->name,
      c.layout.tp,
      c.layout.cp > 1 ? fmt::format(" --cp {}", c.layout.cp) : std::string(),
      c.layout.pp,
      c.layout.ep,
      c.layout.attention_dp > 1 ? fmt::format(" --attention-dp {}", c.layout.attention_dp)
                                : std::string(),
      c.inference ? c.replicas : c.layout.dp,
      to_string(c.spec->precision.weights),
      plan.units.kv_format ? fmt::format(" --kv-cache {}", to_string(c.spec->precision.kv_cache))
                           : std::string(),
      c.inference ? std::max(c.inference->offered, c.memory.batch) : c.memory.batch);
}

std::vector<std::string> uncalibrated_lines(const std::vector<const Candidate*>& rows) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto* c : rows) {
    if (!c->calibration || c->calibration->measured) {
      continue;
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return g.first == c->calibration->text;
    });
    if (it == groups.end()) {
      groups.emplace_back(c->calibration->text, std::vector<std::string>{});
      it = std::prev(groups.end());
    }
    const std::string& name = c->whole_gpu != nullptr ? c->whole_gpu->name : c->gpu->name;
    if (std::find(it->second.begin(), it->second.end(), name) == it->second.end()) {
      it->second.push_back(name);
    }
  }
  std::vector<std::string> out;
  for (const auto& [text, names] : groups) {
    out.push_back(fmt::format("{} ({})", text, fmt::join(names, ", ")));
  }
  return out;
}

std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  // Leading spaces, and the spaces after a "label:" that align a column, are kept.
  std::size_t lead = std::min(text.find_first_not_of(' '), text.size());
  const std::size_t colon = text.find(": ", lead);
  if (colon != std::string::npos && colon + 2 < text.size() && text[colon + 2] == ' ' &&
      text.find(' ', lead) > colon) {
    lead = std::min(text.find_first_not_of(' ', colon + 1), text.size());
  }
  std::string out = text.substr(0, lead);
  std::size_t column = lead;
  bool first_word = true;
  std::size_t start = lead;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) {
      continue;
    }
    if (!first_word && width != std::string::npos && column + 1 + word.size() > width) {
      out += '\n' + std::string(indent, ' ');
      column = indent;
    } else if (!first_word) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first_word = false;
  }
  return out;
}
std::string latency_distribution_text(const SimulatedLatency& d) {
  return fmt::format("latency distribution (simulated, {} requests in the steady state, at the "
                     "estimate): TTFT p50 {}, p90 {}, p99 {}; TPOT p50 {}, p90 {}, p99 {}",
                     d.requests,
                     format_seconds(d.ttft.p50),
                     format_seconds(d.ttft.p90),
                     format_seconds(d.ttft.p99),
                     format_seconds(d.tpot.p50),
                     format_seconds(d.tpot.p90),
                     format_seconds(d.tpot.p99));
}

} // namespace rightsize
