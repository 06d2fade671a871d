// rightsize plan: requirements, the best configuration of every GPU or its rejection, verdicts,
// ranking. The searches and costing live beside this file. Rules: docs/plan.md.

#include "search.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/invariants.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace rightsize {

std::string_view to_string(Objective o) {
  switch (o) {
  case Objective::tco:
    return "tco";
  case Objective::cost_per_token:
    return "cost_per_token";
  case Objective::latency:
    return "latency";
  case Objective::gpus:
    return "gpus";
  case Objective::power:
    return "power";
  }
  return "tco";
}

std::string_view to_string(Confidence c) {
  return c == Confidence::band ? "band" : "point";
}

namespace {

using detail::allowed_by_constraints;
using detail::Miss;
using detail::precision_label;
using detail::Search;
using detail::search_inference;
using detail::search_inference_held;
using detail::search_training;

constexpr double k_tight_headroom = 0.10;        // under 10% memory or latency headroom: tight
constexpr double k_overprovisioned_use = 0.40;   // under 40% of memory used...
constexpr double k_overprovisioned_margin = 2.0; // ...and every latency target met twice over

} // namespace

namespace detail {

bool has_targets(const Spec& spec, const WorkloadUnits& u) {
  if (!u.serving) {
    return true;
  }
  const auto& t = spec.workload.inference.targets;
  return t.ttft || t.tpot || t.names_percentiles() || t.requests_per_s || t.output_tokens_per_s;
}

// The GPUs a deployment occupies: on-prem, every GPU of the servers bought.
long long owned_gpus(const Candidate& c) {
  return c.cost.gpus_bought > 0 ? c.cost.gpus_bought : c.total_gpus();
}

double score(const Candidate& c, Objective o, const Search& S) {
  const Spec& spec = S.spec;
  switch (o) {
  case Objective::tco:
    return c.cost.tco.si();
  case Objective::cost_per_token:
    // Without targets there is no planned load: every configuration is compared running full.
    if (!has_targets(spec, S.units)) {
      return c.cost.usd_per_million_at_full_load.value_or(
          c.cost.usd_per_million_tokens.value_or(1e300));
    }
    return c.cost.usd_per_million_tokens.value_or(1e300);
  case Objective::latency:
    if (c.inference && S.units.decodes && S.units.latency == LatencyUnit::request) {
      return c.inference->ttft.si(); // a transcribed request's whole latency
    }
    if (c.inference) {
      return (c.inference->ttft +
              c.inference->tpot * static_cast<double>(spec.workload.inference.output_tokens))
          .si();
    }
    return c.training && c.training->time_to_train ? c.training->time_to_train->si()
                                                   : c.training->step.si();
  case Objective::gpus:
    return static_cast<double>(owned_gpus(c)) + c.cost.tco.si() * 1e-12;
  case Objective::power: {
    // Owned, a MIG slice draws its share of the GPU it is bought with (Purchase::unit_tdp).
    const bool owned = spec.deployment.mode == DeploymentMode::onprem && c.gpu->purchase;
    const Watts tdp = owned ? c.gpu->purchase->unit_tdp.value_or(c.gpu->tdp) : c.gpu->tdp;
    return tdp.si() * static_cast<double>(owned_gpus(c)) + c.cost.tco.si() * 1e-12;
  }
  }
  return c.cost.tco.si();
}

} // namespace detail

namespace {

using detail::has_targets;
using detail::owned_gpus;
using detail::score;

// Target / held value of the latency targets (or deadline), the worse; 1e9 when none binds.
// `edge`: the pessimistic edge of the band, else the point estimate.
double latency_margin(const Candidate& c, const Spec& spec, bool edge) {
  double margin = 1e9;
  if (c.inference) {
    const auto& t = spec.workload.inference.targets;
    const bool b = edge && c.inference_bands;
    const double ttft = b ? c.inference_bands->ttft.high : c.inference->ttft.si();
    const double tpot = b ? c.inference_bands->tpot.high : c.inference->tpot.si();
    if (t.ttft) {
      margin = std::min(margin, t.ttft->si() / ttft);
    }
    if (t.tpot) {
      margin = std::min(margin, t.tpot->si() / tpot);
    }
  }
  if (c.training && c.training->time_to_train && spec.workload.training.deadline) {
    const bool b = edge && c.training_bands;
    const double t = b ? c.training_bands->time_to_train.high : c.training->time_to_train->si();
    margin = spec.workload.training.deadline->si() / t;
  }
  return margin;
}

void set_verdict(Candidate& c, const Spec& spec, const PlanOptions& options) {
  const double used = c.memory.per_gpu.total() / c.memory.budget;
  const bool at_edge = options.confidence == Confidence::band;
  const double margin = latency_margin(c, spec, at_edge);
  const double edge_margin = latency_margin(c, spec, true);
  const bool serving_offline = c.inference && !spec.workload.inference.concurrency;
  // A one-pass workload (embeddings) waiting for the next pass is how its engine runs, already in
  // its latency (the search treats it so too: attempt_replicas).
  if (c.inference && c.inference->queueing && !c.inference->prefill_only && !serving_offline) {
    // Asked more sequences than it runs at once: the rest wait, and TTFT says for how long.
    const InferencePerformance& i = *c.inference;
    c.verdict = "saturated";
    c.verdict_reason = fmt::format(
        "each replica runs {} of the {} sequences asked of it ({}); the other {} queue",
        i.concurrency,
        i.offered,
        i.running_limit == "max_num_seqs" ? "the engine's max_num_seqs" : "all its KV cache holds",
        i.offered - i.concurrency);
  } else if (1.0 - used < k_tight_headroom && !serving_offline) {
    c.verdict = "tight";
    c.verdict_reason = fmt::format("{:.0f}% of the usable memory is used", 100.0 * used);
  } else if (!at_edge && edge_margin < 1.0) {
    c.verdict = "tight";
    c.verdict_reason = "meets the targets at the point estimate, not at the pessimistic edge of "
                       "its uncertainty band (sized with --confidence point)";
  } else if (margin < 1.0 + k_tight_headroom) {
    c.verdict = "tight";
    // Under half a percent to spare reads "less than 1%", never "within 0%".
    const double spare = 100.0 * (margin - 1.0);
    const char* where = at_edge && c.inference_bands ? " at the band's edge" : "";
    c.verdict_reason =
        spare < 0.5 ? fmt::format("less than 1% to spare on a latency or deadline target{}", where)
                    : fmt::format("within {:.0f}% of a latency or deadline target{}", spare, where);
  } else if (used < k_overprovisioned_use && margin >= k_overprovisioned_margin &&
             c.replicas == 1 && !serving_offline) {
    c.verdict = "over-provisioned";
    // Without a latency target or deadline (margin at its 1e9 "none binds") there is nothing to
    // beat: the memory alone says it.
    c.verdict_reason = margin >= 1e9 ? fmt::format("uses {:.0f}% of the memory", 100.0 * used)
                                     : fmt::format("uses {:.0f}% of the memory and beats every "
                                                   "latency target {:.1f}x over",
                                                   100.0 * used,
                                                   std::min(margin, 99.0));
  } else {
    c.verdict = "right-sized";
    c.verdict_reason = fmt::format("{:.0f}% of the memory used", 100.0 * used);
  }
}

// Demand grows as (1 + growth)^(month - 1). Beyond a million-fold over the horizon, fleet sizes
// and bills stop meaning anything (and would overflow the counts), so such input is refused.
constexpr double k_max_demand_factor = 1e6;

void check_demand(const Spec& spec, const WorkloadUnits& u) {
  if (!u.serving) {
    return;
  }
  const Deployment& d = spec.deployment;
  const double factor =
      std::pow(1.0 + d.growth_per_month, static_cast<double>(d.horizon_months - 1));
  if (!(factor <= k_max_demand_factor)) {
    throw InputError(spec.file + ":/deployment/growth_per_month",
                     fmt::format("demand would grow {:.3g}-fold over {} months at {:g} per month "
                                 "(more than {:.0e}-fold); growth is a fraction per month: "
                                 "0.05 means +5%",
                                 factor,
                                 d.horizon_months,
                                 d.growth_per_month,
                                 k_max_demand_factor));
  }
}

// What the workload needs whatever the GPU: parameters, weight bytes, KV cache per request, FLOPs
// per token.
Requirements requirements_of(const Spec& spec, const WorkloadUnits& u, const Constants& constants) {
  Requirements r;
  r.params_total = spec.model.params_total;
  r.params_active = spec.model.params_active;
  r.weights = weight_bytes(spec.model, spec.weights).total();
  if (u.serving) {
    const auto& inf = spec.workload.inference;
    r.kv_per_request =
        kv_cache_geometry(spec, Parallelism{}, constants).per_sequence(inf.longest_request());
    // Per output token at the average context; an embedding workload, per token embedded (the
    // attention span of prefill_step_time: all of the sequence, or half of it when causal).
    const auto prompt = static_cast<double>(inf.prompt_tokens());
    if (!u.encoder_pass.empty()) {
      // Per output token at the average context; the encoder pass per window (a transcription)
      // or per request (text to text, whose input is the encoder's) is apart.
      r.flops_per_token =
          decoder_token_flops(spec.model, prompt + static_cast<double>(inf.output_tokens) / 2.0);
      r.encoder_flops_per_window = encoder_window_flops(spec.model);
      return r;
    }
    r.flops_per_token =
        u.tokens == TokenRate::input
            ? forward_flops(spec.model, 1, spec.model.encoder_only ? prompt : prompt / 2.0)
            : forward_flops(spec.model, 1, prompt + static_cast<double>(inf.output_tokens) / 2.0);
    if (u.rate == RateUnit::images) {
      // As prefill_step_time counts an image encoder's pass (image_flops per image), or
      // diffusion_pass a generated image (text encoders, the denoising loop, the VAE decode).
      const auto& g = inf.generation;
      r.flops_per_image = Flops(g ? spec.model.diffusion->image_flops(g->height, g->width, g->steps)
                                  : image_flops(spec.model));
      r.flops_per_token = r.flops_per_image / prompt;
    }
  } else {
    // What the step estimate counts per trained token: LoRA and QLoRA skip the frozen weights'
    // gradients (docs/model.md, "FLOPs").
    r.flops_per_token = training_model_flops(spec, 1);
  }
  return r;
}

// A change to try on a rejected GPU: the spec with it applied, and how to say it.
struct Trial {
  Spec spec;
  SpecChange change;
  std::string text;
  std::string label; // short, for "none within the spec (tried: ...)"
};

std::vector<DType> allowed_with(const Spec& s, DType d) {
  std::vector<DType> allow = s.precision.allow;
  allow.push_back(d);
  return allow;
}

nlohmann::json dtype_names(const std::vector<DType>& ds) {
  nlohmann::json out = nlohmann::json::array();
  for (const DType d : ds) {
    out.push_back(std::string(to_string(d)));
  }
  return out;
}

// The changes worth trying for a miss, most modest first: a cheaper allowed format, tensor
// parallelism across nodes, more GPUs. Only changes the spec does not already make, and for a
// diffusers pipeline (unquantized, one GPU per replica) only more GPUs.
std::vector<Trial> trials_for(const Spec& spec, const WorkloadUnits& u, const Miss& miss) {
  std::vector<Trial> out;
  const bool pipeline = spec.model.diffusion.has_value();
  const bool memory = miss.code == "memory_capacity";
  const bool latency = miss.code == "latency_target";
  const bool throughput = miss.code == "throughput_target";
  const bool deadline = miss.code == "deadline";
  const auto allowed = [&](DType d) {
    return spec.precision.weights == d ||
           std::find(spec.precision.allow.begin(), spec.precision.allow.end(), d) !=
               spec.precision.allow.end();
  };
  const auto allow = [&](DType d) {
    Trial t{spec, {"/precision/allow", {}}, "", fmt::format("{} weights", to_string(d))};
    t.spec.precision.allow = allowed_with(spec, d);
    t.change.value = dtype_names(t.spec.precision.allow);
    t.text =
        fmt::format("allow {} weights (precision.allow: {})", to_string(d), t.change.value.dump());
    out.push_back(std::move(t));
  };
  for (const DType d : {DType::fp8, DType::int4}) {
    if ((memory || latency || deadline) && !pipeline && !allowed(d) &&
        element_bits(d) < element_bits(spec.precision.weights) &&
        !(d == DType::int4 && !u.serving)) {
      allow(d);
    }
  }
  // The engine has no kernel for the KV cache's format on this GPU (fp8 on Turing): a 16-bit
  // cache, which every engine stores, before any change of the weights.
  if (miss.code == "engine_support" && u.serving && element_bits(spec.precision.kv_cache) < 16) {
    Trial t{spec, {"/precision/kv_cache", "bf16"}, "", "a bf16 KV cache"};
    t.spec.precision.kv_cache = DType::bf16;
    t.text = "a 16-bit KV cache (precision.kv_cache: \"bf16\")";
    out.push_back(std::move(t));
  }
  // The catalog has no rate for the weights' math on this GPU (fp32's), or the engine no kernel
  // for the weights' format on it: the tensor-core formats, in turn.
  if ((miss.code == "compute_rate" || miss.code == "engine_support") && u.serving) {
    for (const DType d : {DType::bf16, DType::fp16, DType::fp8}) {
      if (!allowed(d) && !(pipeline && d == DType::fp8)) {
        allow(d);
      }
    }
  }
  if ((memory || latency) && !pipeline && !spec.constraints.allow_cross_node_tp) {
    Trial t{spec, {"/constraints/allow_cross_node_tp", true}, "", "cross-node TP"};
    t.spec.constraints.allow_cross_node_tp = true;
    t.text = "tensor parallelism across nodes (constraints.allow_cross_node_tp: true)";
    out.push_back(std::move(t));
  }
  if ((throughput || deadline || memory) && spec.constraints.max_gpus) {
    const double factor = std::max(2.0, throughput ? miss.distance * 1.25 : 4.0);
    const auto more = static_cast<long long>(
        std::min(1e6, std::ceil(static_cast<double>(*spec.constraints.max_gpus) * factor)));
    if (more > *spec.constraints.max_gpus) {
      Trial t{spec, {"/constraints/max_gpus", more}, "", fmt::format("{} GPUs", more)};
      t.spec.constraints.max_gpus = more;
      t.text = fmt::format("up to {} GPUs (constraints.max_gpus: {})", more, more);
      out.push_back(std::move(t));
    }
  }
  return out;
}

// "by 12%", or "by 0.4%" when under one percent (never "by 0%").
std::string by_how_much(double ratio) {
  const double pct = 100.0 * (ratio - 1.0);
  return pct >= 1.0 ? fmt::format("{:.0f}%", pct) : fmt::format("{:.1g}%", std::max(pct, 0.01));
}

// A GPU with no configuration: the closest miss, and a change to the spec that was tried and
// makes it feasible, or a plain statement that none within the spec does.
Rejection rejection_from_miss(const Search& S, const Gpu& g, const Miss& miss) {
  Rejection r{g.name,
              miss.code.empty() ? "constraint" : miss.code,
              miss.reason.empty() ? "no layout within the constraints" : miss.reason,
              miss.fix,
              std::nullopt};
  if (r.code == "latency_target" && miss.distance < 1.01 &&
      r.reason.find(" even") != std::string::npos) {
    r.reason = fmt::format("misses the latency target by {}", by_how_much(miss.distance)) +
               r.reason.substr(r.reason.find(" even"));
  }
  if (r.code == "no_price" || r.code == "constraint") {
    return r;
  }
  std::vector<std::string> tried;
  for (Trial& t : trials_for(S.spec, S.units, miss)) {
    const Search again{t.spec, S.catalog, S.constants, S.eff, S.options, true, S.cache};
    std::vector<Candidate> found;
    Miss trial_miss;
    if (S.units.serving) {
      detail::search_inference_held(again, g, found, trial_miss);
    } else {
      detail::search_training(again, g, found, trial_miss);
    }
    if (!found.empty()) {
      r.nearest_fix = t.text;
      r.fix = std::move(t.change);
      return r;
    }
    if (trial_miss.code == "no_price") {
      // The change serves the workload, but the GPU has no price to rank it by: no fix to apply
      // alone, and not "no change helps" either.
      r.nearest_fix =
          fmt::format("{} would serve it, but {}: {}",
                      t.text,
                      trial_miss.reason,
                      trial_miss.fix.empty() ? "add a price with --catalog" : trial_miss.fix);
      return r;
    }
    tried.push_back(t.label);
  }
  r.nearest_fix = tried.empty() ? "no change within the spec helps"
                                : fmt::format("no change within the spec helps; tried {}",
                                              fmt::join(tried, ", "));
  return r;
}

// The best configuration found on one GPU by the objective, with its verdict, and a note when an
// allowed precision changed the answer.
Candidate best_candidate(const Search& S, std::vector<Candidate>& found) {
  const Spec& spec = S.spec;
  const PlanOptions& options = S.options;
  for (auto& c : found) {
    c.score = score(c, options.objective, S);
  }
  // The last of the lowest: the search's `best`, which it explained, scores no higher than its
  // `first` (the same when it kept a roomier one: search_inference.cpp, Kept::room).
  auto best = found.begin();
  for (auto it = found.begin(); it != found.end(); ++it) {
    if (it->score <= best->score) {
      best = it;
    }
  }
  // The spec's own formats as the GPU runs them: bf16 is fp16 where the GPU has no bf16.
  const bool no_bf16 = !computes_bf16(spec, *best->gpu, options.engines);
  const auto on_gpu = [no_bf16](DType d) { return no_bf16 && d == DType::bf16 ? DType::fp16 : d; };
  const Precision& got = best->spec->precision;
  if (got.weights != on_gpu(spec.precision.weights) ||
      got.kv_cache != on_gpu(spec.precision.kv_cache)) {
    best->precision_note = fmt::format("uses {} (allowed by precision.allow) instead of {}",
                                       precision_label(*best->spec),
                                       precision_label(spec));
  } else if (got.weights != spec.precision.weights || got.kv_cache != spec.precision.kv_cache) {
    best->precision_note = fmt::format("uses {} instead of {}: {} ({}) has no bf16",
                                       precision_label(*best->spec),
                                       precision_label(spec),
                                       best->gpu->name,
                                       best->gpu->generation);
  }
  if (options.uncertainty != nullptr) {
    best->memory_band = detail::memory_band_of(S, best->memory.per_gpu.total());
    best->calibration = detail::candidate_calibration(S, *best);
  }
  set_verdict(*best, spec, options);
  return std::move(*best);
}

// One GPU: excluded by a constraint, rejected with its closest miss, or its best configuration.
void plan_gpu(const Search& S, const Gpu& g, Plan& plan) {
  std::string why;
  if (!allowed_by_constraints(g, S.spec, S.catalog, why)) {
    plan.rejected.push_back({g.name, "constraint", why, "", std::nullopt});
    return;
  }
  std::vector<Candidate> found;
  Miss miss;
  if (S.units.serving) {
    search_inference_held(S, g, found, miss);
  } else {
    search_training(S, g, found, miss);
  }
  if (found.empty()) {
    Rejection r = rejection_from_miss(S, g, miss);
    // A GPU the spec pins (constraints.gpus) that is too small or too slow for the workload is
    // under-provisioned: the answer a team that already owns it needs. Not one that has no price,
    // no rate in the catalog or no kernel in the engine: more of it would not help.
    if (!S.spec.constraints.gpus.empty() &&
        (r.code == "memory_capacity" || r.code == "latency_target" ||
         r.code == "throughput_target" || r.code == "deadline")) {
      r.reason = "under-provisioned: " + r.reason;
    }
    plan.rejected.push_back(std::move(r));
    return;
  }
  plan.candidates.push_back(best_candidate(S, found));
}

} // namespace

namespace {

// The smallest MIG slice of the best candidate's GPU that meets every target on one replica:
// its profile and a short account of its speed; nullopt when none does.
std::optional<std::pair<std::string, std::string>> smallest_slice(const Search& S,
                                                                  const Candidate& best) {
  const Gpu& g = *best.gpu;
  if (!g.mig || !S.units.serving) {
    return std::nullopt;
  }
  Spec one = S.spec;
  one.constraints.max_gpus = 1;
  one.constraints.gpus.clear();
  const Search in_slice{one, S.catalog, S.constants, S.eff, S.options};
  std::vector<std::pair<double, std::string>> by_size;
  for (const auto& p : g.mig->profiles) {
    if (const auto m = detail::parse_mig_profile(p)) {
      by_size.emplace_back(m->gb * 100 + m->compute, p);
    }
  }
  std::sort(by_size.begin(), by_size.end());
  for (const auto& [size, profile] : by_size) {
    const auto slice = detail::mig_slice(g, profile, true);
    if (!slice) {
      continue;
    }
    std::vector<Candidate> found;
    Miss ignored;
    ignored.discard = true;
    detail::search_inference_held(in_slice, *slice, found, ignored);
    if (!found.empty()) {
      const auto& i = *found.front().inference;
      // A transcription's speed is its latency and audio rate; every other workload's is told
      // as TTFT and TPOT (an embedding's TPOT is 0).
      const WorkloadUnits& u = S.units;
      return std::make_pair(profile,
                            u.rate == RateUnit::audio_seconds
                                ? fmt::format("{} {}, {:.0f} {} at the point estimate",
                                              names(u.latency).words,
                                              format_seconds(i.ttft),
                                              rate_of(i, u.rate),
                                              names(u.rate).words)
                                : fmt::format("TTFT {}, TPOT {} at the point estimate",
                                              format_seconds(i.ttft),
                                              format_seconds(i.tpot)));
    }
  }
  return std::nullopt;
}

// MIG slices as candidates of their own (on-prem, or --share-gpus): each profile smaller than
// the whole GPU, one slice per replica (no tensor parallelism across slices).
void plan_slices(const Search& S, Plan& plan) {
  const bool shared = S.options.share_gpus || S.spec.deployment.mode == DeploymentMode::onprem;
  if (!shared || !S.units.serving) {
    return;
  }
  Spec one = S.spec;
  one.constraints.max_gpus_per_node = 1;
  // Made once: every slice's search tries the same variants.
  const auto variants = detail::precision_variants(one);
  PlanOptions opt = S.options; // never disaggregated: no KV transfer between MIG instances
  opt.disaggregate = false;
  const Search in_slices{one, S.catalog, S.constants, S.eff, opt, false, nullptr, &variants};
  for (const Gpu& g : S.catalog.gpus) {
    std::string why;
    if (!g.mig || !allowed_by_constraints(g, S.spec, S.catalog, why)) {
      continue;
    }
    const double largest_gb = detail::largest_mig_gb(g);
    for (const auto& profile : g.mig->profiles) {
      const auto parsed = detail::parse_mig_profile(profile);
      auto slice = parsed ? detail::mig_slice(g, profile, *parsed, largest_gb, true) : std::nullopt;
      if (!slice) {
        continue;
      }
      // Owned, a slice of which a GPU holds only one costs the whole GPU, its power included:
      // the GPU itself, with less of it. Not a candidate (its GPU has its own row).
      if (S.spec.deployment.mode == DeploymentMode::onprem && slice->purchase &&
          slice->purchase->units_per_gpu == 1) {
        continue;
      }
      auto owned = std::make_shared<const Gpu>(std::move(*slice));
      std::vector<Candidate> found;
      Miss ignored; // a slice that cannot serve is no rejection: the whole GPU has its own row
      ignored.discard = true;
      detail::search_inference_held(in_slices, *owned, found, ignored);
      if (found.empty()) {
        continue;
      }
      Candidate c = best_candidate(S, found);
      c.partition = profile;
      c.whole_gpu = &g;
      c.slice = owned;
      c.gpu = c.slice.get();
      c.verdict_reason += fmt::format("; a {} MIG slice, priced at its share of the GPU, which "
                                      "holds when the other slices serve other work",
                                      profile);
      plan.candidates.push_back(std::move(c));
    }
  }
}

// Of two candidates that cost the same, which a buyer takes first: right-sized, then
// over-provisioned (room to spare), then tight, then saturated.
int verdict_order(const std::string& verdict) {
  return verdict == "right-sized"        ? 0
         : verdict == "over-provisioned" ? 1
         : verdict == "tight"            ? 2
                                         : 3;
}

// Candidates by score (then verdict, then name, for stable output), real misses before
// constraint exclusions.
void rank(const Search& S, Plan& plan) {
  // A stable sort of their indices, then each candidate moved once into its place: a stable sort
  // of the candidates themselves (about 5 KB each) would take a buffer of half of them or more,
  // fresh pages each time.
  auto& candidates = plan.candidates;
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const Candidate& a = candidates[i];
    const Candidate& b = candidates[j];
    // The same score within rounding (an on-prem MIG slice and its whole GPU cost the same
    // server): the better verdict first, a right-sized slice before an over-provisioned GPU.
    if (std::fabs(a.score - b.score) > 1e-9 * std::max(std::fabs(a.score), std::fabs(b.score))) {
      return a.score < b.score;
    }
    if (verdict_order(a.verdict) != verdict_order(b.verdict)) {
      return verdict_order(a.verdict) < verdict_order(b.verdict);
    }
    return a.gpu->name != b.gpu->name ? a.gpu->name < b.gpu->name : i < j;
  });
  detail::apply_order(candidates, std::move(order));
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    plan.candidates[i].rank = static_cast<int>(i + 1);
  }
  // Real misses first (they are what a person can act on), exclusions by constraint last.
  std::stable_partition(plan.rejected.begin(), plan.rejected.end(), [](const Rejection& r) {
    return r.code != "constraint";
  });
  // The best-ranked row is over-provisioned only when a smaller shape of its GPU serves the
  // workload; that shape is then named, with why it is not ranked.
  if (!plan.candidates.empty() && plan.candidates.front().verdict == "over-provisioned") {
    auto& best = plan.candidates.front();
    // Where slices are ranked (on-prem, --share-gpus), one that served for less would rank
    // above: none is named as if it were left out.
    const bool slices_ranked =
        S.spec.deployment.mode == DeploymentMode::onprem || S.options.share_gpus;
    std::optional<std::pair<std::string, std::string>> slice;
    if (!slices_ranked) {
      slice = smallest_slice(S, best);
    }
    if (slice) {
      best.verdict_reason +=
          fmt::format("; a {} MIG slice of it would serve this workload ({}), not ranked because "
                      "cloud prices rent whole GPUs: --share-gpus ranks slices at their share of "
                      "the GPU's price, for a cluster whose other slices serve other work",
                      slice->first,
                      slice->second);
    } else {
      best.verdict = "right-sized";
      best.verdict_reason =
          (has_targets(S.spec, S.units) ? "the cheapest configuration that meets every "
                                          "target; "
                                        : "the cheapest configuration; ") +
          best.verdict_reason;
    }
  }
}

} // namespace

namespace {

// What a provider's commitment bills beyond what the plan costs: each instance is costed for the
// months it runs inside the horizon, while a 1- or 3-year commitment bills its whole term from
// the month it starts. "" for other kinds, and for a commitment that ends within the horizon.
std::string commitment_note(const Deployment& d) {
  const int term = d.price_kind == "committed_1y" ? 12 : d.price_kind == "committed_3y" ? 36 : 0;
  if (d.mode != DeploymentMode::cloud || term == 0 ||
      (d.horizon_months >= term && d.growth_per_month <= 0)) {
    return "";
  }
  return fmt::format("{} prices are costed for the months each instance runs within the {}-month "
                     "horizon; a {}-year commitment bills {} months from its start, so an "
                     "instance {} pays past the horizon",
                     d.price_kind,
                     d.horizon_months,
                     term / 12,
                     term,
                     d.horizon_months < term ? "started in it" : "added during it");
}

} // namespace

// A typo in constraints.gpus is an input error, not a rejection: resolved before any search.
void check_constraint_gpus(const Spec& spec, const Catalog& catalog) {
  for (const auto& name : spec.constraints.gpus) {
    (void)catalog.resolve(name, spec.constraints.where + "/gpus");
  }
  // Vendors are the catalog's data: a name no GPU of it has is a typo, not "nothing feasible".
  std::vector<std::string> vendors;
  for (const auto& g : catalog.gpus) {
    if (std::find(vendors.begin(), vendors.end(), g.vendor) == vendors.end()) {
      vendors.push_back(g.vendor);
    }
  }
  for (std::size_t i = 0; i < spec.constraints.vendors.size(); ++i) {
    const std::string& v = spec.constraints.vendors[i];
    if (std::find(vendors.begin(), vendors.end(), v) == vendors.end()) {
      throw InputError(fmt::format("{}/vendors/{}", spec.constraints.where, i),
                       fmt::format("no GPU of the catalog is made by \"{}\"{}; its vendors are {}",
                                   v,
                                   did_you_mean(v, vendors),
                                   fmt::join(vendors, ", ")));
    }
  }
}

void check_demand_growth(const Spec& spec) {
  check_demand(spec, workload_units(spec));
}

// requirements → for each GPU, its best configuration or a rejection → ranking.
Plan make_plan(const Spec& spec,
               const Catalog& catalog,
               const Constants& constants,
               const Efficiency& efficiency,
               const PlanOptions& options) {
  Plan plan;
  plan.spec = spec;
  plan.units = workload_units(spec);
  const WorkloadUnits& units = plan.units;
  plan.objective = options.objective;
  plan.confidence = options.confidence;
  // With no targets, the cheapest box that loads the model is not an answer (a 7B model on one L4
  // at 28 tokens/s costs 3x per token what an L40S does): rank by $ per million tokens at full
  // load instead of TCO.
  PlanOptions effective = options;
  if (!has_targets(spec, units) && options.objective == Objective::tco) {
    effective.objective = Objective::cost_per_token;
    plan.objective = Objective::cost_per_token;
    plan.notes.push_back(fmt::format("no targets: ranked by $ per {} with every "
                                     "replica at its largest batch (full load), not by TCO",
                                     names(units.price).words));
  }
  if (units.kind == WorkloadKind::image_embedding && spec.model.image->text > 0) {
    plan.notes.push_back(fmt::format(
        "dual encoder: memory holds the whole {} checkpoint ({:.3g}M parameters, the text tower's "
        "{:.3g}M among them); an image runs through the vision tower only ({:.3g}M), which the "
        "FLOPs per image count",
        spec.model.family,
        spec.model.params_total / 1e6,
        spec.model.params.text_tower / 1e6,
        spec.model.params_active / 1e6));
  }
  if (options.uncertainty != nullptr) {
    plan.uncertainty_note =
        fmt::format("times and rates are {:.0f}% bands from the measured error of held-out runs "
                    "(docs/accuracy.md); targets are held at {}",
                    100.0 * options.uncertainty->coverage,
                    options.confidence == Confidence::band
                        ? "the slow edge of each band (--confidence point: at the estimate)"
                        : "the point estimate (--confidence point), not the band's slow edge");
  }
  plan.catalog_version = catalog.version;
  plan.catalog_digest = catalog.digest;
  check_demand(spec, units);
  if (units.serving && spec.deployment.growth_per_month >= 0.5) {
    // Inside the accepted range, but likely a percentage typed as a fraction.
    plan.notes.push_back(fmt::format(
        "deployment.growth_per_month {:g} means +{:.0f}% a month (demand x{:.3g} by month {}); "
        "did you mean {:g} (+{:g}%)?",
        spec.deployment.growth_per_month,
        100.0 * spec.deployment.growth_per_month,
        std::pow(1.0 + spec.deployment.growth_per_month,
                 static_cast<double>(spec.deployment.horizon_months - 1)),
        spec.deployment.horizon_months,
        spec.deployment.growth_per_month / 100.0,
        spec.deployment.growth_per_month));
  }
  if (const std::string term = commitment_note(spec.deployment); !term.empty()) {
    plan.notes.push_back(term);
  }
  plan.requirements = requirements_of(spec, units, constants);
  check_constraint_gpus(spec, catalog);
  // At most one candidate per GPU and one per MIG profile, each placed once: a growing vector
  // would move every candidate (about 5 KB) into fresh pages at each doubling.
  std::size_t most = catalog.gpus.size();
  for (const Gpu& g : catalog.gpus) {
    most += g.mig ? g.mig->profiles.size() : 0;
  }
  plan.candidates.reserve(most);
  detail::EvaluationCache cache(catalog);
  // Made once: every GPU's search tries the same variants.
  const auto variants = detail::precision_variants(spec);
  const Search S{spec, catalog, constants, efficiency, effective, false, &cache, &variants};
  for (const Gpu& g : catalog.gpus) {
    plan_gpu(S, g, plan);
    // No later search asks for this GPU's layouts: the next GPU's evaluations reuse their memory,
    // so a plan touches one GPU's worth of it rather than the whole catalog's.
    cache.forget_evaluations();
  }
  plan_slices(S, plan);
  rank(S, plan);
  if (options.simulate) {
    detail::simulate_candidates(plan, constants, efficiency);
  }
  // A candidate on a GPU without bf16 runs the spec's bf16 in fp16: said once per GPU, with the
  // model family's fp16 caveat (plan/generation_formats.hpp).
  for (const Candidate& c : plan.candidates) {
    std::string note = bf16_note(spec, *c.gpu, options.engines);
    if (!note.empty() &&
        std::find(plan.notes.begin(), plan.notes.end(), note) == plan.notes.end()) {
      plan.notes.push_back(std::move(note));
    }
  }
  if (!plan.candidates.empty()) {
    for (const auto& a : plan.candidates.front().memory.assumptions) {
      plan.assumptions.push_back(a);
    }
  }
  check_invariants(plan);
  return plan;
}

} // namespace rightsize
