// Uncertainty bands and calibration status (data/uncertainty.json): which GPU families and
// engines were fitted on measured runs, and the widened bands of those that were not.

#include <rightsize/core/error.hpp>
#include <rightsize/estimate/uncertainty.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace rightsize;

namespace {

nlohmann::json file() {
  const nlohmann::json band = {{"low_ratio", 0.9}, {"high_ratio", 1.2}, {"lines", 40}};
  return {{"schema_version", 1},
          {"coverage", 0.8},
          {"uncalibrated_widening", 1.5},
          {"metrics",
           {{"ttft", {{"all", band}, {"hopper/vllm", band}}},
            {"tpot", {{"all", band}, {"hopper/vllm", band}}},
            {"step_time", {{"all", {{"low_ratio", 0.9}, {"high_ratio", 1.1}, {"lines", 4}}}}},
            {"memory", {{"all", band}}}}},
          {"calibration",
           {{"serving",
             {{"hopper/vllm",
               {{"fit_runs", 275},
                {"held_out_runs", 93},
                {"tpot_median_error", 0.111},
                {"ttft_median_error", 0.223}}},
              {"ada/tensorrt-llm",
               {{"fit_runs", 4}, {"held_out_runs", 2}, {"table_median_error", 0.047}}}}},
            {"training",
             {{"ampere", {{"fit_runs", 10}, {"held_out_runs", 4}, {"median_error", 0.084}}}}}}}};
}

} // namespace

TEST_CASE("uncertainty: calibration says what each family and engine was fitted on",
          "[uncertainty]") {
  const auto u = Uncertainty::from_json(file(), "u.json");
  const auto hopper = u.calibration("hopper", "vllm", false);
  CHECK(hopper.measured);
  CHECK(hopper.text ==
        "hopper/vllm: fitted on 275 measured runs; held-out median error TPOT 11%, TTFT 22% (93 "
        "runs)");
  // Another engine on a family that has runs: not calibrated, and says what the family rests on.
  const auto ada = u.calibration("ada", "vllm", false);
  CHECK_FALSE(ada.measured);
  CHECK(ada.text == "ada/vllm: no measured runs (the family's efficiencies rest on 4 runs of "
                    "other engines); bands widened x1.5");
  const auto amd = u.calibration("cdna3", "vllm", false);
  CHECK_FALSE(amd.measured);
  CHECK(amd.text == "cdna3/vllm: no measured runs: efficiencies are initial values, not fitted; "
                    "bands widened x1.5");
  CHECK(u.calibration("ampere", "", true).measured);
  CHECK(u.calibration("ampere", "", true).text ==
        "ampere training: fitted on 10 measured runs; held-out median error MFU 8% (4 runs)");
  CHECK_FALSE(u.calibration("hopper", "", true).measured);
}

TEST_CASE("uncertainty: families without measured training runs get the widened step-time band",
          "[uncertainty]") {
  const auto u = Uncertainty::from_json(file(), "u.json");
  const auto ampere = u.band("step_time", "ampere", "megatron");
  CHECK(ampere.calibrated);
  CHECK(ampere.low_ratio == Approx(0.9));
  CHECK(ampere.high_ratio == Approx(1.1));
  const auto hopper = u.band("step_time", "hopper", "megatron");
  CHECK_FALSE(hopper.calibrated);
  CHECK(hopper.low_ratio == Approx(std::pow(0.9, 1.5)));  // 0.854
  CHECK(hopper.high_ratio == Approx(std::pow(1.1, 1.5))); // 1.154
  CHECK(hopper.basis == "no hopper training runs: all 4 held-out lines, widened x1.5");
  // Memory is one band for every family, never widened.
  CHECK(u.band("memory", "cdna3", "vllm").high_ratio == Approx(1.2));
}

TEST_CASE("uncertainty: the bundled file flags Turing serving and AMD's unfitted engines as "
          "uncalibrated",
          "[uncertainty]") {
  const auto u = Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
  // cdna3/vllm is fitted on public MI300X runs (data/measured/cdna3-public.csv); its two SGLang
  // rows (DeepSeek-V3) are held out, never fitted.
  CHECK(u.calibration("cdna3", "vllm", false).measured);
  const auto sglang = u.calibration("cdna3", "sglang", false);
  CHECK_FALSE(sglang.measured);
  CHECK(sglang.text == "cdna3/sglang: no measured runs (the family's efficiencies rest on 73 runs "
                       "of other engines); bands from the GPU-family transfer error");
  CHECK_FALSE(u.calibration("turing", "vllm", false).measured);
  CHECK(u.calibration("hopper", "vllm", false).measured);
  CHECK(u.calibration("blackwell", "sglang", false).measured);
  CHECK(u.calibration("ampere", "", true).measured);
  CHECK_FALSE(u.calibration("blackwell", "", true).measured);
  // A malformed entry is an error naming the file and field.
  auto bad = file();
  bad["calibration"]["serving"]["hopper/vllm"]["fit_runs"] = -1;
  CHECK_THROWS_WITH(Uncertainty::from_json(bad, "u.json"),
                    Catch::Contains("u.json") && Catch::Contains("fit_runs"));
}

// Seen in an audit: a SigLIP plan on an H100 with transformers called itself measured (the pair
// has 12 generation runs) while its bands said the pair had no lines. No embedding, image or
// transcription run has been measured: those workloads are uncalibrated on every pair, and say
// what their efficiencies rest on.
TEST_CASE("uncertainty: workloads no run measured are uncalibrated whatever the pair",
          "[uncertainty][images]") {
  const auto u = Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
  REQUIRE(u.calibration("hopper", "transformers", false).measured);
  const auto image = u.calibration("hopper", "transformers", false, "image embedding");
  CHECK_FALSE(image.measured);
  CHECK(image.text ==
        "hopper/transformers: no measured image embedding runs; its efficiencies are fitted on "
        "12 text generation runs");
  CHECK_FALSE(u.calibration("hopper", "vllm", false, "embedding").measured);
  const auto ada = u.calibration("ada", "transformers", false, "transcription");
  CHECK_FALSE(ada.measured);
  CHECK(ada.text == "ada/transformers: no measured transcription runs; bands from the GPU-family "
                    "and engine transfer error");
  Spec s;
  CHECK(unmeasured_workload(s) == nullptr);
  s.workload.type = WorkloadType::embedding;
  CHECK(std::string(unmeasured_workload(s)) == "embedding");
  s.workload.type = WorkloadType::transcription;
  CHECK(std::string(unmeasured_workload(s)) == "transcription");
}

namespace {

// A schema-2 file: hopper/vllm has its own band; the transfer bands have known numbers.
nlohmann::json transfer_file() {
  auto f = file();
  f["schema_version"] = 2;
  const auto entry = [](double lo, double hi, long long lines) {
    return nlohmann::json{{"low_ratio", lo}, {"high_ratio", hi}, {"lines", lines}};
  };
  f["transfer"] = {{"gpu_family", {{"ttft", entry(0.5, 2.0, 300)}, {"tpot", entry(0.6, 1.8, 300)}}},
                   {"engine", {{"ttft", entry(0.7, 1.5, 200)}, {"tpot", entry(0.4, 1.3, 200)}}},
                   {"model_kind",
                    {{"ttft", entry(0.8, 1.2, 100)},
                     {"tpot", entry(0.8, 1.2, 100)},
                     {"groups", {{"moe", {{"tpot", entry(0.8, 1.2, 50)}}}}}}}};
  return f;
}

} // namespace

// Issue 44: an uncalibrated pair's band is the measured transfer error of what it lacks, not the
// overall band raised to a guessed power.
TEST_CASE("uncertainty: an uncalibrated pair gets the transfer band of its kind", "[uncertainty]") {
  const auto u = Uncertainty::from_json(transfer_file(), "u.json");
  REQUIRE(u.has_transfer());
  // Its own band where it has one.
  const auto own = u.band("tpot", "hopper", "vllm");
  CHECK(own.calibrated);
  CHECK(own.high_ratio == Approx(1.2));
  // A family with no calibrated pair on a known engine: the GPU-family transfer band.
  const auto amd = u.band("tpot", "cdna3", "vllm");
  CHECK_FALSE(amd.calibrated);
  CHECK(amd.low_ratio == Approx(0.6));
  CHECK(amd.high_ratio == Approx(1.8));
  CHECK(amd.basis ==
        "no cdna3/vllm lines: GPU-family transfer band (leave-one-family-out, 300 lines)");
  CHECK(u.band("ttft", "cdna3", "vllm").high_ratio == Approx(2.0));
  // A known family with an engine that has no calibrated pair: the engine transfer band.
  const auto tf = u.band("tpot", "hopper", "transformers");
  CHECK(tf.low_ratio == Approx(0.4));
  CHECK(tf.high_ratio == Approx(1.3));
  CHECK(u.high_ratio("tpot", "hopper", "transformers") == Approx(1.3));
  // Both unknown: the envelope of the two, each edge the wider.
  const auto both = u.band("tpot", "cdna3", "transformers");
  CHECK(both.low_ratio == Approx(0.4));
  CHECK(both.high_ratio == Approx(1.8));
  CHECK(u.band("ttft", "cdna3", "transformers").low_ratio == Approx(0.5));
  // The calibration sentence names the band's source.
  CHECK(u.calibration("cdna3", "vllm", false).text ==
        "cdna3/vllm: no measured runs: efficiencies are initial values, not fitted; bands from "
        "the GPU-family transfer error");
  // Throughput is the TPOT band inverted.
  InferencePerformance p;
  p.tpot = seconds(0.01);
  p.ttft = seconds(0.1);
  p.output_tokens_per_s = 1000;
  const auto b = inference_bands(p, u, "cdna3", "vllm");
  CHECK(b.output_tokens_per_s.low == Approx(1000 / 1.8));
  CHECK(b.output_tokens_per_s.high == Approx(1000 / 0.6));
  // A schema-2 file without the two bands the library uses is refused.
  auto bad = transfer_file();
  bad["transfer"].erase("engine");
  CHECK_THROWS_WITH(Uncertainty::from_json(bad, "u.json"), Catch::Contains("engine"));
}

// Issue 44, item 8: the step-time band rested on 4 Megatron lines while our own H200 runs were
// 21-33% slower than predicted. With fewer than 20 lines it is unsized: the envelope of every
// line, flagged, and said in the basis.
TEST_CASE("uncertainty: a band with too few lines is unsized and says so", "[uncertainty]") {
  auto f = transfer_file();
  f["metrics"]["step_time"]["all"] = {{"low_ratio", 0.82},
                                      {"high_ratio", 1.46},
                                      {"lines", 18},
                                      {"unsized", true},
                                      {"reason", "18 measured training lines, fewer than 20"}};
  const auto u = Uncertainty::from_json(f, "u.json");
  for (const char* family : {"ampere", "hopper"}) {
    CAPTURE(family);
    const auto b = u.band("step_time", family, "megatron");
    CHECK(b.unsized);
    CHECK(b.lines == 18);
    CHECK(b.low_ratio == Approx(0.82)); // not widened: the envelope already is
    CHECK(b.high_ratio == Approx(1.46));
    CHECK(b.basis == "band unsized, 18 measured lines");
    CHECK(u.high_ratio("step_time", family, "megatron") == Approx(1.46));
  }
  CHECK(u.band("step_time", "ampere", "megatron").calibrated);
  CHECK(u.calibration("hopper", "", true).text ==
        "hopper training: no measured runs; step-time band unsized (18 measured lines of other "
        "families)");
  // The time to train carries it: a deadline is held at the envelope's slow edge.
  TrainingPerformance t;
  t.step = seconds(2.0);
  t.time_to_train = seconds(100.0);
  t.tokens_per_s = 1000;
  const auto tb = training_bands(t, u, "hopper");
  CHECK(tb.step_ratio.unsized);
  CHECK(tb.time_to_train.high == Approx(146.0));
  // A sized band (the schema-1 file's 4 lines, widened) is not flagged.
  CHECK_FALSE(Uncertainty::from_json(file(), "u.json").band("step_time", "hopper", "x").unsized);
  // An unsized band must say why.
  f["metrics"]["step_time"]["all"].erase("reason");
  CHECK_THROWS_WITH(Uncertainty::from_json(f, "u.json"), Catch::Contains("reason"));
}

// Issue 44: where the KV cache overflows (the engine queues, and vLLM and SGLang admit by prompt
// and preempt, which rightsize does not model) the band is no narrower than the error measured on
// the queueing lines with them out of the fit (transfer.kv_regime.groups.queues).
TEST_CASE("uncertainty: an overflowing KV cache widens the band to the regime's transfer error",
          "[uncertainty]") {
  auto f = transfer_file();
  const auto entry = [](double lo, double hi, long long lines) {
    return nlohmann::json{{"low_ratio", lo}, {"high_ratio", hi}, {"lines", lines}};
  };
  f["transfer"]["kv_regime"] = {
      {"ttft", entry(0.3, 3.0, 2000)},
      {"tpot", entry(0.3, 1.2, 2000)},
      {"groups",
       {{"queues", {{"ttft", entry(0.26, 4.7, 33)}, {"tpot", entry(0.7, 2.4, 41)}}},
        {"fits", {{"ttft", entry(0.5, 2.0, 2000)}, {"tpot", entry(0.6, 1.4, 2000)}}}}}};
  const auto u = Uncertainty::from_json(f, "u.json");
  InferencePerformance p;
  p.ttft = seconds(2.0);
  p.tpot = milliseconds(50);
  p.output_tokens_per_s = 1000;
  p.requests_per_s = 2;
  p.queueing = true;
  p.running_limit = "kv_cache";
  REQUIRE(p.kv_overflow());
  // hopper/vllm's own band is 0.9-1.2; the overflow band's edges are wider on both sides.
  const InferenceBands over = inference_bands(p, u, "hopper", "vllm");
  CHECK(over.ttft.low == Approx(2.0 * 0.26));
  CHECK(over.ttft.high == Approx(2.0 * 4.7));
  CHECK(over.tpot.low == Approx(0.05 * 0.7));
  CHECK(over.tpot.high == Approx(0.05 * 2.4));
  CHECK(over.output_tokens_per_s.low == Approx(1000 / 2.4));
  CHECK_THAT(over.tpot_ratio.basis, Catch::Contains("KV-overflow transfer band (41 lines)"));
  // Queueing for the engine's own cap is not an overflow: the pair's band stands.
  p.running_limit = "max_num_seqs";
  const InferenceBands capped = inference_bands(p, u, "hopper", "vllm");
  CHECK(capped.tpot.high == Approx(0.05 * 1.2));
  // An embedding's full batch waits for the next pass: nothing to preempt, no widening.
  p.running_limit = "kv_cache";
  p.prefill_only = true;
  CHECK_FALSE(p.kv_overflow());
  CHECK(inference_bands(p, u, "hopper", "vllm").ttft.high == Approx(2.0 * 1.2));
  p.prefill_only = false;
  // Without the regime in the file (older files), the band is the pair's.
  const auto older = Uncertainty::from_json(transfer_file(), "u.json");
  p.running_limit = "kv_cache";
  CHECK(inference_bands(p, older, "hopper", "vllm").tpot.high == Approx(0.05 * 1.2));
}

TEST_CASE("uncertainty: an attention data-parallel layout takes the band of the measured "
          "attention-DP runs",
          "[uncertainty]") {
  auto f = transfer_file();
  const auto entry = [](double lo, double hi, long long lines) {
    return nlohmann::json{{"low_ratio", lo}, {"high_ratio", hi}, {"lines", lines}};
  };
  f["transfer"]["layout"] = {
      {"ttft", entry(0.65, 19.7, 235)},
      {"tpot", entry(0.34, 1.29, 235)},
      {"groups",
       {{"disaggregated", {{"ttft", entry(0.65, 19.7, 235)}, {"tpot", entry(0.34, 1.29, 235)}}},
        {"attention_dp", {{"ttft", entry(1.0, 17.7, 72)}, {"tpot", entry(0.8, 3.3, 72)}}}}}};
  const auto u = Uncertainty::from_json(f, "u.json");
  InferencePerformance p;
  p.ttft = seconds(0.5);
  p.tpot = milliseconds(20);
  p.output_tokens_per_s = 1000;
  p.requests_per_s = 2;
  // The pair's 0.9-1.2, enveloped: 0.9-17.7 for TTFT, 0.8-3.3 for TPOT; never calibrated.
  const InferenceBands adp = inference_bands(p, u, "hopper", "vllm", 8);
  CHECK(adp.ttft.low == Approx(0.5 * 0.9));
  CHECK(adp.ttft.high == Approx(0.5 * 17.7));
  CHECK(adp.tpot.low == Approx(0.02 * 0.8));
  CHECK(adp.tpot.high == Approx(0.02 * 3.3));
  CHECK_FALSE(adp.tpot_ratio.calibrated);
  CHECK_THAT(adp.ttft_ratio.basis, Catch::Contains("72 measured attention-DP runs"));
  // One attention group is the pair's band; a file without the group leaves the pair's.
  CHECK(inference_bands(p, u, "hopper", "vllm", 1).ttft.high == Approx(0.5 * 1.2));
  const auto older = Uncertainty::from_json(transfer_file(), "u.json");
  CHECK(inference_bands(p, older, "hopper", "vllm", 8).ttft.high == Approx(0.5 * 1.2));
}
