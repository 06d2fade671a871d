#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/latency_distribution.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Spec chat(long long input, long long output, long long concurrency) {
  return parse_spec({{"model", config_path("llama-3.1-8b")},
                     {"precision", "bf16"},
                     {"workload",
                      {{"type", "inference"},
                       {"input_tokens", input},
                       {"output_tokens", output},
                       {"concurrency", concurrency}}}},
                    "test.json");
}

// One replica of the spec on an H100 at TP 1, laid out once.
struct OnH100 {
  explicit OnH100(const Spec& s)
      : spec(s), gpu(catalog().resolve("h100-sxm", "test")),
        layout(serving_layout(spec, gpu, Parallelism{}, constants(), efficiency())),
        memory(estimate_memory(layout.memory)), model(scheduler_model(layout, memory)) {
    // The per-request overhead at its mean: the figures below check by hand.
    model.overhead_spread = 0;
  }
  const Spec& spec;
  const Gpu& gpu;
  ServingLayout layout;
  MemoryEstimate memory;
  SchedulerModel model;
};

Arrivals closed(long long in_flight, long long requests) {
  Arrivals a;
  a.process = ArrivalProcess::closed_loop;
  a.in_flight = in_flight;
  a.requests = requests;
  return a;
}

} // namespace

TEST_CASE("simulation: one request alone costs the analytical prefill and decode steps",
          "[simulation]") {
  const Spec s = chat(1024, 256, 1);
  OnH100 h(s);
  const SimulatedLatency r = simulate_serving(h.model, {1024, 1024}, {256, 256}, closed(1, 3));
  // Alone, a request waits for nothing: its TTFT is the engine's per-request overhead and its
  // prefill alone (weights read once, the prompt's FLOPs, the fixed per-layer costs), each later
  // token one decode step of a batch of one at the mean context (1024 + 256 / 2).
  const Seconds ttft = efficiency().engine(Engine::vllm).per_request + h.layout.prefill.total();
  const Seconds step = decode_token_time(*h.layout.steps, h.layout.memory.kv, 1.0, 1024.0 + 128.0);
  CHECK(r.ttft.p50.si() == Approx(ttft.si()).epsilon(1e-9));
  CHECK(r.ttft.p99.si() == Approx(ttft.si()).epsilon(1e-9));
  CHECK(r.tpot.mean.si() == Approx(step.si()).epsilon(1e-9));
  CHECK(r.e2e.mean.si() == Approx((ttft + step * 255.0).si()).epsilon(1e-9));
  CHECK(r.requests == 3);
  CHECK(r.peak_running == 1);
  CHECK(r.preemptions == 0);
  // By hand for this GPU: vLLM's 48.4 ms per request; 8B of bf16 weights (16.1 GB) read at
  // 3.35 TB/s (hopper's memory efficiency 1.0) is 4.8 ms, well under the prompt's 16.5 TFLOP at
  // 989 TFLOP/s x 0.555 = 30 ms; a decode step of one sequence reads the weights again plus
  // 32 layers x 59 us of fixed costs: 4.8 + 1.9 + 0.46 = about 7.2 ms.
  CHECK(r.ttft.p50.si() == Approx(0.048 + 0.030 + 0.0019).epsilon(0.15));
  CHECK(r.tpot.p50.si() == Approx(0.0072).epsilon(0.1));
}

TEST_CASE("simulation: a burst shares its steps", "[simulation]") {
  const Spec s = chat(1024, 128, 4);
  OnH100 h(s);
  Arrivals a;
  a.process = ArrivalProcess::burst;
  a.requests = 4;
  const SimulatedLatency r = simulate_serving(h.model, {1024, 1024}, {128, 128}, a);
  // Four 1024-token prompts fit one step of vLLM's 8192-token budget (16384 on an H100): one
  // prefill step of 4096 tokens, every first token at its end; then 127 decode steps of four.
  const double t0 = efficiency().engine(Engine::vllm).per_request.si();
  const double prefill = (max(h.layout.prefill.memory, h.layout.prefill.compute * 4.0) +
                          h.layout.prefill.communication * 4.0 + h.layout.prefill.fixed)
                             .si();
  const double step = h.model.decode_time(4).si();
  CHECK(r.ttft.p50.si() == Approx(t0 + prefill).epsilon(1e-9));
  CHECK(r.ttft.p99.si() == Approx(t0 + prefill).epsilon(1e-9));
  CHECK(r.e2e.p99.si() == Approx(t0 + prefill + 127 * step).epsilon(1e-9));
  CHECK(r.requests_per_s == Approx(4 / (t0 + prefill + 127 * step)).epsilon(1e-9));
}

TEST_CASE("simulation: a closed loop agrees with the analytical estimate on the typical request",
          "[simulation]") {
  for (const long long c : {8LL, 32LL, 128LL}) {
    const Spec s = chat(1024, 512, c);
    OnH100 h(s);
    h.model.overhead_spread = 1.0;
    const InferencePerformance point = estimate_inference(h.layout, h.memory);
    Arrivals a = closed(c, default_simulated_requests(c));
    a.warmup = c;
    const SimulatedLatency r = simulate_serving(h.model, {1024, 1024}, {460, 512}, a);
    INFO("concurrency " << c);
    // The same step costs and engine overheads: TPOT and throughput within 10%. (TTFT, which
    // the analytical model fits with its wave term, differs: simulate_percentiles scales it.)
    CHECK(r.tpot.mean.si() == Approx(point.tpot.si()).epsilon(0.10));
    CHECK(r.output_tokens_per_s == Approx(point.output_tokens_per_s * 0.95).epsilon(0.10));
    CHECK(r.ttft.p50 <= r.ttft.p90);
    CHECK(r.ttft.p90 <= r.ttft.p99);
    CHECK(r.tpot.p50 <= r.tpot.p99);
    CHECK(r.e2e.p50 <= r.e2e.p99);
    CHECK(r.preemptions == 0);
    CHECK(r.requests == default_simulated_requests(c));
  }
}

TEST_CASE("simulation: percentiles of an estimate keep its mean", "[simulation]") {
  const Spec s = chat(1024, 512, 32);
  OnH100 h(s);
  const InferencePerformance point = estimate_inference(h.layout, h.memory);
  const auto d = simulate_percentiles(h.layout, h.memory, point);
  REQUIRE(d);
  CHECK(d->ttft.mean.si() == Approx(point.ttft.si()));
  CHECK(d->tpot.mean.si() == Approx(point.tpot.si()));
  CHECK(d->e2e.mean.si() == Approx((point.ttft + point.tpot * 511.0).si()));
  CHECK(d->ttft.p99 >= d->ttft.p90);
  CHECK(d->ttft.p90 >= d->ttft.p50);
  CHECK(d->requests == default_simulated_requests(32));
  // An embedding has no decode to simulate.
  const Spec e = parse_spec({{"model", config_path("encoder/bert-base-uncased")},
                             {"workload", {{"type", "embedding"}, {"input_tokens", 512}}}},
                            "test.json");
  const Gpu& g = catalog().resolve("h100-sxm", "test");
  const ServingLayout layout = serving_layout(e, g, Parallelism{}, constants(), efficiency());
  const MemoryEstimate m = estimate_memory(layout.memory);
  CHECK_FALSE(simulate_percentiles(layout, m, estimate_inference(layout, m)));
}

TEST_CASE("simulation: a cache too small preempts and recomputes", "[simulation]") {
  const Spec s = chat(1024, 1024, 64);
  OnH100 roomy(s);
  OnH100 tight(s);
  // Room for 16 sequences of 2048 tokens: 64 in flight admit by prompt, then outgrow it.
  tight.model.kv_tokens = 16 * 2048;
  const Arrivals a = closed(64, 256);
  const SimulatedLatency free = simulate_serving(roomy.model, {1024, 1024}, {1024, 1024}, a);
  const SimulatedLatency cramped = simulate_serving(tight.model, {1024, 1024}, {1024, 1024}, a);
  CHECK(free.preemptions == 0);
  CHECK(cramped.preemptions > 0);
  CHECK(cramped.requests == 256);
  CHECK(cramped.peak_running <= 32); // prompts admitted while the cache has room
  CHECK(cramped.ttft.p99 > free.ttft.p99);
  CHECK(cramped.output_tokens_per_s < free.output_tokens_per_s);
}

TEST_CASE("simulation: open arrivals queue as the rate nears capacity", "[simulation]") {
  const Spec s = chat(512, 256, 64);
  OnH100 h(s);
  Arrivals a;
  a.process = ArrivalProcess::open;
  a.requests = 600;
  a.rate = 1.0;
  const SimulatedLatency light = simulate_serving(h.model, {512, 512}, {256, 256}, a);
  // At one request a second, each mostly alone: the TTFT of a lone request, decodes of one or two.
  const double alone = efficiency().engine(Engine::vllm).per_request.si() +
                       (max(h.layout.prefill.memory, h.layout.prefill.compute) +
                        h.layout.prefill.communication + h.layout.prefill.fixed)
                           .si();
  CHECK(light.ttft.p50.si() == Approx(alone).epsilon(0.25));
  CHECK(light.requests_per_s == Approx(1.0).epsilon(0.15));
  a.rate = 60.0;
  const SimulatedLatency heavy = simulate_serving(h.model, {512, 512}, {256, 256}, a);
  CHECK(heavy.ttft.p99 > light.ttft.p99);
  CHECK(heavy.tpot.p50 > light.tpot.p50);
  // Burstier gaps at the same rate: longer tails.
  a.burstiness = 0.25;
  const SimulatedLatency bursty = simulate_serving(h.model, {512, 512}, {256, 256}, a);
  CHECK(bursty.ttft.p99 > heavy.ttft.p99);
}

TEST_CASE("simulation: drawn lengths are seeded and spread the latencies", "[simulation]") {
  const Spec s = chat(2048, 512, 16);
  OnH100 h(s);
  Arrivals a = closed(16, 300);
  const SimulatedLatency one = simulate_serving(h.model, {1024, 2048}, {256, 512}, a);
  const SimulatedLatency again = simulate_serving(h.model, {1024, 2048}, {256, 512}, a);
  CHECK(one.ttft.p99 == again.ttft.p99);
  CHECK(one.e2e.mean == again.e2e.mean);
  a.seed = 7;
  const SimulatedLatency other = simulate_serving(h.model, {1024, 2048}, {256, 512}, a);
  CHECK(other.e2e.mean != one.e2e.mean);
  // E2E spreads with the output length drawn from 256-512: p99 / p50 above 1.2.
  CHECK(one.e2e.p99.si() > 1.2 * one.e2e.p50.si());
}

TEST_CASE("simulation: refuses what it cannot simulate", "[simulation]") {
  const Spec s = chat(1024, 128, 4);
  OnH100 h(s);
  CHECK_THROWS_AS(simulate_serving(h.model, {10, 5}, {1, 1}, closed(1, 1)), InternalError);
  Arrivals a;
  a.process = ArrivalProcess::open;
  a.requests = 10;
  CHECK_THROWS_AS(simulate_serving(h.model, {10, 10}, {1, 1}, a), InternalError);
}

TEST_CASE("simulation: open arrivals at the spec's load, scaled as the closed loop is",
          "[simulation]") {
  // Llama-3.1-8B on an H100, 2,048-token prompts, 256-token answers, 64 in flight.
  const auto with = [](const nlohmann::json& arrivals) {
    nlohmann::json workload = {
        {"type", "inference"}, {"input_tokens", 2048}, {"output_tokens", 256}, {"concurrency", 64}};
    if (!arrivals.is_null()) {
      workload["arrivals"] = arrivals;
    }
    return parse_spec(
        {{"model", config_path("llama-3.1-8b")}, {"precision", "bf16"}, {"workload", workload}},
        "test.json");
  };
  const auto simulated = [](const Spec& s) {
    OnH100 h(s);
    const InferencePerformance p = estimate_inference(h.layout, h.memory);
    const auto d = simulate_percentiles(h.layout, h.memory, p);
    REQUIRE(d);
    return std::pair{p, *d};
  };
  const auto [point, closed] = simulated(with(nullptr));
  const auto [same, poisson] = simulated(with({{"process", "poisson"}}));
  const auto [also, bursty] = simulated(with({{"process", "gamma"}, {"burstiness", 0.25}}));
  const auto [again, smooth] = simulated(with({{"process", "gamma"}, {"burstiness", 8}}));
  // The analytical estimate does not depend on the arrivals: only the distribution does.
  CHECK(same.ttft.si() == Approx(point.ttft.si()));
  CHECK(closed.ttft.mean.si() == Approx(point.ttft.si())); // the closed loop keeps its mean
  // Open arrivals are scaled by the closed loop's factor, not to its mean: their mean moves.
  CHECK(poisson.ttft.mean.si() != Approx(point.ttft.si()));
  // Burstier gaps at the same rate queue longer: the tail grows with 1 / burstiness.
  CHECK(bursty.ttft.p99 > poisson.ttft.p99);
  CHECK(poisson.ttft.p99 > smooth.ttft.p99);
  CHECK(bursty.ttft.mean > smooth.ttft.mean);
  // Every request is measured as in the closed loop.
  CHECK(poisson.requests == closed.requests);
}

TEST_CASE("simulation: a length histogram's bins, each request one of them", "[simulation]") {
  const Spec s = chat(1024, 256, 1);
  OnH100 h(s);
  // One request at a time, so each waits for nothing: its TTFT is the per-request overhead and
  // its own prompt's prefill, alone. Chat turns (512 tokens) four times as often as long
  // documents (8192 tokens).
  const std::vector<RequestKind> kinds = {{{512, 512}, {128, 128}, 0.8},
                                          {{8192, 8192}, {128, 128}, 0.2}};
  const SimulatedLatency mix = simulate_serving(h.model, kinds, closed(1, 1000));
  const SimulatedLatency chat_only =
      simulate_serving(h.model, {512, 512}, {128, 128}, closed(1, 3));
  const SimulatedLatency long_only =
      simulate_serving(h.model, {8192, 8192}, {128, 128}, closed(1, 3));
  // The median request is a chat turn, the 99th percentile a long document: exactly theirs.
  CHECK(mix.ttft.p50.si() == Approx(chat_only.ttft.p50.si()).epsilon(1e-9));
  CHECK(mix.ttft.p99.si() == Approx(long_only.ttft.p99.si()).epsilon(1e-9));
  // The mean is the shares' mix of the two, within the draw's noise (1000 draws of p = 0.2:
  // a standard deviation of 0.013 in the long documents' share).
  const double mean = 0.8 * chat_only.ttft.mean.si() + 0.2 * long_only.ttft.mean.si();
  CHECK(mix.ttft.mean.si() == Approx(mean).epsilon(0.05));
  CHECK(long_only.ttft.mean.si() > 2.0 * chat_only.ttft.mean.si());
  // One kind draws exactly as the two-range form does (the same seed, the same draws).
  const SimulatedLatency one =
      simulate_serving(h.model, {{{1024, 2048}, {256, 512}, 1.0}}, closed(4, 300));
  const SimulatedLatency same = simulate_serving(h.model, {1024, 2048}, {256, 512}, closed(4, 300));
  CHECK(one.e2e.mean == same.e2e.mean);
  CHECK(one.ttft.p99 == same.ttft.p99);
  CHECK_THROWS_AS(simulate_serving(h.model, std::vector<RequestKind>{}, closed(1, 1)),
                  InternalError);
  CHECK_THROWS_AS(simulate_serving(h.model, {{{10, 10}, {1, 1}, 0.0}}, closed(1, 1)),
                  InternalError);
}

TEST_CASE("simulation: a spec's length histogram reaches its estimate and percentiles",
          "[simulation]") {
  // Three chat turns of 512 + 256 for each document of 4096 + 512: mean 1408 in, 320 out.
  const auto spec = [](const nlohmann::json& lengths) {
    nlohmann::json workload = {{"type", "inference"}, {"concurrency", 16}};
    workload.update(lengths);
    return parse_spec(
        {{"model", config_path("llama-3.1-8b")}, {"precision", "bf16"}, {"workload", workload}},
        "test.json");
  };
  const Spec mixed = spec({{"length_histogram",
                            {{{"input_tokens", 512}, {"output_tokens", 256}, {"share", 3}},
                             {{"input_tokens", 4096}, {"output_tokens", 512}, {"share", 1}}}}});
  const Spec means = spec({{"input_tokens", 1408}, {"output_tokens", 320}});
  OnH100 m(mixed);
  OnH100 f(means);
  const InferencePerformance pm = estimate_inference(m.layout, m.memory);
  const InferencePerformance pf = estimate_inference(f.layout, f.memory);
  // The analytical estimate runs at the mean lengths, arrival waves included (a closed loop's
  // requests of a bin's output length end together, as fixed lengths do): the figures of fixed
  // requests of the means.
  CHECK(pm.decode_step.si() == Approx(pf.decode_step.si()).epsilon(1e-12));
  CHECK(pm.prefill.si() == Approx(pf.prefill.si()).epsilon(1e-12));
  CHECK(pm.ttft.si() == Approx(pf.ttft.si()).epsilon(1e-12));
  CHECK(pm.tpot.si() == Approx(pf.tpot.si()).epsilon(1e-12));
  CHECK(m.model.mean_context == Approx(1408.0 + 320.0 / 2.0));
  // Memory holds the longest request (4608 tokens), not the mean.
  CHECK(m.layout.memory.context_tokens == 4608);
  // The simulated spread: a document's prompt is 8x a chat turn's, so the tail of TTFT stands
  // well above its median, where fixed lengths of the means keep them close.
  const auto dm = simulate_percentiles(m.layout, m.memory, pm);
  const auto df = simulate_percentiles(f.layout, f.memory, pf);
  REQUIRE(dm);
  REQUIRE(df);
  CHECK(dm->ttft.p99 / dm->ttft.p50 > df->ttft.p99 / df->ttft.p50);
  CHECK(dm->e2e.p99 / dm->e2e.p50 > 1.5);
  // The slowest requests are the documents: p99 TTFT no faster than one document alone (the
  // per-request overhead and its 4096-token prefill). Anchored to an estimate without waves, it
  // was (docs/model.md, "Length histograms").
  const Spec document = spec({{"input_tokens", 4096}, {"output_tokens", 512}});
  OnH100 d(document);
  const Seconds alone = efficiency().engine(Engine::vllm).per_request + d.layout.prefill.total();
  CHECK(dm->ttft.p99 > alone);
  // As two bins close in on one length, the figures become that length's (the mean exactly:
  // both are anchored to the same estimate).
  const Spec close = spec({{"length_histogram",
                            {{{"input_tokens", 1407}, {"output_tokens", 319}, {"share", 1}},
                             {{"input_tokens", 1409}, {"output_tokens", 321}, {"share", 1}}}}});
  OnH100 c(close);
  const InferencePerformance pc = estimate_inference(c.layout, c.memory);
  const auto dc = simulate_percentiles(c.layout, c.memory, pc);
  REQUIRE(dc);
  CHECK(pc.ttft.si() == Approx(pf.ttft.si()).epsilon(0.01));
  CHECK(dc->ttft.mean.si() == Approx(df->ttft.mean.si()).epsilon(0.01));
  CHECK(dc->ttft.p99.si() == Approx(df->ttft.p99.si()).epsilon(0.15));
  CHECK(dc->tpot.mean.si() == Approx(df->tpot.mean.si()).epsilon(0.05));
}
