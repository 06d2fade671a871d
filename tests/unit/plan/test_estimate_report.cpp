// One fixed configuration judged and priced as `rightsize estimate` reports it
// (plan/estimate_report.hpp): targets held at the band's pessimistic edge or at the point, the
// cloud price per hour and per item, on-prem's note. Hand-checked numbers in the comments.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;

namespace {

nlohmann::json chat_json() {
  return {{"schema_version", 1},
          {"name", "chat"},
          {"model", config_path("llama-3.1-8b")},
          {"precision", "bf16"},
          {"workload",
           {{"type", "inference"},
            {"input_tokens", 2048},
            {"output_tokens", 512},
            {"concurrency", 32},
            {"targets",
             {{"ttft_ms", 500},
              {"tpot_ms", 50},
              {"requests_per_s", 4},
              {"output_tokens_per_s", 1000}}}}},
          {"deployment", {{"mode", "cloud"}}}};
}

Spec spec_of(const nlohmann::json& body) {
  return parse_spec(body, "chat.json");
}

// A GPU with one price: $2.50/h on demand from Acme, dated 2026-11-01.
Gpu priced_gpu() {
  Gpu g;
  g.name = "Test-80GB";
  Price p;
  p.provider = "Acme";
  p.kind = "on_demand";
  p.per_gpu = usd_per_hour(2.5);
  p.as_of = "2026-11-01";
  g.prices = {p};
  return g;
}

// Serving figures over all replicas: TTFT 400 ms, TPOT 40 ms, 5 requests/s, 1,200 output tokens/s.
InferencePerformance chat_performance() {
  InferencePerformance p;
  p.concurrency = 32;
  p.ttft = milliseconds(400);
  p.tpot = milliseconds(40);
  p.requests_per_s = 5;
  p.output_tokens_per_s = 1200;
  return p;
}

// Bands: TTFT 350-600 ms, TPOT 30-45 ms, 3-6 requests/s, 1,100-1,300 output tokens/s.
InferenceBands chat_bands() {
  InferenceBands b;
  b.ttft = Band{0.35, 0.6};
  b.tpot = Band{0.03, 0.045};
  b.requests_per_s = Band{3, 6};
  b.output_tokens_per_s = Band{1100, 1300};
  return b;
}

// An estimate of `spec` on `gpu`: `replicas` replicas of tp 2 sharing `perf`.
EstimateReport report_of(const Spec& spec,
                         const Gpu& gpu,
                         const MemoryEstimate& memory,
                         const InferencePerformance* perf,
                         const InferenceBands* bands,
                         int replicas,
                         bool at_edge) {
  Parallelism p;
  p.tp = 2;
  return EstimateReport{spec,
                        gpu,
                        p,
                        memory,
                        perf,
                        nullptr,
                        replicas,
                        bands,
                        nullptr,
                        std::nullopt,
                        0.8,
                        at_edge,
                        nullptr};
}

} // namespace

TEST_CASE("estimate report: a ceiling is held at its band's high end or at the point",
          "[plan][estimate_report]") {
  // 50 ms TPOT, predicted 40 ms, band 35-55 ms.
  const TargetCheck edge = judge_target("tpot_ms", true, 50, 40, Band{35, 55}, true);
  CHECK(edge.held == 55);
  CHECK_FALSE(edge.met);
  CHECK(edge.met_at_point);
  CHECK(edge.margin == Approx(-0.1)); // (50 - 55) / 50
  const TargetCheck point = judge_target("tpot_ms", true, 50, 40, Band{35, 55}, false);
  CHECK(point.held == 40);
  CHECK(point.met);
  CHECK(point.margin == Approx(0.2)); // (50 - 40) / 50
  REQUIRE(point.band);
  CHECK(point.band->high == 55);
  // No band: the point, whatever the confidence.
  CHECK(judge_target("tpot_ms", true, 50, 40, std::nullopt, true).held == 40);
}

TEST_CASE("estimate report: a floor is held at its band's low end or at the point",
          "[plan][estimate_report]") {
  // 10 requests/s wanted, predicted 12, band 9-14.
  const TargetCheck edge = judge_target("requests_per_s", false, 10, 12, Band{9, 14}, true);
  CHECK(edge.held == 9);
  CHECK_FALSE(edge.met);
  CHECK(edge.met_at_point);
  CHECK(edge.margin == Approx(-0.1)); // (9 - 10) / 10
  const TargetCheck point = judge_target("requests_per_s", false, 10, 12, Band{9, 14}, false);
  CHECK(point.held == 12);
  CHECK(point.met);
  CHECK(point.margin == Approx(0.2)); // (12 - 10) / 10
  // Exactly at the limit meets it.
  CHECK(judge_target("requests_per_s", false, 10, 10, std::nullopt, true).met);
}

TEST_CASE("estimate report: a serving spec's targets in their units, in order",
          "[plan][estimate_report]") {
  const Spec spec = spec_of(chat_json());
  const Gpu gpu = priced_gpu();
  const MemoryEstimate memory;
  const InferencePerformance perf = chat_performance();
  const InferenceBands bands = chat_bands();
  SECTION("at the band's pessimistic edge") {
    const auto t = judge_targets(report_of(spec, gpu, memory, &perf, &bands, 1, true));
    REQUIRE(t.size() == 4);
    CHECK(t[0].target == "ttft_ms");
    CHECK(t[0].at_most);
    CHECK(t[0].limit == Approx(500));
    CHECK(t[0].predicted == Approx(400));
    CHECK(t[0].held == Approx(600)); // the band's 0.6 s
    CHECK_FALSE(t[0].met);
    CHECK(t[0].met_at_point);
    CHECK(t[0].margin == Approx(-0.2)); // (500 - 600) / 500
    CHECK(t[1].target == "tpot_ms");
    CHECK(t[1].held == Approx(45));
    CHECK(t[1].met);
    CHECK(t[1].margin == Approx(0.1)); // (50 - 45) / 50
    CHECK(t[2].target == "requests_per_s");
    CHECK_FALSE(t[2].at_most);
    CHECK(t[2].held == 3);
    CHECK_FALSE(t[2].met);
    CHECK(t[2].margin == Approx(-0.25)); // (3 - 4) / 4
    CHECK(t[3].target == "output_tokens_per_s");
    CHECK(t[3].held == 1100);
    CHECK(t[3].met);
    CHECK(t[3].margin == Approx(0.1)); // (1100 - 1000) / 1000
  }
  SECTION("at the point") {
    const auto t = judge_targets(report_of(spec, gpu, memory, &perf, &bands, 1, false));
    REQUIRE(t.size() == 4);
    CHECK(t[0].held == Approx(400));
    CHECK(t[0].met);
    CHECK(t[0].margin == Approx(0.2));
    CHECK(t[2].held == 5);
    CHECK(t[2].met);
    CHECK(t[2].margin == Approx(0.25)); // (5 - 4) / 4
  }
  SECTION("without bands, at the point") {
    const auto t = judge_targets(report_of(spec, gpu, memory, &perf, nullptr, 1, true));
    REQUIRE(t.size() == 4);
    CHECK_FALSE(t[0].band);
    CHECK(t[0].held == Approx(400));
  }
  SECTION("nothing to judge without concurrency") {
    InferencePerformance idle = perf;
    idle.concurrency = 0;
    CHECK(judge_targets(report_of(spec, gpu, memory, &idle, &bands, 1, true)).empty());
  }
}

TEST_CASE("estimate report: a cloud configuration priced per hour and per item",
          "[plan][estimate_report]") {
  const Spec spec = spec_of(chat_json());
  const Gpu gpu = priced_gpu();
  const MemoryEstimate memory;
  InferencePerformance perf = chat_performance();
  SECTION("per hour and per million output tokens") {
    // 2 replicas of tp 2: 4 GPUs x $2.50/h = $10/h. Priced at the load asked: the target's 4
    // requests/s are 0.8 of the 5 served (1,000 output tokens/s would be 0.83), so 0.8 x 1,200 =
    // 960 output tokens/s, 3.456 million an hour: $10 / 3.456 = $2.8935 per million.
    EstimateReport r = report_of(spec, gpu, memory, &perf, nullptr, 2, true);
    price_report(r, "2026-11-21");
    REQUIRE(r.cost);
    CHECK(r.cost_note.empty());
    CHECK(r.cost->per_hour.si() == Approx(10.0));
    CHECK(r.cost->price.provider == "Acme");
    CHECK(r.cost->price_label == "4 x $2.50/h Acme (per GPU, shape not stated) on_demand (as of 2026-11-01)");
    CHECK_FALSE(r.cost->price_stale);
    REQUIRE(r.cost->usd_per_million_tokens);
    CHECK(*r.cost->usd_per_million_tokens == Approx(2.8935185185));
    CHECK_FALSE(r.cost->usd_per_thousand_images);
    CHECK_FALSE(r.cost->usd_per_audio_hour);
    CHECK_FALSE(r.cost->to_train);
  }
  SECTION("a stale price says so") {
    EstimateReport r = report_of(spec, gpu, memory, &perf, nullptr, 1, true);
    price_report(r, "2027-11-21"); // over the spec's 180 days
    REQUIRE(r.cost);
    CHECK(r.cost->price_stale);
  }
  SECTION("per audio hour") {
    // A transcription's 90 audio seconds per second are 90 audio hours an hour, 72 of them at
    // the load asked (0.8, above): one replica of tp 2 at $5/h, $0.0694 per audio hour.
    perf.audio_seconds_per_s = 90;
    EstimateReport r = report_of(spec, gpu, memory, &perf, nullptr, 1, true);
    price_report(r, "2026-11-21");
    REQUIRE(r.cost);
    REQUIRE(r.cost->usd_per_audio_hour);
    CHECK(*r.cost->usd_per_audio_hour == Approx(5.0 / 72));
  }
  SECTION("no price of the deployment's kind: a note") {
    nlohmann::json body = chat_json();
    body["deployment"]["price_kind"] = "spot";
    const Spec spot = spec_of(body);
    EstimateReport r = report_of(spot, gpu, memory, &perf, nullptr, 1, true);
    price_report(r, "2026-11-21");
    CHECK_FALSE(r.cost);
    CHECK(r.cost_note ==
          "no spot price for Test-80GB in the catalog; add one with --catalog (docs/catalog.md)");
  }
}

TEST_CASE("estimate report: an image workload priced per thousand images",
          "[plan][estimate_report]") {
  const Spec spec = parse_spec({{"model", config_path("vision/siglip-base-patch16-224")},
                                {"precision", "bf16"},
                                {"workload", {{"type", "embedding"}, {"concurrency", 8}}}},
                               "images.json");
  REQUIRE(spec.per_image());
  const Gpu gpu = priced_gpu();
  const MemoryEstimate memory;
  InferencePerformance perf;
  perf.concurrency = 8;
  perf.prefill_only = true;
  perf.ttft = milliseconds(20);
  perf.requests_per_s = 500;         // images
  perf.prefill_tokens_per_s = 98000; // 196 tokens per image
  // One replica of tp 2: $5/h. 500 images/s are 1.8 million an hour: $0.00278 per thousand;
  // 98,000 tokens/s are 352.8 million an hour: $0.01417 per million.
  EstimateReport r = report_of(spec, gpu, memory, &perf, nullptr, 1, true);
  price_report(r, "2026-11-21");
  REQUIRE(r.cost);
  REQUIRE(r.cost->usd_per_thousand_images);
  CHECK(*r.cost->usd_per_thousand_images == Approx(5.0 / 1800));
  REQUIRE(r.cost->usd_per_million_tokens);
  CHECK(*r.cost->usd_per_million_tokens == Approx(5.0 / 352.8));
}

TEST_CASE("estimate report: on-prem is plan's to cost, and a note says so",
          "[plan][estimate_report]") {
  nlohmann::json body = chat_json();
  body["deployment"] = {{"mode", "onprem"}};
  const Spec spec = spec_of(body);
  const Gpu gpu = priced_gpu();
  const MemoryEstimate memory;
  const InferencePerformance perf = chat_performance();
  EstimateReport r = report_of(spec, gpu, memory, &perf, nullptr, 1, true);
  price_report(r, "2026-11-21");
  CHECK_FALSE(r.cost);
  CHECK(r.cost_note == "on-prem: the ownership cost (whole servers, power, amortization) is "
                       "computed by rightsize plan (docs/plan.md, \"Cost\")");
}

TEST_CASE("estimate report: a serving replica's batch", "[plan][estimate_report]") {
  const Spec spec = spec_of(chat_json()); // concurrency 32
  CHECK(replica_batch(spec, 7, 3) == 7);  // --batch as given
  CHECK(replica_batch(spec, std::nullopt, 1) == 32);
  CHECK(replica_batch(spec, std::nullopt, 3) == 11); // ceil(32 / 3)
  nlohmann::json offline = chat_json();
  offline["workload"].erase("concurrency");
  offline["workload"]["targets"] = {{"output_tokens_per_s", 1000}};
  CHECK_FALSE(replica_batch(spec_of(offline), std::nullopt, 2));
}

TEST_CASE("estimate report: the spec as estimate evaluates it", "[plan][estimate_report]") {
  const Spec spec = spec_of(chat_json());
  const Gpu& h100 = catalog().resolve("H100", "--gpu");
  SECTION("the spec's formats when none are asked for") {
    const Spec s = estimate_spec(spec, catalog(), h100, std::nullopt, std::nullopt, nullptr);
    CHECK(s.precision.weights == DType::bf16);
    CHECK(s.precision.kv_cache == spec.precision.kv_cache);
  }
  SECTION("the formats asked for") {
    const Spec s = estimate_spec(spec, catalog(), h100, DType::fp8, DType::fp8, nullptr);
    CHECK(s.precision.weights == DType::fp8);
    CHECK(s.precision.kv_cache == DType::fp8);
  }
  SECTION("the provider in the catalog's spelling") {
    nlohmann::json body = chat_json();
    body["deployment"]["provider"] = "aws";
    const Spec s = estimate_spec(spec_of(body), catalog(), h100, std::nullopt, std::nullopt, nullptr);
    CHECK(s.deployment.provider == std::optional<std::string>("AWS"));
  }
}

TEST_CASE("estimate report: a configuration evaluated, judged and priced",
          "[plan][estimate_report]") {
  const Spec spec = spec_of(chat_json());
  const Gpu& h100 = catalog().resolve("H100", "--gpu");
  Parallelism layout;
  layout.tp = 1;
  layout.dp = 2; // two serving replicas
  const EstimateEvaluation e = estimate_configuration(
      spec, h100, layout, std::nullopt, test::constants(), test::efficiency(), test::uncertainty());
  CHECK(e.replicas == 2);
  CHECK(e.parallelism.dp == 1);
  CHECK(e.memory.batch == 16); // the spec's 32 shared by two replicas
  REQUIRE(e.inference);
  REQUIRE(e.inference_bands);
  CHECK_FALSE(e.training);
  const EstimateReport point = estimate_report(e, Confidence::point, "2026-11-21");
  CHECK_FALSE(point.judged_at_band_edge);
  REQUIRE(point.targets.size() == 4);
  CHECK(point.targets[0].held == Approx(to_ms(e.inference->ttft)));
  const EstimateReport edge = estimate_report(e, Confidence::band, "2026-11-21");
  CHECK(edge.judged_at_band_edge);
  CHECK(edge.targets[0].held == Approx(e.inference_bands->ttft.high * 1e3));
  REQUIRE(edge.cost);
  // Two H100s at the catalog's cheapest on-demand price.
  CHECK(edge.cost->per_hour.si() == Approx(2 * edge.cost->price.per_gpu.si()));
}
