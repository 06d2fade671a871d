#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/disaggregation.hpp>
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

Spec chat(long long input, long long output, long long concurrency, const char* engine = "vllm") {
  return parse_spec({{"model", config_path("llama-3.1-8b")},
                     {"precision", "bf16"},
                     {"workload",
                      {{"type", "inference"},
                       {"engine", engine},
                       {"input_tokens", input},
                       {"output_tokens", output},
                       {"concurrency", concurrency}}}},
                    "test.json");
}

DisaggregatedLayout pools(int prefill_tp, int prefills, int decode_tp, int decodes) {
  DisaggregatedLayout l;
  l.prefill.layout = serving_parallelism(prefill_tp);
  l.prefill.replicas = prefills;
  l.decode.layout = serving_parallelism(decode_tp);
  l.decode.replicas = decodes;
  return l;
}

} // namespace

TEST_CASE("disaggregated: one request alone, by hand", "[disaggregation]") {
  const Spec s = chat(1024, 256, 1);
  const Gpu& h100 = catalog().resolve("h100-sxm", "test");
  const auto d = estimate_disaggregated(s, h100, pools(1, 1, 1, 1), constants(), efficiency());
  REQUIRE(d);
  // Llama 3.1 8B's cache: 32 layers x 8 KV heads x 128 x 2 (keys, values) x 2 bytes = 128 KiB
  // a token; a 1,024-token prompt is 128 MiB, sent over NVLink (two GPUs in one HGX domain).
  CHECK(d->kv_transfer_bytes.si() == 1024.0 * 131072.0);
  CHECK(d->kv_link == "NVLink");
  CHECK(d->kv_transfer.si() ==
        Approx(134217728.0 / h100.gpu_link.si() + efficiency().allreduce_latency.si()));
  // The decode step is never stalled by a prefill: TPOT is one sequence's decode step alone,
  // the aggregated estimate's step before its prefill interference.
  const MemoryEstimate one = estimate_memory(s, h100, Parallelism{}, constants(), 1);
  const InferencePerformance agg =
      estimate_inference(s, h100, Parallelism{}, one, efficiency(), constants());
  CHECK(d->perf.tpot.si() == Approx(agg.decode_step.si()).epsilon(1e-12));
  CHECK(agg.tpot.si() > d->perf.tpot.si());
  // TTFT: the engine's per-request cost, the prefill alone, its wait at this utilization (one
  // request at a time: busy = rate x per-request prefill) and the transfer.
  const double t0 = efficiency().engine(Engine::vllm).per_request.si();
  const double busy = d->prefill_utilization;
  const double wait = d->prefill.si() * busy / (2.0 * (1.0 - busy));
  CHECK(d->perf.ttft.si() ==
        Approx(t0 + d->prefill.si() + wait + d->kv_transfer.si()).epsilon(1e-12));
  // The closed loop: rate x (TTFT + 255 x TPOT) = the one request in flight.
  CHECK(d->perf.requests_per_s * (d->perf.ttft.si() + 255.0 * d->perf.tpot.si()) ==
        Approx(1.0).epsilon(1e-6));
  CHECK(busy == Approx(d->perf.requests_per_s * d->prefill_per_request.si()).epsilon(1e-12));
  CHECK(d->limited_by.empty());
  CHECK(d->decode_batch == Approx(1.0));
  CHECK(d->layout.gpus() == 2);
}

TEST_CASE("disaggregated: the decode pool's batch is its share of the sequences in decode",
          "[disaggregation]") {
  const Spec s = chat(8192, 1024, 256);
  const Gpu& h100 = catalog().resolve("h100-sxm", "test");
  const auto d = estimate_disaggregated(s, h100, pools(1, 6, 1, 8), constants(), efficiency());
  REQUIRE(d);
  REQUIRE(d->limited_by.empty());
  // Little's law: rate x 1,023 x TPOT sequences decode, an eighth of them on each replica.
  CHECK(d->decode_batch ==
        Approx(d->perf.requests_per_s * 1023.0 * d->perf.tpot.si() / 8.0).epsilon(1e-6));
  CHECK(d->perf.requests_per_s * (d->perf.ttft.si() + 1023.0 * d->perf.tpot.si()) ==
        Approx(256.0).epsilon(1e-6));
  CHECK(d->perf.output_tokens_per_s == Approx(d->perf.requests_per_s * 1024.0));
}

TEST_CASE("disaggregated: a full pool queues the requests it cannot take", "[disaggregation]") {
  // One prefill replica cannot keep up with 4,096 requests of 8k-token prompts in flight.
  const Spec s = chat(8192, 64, 4096);
  const Gpu& h100 = catalog().resolve("h100-sxm", "test");
  const auto d = estimate_disaggregated(s, h100, pools(1, 1, 1, 8), constants(), efficiency());
  REQUIRE(d);
  CHECK(d->limited_by == "prefill");
  CHECK(d->perf.queueing);
  CHECK(d->prefill_utilization == Approx(0.98));
  // The prefill pool's most: 98% of its time, one marginal prefill per request.
  CHECK(d->perf.requests_per_s == Approx(0.98 / d->prefill_per_request.si()));
  CHECK(d->perf.ttft.si() > 10.0);
}

TEST_CASE("disaggregated: pools wider than an NVLink domain send the cache over the network",
          "[disaggregation]") {
  const Spec s = chat(4096, 256, 64);
  const Gpu& h100 = catalog().resolve("h100-sxm", "test");
  const auto d = estimate_disaggregated(s, h100, pools(8, 1, 8, 1), constants(), efficiency());
  REQUIRE(d);
  CHECK(d->kv_link == "network");
  // Each of the 8 prefill GPUs holds its 1/8 of the KV heads: 4,096 x 16 KiB.
  CHECK(d->kv_transfer_bytes.si() == 4096.0 * 131072.0 / 8.0);
  CHECK(d->kv_transfer.si() ==
        Approx(4096.0 * 16384.0 / h100.network.si() + efficiency().network_latency.si()));
  const Gpu& l40s = catalog().resolve("l40s", "test");
  const auto pcie = estimate_disaggregated(s, l40s, pools(1, 1, 1, 1), constants(), efficiency());
  REQUIRE(pcie);
  CHECK(pcie->kv_link == "PCIe");
}

TEST_CASE("disaggregated: what cannot be split is refused", "[disaggregation]") {
  CHECK(disaggregation_refusal(chat(1024, 128, 8)) == std::nullopt);
  const auto hf = disaggregation_refusal(chat(1024, 128, 8, "transformers"));
  REQUIRE(hf);
  CHECK_THAT(*hf, Catch::Contains("transformers does not split prefill and decode"));
  Spec offline = chat(1024, 128, 8);
  offline.workload.inference.concurrency.reset();
  CHECK_THAT(*disaggregation_refusal(offline), Catch::Contains("offline"));
  const Gpu& h100 = catalog().resolve("h100-sxm", "test");
  CHECK_FALSE(estimate_disaggregated(
      chat(1024, 128, 8, "transformers"), h100, pools(1, 1, 1, 1), constants(), efficiency()));
}
