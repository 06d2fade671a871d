#include <rightsize/plan/plan_checks.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace rightsize {

namespace {

// "A, B and C", or "A, B, C, D and 3 more".
std::string gpu_list(const std::vector<std::string>& names) {
  constexpr std::size_t k_shown = 4;
  if (names.size() == 1) {
    return names.front();
  }
  const std::size_t shown = names.size() > k_shown ? k_shown : names.size() - 1;
  std::string out;
  for (std::size_t i = 0; i < shown; ++i) {
    out += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > k_shown) {
    return out + fmt::format(" and {} more", names.size() - shown);
  }
  return out + " and " + names.back();
}

} // namespace

std::string infeasible_because(const Plan& plan) {
  if (plan.feasible()) {
    return "";
  }
  std::vector<std::string> unpriced;
  const Rejection* first = nullptr;
  bool same_reason = true; // every one for the reason the first gives
  for (const Rejection& r : plan.rejected) {
    if (r.code == "no_price") {
      unpriced.push_back(r.gpu);
      same_reason = same_reason && (first == nullptr || r.reason == first->reason);
      first = first != nullptr ? first : &r;
    } else if (r.code != "constraint") {
      return ""; // some GPU the spec allows fails for another reason: the misses say which
    }
  }
  if (first == nullptr) {
    return "";
  }
  const bool cloud = plan.spec.deployment.mode == DeploymentMode::cloud;
  // One reason for all, or, where they differ (each GPU's own "not rentable: ..."), what they
  // share; the rejections give each one.
  const std::string reason =
      same_reason ? first->reason
                  : fmt::format("no {} price: each GPU's rejection says why",
                                cloud ? plan.spec.deployment.price_kind : std::string("purchase"));
  const std::string which = unpriced.size() == 1
                                ? unpriced.front() + ", the only GPU the spec allows, was"
                                : gpu_list(unpriced) + ", the only GPUs the spec allows, were";
  return cloud ? fmt::format("{} excluded for lack of a price in the cloud mode ({}); plan on-prem "
                             "with --mode onprem (priced by purchase), or give their cloud prices "
                             "in a catalog overlay (--catalog FILE, docs/catalog.md)",
                             which,
                             reason)
               : fmt::format("{} excluded for lack of a purchase price in the on-prem mode ({}); "
                             "plan in the cloud with --mode cloud, or give their purchase prices "
                             "in a catalog overlay (--catalog FILE, docs/catalog.md)",
                             which,
                             reason);
}

} // namespace rightsize
