// A plan as JSON (schema_version 1, docs/plan.md), written without building a tree
// (detail::JsonWriter). Its cost and requirements name the workload's units (plan.units).

#include "plan_text.hpp"
#include "published_text.hpp"

#include <rightsize/core/json_writer.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/plan/unit_values.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/render/plan.hpp>

#include <fmt/format.h>

#include <tuple>

namespace rightsize {

namespace {

// The cost, and the workload's prices under their names: its tokens' (but image generation's,
// whose tokens are latent positions priced per image only), and its own unit's where it has one.
void write_cost(detail::JsonWriter& w, const WorkloadUnits& u, const Candidate& c) {
  const auto& cost = c.cost;
  w.begin_object().member("basis", cost.basis);
  // Month by month: the replicas that meet the targets under that month's load, their GPUs, the
  // load (concurrent requests, online serving) and what the month costs; the TCO is their sum.
  w.key("months").begin_array();
  for (const MonthCost& m : cost.months) {
    w.begin_object()
        .member("concurrency", m.concurrency)
        .member("gpus", m.gpus)
        .member("month", m.month)
        .member("replicas", m.replicas)
        .member("usd", m.cost.si())
        .end_object();
  }
  w.end_array();
  w.key("on_prem");
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
      .member("price_low_confidence", cost.price_low_confidence)
      .member("stops_meeting_targets_month", cost.stops_meeting_targets_month)
      .member("tco_usd", cost.tco.si())
      .member("usd_per_hour", cost.per_hour.si());
  if (u.token_price) {
    const PriceNames& tokens = names(*u.token_price);
    w.member(tokens.plan_key, cost.usd_per_million_tokens)
        .member(tokens.full_load_key, cost.usd_per_million_at_full_load);
  }
  if (const PriceNames& own = names(u.price); !own.per_token) {
    w.member(own.plan_key, price_of(cost, u.price))
        .member(own.full_load_key, price_of(cost, u.price, true));
  }
  w.end_object();
}

void write_candidate(detail::JsonWriter& w, const Plan& plan, const Candidate& c) {
  EstimateReport report{*c.spec,
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
  if (c.disaggregation) {
    report.disaggregation = &c.disaggregation->pools;
  }
  const auto neck = bottleneck(report);
  const bool training = !plan.units.serving;
  w.begin_object().member("bottleneck", neck ? neck->name : std::string_view());
  if (c.calibration) {
    w.key("calibration");
    write_calibration_json(w, *c.calibration);
  }
  w.key("cost");
  write_cost(w, plan.units, c);
  if (c.disaggregation) {
    w.key("disaggregation");
    write_disaggregation_json(w, *c.gpu, c.disaggregation->pools, c.disaggregation->why);
  }
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
  if (!c.layout_note.empty()) {
    w.member("layout_note", c.layout_note);
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
      .member("feasible", plan.feasible());
  if (!infeasible_because(plan).empty()) {
    w.member("infeasible_because", infeasible_because(plan));
  }
  w.member("notes", plan.notes).member("objective", to_string(plan.objective)).key("rejected");
  write_rejected(w, plan);
  hand_over();
  w.key("requirements").begin_object();
  if (plan.units.rate == RateUnit::images) {
    w.member("flops_per_image", r.flops_per_image.si());
  }
  // The encoder pass over one request's input (text to text) or one window (a transcription,
  // whose kv_cache_per_request_bytes is per window too).
  if (!plan.units.encoder_pass.empty()) {
    w.member(fmt::format("encoder_flops_per_{}", plan.units.encoder_pass),
             r.encoder_flops_per_window.si());
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

} // namespace rightsize
