// Latency targets on percentiles: targets.ttft_ms and tpot_ms as an object (docs/spec.md).

#include "spec_test_helpers.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::test::ScratchDir;
using rightsize::test::spec_error;
using rightsize::test::write_spec;

namespace {

std::string with_targets(const std::string& targets) {
  return R"({"model": "models/llama", "workload": {"type": "inference", "concurrency": 8,
             "targets": )" +
         targets + "}}";
}

} // namespace

TEST_CASE("spec: latency targets on percentiles", "[spec][targets]") {
  ScratchDir dir;
  const Spec s = load_spec(
      write_spec(dir, with_targets(R"({"ttft_ms": {"p50": 300, "p99": 1500}, "tpot_ms": {"mean": 30,
                           "p90": 45}})")));
  const InferenceTargets& t = s.workload.inference.targets;
  CHECK_FALSE(t.ttft);
  REQUIRE(t.ttft_percentiles.size() == 2);
  CHECK(t.ttft_percentiles[0].percentile == 50);
  CHECK(t.ttft_percentiles[0].limit.si() == Approx(0.3));
  CHECK(t.ttft_percentiles[1].percentile == 99);
  CHECK(t.ttft_percentiles[1].limit.si() == Approx(1.5));
  REQUIRE(t.tpot);
  CHECK(t.tpot->si() == Approx(0.030));
  REQUIRE(t.tpot_percentiles.size() == 1);
  CHECK(t.tpot_percentiles[0].percentile == 90);
  CHECK(t.names_percentiles());
  // The canonical form writes them back as given; a plain number stays a number.
  const nlohmann::json j = validation_to_json(s);
  CHECK(j["workload"]["targets"]["ttft_ms"] == nlohmann::json{{"p50", 300.0}, {"p99", 1500.0}});
  CHECK(j["workload"]["targets"]["tpot_ms"] == nlohmann::json{{"mean", 30.0}, {"p90", 45.0}});
  const Spec plain = load_spec(write_spec(dir, with_targets(R"({"ttft_ms": 500})")));
  CHECK(plain.workload.inference.targets.ttft->si() == Approx(0.5));
  CHECK_FALSE(plain.workload.inference.targets.names_percentiles());
  CHECK(validation_to_json(plain)["workload"]["targets"]["ttft_ms"] == 500.0);
}

TEST_CASE("spec: bad percentile targets", "[spec][targets]") {
  CHECK(spec_error(with_targets(R"({"ttft_ms": {"p99": 1000, "p50": 2000}})")) ==
        "spec.json:/workload/targets/ttft_ms/p99: is below p50's 2000 ms: a higher "
        "percentile's target cannot be tighter than a lower one's, got 1000");
  CHECK(spec_error(with_targets(R"({"tpot_ms": {"p95": 40}})"))
            .find("spec.json:/workload/targets/tpot_ms/p95: unknown field \"p95\" (did you mean") == 0);
  CHECK(spec_error(with_targets(R"({"ttft_ms": {}})")) ==
        "spec.json:/workload/targets/ttft_ms: names no statistic: give milliseconds, or an "
        "object such as {\"p99\": 2000} (mean, p50, p90, p99)");
  CHECK(spec_error(with_targets(R"({"ttft_ms": {"p99": -5}})"))
            .find("spec.json:/workload/targets/ttft_ms/p99: must be") == 0);
  CHECK(spec_error(with_targets(R"({"ttft_ms": {"p99": "fast"}})"))
            .find("spec.json:/workload/targets/ttft_ms/p99:") == 0);
  CHECK(spec_error(with_targets(R"({"ttft_ms": [1000]})"))
            .find("spec.json:/workload/targets/ttft_ms:") == 0);
}

TEST_CASE("spec: arrivals, closed by default, or an open process at the same load",
          "[spec][targets]") {
  const auto with = [](const std::string& arrivals, const std::string& targets) {
    return R"({"model": "models/llama", "workload": {"type": "inference", "concurrency": 8,
               "arrivals": )" +
           arrivals + R"(, "targets": )" + targets + "}}";
  };
  ScratchDir dir;
  const Spec closed = load_spec(write_spec(dir, with_targets(R"({"ttft_ms": 500})")));
  CHECK(closed.workload.inference.arrivals == ArrivalKind::closed);
  CHECK_FALSE(validation_to_json(closed)["workload"].contains("arrivals")); // digests unchanged
  // Under an open process the mean target is held on the simulated distribution, as a
  // percentile is: it moves into the percentile targets as "mean".
  ScratchDir dir2;
  const Spec poisson = load_spec(write_spec(
      dir2, with(R"({"process": "poisson"})", R"({"ttft_ms": 500, "tpot_ms": {"p99": 60}})")));
  const auto& t = poisson.workload.inference.targets;
  CHECK(poisson.workload.inference.arrivals == ArrivalKind::poisson);
  CHECK_FALSE(t.ttft);
  REQUIRE(t.ttft_percentiles.size() == 1);
  CHECK(t.ttft_percentiles[0].percentile == 0);
  CHECK(t.ttft_percentiles[0].limit.si() == Approx(0.5));
  CHECK(t.names_percentiles());
  const auto j = validation_to_json(poisson)["workload"];
  CHECK(j["arrivals"] == nlohmann::json{{"process", "poisson"}});
  CHECK(j["targets"]["ttft_ms"] == nlohmann::json{{"mean", 500.0}});
  ScratchDir dir3;
  const Spec gamma = load_spec(
      write_spec(dir3, with(R"({"process": "gamma", "burstiness": 0.5})", R"({"tpot_ms": 40})")));
  CHECK(gamma.workload.inference.burstiness == Approx(0.5));
  CHECK(validation_to_json(gamma)["workload"]["arrivals"]["burstiness"] == 0.5);
  // Refusals: one line naming the field.
  CHECK(spec_error(with(R"({"process": "gamma"})", "{}")) ==
        "spec.json:/workload/arrivals: gamma arrivals need \"burstiness\", the shape of their gaps (1: "
        "Poisson, below 1: burstier; vLLM's --burstiness)");
  CHECK(spec_error(with(R"({"process": "poisson", "burstiness": 2})", "{}")) ==
        "spec.json:/workload/arrivals/burstiness: has no meaning for poisson arrivals: it is the gamma "
        "process's shape");
  CHECK_THAT(spec_error(with(R"({"process": "gamma", "burstiness": 0})", "{}")),
             Catch::Contains("/workload/arrivals/burstiness"));
  CHECK_THAT(spec_error(with(R"({"process": "uniform"})", "{}")),
             Catch::Contains("/workload/arrivals/process"));
  CHECK(spec_error(R"({"model": "models/llama", "workload": {"type": "inference",
                      "arrivals": {"process": "poisson"}}})") ==
        "spec.json:/workload/arrivals/process: an open process keeps the spec's concurrency in flight "
        "on average: give workload.concurrency (an offline spec has no arrivals)");
}
