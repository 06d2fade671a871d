// Disaggregated prefill and decode: two pools, the KV transfer between them, and the closed loop
// they serve. Formulas: docs/model.md, "Disaggregated serving".

#include "collectives.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize {

namespace {

using estimate_detail::collective_link;

// The link one prompt's KV cache crosses from a prefill GPU to a decode GPU: NVLink when both
// pools fit in one NVLink domain (any prefill replica then reaches any decode replica over it),
// PCIe inside one server for cards without NVLink, the network otherwise: a request is routed
// to whichever decode replica has room, so past one domain most transfers leave it
// (collective_link's rule for a group of every GPU of both pools).
std::string link_name(const Spec& spec, const Gpu& gpu, int group) {
  if (gpu.has_nvlink() && group <= gpu.nvlink_domain) {
    return "NVLink";
  }
  return group <= gpus_per_server(spec, gpu) ? "PCIe" : "network";
}

} // namespace

std::optional<std::string> disaggregation_refusal(const Spec& spec) {
  const auto& inf = spec.workload.inference;
  if (spec.workload.is_training() || spec.workload.one_pass() || spec.workload.is_transcription()) {
    return std::string("only a text generation splits into prefill and decode");
  }
  if (spec.model.encoder_decoder) {
    return std::string("an encoder-decoder's encoder pass and decode are not split into pools by "
                       "any engine rightsize plans");
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

struct DisaggregatedEstimator::Solved {
  double rate = 0;
  Seconds ttft;
  Seconds tpot;
  double batch = 0;  // per decode replica
  double busy = 0;   // the prefill pool's utilization
  Seconds wait;      // for a prefill replica
  double queued = 0; // requests waiting in front of the prefill pool
  std::string limited_by;
};

DisaggregatedEstimator::DisaggregatedEstimator(const Spec& spec,
                                               const Gpu& gpu,
                                               const Parallelism& prefill,
                                               const Parallelism& decode,
                                               const Constants& constants,
                                               const Efficiency& eff)
    : m_spec(&spec), m_gpu(&gpu), m_prefill_layout(prefill), m_decode_layout(decode) {
  if (disaggregation_refusal(spec)) {
    return;
  }
  m_pre.emplace(serving_layout(spec, gpu, prefill, constants, eff));
  m_dec.emplace(serving_layout(spec, gpu, decode, constants, eff));
  if (!m_pre->steps || !m_dec->steps) {
    return; // a pool that does not hold one sequence
  }
  m_holds = true;
  const auto& inf = spec.workload.inference;
  m_isl = inf.mean_prompt_tokens();
  m_osl = inf.mean_output_tokens();
  // The prefill pool: a prompt alone takes the whole step. A busy replica runs the prompts
  // waiting for it together, as many whole prompts as the engine's token budget per step takes
  // (max_num_batched_tokens, as the simulation's scheduler reads it; at least one): each step
  // reads the weights once for them all. Pipeline stages work on successive steps side by side.
  m_prefill = m_pre->prefill.total();
  const EngineMemoryPolicy& policy = *m_pre->memory.policy;
  const long long budget = inf.max_num_batched_tokens.value_or(
      policy.max_batched_tokens ? static_cast<long long>(policy.max_batched_tokens->value)
                                : max_model_len(spec));
  m_prompts_per_step =
      std::max(1.0, std::floor(static_cast<double>(budget) / std::max(1.0, m_isl)));
  const StepTime step =
      prefill_step_time(spec, gpu, prefill, eff, m_prompts_per_step * m_isl, m_isl);
  m_prefill_per_request = step.total() / (m_prompts_per_step * static_cast<double>(prefill.pp));
  m_t0 = m_pre->steps->engine->per_request;
  // Fixed lengths keep a closed loop's requests in waves (performance.cpp): a request waits on
  // average for the engine's fitted share of half the others' prefills on its replica.
  m_wave_factor = inf.arrives_in_waves() ? m_pre->steps->engine->wave_factor : 0.0;
  // The KV transfer: each prefill GPU sends its shard of the prompt's cache, all at once; the
  // link depends on how many replicas there are (transfer()).
  m_kv_bytes = m_pre->memory.kv.per_sequence(static_cast<long long>(std::ceil(m_isl)));
  m_eff = &eff;
  m_cap = running_batch(
      spec, std::numeric_limits<long long>::max(), m_dec->memory.max_batch, *m_dec->memory.policy);
}

std::pair<Seconds, std::string> DisaggregatedEstimator::transfer(int prefills, int decodes) const {
  const long long group = static_cast<long long>(m_prefill_layout.gpus()) * prefills +
                          static_cast<long long>(m_decode_layout.gpus()) * decodes;
  const int capped = static_cast<int>(std::min<long long>(group, 1 << 30));
  const LinkModel link = collective_link(*m_spec, *m_gpu, capped, *m_eff);
  return {m_kv_bytes / link.bandwidth + link.latency, link_name(*m_spec, *m_gpu, capped)};
}

Seconds DisaggregatedEstimator::token_time(double batch) const {
  return decode_token_time(*m_dec->steps, m_dec->memory.kv, batch, m_isl + m_osl / 2.0);
}

DisaggregatedEstimator::Solved DisaggregatedEstimator::solve(double prefills,
                                                             double decodes,
                                                             double concurrency,
                                                             Seconds kv_transfer) const {
  const double later = std::max(0.0, m_osl - 1.0);
  const auto cap = static_cast<double>(m_cap);
  const double per_request = m_prefill_per_request.si();
  // At request rate `rate`: sequences in decode are rate x (output - 1) x TPOT (Little's law),
  // spread over the decode replicas and capped at what one holds; TPOT grows with the batch, so
  // iterating from a batch of one climbs to the smallest fixed point.
  const auto at = [&](double rate) {
    Solved s;
    s.rate = rate;
    s.busy = std::min(0.98, rate * per_request / prefills);
    s.wait = m_prefill * (s.busy / (2.0 * (1.0 - s.busy)));
    const Seconds wave =
        m_prefill_per_request * (m_wave_factor * std::max(0.0, concurrency / prefills - 1.0) / 2.0);
    s.ttft = m_t0 + m_prefill + max(s.wait, wave) + kv_transfer;
    s.batch = 1;
    s.tpot = token_time(1);
    for (int i = 0; i < 40; ++i) {
      const double next = std::clamp(rate * later * s.tpot.si() / decodes, 1.0, cap);
      if (std::abs(next - s.batch) <= 1e-7 * next) {
        break;
      }
      s.batch = next;
      s.tpot = token_time(next);
    }
    return s;
  };
  const auto in_flight = [&](const Solved& s) { return s.rate * (s.ttft + s.tpot * later).si(); };
  // The most each pool serves: prefill at 98% busy, decode with every replica full.
  const double prefill_max = 0.98 * prefills / per_request;
  const double decode_max =
      later > 0 ? decodes * cap / (later * token_time(cap).si()) : prefill_max;
  const double rate_max = std::min(prefill_max, decode_max);
  Solved most = at(rate_max);
  const double held = in_flight(most);
  if (held < concurrency) {
    most.limited_by = prefill_max <= decode_max ? "prefill" : "decode";
    most.queued = concurrency - held;
    most.ttft += seconds(most.queued / rate_max);
    return most;
  }
  // Halving to a relative 1e-7 of the rate (bisect_crossing's adjacent doubles take twice the
  // evaluations for nothing a report shows; the plan's pool sizing evaluates this often).
  double lo = 0;
  double hi = rate_max;
  while (hi - lo > 1e-7 * hi) {
    const double mid = (lo + hi) / 2.0;
    (in_flight(at(mid)) < concurrency ? lo : hi) = mid;
  }
  return at(lo);
}

DisaggregatedPerformance DisaggregatedEstimator::operator()(int prefills,
                                                            int decodes,
                                                            long long concurrency,
                                                            Detail detail) const {
  DisaggregatedPerformance d;
  d.layout.prefill = {m_prefill_layout, prefills};
  d.layout.decode = {m_decode_layout, decodes};
  d.prefill = m_prefill;
  d.prefill_per_request = m_prefill_per_request;
  d.kv_transfer_bytes = m_kv_bytes;
  std::tie(d.kv_transfer, d.kv_link) = transfer(prefills, decodes);
  d.decode_max_batch = m_cap;
  const Solved s = solve(static_cast<double>(prefills),
                         static_cast<double>(decodes),
                         static_cast<double>(concurrency),
                         d.kv_transfer);
  d.prefill_utilization = s.busy;
  d.prefill_wait = s.wait;
  d.decode_batch = s.batch;
  d.limited_by = s.limited_by;
  InferencePerformance& r = d.perf;
  const auto running = static_cast<long long>(std::ceil(s.batch - 1e-9));
  if (detail == Detail::full) {
    // The decode figures as the aggregated estimate explains them, at the pool's batch; the
    // latencies and rates are the two pools'.
    d.decode_memory = estimate_memory(m_dec->memory, running);
    d.prefill_memory = estimate_memory(m_pre->memory, 1);
    r = estimate_inference(*m_dec, d.decode_memory, 1, Detail::full, running);
  }
  r.concurrency = running;
  r.offered = concurrency;
  r.queueing = !s.limited_by.empty();
  r.prefill = m_prefill;
  r.prefill_share = s.busy;
  r.ttft = s.ttft;
  r.tpot = s.tpot;
  r.decode_step = s.tpot * r.tokens_per_step;
  r.requests_per_s = s.rate;
  r.output_tokens_per_s = s.rate * m_osl;
  r.prefill_tokens_per_s = s.rate * m_isl;
  if (r.queueing && detail == Detail::full) {
    r.bottleneck = s.limited_by == "prefill" ? "compute" : "memory_capacity";
    r.explanation = fmt::format(
        "the {} pool is full: {} of the {} requests in flight wait in front of the prefill pool",
        s.limited_by,
        static_cast<long long>(std::round(s.queued)),
        concurrency);
  }
  return d;
}

DisaggregatedBands disaggregated_bands(const Uncertainty& u,
                                       const std::string& family,
                                       const std::string& engine,
                                       int attention_dp) {
  DisaggregatedBands b{u.disaggregated(u.band("ttft", family, engine), "ttft"),
                       u.disaggregated(u.band("tpot", family, engine), "tpot")};
  if (attention_dp > 1) {
    b.ttft = u.attention_data_parallel(b.ttft, "ttft");
    b.tpot = u.attention_data_parallel(b.tpot, "tpot");
  }
  return b;
}

std::optional<DisaggregatedPerformance> estimate_disaggregated(const Spec& spec,
                                                               const Gpu& gpu,
                                                               const DisaggregatedLayout& layout,
                                                               const Constants& constants,
                                                               const Efficiency& eff) {
  const DisaggregatedEstimator e(
      spec, gpu, layout.prefill.layout, layout.decode.layout, constants, eff);
  if (!e.holds()) {
    return std::nullopt;
  }
  return e(layout.prefill.replicas, layout.decode.replicas, *spec.workload.inference.concurrency);
}

} // namespace rightsize
