// Which layouts and precisions the plan search tries on a GPU. Rules: docs/plan.md.

#include "search.hpp"

#include <rightsize/estimate/performance.hpp>
#include <rightsize/plan/precision.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::detail {

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

// Tensor-parallel sizes worth trying: powers of two that divide the heads, within one server
// (all-reduces over NVLink inside the NVLink domain, over PCIe beyond it: gpus_per_server) or one
// NVLink domain when that is larger (an NVL72 rack), at most 16.
std::vector<int> tp_options(const Spec& s, const Gpu& g) {
  int limit = std::min(std::max(g.has_nvlink() ? g.nvlink_domain : 1, gpus_per_server(s, g)), 16);
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
  out.reserve(7); // 1 to 64
  for (int tp = 1; tp <= limit; tp *= 2) {
    if (s.model.tp_indivisible(tp).empty()) {
      out.push_back(tp);
    }
  }
  return out;
}

// Context-parallel sizes the training search tries (docs/plan.md, "Training layouts"): 1, and for
// sequences of 16K tokens or more, powers of two that leave each rank at least 4K tokens and split
// the sequence into 2 x cp equal chunks (Megatron-Core's load-balanced causal split).
std::vector<int> cp_options(const Spec& spec) {
  const long long seq = spec.workload.training.seq_len;
  std::vector<int> out{1};
  if (seq < k_context_parallel_min_seq || !context_parallel_unsupported(spec).empty()) {
    return out;
  }
  for (int cp = 2; seq / cp >= k_context_parallel_min_tokens_per_rank && seq % (2 * cp) == 0;
       cp *= 2) {
    out.push_back(cp);
  }
  return out;
}

// The spec with each precision the user allows, the spec's own first.
std::vector<std::shared_ptr<const Spec>> precision_variants(const Spec& s) {
  std::vector<std::shared_ptr<const Spec>> out{std::make_shared<const Spec>(s)};
  for (Spec& v : other_precision_variants(s)) {
    out.push_back(std::make_shared<const Spec>(std::move(v)));
  }
  return out;
}

std::vector<Spec> other_precision_variants(const Spec& s) {
  std::vector<Spec> out;
  for (const DType d : s.precision.allow) {
    DType kv_cache = s.precision.kv_cache;
    if (element_bits(d) >= 8 && d != DType::int8 && !s.workload.is_training()) {
      // An allowed 8-bit format applies to weights and KV cache.
      kv_cache = element_bits(d) <= 8 ? DType::fp8 : d;
    }
    if (d == s.precision.weights && kv_cache == s.precision.kv_cache) {
      continue;
    }
    out.push_back(with_precision(s, d, kv_cache));
  }
  return out;
}

std::string precision_label(const Spec& s) {
  return fmt::format("{} weights, {} KV cache",
                     s.weights.quantized() ? s.weights.method
                                           : std::string(to_string(s.precision.weights)),
                     to_string(s.precision.kv_cache));
}

} // namespace rightsize::detail
