// A plan as Markdown (a pull-request comment or a design doc) and as CSV (one row per candidate,
// a fixed set of columns; the workload's own units in theirs).

#include "plan_text.hpp"
#include "published_text.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/plan/unit_values.hpp>
#include <rightsize/render/plan.hpp>

#include <fmt/format.h>

#include <cmath>

namespace rightsize {

namespace {

void training_markdown_rows(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  out << "| # | GPU | GPUs | Layout | Memory/GPU | Step | MFU | Time | $/hour | TCO | Verdict "
         "|\n";
  out << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto* c : shown(plan, o)) {
    const auto& t = *c->training;
    out << fmt::format("| {} | {} | {} | {} | {:.1f} GiB | {} | {:.0f}% | {} | {} | {} | {} |\n",
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
}

// TTFT and TPOT, or a request's whole latency and the workload's rate; the tokens per second its
// price per token counts; the price in its own unit.
void serving_markdown_rows(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const WorkloadUnits& u = plan.units;
  const RateNames& rate = names(u.rate);
  out << fmt::format("| # | GPU | GPUs | Layout | Memory/GPU | {} | {} | Tokens/s | $/hour | {} | "
                     "TCO | Verdict |\n",
                     names(u.latency).title,
                     u.shows_tpot() ? std::string_view("TPOT") : rate.title,
                     names(u.price).title);
  out << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto* c : shown(plan, o)) {
    const auto& i = *c->inference;
    const auto price = price_of(c->cost, u.price);
    out << fmt::format(
        "| {} | {} | {} | {} | {:.1f} GiB | {} | {} | {:.0f} | {} | {} | {} | {} |\n",
        c->rank,
        c->gpu->name,
        c->total_gpus(),
        replicas_text(*c),
        to_gib(c->memory.per_gpu.total()),
        format_seconds(i.ttft),
        u.shows_tpot() ? format_seconds(i.tpot)
                       : fmt::format("{:.{}f}", rate_of(i, u.rate), rate.decimals),
        tokens_of(i, u.tokens),
        money(c->cost.per_hour.si()),
        price ? money(*price) : "-",
        money(c->cost.tco.si()),
        c->verdict);
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

} // namespace

void render_plan_markdown(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const Spec& s = plan.spec;
  out << "### rightsize plan: " << s.name << "\n\n";
  if (plan.feasible()) {
    const auto& b = plan.candidates.front();
    out << fmt::format("**Recommended: {} x {} ({})**, {}; {} per hour, TCO {} over {} months.\n\n",
                       b.total_gpus(),
                       b.gpu->name,
                       b.disaggregation ? replicas_text(b) + ", disaggregated" : layout_text(b),
                       b.verdict,
                       money(b.cost.per_hour.si()),
                       money(b.cost.tco.si()),
                       plan.units.serving ? s.deployment.horizon_months : 0);
  } else {
    out << "**Nothing feasible**: "
        << (infeasible_because(plan).empty() ? "no GPU configuration meets the spec."
                                             : infeasible_because(plan) + ".")
        << "\n\n";
  }
  out << "- Workload: " << workload_line(plan) << "\n- Requirements: " << requirements_line(plan)
      << "\n- Targets: " << targets_line(plan) << "\n";
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
    if (plan.units.serving) {
      serving_markdown_rows(plan, o, out);
    } else {
      training_markdown_rows(plan, o, out);
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
         "verdict,sequences_per_s,input_tokens_per_s,audio_seconds_per_s,usd_per_audio_hour";
  // sequences_per_s and input_tokens_per_s are an embedding workload's (its ttft_s is a
  // sequence's latency), the next two a transcription's (its ttft_s is a request's latency);
  // an image workload adds two (a sequence is an image). Image generation's tokens are the
  // denoiser's latent positions, which no one buys: its per-token cells stay empty.
  // A training workload adds its context-parallel size (tp x cp x pp x dp is its GPUs), any
  // other its attention data-parallel groups (1: none).
  const WorkloadUnits& u = plan.units;
  const bool images = u.rate == RateUnit::images;
  const bool training = !u.serving;
  out << (images     ? ",images_per_s,usd_per_thousand_images\n"
          : training ? ",cp\n"
                     : ",attention_dp,prefill_replicas\n");
  const bool latent_tokens = !u.token_price;
  for (const auto* c : shown(plan, o)) {
    const bool embeds = u.one_pass() && c->inference;
    const bool transcribes = u.rate == RateUnit::audio_seconds && c->inference;
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
        "");
    if (!images && !training) {
      // Disaggregated: of `replicas`, the prefill pool's (empty: aggregated).
      out << fmt::format(",{},{}\n",
                         c->layout.attention_dp,
                         c->disaggregation
                             ? std::to_string(c->disaggregation->pools.layout.prefill.replicas)
                             : std::string());
    }
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
