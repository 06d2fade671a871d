// The price a GPU is paid at, as whole instances, and its label. docs/catalog.md, "Choosing
// prices".

#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace rightsize {

namespace {

bool listed(const Price& p, const std::string& kind, const std::optional<std::string>& provider) {
  return p.kind == kind && (!provider || p.provider == *provider);
}

// "1, 4 and 8".
std::string count_list(const std::set<int>& counts) {
  std::string out;
  std::size_t i = 0;
  for (const int n : counts) {
    if (i > 0) {
      out += i + 1 == counts.size() ? " and " : ", ";
    }
    out += std::to_string(n);
    ++i;
  }
  return out;
}

// Why no fleet: no price, only GPU-only prices without a host, or no shape that holds the layout.
std::string no_fleet_reason(const Gpu& g,
                            const std::string& kind,
                            const std::optional<std::string>& provider,
                            const ReplicaGpus& replica) {
  const std::string from = provider ? " from " + *provider : std::string();
  std::map<std::string, std::set<int>> shapes; // provider -> GPUs per instance, usable prices
  std::vector<std::string> hostless;
  for (const auto& p : g.prices) {
    if (!listed(p, kind, provider)) {
      continue;
    }
    if (p.usable()) {
      shapes[p.provider].insert(p.gpus_per_instance);
    } else {
      hostless.push_back(p.provider);
    }
  }
  if (shapes.empty() && hostless.empty()) {
    if (g.prices.empty() && !g.not_rentable.empty()) {
      return "not rentable: " + g.not_rentable;
    }
    return fmt::format("no {} price{} in the catalog", kind, from);
  }
  if (shapes.empty()) {
    return fmt::format("no {} price{} in the catalog that includes its host: {}'s is GPU only, "
                       "without the VM it needs (not used; docs/catalog.md)",
                       kind,
                       from,
                       hostless.front());
  }
  std::string sold;
  for (const auto& [name, counts] : shapes) {
    sold += fmt::format("{}{} sells {} in instances of {} GPU{}",
                        sold.empty() ? "" : "; ",
                        name,
                        g.name,
                        count_list(counts),
                        counts.size() == 1 && *counts.begin() == 1 ? "" : "s");
  }
  return fmt::format("no instance shape holds a replica of {} GPU{}{}: {}",
                     replica.gpus,
                     replica.gpus == 1 ? "" : "s",
                     replica.tensor_parallel > 1
                         ? fmt::format(" (TP{} in one instance)", replica.tensor_parallel)
                         : std::string(),
                     sold);
}

} // namespace

std::optional<long long>
instances_for(int gpus_per_instance, const ReplicaGpus& replica, long long replicas) {
  const int n = gpus_per_instance;
  const int k = replica.gpus;
  const int tp = replica.tensor_parallel;
  if (n < 1 || k < 1 || tp < 1 || replicas < 0) {
    return std::nullopt;
  }
  if (k <= n && n % k == 0) {
    const long long per_instance = n / k;
    return (replicas + per_instance - 1) / per_instance;
  }
  if (k > n && k % n == 0 && n % tp == 0) {
    return replicas * (k / n);
  }
  return std::nullopt;
}

std::optional<PricedFleet> pick_fleet(const Gpu& g,
                                      const std::string& kind,
                                      const std::optional<std::string>& provider,
                                      const ReplicaGpus& replica,
                                      long long replicas,
                                      std::string* why) {
  std::optional<PricedFleet> best;
  for (const auto& p : g.prices) {
    if (!listed(p, kind, provider) || !p.usable()) {
      continue;
    }
    // A shape the file does not state may hold a TP group across its 1-GPU instances.
    const ReplicaGpus held = p.shape_stated ? replica : ReplicaGpus{replica.gpus, 1};
    const auto instances = instances_for(p.gpus_per_instance, held, replicas);
    if (!instances) {
      continue;
    }
    const PricedFleet f{&p, *instances};
    // Cheapest per hour; on a tie, the fewer GPUs rented, then the cheaper GPU (the one whose
    // spare GPUs cost least when demand grows into them).
    if (!best || f.per_hour() < best->per_hour() ||
        (f.per_hour() == best->per_hour() &&
         (f.gpus() < best->gpus() ||
          (f.gpus() == best->gpus() && p.per_gpu < best->price->per_gpu)))) {
      best = f;
    }
  }
  if (!best && why != nullptr) {
    *why = no_fleet_reason(g, kind, provider, replica);
  }
  return best;
}

const Price*
pick_price(const Gpu& g, const std::string& kind, const std::optional<std::string>& provider) {
  const Price* best = nullptr;
  for (const auto& p : g.prices) {
    if (!listed(p, kind, provider) || !p.usable()) {
      continue;
    }
    if (best == nullptr || p.per_gpu < best->per_gpu) {
      best = &p;
    }
  }
  return best;
}

std::string cloud_price_label(const Price& p) {
  const std::string includes =
      p.host ? fmt::format("GPU + host {}", p.host->name) : std::string("instance");
  // A price its source gives with low confidence (a third party's quote) says so wherever it is
  // used: a recommendation may rest on it.
  const std::string shape =
      p.shape_stated
          ? fmt::format(
                "{} GPU{}, {}", p.gpus_per_instance, p.gpus_per_instance == 1 ? "" : "s", includes)
          : std::string("per GPU, shape not stated");
  return fmt::format("{} {} {}({}) {} ({} {}){}",
                     format_usd_per_hour(p.per_instance()),
                     p.provider,
                     p.instance.empty() ? std::string() : p.instance + " ",
                     shape,
                     p.kind,
                     p.as_of_stated ? "as of" : "retrieved",
                     p.as_of,
                     p.provenance.confidence == "low" ? ", low confidence" : "");
}

std::string cloud_fleet_label(const PricedFleet& f) {
  const std::string label = cloud_price_label(*f.price);
  return f.instances > 1 ? fmt::format("{} x {}", f.instances, label) : label;
}

} // namespace rightsize
