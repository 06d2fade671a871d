// Cost of a configuration: cloud prices or on-prem ownership, TCO over the horizon. Rules:
// docs/plan.md.

#include "search.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::detail {

namespace {

// "1 instance x $5.67/h (g5.12xlarge, 4 GPUs) for 2 replicas of 2 GPUs": the fleet a cost pays.
std::string fleet_basis(const PricedFleet& f, int per_replica, long long replicas) {
  const Price& p = *f.price;
  if (!p.shape_stated) {
    // A price per GPU of an unstated shape: a replica is priced per GPU, and where its tensor-
    // parallel group would sit is not known (docs/catalog.md, "What a price includes").
    return fmt::format("{} GPU{} x {} (per GPU; the shape is not stated, so a replica's GPUs "
                       "may span instances) for {} replica{} of {} GPU{}",
                       f.gpus(),
                       f.gpus() == 1 ? "" : "s",
                       format_usd_per_hour(p.per_gpu),
                       replicas,
                       replicas == 1 ? "" : "s",
                       per_replica,
                       per_replica == 1 ? "" : "s");
  }
  return fmt::format("{} instance{} x {} ({}{} GPU{}) for {} replica{} of {} GPU{}",
                     f.instances,
                     f.instances == 1 ? "" : "s",
                     format_usd_per_hour(p.per_instance()),
                     p.instance.empty() ? std::string() : p.instance + ", ",
                     p.gpus_per_instance,
                     p.gpus_per_instance == 1 ? "" : "s",
                     replicas,
                     replicas == 1 ? "" : "s",
                     per_replica,
                     per_replica == 1 ? "" : "s");
}

} // namespace

const std::vector<double>& demand_curve(const Search& S) {
  const Deployment& d = S.spec.deployment;
  auto& curve = S.demand_by_month;
  const auto months = static_cast<std::size_t>(d.horizon_months);
  if (curve.size() != months) {
    curve.clear();
    curve.reserve(months);
    for (std::size_t m = 1; m <= months; ++m) {
      curve.push_back(std::pow(1.0 + d.growth_per_month, static_cast<double>(m - 1)));
    }
  }
  return curve;
}

GrowthSeries flat_growth(const Search& S, long long replicas) {
  GrowthSeries g;
  g.replicas.assign(static_cast<std::size_t>(S.spec.deployment.horizon_months), replicas);
  return g;
}

namespace {

// Whole servers for `replicas` replicas of `per_replica` GPUs: a replica never straddles two
// servers unless it is larger than one (an HGX board is one NVLink domain; a PCIe replica runs
// within one host), so replicas pack by whole replicas per server.
struct Fleet {
  int gpus_per_server = 1;
  long long servers = 0;
  [[nodiscard]] long long gpus() const { return servers * gpus_per_server; }
};

Fleet whole_servers(int gpus_per_server, int per_replica, long long replicas) {
  Fleet f;
  f.gpus_per_server = gpus_per_server;
  if (per_replica <= gpus_per_server) {
    const long long per_server = gpus_per_server / per_replica;
    f.servers = (replicas + per_server - 1) / per_server;
  } else {
    f.servers = replicas * ((per_replica + gpus_per_server - 1) / gpus_per_server);
  }
  return f;
}

// Owning a fleet: the purchase (GPU + server share, per GPU of every whole server), the fixed
// cost per month (amortization and operations), and power at TDP x utilization x PUE x
// electricity price for every GPU bought. Detail::numbers leaves the price label out.
struct OnPremCost {
  Fleet fleet;
  Usd purchase;
  Usd amortization_per_month;
  Usd operations_per_month;
  UsdPerHour power;
  double kw = 0;
  std::string label;
  bool stale = false;
};

OnPremCost on_prem_cost(const Gpu& g,
                        int per_replica,
                        long long replicas,
                        const Deployment& d,
                        const std::string& today,
                        Detail detail) {
  OnPremCost o;
  // deployment.gpus_per_server counts GPUs; a MIG slice's server holds that many GPUs' slices.
  const auto per_server = d.gpus_per_server ? *d.gpus_per_server * g.purchase->units_per_gpu
                                            : static_cast<long long>(g.purchase->gpus_per_server);
  o.fleet = whole_servers(static_cast<int>(per_server), per_replica, replicas);
  const auto gpus = static_cast<double>(o.fleet.gpus());
  o.purchase = (g.purchase->gpu + g.purchase->server_share) * gpus;
  o.amortization_per_month = o.purchase / (d.amortization_years * 12.0);
  o.operations_per_month = o.purchase * (d.operations_share / 12.0);
  const Watts tdp = g.purchase->unit_tdp.value_or(g.tdp);
  o.kw = tdp.si() * gpus * d.utilization * d.pue / 1000.0;
  o.power = usd_per_hour(o.kw * d.electricity_usd_per_kwh);
  if (detail == Detail::numbers) {
    return o;
  }
  o.label = fmt::format("{} per GPU + {} server share ({} {}, confidence {})",
                        format_usd(g.purchase->gpu),
                        format_usd(g.purchase->server_share),
                        g.purchase->provenance.source,
                        g.purchase->as_of,
                        g.purchase->provenance.confidence);
  o.stale = is_stale(g.purchase->as_of, today, d.stale_price_days);
  return o;
}

// The on-prem fields of the cost; per hour spreads the fixed monthly cost over the month's hours.
void record_on_prem(const OnPremCost& own, const Deployment& d, CostBreakdown& k) {
  k.gpus_per_server = own.fleet.gpus_per_server;
  k.servers = own.fleet.servers;
  k.gpus_bought = own.fleet.gpus();
  k.purchase = own.purchase;
  k.amortization_per_month = own.amortization_per_month;
  k.operations_per_month = own.operations_per_month;
  k.power_per_hour = own.power;
  k.power_per_month = own.power * hours(d.hours_per_month);
  k.per_hour = (own.amortization_per_month + own.operations_per_month) / hours(d.hours_per_month) +
               own.power;
  k.price_label = own.label;
  k.price_stale = own.stale;
}

// "14 servers x 8 = 112 GPUs bought for month 36's peak (105 needed; 4 in month 1)": the same
// counts as the cost's fields, so the basis cannot contradict the table.
std::string fleet_phrase(const CostBreakdown& k) {
  std::string s = fmt::format("{} server{} x {} = {} GPU{} bought",
                              k.servers,
                              k.servers == 1 ? "" : "s",
                              k.gpus_per_server,
                              k.gpus_bought,
                              k.gpus_bought == 1 ? "" : "s");
  if (k.gpus_needed_peak != k.gpus_needed_first) {
    s += fmt::format(" for month {}'s peak ({} needed; {} in month 1)",
                     k.peak_month,
                     k.gpus_needed_peak,
                     k.gpus_needed_first);
  } else if (k.gpus_bought != k.gpus_needed_peak) {
    s += fmt::format(" ({} needed)", k.gpus_needed_peak);
  }
  return s;
}

// Month `m` of a series, costing `cost`.
MonthCost month_cost(const GrowthSeries& growth, int m, int per_replica, Usd cost) {
  const auto i = static_cast<std::size_t>(m - 1);
  MonthCost out{m, growth.replicas[i], growth.replicas[i] * per_replica, std::nullopt, cost};
  if (i < growth.concurrency.size()) {
    out.concurrency = growth.concurrency[i];
  }
  return out;
}

// The first month the planned replicas fall short of the grown load.
std::optional<int> stops_meeting_targets(const Candidate& c, const GrowthSeries& growth) {
  for (std::size_t i = 0; i < growth.replicas.size(); ++i) {
    if (growth.replicas[i] > c.replicas) {
      return static_cast<int>(i) + 1;
    }
  }
  return std::nullopt;
}

std::string ownership_phrase(const CostBreakdown& k, const Deployment& d) {
  return fmt::format("capex {} amortized over {:g} years, {:.0f}% operations per year",
                     format_usd(k.purchase),
                     d.amortization_years,
                     100.0 * d.operations_share);
}

// On-prem buys ahead, in whole servers, for the horizon's peak month (the last one when demand
// grows, the first when it shrinks), and pays the same every month.
void cost_on_prem_inference(const Search& S,
                            Candidate& c,
                            const GrowthSeries& growth,
                            Detail detail) {
  const Deployment& d = S.spec.deployment;
  const int per_replica = c.gpus_per_replica();
  CostBreakdown& k = c.cost;
  const std::vector<long long>& needed = growth.replicas;
  const auto peak = std::max_element(needed.begin(), needed.end());
  k.peak_month = static_cast<int>(peak - needed.begin()) + 1;
  k.gpus_needed_peak = *peak * per_replica;
  k.gpus_needed_first = needed.front() * per_replica;
  const OnPremCost own = on_prem_cost(*c.gpu, per_replica, *peak, d, S.options.today, detail);
  record_on_prem(own, d, k);
  const Usd monthly = own.amortization_per_month + own.operations_per_month + k.power_per_month;
  const bool record = detail == Detail::full; // the search needs the sum, not the months
  if (record) {
    k.months.reserve(needed.size());
  }
  for (int m = 1; m <= static_cast<int>(d.horizon_months); ++m) {
    if (record) {
      k.months.push_back(month_cost(growth, m, per_replica, monthly));
    }
    k.tco += monthly;
  }
  if (detail == Detail::numbers) {
    return;
  }
  k.basis = fmt::format("{}, {}, {:.1f} kW at {:.0f}% utilization x PUE {:g} x ${:g}/kWh",
                        fleet_phrase(k),
                        ownership_phrase(k, d),
                        own.kw,
                        100.0 * d.utilization,
                        d.pue,
                        d.electricity_usd_per_kwh);
}

} // namespace

bool cost_inference(
    const Search& S, Candidate& c, const GrowthSeries& growth, std::string& why, Detail detail) {
  const Deployment& d = S.spec.deployment;
  const Gpu& g = *c.gpu;
  if (d.mode == DeploymentMode::onprem) {
    if (!g.purchase) {
      why = "no purchase price in the catalog";
      return false;
    }
    // Bought for the horizon's peak, so targets stay met: no stops_meeting_targets_month.
    cost_on_prem_inference(S, c, growth, detail);
    return true;
  }
  const int per_replica = c.gpus_per_replica();
  const ReplicaGpus replica{per_replica, c.layout.tp};
  // Priced as the instances a provider sells (catalog/price_pick.hpp): each month, the cheapest
  // shape that holds that month's replicas, every GPU of each instance paid for.
  const auto now = pick_fleet(g, d.price_kind, d.provider, replica, c.replicas, &why);
  if (!now) {
    return false;
  }
  const Seconds month = hours(d.hours_per_month);
  CostBreakdown& k = c.cost;
  if (detail == Detail::full) {
    k.price_label = cloud_fleet_label(*now);
    k.price_stale = is_stale(now->price->as_of, S.options.today, d.stale_price_days);
    k.price_low_confidence = now->price->provenance.confidence == "low";
  }
  k.per_hour = now->per_hour();
  // Cloud adds replicas month by month as demand grows.
  const bool record = detail == Detail::full; // the search needs the sum, not the months
  const std::vector<long long>& replicas = growth.replicas;
  if (record) {
    k.months.reserve(replicas.size());
  }
  PricedFleet last_fleet = *now;
  for (int m = 1; m <= static_cast<int>(replicas.size()); ++m) {
    const long long n = replicas[static_cast<std::size_t>(m - 1)];
    const auto f = pick_fleet(g, d.price_kind, d.provider, replica, n, &why);
    if (!f) {
      return false;
    }
    const Usd cost = f->per_hour() * month;
    if (record) {
      k.months.push_back(month_cost(growth, m, per_replica, cost));
    }
    k.tco += cost;
    last_fleet = *f;
  }
  if (detail == Detail::numbers) {
    return true;
  }
  const long long last = replicas.empty() ? c.replicas : replicas.back();
  k.basis = fmt::format(
      "{} x {:.0f} h/month{}",
      fleet_basis(*now, per_replica, c.replicas),
      d.hours_per_month,
      last > c.replicas ? fmt::format(", instances added month by month as demand grows "
                                      "{:.0f}%/month ({} by month {})",
                                      100.0 * d.growth_per_month,
                                      fleet_basis(last_fleet, per_replica, last),
                                      replicas.size())
      : d.growth_per_month > 0
          ? fmt::format(", enough for demand growing {:.0f}%/month", 100.0 * d.growth_per_month)
          : std::string());
  k.stops_meeting_targets_month = stops_meeting_targets(c, growth);
  return true;
}

// A training run costs its GPUs for the time to train (a month when no token count is given): in
// the cloud, the instances that hold its one replica of all its GPUs. False when no shape sold
// holds them.
bool cost_training(const Search& S, const Price* price, Candidate& c, Detail detail) {
  const Deployment& d = S.spec.deployment;
  const TrainingPerformance& t = *c.training;
  const Seconds run = t.time_to_train.value_or(hours(d.hours_per_month));
  const int gpus = c.layout.gpus();
  if (d.mode == DeploymentMode::cloud) {
    (void)price;
    const auto fleet =
        pick_fleet(*c.gpu, d.price_kind, d.provider, ReplicaGpus{gpus, c.layout.tp}, 1);
    if (!fleet) {
      return false;
    }
    c.cost.per_hour = fleet->per_hour();
    c.cost.tco = c.cost.per_hour * run;
    if (detail == Detail::full) {
      c.cost.price_label = cloud_fleet_label(*fleet);
      c.cost.price_stale = is_stale(fleet->price->as_of, S.options.today, d.stale_price_days);
      c.cost.price_low_confidence = fleet->price->provenance.confidence == "low";
      c.cost.basis = fmt::format("{} for {}{}",
                                 fleet_basis(*fleet, gpus, 1),
                                 format_seconds(run),
                                 t.time_to_train ? "" : " (a month: no tokens given)");
    }
  } else {
    // The job is one replica of all its GPUs, in whole servers, paid for the time it runs.
    const OnPremCost own =
        on_prem_cost(*c.gpu, c.layout.gpus(), 1, d, S.options.today, Detail::full);
    c.cost.gpus_needed_peak = c.layout.gpus();
    c.cost.gpus_needed_first = c.layout.gpus();
    record_on_prem(own, d, c.cost);
    c.cost.tco = c.cost.per_hour * run;
    c.cost.basis = fmt::format("{}, {}, for {}{}",
                               fleet_phrase(c.cost),
                               ownership_phrase(c.cost, d),
                               format_seconds(run),
                               t.time_to_train ? "" : " (a month: no tokens given)");
  }
  if (t.tokens_per_s > 0) {
    c.cost.usd_per_million_tokens =
        to_usd_per_million(c.cost.per_hour / items_per_s(t.tokens_per_s));
  }
  return true;
}

} // namespace rightsize::detail
