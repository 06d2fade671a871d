#pragma once

// Disaggregated prefill and decode (docs/model.md, "Disaggregated serving"): a prefill pool of
// replicas that only run prompts and a decode pool that only decodes, the prompts' KV cache sent
// from one to the other. The decode steps are never stalled by a prefill (the aggregated model's
// prefill interference), at the price of a second pool, its rounding and the transfer.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <optional>
#include <string>
#include <utility>

namespace rightsize {

// One pool: the layout of each of its replicas and how many there are.
struct ServingPool {
  Parallelism layout;
  int replicas = 1;
  [[nodiscard]] int gpus() const { return layout.gpus() * replicas; }
};

// xPyD: `prefill.replicas` prefill replicas and `decode.replicas` decode replicas, each pool
// with its own layout, on one GPU model.
struct DisaggregatedLayout {
  ServingPool prefill;
  ServingPool decode;
  [[nodiscard]] int gpus() const { return prefill.gpus() + decode.gpus(); }
};

struct DisaggregatedPerformance {
  DisaggregatedLayout layout;
  // The prefill pool: one prompt alone, a replica's busy time per prompt when prompts wait (a
  // step of as many whole prompts as the engine's token budget takes, over their number), and
  // the share of the pool's time spent busy at the served rate.
  Seconds prefill;
  Seconds prefill_per_request;
  double prefill_utilization = 0;
  Seconds prefill_wait; // queueing for a prefill replica (M/D/1)
  // One prompt's KV cache sent from a prefill GPU to its decode GPU (each GPU sends its shard):
  // its bytes, the link ("NVLink" when both pools fit in one NVLink domain, "PCIe" inside one
  // server without NVLink, "network" otherwise) and the time.
  Bytes kv_transfer_bytes;
  std::string kv_link;
  Seconds kv_transfer;
  // The decode pool: sequences each replica decodes at once, the most it holds (its KV cache, or
  // the engine's max_num_seqs) and what a step of them takes per token.
  double decode_batch = 0;
  long long decode_max_batch = 0;
  // "prefill" or "decode" when that pool's capacity caps the rate and requests queue; empty when
  // neither does.
  std::string limited_by;
  // The serving figures as the aggregated estimate gives them (ttft, tpot, rates of the whole
  // deployment, concurrency: per decode replica), for the reports they share.
  InferencePerformance perf;
  MemoryEstimate prefill_memory; // one prefill GPU, a prompt in flight
  MemoryEstimate decode_memory;  // one decode GPU at its batch
};

// A disaggregated layout's estimate (docs/model.md, "Disaggregated serving"): the spec's
// concurrency (requests in flight in all, a closed loop) served at the request rate that solves
// rate x (TTFT + (output - 1) x TPOT) = concurrency, TTFT being the engine's per-request cost,
// the prompt's prefill, its wait for a prefill replica (M/D/1) and the KV transfer, TPOT a
// decode step of the decode replica's share of the sequences, per token. Requests the pools
// cannot take queue in front of the prefill pool (their wait adds to TTFT).
//
// The terms that do not depend on the replica counts are worked out once per pair of layouts:
// the plan's search sizes the pools with a few dozen evaluations. Points to the spec, GPU,
// constants and efficiencies, which must outlive it.
class DisaggregatedEstimator {
public:
  DisaggregatedEstimator(const Spec& spec,
                         const Gpu& gpu,
                         const Parallelism& prefill,
                         const Parallelism& decode,
                         const Constants& constants,
                         const Efficiency& eff);
  // Whether both layouts hold a sequence of the spec's length and the spec can be split
  // (disaggregation_refusal).
  [[nodiscard]] bool holds() const { return m_holds; }
  // `prefills` x `decodes` replicas serving `concurrency` requests in flight. Detail::numbers
  // leaves out the memory estimates and the decode step's parts and sentences (perf then carries
  // only the latencies, rates, batch and queueing). Only when holds().
  [[nodiscard]] DisaggregatedPerformance
  operator()(int prefills, int decodes, long long concurrency, Detail detail = Detail::full) const;

private:
  struct Solved;
  [[nodiscard]] Solved
  solve(double prefills, double decodes, double concurrency, Seconds kv_transfer) const;
  // One prompt's KV transfer and the link's name for pools of these replica counts.
  [[nodiscard]] std::pair<Seconds, std::string> transfer(int prefills, int decodes) const;
  [[nodiscard]] Seconds token_time(double batch) const;

  const Spec* m_spec;
  const Gpu* m_gpu;
  Parallelism m_prefill_layout;
  Parallelism m_decode_layout;
  bool m_holds = false;
  std::optional<ServingLayout> m_pre;
  std::optional<ServingLayout> m_dec;
  double m_isl = 0;
  double m_osl = 0;
  Seconds m_t0;
  Seconds m_prefill;
  Seconds m_prefill_per_request;
  double m_prompts_per_step = 1;
  double m_wave_factor = 0;
  Bytes m_kv_bytes;
  const Efficiency* m_eff = nullptr;
  long long m_cap = 0;
};

// The same as DisaggregatedEstimator(...)(replicas, spec's concurrency); nullopt when it does
// not hold().
std::optional<DisaggregatedPerformance> estimate_disaggregated(const Spec& spec,
                                                               const Gpu& gpu,
                                                               const DisaggregatedLayout& layout,
                                                               const Constants& constants,
                                                               const Efficiency& eff);

// The TTFT and TPOT bands of a disaggregated prediction on a GPU family and engine: the pair's
// (Uncertainty::band) enveloped with the measured disaggregated runs' (Uncertainty::disaggregated)
// and, for pools of `attention_dp` > 1 attention data-parallel groups, with the measured
// attention-DP runs' too (Uncertainty::attention_data_parallel): neither layout was fitted.
struct DisaggregatedBands {
  RatioBand ttft;
  RatioBand tpot;
};
DisaggregatedBands disaggregated_bands(const Uncertainty& u,
                                       const std::string& family,
                                       const std::string& engine,
                                       int attention_dp = 1);

// Why the spec cannot be served disaggregated, or nullopt when it can: a text generation (not an
// embedding, transcription or image workload), online (a concurrency), on an engine that splits
// prefill and decode (spec/engine_traits.hpp).
std::optional<std::string> disaggregation_refusal(const Spec& spec);

} // namespace rightsize
