#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/estimate.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

namespace {

nlohmann::json assumptions_json(const std::vector<Assumption>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : list) {
    out.push_back({{"name", a.name}, {"value", a.value}, {"source", a.source}});
  }
  return out;
}

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

nlohmann::json band_json(const std::optional<Band>& b) {
  return b ? nlohmann::json::array({b->low, b->high}) : nlohmann::json(nullptr);
}

std::optional<Band> in_ms(const Band& b) {
  return Band{b.low * 1e3, b.high * 1e3};
}

std::optional<Band> in_hours(const Band& b) {
  return Band{b.low / 3600.0, b.high / 3600.0};
}

nlohmann::json bands_json(const EstimateReport& r) {
  nlohmann::json j{{"coverage", r.band_coverage}, {"memory_total_bytes", band_json(r.memory_band)}};
  if (const auto& b = r.inference_bands) {
    j["ttft_ms"] = band_json(in_ms(b->ttft));
    j["tpot_ms"] = band_json(in_ms(b->tpot));
    j["output_tokens_per_s"] = band_json(b->output_tokens_per_s);
    j["requests_per_s"] = band_json(b->requests_per_s);
    j["basis"] = {{"ttft", b->ttft_ratio.basis}, {"tpot", b->tpot_ratio.basis}};
  }
  if (const auto& b = r.training_bands) {
    j["step_time_s"] = band_json(b->step);
    j["tokens_per_s"] = band_json(b->tokens_per_s);
    j["time_to_train_hours"] = r.training && r.training->time_to_train
                                   ? band_json(in_hours(b->time_to_train))
                                   : nlohmann::json(nullptr);
    j["basis"] = {{"step_time", b->step_ratio.basis}};
  }
  return j;
}

// "TPOT", "requests/s": how a person calls a target.
std::string target_label(const std::string& target) {
  if (target == "ttft_ms") {
    return "TTFT";
  }
  if (target == "tpot_ms") {
    return "TPOT";
  }
  if (target == "output_tokens_per_s") {
    return "output tokens/s";
  }
  if (target == "deadline_hours") {
    return "time to train";
  }
  return "requests/s";
}

// Three significant digits in a unit chosen by the size: "38.2 ms", "50 ms", "1.5 s", "6.2 h".
std::string compact_seconds(double s) {
  if (s < 1.0) {
    return fmt::format("{:.3g} ms", s * 1e3);
  }
  if (s < 120.0) {
    return fmt::format("{:.3g} s", s);
  }
  if (s < 48.0 * 3600.0) {
    return fmt::format("{:.3g} h", s / 3600.0);
  }
  return fmt::format("{:.3g} days", s / 86400.0);
}

// A target's value in its unit, for a person: "38.2 ms", "6.2 h", "1234", "0.5".
std::string target_value(const std::string& target, double v) {
  if (target == "ttft_ms" || target == "tpot_ms") {
    return compact_seconds(v / 1e3);
  }
  if (target == "deadline_hours") {
    return compact_seconds(v * 3600.0);
  }
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

// "TPOT 38.2 ms vs 50 ms: met, 24% under": the value judged against the limit, and by how much.
std::string target_summary(const TargetCheck& t, int replicas) {
  const double pct = 100.0 * std::abs(t.margin);
  const char* const how =
      t.at_most ? (t.margin >= 0 ? "under" : "over") : (t.margin >= 0 ? "above" : "short");
  const bool rate = t.target == "requests_per_s" || t.target == "output_tokens_per_s";
  return fmt::format("{}{} {} vs {}{}: {}, {:.0f}% {}",
                     target_label(t.target),
                     rate && replicas > 1 ? fmt::format(" (all {} replicas)", replicas) : "",
                     target_value(t.target, t.held),
                     t.at_most ? "" : ">= ",
                     target_value(t.target, t.limit),
                     t.met ? "met" : "MISSED",
                     pct,
                     how);
}

nlohmann::json targets_json(const EstimateReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : r.targets) {
    out.push_back({{"target", t.target},
                   {"kind", t.at_most ? "at_most" : "at_least"},
                   {"limit", t.limit},
                   {"predicted", t.predicted},
                   {"band", band_json(t.band)},
                   {"held", t.held},
                   {"met", t.met},
                   {"met_at_point", t.met_at_point},
                   {"margin", t.margin},
                   {"summary", target_summary(t, r.replicas)}});
  }
  return out;
}

nlohmann::json cost_json(const EstimateReport& r) {
  if (!r.cost) {
    return nullptr;
  }
  const auto& c = *r.cost;
  nlohmann::json j{{"usd_per_hour", c.per_hour.si()},
                   {"price_usd_per_gpu_hour", c.price.per_gpu.si()},
                   {"provider", c.price.provider},
                   {"kind", c.price.kind},
                   {"price", c.price_label},
                   {"price_stale", c.price_stale}};
  const char* const per_million =
      r.training ? "usd_per_million_trained_tokens" : "usd_per_million_output_tokens";
  j[per_million] = c.usd_per_million_tokens ? nlohmann::json(*c.usd_per_million_tokens)
                                            : nlohmann::json(nullptr);
  if (r.training) {
    j["usd_to_train"] = c.to_train ? nlohmann::json(c.to_train->si()) : nlohmann::json(nullptr);
  }
  return j;
}

} // namespace

nlohmann::json estimate_sections_json(const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& p = r.parallelism;
  nlohmann::json j = nlohmann::json::object();
  j["parallelism"] = {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp * r.replicas}, {"ep", p.ep}};
  j["memory"] = {{"capacity_bytes", m.capacity.si()},
                 {"budget_bytes", m.budget.si()},
                 {"per_gpu",
                  {{"weights_bytes", m.per_gpu.weights.si()},
                   {"kv_cache_bytes", m.per_gpu.kv_cache.si()},
                   {"activations_bytes", m.per_gpu.activations.si()},
                   {"gradients_bytes", m.per_gpu.gradients.si()},
                   {"optimizer_bytes", m.per_gpu.optimizer.si()},
                   {"overhead_bytes", m.per_gpu.overhead.si()},
                   {"total_bytes", m.per_gpu.total().si()}}},
                 {"headroom_bytes", (m.budget - m.per_gpu.total()).si()}};
  if (r.spec.workload.is_training()) {
    const auto& w = r.spec.workload.training;
    j["training"] = {
        {"micro_batch", m.batch},
        {"step_time_s", r.training ? r.training->step.si() : 0.0},
        {"tokens_per_s", r.training ? r.training->tokens_per_s : 0.0},
        {"mfu", r.training ? r.training->mfu : 0.0},
        {"time_to_train_hours",
         r.training && r.training->time_to_train
             ? nlohmann::json(to_hours(*r.training->time_to_train))
             : nlohmann::json(nullptr)},
        {"meets_deadline",
         r.training && r.training->meets_deadline ? nlohmann::json(*r.training->meets_deadline)
                                                  : nlohmann::json(nullptr)},
        {"breakdown_s",
         r.training
             ? nlohmann::json{{"compute", r.training->compute.si()},
                              {"pipeline_bubble", r.training->pipeline_bubble.si()},
                              {"tensor_parallel", r.training->tensor_parallel_communication.si()},
                              {"data_parallel_exposed", r.training->data_parallel_exposed.si()}}
             : nlohmann::json(nullptr)},
        {"global_batch", w.global_batch},
        {"seq_len", w.seq_len},
        {"trainable_params", m.trainable_params},
        {"precision_recipe", m.precision_recipe},
        {"bytes_per_trainable_param", m.bytes_per_param},
        {"zero_stage", w.zero_stage},
        {"recompute", std::string(to_string(w.recompute))}};
  } else {
    const auto& perf = r.inference;
    j["inference"] = {
        {"batch", m.batch},
        {"ttft_ms", perf ? to_ms(perf->ttft) : 0.0},
        {"tpot_ms", perf ? to_ms(perf->tpot) : 0.0},
        {"output_tokens_per_s", perf ? perf->output_tokens_per_s : 0.0},
        {"requests_per_s", perf ? perf->requests_per_s : 0.0},
        {"prefill_tokens_per_s", perf ? perf->prefill_tokens_per_s : 0.0},
        {"prefill_ms", perf ? to_ms(perf->prefill) : 0.0},
        {"decode_step_ms", perf ? to_ms(perf->decode_step) : 0.0},
        {"compute_precision", perf ? std::string(to_string(perf->compute_precision)) : ""},
        {"max_batch", m.max_batch},
        {"max_context_tokens", m.max_context},
        {"kv_cache_per_token_bytes", m.kv_per_token.si()},
        {"kv_cache_per_sequence_bytes", m.kv_per_sequence.si()},
        {"kv_cache_pool_bytes", m.kv_pool.si()},
        {"engine", std::string(to_string(r.spec.workload.inference.engine))}};
    const double n = r.replicas;
    j["per_replica"] = {{"batch", m.batch},
                        {"output_tokens_per_s", perf ? perf->output_tokens_per_s / n : 0.0},
                        {"requests_per_s", perf ? perf->requests_per_s / n : 0.0}};
  }
  if (r.inference) {
    j["bottleneck"] = r.inference->bottleneck;
    j["explanation"] = r.inference->explanation;
  } else if (r.training) {
    j["bottleneck"] = r.training->bottleneck;
    j["explanation"] = r.training->explanation;
  }
  j["confidence"] = r.judged_at_band_edge ? "band" : "point";
  j["bands"] = bands_json(r);
  // The same bands beside the figures they qualify, as plan reports them:
  // inference.bands.<field>, training.bands.<field>, memory.bands.total_bytes.
  const nlohmann::json& bands = j["bands"];
  const auto pick = [&](std::initializer_list<const char*> fields) {
    nlohmann::json out = nlohmann::json::object();
    for (const char* f : fields) {
      if (bands.contains(f)) {
        out[f] = bands[f];
      }
    }
    return out;
  };
  if (r.inference_bands && j.contains("inference")) {
    j["inference"]["bands"] =
        pick({"ttft_ms", "tpot_ms", "output_tokens_per_s", "requests_per_s", "basis"});
  }
  if (r.training_bands && j.contains("training")) {
    j["training"]["bands"] = pick({"step_time_s", "tokens_per_s", "time_to_train_hours", "basis"});
  }
  if (r.memory_band && j.contains("memory")) {
    j["memory"]["bands"] = {{"total_bytes", bands["memory_total_bytes"]}};
  }
  return j;
}

nlohmann::json estimate_to_json(const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& p = r.parallelism;
  nlohmann::json j = estimate_sections_json(r);
  j["schema_version"] = 1;
  j["spec"] = r.spec.name;
  j["gpu"] = r.gpu.name;
  j["gpus"] = p.gpus() * r.replicas;
  j["gpus_per_replica"] = p.gpus();
  j["replicas"] = r.replicas;
  j["precision"] = {{"weights", std::string(to_string(r.spec.precision.weights))},
                    {"kv_cache", std::string(to_string(r.spec.precision.kv_cache))}};
  j["fits"] = m.fits;
  j["assumptions"] = assumptions_json(m.assumptions);
  j["notes"] = m.notes;
  j["targets"] = targets_json(r);
  if (r.calibration) {
    j["calibration"] = {{"measured", r.calibration->measured}, {"basis", r.calibration->text}};
  }
  j["cost"] = cost_json(r);
  if (!r.cost_note.empty()) {
    j["cost_note"] = r.cost_note;
  }
  return j;
}

void render_estimate_json(const EstimateReport& r, std::ostream& out) {
  out << detail::dump_json(estimate_to_json(r), 2) << '\n';
}

namespace {

// A band in one unit chosen by its high end: "339-612 ms", "1.2-2.31 s", "9.1-10.2 days".
std::string seconds_band(const Band& b) {
  const auto in = [&](double scale, const char* unit) {
    return fmt::format("{:.3g}-{:.3g} {}", b.low * scale, b.high * scale, unit);
  };
  if (b.high < 1.0) {
    return in(1e3, "ms");
  }
  if (b.high < 120.0) {
    return in(1.0, "s");
  }
  if (b.high < 48.0 * 3600.0) {
    return in(1.0 / 3600.0, "h");
  }
  return in(1.0 / 86400.0, "days");
}

std::string rate_band(const Band& b) {
  return fmt::format("{:.0f}-{:.0f}", b.low, b.high);
}

std::string workload_line(const EstimateReport& r) {
  const auto& s = r.spec;
  const auto& m = r.memory;
  if (s.workload.is_training()) {
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
  const auto& i = s.workload.inference;
  return fmt::format("inference on {}, {} + {} out tokens, weights {}, KV cache {}",
                     to_string(i.engine),
                     i.describe_input(),
                     i.output_tokens,
                     s.weights.quantized() ? s.weights.method
                                           : std::string(to_string(s.precision.weights)),
                     to_string(s.precision.kv_cache));
}

// "8b: llama on 2 x H100 (tp 2, pp 1, dp 1, ep 1)", or with replicas "on 8 x H100: 4 replicas
// of tp 2, pp 1, ep 1 (2 GPUs each)".
void render_header(const EstimateReport& r, std::ostream& out) {
  const auto& p = r.parallelism;
  const auto& s = r.spec;
  if (r.replicas > 1) {
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
    out << fmt::format("{}: {} on {} x {} (tp {}, pp {}, dp {}, ep {})\n",
                       s.name,
                       s.model.name,
                       p.gpus(),
                       r.gpu.name,
                       p.tp,
                       p.pp,
                       p.dp,
                       p.ep);
  }
  out << "  " << workload_line(r) << "\n\n";
}

void render_memory(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  out << fmt::format("memory per GPU: {}{} of {} usable ({} capacity)\n",
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
    out << fmt::format("  {:<12} {:>10}  {}\n", name, gib_text(b), bar(b, m.capacity, 40));
  };
  row("weights", m.per_gpu.weights);
  row("kv cache", m.per_gpu.kv_cache);
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
  out << fmt::format("\nspeed: step {} (compute {}, pipeline bubble {}, tensor-parallel {}, "
                     "exposed data-parallel {})\n",
                     format_seconds(t.step),
                     format_seconds(t.compute),
                     format_seconds(t.pipeline_bubble),
                     format_seconds(t.tensor_parallel_communication),
                     format_seconds(t.data_parallel_exposed));
  out << fmt::format("  {:.0f} tokens/s, MFU {:.1f}%", t.tokens_per_s, 100.0 * t.mfu);
  if (t.time_to_train) {
    out << fmt::format(", {} to train", format_seconds(*t.time_to_train));
  }
  out << '\n';
  if (const auto& b = r.training_bands) {
    out << fmt::format("  {:.0f}% band: step {}, {} tokens/s",
                       100.0 * r.band_coverage,
                       seconds_band(b->step),
                       rate_band(b->tokens_per_s));
    if (t.time_to_train) {
      out << fmt::format(", {} to train", seconds_band(b->time_to_train));
    }
    out << '\n';
  }
  out << "  " << t.explanation << '\n';
}

void render_inference(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  const std::string sequences =
      r.replicas > 1 ? fmt::format("per replica: {} concurrent sequences ({} over {} replicas)",
                                   m.batch,
                                   m.batch * r.replicas,
                                   r.replicas)
                     : fmt::format("{} concurrent sequences", m.batch);
  out << fmt::format("fits: {}{} {}; at most {} fit ({} of KV cache each, {} per token)\n",
                     m.fits ? "yes" : "NO",
                     r.replicas > 1 ? "," : ":",
                     sequences,
                     m.max_batch,
                     format_bytes(m.kv_per_sequence),
                     format_bytes(m.kv_per_token));
  out << fmt::format("longest single sequence that fits: {} tokens\n", m.max_context);
  if (!r.inference || r.inference->concurrency <= 0) {
    return;
  }
  const auto& i = *r.inference;
  const double n = r.replicas;
  out << fmt::format("\nspeed ({} math){}: TTFT {}, TPOT {}, {:.0f} output tokens/s, {:.2f} "
                     "requests/s\n",
                     to_string(i.compute_precision),
                     r.replicas > 1 ? ", per replica" : "",
                     format_seconds(i.ttft),
                     format_seconds(i.tpot),
                     i.output_tokens_per_s / n,
                     i.requests_per_s / n);
  if (r.replicas > 1) {
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
  out << fmt::format("  one prefill {} alone; one decode step {} (memory {}, compute {}, "
                     "all-reduce {}, fixed {}); prefills take {:.0f}% of the time\n",
                     format_seconds(i.prefill),
                     format_seconds(i.decode_step),
                     format_seconds(i.decode_memory),
                     format_seconds(i.decode_compute),
                     format_seconds(i.decode_communication),
                     format_seconds(i.decode_fixed),
                     100.0 * i.prefill_share);
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
  out << fmt::format("\ncost: {} = {} GPU{} x {}{}\n",
                     format_usd_per_hour(c.per_hour),
                     gpus,
                     gpus == 1 ? "" : "s",
                     c.price_label,
                     c.price_stale ? " (stale price)" : "");
  if (c.usd_per_million_tokens) {
    out << fmt::format("  {} per million {} tokens at this load",
                       format_usd(Usd(*c.usd_per_million_tokens)),
                       r.training ? "trained" : "output");
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
  if (r.spec.workload.is_training()) {
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
