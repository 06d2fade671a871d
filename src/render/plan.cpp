#include "plan_text.hpp"
#include "published_text.hpp"

#include <rightsize/core/json_writer.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/render/plan.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <tuple>

namespace rightsize {

namespace {

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

// The `rightsize estimate` arguments that reproduce a candidate exactly: its GPU, layout,
// replicas (serving: estimate's --dp), precision and per-replica batch. A workload that keeps
// no KV cache (an encoder, a diffusion pipeline) is given no --kv-cache format.
std::string estimate_args(const Plan& plan, const Candidate& c) {
  return fmt::format("estimate {} --gpu {} --tp {}{} --pp {} --ep {} --dp {} --weights {}{} "
                     "--batch {}",
                     plan.spec.file,
                     c.gpu->name,
                     c.layout.tp,
                     c.layout.cp > 1 ? fmt::format(" --cp {}", c.layout.cp) : std::string(),
                     c.layout.pp,
                     c.layout.ep,
                     c.inference ? c.replicas : c.layout.dp,
                     to_string(c.spec->precision.weights),
                     c.spec->keeps_kv_cache()
                         ? fmt::format(" --kv-cache {}", to_string(c.spec->precision.kv_cache))
                         : std::string(),
                     c.memory.batch);
}

void write_cost(detail::JsonWriter& w, const Candidate& c) {
  const auto& cost = c.cost;
  const bool embedding = c.spec->workload.one_pass();
  w.begin_object().member("basis", cost.basis).key("on_prem");
  if (cost.gpus_bought > 0) {
    w.begin_object()
        .member("amortization_usd_per_month", cost.amortization_per_month.si())
        .member("capex_usd", cost.purchase.si())
        .member("gpus_bought", cost.gpus_bought)
        .member("gpus_needed_first_month", cost.gpus_needed_first)
        .member("gpus_needed_peak", cost.gpus_needed_peak)
        .member("gpus_per_server", cost.gpus_per_server)
        .member("operations_usd_per_month", cost.operations_per_month.si())
        .member("peak_month", cost.peak_month)
        .member("power_usd_per_month", cost.power_per_month.si())
        .member("servers", cost.servers)
        .end_object();
  } else {
    w.null();
  }
  w.member("price", cost.price_label)
      .member("price_stale", cost.price_stale)
      .member("stops_meeting_targets_month", cost.stops_meeting_targets_month)
      .member("tco_usd", cost.tco.si())
      .member("usd_per_hour", cost.per_hour.si());
  // An image generation workload is priced per image only: its tokens are latent positions.
  if (!c.spec->generates_images()) {
    w.member(embedding ? "usd_per_million_input_tokens" : "usd_per_million_output_tokens",
             cost.usd_per_million_tokens)
        .member(embedding ? "usd_per_million_input_tokens_full_load"
                          : "usd_per_million_output_tokens_full_load",
                cost.usd_per_million_at_full_load);
  }
  if (c.spec->per_image()) {
    w.member("usd_per_thousand_images", cost.usd_per_thousand_images)
        .member("usd_per_thousand_images_full_load", cost.usd_per_thousand_images_full_load);
  }
  if (c.spec->workload.is_transcription()) {
    w.member("usd_per_audio_hour", cost.usd_per_audio_hour)
        .member("usd_per_audio_hour_full_load", cost.usd_per_audio_hour_at_full_load);
  }
  w.end_object();
}

void write_candidate(detail::JsonWriter& w, const Plan& plan, const Candidate& c) {
  const EstimateReport report{*c.spec,
                              *c.gpu,
                              c.layout,
                              c.memory,
                              held(c.inference),
                              held(c.training),
                              c.replicas,
                              held(c.inference_bands),
                              held(c.training_bands),
                              c.memory_band,
                              0.8,
                              false,
                              held(c.calibration),
                              {},
                              std::nullopt,
                              ""};
  const auto neck = bottleneck(report);
  const bool training = c.spec->workload.is_training();
  w.begin_object().member("bottleneck", neck ? neck->name : std::string_view());
  if (c.calibration) {
    w.key("calibration");
    write_calibration_json(w, *c.calibration);
  }
  w.key("cost");
  write_cost(w, c);
  // estimate evaluates whole GPUs only.
  w.key("estimate_command");
  if (c.partition.empty()) {
    w.value("rightsize " + estimate_args(plan, c));
  } else {
    w.null();
  }
  w.member("explanation", neck ? neck->explanation : std::string_view())
      .member("gpu", c.partition.empty() ? c.gpu->name : c.whole_gpu->name)
      .member("gpus", c.total_gpus())
      .member("gpus_per_replica", c.gpus_per_replica());
  // Bands sit beside the figures they qualify, as in an estimate.
  if (!training) {
    w.key("inference");
    write_inference_json(w, report);
  }
  w.key("memory");
  write_memory_json(w, report);
  w.key("parallelism");
  write_parallelism_json(w, report);
  w.key("partition");
  if (c.partition.empty()) {
    w.null();
  } else {
    w.value(c.partition);
  }
  w.key("precision");
  write_precision_json(w, *c.spec);
  if (!c.precision_note.empty()) {
    w.member("precision_note", c.precision_note);
  }
  if (c.published) {
    w.key("published");
    write_published_json(w, *c.published);
  }
  w.member("rank", c.rank).member("replicas", c.replicas);
  if (training) {
    w.key("training");
    write_training_json(w, report);
  }
  w.member("verdict", c.verdict).member("verdict_reason", c.verdict_reason).end_object();
}

} // namespace

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

std::string workload_line(const Spec& s) {
  if (s.workload.is_training()) {
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
  const auto& i = s.workload.inference;
  if (const auto& g = i.generation; g && s.generates_images()) {
    return fmt::format("image generation on diffusers, {} x {} pixels, {} steps{}, {} image{} "
                       "per request, {}",
                       g->width,
                       g->height,
                       g->steps,
                       s.model.diffusion->classifier_free_guidance ? " (x2: guidance)" : "",
                       g->images_per_request,
                       g->images_per_request == 1 ? "" : "s",
                       i.concurrency ? fmt::format("{} concurrent images", *i.concurrency)
                                     : std::string("offline (largest batch)"));
  }
  if (s.embeds_images()) {
    return fmt::format("image embeddings on {}, {} x {} pixels, {}, {}",
                       to_string(i.engine),
                       s.model.image->image_size,
                       s.model.image->image_size,
                       s.model.image->cnn ? std::string("a CNN (one input per image)")
                                          : fmt::format("{} tokens per image", i.input_tokens),
                       i.concurrency ? fmt::format("{} concurrent images", *i.concurrency)
                                     : std::string("offline (largest batch)"));
  }
  if (s.workload.is_transcription() && i.transcription) {
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
  if (s.workload.is_embedding()) {
    return fmt::format("embedding on {}, {} tokens per sequence, {}",
                       to_string(i.engine),
                       i.input_tokens,
                       i.concurrency ? fmt::format("{} concurrent sequences", *i.concurrency)
                                     : std::string("offline (largest batch)"));
  }
  // A text-to-text model's input is what its encoder reads (its decoder starts from one token).
  return fmt::format("{} on {}, {} + {} out tokens, {}",
                     s.model.encoder_decoder ? "text-to-text generation" : "inference",
                     to_string(i.engine),
                     s.model.encoder_decoder
                         ? fmt::format("{} in (encoder)", s.model.encoder_positions)
                         : i.describe_input(),
                     i.output_tokens,
                     i.concurrency ? fmt::format("{} concurrent requests", *i.concurrency)
                                   : std::string("offline (largest batch)"));
}

std::string targets_line(const Spec& s) {
  std::vector<std::string> t;
  if (s.workload.is_training()) {
    if (s.workload.training.deadline) {
      t.push_back("deadline " + format_seconds(*s.workload.training.deadline));
    }
  } else {
    const auto& x = s.workload.inference.targets;
    const bool embedding = s.workload.one_pass();
    if (const auto& a = s.workload.inference.transcription) {
      if (x.ttft) {
        t.push_back("latency <= " + format_seconds(*x.ttft));
      }
      if (a->audio_seconds_per_s) {
        t.push_back(fmt::format(">= {:g} audio seconds/s", *a->audio_seconds_per_s));
      }
      return t.empty() ? std::string("none: ranked by $ per audio hour at full load")
                       : fmt::format("{}", fmt::join(t, ", "));
    }
    if (x.ttft) {
      t.push_back((embedding ? "latency <= " : "TTFT <= ") + format_seconds(*x.ttft));
    }
    if (x.tpot) {
      t.push_back("TPOT <= " + format_seconds(*x.tpot));
    }
    if (x.output_tokens_per_s) {
      t.push_back(fmt::format(">= {:g} output tokens/s", *x.output_tokens_per_s));
    }
    if (x.requests_per_s) {
      t.push_back(fmt::format(">= {:g} {}/s",
                              *x.requests_per_s,
                              s.per_image() ? "images"
                              : embedding   ? "sequences"
                                            : "requests"));
    }
  }
  if (t.empty()) {
    return fmt::format("none: ranked by $ per {} at full load",
                       s.per_image()               ? "thousand images"
                       : s.workload.is_embedding() ? "million input tokens"
                                                   : "million output tokens");
  }
  return fmt::format("{}", fmt::join(t, ", "));
}

std::string objective_text(const Plan& p) {
  // The score of cost_per_token is $ per million tokens, which ranks an image or audio workload
  // as its own unit does (a fixed number of tokens per image, per audio hour).
  if (p.objective == Objective::cost_per_token && p.spec.per_image()) {
    return "$ per thousand images";
  }
  if (p.objective == Objective::cost_per_token && p.spec.workload.is_transcription()) {
    return "$ per audio hour";
  }
  return std::string(to_string(p.objective));
}

namespace {

// "8.03B", or "25.6M" below a billion: a CNN of 25.6M parameters is not "0.03B".
std::string parameter_count(double params) {
  return params >= 1e9 ? fmt::format("{:.2f}B", params / 1e9)
                       : fmt::format("{:.1f}M", params / 1e6);
}

} // namespace

std::string requirements_line(const Plan& p) {
  const auto& r = p.requirements;
  std::string line =
      fmt::format("weights {} ({}), {} parameters ({} active)",
                  format_bytes(r.weights),
                  p.spec.weights.quantized() ? p.spec.weights.method
                                             : std::string(to_string(p.spec.precision.weights)),
                  parameter_count(r.params_total),
                  parameter_count(r.params_active));
  if (p.spec.workload.is_transcription()) {
    line += fmt::format(", KV cache {} per {:g} s window ({}; self- and cross-attention), {} per "
                        "window's encoder pass, {} per output token",
                        format_bytes(r.kv_per_request),
                        p.spec.workload.inference.transcription->window_seconds,
                        to_string(p.spec.precision.kv_cache),
                        format_flops(r.encoder_flops_per_window),
                        format_flops(r.flops_per_token));
    return line;
  }
  if (p.spec.model.encoder_decoder) {
    // Text to text: the request's input is the encoder's, read once (docs/model.md).
    line += fmt::format(", KV cache {} per request ({}; self- and cross-attention), {} per "
                        "request's encoder pass, {} per output token",
                        format_bytes(r.kv_per_request),
                        to_string(p.spec.precision.kv_cache),
                        format_flops(r.encoder_flops_per_window),
                        format_flops(r.flops_per_token));
    return line;
  }
  if (p.spec.generates_images()) {
    const auto& g = *p.spec.workload.inference.generation;
    const auto& d = *p.spec.model.diffusion;
    line += fmt::format(", {} per image ({} per {} pass x {} steps{}; text encoders {}, VAE "
                        "decode {})",
                        format_flops(r.flops_per_image),
                        format_flops(Flops(d.step_flops(g.height, g.width))),
                        d.denoiser_component,
                        g.steps,
                        d.classifier_free_guidance ? " x 2 for guidance" : "",
                        format_flops(Flops(d.text_flops())),
                        format_flops(Flops(d.vae.decode_flops(g.height, g.width))));
  } else if (p.spec.workload.is_embedding()) {
    if (r.kv_per_request.si() > 0) {
      line += fmt::format(", KV cache {} per sequence ({})",
                          format_bytes(r.kv_per_request),
                          to_string(p.spec.precision.kv_cache));
    }
    line += p.spec.embeds_images()
                ? fmt::format(", {} per image", format_flops(r.flops_per_image))
                : fmt::format(", {} per token embedded", format_flops(r.flops_per_token));
  } else if (!p.spec.workload.is_training()) {
    // Recurrent layers keep a constant state per request beside (or instead of) the KV cache.
    const auto& m = p.spec.model;
    const char* kept = m.recurrent_layers() == 0 ? "KV cache"
                       : m.ssm.kind == RecurrentKind::gated_deltanet
                           ? "KV cache and linear-attention state"
                           : "KV cache and Mamba state";
    line += fmt::format(", {} {} per request ({}), {} per output token",
                        kept,
                        format_bytes(r.kv_per_request),
                        to_string(p.spec.precision.kv_cache),
                        format_flops(r.flops_per_token));
  } else {
    line += fmt::format(", {} per trained token", format_flops(r.flops_per_token));
  }
  return line;
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

namespace {

void write_assumption(detail::JsonWriter& w,
                      std::string_view name,
                      std::optional<double> value,
                      std::string_view source) {
  w.begin_object().member("name", name).member("source", source).member("value", value);
  w.end_object();
}

void write_assumptions(detail::JsonWriter& w, const Plan& plan) {
  w.begin_array();
  for (const auto& a : plan.assumptions) {
    write_assumption(w, a.name, a.value, a.source);
  }
  const auto& d = plan.spec.deployment;
  for (const auto& [name, value, source] :
       std::initializer_list<std::tuple<const char*, double, const char*>>{
           {"hours_per_month", d.hours_per_month, "deployment.hours_per_month"},
           {"horizon_months", static_cast<double>(d.horizon_months), "deployment.horizon_months"},
           {"growth_per_month", d.growth_per_month, "deployment.growth_per_month"},
           {"utilization", d.utilization, "deployment.utilization"},
           {"pue", d.pue, "deployment.pue"},
           {"electricity_usd_per_kwh",
            d.electricity_usd_per_kwh,
            "deployment.electricity_usd_per_kwh"},
           {"amortization_years", d.amortization_years, "deployment.amortization_years"},
           {"operations_share", d.operations_share, "deployment.operations_share"}}) {
    write_assumption(w, name, value, source);
  }
  for (const auto& text : plan.spec.defaults) {
    write_assumption(w, "default", std::nullopt, text);
  }
  w.end_array();
}

void write_rejected(detail::JsonWriter& w, const Plan& plan) {
  w.begin_array();
  for (const auto& r : plan.rejected) {
    w.begin_object().member("code", r.code).key("fix");
    if (r.fix) {
      w.begin_object().member("pointer", r.fix->pointer).member("value", r.fix->value);
      w.end_object();
    } else {
      w.null();
    }
    w.member("gpu", r.gpu)
        .member("nearest_fix", r.nearest_fix)
        .member("reason", r.reason)
        .end_object();
  }
  w.end_array();
}

} // namespace

void render_plan_json(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const auto& r = plan.requirements;
  const auto rows = shown(plan, o);
  std::string text;
  // Handed to `out` a candidate at a time once it holds 4 KiB (a candidate's JSON is about 4
  // KB): the writer's buffer stays one small allocation, two pages, instead of doubling to the
  // size of the whole plan (a few hundred KB), each byte of which `out` holds again.
  text.reserve(8 * 1024);
  const auto hand_over = [&] {
    if (text.size() >= 4 * 1024) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      text.clear();
    }
  };
  detail::JsonWriter w(text);
  w.begin_object().key("assumptions");
  write_assumptions(w, plan);
  w.key("candidates").begin_array();
  for (const auto* c : rows) {
    write_candidate(w, plan, *c);
    hand_over();
  }
  w.end_array()
      .key("catalog")
      .begin_object()
      .member("digest", plan.catalog_digest)
      .member("version", plan.catalog_version)
      .end_object()
      .member("feasible", plan.feasible())
      .member("notes", plan.notes)
      .member("objective", to_string(plan.objective))
      .key("rejected");
  write_rejected(w, plan);
  hand_over();
  w.key("requirements").begin_object();
  if (plan.spec.per_image()) {
    w.member("flops_per_image", r.flops_per_image.si());
  }
  if (plan.spec.workload.is_transcription()) {
    // Per window: its encoder pass, and its KV cache (kv_cache_per_request_bytes is per window).
    w.member("encoder_flops_per_window", r.encoder_flops_per_window.si());
  } else if (plan.spec.model.encoder_decoder) {
    // Text to text: the encoder pass over one request's input.
    w.member("encoder_flops_per_request", r.encoder_flops_per_window.si());
  }
  w.member("flops_per_token", r.flops_per_token.si())
      .member("kv_cache_per_request_bytes", r.kv_per_request.si())
      .member("params_active", r.params_active)
      .member("params_total", r.params_total)
      .member("weights_bytes", r.weights.si())
      .end_object()
      .member("schema_version", 1)
      .key("spec")
      .begin_object()
      .member("deployment", to_string(plan.spec.deployment.mode))
      .member("file", plan.spec.file)
      .member("model", plan.spec.model.name)
      .member("name", plan.spec.name)
      .member("workload", to_string(plan.spec.workload.type))
      .end_object()
      .member("uncalibrated", uncalibrated_lines(rows))
      .end_object();
  out << text << '\n';
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

namespace {

constexpr std::size_t k_narrow_width = 80;

// A number short enough for a table cell: two significant digits below 10, none above.
std::string compact(double v) {
  if (v >= 100.0) {
    return fmt::format("{:.0f}", v);
  }
  if (v >= 10.0) {
    return fmt::format("{:.0f}", v);
  }
  return fmt::format("{:.2g}", v);
}

// A time, or a band of times, in one unit chosen by the larger value: "25-39ms", "1.1-2.3s".
std::string time_cell(double point, std::optional<Band> band) {
  const double top = band ? band->high : point;
  const auto in = [&](double scale, const char* unit) {
    return band ? fmt::format(
                      "{}-{}{}", compact(band->low * scale), compact(band->high * scale), unit)
                : fmt::format("{}{}", compact(point * scale), unit);
  };
  if (top < 1.0) {
    return in(1e3, "ms");
  }
  if (top < 3600.0) {
    return in(1.0, "s");
  }
  if (top < 86400.0 * 2) {
    return in(1.0 / 3600.0, "h");
  }
  return in(1.0 / 86400.0, "d");
}

std::string rate_cell(double point, std::optional<Band> band) {
  return band ? fmt::format("{:.0f}-{:.0f}", band->low, band->high) : fmt::format("{:.0f}", point);
}

// Image generation runs at a fraction of an image per second per GPU: two significant digits
// below 10 ("0.18-1.4"), whole numbers above.
std::string small_rate_cell(double point, std::optional<Band> band) {
  const auto one = [](double v) {
    return v < 10.0 ? fmt::format("{:.2g}", v) : fmt::format("{:.0f}", v);
  };
  return band ? one(band->low) + "-" + one(band->high) : one(point);
}

// Total GPUs first, then how they are laid out: "1", "2 (TP2)", "16 (8xTP2)". On-prem, the GPUs
// bought in whole servers of 8: "16 (2x8)".
std::string gpus_cell(const Candidate& c) {
  if (c.cost.gpus_bought > 0) {
    return fmt::format("{} ({}x{})", c.cost.gpus_bought, c.cost.servers, c.cost.gpus_per_server);
  }
  if (c.replicas > 1) {
    return fmt::format("{} ({}x{})", c.total_gpus(), c.replicas, layout_text(c));
  }
  if (c.total_gpus() > 1) {
    return fmt::format("{} ({})", c.total_gpus(), layout_text(c));
  }
  return "1";
}

// The GPU, or for a MIG slice the GPU without its memory suffix and the profile:
// "H100-SXM/1g.10gb".
std::string gpu_cell(const Candidate& c) {
  if (c.partition.empty() || c.whole_gpu == nullptr) {
    return c.gpu->name;
  }
  std::string name = c.whole_gpu->name;
  const auto dash = name.rfind('-');
  if (dash != std::string::npos && name.size() > 2 && name.compare(name.size() - 2, 2, "GB") == 0) {
    name.resize(dash);
  }
  // The table fits 80 columns with a 19-character GPU cell: a long family name loses its dashes
  // ("RTXPRO6000/2g.48gb"); --wide and JSON keep the full "<GPU> <profile>" name.
  if (name.size() + 1 + c.partition.size() > 19) {
    name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
  }
  return name + "/" + c.partition;
}

std::string math_of(const Candidate& c) {
  return std::string(
      to_string(c.inference ? c.inference->compute_precision : c.training->compute_precision));
}

// Weights / KV cache / math. Narrow: the weights' format, "*" when the math runs in another
// format (weight-only kernels), and "/kv" when the KV cache differs: "fp8", "fp8*", "bf16/fp8".
std::string precision_cell(const Candidate& c, bool wide) {
  const std::string w(to_string(c.spec->precision.weights));
  const std::string math = math_of(c);
  if (c.training) {
    return w == math ? w : w + "/" + math;
  }
  const std::string kv(to_string(c.spec->precision.kv_cache));
  if (wide) {
    return fmt::format("{}/{}/{}", w, kv, math);
  }
  // bf16 math under fp16 weights (or the reverse) is the same width: no mark.
  const auto sixteen = [](const std::string& f) { return f == "bf16" || f == "fp16"; };
  const bool other_math = math != w && !(sixteen(math) && sixteen(w));
  return w + (other_math ? "*" : "") + (kv != w ? "/" + kv : "");
}

struct Column {
  std::string header;
  bool left = false; // text columns align left, numbers right
  std::vector<std::string> cells;
};

void print_columns(const std::vector<Column>& columns, std::ostream& out) {
  std::vector<std::size_t> width;
  for (const auto& c : columns) {
    std::size_t w = c.header.size();
    for (const auto& cell : c.cells) {
      w = std::max(w, cell.size());
    }
    width.push_back(w);
  }
  const auto row = [&](const std::function<const std::string&(const Column&)>& text) {
    std::string line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& t = text(columns[i]);
      const bool last = i + 1 == columns.size();
      if (i > 0) {
        line += ' ';
      }
      line += columns[i].left ? (last ? t : fmt::format("{:<{}}", t, width[i]))
                              : fmt::format("{:>{}}", t, width[i]);
    }
    out << line << '\n';
  };
  row([](const Column& c) -> const std::string& { return c.header; });
  const std::size_t rows = columns.empty() ? 0 : columns.front().cells.size();
  for (std::size_t r = 0; r < rows; ++r) {
    row([r](const Column& c) -> const std::string& { return c.cells[r]; });
  }
}

// Serving columns. An embedding workload shows a sequence's latency and sequences per second
// where generation shows TTFT and TPOT, tokens embedded per second for output tokens, and its $
// per million tokens is per input token; an image embedding workload, images per second and $
// per thousand images; a transcription workload, a request's latency, audio seconds transcribed
// per second (times real time) and $ per audio hour.
std::vector<Column> inference_columns(const std::vector<const Candidate*>& rows, bool wide) {
  const bool embedding = !rows.empty() && rows.front()->spec->workload.one_pass();
  const bool images = !rows.empty() && rows.front()->spec->per_image();
  const bool transcription = !rows.empty() && rows.front()->spec->workload.is_transcription();
  std::vector<Column> cols{{"#", false, {}},
                           {"GPU", true, {}},
                           {"GPUS", true, {}},
                           {wide ? "W/KV/MATH" : "W/KV", true, {}}};
  if (wide) {
    cols.push_back({"MEM/GPU", false, {}});
  }
  cols.push_back({embedding || transcription ? "LATENCY" : "TTFT", false, {}});
  cols.push_back({transcription ? "AUDIO S/S"
                  : images      ? "IMG/S"
                  : embedding   ? "SEQ/S"
                                : "TPOT",
                  false,
                  {}});
  if (wide) {
    cols.push_back({"TOK/S", false, {}});
    cols.push_back({"$/HOUR", false, {}});
  }
  cols.push_back({transcription ? "$/AUDIO H" : images ? "$/KIMG" : "$/MTOK", false, {}});
  cols.push_back({"TCO", false, {}});
  cols.push_back({"SIZED", true, {}});
  for (const auto* c : rows) {
    const auto& i = *c->inference;
    const auto& b = c->inference_bands;
    std::size_t k = 0;
    cols[k++].cells.push_back(std::to_string(c->rank));
    cols[k++].cells.push_back(gpu_cell(*c));
    cols[k++].cells.push_back(gpus_cell(*c));
    cols[k++].cells.push_back(precision_cell(*c, wide));
    if (wide) {
      cols[k++].cells.push_back(fmt::format(
          "{:.1f}/{:.0f}G", to_gib(c->memory.per_gpu.total()), to_gib(c->memory.budget)));
    }
    cols[k++].cells.push_back(
        time_cell(i.ttft.si(), b ? std::optional<Band>(b->ttft) : std::nullopt));
    if (transcription) {
      // Audio seconds per window times the windows' rate, and its band.
      const double per_window = c->spec->workload.inference.transcription->audio_per_window();
      cols[k++].cells.push_back(
          rate_cell(i.audio_seconds_per_s,
                    b ? std::optional<Band>(Band{b->requests_per_s.low * per_window,
                                                 b->requests_per_s.high * per_window})
                      : std::nullopt));
    } else {
      const auto rate = c->spec->generates_images() ? small_rate_cell : rate_cell;
      cols[k++].cells.push_back(
          embedding
              ? rate(i.requests_per_s, b ? std::optional<Band>(b->requests_per_s) : std::nullopt)
              : time_cell(i.tpot.si(), b ? std::optional<Band>(b->tpot) : std::nullopt));
    }
    if (wide) {
      cols[k++].cells.push_back(
          embedding || transcription
              ? fmt::format("{:.0f}",
                            transcription ? i.output_tokens_per_s : i.prefill_tokens_per_s)
              : rate_cell(i.output_tokens_per_s,
                          b ? std::optional<Band>(b->output_tokens_per_s) : std::nullopt));
      cols[k++].cells.push_back(money(c->cost.per_hour.si()));
    }
    const auto& per_unit = transcription ? c->cost.usd_per_audio_hour
                           : images      ? c->cost.usd_per_thousand_images
                                         : c->cost.usd_per_million_tokens;
    cols[k++].cells.push_back(per_unit ? money(*per_unit) : "-");
    cols[k++].cells.push_back(money(c->cost.tco.si()));
    cols[k++].cells.push_back(short_verdict(c->verdict));
  }
  return cols;
}

std::vector<Column> training_columns(const std::vector<const Candidate*>& rows, bool wide) {
  std::vector<Column> cols{
      {"#", false, {}}, {"GPU", true, {}}, {"GPUS", true, {}}, {"W/MATH", true, {}}};
  if (wide) {
    cols.push_back({"MEM/GPU", false, {}});
  }
  cols.push_back({"STEP", false, {}});
  cols.push_back({"MFU", false, {}});
  cols.push_back({"TIME", false, {}});
  if (wide) {
    cols.push_back({"$/HOUR", false, {}});
  }
  cols.push_back({"TCO", false, {}});
  cols.push_back({"SIZED", true, {}});
  for (const auto* c : rows) {
    const auto& t = *c->training;
    const auto& b = c->training_bands;
    std::size_t k = 0;
    cols[k++].cells.push_back(std::to_string(c->rank));
    cols[k++].cells.push_back(c->gpu->name);
    cols[k++].cells.push_back(gpus_cell(*c));
    cols[k++].cells.push_back(precision_cell(*c, true));
    if (wide) {
      cols[k++].cells.push_back(fmt::format(
          "{:.1f}/{:.0f}G", to_gib(c->memory.per_gpu.total()), to_gib(c->memory.capacity)));
    }
    cols[k++].cells.push_back(
        time_cell(t.step.si(), b ? std::optional<Band>(b->step) : std::nullopt));
    cols[k++].cells.push_back(fmt::format("{:.0f}%", 100.0 * t.mfu));
    cols[k++].cells.push_back(
        t.time_to_train ? time_cell(t.time_to_train->si(),
                                    b ? std::optional<Band>(b->time_to_train) : std::nullopt)
                        : "-");
    if (wide) {
      cols[k++].cells.push_back(money(c->cost.per_hour.si()));
    }
    cols[k++].cells.push_back(money(c->cost.tco.si()));
    cols[k++].cells.push_back(short_verdict(c->verdict));
  }
  return cols;
}

// Rejections with the same code, reason and fix, as one group.
struct RejectionGroup {
  std::vector<std::string> gpus;
  const Rejection* first = nullptr;
};

std::vector<RejectionGroup> group_rejections(const std::vector<Rejection>& rejected) {
  std::vector<RejectionGroup> groups;
  for (const auto& r : rejected) {
    auto same = std::find_if(groups.begin(), groups.end(), [&](const RejectionGroup& g) {
      return g.first->code == r.code && g.first->reason == r.reason &&
             g.first->nearest_fix == r.nearest_fix;
    });
    if (same == groups.end()) {
      groups.push_back({{}, &r});
      same = std::prev(groups.end());
    }
    same->gpus.push_back(r.gpu);
  }
  return groups;
}

std::string names_text(const std::vector<std::string>& names) {
  constexpr std::size_t k_listed = 4;
  if (names.size() <= k_listed) {
    return fmt::format("{}", fmt::join(names, ", "));
  }
  return fmt::format("{} and {} more",
                     fmt::join(names.begin(), names.begin() + k_listed, ", "),
                     names.size() - k_listed);
}

} // namespace

void render_plan_table(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const Spec& s = plan.spec;
  const std::size_t width = o.wide ? std::string::npos : k_narrow_width;
  const auto bold = [&](const std::string& t) { return o.color ? "\033[1m" + t + "\033[0m" : t; };
  const auto line = [&](const std::string& text, std::size_t indent) {
    out << wrap(text, width, indent) << '\n';
  };
  out << bold(fmt::format("{}: {}", s.name, s.model.name)) << '\n';
  line("  workload:     " + workload_line(s), 16);
  line("  requirements: " + requirements_line(plan), 16);
  line("  targets:      " + targets_line(s), 16);
  line("  deployment:   " +
           (s.deployment.mode == DeploymentMode::cloud
                ? fmt::format("cloud, {} prices, {} month{}, demand +{:.0f}%/month",
                              s.deployment.price_kind,
                              s.deployment.horizon_months,
                              s.deployment.horizon_months == 1 ? "" : "s",
                              100.0 * s.deployment.growth_per_month)
                : fmt::format("on-prem, {} months, demand +{:.0f}%/month",
                              s.deployment.horizon_months,
                              100.0 * s.deployment.growth_per_month)) +
           ", ranked by " + objective_text(plan),
       16);
  if (!plan.uncertainty_note.empty()) {
    line("  margins:      " + plan.uncertainty_note, 16);
  }
  for (const auto& note : plan.notes) {
    line("  note:         " + note, 16);
  }
  out << '\n';
  if (!plan.feasible()) {
    out << bold("nothing feasible") << ": no GPU configuration meets the spec; closest misses:\n";
  } else {
    const auto rows = shown(plan, o);
    print_columns(s.workload.is_training() ? training_columns(rows, o.wide)
                                           : inference_columns(rows, o.wide),
                  out);
    if (!o.wide && !s.workload.is_training() &&
        std::any_of(rows.begin(), rows.end(), [](const Candidate* c) {
          return precision_cell(*c, false).find('*') != std::string::npos;
        })) {
      out << "* weights in that format, math in 16-bit (weight-only kernels; --wide shows all)\n";
    }
    if (rows.size() < plan.candidates.size()) {
      out << fmt::format("({} more candidates: --top {} or --format json)\n",
                         plan.candidates.size() - rows.size(),
                         plan.candidates.size());
    }
    for (const auto& text : uncalibrated_lines(rows)) {
      line("uncalibrated: " + text, 2);
    }
  }
  if (plan.feasible()) {
    out << '\n';
    const auto& best = plan.candidates.front();
    out << bold(wrap(
               fmt::format("recommended: {} x {} ({}{}): {}, {}",
                           best.total_gpus(),
                           best.partition.empty()
                               ? best.gpu->name
                               : best.partition + " MIG slice of " + best.whole_gpu->name,
                           layout_text(best),
                           best.replicas > 1 ? fmt::format(", {} replicas", best.replicas) : "",
                           best.verdict,
                           best.verdict_reason),
               width,
               2))
        << '\n';
    line("  " + (best.inference ? best.inference->explanation : best.training->explanation), 4);
    line("  price " + best.cost.price_label + (best.cost.price_stale ? " STALE" : "") + "; " +
             best.cost.basis,
         4);
    if (best.cost.stops_meeting_targets_month) {
      line(fmt::format("  with demand growing {:.0f}%/month it stops meeting targets in month {} "
                       "unless more replicas are added",
                       100.0 * s.deployment.growth_per_month,
                       *best.cost.stops_meeting_targets_month),
           4);
    }
    if (!best.precision_note.empty()) {
      line("  precision: " + best.precision_note, 4);
    }
    if (best.calibration && !best.calibration->measured) {
      line("  UNCALIBRATED: " + best.calibration->text, 4);
    }
    if (best.published) {
      line("  " + published_line(*best.published), 4);
    }
    if (best.partition.empty()) {
      line("  check it: rightsize " + estimate_args(plan, best), 4);
    }
  }
  if (!plan.rejected.empty()) {
    const auto groups = group_rejections(plan.rejected);
    out << "\nnot recommended (" << plan.rejected.size() << " GPUs):\n";
    std::size_t listed = 0;
    for (const auto& g : groups) {
      if (o.top > 0 && listed >= static_cast<std::size_t>(o.top)) {
        const std::size_t more = groups.size() - listed;
        out << fmt::format(
            "  ... {} more group{} (--format json lists every one)\n", more, more == 1 ? "" : "s");
        break;
      }
      ++listed;
      const Rejection& r = *g.first;
      std::string text =
          r.code == "constraint" && g.gpus.size() > 1
              ? fmt::format(
                    "  {} GPUs excluded: {} ({})", g.gpus.size(), r.reason, names_text(g.gpus))
              : fmt::format("  {}: {}", names_text(g.gpus), r.reason);
      if (!r.nearest_fix.empty()) {
        text += " (try: " + r.nearest_fix + ")";
      }
      line(text, 4);
    }
  }
  std::string assumptions = fmt::format(
      "assumptions: prices per GPU-hour from the catalog (rightsize catalog show NAME); {:g} "
      "h/month",
      s.deployment.hours_per_month);
  if (s.deployment.mode == DeploymentMode::onprem) {
    assumptions += fmt::format(", PUE {:g}, ${:g}/kWh, {:.0f}% utilization, {:g}-year amortization",
                               s.deployment.pue,
                               s.deployment.electricity_usd_per_kwh,
                               100.0 * s.deployment.utilization,
                               s.deployment.amortization_years);
  }
  assumptions += "; memory and efficiency constants in data/ (--format json lists every one)";
  out << '\n';
  line(assumptions, 2);
}

void render_plan_markdown(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const Spec& s = plan.spec;
  out << "### rightsize plan: " << s.name << "\n\n";
  if (plan.feasible()) {
    const auto& b = plan.candidates.front();
    out << fmt::format("**Recommended: {} x {} ({})**, {}; {} per hour, TCO {} over {} months.\n\n",
                       b.total_gpus(),
                       b.gpu->name,
                       layout_text(b),
                       b.verdict,
                       money(b.cost.per_hour.si()),
                       money(b.cost.tco.si()),
                       s.workload.is_training() ? 0 : s.deployment.horizon_months);
  } else {
    out << "**Nothing feasible**: no GPU configuration meets the spec.\n\n";
  }
  out << "- Workload: " << workload_line(s) << "\n- Requirements: " << requirements_line(plan)
      << "\n- Targets: " << targets_line(s) << "\n";
  for (const auto& text : uncalibrated_lines(shown(plan, o))) {
    out << "- Uncalibrated: " << text << "\n";
  }
  if (plan.feasible() && plan.candidates.front().published) {
    std::string text = published_line(*plan.candidates.front().published);
    text[0] = 'P';
    out << "- " << text << "\n";
  }
  out << "\n";
  if (plan.feasible()) {
    if (s.workload.is_training()) {
      out << "| # | GPU | GPUs | Layout | Memory/GPU | Step | MFU | Time | $/hour | TCO | Verdict "
             "|\n";
      out << "|---|---|---|---|---|---|---|---|---|---|---|\n";
      for (const auto* c : shown(plan, o)) {
        const auto& t = *c->training;
        out << fmt::format(
            "| {} | {} | {} | {} | {:.1f} GiB | {} | {:.0f}% | {} | {} | {} | {} |\n",
            c->rank,
            c->gpu->name,
            c->total_gpus(),
            layout_text(*c),
            to_gib(c->memory.per_gpu.total()),
            format_seconds(t.step),
            100.0 * t.mfu,
            t.time_to_train ? format_seconds(*t.time_to_train) : "-",
            money(c->cost.per_hour.si()),
            money(c->cost.tco.si()),
            c->verdict);
      }
    } else {
      // An embedding workload: a sequence's latency, sequences/s and tokens embedded per second
      // where generation shows TTFT, TPOT and output tokens per second.
      const bool embedding = s.workload.one_pass();
      const bool images = s.per_image();
      const bool transcription = s.workload.is_transcription();
      out << (transcription
                  ? "| # | GPU | GPUs | Layout | Memory/GPU | Latency | Audio s/s | Tokens/s | "
                    "$/hour | $/audio hour | TCO | Verdict |\n"
              : images    ? "| # | GPU | GPUs | Layout | Memory/GPU | Latency | Images/s | "
                            "Tokens/s | $/hour | $/1000 images | TCO | Verdict |\n"
              : embedding ? "| # | GPU | GPUs | Layout | Memory/GPU | Latency | Sequences/s | "
                            "Tokens/s | $/hour | $/M tokens | TCO | Verdict |\n"
                          : "| # | GPU | GPUs | Layout | Memory/GPU | TTFT | TPOT | Tokens/s | "
                            "$/hour | $/M tokens | TCO | Verdict |\n");
      out << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
      for (const auto* c : shown(plan, o)) {
        const auto& i = *c->inference;
        out << fmt::format(
            "| {} | {} | {} | {} | {:.1f} GiB | {} | {} | {:.0f} | {} | {} | {} | {} |\n",
            c->rank,
            c->gpu->name,
            c->total_gpus(),
            c->replicas > 1 ? fmt::format("{} x {}", c->replicas, layout_text(*c))
                            : layout_text(*c),
            to_gib(c->memory.per_gpu.total()),
            format_seconds(i.ttft),
            transcription ? fmt::format("{:.0f}", i.audio_seconds_per_s)
            : embedding   ? fmt::format("{:.1f}", i.requests_per_s)
                          : format_seconds(i.tpot),
            embedding ? i.prefill_tokens_per_s : i.output_tokens_per_s,
            money(c->cost.per_hour.si()),
            transcription ? (c->cost.usd_per_audio_hour ? money(*c->cost.usd_per_audio_hour) : "-")
            : images
                ? (c->cost.usd_per_thousand_images ? money(*c->cost.usd_per_thousand_images) : "-")
            : c->cost.usd_per_million_tokens ? money(*c->cost.usd_per_million_tokens)
                                             : "-",
            money(c->cost.tco.si()),
            c->verdict);
      }
    }
    out << '\n';
  }
  if (!plan.rejected.empty()) {
    out << "<details><summary>Not recommended (" << plan.rejected.size() << ")</summary>\n\n";
    for (const auto& r : plan.rejected) {
      out << fmt::format("- **{}** `{}`: {}", r.gpu, r.code, r.reason);
      if (!r.nearest_fix.empty()) {
        out << " (try: " << r.nearest_fix << ")";
      }
      out << '\n';
    }
    out << "\n</details>\n";
  }
}

// A unit price in the CSV: `decimals` places, or four significant digits where those places
// would keep fewer (an embedding's $0.00118 per million tokens read 0.0012 at four places).
std::string price_cell(double usd, int decimals) {
  if (usd > 0.0 && usd < std::pow(10.0, 3 - decimals)) {
    return fmt::format("{:.4g}", usd);
  }
  return fmt::format("{:.{}f}", usd, decimals);
}

void render_plan_csv(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  out << "rank,gpu,gpus,replicas,tp,pp,dp,ep,weights,kv_cache,memory_per_gpu_bytes,ttft_s,tpot_s,"
         "output_tokens_per_s,step_s,mfu,time_to_train_s,usd_per_hour,usd_per_million_tokens,tco_"
         "usd,"
         "verdict,sequences_per_s,input_tokens_per_s,audio_seconds_per_s,usd_per_audio_hour";
  // sequences_per_s and input_tokens_per_s are an embedding workload's (its ttft_s is a
  // sequence's latency), the next two a transcription's (its ttft_s is a request's latency);
  // an image workload adds two (a sequence is an image). Image generation's tokens are the
  // denoiser's latent positions, which no one buys: its per-token cells stay empty.
  // A training workload adds its context-parallel size (tp x cp x pp x dp is its GPUs).
  const bool images = plan.spec.per_image();
  const bool training = plan.spec.workload.is_training();
  out << (images ? ",images_per_s,usd_per_thousand_images\n" : training ? ",cp\n" : "\n");
  const bool embedding = plan.spec.workload.one_pass();
  const bool latent_tokens = plan.spec.generates_images();
  for (const auto* c : shown(plan, o)) {
    const bool embeds = embedding && c->inference;
    const bool transcribes = plan.spec.workload.is_transcription() && c->inference;
    const auto& per_million_tokens = c->cost.usd_per_million_tokens;
    out << fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{:.0f},{},{},{},{},{},{},{:.4f},{},{:.2f},{},{},{},{},{}{}",
        c->rank,
        c->gpu->name,
        c->total_gpus(),
        c->replicas,
        c->layout.tp,
        c->layout.pp,
        c->layout.dp,
        c->layout.ep,
        to_string(c->spec->precision.weights),
        to_string(c->spec->precision.kv_cache),
        c->memory.per_gpu.total().si(),
        c->inference ? fmt::format("{:.4f}", c->inference->ttft.si()) : "",
        c->inference && !embeds ? fmt::format("{:.5f}", c->inference->tpot.si()) : "",
        c->inference && !embeds ? fmt::format("{:.1f}", c->inference->output_tokens_per_s) : "",
        c->training ? fmt::format("{:.3f}", c->training->step.si()) : "",
        c->training ? fmt::format("{:.4f}", c->training->mfu) : "",
        c->training && c->training->time_to_train
            ? fmt::format("{:.0f}", c->training->time_to_train->si())
            : "",
        c->cost.per_hour.si(),
        per_million_tokens && !latent_tokens ? price_cell(*per_million_tokens, 4) : "",
        c->cost.tco.si(),
        c->verdict,
        embeds ? fmt::format("{:.2f}", c->inference->requests_per_s) : "",
        embeds && !latent_tokens ? fmt::format("{:.1f}", c->inference->prefill_tokens_per_s) : "",
        transcribes ? fmt::format("{:.1f}", c->inference->audio_seconds_per_s) : "",
        transcribes && c->cost.usd_per_audio_hour ? price_cell(*c->cost.usd_per_audio_hour, 6) : "",
        images || training ? "" : "\n");
    if (training) {
      out << fmt::format(",{}\n", c->layout.cp);
    }
    if (images) {
      out << fmt::format(
          ",{},{}\n",
          embeds ? fmt::format("{:.2f}", c->inference->requests_per_s) : "",
          c->cost.usd_per_thousand_images ? price_cell(*c->cost.usd_per_thousand_images, 5) : "");
    }
  }
}

} // namespace rightsize
