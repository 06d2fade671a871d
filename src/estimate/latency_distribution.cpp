// The serving simulation (latency_distribution.hpp): the engine's scheduler step by step, each
// step's time from the analytical model's step costs. docs/model.md, "Latency distributions".

#include "decoding.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/statistics.hpp>
#include <rightsize/estimate/latency_distribution.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <tuple>

namespace rightsize {

Seconds LatencyPercentiles::at(int percentile) const {
  switch (percentile) {
  case 0:
    return mean;
  case 50:
    return p50;
  case 90:
    return p90;
  case 99:
    return p99;
  default:
    throw InternalError("LatencyPercentiles::at: no such percentile");
  }
}

Seconds SchedulerModel::decode_time(long long batch) {
  const auto i = static_cast<std::size_t>(batch);
  if (i >= decode_seconds.size()) {
    decode_seconds.resize(std::max(i + 1, 2 * decode_seconds.size()),
                          std::numeric_limits<double>::quiet_NaN());
  }
  if (std::isnan(decode_seconds[i])) {
    decode_seconds[i] =
        decode_token_time(*steps, kv, static_cast<double>(batch), mean_context).si();
  }
  return seconds(decode_seconds[i]);
}

SchedulerModel scheduler_model(const ServingLayout& layout, const MemoryEstimate& memory) {
  const Spec& spec = *layout.memory.spec;
  if (!layout.steps || spec.workload.one_pass() || memory.max_batch < 1) {
    throw InternalError("scheduler_model: not a text generation with a sequence in flight");
  }
  const auto& inf = spec.workload.inference;
  const EngineMemoryPolicy& policy = *layout.memory.policy;
  SchedulerModel m;
  m.steps = &*layout.steps;
  m.kv = layout.memory.kv;
  const double isl = inf.mean_prompt_tokens();
  const double osl = inf.mean_output_tokens();
  m.mean_context = isl + osl / 2.0;
  const EngineOverhead& engine = *layout.steps->engine;
  m.per_request = engine.per_request;
  m.interference = engine.prefill_interference;
  m.pipeline_stages = layout.steps->p.pp;
  m.chunked = chunks_prefill(spec, policy);
  const long long budget = inf.max_num_batched_tokens.value_or(
      policy.max_batched_tokens ? static_cast<long long>(policy.max_batched_tokens->value)
                                : max_model_len(spec));
  // Unchunked, a prompt runs whole in one step: the budget is at least the longest request
  // (vLLM raises max_num_batched_tokens to max_model_len then).
  m.token_budget = m.chunked ? budget : std::max(budget, max_model_len(spec));
  m.max_running = layout.max_num_seqs.value_or(std::numeric_limits<long long>::max());
  // The cache holds max_batch sequences of the nominal (longest) length: shorter drawn lengths
  // leave room for more.
  m.kv_tokens = static_cast<double>(memory.max_batch) *
                static_cast<double>(std::max<long long>(1, layout.memory.context_tokens));
  const StepTime& pf = layout.prefill;
  m.prefill_memory = pf.memory;
  m.prefill_fixed = pf.fixed;
  // A prefix cache's hits are not computed (docs/model.md, "Prefix caching"): the prefill's
  // work is spread over the tokens it computes.
  m.cached_share = estimate_detail::cached_share(inf, isl);
  m.prefill_per_token =
      (pf.compute + pf.communication) / std::max(1.0, isl * (1.0 - m.cached_share));
  m.prefill_compute_share =
      pf.compute.si() > 0 ? pf.compute.si() / (pf.compute + pf.communication).si() : 1.0;
  return m;
}

namespace {

// A distribution times `k`.
LatencyPercentiles scaled_by(LatencyPercentiles d, double k) {
  d.mean = d.mean * k;
  d.p50 = d.p50 * k;
  d.p90 = d.p90 * k;
  d.p99 = d.p99 * k;
  return d;
}

// The factor that takes `d`'s mean to `mean` (1 for an empty distribution).
double anchor(const LatencyPercentiles& d, Seconds mean) {
  return d.mean.si() > 0 ? mean / d.mean : 1.0;
}

// The spec's requests: its length histogram's bins (each prompt with the images' tokens), or
// one kind whose lengths are drawn from [length_low_ratio x nominal, nominal].
std::vector<RequestKind> request_kinds(const InferenceWorkload& inf) {
  std::vector<RequestKind> kinds;
  for (const LengthBin& b : inf.length_histogram) {
    const long long prompt = b.input_tokens + inf.image_tokens;
    kinds.push_back({{prompt, prompt}, {b.output_tokens, b.output_tokens}, b.share});
  }
  if (kinds.empty()) {
    const auto drawn = [&](long long nominal) {
      const long long low = std::llround(static_cast<double>(nominal) * inf.length_low_ratio);
      return LengthRange{std::clamp<long long>(low, 1, nominal), nominal};
    };
    kinds.push_back({drawn(inf.prompt_tokens()), drawn(inf.output_tokens), 1.0});
  }
  return kinds;
}

// A distribution scaled to the mean `mean` (exactly `mean`, not the factor times its own).
LatencyPercentiles anchored(LatencyPercentiles d, Seconds mean) {
  if (d.mean.si() <= 0) {
    return d;
  }
  d = scaled_by(d, anchor(d, mean));
  d.mean = mean;
  return d;
}

} // namespace

std::optional<SimulatedLatency> simulate_percentiles(const ServingLayout& layout,
                                                     const MemoryEstimate& memory,
                                                     const InferencePerformance& perf) {
  const Spec& spec = *layout.memory.spec;
  const auto& inf = spec.workload.inference;
  if (spec.workload.one_pass() || inf.transcription || spec.model.encoder_decoder ||
      !layout.steps || memory.max_batch < 1 || perf.concurrency < 1 || inf.output_tokens < 1) {
    return std::nullopt;
  }
  SchedulerModel model = scheduler_model(layout, memory);
  const std::vector<RequestKind> kinds = request_kinds(inf);
  const double osl = inf.mean_output_tokens();
  const Seconds e2e = perf.ttft + perf.tpot * std::max(0.0, osl - 1.0);
  Arrivals arrivals;
  arrivals.in_flight = std::max(perf.offered, perf.concurrency);
  arrivals.requests = default_simulated_requests(arrivals.in_flight);
  arrivals.warmup = arrivals.in_flight;
  SimulatedLatency s = simulate_serving(model, kinds, arrivals);
  // The typical request is the analytical estimate's, fitted on measured runs (closed loops);
  // the simulation gives the spread around it (docs/model.md, "Latency distributions").
  const double k_ttft = anchor(s.ttft, perf.ttft);
  const double k_tpot = anchor(s.tpot, perf.tpot);
  const double k_e2e = anchor(s.e2e, e2e);
  if (inf.arrivals != ArrivalKind::closed && e2e.si() > 0) {
    // An open process at the rate that keeps as many requests in flight on average (Little: in
    // flight = rate x E2E), its gaps exponential or gamma, scaled as the closed loop was: where
    // requests bunch up, its mean and its tail both rise (docs/model.md, "Arrivals").
    Arrivals open = arrivals;
    open.process = ArrivalProcess::open;
    open.rate = static_cast<double>(arrivals.in_flight) / e2e.si();
    open.burstiness = inf.arrivals == ArrivalKind::gamma ? inf.burstiness : 1.0;
    s = simulate_serving(model, kinds, open);
    s.ttft = scaled_by(s.ttft, k_ttft);
    s.tpot = scaled_by(s.tpot, k_tpot);
    s.e2e = scaled_by(s.e2e, k_e2e);
    return s;
  }
  s.ttft = anchored(s.ttft, perf.ttft);
  s.tpot = anchored(s.tpot, perf.tpot);
  s.e2e = anchored(s.e2e, e2e);
  return s;
}

std::optional<SimulatedLatency> simulate_percentiles(const Spec& spec,
                                                     const Gpu& gpu,
                                                     const Parallelism& p,
                                                     const Constants& constants,
                                                     const Efficiency& eff,
                                                     const MemoryEstimate& memory,
                                                     const InferencePerformance& perf) {
  if (spec.workload.one_pass() || perf.concurrency < 1) {
    return std::nullopt;
  }
  return simulate_percentiles(serving_layout(spec, gpu, p, constants, eff), memory, perf);
}

PercentileHold worst_percentile(const std::vector<PercentileTarget>& targets,
                                const LatencyPercentiles& stats,
                                double high) {
  PercentileHold worst;
  for (const PercentileTarget& t : targets) {
    const Seconds held = stats.at(t.percentile) * high;
    if (const double ratio = held / t.limit; worst.target == nullptr || ratio > worst.ratio) {
      worst = {ratio, &t, held};
    }
  }
  return worst;
}

long long default_simulated_requests(long long in_flight) {
  return std::clamp<long long>(5 * in_flight, 200, 1000);
}

namespace {

// splitmix64 (Steele, Lea and Flood 2014): a small generator whose sequence is the same on every
// platform, unlike the standard library's distributions.
class Random {
public:
  explicit Random(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }
  // Uniform in (0, 1).
  double open() { return (static_cast<double>(next() >> 11U) + 0.5) * 0x1.0p-53; }
  // Uniform over the whole numbers low..high.
  long long between(long long low, long long high) {
    const auto span = static_cast<double>(high - low + 1);
    return std::min(high, low + static_cast<long long>(open() * span));
  }
  double normal() {
    // Box-Muller.
    return std::sqrt(-2.0 * std::log(open())) * std::cos(2.0 * 3.14159265358979323846 * open());
  }
  // Gamma of shape k and scale 1 (Marsaglia and Tsang 2000; shape < 1 by k + 1 and u^(1/k)).
  double gamma(double k) {
    if (k < 1.0) {
      return gamma(k + 1.0) * std::pow(open(), 1.0 / k);
    }
    const double d = k - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      const double x = normal();
      const double v = std::pow(1.0 + c * x, 3.0);
      if (v > 0 && std::log(open()) < 0.5 * x * x + d - d * v + d * std::log(v)) {
        return d * v;
      }
    }
  }

private:
  std::uint64_t m_state;
};

struct Request {
  double arrival = 0;
  double ready = 0;        // when it reaches the scheduler: arrival + the per-request overhead
  long long input = 0;     // its prompt's tokens
  long long prompt = 0;    // tokens its (next) prefill computes: recomputed ones included
  long long held = 0;      // KV tokens its prefill takes (a prefix cache's hits included)
  long long output = 0;    // tokens it generates in all
  long long prefilled = 0; // of `prompt`, so far
  long long generated = 0; // tokens emitted so far
  long long from_step = 0; // the step its current prefill ended
  long long allocated = 0; // KV tokens it held when its prefill ended
  double first_token = -1;
  int epoch = 0; // bumped when preempted: its entry in the finish queue is stale
  bool running = false;
};

// The engine's state between steps.
class Scheduler {
public:
  Scheduler(SchedulerModel& model, const Arrivals& arrivals, const std::vector<RequestKind>& kinds)
      : m_model(model), m_arrivals(arrivals), m_kinds(kinds), m_lengths(arrivals.seed) {
    double total = 0;
    for (const RequestKind& k : kinds) {
      total += k.share;
      m_cumulative.push_back(total);
      m_longest = std::max(m_longest, k.input.high + k.output.high);
    }
  }

  SimulatedLatency run();

private:
  void issue(double at);
  // The prompt tokens a prefill computes: those the prefix cache does not hold, one at least.
  [[nodiscard]] long long computed_tokens(long long input) const {
    return std::max<long long>(
        1, std::llround(static_cast<double>(input) * (1.0 - m_model.cached_share)));
  }
  void preempt_until_it_fits();
  void evict(long long id);
  long long schedule_prefills(std::vector<std::pair<long long, long long>>& chunks);
  Seconds step_time(long long prefill_tokens);
  void finish(long long id, double t);
  void issue_next(double t);

  SchedulerModel& m_model;
  const Arrivals& m_arrivals;
  const std::vector<RequestKind>& m_kinds;
  std::vector<double> m_cumulative; // the kinds' shares, summed
  long long m_longest = 0;          // the longest request: input and output tokens
  Random m_lengths;
  long long m_total = 0; // requests to measure
  std::vector<Request> m_requests;
  // Not yet at the scheduler, by the time they reach it.
  using Pending = std::pair<double, long long>; // ready, id
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_pending;
  std::deque<long long> m_waiting; // at the scheduler, not admitted (preempted ones first)
  std::deque<long long> m_prefilling;
  std::vector<long long> m_running; // admitted, in order of admission (stale ids skipped)
  long long m_running_count = 0;
  long long m_decoding = 0;
  double m_kv_used = 0;
  long long m_step = 0;
  double m_now = 0;
  using Finish = std::tuple<long long, long long, int>; // step, id, epoch
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> m_finishes;
  std::vector<double> m_ttft;
  std::vector<double> m_tpot;
  std::vector<double> m_e2e;
  long long m_output_tokens = 0;
  long long m_completed = 0;
  long long m_preemptions = 0;
  long long m_peak = 0;
};

void Scheduler::issue(double at) {
  Request r;
  r.arrival = at;
  std::size_t kind = 0;
  if (m_kinds.size() > 1) {
    const double u = m_lengths.open() * m_cumulative.back();
    kind = static_cast<std::size_t>(
        std::upper_bound(m_cumulative.begin(), m_cumulative.end() - 1, u) - m_cumulative.begin());
  }
  const RequestKind& k = m_kinds[kind];
  r.input = m_lengths.between(k.input.low, k.input.high);
  r.prompt = computed_tokens(r.input);
  r.held = r.input;
  r.output = m_lengths.between(k.output.low, k.output.high);
  // The overhead before the scheduler (HTTP, tokenization, the API server's loop) varies from
  // request to request: uniform over [1 - spread, 1 + spread] x its mean.
  const double spread = m_model.overhead_spread;
  r.ready = at + m_model.per_request.si() * (1.0 - spread + 2.0 * spread * m_lengths.open());
  m_requests.push_back(r);
  m_pending.emplace(r.ready, static_cast<long long>(m_requests.size()) - 1);
}

void Scheduler::evict(long long id) {
  Request& r = m_requests[static_cast<std::size_t>(id)];
  if (r.prefilled == r.prompt) {
    // Decoding: its cache holds the prompt and the tokens decoded since (the steps after the one
    // its prefill ended); recomputed later (vLLM's and SGLang's default preemption), prompt and
    // generated tokens together.
    const long long decoded = m_step - 1 - r.from_step;
    r.generated += decoded;
    m_kv_used -= static_cast<double>(r.allocated + decoded);
    --m_decoding;
    r.prompt = computed_tokens(r.input) + r.generated;
    r.held = r.input + r.generated;
  } else {
    m_kv_used -= static_cast<double>(r.held);
    m_prefilling.erase(std::find(m_prefilling.begin(), m_prefilling.end(), id));
  }
  r.prefilled = 0;
  r.running = false;
  ++r.epoch;
  --m_running_count;
  ++m_preemptions;
  m_waiting.push_front(id);
}

void Scheduler::preempt_until_it_fits() {
  // The decodes of the next step each add a token; without room the most recently admitted
  // sequence is evicted (vLLM's scheduler pops the last of its running queue).
  while (m_kv_used + static_cast<double>(m_decoding) > m_model.kv_tokens && m_running_count > 1) {
    while (!m_running.empty() && !m_requests[static_cast<std::size_t>(m_running.back())].running) {
      m_running.pop_back();
    }
    const long long victim = m_running.back();
    m_running.pop_back();
    evict(victim);
  }
}

// The prompt tokens of this step: the prefills under way first, then requests admitted from the
// queue while the token budget, the cap on sequences and the KV cache allow (FIFO: the first in
// line that does not fit blocks the rest). Fills `chunks` with (request, tokens).
long long Scheduler::schedule_prefills(std::vector<std::pair<long long, long long>>& chunks) {
  long long budget = std::max<long long>(0, m_model.token_budget - m_decoding);
  long long tokens = 0;
  const auto take = [&](long long id) {
    const Request& r = m_requests[static_cast<std::size_t>(id)];
    const long long left = r.prompt - r.prefilled;
    const long long n = m_model.chunked ? std::min(left, budget) : left;
    if (n <= 0 || n > budget) {
      return false;
    }
    chunks.emplace_back(id, n);
    budget -= n;
    tokens += n;
    return true;
  };
  for (const long long id : m_prefilling) {
    if (!take(id)) {
      break;
    }
  }
  while (budget > 0 && !m_waiting.empty() && m_running_count < m_model.max_running) {
    const long long id = m_waiting.front();
    Request& r = m_requests[static_cast<std::size_t>(id)];
    const bool alone = m_running_count == 0; // one that never fits still runs alone
    if (!alone && m_kv_used + static_cast<double>(r.held) > m_model.kv_tokens) {
      break;
    }
    if (!m_model.chunked && r.prompt > budget && !(alone && tokens == 0)) {
      break;
    }
    m_waiting.pop_front();
    m_kv_used += static_cast<double>(r.held);
    r.running = true;
    m_running.push_back(id);
    ++m_running_count;
    m_prefilling.push_back(id);
    if (!take(id)) {
      // Unchunked and alone, longer than the budget: it runs whole.
      chunks.emplace_back(id, r.prompt);
      budget = 0;
      tokens += r.prompt;
    }
  }
  m_peak = std::max(m_peak, m_running_count);
  return tokens;
}

// A step's time: the decode batch's step, plus the share of the prompt tokens' compute that
// stalls it (the analytical model's marginal prefill, performance.cpp); prompts alone pay their
// weight reads too.
Seconds Scheduler::step_time(long long prefill_tokens) {
  const auto p = static_cast<double>(prefill_tokens);
  if (m_decoding == 0) {
    const Seconds work = m_model.prefill_per_token * p;
    const Seconds compute = work * m_model.prefill_compute_share;
    return max(m_model.prefill_memory, compute) + (work - compute) + m_model.prefill_fixed;
  }
  const double stages = std::clamp(
      static_cast<double>(m_running_count), 1.0, static_cast<double>(m_model.pipeline_stages));
  return m_model.decode_time(m_decoding) +
         m_model.prefill_per_token * (p * m_model.interference / stages);
}

void Scheduler::issue_next(double t) {
  // A closed loop sends the next request as one ends.
  if (m_arrivals.process == ArrivalProcess::closed_loop &&
      static_cast<long long>(m_requests.size()) < m_total) {
    issue(t);
  }
}

void Scheduler::finish(long long id, double t) {
  Request& r = m_requests[static_cast<std::size_t>(id)];
  r.running = false;
  --m_running_count;
  const double ttft = r.first_token - r.arrival;
  const double e2e = t - r.arrival;
  // A closed loop's first requests start together, a benchmark's warm-up: measured only when
  // asked (Arrivals::warmup).
  m_output_tokens += r.output;
  ++m_completed;
  if (id < m_arrivals.warmup) {
    issue_next(t);
    return;
  }
  m_ttft.push_back(ttft);
  m_e2e.push_back(e2e);
  if (r.output > 1) {
    m_tpot.push_back((e2e - ttft) / static_cast<double>(r.output - 1));
  }
  issue_next(t);
}

LatencyPercentiles stats_of(std::vector<double> values) {
  LatencyPercentiles s;
  if (values.empty()) {
    return s;
  }
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  s.mean = seconds(sum / static_cast<double>(values.size()));
  s.p50 = seconds(linear_percentile(values, 50));
  s.p90 = seconds(linear_percentile(values, 90));
  s.p99 = seconds(linear_percentile(values, 99));
  return s;
}

SimulatedLatency Scheduler::run() {
  Random gaps(m_arrivals.seed ^ 0xa5a5a5a5a5a5a5a5ULL);
  const long long total = std::max<long long>(1, m_arrivals.requests + m_arrivals.warmup);
  m_total = total;
  m_requests.reserve(static_cast<std::size_t>(total));
  switch (m_arrivals.process) {
  case ArrivalProcess::closed_loop:
    for (long long i = 0; i < std::min(total, std::max<long long>(1, m_arrivals.in_flight)); ++i) {
      issue(0.0);
    }
    break;
  case ArrivalProcess::burst:
    for (long long i = 0; i < total; ++i) {
      issue(0.0);
    }
    break;
  case ArrivalProcess::open: {
    double at = 0;
    const double shape = m_arrivals.burstiness;
    for (long long i = 0; i < total; ++i) {
      issue(at);
      at += gaps.gamma(shape) / (shape * m_arrivals.rate);
    }
    break;
  }
  }
  std::vector<std::pair<long long, long long>> chunks;
  long long completed = 0;
  // A step emits a token for each of its decodes or finishes a prefill chunk: the run ends
  // within every request's prompt and output tokens' worth of steps, with room.
  const long long step_limit = 64 * total * m_longest + 1000;
  while (completed < total) {
    while (!m_pending.empty() && m_pending.top().first <= m_now) {
      m_waiting.push_back(m_pending.top().second);
      m_pending.pop();
    }
    preempt_until_it_fits();
    chunks.clear();
    const long long prefill_tokens = schedule_prefills(chunks);
    if (m_decoding == 0 && prefill_tokens == 0) {
      if (m_pending.empty() || m_step > step_limit) {
        throw InternalError("simulate_serving: the scheduler cannot make progress");
      }
      m_now = std::max(m_now, m_pending.top().first);
      continue;
    }
    m_now += step_time(prefill_tokens).si();
    m_kv_used += static_cast<double>(m_decoding);
    // Prefills that end this step emit their next token.
    for (const auto& [id, n] : chunks) {
      Request& r = m_requests[static_cast<std::size_t>(id)];
      r.prefilled += n;
      if (r.prefilled < r.prompt) {
        continue;
      }
      // The budget goes to the prefills in order, so those that end are at the front.
      if (m_prefilling.front() == id) {
        m_prefilling.pop_front();
      } else {
        m_prefilling.erase(std::find(m_prefilling.begin(), m_prefilling.end(), id));
      }
      if (r.first_token < 0) {
        r.first_token = m_now;
      }
      ++r.generated;
      if (r.generated >= r.output) {
        m_kv_used -= static_cast<double>(r.held);
        finish(id, m_now);
        ++completed;
        continue;
      }
      r.from_step = m_step;
      r.allocated = r.held;
      ++m_decoding;
      m_finishes.emplace(m_step + (r.output - r.generated), id, r.epoch);
    }
    ++m_step;
    // Decodes that emitted their last token this step (the step just counted: m_step - 1).
    while (!m_finishes.empty() && std::get<0>(m_finishes.top()) <= m_step - 1) {
      const auto [at, id, epoch] = m_finishes.top();
      m_finishes.pop();
      Request& r = m_requests[static_cast<std::size_t>(id)];
      if (epoch != r.epoch || !r.running) {
        continue;
      }
      m_kv_used -= static_cast<double>(r.allocated + (at - r.from_step));
      --m_decoding;
      finish(id, m_now);
      ++completed;
    }
    if (m_step > step_limit) {
      throw InternalError("simulate_serving: the run did not end");
    }
  }
  SimulatedLatency s;
  s.ttft = stats_of(m_ttft);
  s.tpot = stats_of(m_tpot);
  s.e2e = stats_of(m_e2e);
  s.requests = static_cast<long long>(m_ttft.size());
  s.requests_per_s = m_now > 0 ? static_cast<double>(m_completed) / m_now : 0.0;
  s.output_tokens_per_s = m_now > 0 ? static_cast<double>(m_output_tokens) / m_now : 0.0;
  s.preemptions = m_preemptions;
  s.peak_running = m_peak;
  s.steps = m_step;
  return s;
}

} // namespace

SimulatedLatency simulate_serving(SchedulerModel& model,
                                  const std::vector<RequestKind>& kinds,
                                  const Arrivals& arrivals) {
  if (kinds.empty()) {
    throw InternalError("simulate_serving: no kind of request");
  }
  for (const RequestKind& k : kinds) {
    if (k.input.low < 1 || k.input.high < k.input.low || k.output.low < 1 ||
        k.output.high < k.output.low || !(k.share > 0 && std::isfinite(k.share))) {
      throw InternalError("simulate_serving: lengths out of order or a share not above 0");
    }
  }
  if (arrivals.process == ArrivalProcess::open && !(arrivals.rate > 0 && arrivals.burstiness > 0)) {
    throw InternalError("simulate_serving: an open arrival process without a rate");
  }
  Scheduler scheduler(model, arrivals, kinds);
  return scheduler.run();
}

SimulatedLatency simulate_serving(SchedulerModel& model,
                                  LengthRange input,
                                  LengthRange output,
                                  const Arrivals& arrivals) {
  return simulate_serving(model, std::vector<RequestKind>{{input, output, 1.0}}, arrivals);
}

} // namespace rightsize
