#pragma once

// The cloud price a GPU is paid at, as the instances a provider sells: plan costs each month's
// replicas with it, estimate reports it and observe prices what runs and what it recommends, so
// the three agree; and the label that names it in reports. docs/catalog.md, "Choosing prices".

#include <rightsize/catalog/catalog.hpp>

#include <optional>
#include <string>

namespace rightsize {

// A replica's GPUs: all of them, and the tensor-parallel group among them that must share one
// instance (its all-reduce runs every layer over the instance's GPU link; pipeline stages and
// data-parallel ranks may sit in other instances).
struct ReplicaGpus {
  int gpus = 1;
  int tensor_parallel = 1;
};

// Instances of `gpus_per_instance` (n) GPUs that hold `replicas` (R) replicas of k GPUs: when
// n % k == 0 an instance holds n/k replicas, so ceil(R / (n/k)); when k % n == 0 and the
// tensor-parallel group fits in one instance (n % tp == 0) a replica spans k/n instances, so
// R x k/n; otherwise nullopt: that shape cannot hold the layout.
std::optional<long long>
instances_for(int gpus_per_instance, const ReplicaGpus& replica, long long replicas);

// What a fleet pays: `instances` of the price's shape, every GPU of each paid for.
struct PricedFleet {
  const Price* price = nullptr; // into the Gpu's prices
  long long instances = 0;
  [[nodiscard]] long long gpus() const { return instances * price->gpus_per_instance; }
  [[nodiscard]] UsdPerHour per_hour() const { return price->per_gpu * static_cast<double>(gpus()); }
};

// The cheapest fleet of `g` for `replicas` replicas of `replica`: among its usable
// prices (Price::usable) of `kind`, from `provider` when set (names as the catalog spells them:
// resolve_provider, resolve_price_kind), the shapes that hold the layout (a price that does not
// state its shape, Price::shape_stated, holds a TP group over its 1-GPU instances). nullopt when
// none does, with the reason in `why` when given ("AWS sells A10G-24GB in instances of 1, 4 and 8
// GPUs").
std::optional<PricedFleet> pick_fleet(const Gpu& g,
                                      const std::string& kind,
                                      const std::optional<std::string>& provider,
                                      const ReplicaGpus& replica,
                                      long long replicas,
                                      std::string* why = nullptr);

// The cheapest usable price per GPU of `g` of `kind` (from `provider` when set), whatever its
// shape; null when it has none. Points into g.prices.
const Price*
pick_price(const Gpu& g, const std::string& kind, const std::optional<std::string>& provider);

// "$5.672/h AWS g5.12xlarge (4 GPUs, instance) on_demand (retrieved 2026-11-21)": the price of
// one instance of the shape, what it includes ("instance", or "GPU + host n1-standard-4"), "as
// of" when the source states its date, and ", low confidence" after it when the price's
// provenance says so. A price that states no shape reads "(per GPU, shape not stated)".
std::string cloud_price_label(const Price& p);
// The label, with "2 x " in front when the fleet rents more than one instance.
std::string cloud_fleet_label(const PricedFleet& f);

} // namespace rightsize
