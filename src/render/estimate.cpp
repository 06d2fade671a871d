#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/estimate.hpp>

#include <fmt/format.h>

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

} // namespace

nlohmann::json estimate_to_json(const EstimateReport& r) {
  const auto& m = r.memory;
  const auto& p = r.parallelism;
  nlohmann::json j{
      {"schema_version", 1},
      {"spec", r.spec.name},
      {"gpu", r.gpu.name},
      {"gpus", p.gpus()},
      {"parallelism", {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"ep", p.ep}}},
      {"fits", m.fits},
      {"memory",
       {{"capacity_bytes", m.capacity.si()},
        {"budget_bytes", m.budget.si()},
        {"per_gpu",
         {{"weights_bytes", m.per_gpu.weights.si()},
          {"kv_cache_bytes", m.per_gpu.kv_cache.si()},
          {"activations_bytes", m.per_gpu.activations.si()},
          {"gradients_bytes", m.per_gpu.gradients.si()},
          {"optimizer_bytes", m.per_gpu.optimizer.si()},
          {"overhead_bytes", m.per_gpu.overhead.si()},
          {"total_bytes", m.per_gpu.total().si()}}},
        {"headroom_bytes", (m.budget - m.per_gpu.total()).si()}}},
      {"assumptions", assumptions_json(m.assumptions)},
      {"notes", m.notes},
  };
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
  }
  if (r.inference) {
    j["bottleneck"] = r.inference->bottleneck;
    j["explanation"] = r.inference->explanation;
  } else if (r.training) {
    j["bottleneck"] = r.training->bottleneck;
    j["explanation"] = r.training->explanation;
  }
  return j;
}

void render_estimate_json(const EstimateReport& r, std::ostream& out) {
  out << detail::dump_json(estimate_to_json(r), 2) << '\n';
}

void render_estimate_table(const EstimateReport& r, std::ostream& out) {
  const auto& m = r.memory;
  const auto& p = r.parallelism;
  const auto& s = r.spec;
  std::string what;
  if (s.workload.is_training()) {
    const auto& w = s.workload.training;
    const std::string kind = s.workload.type == WorkloadType::finetune
                                 ? fmt::format("{} fine-tuning", to_string(w.method))
                                 : std::string("training");
    what = fmt::format("{} on {}, seq {} x micro-batch {}, {} recipe ({:.1f} B per trainable "
                       "parameter), ZeRO {}, recompute {}",
                       kind,
                       to_string(w.framework),
                       w.seq_len,
                       m.batch,
                       m.precision_recipe,
                       m.bytes_per_param,
                       w.zero_stage,
                       to_string(w.recompute));
  } else {
    const auto& i = s.workload.inference;
    what = fmt::format("inference on {}, {} in + {} out tokens, weights {}, KV cache {}",
                       to_string(i.engine),
                       i.input_tokens,
                       i.output_tokens,
                       s.weights.quantized() ? s.weights.method
                                             : std::string(to_string(s.precision.weights)),
                       to_string(s.precision.kv_cache));
  }
  out << fmt::format("{}: {} on {} x {} (tp {}, pp {}, dp {}, ep {})\n",
                     s.name,
                     s.model.name,
                     p.gpus(),
                     r.gpu.name,
                     p.tp,
                     p.pp,
                     p.dp,
                     p.ep);
  out << "  " << what << "\n\n";
  out << fmt::format("memory per GPU: {} of {} usable ({} capacity)\n",
                     gib_text(m.per_gpu.total()),
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
  if (s.workload.is_training()) {
    out << fmt::format(
        "fits: {} ({} headroom)\n", m.fits ? "yes" : "NO", gib_text(m.budget - m.per_gpu.total()));
    if (r.training) {
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
        if (t.meets_deadline) {
          out << (*t.meets_deadline ? " (meets the deadline)" : " (MISSES the deadline)");
        }
      }
      out << "\n  " << t.explanation << '\n';
    }
  } else {
    out << fmt::format("fits: {}: {} concurrent sequences; at most {} fit ({} of KV cache each, "
                       "{} per token)\n",
                       m.fits ? "yes" : "NO",
                       m.batch,
                       m.max_batch,
                       format_bytes(m.kv_per_sequence),
                       format_bytes(m.kv_per_token));
    out << fmt::format("longest single sequence that fits: {} tokens\n", m.max_context);
    if (r.inference && r.inference->concurrency > 0) {
      const auto& i = *r.inference;
      out << fmt::format("\nspeed ({} math): TTFT {}, TPOT {}, {:.0f} output tokens/s, {:.2f} "
                         "requests/s\n",
                         to_string(i.compute_precision),
                         format_seconds(i.ttft),
                         format_seconds(i.tpot),
                         i.output_tokens_per_s,
                         i.requests_per_s);
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
  }
  for (const auto& n : m.notes) {
    out << "note: " << n << '\n';
  }
  out << "\nassumptions:\n";
  for (const auto& a : m.assumptions) {
    out << fmt::format("  {} = {:g}  ({})\n", a.name, a.value, a.source);
  }
  for (const auto& d : s.defaults) {
    out << "  " << d << '\n';
  }
}

} // namespace rightsize
