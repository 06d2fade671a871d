// A locked configuration: made from a candidate, written and read back, compared for sameness.

#include "configuration_json.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <fmt/format.h>

#include <array>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

using Figure = std::optional<double> LockedConfiguration::*;

// The lock's field of each rate, under its name (names(RateUnit).key).
Figure rate_field(RateUnit r) {
  switch (r) {
  case RateUnit::output_tokens:
    return &LockedConfiguration::output_tokens_per_s;
  case RateUnit::sequences:
    return &LockedConfiguration::sequences_per_s;
  case RateUnit::images:
    return &LockedConfiguration::images_per_s;
  case RateUnit::audio_seconds:
    return &LockedConfiguration::audio_seconds_per_s;
  case RateUnit::none:
    break;
  }
  return nullptr;
}

// The lock's field of each price basis, under its name (names(PriceBasis).plan_key).
Figure price_field(PriceBasis p) {
  switch (p) {
  case PriceBasis::per_million_input_tokens:
    return &LockedConfiguration::usd_per_million_input_tokens;
  case PriceBasis::per_thousand_images:
    return &LockedConfiguration::usd_per_thousand_images;
  case PriceBasis::per_audio_hour:
    return &LockedConfiguration::usd_per_audio_hour;
  case PriceBasis::per_million_output_tokens:
  case PriceBasis::per_million_trained_tokens:
    break;
  }
  return &LockedConfiguration::usd_per_million_tokens;
}

} // namespace

LockedConfiguration configuration_of(const Candidate& c) {
  LockedConfiguration l;
  l.gpu = c.gpu->name;
  l.gpus = c.total_gpus();
  l.replicas = c.replicas;
  l.layout = c.layout;
  if (c.disaggregation) {
    l.prefill_replicas = c.disaggregation->pools.layout.prefill.replicas;
  }
  l.weights = std::string(to_string(c.spec->precision.weights));
  l.kv_cache = std::string(to_string(c.spec->precision.kv_cache));
  l.memory_per_gpu_bytes = c.memory.per_gpu.total().si();
  l.memory_budget_bytes = c.memory.budget.si();
  const WorkloadUnits u = workload_units(*c.spec);
  if (c.inference) {
    l.batch = c.memory.batch;
    // TTFT and TPOT, or a request's whole latency (an embedded sequence's, an image's, a
    // transcribed request's); the rate in the workload's unit.
    if (u.shows_tpot()) {
      l.ttft_ms = to_ms(c.inference->ttft);
      l.tpot_ms = to_ms(c.inference->tpot);
      if (c.inference->simulated && c.spec->workload.inference.targets.names_percentiles()) {
        l.ttft_p99_ms = to_ms(c.inference->simulated->ttft.p99);
        l.tpot_p99_ms = to_ms(c.inference->simulated->tpot.p99);
      }
    } else {
      l.latency_ms = to_ms(c.inference->ttft);
    }
    if (const Figure rate = rate_field(u.rate)) {
      l.*rate = rate_of(*c.inference, u.rate);
    }
  }
  if (c.training) {
    l.step_time_s = c.training->step.si();
    if (c.training->time_to_train) {
      l.time_to_train_hours = to_hours(*c.training->time_to_train);
    }
  }
  l.usd_per_hour = c.cost.per_hour.si();
  l.*price_field(u.price) = price_of(c.cost, u.price);
  l.tco_usd = c.cost.tco.si();
  if (!c.cost.months.empty()) {
    l.usd_per_month = c.cost.months.front().cost.si();
  }
  return l;
}

std::string configuration_text(const LockedConfiguration& l) {
  // Expert parallelism and attention data parallelism where the layout has them, as plan shows
  // them: a change between layouts of the same TP must be visible.
  const std::string groups =
      (l.layout.ep > 1 ? fmt::format(" EP{}", l.layout.ep) : std::string()) +
      (l.layout.attention_dp > 1 ? fmt::format(" DP-attention{}", l.layout.attention_dp)
                                 : std::string());
  if (l.prefill_replicas > 0) {
    return fmt::format("{} x {} ({}P+{}D x TP{}{} PP{}, disaggregated, {}/{})",
                       l.gpus,
                       l.gpu,
                       l.prefill_replicas,
                       l.replicas - l.prefill_replicas,
                       l.layout.tp,
                       groups,
                       l.layout.pp,
                       l.weights,
                       l.kv_cache);
  }
  return fmt::format("{} x {} (TP{}{}{} PP{} DP{}, {}/{})",
                     l.gpus,
                     l.gpu,
                     l.layout.tp,
                     l.layout.cp > 1 ? fmt::format(" CP{}", l.layout.cp) : std::string(),
                     groups,
                     l.layout.pp,
                     l.layout.dp,
                     l.weights,
                     l.kv_cache);
}

bool same_configuration(const LockedConfiguration& a,
                        const LockedConfiguration& b,
                        Sameness sameness) {
  const bool same_replica = a.gpu == b.gpu && a.layout.tp == b.layout.tp &&
                            a.layout.pp == b.layout.pp && a.layout.ep == b.layout.ep &&
                            a.layout.attention_dp == b.layout.attention_dp &&
                            a.weights == b.weights && a.kv_cache == b.kv_cache &&
                            (a.prefill_replicas > 0) == (b.prefill_replicas > 0);
  if (sameness == Sameness::replica) {
    return same_replica;
  }
  return same_replica && a.gpus == b.gpus && a.replicas == b.replicas &&
         a.prefill_replicas == b.prefill_replicas && a.layout.cp == b.layout.cp &&
         a.layout.dp == b.layout.dp;
}

namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The figures of workloads measured in their own unit, by their name in a lock file.
template <class L> auto own_unit_figures(L& l) {
  return std::array{std::pair{"latency_ms", &l.latency_ms},
                    std::pair{"sequences_per_s", &l.sequences_per_s},
                    std::pair{"images_per_s", &l.images_per_s},
                    std::pair{"audio_seconds_per_s", &l.audio_seconds_per_s},
                    std::pair{"usd_per_million_input_tokens", &l.usd_per_million_input_tokens},
                    std::pair{"usd_per_thousand_images", &l.usd_per_thousand_images},
                    std::pair{"usd_per_audio_hour", &l.usd_per_audio_hour},
                    std::pair{"ttft_p99_ms", &l.ttft_p99_ms},
                    std::pair{"tpot_p99_ms", &l.tpot_p99_ms}};
}

} // namespace

nlohmann::json configuration_to_json(const LockedConfiguration& l) {
  nlohmann::json parallelism = {
      {"tp", l.layout.tp}, {"pp", l.layout.pp}, {"dp", l.layout.dp}, {"ep", l.layout.ep}};
  if (l.layout.attention_dp > 1) {
    parallelism["attention_dp"] = l.layout.attention_dp; // absent: 1, as locks before it
  }
  nlohmann::json j = {{"gpu", l.gpu},
                      {"gpus", l.gpus},
                      {"replicas", l.replicas},
                      {"parallelism", parallelism},
                      {"precision", {{"weights", l.weights}, {"kv_cache", l.kv_cache}}},
                      {"memory_per_gpu_bytes", l.memory_per_gpu_bytes},
                      {"memory_budget_bytes", l.memory_budget_bytes},
                      {"ttft_ms", optional_json(l.ttft_ms)},
                      {"tpot_ms", optional_json(l.tpot_ms)},
                      {"output_tokens_per_s", optional_json(l.output_tokens_per_s)},
                      {"step_time_s", optional_json(l.step_time_s)},
                      {"time_to_train_hours", optional_json(l.time_to_train_hours)},
                      {"usd_per_hour", l.usd_per_hour},
                      {"usd_per_month", optional_json(l.usd_per_month)},
                      {"batch", l.batch ? nlohmann::json(*l.batch) : nlohmann::json(nullptr)},
                      {"usd_per_million_output_tokens", optional_json(l.usd_per_million_tokens)},
                      {"tco_usd", l.tco_usd}};
  // Written only when set: a generation workload's lock reads as before.
  for (const auto& [key, v] : own_unit_figures(l)) {
    if (*v) {
      j[key] = **v;
    }
  }
  if (l.prefill_replicas > 0) { // disaggregated only: every other lock reads as before
    j["prefill_replicas"] = l.prefill_replicas;
  }
  // Context parallelism only where a training layout has it: every other lock reads as before.
  if (l.layout.cp > 1) {
    j["parallelism"]["cp"] = l.layout.cp;
  }
  return j;
}

namespace detail {

namespace {

std::optional<double> optional_number(const FieldReader& r, const char* key) {
  return r.optional_number(key, Range::non_negative(1e18));
}

} // namespace

LockedConfiguration parse_configuration(const FieldReader& r) {
  r.reject_unknown({"gpu",
                    "gpus",
                    "replicas",
                    "parallelism",
                    "precision",
                    "memory_per_gpu_bytes",
                    "memory_budget_bytes",
                    "ttft_ms",
                    "tpot_ms",
                    "output_tokens_per_s",
                    "step_time_s",
                    "time_to_train_hours",
                    "usd_per_hour",
                    "usd_per_month",
                    "batch",
                    "usd_per_million_output_tokens",
                    "tco_usd",
                    "latency_ms",
                    "sequences_per_s",
                    "images_per_s",
                    "audio_seconds_per_s",
                    "usd_per_million_input_tokens",
                    "usd_per_thousand_images",
                    "usd_per_audio_hour",
                    "ttft_p99_ms",
                    "tpot_p99_ms",
                    "prefill_replicas"});
  LockedConfiguration l;
  l.gpu = r.string("gpu");
  l.gpus = static_cast<int>(r.integer("gpus", Range::positive(1e7)));
  l.replicas = static_cast<int>(r.integer("replicas", Range::positive(1e7)));
  l.prefill_replicas =
      static_cast<int>(r.optional_integer("prefill_replicas", Range::between(1, 1e7)).value_or(0));
  if (l.prefill_replicas >= l.replicas) {
    r.member("prefill_replicas").fail("must be fewer than the replicas (the rest decode)");
  }
  const auto p = r.object("parallelism");
  p.reject_unknown({"tp", "pp", "dp", "ep", "cp", "attention_dp"});
  l.layout.tp = static_cast<int>(p.integer("tp", Range::positive(1e5)));
  l.layout.pp = static_cast<int>(p.integer("pp", Range::positive(1e5)));
  l.layout.dp = static_cast<int>(p.integer("dp", Range::positive(1e7)));
  l.layout.ep = static_cast<int>(p.integer("ep", Range::positive(1e5)));
  l.layout.cp = static_cast<int>(p.optional_integer("cp", Range::positive(1e5)).value_or(1));
  l.layout.attention_dp =
      static_cast<int>(p.optional_integer("attention_dp", Range::positive(1e5)).value_or(1));
  const auto pr = r.object("precision");
  l.weights = pr.string("weights");
  l.kv_cache = pr.string("kv_cache");
  l.memory_per_gpu_bytes = r.number("memory_per_gpu_bytes", Range::non_negative(1e18));
  l.memory_budget_bytes = r.number("memory_budget_bytes", Range::non_negative(1e18));
  l.ttft_ms = optional_number(r, "ttft_ms");
  l.tpot_ms = optional_number(r, "tpot_ms");
  l.output_tokens_per_s = optional_number(r, "output_tokens_per_s");
  l.step_time_s = optional_number(r, "step_time_s");
  l.time_to_train_hours = optional_number(r, "time_to_train_hours");
  l.usd_per_hour = r.number("usd_per_hour", Range::non_negative(1e12));
  l.usd_per_month = optional_number(r, "usd_per_month");
  l.batch = r.optional_integer("batch", Range::positive(1e9));
  l.usd_per_million_tokens = optional_number(r, "usd_per_million_output_tokens");
  l.tco_usd = r.number("tco_usd", Range::non_negative(1e15));
  for (const auto& [key, v] : own_unit_figures(l)) {
    *v = optional_number(r, key);
  }
  return l;
}

} // namespace detail

} // namespace rightsize
