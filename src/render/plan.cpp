#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/render/plan.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::string layout_text(const Candidate& c) {
  std::string s = fmt::format("TP{}", c.layout.tp);
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

std::string count_layout(const Candidate& c) {
  if (c.replicas > 1) {
    return fmt::format("{}x {}", c.replicas, layout_text(c));
  }
  return fmt::format("{} {}", c.gpus_per_replica(), layout_text(c));
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
  return fmt::format("inference on {}, {} in + {} out tokens, {}",
                     to_string(i.engine),
                     i.input_tokens,
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
    if (x.ttft) {
      t.push_back("TTFT <= " + format_seconds(*x.ttft));
    }
    if (x.tpot) {
      t.push_back("TPOT <= " + format_seconds(*x.tpot));
    }
    if (x.output_tokens_per_s) {
      t.push_back(fmt::format(">= {:g} output tokens/s", *x.output_tokens_per_s));
    }
    if (x.requests_per_s) {
      t.push_back(fmt::format(">= {:g} requests/s", *x.requests_per_s));
    }
  }
  return t.empty() ? "none (cheapest configuration that fits)"
                   : fmt::format("{}", fmt::join(t, ", "));
}

std::string requirements_line(const Plan& p) {
  const auto& r = p.requirements;
  std::string line =
      fmt::format("weights {} ({}), {:.2f}B parameters ({:.2f}B active)",
                  format_bytes(r.weights),
                  p.spec.weights.quantized() ? p.spec.weights.method
                                             : std::string(to_string(p.spec.precision.weights)),
                  r.params_total / 1e9,
                  r.params_active / 1e9);
  if (!p.spec.workload.is_training()) {
    line += fmt::format(", KV cache {} per request ({}), {} per output token",
                        format_bytes(r.kv_per_request),
                        to_string(p.spec.precision.kv_cache),
                        format_flops(r.flops_per_token));
  } else {
    line += fmt::format(", {} per trained token", format_flops(r.flops_per_token));
  }
  return line;
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

nlohmann::json candidate_json(const Candidate& c) {
  const EstimateReport report{c.spec, *c.gpu, c.layout, c.memory, c.inference, c.training};
  nlohmann::json e = estimate_to_json(report);
  nlohmann::json j{
      {"rank", c.rank},
      {"gpu", c.gpu->name},
      {"gpus_per_replica", c.gpus_per_replica()},
      {"replicas", c.replicas},
      {"gpus", c.total_gpus()},
      {"parallelism", e["parallelism"]},
      {"precision",
       {{"weights", std::string(to_string(c.spec.precision.weights))},
        {"kv_cache", std::string(to_string(c.spec.precision.kv_cache))}}},
      {"memory", e["memory"]},
      {"cost",
       {{"usd_per_hour", c.cost.per_hour.si()},
        {"usd_per_million_output_tokens",
         c.cost.usd_per_million_output_tokens
             ? nlohmann::json(*c.cost.usd_per_million_output_tokens)
             : nlohmann::json(nullptr)},
        {"usd_per_million_output_tokens_full_load",
         c.cost.usd_per_million_at_full_load ? nlohmann::json(*c.cost.usd_per_million_at_full_load)
                                             : nlohmann::json(nullptr)},
        {"tco_usd", c.cost.tco.si()},
        {"price", c.cost.price_label},
        {"price_stale", c.cost.price_stale},
        {"basis", c.cost.basis},
        {"stops_meeting_targets_month",
         c.cost.stops_meeting_targets_month ? nlohmann::json(*c.cost.stops_meeting_targets_month)
                                            : nlohmann::json(nullptr)}}},
      {"verdict", c.verdict},
      {"verdict_reason", c.verdict_reason},
      {"bottleneck", e.value("bottleneck", "")},
      {"explanation", e.value("explanation", "")},
  };
  if (!c.precision_note.empty()) {
    j["precision_note"] = c.precision_note;
  }
  if (e.contains("inference")) {
    j["inference"] = e["inference"];
  }
  if (e.contains("training")) {
    j["training"] = e["training"];
  }
  return j;
}

} // namespace

nlohmann::json plan_to_json(const Plan& plan, const RenderOptions& o) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto* c : shown(plan, o)) {
    candidates.push_back(candidate_json(*c));
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& r : plan.rejected) {
    rejected.push_back(
        {{"gpu", r.gpu}, {"code", r.code}, {"reason", r.reason}, {"nearest_fix", r.nearest_fix}});
  }
  nlohmann::json assumptions = nlohmann::json::array();
  for (const auto& a : plan.assumptions) {
    assumptions.push_back({{"name", a.name}, {"value", a.value}, {"source", a.source}});
  }
  const auto& d = plan.spec.deployment;
  for (const auto& [name, value, source] :
       std::vector<std::tuple<std::string, double, std::string>>{
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
    assumptions.push_back({{"name", name}, {"value", value}, {"source", source}});
  }
  for (const auto& text : plan.spec.defaults) {
    assumptions.push_back({{"name", "default"}, {"value", nullptr}, {"source", text}});
  }
  const auto& r = plan.requirements;
  return nlohmann::json{
      {"schema_version", 1},
      {"spec",
       {{"name", plan.spec.name},
        {"file", plan.spec.file},
        {"model", plan.spec.model.name},
        {"workload", std::string(to_string(plan.spec.workload.type))},
        {"deployment", std::string(to_string(d.mode))}}},
      {"objective", std::string(to_string(plan.objective))},
      {"catalog", {{"version", plan.catalog_version}, {"digest", plan.catalog_digest}}},
      {"requirements",
       {{"weights_bytes", r.weights.si()},
        {"params_total", r.params_total},
        {"params_active", r.params_active},
        {"kv_cache_per_request_bytes", r.kv_per_request.si()},
        {"flops_per_token", r.flops_per_token.si()}}},
      {"feasible", plan.feasible()},
      {"candidates", candidates},
      {"rejected", rejected},
      {"assumptions", assumptions},
      {"notes", plan.notes},
  };
}

void render_plan_json(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  out << detail::dump_json(plan_to_json(plan, o), 2) << '\n';
}

void render_plan_table(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const Spec& s = plan.spec;
  const auto bold = [&](const std::string& t) { return o.color ? "\033[1m" + t + "\033[0m" : t; };
  out << bold(fmt::format("{}: {}", s.name, s.model.name)) << '\n';
  out << "  workload:     " << workload_line(s) << '\n';
  out << "  requirements: " << requirements_line(plan) << '\n';
  out << "  targets:      " << targets_line(s) << '\n';
  out << "  deployment:   "
      << (s.deployment.mode == DeploymentMode::cloud
              ? fmt::format("cloud, {} prices, {} months, demand +{:.0f}%/month",
                            s.deployment.price_kind,
                            s.deployment.horizon_months,
                            100.0 * s.deployment.growth_per_month)
              : fmt::format("on-prem, {} months, demand +{:.0f}%/month",
                            s.deployment.horizon_months,
                            100.0 * s.deployment.growth_per_month))
      << ", ranked by " << to_string(plan.objective) << "\n\n";
  if (!plan.feasible()) {
    out << bold("nothing feasible") << ": no GPU configuration meets the spec; closest misses:\n";
  } else if (s.workload.is_training()) {
    out << fmt::format("{:>2} {:<18} {:<14} {:>12} {:>8} {:>5} {:>9} {:>9} {:>9} {}\n",
                       "#",
                       "GPU",
                       "GPUS LAYOUT",
                       "MEM/GPU",
                       "STEP",
                       "MFU",
                       "TIME",
                       "$/HOUR",
                       "TCO",
                       "VERDICT");
    for (const auto* c : shown(plan, o)) {
      const auto& t = *c->training;
      out << fmt::format("{:>2} {:<18} {:<14} {:>12} {:>8} {:>4.0f}% {:>9} {:>9} {:>9} {}\n",
                         c->rank,
                         c->gpu->name,
                         count_layout(*c),
                         fmt::format("{:.1f}/{:.0f}G",
                                     to_gib(c->memory.per_gpu.total()),
                                     to_gib(c->memory.capacity)),
                         format_seconds(t.step),
                         100.0 * t.mfu,
                         t.time_to_train ? format_seconds(*t.time_to_train) : "-",
                         money(c->cost.per_hour.si()),
                         money(c->cost.tco.si()),
                         short_verdict(c->verdict));
    }
  } else {
    out << fmt::format("{:>2} {:<18} {:<11} {:>11} {:>7} {:>7} {:>7} {:>8} {:>7} {:>8} {}\n",
                       "#",
                       "GPU",
                       "GPUS",
                       "MEM/GPU",
                       "TTFT",
                       "TPOT",
                       "TOK/S",
                       "$/HOUR",
                       "$/MTOK",
                       "TCO",
                       "VERDICT");
    for (const auto* c : shown(plan, o)) {
      const auto& i = *c->inference;
      out << fmt::format(
          "{:>2} {:<18} {:<11} {:>11} {:>7} {:>7} {:>7.0f} {:>8} {:>7} {:>8} {}\n",
          c->rank,
          c->gpu->name,
          count_layout(*c),
          fmt::format(
              "{:.1f}/{:.0f}G", to_gib(c->memory.per_gpu.total()), to_gib(c->memory.budget)),
          format_seconds(i.ttft),
          format_seconds(i.tpot),
          i.output_tokens_per_s,
          money(c->cost.per_hour.si()),
          c->cost.usd_per_million_output_tokens ? money(*c->cost.usd_per_million_output_tokens)
                                                : "-",
          money(c->cost.tco.si()),
          short_verdict(c->verdict));
    }
  }
  if (plan.feasible()) {
    out << '\n';
    const auto& best = plan.candidates.front();
    out << bold(fmt::format("recommended: {} x {} ({}{})",
                            best.total_gpus(),
                            best.gpu->name,
                            layout_text(best),
                            best.replicas > 1 ? fmt::format(", {} replicas", best.replicas) : ""))
        << fmt::format(": {}, {}\n", best.verdict, best.verdict_reason);
    out << "  " << (best.inference ? best.inference->explanation : best.training->explanation)
        << '\n';
    out << "  price " << best.cost.price_label << (best.cost.price_stale ? " STALE" : "") << "; "
        << best.cost.basis << '\n';
    if (best.cost.stops_meeting_targets_month) {
      out << fmt::format("  with demand growing {:.0f}%/month it stops meeting targets in month {} "
                         "unless more replicas are added\n",
                         100.0 * s.deployment.growth_per_month,
                         *best.cost.stops_meeting_targets_month);
    }
    if (!best.precision_note.empty()) {
      out << "  precision: " << best.precision_note << '\n';
    }
  }
  if (!plan.rejected.empty()) {
    out << "\nnot recommended (" << plan.rejected.size() << "):\n";
    for (const auto& r : plan.rejected) {
      out << fmt::format("  {:<18} {:<17} {}", r.gpu, r.code, r.reason);
      if (!r.nearest_fix.empty()) {
        out << " (try: " << r.nearest_fix << ")";
      }
      out << '\n';
    }
  }
  out << "\nassumptions: prices per GPU-hour from the catalog (rightsize catalog show NAME); "
      << fmt::format("{:g} h/month", s.deployment.hours_per_month);
  if (s.deployment.mode == DeploymentMode::onprem) {
    out << fmt::format(", PUE {:g}, ${:g}/kWh, {:.0f}% utilization, {:g}-year amortization",
                       s.deployment.pue,
                       s.deployment.electricity_usd_per_kwh,
                       100.0 * s.deployment.utilization,
                       s.deployment.amortization_years);
  }
  out << "; memory and efficiency constants in data/ (--format json lists every one)\n";
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
      << "\n- Targets: " << targets_line(s) << "\n\n";
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
      out << "| # | GPU | GPUs | Layout | Memory/GPU | TTFT | TPOT | Tokens/s | $/hour | $/M "
             "tokens | TCO | Verdict |\n";
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
            format_seconds(i.tpot),
            i.output_tokens_per_s,
            money(c->cost.per_hour.si()),
            c->cost.usd_per_million_output_tokens ? money(*c->cost.usd_per_million_output_tokens)
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

void render_plan_csv(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  out << "rank,gpu,gpus,replicas,tp,pp,dp,ep,weights,kv_cache,memory_per_gpu_bytes,ttft_s,tpot_s,"
         "output_tokens_per_s,step_s,mfu,time_to_train_s,usd_per_hour,usd_per_million_tokens,tco_"
         "usd,"
         "verdict\n";
  for (const auto* c : shown(plan, o)) {
    out << fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{:.0f},{},{},{},{},{},{},{:.4f},{},{:.2f},{}\n",
        c->rank,
        c->gpu->name,
        c->total_gpus(),
        c->replicas,
        c->layout.tp,
        c->layout.pp,
        c->layout.dp,
        c->layout.ep,
        to_string(c->spec.precision.weights),
        to_string(c->spec.precision.kv_cache),
        c->memory.per_gpu.total().si(),
        c->inference ? fmt::format("{:.4f}", c->inference->ttft.si()) : "",
        c->inference ? fmt::format("{:.5f}", c->inference->tpot.si()) : "",
        c->inference ? fmt::format("{:.1f}", c->inference->output_tokens_per_s) : "",
        c->training ? fmt::format("{:.3f}", c->training->step.si()) : "",
        c->training ? fmt::format("{:.4f}", c->training->mfu) : "",
        c->training && c->training->time_to_train
            ? fmt::format("{:.0f}", c->training->time_to_train->si())
            : "",
        c->cost.per_hour.si(),
        c->cost.usd_per_million_output_tokens
            ? fmt::format("{:.4f}", *c->cost.usd_per_million_output_tokens)
            : "",
        c->cost.tco.si(),
        c->verdict);
  }
}

} // namespace rightsize
