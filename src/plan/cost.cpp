// Cost of a configuration: cloud prices or on-prem ownership, TCO over the horizon. Rules:
// docs/plan.md.

#include "search.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::detail {

namespace {

// Replicas needed in a month: never fewer than planned, and computed in floating point (the
// demand is bounded by check_demand, so the count fits a long long exactly).
long long replicas_for(const Candidate& c, double demand_factor, double headroom) {
  return std::max<long long>(
      c.replicas, static_cast<long long>(std::ceil(c.replicas * demand_factor / headroom - 1e-9)));
}

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

} // namespace

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
      const long long replicas = replicas_for(c, demand(d, m), headroom);
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
    const long long peak = replicas_for(c, demand(d, static_cast<int>(d.horizon_months)), headroom);
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

} // namespace rightsize::detail
