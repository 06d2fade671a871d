// The spec's "constraints" (which GPUs, how many) and "deployment" (cloud or on-prem, prices,
// horizon), docs/spec.md.

#include "reader.hpp"

#include <algorithm>
#include <cctype>

namespace rightsize::spec_reader {

using detail::Range;

void read_constraints(const FieldReader& r, Constraints& c) {
  r.reject_unknown({"gpus", "vendors", "max_gpus", "max_gpus_per_node", "allow_cross_node_tp"});
  c.where = r.where();
  if (r.has("gpus")) {
    c.gpus = r.string_array("gpus");
    if (c.gpus.empty()) {
      r.member("gpus").fail_plain("must list at least one GPU when present");
    }
  }
  if (r.has("vendors")) {
    for (const auto& e : r.array("vendors")) {
      // Lower case, as the catalog spells vendors; plan checks the name against the catalog's
      // (check_constraint_gpus), since which vendors exist is the catalog's data.
      std::string v = e.as_string();
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) {
        return static_cast<char>(std::tolower(ch));
      });
      c.vendors.push_back(std::move(v));
    }
  }
  c.max_gpus = r.optional_integer("max_gpus", Range{1, 1e6});
  c.max_gpus_per_node = r.optional_integer("max_gpus_per_node", Range{1, 1024});
  c.allow_cross_node_tp = r.optional_boolean("allow_cross_node_tp").value_or(false);
}

void read_deployment(const FieldReader& r, Deployment& d) {
  r.reject_unknown({"mode",
                    "horizon_months",
                    "growth_per_month",
                    "hours_per_month",
                    "provider",
                    "price_kind",
                    "utilization",
                    "pue",
                    "electricity_usd_per_kwh",
                    "amortization_years",
                    "operations_share",
                    "stale_price_days",
                    "gpus_per_server",
                    "scale_to_zero"});
  if (r.has("mode")) {
    d.mode = r.choice("mode", k_deployment_mode_names);
  }
  d.horizon_months = r.optional_integer("horizon_months", Range{1, 240}).value_or(d.horizon_months);
  d.growth_per_month =
      r.optional_number("growth_per_month", Range{-0.5, 10.0}).value_or(d.growth_per_month);
  d.hours_per_month =
      r.optional_number("hours_per_month", Range{0.0, 744.0, true}).value_or(d.hours_per_month);
  d.provider = r.optional_string("provider");
  if (r.has("price_kind")) {
    d.price_kind = r.choice<std::string>("price_kind",
                                         {{"on_demand", "on_demand"},
                                          {"spot", "spot"},
                                          {"committed_1y", "committed_1y"},
                                          {"committed_3y", "committed_3y"},
                                          {"committed", "committed"}});
  }
  d.utilization = r.optional_number("utilization", Range{0.0, 1.0, true}).value_or(d.utilization);
  d.pue = r.optional_number("pue", Range{1.0, 5.0}).value_or(d.pue);
  d.electricity_usd_per_kwh =
      r.optional_number("electricity_usd_per_kwh", Range::non_negative(10.0))
          .value_or(d.electricity_usd_per_kwh);
  d.amortization_years = r.optional_number("amortization_years", Range{0.0, 20.0, true})
                             .value_or(d.amortization_years);
  d.operations_share =
      r.optional_number("operations_share", Range::non_negative(5.0)).value_or(d.operations_share);
  d.stale_price_days =
      r.optional_integer("stale_price_days", Range{1, 36500}).value_or(d.stale_price_days);
  d.gpus_per_server = r.optional_integer("gpus_per_server", Range{1, 576});
  d.scale_to_zero = r.optional_boolean("scale_to_zero").value_or(d.scale_to_zero);
}

} // namespace rightsize::spec_reader
