#pragma once

// Latency distributions of a text generation on one serving layout: a discrete-event simulation
// of the engine's scheduler (continuous batching, chunked prefill within its token budget, the
// KV cache's capacity-limited admission and preemption), request by request, that yields the
// mean, p50, p90 and p99 of TTFT, TPOT and end-to-end latency as a benchmark client would measure
// them. Its steps cost what the analytical estimate's do (performance.hpp: the same decode step,
// prefill, engine overheads and prefill interference, fitted on measured runs), so the two agree
// on the typical request and the simulation adds the spread. docs/model.md, "Latency
// distributions".

#include <rightsize/core/units.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// How requests arrive at one replica.
enum class ArrivalProcess {
  closed_loop, // `in_flight` requests at once, each replaced when it ends (a benchmark's
               // --max-concurrency; all start together)
  open,        // independent arrivals at `rate`, gaps drawn from a gamma distribution of shape
               // `burstiness` (1: Poisson; vLLM's --request-rate and --burstiness)
  burst,       // `requests` at once, nothing after (an offline batch)
};

struct Arrivals {
  ArrivalProcess process = ArrivalProcess::closed_loop;
  long long in_flight = 1; // closed loop
  double rate = 0;         // open: requests per second
  double burstiness = 1;   // open: the gamma shape of the gaps
  long long requests = 0;  // completed requests measured (a benchmark's --num-prompts)
  // Requests sent first and not measured: a closed loop's first wave, which starts together
  // (a benchmark measures it; a service in its steady state does not see it).
  long long warmup = 0;
  std::uint64_t seed = 0x5eed; // lengths and arrival gaps; the same seed gives the same result
};

// Token lengths drawn uniformly from [low, high] (numpy's randint, as vLLM's random dataset
// draws them), or fixed (low == high).
struct LengthRange {
  long long low = 1;
  long long high = 1;
};

// One kind of request a simulation sends: its prompt and output lengths, and its share of the
// requests (a bin of the spec's length histogram; one kind of share 1 for a range).
struct RequestKind {
  LengthRange input;
  LengthRange output;
  double share = 1;
};

// The engine's scheduler and step costs, worked out once from a layout (scheduler_model): what
// each simulated step reads.
struct SchedulerModel {
  Seconds per_request; // before a request reaches the scheduler (tokenize, schedule)
  // per_request varies over [1 - spread, 1 + spread] x its mean (docs/model.md: what breaks up
  // the waves of a closed loop's requests that would otherwise start and end together).
  double overhead_spread = 1.0;
  long long token_budget = 0;       // tokens one step takes (max_num_batched_tokens)
  bool chunked = true;              // prompts split across steps; else a prompt runs whole
  long long max_running = 0;        // sequences in flight at most (max_num_seqs)
  double kv_tokens = 0;             // what the KV cache holds, in tokens
  Seconds prefill_memory;           // a prefill step alone: its weight reads, whatever its tokens
  Seconds prefill_fixed;            // its fixed per-layer costs
  Seconds prefill_per_token;        // its compute and all-reduces per prompt token
  double prefill_compute_share = 1; // of prefill_per_token, the compute
  double cached_share = 0;          // of each prompt, found in the prefix cache and not computed
  double interference = 1; // share of a prefill's compute that stalls the decodes beside it
  int pipeline_stages = 1; // pipeline parallelism: stages share a prefill's work
  // A decode step of `batch` sequences at the workload's mean context, per token of each
  // (decode_token_time(): speculative decoding's steps yield more than one).
  std::vector<double> decode_seconds; // memo by batch; NaN: not yet computed
  const StepLayout* steps = nullptr;
  KvCacheGeometry kv;
  double mean_context = 0;
  [[nodiscard]] Seconds decode_time(long long batch);
};

// The scheduler of `layout`'s engine for its spec (a text generation with a sequence in flight;
// InternalError otherwise). `memory` is an estimate on this layout.
SchedulerModel scheduler_model(const ServingLayout& layout, const MemoryEstimate& memory);

// Simulates `arrivals` of requests on the scheduler `model`, each of a kind drawn by share with
// its prompt and output lengths drawn from the kind's ranges. Deterministic: the same inputs give
// the same result.
SimulatedLatency simulate_serving(SchedulerModel& model,
                                  const std::vector<RequestKind>& kinds,
                                  const Arrivals& arrivals);

// The same with one kind: lengths drawn from `input` and `output`.
SimulatedLatency simulate_serving(SchedulerModel& model,
                                  LengthRange input,
                                  LengthRange output,
                                  const Arrivals& arrivals);

// The spec's requests on `layout` as a benchmark would send them: its concurrency per replica
// (`perf.offered`) in a closed loop, prompt and output lengths fixed, drawn from
// [length_low_ratio x nominal, nominal] or from the length histogram's bins; the distribution it
// yields, for perf.simulated. Text
// generation only (nullopt otherwise, or with no sequence in flight). Steady state: the first wave
// is not measured. Each latency's distribution is scaled to the analytical estimate's mean in
// `perf` (fitted on measured runs): the simulation gives the spread around it.
std::optional<SimulatedLatency> simulate_percentiles(const ServingLayout& layout,
                                                     const MemoryEstimate& memory,
                                                     const InferencePerformance& perf);

// The same on the layout of `spec` on `gpu` with `p`, for an estimate made without one.
std::optional<SimulatedLatency> simulate_percentiles(const Spec& spec,
                                                     const Gpu& gpu,
                                                     const Parallelism& p,
                                                     const Constants& constants,
                                                     const Efficiency& eff,
                                                     const MemoryEstimate& memory,
                                                     const InferencePerformance& perf);

// How percentile targets stand against a distribution held at `high` x its statistics (the slow
// edge of a band): the target with the largest held / limit (1 or less: met), with that ratio and
// its held value; ratio 0 and no target when there are none.
struct PercentileHold {
  double ratio = 0;
  const PercentileTarget* target = nullptr;
  Seconds held;
};
PercentileHold worst_percentile(const std::vector<PercentileTarget>& targets,
                                const LatencyPercentiles& stats,
                                double high);

// The requests a simulation measures by default: five times the requests in flight, at least 200
// (p99 is then among the two slowest) and at most 1000.
long long default_simulated_requests(long long in_flight);

} // namespace rightsize
