// rightsize plan: search, cost, verdicts and rejections. Rules: docs/plan.md.

#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/plan.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

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

namespace {

constexpr int k_max_replicas = 4096;
constexpr double k_tight_headroom = 0.10;        // under 10% memory or latency headroom: tight
constexpr double k_overprovisioned_use = 0.40;   // under 40% of memory used...
constexpr double k_overprovisioned_margin = 2.0; // ...and every latency target met twice over

// A failed attempt, kept to explain the rejection: the smaller `distance`, the closer it came.
struct Miss {
  std::string code;
  std::string reason;
  std::string fix;
  double distance = 1e300;

  // Keeps `other` when it came closer.
  void consider(Miss other) {
    if (other.distance < distance) {
      *this = std::move(other);
    }
  }
};

struct Search {
  const Spec& spec;
  const Catalog& catalog;
  const Constants& constants;
  const Efficiency& eff;
  const PlanOptions& options;
};

const Price* pick_price(const Gpu& g, const Deployment& d) {
  const Price* best = nullptr;
  for (const auto& p : g.prices) {
    if (p.kind != d.price_kind) {
      continue;
    }
    if (d.provider && p.provider != *d.provider) {
      continue;
    }
    if (best == nullptr || p.per_gpu < best->per_gpu) {
      best = &p;
    }
  }
  return best;
}

bool allowed_by_constraints(const Gpu& g, const Spec& s, const Catalog& c, std::string& why) {
  const auto& k = s.constraints;
  if (!k.gpus.empty()) {
    bool listed = false;
    for (const auto& name : k.gpus) {
      if (&c.resolve(name, k.where + "/gpus") == &g) {
        listed = true;
      }
    }
    if (!listed) {
      why = "not in constraints.gpus";
      return false;
    }
  }
  if (!k.vendors.empty() &&
      std::find(k.vendors.begin(), k.vendors.end(), g.vendor) == k.vendors.end()) {
    why = "vendor " + g.vendor + " not in constraints.vendors";
    return false;
  }
  return true;
}

// Tensor-parallel sizes worth trying: powers of two that divide the heads, within one NVLink
// domain (PCIe cards: within one node, paying PCIe all-reduces).
std::vector<int> tp_options(const Spec& s, const Gpu& g) {
  int limit = g.has_nvlink() ? std::min(g.nvlink_domain, 16) : 8;
  if (s.constraints.allow_cross_node_tp) {
    limit = 64;
  }
  if (s.constraints.max_gpus_per_node && !s.constraints.allow_cross_node_tp) {
    limit = std::min<int>(limit, static_cast<int>(*s.constraints.max_gpus_per_node));
  }
  if (s.constraints.max_gpus) {
    limit = std::min<int>(limit, static_cast<int>(*s.constraints.max_gpus));
  }
  std::vector<int> out;
  for (int tp = 1; tp <= limit; tp *= 2) {
    if (s.model.heads % tp == 0) {
      out.push_back(tp);
    }
  }
  return out;
}

// The spec with each precision the user allows, the spec's own first.
std::vector<Spec> precision_variants(const Spec& s) {
  std::vector<Spec> out{s};
  for (const DType d : s.precision.allow) {
    Spec v = s;
    if (element_bits(d) >= 8 && d != DType::int8 && !s.workload.is_training()) {
      // An allowed 8-bit format applies to weights and KV cache.
      v.precision.kv_cache = element_bits(d) <= 8 ? DType::fp8 : d;
    }
    v.precision.weights = d;
    v.weights = s.model.quantization.quantized() && s.model.quantization.dtype == d
                    ? s.model.quantization
                    : quantization_for(d, s.precision.activations);
    if (d == s.precision.weights && v.precision.kv_cache == s.precision.kv_cache) {
      continue;
    }
    out.push_back(v);
  }
  return out;
}

std::string precision_label(const Spec& s) {
  return fmt::format("{} weights, {} KV cache",
                     s.weights.quantized() ? s.weights.method
                                           : std::string(to_string(s.precision.weights)),
                     to_string(s.precision.kv_cache));
}

// --- Cost ------------------------------------------------------------------------------------

double demand(const Deployment& d, int month) {
  return std::pow(1.0 + d.growth_per_month, month - 1);
}

std::string cloud_price_label(const Price& p) {
  return fmt::format("{} {} {} ({} {})",
                     format_usd_per_hour(p.per_gpu),
                     p.provider,
                     p.kind,
                     p.as_of_stated ? "as of" : "retrieved",
                     p.as_of);
}

// Owning `gpus` GPUs: the purchase (GPU + server share), the fixed cost per month (amortization
// and operations), and power at TDP x utilization x PUE x electricity price.
struct OnPremCost {
  Usd purchase;
  Usd fixed_per_month;
  UsdPerHour power;
  double kw = 0;
  std::string label;
  bool stale = false;
};

OnPremCost on_prem_cost(const Gpu& g, double gpus, const Deployment& d, const std::string& today) {
  OnPremCost o;
  o.purchase = (g.purchase->gpu + g.purchase->server_share) * gpus;
  o.fixed_per_month =
      o.purchase / (d.amortization_years * 12.0) + o.purchase * (d.operations_share / 12.0);
  o.kw = g.tdp.si() * gpus * d.utilization * d.pue / 1000.0;
  o.power = usd_per_hour(o.kw * d.electricity_usd_per_kwh);
  o.label = fmt::format("{} per GPU + {} server share ({} {}, confidence {})",
                        format_usd(g.purchase->gpu),
                        format_usd(g.purchase->server_share),
                        g.purchase->provenance.source,
                        g.purchase->as_of,
                        g.purchase->provenance.confidence);
  o.stale = is_stale(g.purchase->as_of, today, d.stale_price_days);
  return o;
}

bool cost_inference(const Search& S, Candidate& c, double headroom, std::string& why) {
  const Deployment& d = S.spec.deployment;
  const Gpu& g = *c.gpu;
  const int per_replica = c.gpus_per_replica();
  const Seconds month = hours(d.hours_per_month);
  CostBreakdown& k = c.cost;
  if (d.mode == DeploymentMode::cloud) {
    const Price* p = pick_price(g, d);
    if (p == nullptr) {
      why = fmt::format("no {} price{} in the catalog",
                        d.price_kind,
                        d.provider ? " from " + *d.provider : std::string());
      return false;
    }
    k.price_label = cloud_price_label(*p);
    k.price_stale = is_stale(p->as_of, S.options.today, d.stale_price_days);
    k.per_hour = p->per_gpu * static_cast<double>(c.total_gpus());
    // Cloud adds replicas month by month as demand grows.
    for (int m = 1; m <= static_cast<int>(d.horizon_months); ++m) {
      const int replicas = std::max(
          c.replicas, static_cast<int>(std::ceil(c.replicas * demand(d, m) / headroom - 1e-9)));
      const Usd cost = p->per_gpu * static_cast<double>(replicas * per_replica) * month;
      k.months.push_back({m, replicas, cost});
      k.tco += cost;
    }
    k.basis = fmt::format("{} GPU{} x {} x {:.0f} h/month, replicas added as demand grows "
                          "{:.0f}%/month",
                          c.total_gpus(),
                          c.total_gpus() == 1 ? "" : "s",
                          format_usd_per_hour(p->per_gpu),
                          d.hours_per_month,
                          100.0 * d.growth_per_month);
  } else {
    if (!g.purchase) {
      why = "no purchase price in the catalog";
      return false;
    }
    // On-prem buys ahead for the horizon's peak.
    const int peak = std::max(
        c.replicas,
        static_cast<int>(std::ceil(
            c.replicas * demand(d, static_cast<int>(d.horizon_months)) / headroom - 1e-9)));
    const double gpus = static_cast<double>(peak * per_replica);
    const OnPremCost own = on_prem_cost(g, gpus, d, S.options.today);
    k.purchase = own.purchase;
    k.power_per_hour = own.power;
    k.per_hour = own.fixed_per_month / month + own.power;
    for (int m = 1; m <= static_cast<int>(d.horizon_months); ++m) {
      const Usd cost = own.fixed_per_month + own.power * month;
      k.months.push_back({m, peak, cost});
      k.tco += cost;
    }
    k.price_label = own.label;
    k.price_stale = own.stale;
    k.basis =
        fmt::format("{:.0f} GPUs bought for month {}'s peak, amortized over {:g} years, "
                    "{:.0f}% operations per year, {:.1f} kW at {:.0f}% utilization x PUE {:g} "
                    "x ${:g}/kWh",
                    gpus,
                    d.horizon_months,
                    d.amortization_years,
                    100.0 * d.operations_share,
                    own.kw,
                    100.0 * d.utilization,
                    d.pue,
                    d.electricity_usd_per_kwh);
  }
  for (int m = 1; m <= static_cast<int>(d.horizon_months); ++m) {
    if (demand(d, m) > headroom + 1e-9) {
      k.stops_meeting_targets_month = m;
      break;
    }
  }
  return true;
}

// --- Inference search ------------------------------------------------------------------------

struct Targets {
  std::optional<Seconds> ttft;
  std::optional<Seconds> tpot;
  std::optional<double> rps;
  std::optional<double> tokens;
};

// Whether latency targets hold, and by how much (achieved / target, the worse of the two).
double latency_ratio(const Targets& t, const InferencePerformance& p) {
  double worst = 0.0;
  if (t.ttft) {
    worst = std::max(worst, p.ttft / *t.ttft);
  }
  if (t.tpot) {
    worst = std::max(worst, p.tpot / *t.tpot);
  }
  return worst;
}

struct Evaluated {
  MemoryEstimate memory;
  InferencePerformance perf;
};

Evaluated evaluate(const Search& S,
                   const Spec& spec,
                   const Gpu& g,
                   const Parallelism& p,
                   std::optional<long long> batch,
                   int replicas) {
  Evaluated e{estimate_memory(spec, g, p, S.constants, batch), {}};
  e.perf = estimate_inference(spec, g, p, e.memory, S.eff, S.constants, replicas);
  return e;
}

// What the replica search must meet, read once from the spec.
struct ServingGoal {
  Targets targets;
  std::optional<long long> concurrency; // total concurrent requests; none: offline (batch) serving
  long long max_gpus = 0;
};

ServingGoal serving_goal(const Spec& s) {
  const auto& inf = s.workload.inference;
  return {{inf.targets.ttft,
           inf.targets.tpot,
           inf.targets.requests_per_s,
           inf.targets.output_tokens_per_s},
          inf.concurrency,
          s.constraints.max_gpus.value_or(1'000'000)};
}

// The layouts to try on one GPU, narrowest first: every tensor-parallel size, expert parallelism
// across the TP group when the experts divide, and pipeline stages only at the widest TP size.
std::vector<Parallelism> inference_layouts(const Spec& spec, const std::vector<int>& tps) {
  std::vector<Parallelism> out;
  for (const int tp : tps) {
    for (const int pp : {1, 2, 4}) {
      if (pp > 1 && tp < tps.back()) {
        continue;
      }
      std::vector<int> eps{1};
      if (spec.model.is_moe() && tp > 1 && spec.model.experts % tp == 0) {
        eps.push_back(tp);
      }
      for (const int ep : eps) {
        Parallelism p;
        p.tp = tp;
        p.pp = pp;
        p.ep = ep;
        out.push_back(p);
      }
    }
  }
  return out;
}

Miss memory_miss(const Evaluated& probe, const Parallelism& p) {
  const int per_replica = p.tp * p.pp;
  const Bytes need = probe.memory.per_gpu.total() - probe.memory.per_gpu.kv_cache;
  return {"memory_capacity",
          fmt::format("needs {} per GPU at {} GPU{} (TP={}{}), has {}",
                      format_bytes(need),
                      per_replica,
                      per_replica > 1 ? "s" : "",
                      p.tp,
                      p.pp > 1 ? fmt::format(", PP={}", p.pp) : "",
                      format_bytes(probe.memory.budget)),
          "",
          need / probe.memory.budget};
}

// One layout at one replica count: the evaluation, and which target it misses.
struct Attempt {
  Evaluated result;
  std::string code;    // empty when every target holds; else latency_target or throughput_target
  double distance = 0; // achieved / target of the missed constraint
};

// Offline serving: the largest batch per replica that meets the latency targets (all that fits,
// or less, found by bisection).
long long largest_batch_meeting_latency(const Search& S,
                                        const Spec& spec,
                                        const Gpu& g,
                                        const Parallelism& p,
                                        const Evaluated& probe,
                                        const Targets& t,
                                        int replicas) {
  long long lo = 1;
  long long hi = probe.memory.max_batch;
  if ((t.ttft || t.tpot) && latency_ratio(t, evaluate(S, spec, g, p, hi, replicas).perf) > 1.0) {
    while (hi - lo > 1) {
      const long long mid = lo + (hi - lo) / 2;
      (latency_ratio(t, evaluate(S, spec, g, p, mid, replicas).perf) <= 1.0 ? lo : hi) = mid;
    }
    hi = lo;
  }
  return hi;
}

// Per replica the concurrency is the spec's total divided among replicas, or (offline) the
// largest batch that meets the latency targets.
Attempt attempt_replicas(const Search& S,
                         const Spec& spec,
                         const Gpu& g,
                         const Parallelism& p,
                         const Evaluated& probe,
                         const ServingGoal& goal,
                         int replicas) {
  const Targets& t = goal.targets;
  const long long batch = goal.concurrency
                              ? (*goal.concurrency + replicas - 1) / replicas
                              : largest_batch_meeting_latency(S, spec, g, p, probe, t, replicas);
  Attempt a{evaluate(S, spec, g, p, batch, replicas), "", 0.0};
  const double lat = latency_ratio(t, a.result.perf);
  if (lat > 1.0) {
    a.code = "latency_target";
    a.distance = lat;
    return a;
  }
  double thr = 0.0;
  if (t.rps) {
    thr = std::max(thr, *t.rps / std::max(1e-12, a.result.perf.requests_per_s));
  }
  if (t.tokens) {
    thr = std::max(thr, *t.tokens / std::max(1e-12, a.result.perf.output_tokens_per_s));
  }
  if (thr > 1.0) {
    a.code = "throughput_target";
    a.distance = thr;
  }
  return a;
}

// The fewest replicas of one layout that meet every target, or the most tried and why they miss.
struct ReplicaSearch {
  bool found = false;
  int replicas = 0;
  Evaluated best;   // found: the evaluation at `replicas`
  std::string code; // not found: the target missed, as in Attempt
  double distance = 0;
};

// Offline: each replica runs its own largest batch that meets the latency targets, independent of
// how many replicas there are, so throughput adds up and one evaluation decides.
ReplicaSearch offline_replicas(const Search& S,
                               const Spec& spec,
                               const Gpu& g,
                               const Parallelism& p,
                               const Evaluated& probe,
                               const ServingGoal& goal,
                               int max_replicas) {
  const Attempt one = attempt_replicas(S, spec, g, p, probe, goal, 1);
  ReplicaSearch r{one.code.empty(), 1, one.result, one.code, one.distance};
  if (!r.found && one.code == "throughput_target") {
    r.replicas = static_cast<int>(std::ceil(one.distance - 1e-9));
    if (r.replicas <= max_replicas) {
      r.best.perf.requests_per_s *= r.replicas;
      r.best.perf.output_tokens_per_s *= r.replicas;
      r.best.perf.prefill_tokens_per_s *= r.replicas;
      r.found = true;
    }
  }
  if (!r.found) {
    r.replicas = std::min(r.replicas, max_replicas);
  }
  return r;
}

// Online: replicas share the concurrency, so more replicas lower each one's batch. Double until
// every target holds, then bisect down to the fewest.
ReplicaSearch online_replicas(const Search& S,
                              const Spec& spec,
                              const Gpu& g,
                              const Parallelism& p,
                              const Evaluated& probe,
                              const ServingGoal& goal,
                              int max_replicas) {
  int lo = 0; // misses
  int hi = 1;
  Attempt last;
  bool found = false;
  while (hi <= max_replicas) {
    last = attempt_replicas(S, spec, g, p, probe, goal, hi);
    if (last.code.empty()) {
      found = true;
      break;
    }
    lo = hi;
    hi = hi * 2;
  }
  if (!found) {
    return {false, std::min(hi, max_replicas), last.result, last.code, last.distance};
  }
  ReplicaSearch r{true, hi, last.result, "", 0.0};
  while (r.replicas - lo > 1) {
    const int mid = lo + (r.replicas - lo) / 2;
    Attempt a = attempt_replicas(S, spec, g, p, probe, goal, mid);
    if (a.code.empty()) {
      r.replicas = mid;
      r.best = std::move(a.result);
    } else {
      lo = mid;
    }
  }
  return r;
}

Miss target_miss(const ReplicaSearch& r, const Parallelism& p) {
  return {r.code,
          r.code == "latency_target"
              ? fmt::format("misses the latency target by {:.0f}% even at TP={}",
                            100.0 * (r.distance - 1.0),
                            p.tp)
              : fmt::format("reaches {:.0f}% of the throughput target with {} GPUs",
                            100.0 / r.distance,
                            r.replicas * p.tp * p.pp),
          "",
          r.distance};
}

Candidate
serving_candidate(const Gpu& g, const Parallelism& p, const Spec& spec, const ReplicaSearch& r) {
  Candidate c;
  c.gpu = &g;
  c.layout = p;
  c.replicas = r.replicas;
  c.spec = spec;
  c.memory = r.best.memory;
  c.inference = r.best.perf;
  return c;
}

// Load headroom: how far demand may grow before these replicas stop meeting targets (1 when no
// target bounds it).
double load_headroom(const ServingGoal& goal, const ReplicaSearch& r) {
  const Targets& t = goal.targets;
  double headroom = 1e9;
  if (t.rps) {
    headroom = std::min(headroom, r.best.perf.requests_per_s / *t.rps);
  }
  if (t.tokens) {
    headroom = std::min(headroom, r.best.perf.output_tokens_per_s / *t.tokens);
  }
  if (goal.concurrency) {
    headroom = std::min(headroom,
                        static_cast<double>(r.best.memory.max_batch * r.replicas) /
                            static_cast<double>(*goal.concurrency));
  }
  return headroom > 1e8 ? 1.0 : headroom;
}

// $ per million output tokens at the planned load and with every replica running full.
void price_per_token(const Search& S, Candidate& c) {
  if (c.cost.price_label.empty() || c.inference->output_tokens_per_s <= 0) {
    return;
  }
  c.cost.usd_per_million_output_tokens =
      c.cost.per_hour.si() / (c.inference->output_tokens_per_s * 3600.0) * 1e6;
  const Evaluated full = evaluate(S, c.spec, *c.gpu, c.layout, std::nullopt, c.replicas);
  if (full.perf.output_tokens_per_s > 0) {
    c.cost.usd_per_million_at_full_load =
        c.cost.per_hour.si() / (full.perf.output_tokens_per_s * 3600.0) * 1e6;
  }
}

// For each precision and layout: fit probe (one request, one replica) → replica search → cost →
// candidate. Layouts that fail leave the closest miss, to explain a rejection.
void search_inference(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss) {
  const ServingGoal goal = serving_goal(S.spec);
  for (const Spec& spec : precision_variants(S.spec)) {
    const std::vector<int> tps = tp_options(spec, g);
    bool widest_fits = false;
    for (const Parallelism& p : inference_layouts(spec, tps)) {
      // Pipeline stages only when the widest tensor-parallel layout does not fit: they add GPUs
      // and latency, never speed, to a replica.
      const int per_replica = p.tp * p.pp;
      if ((p.pp > 1 && widest_fits) || per_replica > goal.max_gpus) {
        continue;
      }
      const Evaluated probe = evaluate(S, spec, g, p, 1, 1);
      if (probe.memory.max_batch < 1) {
        miss.consider(memory_miss(probe, p));
        continue;
      }
      widest_fits = widest_fits || (p.tp == tps.back() && p.pp == 1);
      const int max_replicas =
          static_cast<int>(std::min<long long>(k_max_replicas, goal.max_gpus / per_replica));
      const ReplicaSearch r = goal.concurrency
                                  ? online_replicas(S, spec, g, p, probe, goal, max_replicas)
                                  : offline_replicas(S, spec, g, p, probe, goal, max_replicas);
      if (!r.found) {
        miss.consider(target_miss(r, p));
        continue;
      }
      Candidate c = serving_candidate(g, p, spec, r);
      std::string why;
      if (!cost_inference(S, c, std::max(1.0, load_headroom(goal, r)), why)) {
        miss.consider({"no_price", why, "add a price with --catalog (docs/catalog.md)", 1e299});
        continue;
      }
      price_per_token(S, c);
      found.push_back(std::move(c));
    }
  }
}

// --- Training search -------------------------------------------------------------------------

// A training run costs its GPUs for the time to train (a month when no token count is given).
void cost_training(const Search& S, const Price* price, Candidate& c) {
  const Deployment& d = S.spec.deployment;
  const TrainingPerformance& t = *c.training;
  const Seconds run = t.time_to_train.value_or(hours(d.hours_per_month));
  const double gpus = c.layout.gpus();
  if (d.mode == DeploymentMode::cloud) {
    c.cost.per_hour = price->per_gpu * gpus;
    c.cost.tco = c.cost.per_hour * run;
    c.cost.price_label = cloud_price_label(*price);
    c.cost.price_stale = is_stale(price->as_of, S.options.today, d.stale_price_days);
    c.cost.basis = fmt::format("{:.0f} GPU{} x {} for {}{}",
                               gpus,
                               gpus == 1.0 ? "" : "s",
                               format_usd_per_hour(price->per_gpu),
                               format_seconds(run),
                               t.time_to_train ? "" : " (a month: no tokens given)");
  } else {
    const OnPremCost own = on_prem_cost(*c.gpu, gpus, d, S.options.today);
    c.cost.purchase = own.purchase;
    c.cost.power_per_hour = own.power;
    c.cost.per_hour = own.fixed_per_month / hours(d.hours_per_month) + own.power;
    c.cost.tco = c.cost.per_hour * run;
    c.cost.price_label = own.label;
    c.cost.price_stale = own.stale;
    c.cost.basis = fmt::format("{:.0f} GPUs amortized over {:g} years for {}",
                               gpus,
                               d.amortization_years,
                               format_seconds(run));
  }
  if (t.tokens_per_s > 0) {
    c.cost.usd_per_million_output_tokens = c.cost.per_hour.si() / (t.tokens_per_s * 3600.0) * 1e6;
  }
}

// Training layouts, narrowest first: tensor parallel within the NVLink domain, pipeline stages up
// to 64 (and the layer count), data parallel while it divides the global batch into micro-batches.
std::vector<Parallelism> training_layouts(const Spec& spec, const Gpu& g, long long max_gpus) {
  const auto& w = spec.workload.training;
  std::vector<Parallelism> out;
  for (const int tp : tp_options(spec, g)) {
    for (int pp = 1; pp <= 64 && pp <= spec.model.layers; pp *= 2) {
      for (long long dp = 1; tp * pp * dp <= max_gpus; dp *= 2) {
        if (w.global_batch % (w.micro_batch * dp) != 0) {
          break;
        }
        Parallelism p;
        p.tp = tp;
        p.pp = pp;
        p.dp = static_cast<int>(dp);
        out.push_back(p);
      }
    }
  }
  return out;
}

// Why a GPU cannot train at all: no price for the deployment mode.
std::optional<Miss> training_price_miss(const Deployment& d, const Gpu& g, const Price* price) {
  if (d.mode == DeploymentMode::cloud && price == nullptr) {
    return Miss{"no_price",
                fmt::format("no {} price in the catalog", d.price_kind),
                "add a price with --catalog (docs/catalog.md)",
                0};
  }
  if (d.mode == DeploymentMode::onprem && !g.purchase) {
    return Miss{"no_price",
                "no purchase price in the catalog",
                "add a purchase price with --catalog (docs/catalog.md)",
                0};
  }
  return std::nullopt;
}

// A memory miss replaces only another memory miss: a layout that fits but misses the deadline
// explains the rejection better.
void consider_training_memory_miss(const MemoryEstimate& m, const Parallelism& p, Miss& miss) {
  const double dist = m.per_gpu.total() / m.capacity;
  if (dist < miss.distance && (miss.code.empty() || miss.code == "memory_capacity")) {
    miss = {"memory_capacity",
            fmt::format("needs {} per GPU with TP={} PP={} DP={}, has {}",
                        format_bytes(m.per_gpu.total()),
                        p.tp,
                        p.pp,
                        p.dp,
                        format_bytes(m.capacity)),
            "",
            dist};
  }
}

void consider_deadline_miss(const TrainingPerformance& t,
                            const Seconds deadline,
                            const Parallelism& p,
                            Miss& miss) {
  const double dist = *t.time_to_train / deadline;
  if (miss.code != "deadline" || dist < miss.distance) {
    miss = {"deadline",
            fmt::format("needs {} with {} GPUs, deadline {}",
                        format_seconds(*t.time_to_train),
                        p.gpus(),
                        format_seconds(deadline)),
            "",
            dist};
  }
}

// For each precision and layout: memory → step time and time to train against the deadline →
// cost → candidate.
void search_training(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss) {
  const auto& w = S.spec.workload.training;
  const long long max_gpus = S.spec.constraints.max_gpus.value_or(4096);
  const Price* price = pick_price(g, S.spec.deployment);
  if (auto no_price = training_price_miss(S.spec.deployment, g, price)) {
    miss = std::move(*no_price);
    return;
  }
  for (const Spec& spec : precision_variants(S.spec)) {
    for (const Parallelism& p : training_layouts(spec, g, max_gpus)) {
      const MemoryEstimate m = estimate_memory(spec, g, p, S.constants);
      if (!m.fits) {
        consider_training_memory_miss(m, p, miss);
        continue;
      }
      const TrainingPerformance t = estimate_training(spec, g, p, m, S.eff);
      if (t.meets_deadline && !*t.meets_deadline) {
        consider_deadline_miss(t, *w.deadline, p, miss);
        continue;
      }
      Candidate c;
      c.gpu = &g;
      c.layout = p;
      c.spec = spec;
      c.memory = m;
      c.training = t;
      cost_training(S, price, c);
      found.push_back(std::move(c));
    }
  }
}

double score(const Candidate& c, Objective o, const Spec& spec) {
  switch (o) {
  case Objective::tco:
    return c.cost.tco.si();
  case Objective::cost_per_token:
    return c.cost.usd_per_million_output_tokens.value_or(1e300);
  case Objective::latency:
    if (c.inference) {
      return (c.inference->ttft +
              c.inference->tpot * static_cast<double>(spec.workload.inference.output_tokens))
          .si();
    }
    return c.training && c.training->time_to_train ? c.training->time_to_train->si()
                                                   : c.training->step.si();
  case Objective::gpus:
    return c.total_gpus() + c.cost.tco.si() * 1e-12;
  case Objective::power:
    return c.gpu->tdp.si() * c.total_gpus() + c.cost.tco.si() * 1e-12;
  }
  return c.cost.tco.si();
}

void set_verdict(Candidate& c, const Spec& spec) {
  const double used = c.memory.per_gpu.total() / c.memory.budget;
  double latency_margin = 1e9; // target / achieved, the worse of the two
  if (c.inference) {
    const auto& t = spec.workload.inference.targets;
    if (t.ttft) {
      latency_margin = std::min(latency_margin, *t.ttft / c.inference->ttft);
    }
    if (t.tpot) {
      latency_margin = std::min(latency_margin, *t.tpot / c.inference->tpot);
    }
  }
  if (c.training && c.training->meets_deadline && spec.workload.training.deadline) {
    latency_margin = *spec.workload.training.deadline / *c.training->time_to_train;
  }
  const bool serving_offline = c.inference && !spec.workload.inference.concurrency;
  if (1.0 - used < k_tight_headroom && !serving_offline) {
    c.verdict = "tight";
    c.verdict_reason = fmt::format("{:.0f}% of the usable memory is used", 100.0 * used);
  } else if (latency_margin < 1.0 + k_tight_headroom) {
    c.verdict = "tight";
    c.verdict_reason = fmt::format("within {:.0f}% of a latency or deadline target",
                                   100.0 * (latency_margin - 1.0));
  } else if (used < k_overprovisioned_use && latency_margin >= k_overprovisioned_margin &&
             c.replicas == 1 && !serving_offline) {
    c.verdict = "over-provisioned";
    c.verdict_reason = fmt::format("uses {:.0f}% of the memory and beats every latency target "
                                   "{:.1f}x over",
                                   100.0 * used,
                                   std::min(latency_margin, 99.0));
  } else {
    c.verdict = "right-sized";
    c.verdict_reason = fmt::format("{:.0f}% of the memory used", 100.0 * used);
  }
}

// What the workload needs whatever the GPU: parameters, weight bytes, KV cache per request, FLOPs
// per token.
Requirements requirements_of(const Spec& spec, const Constants& constants) {
  Requirements r;
  r.params_total = spec.model.params_total;
  r.params_active = spec.model.params_active;
  r.weights = weight_bytes(spec.model, spec.weights).total();
  if (!spec.workload.is_training()) {
    const auto& inf = spec.workload.inference;
    r.kv_per_request = kv_cache_geometry(spec, Parallelism{}, constants)
                           .per_sequence(inf.input_tokens + inf.output_tokens);
    r.flops_per_token = forward_flops(spec.model,
                                      1,
                                      static_cast<double>(inf.input_tokens) +
                                          static_cast<double>(inf.output_tokens) / 2.0);
  } else {
    r.flops_per_token =
        forward_flops(spec.model, 1, static_cast<double>(spec.workload.training.seq_len)) * 3.0;
  }
  return r;
}

// A GPU with no configuration: the closest miss, with the change that would most likely fix it.
Rejection rejection_from_miss(const Gpu& g, const Miss& miss) {
  Rejection r{g.name,
              miss.code.empty() ? "constraint" : miss.code,
              miss.reason.empty() ? "no layout within the constraints" : miss.reason,
              miss.fix};
  if (r.code == "memory_capacity" && r.nearest_fix.empty()) {
    // What would fit: a wider layout across nodes, or a smaller format.
    const DType smaller = g.rate(TensorPrecision::fp8) ? DType::fp8 : DType::int4;
    r.nearest_fix = fmt::format("more GPUs per replica (tensor parallel across nodes with "
                                "constraints.allow_cross_node_tp), or {} weights "
                                "(precision.allow)",
                                to_string(smaller));
  } else if (r.code == "latency_target" && r.nearest_fix.empty()) {
    r.nearest_fix = "a GPU with more memory bandwidth, or fewer concurrent requests per replica";
  } else if (r.code == "throughput_target" && r.nearest_fix.empty()) {
    r.nearest_fix = "raise constraints.max_gpus";
  } else if (r.code == "deadline" && r.nearest_fix.empty()) {
    r.nearest_fix = "more GPUs (constraints.max_gpus) or a later deadline";
  }
  return r;
}

// The best configuration found on one GPU by the objective, with its verdict, and a note when an
// allowed precision changed the answer.
Candidate best_candidate(std::vector<Candidate>& found, const Spec& spec, Objective objective) {
  for (auto& c : found) {
    c.score = score(c, objective, spec);
  }
  auto best =
      std::min_element(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
        return a.score < b.score;
      });
  if (best->spec.precision.weights != spec.precision.weights ||
      best->spec.precision.kv_cache != spec.precision.kv_cache) {
    best->precision_note = fmt::format("uses {} (allowed by precision.allow) instead of {}",
                                       precision_label(best->spec),
                                       precision_label(spec));
  }
  set_verdict(*best, spec);
  return std::move(*best);
}

// One GPU: excluded by a constraint, rejected with its closest miss, or its best configuration.
void plan_gpu(const Search& S, const Gpu& g, Plan& plan) {
  std::string why;
  if (!allowed_by_constraints(g, S.spec, S.catalog, why)) {
    plan.rejected.push_back({g.name, "constraint", why, ""});
    return;
  }
  std::vector<Candidate> found;
  Miss miss;
  if (S.spec.workload.is_training()) {
    search_training(S, g, found, miss);
  } else {
    search_inference(S, g, found, miss);
  }
  if (found.empty()) {
    plan.rejected.push_back(rejection_from_miss(g, miss));
    return;
  }
  plan.candidates.push_back(best_candidate(found, S.spec, S.options.objective));
}

// Candidates by score (then name, for stable output), real misses before constraint exclusions.
void rank(Plan& plan) {
  std::stable_sort(
      plan.candidates.begin(), plan.candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.score != b.score ? a.score < b.score : a.gpu->name < b.gpu->name;
      });
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    plan.candidates[i].rank = static_cast<int>(i + 1);
  }
  // Real misses first (they are what a person can act on), exclusions by constraint last.
  std::stable_partition(plan.rejected.begin(), plan.rejected.end(), [](const Rejection& r) {
    return r.code != "constraint";
  });
  // Over-provisioned means a cheaper configuration meets the same targets: the best-ranked one
  // cannot be, whatever its headroom.
  if (!plan.candidates.empty() && plan.candidates.front().verdict == "over-provisioned") {
    auto& best = plan.candidates.front();
    best.verdict = "right-sized";
    best.verdict_reason =
        "the cheapest configuration that meets every target; " + best.verdict_reason;
  }
}

} // namespace

// requirements → for each GPU, its best configuration or a rejection → ranking.
Plan make_plan(const Spec& spec,
               const Catalog& catalog,
               const Constants& constants,
               const Efficiency& efficiency,
               const PlanOptions& options) {
  Plan plan;
  plan.spec = spec;
  plan.objective = options.objective;
  plan.catalog_version = catalog.version;
  plan.catalog_digest = catalog.digest;
  plan.requirements = requirements_of(spec, constants);
  // Validate constraint names up front: a typo is an input error, not a rejection.
  for (const auto& name : spec.constraints.gpus) {
    (void)catalog.resolve(name, spec.constraints.where + "/gpus");
  }
  const Search S{spec, catalog, constants, efficiency, options};
  for (const Gpu& g : catalog.gpus) {
    plan_gpu(S, g, plan);
  }
  rank(plan);
  if (!plan.candidates.empty()) {
    for (const auto& a : plan.candidates.front().memory.assumptions) {
      plan.assumptions.push_back(a);
    }
  }
  return plan;
}

} // namespace rightsize
