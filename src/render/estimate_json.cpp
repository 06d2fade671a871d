// An estimate as JSON (render_estimate_json): its own members around the sections a plan's
// candidates share (estimate_sections.cpp).

#include "estimate_parts.hpp"

#include <rightsize/core/json_writer.hpp>
#include <rightsize/plan/unit_values.hpp>
#include <rightsize/render/estimate.hpp>

namespace rightsize {

namespace {

using detail::BandFields;
using detail::JsonWriter;
using detail::write_band;

// Members are written in the order nlohmann's std::map keeps keys (JsonWriter's contract).

void write_assumptions(JsonWriter& w, const std::vector<Assumption>& list) {
  w.begin_array();
  for (const auto& a : list) {
    w.begin_object().member("name", a.name).member("source", a.source).member("value", a.value);
    w.end_object();
  }
  w.end_array();
}

void write_targets(JsonWriter& w, const EstimateReport& r) {
  w.begin_array();
  for (const auto& t : r.targets) {
    w.begin_object().key("band");
    write_band(w, t.band);
    w.member("held", t.held)
        .member("kind", t.at_most ? "at_most" : "at_least")
        .member("limit", t.limit)
        .member("margin", t.margin)
        .member("met", t.met)
        .member("met_at_point", t.met_at_point)
        .member("predicted", t.predicted)
        .member("summary", detail::target_summary(t, r.replicas))
        .member("target", t.target)
        .end_object();
  }
  w.end_array();
}

void write_cost(JsonWriter& w, const EstimateReport& r) {
  if (!r.cost) {
    w.null();
    return;
  }
  const auto& c = *r.cost;
  w.begin_object()
      .member("kind", c.price.kind)
      .member("price", c.price_label)
      .member("price_stale", c.price_stale)
      .member("price_usd_per_gpu_hour", c.price.per_gpu.si())
      .member("provider", c.price.provider)
      .member("usd_per_hour", c.per_hour.si());
  // The workload's token price (image generation has none: its tokens are latent positions),
  // named output tokens' where the report holds no performance; then its own unit's, if any.
  const WorkloadUnits u = workload_units(r.spec);
  if (u.token_price) {
    const bool held = r.training || (r.inference && r.inference->prefill_only);
    w.member(names(held ? *u.token_price : PriceBasis::per_million_output_tokens).key,
             c.usd_per_million_tokens);
  }
  if (const PriceNames& own = names(u.price); !own.per_token) {
    w.member(own.key, price_of(c, u.price));
  }
  if (r.training) {
    w.key("usd_to_train");
    if (c.to_train) {
      w.value(c.to_train->si());
    } else {
      w.null();
    }
  }
  w.end_object();
}

// Per replica, for a serving estimate over several replicas.
// Disaggregated: per decode replica (each request's output is decoded on one of them).
void write_per_replica(JsonWriter& w, const EstimateReport& r) {
  const auto& perf = r.inference;
  const double n =
      r.disaggregation != nullptr ? r.disaggregation->layout.decode.replicas : r.replicas;
  if (perf && perf->prefill_only) {
    const WorkloadUnits u = workload_units(r.spec);
    w.begin_object()
        .member("batch", r.memory.batch)
        .member(names(u.rate).key, rate_of(*perf, u.rate) / n);
    if (u.tokens != TokenRate::latent) { // a pipeline's tokens are latent positions
      w.member("tokens_per_s", perf->prefill_tokens_per_s / n);
    }
    w.end_object();
    return;
  }
  w.begin_object()
      .member("batch", r.memory.batch)
      .member("output_tokens_per_s", perf ? perf->output_tokens_per_s / n : 0.0)
      .member("requests_per_s", perf ? perf->requests_per_s / n : 0.0)
      .end_object();
}

} // namespace

void render_estimate_json(const EstimateReport& r, std::ostream& out) {
  const auto& p = r.parallelism;
  const auto neck = bottleneck(r);
  std::string text;
  JsonWriter w(text);
  w.begin_object().key("assumptions");
  write_assumptions(w, r.memory.assumptions);
  w.key("bands");
  detail::write_bands(w, r, BandFields::all);
  if (neck) {
    w.member("bottleneck", neck->name);
  }
  if (r.calibration) {
    w.key("calibration");
    write_calibration_json(w, *r.calibration);
  }
  w.member("confidence", r.judged_at_band_edge ? "band" : "point").key("cost");
  write_cost(w, r);
  if (!r.cost_note.empty()) {
    w.member("cost_note", r.cost_note);
  }
  if (r.disaggregation != nullptr) {
    w.key("disaggregation");
    write_disaggregation_json(w, r.gpu, *r.disaggregation, r.disaggregation_why);
  }
  if (neck) {
    w.member("explanation", neck->explanation);
  }
  w.member("fits", r.memory.fits)
      .member("gpu", r.gpu.name)
      .member("gpus", p.gpus() * r.replicas)
      .member("gpus_per_replica", p.gpus());
  const bool training = !workload_units(r.spec).serving;
  if (!training) {
    w.key("inference");
    write_inference_json(w, r);
  }
  w.key("memory");
  write_memory_json(w, r);
  w.member("notes", r.memory.notes).key("parallelism");
  write_parallelism_json(w, r);
  if (!training) {
    w.key("per_replica");
    write_per_replica(w, r);
  }
  w.key("precision");
  write_precision_json(w, r.spec);
  w.member("replicas", r.replicas)
      .member("schema_version", 1)
      .member("spec", r.spec.name)
      .key("targets");
  write_targets(w, r);
  if (training) {
    w.key("training");
    write_training_json(w, r);
  }
  w.end_object();
  out << text << '\n';
}

} // namespace rightsize
