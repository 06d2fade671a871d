// Issue 16, image generation planned: a diffusers pipeline (model_index.json and its component
// folders) planned as an image_generation workload (docs/spec.md "Image generation", docs/model.md
// "Image generation"): every component in memory, a batch's pass = text encoders, steps x
// guidance passes of the denoiser, the VAE decode; images per second, $ per thousand images, and
// bands flagged uncalibrated. Hand-checked numbers in the comments.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

// The images per second a plan prices: the spec's target when the fleet serves more (the load
// asked, plan/unit_values.hpp share_at_target), else what it serves.
double asked_images_per_s(const rightsize::Spec& spec, const rightsize::InferencePerformance& i) {
  const auto& target = spec.workload.inference.targets.requests_per_s;
  return target ? std::min(i.requests_per_s, *target) : i.requests_per_s;
}

std::string pipeline_dir(const std::string& name) {
  return std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs/diffusion/" + name;
}

Spec generation(const std::string& pipeline,
                nlohmann::json workload,
                nlohmann::json precision = "bf16") {
  workload["type"] = "image_generation";
  return parse_spec(
      {{"model", pipeline_dir(pipeline)}, {"precision", precision}, {"workload", workload}},
      "gen.json");
}

std::string example() {
  return std::string(RIGHTSIZE_EXAMPLES_DIR) + "/sdxl-image-generation.json";
}

} // namespace

TEST_CASE("image generation: the spec reads a pipeline folder with its defaults",
          "[spec][image_generation]") {
  SECTION("the bundled SDXL example") {
    const Spec s = load_spec(example());
    REQUIRE(s.generates_images());
    REQUIRE(s.per_image());
    CHECK_FALSE(s.embeds_images());
    const ImageGeneration& g = *s.workload.inference.generation;
    CHECK(g.height == 1024);
    CHECK(g.width == 1024);
    CHECK(g.steps == 30);
    CHECK(g.requests_in_flight == 8);
    CHECK(s.workload.inference.concurrency == 8);      // images in flight: 8 requests x 1 image
    CHECK(s.workload.inference.input_tokens == 16384); // the latent, 128 x 128
    CHECK(s.workload.inference.output_tokens == 0);
    CHECK(s.workload.inference.targets.requests_per_s == 2.0);
    CHECK(s.workload.inference.targets.ttft->si() == Approx(15.0));
    CHECK(s.precision.weights == DType::fp16);
    CHECK(engine_name(s) == "diffusers");
    CHECK_THAT(s.defaults,
               Catch::VectorContains(std::string(
                   "classifier-free guidance: the unet runs twice per step (prompt and negative "
                   "prompt as one batch of 2; StableDiffusionXLPipeline guidance_scale 5.0)")));
  }
  SECTION("a bare FLUX.1-dev model_index.json takes the pipeline's defaults") {
    const Spec s = load_spec(pipeline_dir("flux.1-dev") + "/model_index.json");
    REQUIRE(s.generates_images());
    const ImageGeneration& g = *s.workload.inference.generation;
    CHECK(g.height == 1024);
    CHECK(g.steps == 28);
    CHECK_FALSE(s.workload.inference.concurrency);
    CHECK(s.workload.inference.input_tokens == 4096); // (1024 / 16)^2 packed latent tokens
    CHECK(s.precision.weights == DType::bf16);
    CHECK_THAT(s.defaults,
               Catch::VectorContains(std::string("workload.steps = 28 (FluxPipeline's "
                                                 "num_inference_steps default, "
                                                 "FLUX.1-dev)")));
    CHECK_THAT(s.defaults,
               Catch::VectorContains(std::string(
                   "no classifier-free guidance: one transformer pass per step (FLUX.1-dev's "
                   "guidance is distilled into an embedding)")));
  }
  SECTION("SD3-medium: guidance at 7.0, 28 steps, a T5 prompt of 256 tokens") {
    const Spec s = load_spec(pipeline_dir("sd3-medium") + "/model_index.json");
    REQUIRE(s.generates_images());
    CHECK(s.workload.inference.generation->steps == 28);
    CHECK(s.workload.inference.input_tokens == 4096);
    CHECK_THAT(s.defaults,
               Catch::VectorContains(std::string(
                   "classifier-free guidance: the transformer runs twice per step (prompt and "
                   "negative prompt as one batch of 2; StableDiffusion3Pipeline guidance_scale "
                   "7.0)")));
    CHECK_THAT(s.defaults,
               Catch::VectorContains(std::string(
                   "T5 prompt of 256 tokens (StableDiffusion3Pipeline's max_sequence_length "
                   "default)")));
  }
  SECTION("a spec without a workload plans image generation of the pipeline") {
    const Spec s = parse_spec({{"model", pipeline_dir("flux.1-schnell")}}, "gen.json");
    CHECK(s.generates_images());
    CHECK(s.workload.inference.generation->steps == 4);
  }
  SECTION("images per request multiply the images in flight") {
    const Spec s = generation("sdxl-base-1.0", {{"concurrency", 3}, {"images_per_request", 4}});
    CHECK(s.workload.inference.concurrency == 12);
  }
}

TEST_CASE("image generation: what does not apply is refused by name", "[spec][image_generation]") {
  CHECK_THROWS_WITH(generation("sdxl-base-1.0", {{"height", 1000}}),
                    "gen.json:/workload/height: must be a multiple of 32 pixels for "
                    "StableDiffusionXLPipeline (8 pixels per latent position, halved at each UNet "
                    "level), got 1000");
  CHECK_THROWS_WITH(generation("flux.1-dev", {{"width", 1000}}),
                    Catch::StartsWith("gen.json:/workload/width: must be a multiple of 16 pixels "
                                      "for FluxPipeline"));
  CHECK_THROWS_WITH(generation("sdxl-base-1.0", {{"step", 20}}),
                    Catch::Contains("gen.json:/workload/step: unknown field \"step\" (did you mean "
                                    "\"steps\"?)"));
  CHECK_THROWS_WITH(
      generation("sdxl-base-1.0", {{"input_tokens", 77}}),
      Catch::Contains("gen.json:/workload/input_tokens: unknown field \"input_tokens\""));
  CHECK_THROWS_WITH(generation("sdxl-base-1.0", {{"engine", "vllm"}}),
                    Catch::StartsWith("gen.json:/workload/engine: a diffusers pipeline runs on "
                                      "diffusers"));
  CHECK_THROWS_WITH(generation("sdxl-base-1.0", {{"targets", {{"output_tokens_per_s", 5}}}}),
                    Catch::Contains("unknown field \"output_tokens_per_s\""));
  CHECK_THROWS_WITH(generation("sdxl-base-1.0", nlohmann::json::object(), "fp8"),
                    Catch::StartsWith("gen.json:/precision: a diffusers pipeline is planned in "
                                      "bf16, fp16 or fp32, got fp8"));
  CHECK_THROWS_WITH(
      parse_spec({{"model", pipeline_dir("sdxl-base-1.0")}, {"workload", {{"type", "inference"}}}},
                 "gen.json"),
      "gen.json:/workload/type: a diffusers pipeline (StableDiffusionXLPipeline) is planned as "
      "image_generation only");
  CHECK_THROWS_WITH(
      parse_spec({{"model", std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs/llama-3.1-8b"},
                  {"workload", {{"type", "image_generation"}}}},
                 "gen.json"),
      Catch::StartsWith("gen.json:/workload/type: an image_generation workload needs a diffusers "
                        "pipeline"));
}

// SDXL in fp16 at 1024 x 1024, 30 steps with guidance, a batch of 4 on an H100 SXM:
// - FLOPs per image: CLIP-L 13.30 GFLOP + bigG 97.86 GFLOP + 30 x 2 x 6.761 TFLOP + VAE decode
//   10.47 TFLOP = 416.26 TFLOP (tests/unit/model/test_diffusion.cpp derives each);
// - bytes read per pass: the UNet's 2,567,463,684 x 2 bytes at each of 30 steps, the text
//   encoders and the VAE once: (2,567,463,684 x 30 + 901,374,183) x 2 = 155,850,569,406.
TEST_CASE("image generation: a pass is the whole loop for a batch of images",
          "[performance][image_generation]") {
  const Spec s = generation("sdxl-base-1.0", {{"steps", 30}, {"concurrency", 4}}, "fp16");
  const DiffusionPipeline& d = *s.model.diffusion;
  const double per_image = d.image_flops(1024, 1024, 30);
  CHECK(per_image ==
        Approx(13298503680.0 + 97863106560.0 + 30 * 2 * 6761236398080.0 + 10470392594432.0));
  const Gpu& h100 = catalog().resolve("H100-SXM-80GB", "test");
  const Parallelism one;
  const StepTime pass = prefill_step_time(s, h100, one, efficiency(), 4.0 * 16384, 16384);
  CHECK(pass.bytes.si() ==
        Approx((2567463684.0 * 30 + 123060480.0 + 694659840.0 + 83653863.0) * 2));
  CHECK(pass.communication.si() == 0.0);
  const double rate = pass.compute.si() > 0 ? 4.0 * per_image / pass.compute.si() : 0;
  CHECK(rate == Approx(h100.rate(TensorPrecision::fp16)->si() * efficiency().family(h100).compute)
                    .epsilon(1e-9));
  // Memory: every component at 2 bytes, and the batch's activations.
  const MemoryEstimate m = estimate_memory(s, h100, one, constants());
  CHECK(m.per_gpu.weights.si() == Approx(3468837867.0 * 2));
  CHECK(m.kv_per_token.si() == 0.0);
  CHECK(m.batch == 4);
  // The VAE decode's widest resnet at 1024 x 1024 (256 -> 128 channels: 2 x 256 + 3 x 128 = 896
  // per pixel) is the peak: 4 x 1024^2 x 896 x 2 bytes = 7.52 GB.
  CHECK(d.activation_elements(1024, 1024) == 1024.0 * 1024.0 * 896.0);
  CHECK(m.per_gpu.activations.si() == Approx(4.0 * 1024 * 1024 * 896 * 2));
  const InferencePerformance r = estimate_inference(s, h100, one, m, efficiency(), constants());
  CHECK(r.prefill_only);
  CHECK(r.requests_per_s == Approx(4.0 / pass.total().si()));
  CHECK(r.bottleneck == "compute");
  CHECK_THAT(r.explanation,
             Catch::StartsWith("image generation is compute bound: a pass of 4 images (1024 x "
                               "1024, 30 steps) takes"));
}

TEST_CASE("image generation: the plan prices a thousand images, uncalibrated",
          "[plan][image_generation]") {
  const Spec s = load_spec(example());
  const PlanOptions o = rightsize::test::cli_plan_options("2026-11-21");
  const Plan p = make_plan(s, catalog(), constants(), efficiency(), o);
  REQUIRE_FALSE(p.candidates.empty());
  CHECK(p.requirements.flops_per_image.si() ==
        Approx(s.model.diffusion->image_flops(1024, 1024, 30)));
  for (const auto& c : p.candidates) {
    CAPTURE(c.gpu->name);
    CHECK(c.layout.tp == 1); // diffusers runs a pipeline on one GPU
    const auto& i = *c.inference;
    CHECK(std::isfinite(i.requests_per_s));
    CHECK(i.ttft.si() > 0.0);
    REQUIRE(c.cost.usd_per_thousand_images);
    CHECK(*c.cost.usd_per_thousand_images ==
          Approx(c.cost.per_hour.si() / (asked_images_per_s(p.spec, i) * 3600.0) * 1000.0));
    REQUIRE(c.calibration);
    CHECK_FALSE(c.calibration->measured);
    CHECK_THAT(c.calibration->text,
               Catch::Contains("/diffusers: no measured image generation runs; bands from the "));
  }
}
