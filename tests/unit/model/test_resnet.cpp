// Issue 16, vision models: transformers' ResNet (ResNetModel, ResNetForImageClassification) read
// as a CNN image encoder: exact parameter counts against torchvision's documented totals, FLOPs
// per image derived convolution by convolution, the activations a batch keeps, and the refusal
// of the CNNs rightsize does not read (docs/model.md, "Convolutional encoders (ResNet)"; the
// configs and their sources in tests/data/configs/vision/README.md).

#include "provenance.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::provenance_of;

namespace {

nlohmann::json config_of(const std::string& name) {
  std::ifstream in(config_path(name));
  return nlohmann::json::parse(in);
}

ModelArch resnet(const std::string& name,
                 std::vector<long long> depths = {},
                 const char* architecture = nullptr) {
  auto c = config_of(name);
  if (!depths.empty()) {
    c["depths"] = depths;
  }
  if (architecture != nullptr) {
    c["architectures"] = nlohmann::json::array({architecture});
  }
  return parse_hf_config(c, "resnet.json");
}

} // namespace

// torchvision's documented num_params of resnet18/34/50/101/152 (IMAGENET1K_V1), the same tensors
// as transformers' ResNetForImageClassification with 1000 labels.
TEST_CASE("resnet: parameter counts match the published totals exactly", "[model][resnet]") {
  CHECK(resnet("vision/resnet-18").params_total == 11'689'512);
  CHECK(resnet("vision/resnet-18", {3, 4, 6, 3}).params_total == 21'797'672); // ResNet-34
  CHECK(resnet("vision/resnet-50").params_total == 25'557'032);
  CHECK(resnet("vision/resnet-50", {3, 4, 23, 3}).params_total == 44'549'160); // ResNet-101
  CHECK(resnet("vision/resnet-50", {3, 8, 36, 3}).params_total == 60'192'808); // ResNet-152
}

// ResNet-50, conv by conv (kernel^2 x in x out, no biases): stem 7^2 x 3 x 64 = 9,408; stage 1
// (3 bottlenecks of 256, reduced 64): first 64x64 + 9 x 64x64 + 64x256 + shortcut 64x256 =
// 69,632, then 2 x (256x64 + 36,864 + 64x256) = 143,360: 212,992; stage 2 (4 of 512, reduced
// 128): 1,212,416; stage 3 (6 of 1024): 7,077,888; stage 4 (3 of 2048): 14,942,208. Convolutions
// 23,454,912. BatchNorms: one per convolution (53), weight and bias per channel, 26,560 channels:
// 53,120. Classifier 2048 x 1000 + 1000 = 2,049,000. Total 25,557,032.
TEST_CASE("resnet: the parts of ResNet-50", "[model][resnet]") {
  const ModelArch m = resnet("vision/resnet-50");
  REQUIRE(m.image);
  REQUIRE(m.image->cnn);
  const ConvNet& c = *m.image->cnn;
  CHECK(m.family == "resnet");
  CHECK(m.image->kind == "resnet");
  CHECK(m.image->image_size == 224);
  CHECK(m.image->tokens() == 1);
  CHECK(m.encoder_only);
  CHECK(m.layers == 16); // residual layers: 3 + 4 + 6 + 3
  CHECK(m.hidden == 2048);
  CHECK(c.layer_type == "bottleneck");
  CHECK(c.convolutions.size() == 53); // stem, 16 x 3, 4 shortcuts
  CHECK(c.batch_norms == 53);
  CHECK(c.batch_norm_channels == 26'560);
  CHECK(m.params.convolution == 23'454'912);
  CHECK(m.params.norms == 53'120);
  CHECK(m.params.pooler == 2'049'000);
  CHECK(m.params_active == m.params_total);
  REQUIRE(c.stages.size() == 4);
  const std::vector<long long> sides{
      c.stages[0].side, c.stages[1].side, c.stages[2].side, c.stages[3].side};
  CHECK(sides == std::vector<long long>{56, 28, 14, 7});
  CHECK(provenance_of(m, "image_size") ==
        "assumed: 224 x 224 px, the crop of the ResNet image processors (config.json states no "
        "image_size)");
  CHECK(provenance_of(m, "num_labels") == "resnet.json:/id2label (its entries)");

  // ResNetModel: no classifier (its pooler is an average, without parameters).
  CHECK(resnet("vision/resnet-50", {}, "ResNetModel").params_total == 25'557'032 - 2'049'000);
  // Weight bytes: the checkpoint's fp32 parameters and BatchNorm buffers, running_mean and
  // running_var (53,120) and 53 int64 num_batches_tracked: (25,557,032 + 53,120) x 4 + 53 x 8.
  CHECK(weight_bytes(m, m.quantization).total().si() == 102'441'032.0);
  CHECK(weight_bytes(m, quantization_for(DType::bf16, DType::bf16)).total().si() ==
        (25'557'032.0 + 53'120.0) * 2 + 53 * 8);
}

// FLOPs per image at 224 x 224, 2 x k^2 x in x out x output pixels per convolution and 2 x in x
// out for the classifier. ResNet-50: stem 2 x 9,408 x 112^2 = 236,027,904; stage 1 at 56^2:
// 2 x 212,992 x 3,136 = 1,335,885,824; stage 2 (its first reduction at 56^2, the rest at 28^2):
// 2,055,208,960; stage 3: 2,928,672,768; stage 4: 1,618,477,056; classifier 2 x 2048 x 1000 =
// 4,096,000. Total 8,178,368,512 FLOP = 4.0892 GMACs, where torchvision documents 4.09 GFLOPS
// (multiply-adds) and timm's benchmark 4.11 GMACs (it also counts BatchNorm, pooling and adds).
TEST_CASE("resnet: FLOPs per image, convolution by convolution", "[model][resnet]") {
  const ModelArch r50 = resnet("vision/resnet-50");
  CHECK(image_flops(r50) == 8'178'368'512.0);
  CHECK(image_flops(r50) / 2 == Approx(4.09e9).epsilon(0.001));
  // ResNet-18: stem 236,027,904; four stages of 924,844,032, 822,083,584 x 3; classifier
  // 1,024,000: 1.8141 GMACs (torchvision 1.81, timm 1.82).
  CHECK(image_flops(resnet("vision/resnet-18")) == 3'628'146'688.0);
  // ResNet-101 and -152: 7.8014 and 11.5136 GMACs (torchvision 7.80 and 11.51).
  CHECK(image_flops(resnet("vision/resnet-50", {3, 4, 23, 3})) == 15'602'810'880.0);
  CHECK(image_flops(resnet("vision/resnet-50", {3, 8, 36, 3})) == 23'027'253'248.0);
  // ResNet v1 (downsample_in_bottleneck: the stride on the first 1x1): the same weights, the
  // 1x1 reductions of stages 2 to 4 at the halved side; 3.858 GMACs.
  auto v1 = config_of("vision/resnet-50");
  v1["downsample_in_bottleneck"] = true;
  const ModelArch r50_v1 = parse_hf_config(v1, "v1.json");
  CHECK(r50_v1.params_total == 25'557'032);
  CHECK(image_flops(r50_v1) == 7'715'946'496.0);
  // At 288 x 288 (config.json's image_size): 9 x 9 final maps; (288/224)^2 = 1.65 x the work.
  auto big = config_of("vision/resnet-50");
  big["image_size"] = 288;
  const ModelArch r50_288 = parse_hf_config(big, "big.json");
  CHECK(r50_288.image->cnn->stages.back().side == 9);
  CHECK(provenance_of(r50_288, "image_size") == "big.json:/image_size");
  CHECK(image_flops(r50_288) / 2 == Approx(6.76e9).epsilon(0.001));
}

// The most activation elements alive at once, per image, in transformers' forward under
// torch.no_grad, with the 3 x 224^2 = 150,528 input held by the caller. ResNet-50: stage 1's
// first layer, whose shortcut's BatchNorm runs with the layer's input (64 x 56^2 = 200,704), the
// main branch's output (256 x 56^2 = 802,816), the shortcut convolution's output and the
// BatchNorm's (802,816 each): 150,528 + 200,704 + 3 x 802,816 = 2,759,680. ResNet-18: the stem's
// BatchNorm, 2 x 64 x 112^2 = 1,605,632, plus the input: 1,756,160.
TEST_CASE("resnet: activations an image keeps at its peak", "[model][resnet]") {
  CHECK(resnet("vision/resnet-50").image->cnn->peak_activation_elements == 2'759'680);
  CHECK(resnet("vision/resnet-18").image->cnn->peak_activation_elements == 1'756'160);
}

TEST_CASE("resnet: refusals name the field", "[model][resnet]") {
  CHECK_THROWS_WITH(resnet("vision/resnet-50", {}, "ResNetBackbone"),
                    "resnet.json:/architectures: architecture not supported: resnet "
                    "(ResNetBackbone): rightsize reads resnet as ResNetModel, "
                    "ResNetForImageClassification; supported: rightsize model --list");
  auto c = config_of("vision/resnet-50");
  c["layer_type"] = "preactivation";
  CHECK_THROWS_WITH(parse_hf_config(c, "r.json"),
                    "r.json:/layer_type: must be \"basic\" or \"bottleneck\", got "
                    "\"preactivation\"");
  c = config_of("vision/resnet-50");
  c["depths"] = {3, 4, 6};
  CHECK_THROWS_WITH(parse_hf_config(c, "r.json"),
                    "r.json:/depths: must name as many stages as hidden_sizes (4), got 3");
  // Other CNNs stay refused, by what they are.
  for (const char* type : {"regnet", "efficientnet", "convnext", "mobilenet_v2"}) {
    CAPTURE(type);
    CHECK_THROWS_WITH(
        parse_hf_config(
            nlohmann::json{{"model_type", type}, {"architectures", {"SomeForImageClassification"}}},
            "cnn.json"),
        Catch::StartsWith(std::string("cnn.json:/model_type: architecture not supported: ") + type +
                          " (SomeForImageClassification): ") &&
            Catch::Contains("a vision model of a family rightsize does not read (it reads the "
                            "vit, clip and siglip image encoders and the resnet CNN)"));
  }
}

// A bare config.json of a ResNet plans image embeddings; its unit is the image.
TEST_CASE("resnet: planned as image embeddings", "[spec][resnet]") {
  const Spec s = load_spec(config_path("vision/resnet-50"));
  CHECK(s.embeds_images());
  CHECK(s.workload.inference.input_tokens == 1);
  CHECK(s.workload.inference.engine == Engine::transformers);
  CHECK_THAT(s.defaults,
             Catch::VectorContains(std::string(
                 "one input per image: every image resized to 224 x 224 pixels for the resnet "
                 "CNN (its processor's crop; config.json states no image_size)")));
  // One GPU: transformers runs a CNN whole.
  CHECK(s.model.tp_indivisible(2) ==
        "a convolutional image encoder (transformers runs one on one GPU)");
  CHECK(s.model.tp_indivisible(1).empty());
}
