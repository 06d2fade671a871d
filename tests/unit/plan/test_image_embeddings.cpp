// Issue 16, image encoders planned: an embedding workload on ViT, CLIP or SigLIP speaks images
// (docs/spec.md "Image embeddings", docs/model.md "Image embedding workloads"): tokens per image
// from the config, images per second, $ per thousand images, the whole checkpoint in memory and
// the vision tower alone in each pass. Hand-checked numbers in the comments.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;
using rightsize::test::uncertainty;

namespace {

// The images per second a plan prices: the spec's target when the fleet serves more (the load
// asked, plan/unit_values.hpp share_at_target), else what it serves.
double asked_images_per_s(const rightsize::Spec& spec, const rightsize::InferencePerformance& i) {
  const auto& target = spec.workload.inference.targets.requests_per_s;
  return target ? std::min(i.requests_per_s, *target) : i.requests_per_s;
}

Spec images(const char* model, nlohmann::json workload, nlohmann::json precision = "bf16") {
  workload["type"] = "embedding";
  return parse_spec(
      {{"model", config_path(model)}, {"precision", precision}, {"workload", workload}},
      "images.json");
}

} // namespace

// SigLIP base/16 at 224 (SiglipModel, 203,155,970 parameters, tests/unit/model/test_vision.cpp):
// 14 x 14 = 196 tokens per image, no class token. Its text tower: 32000 x 768 tokens
// (24,576,000), 64 x 768 positions (49,152), 12 blocks of 7,087,872 (85,054,464), a final
// LayerNorm 1,536 and the head 768 x 768 + 768 (590,592): 110,271,744. What an image runs
// through: 203,155,970 - 110,271,744 = 92,884,226 (the vision tower with its pooling head,
// 92,884,224, and the two logit scalars).
TEST_CASE("images: a SigLIP embedding workload speaks images", "[spec][images]") {
  const Spec s = images("vision/siglip-base-patch16-224", {{"targets", {{"images_per_s", 200}}}});
  REQUIRE(s.embeds_images());
  CHECK(s.workload.inference.input_tokens == 196);
  CHECK(s.workload.inference.output_tokens == 0);
  CHECK(s.workload.inference.engine == Engine::transformers);
  CHECK(s.workload.inference.targets.requests_per_s == 200.0);
  CHECK(s.model.params.text_tower == 110'271'744.0);
  CHECK(s.model.params_active == 92'884'226.0);
  CHECK_THAT(s.defaults,
             Catch::VectorContains(std::string(
                 "196 tokens per image: every image resized to 224 x 224 pixels, 14 x 14 "
                 "patches of 16 pixels (config.json image_size, patch_size)")));
  CHECK_THAT(s.defaults,
             Catch::VectorContains(std::string(
                 "dual encoder: the whole checkpoint is loaded (203M parameters, the text "
                 "tower's 110M among them); images run through the vision tower only (92.9M)")));
  // ViT-B/16 prepends a class token: 197.
  const Spec vit = images("vision/vit-base-patch16-224", nlohmann::json::object());
  CHECK(vit.workload.inference.input_tokens == 197);
  // vLLM serves CLIPModel and SiglipModel image embeddings.
  const Spec vllm = images("vision/siglip-base-patch16-224", {{"engine", "vllm"}});
  CHECK(vllm.workload.inference.engine == Engine::vllm);
  // A bare config.json of an image encoder plans image embeddings with defaults.
  const Spec bare = load_spec(config_path("vision/vit-base-patch16-224"));
  CHECK(bare.embeds_images());
  CHECK(bare.workload.inference.input_tokens == 197);
  CHECK_FALSE(bare.workload.inference.concurrency);
}

TEST_CASE("images: what does not apply to an image encoder is refused by name", "[spec][images]") {
  const std::string tail = ": does not apply to an image encoder: siglip resizes every image to "
                           "224 x 224 pixels and reads it as 196 tokens (config.json image_size "
                           "and patch_size); targets are images_per_s and latency_ms";
  CHECK_THROWS_WITH(images("vision/siglip-base-patch16-224", {{"input_tokens", 512}}),
                    "images.json:/workload/input_tokens" + tail);
  CHECK_THROWS_WITH(images("vision/siglip-base-patch16-224", {{"output_tokens", 1}}),
                    "images.json:/workload/output_tokens" + tail);
  CHECK_THROWS_WITH(images("vision/siglip-base-patch16-224", {{"images_per_request", 2}}),
                    "images.json:/workload/images_per_request" + tail);
  CHECK_THROWS_WITH(
      images("vision/siglip-base-patch16-224", {{"targets", {{"sequences_per_s", 10}}}}),
      "images.json:/workload/targets/sequences_per_s" + tail);
  CHECK_THROWS_WITH(images("vision/siglip-base-patch16-224", {{"targets", {{"ttft_ms", 10}}}}),
                    "images.json:/workload/targets/ttft_ms" + tail);
  CHECK_THROWS_WITH(
      images("vision/vit-base-patch16-224", {{"engine", "vllm"}}),
      "images.json:/workload/engine: vLLM embeds images with CLIPModel and SiglipModel (text and "
      "vision towers), not with a vit vision-only or classifier checkpoint: use transformers, "
      "got \"vllm\"");
  CHECK_THROWS_WITH(images("vision/clip-vit-base-patch32", {{"engine", "sglang"}}),
                    "images.json:/workload/engine: rightsize plans image encoders on "
                    "transformers, and CLIP and SigLIP dual encoders also on vllm, got \"sglang\"");
  // Generation and training: an image encoder is planned as an embedding workload only.
  CHECK_THROWS_WITH(
      parse_spec({{"model", config_path("vision/clip-vit-base-patch32")},
                  {"workload", {{"type", "inference"}}}},
                 "images.json"),
      "images.json:/workload/type: clip is an image encoder (image embeddings, classification): "
      "it does not generate and rightsize does not plan its training; plan it as an embedding "
      "workload (\"type\": \"embedding\"), one forward pass per image");
}

// ViT-B/16 (ViTForImageClassification, 86,567,656 parameters), 197 tokens per image:
// 2 x (86,567,656 - 197 x 768 positions - 768 class token) x 197 + 4 x 197^2 x 768 x 12
// = 34,047,743,248 + 1,430,654,976 = 35,478,398,224 FLOP per image. A pass of 32 images on an
// L4 (121 TFLOP/s bf16 dense) is 32 x that at the Ada compute efficiency.
TEST_CASE("images: a pass of images is image_flops per image", "[performance][images]") {
  const Spec s = images("vision/vit-base-patch16-224", {{"concurrency", 32}});
  CHECK(image_flops(s.model) == 35'478'398'224.0);
  const Gpu& l4 = catalog().resolve("L4", "test");
  const Parallelism one;
  const StepTime pass = prefill_step_time(s, l4, one, efficiency(), 32.0 * 197, 197);
  CHECK(pass.compute.si() ==
        Approx(32.0 * 35'478'398'224.0 / (121e12 * efficiency().family(l4).compute)));
  const MemoryEstimate m = estimate_memory(s, l4, one, constants());
  CHECK(m.kv_per_token.si() == 0.0);
  CHECK(m.batch == 32);
  const InferencePerformance r = estimate_inference(s, l4, one, m, efficiency(), constants());
  CHECK(r.prefill_only);
  CHECK(r.requests_per_s == Approx(32.0 / pass.total().si())); // images per second
  CHECK(r.prefill_tokens_per_s == Approx(r.requests_per_s * 197));
  CHECK(r.bottleneck == "compute");
  CHECK_THAT(r.explanation,
             Catch::StartsWith("embedding is compute bound: a pass of 32 images "
                               "of 197 tokens takes"));
  // 1.135 TFLOP per pass at 121 x 0.56 = 67.8 TFLOP/s: 16.8 ms, plus 12 layers x 116 us:
  // some 1,760 images/s per L4.
  CHECK(r.requests_per_s > 1000.0);
  CHECK(r.requests_per_s < 2000.0);
}

// A dual encoder loads its whole checkpoint but each pass reads only what images run through:
// SigLIP base in bf16 holds 203,155,970 x 2 = 406,311,940 bytes and a pass reads
// (203,155,970 - 110,271,744) x 2 = 185,768,452. Its FLOPs count the vision tower only:
// 2 x (92,884,226 - 196 x 768) x 196 + 4 x 196^2 x 768 x 12 = 37,767,777,040.
TEST_CASE("images: a dual encoder's memory is the whole checkpoint, its pass the vision tower",
          "[performance][images]") {
  const Spec s = images("vision/siglip-base-patch16-224", {{"concurrency", 8}});
  CHECK(weight_bytes(s.model, s.weights).total().si() == Approx(406'311'940.0));
  CHECK(weight_bytes(s.model, s.weights).text_tower.si() == Approx(220'543'488.0));
  const Gpu& l4 = catalog().resolve("L4", "test");
  const Parallelism one;
  const MemoryEstimate m = estimate_memory(s, l4, one, constants());
  CHECK(m.per_gpu.weights.si() == Approx(406'311'940.0));
  const StepTime pass = prefill_step_time(s, l4, one, efficiency(), 8.0 * 196, 196);
  CHECK(pass.bytes.si() == Approx(185'768'452.0));
  CHECK(image_flops(s.model) == 37'767'777'040.0);
}

// The plan speaks images: images/s against targets.images_per_s, $ per thousand images = $ per
// million tokens x tokens per image / 1000, nothing absurd.
TEST_CASE("images: the plan prices a thousand images", "[plan][images]") {
  const Spec s = load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/siglip-image-embeddings.json");
  REQUIRE(s.embeds_images());
  CHECK(s.workload.inference.input_tokens == 729);
  PlanOptions o;
  o.today = "2026-11-21";
  const Plan p = make_plan(s, catalog(), constants(), efficiency(), o);
  REQUIRE_FALSE(p.candidates.empty());
  CHECK(p.requirements.flops_per_image.si() == image_flops(s.model));
  CHECK_THAT(p.notes,
             Catch::VectorContains(std::string(
                 "dual encoder: memory holds the whole siglip checkpoint (878M parameters, the "
                 "text tower's 450M among them); an image runs through the vision tower only "
                 "(428M), which the FLOPs per image count")));
  for (const auto& c : p.candidates) {
    const auto& i = *c.inference;
    CHECK(std::isfinite(i.requests_per_s));
    CHECK(i.requests_per_s >= 500.0); // the target, at the point estimate
    CHECK(i.ttft.si() > 0.0);
    CHECK(i.ttft.si() <= 1.0);
    REQUIRE(c.cost.usd_per_thousand_images);
    REQUIRE(c.cost.usd_per_million_tokens);
    CHECK(*c.cost.usd_per_thousand_images > 0.0);
    CHECK(*c.cost.usd_per_thousand_images ==
          Approx(*c.cost.usd_per_million_tokens * 729.0 / 1000.0));
    // $/hour over the images per hour asked (the target, when the fleet serves more), the same
    // figure from the other side.
    CHECK(*c.cost.usd_per_thousand_images ==
          Approx(c.cost.per_hour.si() / (asked_images_per_s(p.spec, i) * 3600.0) * 1000.0));
  }
}

// A ResNet (a CNN, tests/unit/model/test_resnet.cpp) is planned as image embeddings too: one
// input per image, image_flops per image (ResNet-50 at 224: 8,178,368,512 FLOP), activations of
// the whole batch at the CNN's peak (2,759,680 elements per image, bf16: 5,519,360 bytes), and
// the plan in images per second and $ per thousand images, flagged as uncalibrated: the
// efficiencies are fitted on transformer GEMMs, not on cuDNN convolutions.
TEST_CASE("images: a ResNet is planned in images per second", "[plan][images][resnet]") {
  const Spec s = images("vision/resnet-50", {{"concurrency", 64}});
  REQUIRE(s.embeds_images());
  CHECK(s.workload.inference.input_tokens == 1);
  const Gpu& l4 = catalog().resolve("L4", "test");
  const Parallelism one;
  const MemoryEstimate m = estimate_memory(s, l4, one, constants());
  CHECK(m.kv_per_token.si() == 0.0);
  CHECK(m.batch == 64);
  CHECK(m.per_gpu.weights.si() == Approx((25'557'032.0 + 53'120.0) * 2 + 53 * 8));
  CHECK(m.per_gpu.activations.si() == Approx(64.0 * 2'759'680 * 2));
  const StepTime pass = prefill_step_time(s, l4, one, efficiency(), 64.0, 1.0);
  CHECK(pass.compute.si() ==
        Approx(64.0 * 8'178'368'512.0 / (121e12 * efficiency().family(l4).compute)));
  const InferencePerformance r = estimate_inference(s, l4, one, m, efficiency(), constants());
  CHECK(r.requests_per_s == Approx(64.0 / pass.total().si()));
  CHECK_THAT(r.explanation,
             Catch::StartsWith("embedding is compute bound: a pass of 64 images (224 x 224 "
                               "pixels, a CNN) takes"));

  const Spec example =
      load_spec(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/resnet-50-image-classification.json");
  PlanOptions o;
  o.today = "2026-11-21";
  o.uncertainty = &uncertainty(); // bands, and what each candidate's efficiencies rest on
  const Plan p = make_plan(example, catalog(), constants(), efficiency(), o);
  REQUIRE_FALSE(p.candidates.empty());
  CHECK(p.requirements.flops_per_image.si() == 8'178'368'512.0);
  for (const auto& c : p.candidates) {
    CAPTURE(c.gpu->name);
    const auto& i = *c.inference;
    CHECK(c.layout.gpus() == 1); // one GPU per replica
    CHECK(i.requests_per_s >= 2000.0);
    CHECK(i.ttft.si() <= 0.2);
    REQUIRE(c.cost.usd_per_thousand_images);
    CHECK(*c.cost.usd_per_thousand_images ==
          Approx(c.cost.per_hour.si() / (asked_images_per_s(p.spec, i) * 3600.0) * 1000.0));
    REQUIRE(c.calibration);
    CHECK_FALSE(c.calibration->measured);
    CHECK_THAT(c.calibration->text,
               Catch::Contains("no measured CNN (convolution) image embedding runs"));
  }
}

// transformers quantizes linear layers only: a ResNet in fp8 or int4 would keep its convolutions
// in 16 bits (48.8 MiB of weights either way) and run them at 16-bit rates. Refused at
// /precision rather than planned as if its convolutions ran at fp8 rates.
TEST_CASE("images: a CNN is planned in 16 or 32 bits only", "[spec][images][resnet]") {
  const std::string fp8 = "images.json:/precision: resnet is a CNN, planned in bf16, fp16 or "
                          "fp32, got fp8 (quantization replaces linear layers only: its "
                          "convolutions would stay 16-bit)";
  CHECK_THROWS_WITH(images("vision/resnet-50", {{"concurrency", 8}}, "fp8"), fp8);
  CHECK_THROWS_WITH(
      images("vision/resnet-50", {{"concurrency", 8}}, {{"weights", "bf16"}, {"allow", {"int4"}}}),
      Catch::Contains("got int4"));
  CHECK_THROWS_WITH(images("vision/resnet-50", {{"concurrency", 8}}, {{"activations", "fp8"}}),
                    Catch::Contains("got fp8"));
  CHECK(images("vision/resnet-50", {{"concurrency", 8}}, "fp16").precision.weights == DType::fp16);
}
