// Disaggregated prefill and decode: two pools, the KV transfer between them, and the closed loop
// they serve. Formulas: docs/model.md, "Disaggregated serving".

#include "collectives.hpp"

#include <rightsize/core/bisect.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

namespace {

using estimate_detail::collective_link;

// The link one prompt's KV cache crosses from a prefill GPU to a decode GPU: NVLink when a
// prefill replica and a decode replica fit in one NVLink domain together, PCIe inside one server
// for cards without NVLink, the network otherwise (collective_link's rule for a group of both).
std::string link_name(const Spec& spec, const Gpu& gpu, int group) {
  if (gpu.has_nvlink() && group <= gpu.nvlink_domain) {
    return "NVLink";
  }
  return group <= gpus_per_server(spec, gpu) ? "PCIe" : "network";
}

// The decode pool's per-token step time at the batch the served rate keeps in it: sequences in
// decode are rate x (output - 1) x TPOT (Little's law), spread over the replicas and capped at
// what a replica holds. TPOT grows with the batch, so iterating from a batch of one climbs to the
// smallest fixed point.
struct DecodePool {
  const StepLayout* steps = nullptr;
  const KvCacheGeometry* kv = nullptr;
  double context = 0;
  double later_tokens = 0; // output tokens after the first
  double replicas = 1;
  double cap = 1;
  [[nodiscard]] Seconds token_time(double batch) const {
    return decode_token_time(*steps, *kv, batch, context);
  }
  // The batch per replica and its per-token time at request rate `rate`.
  [[nodiscard]] std::pair<double, Seconds> at_rate(double rate) const {
    double batch = 1;
    Seconds tpot = token_time(batch);
    for (int i = 0; i < 30; ++i) {
      const double next = std::clamp(rate * later_tokens * tpot.si() / replicas, 1.0, cap);
      if (std::abs(next - batch) < 1e-9 * cap) {
        break;
      }
      batch = next;
      tpot = token_time(batch);
    }
    return {batch, tpot};
  }
};

} // namespace

std::optional<std::string> disaggregation_refusal(const Spec& spec) {
  const auto& inf = spec.workload.inference;
  if (spec.workload.is_training() || spec.workload.one_pass() || spec.workload.is_transcription() ||
      spec.model.encoder_decoder) {
    return std::string("only a text generation splits into prefill and decode");
  }
  if (!inf.concurrency) {
    return std::string("an offline (batch) workload has no latency to gain from it: give "
                       "workload.concurrency");
  }
  const EngineVerdict& e = engine_traits(inf.engine).disaggregation;
  if (!e.plans) {
    return fmt::format(
        "{} does not split prefill and decode: {}", engine_traits(inf.engine).display_name, e.why);
  }
  return std::nullopt;
}

std::optional<DisaggregatedPerformance> estimate_disaggregated(const Spec& spec,
                                                               const Gpu& gpu,
                                                               const DisaggregatedLayout& layout,
                                                               const Constants& constants,
                                                               const Efficiency& eff) {
  if (disaggregation_refusal(spec)) {
    return std::nullopt;
  }
  const ServingLayout pre = serving_layout(spec, gpu, layout.prefill.layout, constants, eff);
  const ServingLayout dec = serving_layout(spec, gpu, layout.decode.layout, constants, eff);
  if (!pre.steps || !dec.steps) {
    return std::nullopt; // a pool that does not hold one sequence
  }
  const auto& inf = spec.workload.inference;
  DisaggregatedPerformance d;
  d.layout = layout;
  const double mean = inf.mean_length_share();
  const double isl = static_cast<double>(inf.prompt_tokens()) * mean;
  const double osl = static_cast<double>(inf.output_tokens) * mean;
  const auto concurrency = static_cast<double>(*inf.concurrency);
  const auto prefills = static_cast<double>(layout.prefill.replicas);

  // The prefill pool: a prompt alone takes the whole step; batched, each adds its FLOPs and
  // all-reduces (performance.cpp's marginal prefill), pipeline stages working side by side.
  d.prefill = pre.prefill.total();
  d.prefill_per_request = (pre.prefill.compute + pre.prefill.communication) /
                          static_cast<double>(layout.prefill.layout.pp);
  const Seconds t0 = pre.steps->engine->per_request;

  // The KV transfer: each prefill GPU sends its shard of the prompt's cache, all at once.
  const int pair = layout.prefill.layout.gpus() + layout.decode.layout.gpus();
  const LinkModel link = collective_link(spec, gpu, pair, eff);
  d.kv_link = link_name(spec, gpu, pair);
  d.kv_transfer_bytes = pre.memory.kv.per_sequence(static_cast<long long>(std::ceil(isl)));
  d.kv_transfer = d.kv_transfer_bytes / link.bandwidth + link.latency;

  // The decode pool.
  d.decode_memory = estimate_memory(dec.memory, 1, Detail::numbers);
  d.decode_max_batch = running_batch(
      spec, std::numeric_limits<long long>::max(), d.decode_memory.max_batch, *dec.memory.policy);
  DecodePool pool{&*dec.steps,
                  &dec.memory.kv,
                  isl + osl / 2.0,
                  std::max(0.0, osl - 1.0),
                  static_cast<double>(layout.decode.replicas),
                  static_cast<double>(d.decode_max_batch)};

  const auto at = [&](double rate, Seconds& ttft, Seconds& tpot, double& batch) {
    const double busy = std::min(0.98, rate * d.prefill_per_request.si() / prefills);
    d.prefill_utilization = busy;
    d.prefill_wait = d.prefill * (busy / (2.0 * (1.0 - busy)));
    ttft = t0 + d.prefill + d.prefill_wait + d.kv_transfer;
    std::tie(batch, tpot) = pool.at_rate(rate);
    return rate * (ttft + tpot * pool.later_tokens).si();
  };
  // The most each pool serves: prefill at 98% busy, decode with every replica full.
  const double prefill_max = 0.98 * prefills / d.prefill_per_request.si();
  const double decode_max =
      pool.later_tokens > 0
          ? pool.replicas * pool.cap / (pool.later_tokens * pool.token_time(pool.cap).si())
          : prefill_max;
  const double rate_max = std::min(prefill_max, decode_max);
  Seconds ttft;
  Seconds tpot;
  double batch = 0;
  double rate = rate_max;
  const double most = at(rate_max, ttft, tpot, batch);
  if (most < concurrency) {
    // Requests beyond what the pools hold wait in front of the prefill pool.
    d.limited_by = prefill_max <= decode_max ? "prefill" : "decode";
    ttft += seconds((concurrency - most) / rate_max);
  } else {
    rate = bisect_crossing(rate_max, concurrency, [&](double r) {
      Seconds a;
      Seconds b;
      double c = 0;
      return at(r, a, b, c);
    });
    at(rate, ttft, tpot, batch);
  }
  d.decode_batch = batch;

  // The decode figures as the aggregated estimate explains them, at the pool's batch; the
  // latencies and rates are the two pools'.
  const auto running = static_cast<long long>(std::ceil(batch - 1e-9));
  d.decode_memory = estimate_memory(dec.memory, running);
  d.prefill_memory = estimate_memory(pre.memory, 1);
  InferencePerformance& r = d.perf;
  r = estimate_inference(dec, d.decode_memory, 1, Detail::full, running);
  r.offered = *inf.concurrency;
  r.queueing = !d.limited_by.empty();
  r.prefill = d.prefill;
  r.prefill_share = d.prefill_utilization;
  r.ttft = ttft;
  r.tpot = tpot;
  r.decode_step = tpot * r.tokens_per_step;
  r.requests_per_s = rate;
  r.output_tokens_per_s = rate * osl;
  r.prefill_tokens_per_s = rate * isl;
  if (r.queueing) {
    r.bottleneck = d.limited_by == "prefill" ? "compute" : "memory_capacity";
    r.explanation = fmt::format(
        "the {} pool is full: {} of the {} requests in flight wait in front of the prefill pool",
        d.limited_by,
        static_cast<long long>(std::round(concurrency - most)),
        *inf.concurrency);
  }
  return d;
}

} // namespace rightsize
