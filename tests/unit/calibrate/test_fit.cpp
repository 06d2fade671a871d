// A site's factors fitted on its runs (calibrate/fit.hpp) and installed for a spec
// (estimate/site_calibration.hpp). The runs here are made by the estimator itself under known
// "site" factors, so the fit has a right answer: the bundled factors moved to those.

#include "bench_fixtures.hpp"
#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/calibrate/calibration_file.hpp>
#include <rightsize/calibrate/fit.hpp>
#include <rightsize/estimate/site_calibration.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>

using namespace rightsize;

namespace {

Spec llama_8b(const char* engine = "vllm") {
  return parse_spec({{"model", rightsize::test::config_path("llama-3.1-8b")},
                     {"precision", "bf16"},
                     {"workload",
                      {{"type", "inference"},
                       {"engine", engine},
                       {"input_tokens", 1024},
                       {"output_tokens", 256},
                       {"concurrency", 8}}}},
                    "llama.json");
}

const Gpu& gpu(const char* name) {
  return rightsize::test::catalog().resolve(name, "--gpu");
}

// The bundled factors with Hopper and vLLM moved: what the "site" measures.
Efficiency site_truth() {
  Efficiency e = rightsize::test::efficiency();
  e.families["hopper"].memory = 0.82;
  e.families["hopper"].compute = 0.42;
  auto& v = e.engines["vllm"];
  v.per_layer = v.per_layer * 1.6;
  v.per_step = v.per_step * 1.6;
  v.per_request = milliseconds(25);
  return e;
}

// A run of `spec` on one H100 at the given lengths and load, "measured" as the estimator predicts
// it under `truth` (the metrics chosen by the flags).
CalibrationRun run_at(const Spec& spec,
                      long long input,
                      long long concurrency,
                      const Efficiency& truth,
                      bool ttft = true,
                      bool tpot = true,
                      bool throughput = true) {
  CalibrationRun r;
  r.name = fmt::format("run-{}-{}.json", input, concurrency);
  r.load = {input, 256, concurrency, LoadSource::max_concurrency};
  r.spec = spec_at_load(spec, r.load);
  r.gpu = gpu("H100-SXM");
  r.family = rightsize::test::efficiency().family_name(r.gpu);
  const RunPrediction p =
      predict_run(r, truth, rightsize::test::uncertainty(), rightsize::test::constants());
  if (ttft) {
    r.ttft = p.ttft;
  }
  if (tpot) {
    r.tpot = p.tpot;
  }
  if (throughput) {
    r.output_tokens_per_s = p.output_tokens_per_s;
  }
  return r;
}

std::vector<SiteFit> fit(const std::vector<CalibrationRun>& runs) {
  return fit_sites(runs,
                   rightsize::test::efficiency(),
                   rightsize::test::uncertainty(),
                   rightsize::test::constants());
}

bool has(const std::vector<SiteFactor>& v, SiteFactor f) {
  return std::find(v.begin(), v.end(), f) != v.end();
}

const HeldFactor* held(const SiteFit& f, SiteFactor factor) {
  for (const auto& h : f.held) {
    if (h.factor == factor) {
      return &h;
    }
  }
  return nullptr;
}

SiteCalibration calibration_of(const std::vector<SiteFit>& fits, long long runs) {
  SiteCalibration c;
  c.file = "site.json";
  c.digest = "0123456789abcdef";
  c.runs = runs;
  for (const auto& f : fits) {
    c.factors.push_back(to_site_factors(f));
  }
  return c;
}

} // namespace

TEST_CASE("calibrate: one TPOT run determines memory bandwidth and nothing else",
          "[calibrate][fit]") {
  const auto runs = std::vector<CalibrationRun>{
      run_at(llama_8b(), 1024, 16, site_truth(), /*ttft=*/false, true, false)};
  std::vector<SiteFactor> fitted;
  std::vector<HeldFactor> not_fitted;
  determinable({&runs[0]}, fitted, not_fitted);
  CHECK(fitted == std::vector<SiteFactor>{SiteFactor::memory});
  REQUIRE(not_fitted.size() == 5);
  const auto fits = fit(runs);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].family == "hopper");
  CHECK(fits[0].engine == "vllm");
  CHECK(fits[0].model_kind == "dense");
  REQUIRE(held(fits[0], SiteFactor::compute) != nullptr);
  CHECK_THAT(held(fits[0], SiteFactor::compute)->why,
             Catch::Contains("TTFT with prompts of 512 tokens or more"));
  CHECK_THAT(held(fits[0], SiteFactor::fixed_overhead)->why,
             Catch::Contains("two concurrencies 4x apart"));
  // Held factors stay at the bundled values; one run leaves nothing out to predict.
  CHECK(fits[0].family_efficiency.compute ==
        rightsize::test::efficiency().families.at("hopper").compute);
  CHECK(fits[0].overhead.per_request ==
        rightsize::test::efficiency().engine(Engine::vllm).per_request);
  CHECK(fits[0].leave_one_out.empty());
}

TEST_CASE("calibrate: runs at two prompt lengths and three loads recover the site's factors",
          "[calibrate][fit]") {
  const Efficiency truth = site_truth();
  const Spec spec = llama_8b();
  std::vector<CalibrationRun> runs;
  for (const long long input : {512LL, 4096LL}) {
    for (const long long c : {1LL, 8LL, 64LL}) {
      runs.push_back(run_at(spec, input, c, truth));
    }
  }
  const auto fits = fit(runs);
  REQUIRE(fits.size() == 1);
  const SiteFit& f = fits[0];
  CHECK(f.held.empty());
  CHECK(has(f.fitted, SiteFactor::ttft_overhead));
  CHECK(has(f.fitted, SiteFactor::prefill_interference));
  // Every run is predicted within 3% by the fitted factors (the pull toward the bundled values
  // keeps them from landing exactly), and the bundled factors were off by more.
  const SiteCalibration cal = calibration_of(fits, 6);
  double worst_before = 0;
  for (const auto& r : runs) {
    Efficiency e = rightsize::test::efficiency();
    Uncertainty u = rightsize::test::uncertainty();
    REQUIRE(apply_site_calibration(cal, r.spec, e, u) == 1);
    const RunPrediction after = predict_run(r, e, u, rightsize::test::constants());
    const RunPrediction before = predict_run(r,
                                             rightsize::test::efficiency(),
                                             rightsize::test::uncertainty(),
                                             rightsize::test::constants());
    CHECK(std::abs(*after.tpot / *r.tpot - 1) < 0.03);
    CHECK(std::abs(*after.ttft / *r.ttft - 1) < 0.03);
    CHECK(std::abs(*after.output_tokens_per_s / *r.output_tokens_per_s - 1) < 0.03);
    worst_before = std::max(worst_before, std::abs(*before.tpot / *r.tpot - 1));
  }
  CHECK(worst_before > 0.1);
  CHECK(f.family_efficiency.memory == Approx(0.82).epsilon(0.08));
  // Leave one run out: each of the six predicted by a fit on the other five, better than bundled.
  REQUIRE(f.leave_one_out.size() == 3);
  for (const auto& e : f.leave_one_out) {
    CHECK(e.lines == 6);
    CHECK(e.after < e.before);
  }
}

TEST_CASE("calibrate: bands come from the leave-one-run-out ratios, never narrower than the "
          "runs' noise",
          "[calibrate][fit]") {
  // Runs the bundled factors predict exactly: every leave-one-out ratio is 1.
  const Spec spec = llama_8b();
  std::vector<CalibrationRun> runs;
  for (const long long c : {1LL, 2LL, 4LL, 8LL, 16LL, 32LL}) {
    runs.push_back(run_at(spec, 2048, c, rightsize::test::efficiency()));
  }
  auto fits = fit(runs);
  REQUIRE(fits.size() == 1);
  // Six TTFT ratios: too few to size a band, so the bundled band stands (with its basis said).
  const RatioBand bundled = rightsize::test::uncertainty().band("ttft", "hopper", "vllm");
  CHECK(fits[0].ttft.low_ratio == Approx(bundled.low_ratio));
  CHECK(fits[0].ttft.high_ratio == Approx(bundled.high_ratio));
  CHECK_THAT(fits[0].ttft.basis, Catch::Contains("too few to size a band"));
  // Twelve TPOT and throughput ratios of exactly 1: the band is the noise floor, +-5%.
  CHECK(fits[0].tpot.lines == 12);
  CHECK(fits[0].tpot.low_ratio == Approx(1.0 / 1.05));
  CHECK(fits[0].tpot.high_ratio == Approx(1.05));
  CHECK_THAT(fits[0].tpot.basis, Catch::Contains("10th-90th percentiles of 12"));
}

TEST_CASE("calibrate: a calibration applies to its engine, model kind and GPU family only",
          "[calibrate][fit]") {
  const auto runs = std::vector<CalibrationRun>{run_at(llama_8b(), 1024, 4, site_truth()),
                                                run_at(llama_8b(), 1024, 64, site_truth())};
  const SiteCalibration cal = calibration_of(fit(runs), 2);
  const auto tpot_on = [&](const Spec& spec, const char* name, bool calibrated) {
    Efficiency e = rightsize::test::efficiency();
    Uncertainty u = rightsize::test::uncertainty();
    if (calibrated) {
      apply_site_calibration(cal, spec, e, u);
    }
    const EstimateEvaluation x = estimate_configuration(
        spec, gpu(name), Parallelism{}, 8, rightsize::test::constants(), e, u);
    return std::make_pair(x.inference->tpot.si(), x.calibration.text);
  };
  // H200 is Hopper: the site's factors, and the report names the calibration and its runs.
  const auto [h200, text] = tpot_on(llama_8b(), "H200", true);
  CHECK(h200 != tpot_on(llama_8b(), "H200", false).first);
  CHECK_THAT(text,
             Catch::Contains("hopper/vllm/dense: site calibration site.json (2 of its 2 runs)"));
  // An L40S (Ada), another engine, another model kind: the bundled factors.
  CHECK(tpot_on(llama_8b(), "L40S", true).first == tpot_on(llama_8b(), "L40S", false).first);
  CHECK(tpot_on(llama_8b("sglang"), "H200", true).first ==
        tpot_on(llama_8b("sglang"), "H200", false).first);
  Efficiency e = rightsize::test::efficiency();
  Uncertainty u = rightsize::test::uncertainty();
  const Spec moe = parse_spec({{"model", rightsize::test::config_path("mixtral-8x7b")},
                               {"workload", {{"type", "inference"}, {"engine", "vllm"}}}},
                              "moe.json");
  CHECK(apply_site_calibration(cal, moe, e, u) == 0);
  CHECK(e.site.empty());
}

TEST_CASE("calibrate: the calibration file round-trips and refuses hand edits",
          "[calibrate][fit]") {
  const auto runs = std::vector<CalibrationRun>{run_at(llama_8b(), 1024, 4, site_truth()),
                                                run_at(llama_8b(), 1024, 64, site_truth())};
  const auto fits = fit(runs);
  std::vector<RunRecord> records(2);
  for (std::size_t i = 0; i < 2; ++i) {
    records[i].result = runs[i].name;
    records[i].client = "vllm-serve";
    records[i].spec_file = "llama.json";
    records[i].spec_digest = "abc";
    records[i].gpu = "H100-SXM-80GB";
    records[i].family = "hopper";
    records[i].engine = "vllm";
    records[i].model_kind = "dense";
    records[i].model_params = runs[i].spec.model.params_total;
    records[i].weights_format = "bf16";
    records[i].kv_cache_format = "bf16";
    records[i].layout = runs[i].layout;
    records[i].load = runs[i].load;
    records[i].tpot = runs[i].tpot;
  }
  const nlohmann::json doc = calibration_document(records, fits);
  const SiteCalibration c = site_calibration_from_json(doc, "cal.json", "d");
  CHECK(c.runs == 2);
  REQUIRE(c.factors.size() == 1);
  CHECK(c.factors[0].family_efficiency.memory == Approx(fits[0].family_efficiency.memory));
  CHECK(c.factors[0].overhead.per_step.si() == Approx(fits[0].overhead.per_step.si()));
  CHECK(c.factors[0].tpot.high_ratio == Approx(fits[0].tpot.high_ratio));
  const auto back = read_run_records(doc, "cal.json");
  REQUIRE(back.size() == 2);
  CHECK(same_configuration(back[1], records[1]));
  CHECK_FALSE(same_configuration(back[0], records[1]));
  CHECK(*back[1].tpot == Approx(*runs[1].tpot));

  nlohmann::json edited = doc;
  edited["factors"][0]["efficiency"]["memory"] = 0.99;
  CHECK_THROWS_WITH(site_calibration_from_json(edited, "cal.json", "d"),
                    Catch::Contains("cal.json:/digest") && Catch::Contains("edited"));
  nlohmann::json newer = doc;
  newer["rightsize_calibration"] = 2;
  newer["digest"] = calibration_content_digest(newer);
  CHECK_THROWS_WITH(site_calibration_from_json(newer, "cal.json", "d"),
                    Catch::Contains("unsupported calibration format"));
  nlohmann::json out_of_range = doc;
  out_of_range["factors"][0]["efficiency"]["memory"] = 1.5;
  out_of_range["digest"] = calibration_content_digest(out_of_range);
  CHECK_THROWS_WITH(site_calibration_from_json(out_of_range, "cal.json", "d"),
                    Catch::Contains("cal.json:/factors/0/efficiency/memory"));
  CHECK_THROWS_WITH(site_calibration_from_json({{"runs", nlohmann::json::array()}}, "x.json", "d"),
                    Catch::Contains("not a rightsize calibration file"));
}

TEST_CASE("calibrate: a run whose model name states another size is another model's run",
          "[calibrate][fit]") {
  auto j = rightsize::test::calibrate_json("vllm-serve-default.json");
  const auto run_named = [&](const std::string& model) {
    j["model_id"] = model;
    return rightsize::test::one_run(j, "r.json");
  };
  const auto calibrate = [&](const Spec& spec, const std::string& model) {
    return calibration_run(
        spec, gpu("H100-SXM"), Parallelism{}, run_named(model), rightsize::test::efficiency());
  };
  // Llama-3.1-8B-Instruct's own name, a local path, a name without a size: accepted.
  CHECK(calibrate(llama_8b(), "meta-llama/Llama-3.1-8B-Instruct").load.concurrency == 16);
  CHECK_NOTHROW(calibrate(llama_8b(), "/models/llama-3.1-8b-instruct"));
  CHECK_NOTHROW(calibrate(llama_8b(), "my-finetune"));
  // 70B against an 8B spec: refused, naming the run and what it served.
  CHECK_THROWS_WITH(calibrate(llama_8b(), "meta-llama/Llama-3.1-70B-Instruct"),
                    Catch::Contains("r.json:/model: the run served meta-llama/Llama-3.1-70B") &&
                        Catch::Contains("about 70B parameters by its name") &&
                        Catch::Contains("8.03B"));
  // Mixtral-8x7B names 56B of its 46.7B: within the slack.
  const Spec mixtral = parse_spec({{"model", rightsize::test::config_path("mixtral-8x7b")},
                                   {"workload", {{"type", "inference"}, {"engine", "vllm"}}}},
                                  "moe.json");
  CHECK_NOTHROW(calibrate(mixtral, "mistralai/Mixtral-8x7B-Instruct-v0.1"));
  CHECK_THROWS(calibrate(mixtral, "meta-llama/Llama-3.2-3B"));
}
