// transformers' ResNet (ResNetModel, ResNetForImageClassification; docs/model.md "Convolutional
// encoders"), a CNN image encoder: no transformer stack, its convolutions unrolled at its image
// size.

#include "vision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace rightsize::hf {

namespace {

// The side a ResNet's images are resized and cropped to when config.json states no image_size:
// the 224 x 224 crop of microsoft/resnet-50's preprocessor_config.json (crop_pct 0.875 of a
// 256-pixel shortest edge) and of torchvision's ResNet weights.
constexpr long long k_resnet_image_size = 224;

// ResNetConfig's defaults (microsoft/resnet-50's shape), which complete a config.json as
// transformers does.
constexpr long long k_resnet_embedding = 64;
constexpr long long k_resnet_depths[] = {3, 4, 6, 3};
constexpr long long k_resnet_widths[] = {256, 512, 1024, 2048};

// A list of positive integers (depths, hidden_sizes), or ResNetConfig's default.
std::vector<long long> resnet_list(const FieldReader& top,
                                   ConfigFields& f,
                                   const char* key,
                                   const long long (&fallback)[4]) {
  if (!top.has(key)) {
    f.record(key,
             fmt::format("assumed: ResNetConfig's default {} = [{}, {}, {}, {}] (config.json "
                         "omits it)",
                         key,
                         fallback[0],
                         fallback[1],
                         fallback[2],
                         fallback[3]));
    return {std::begin(fallback), std::end(fallback)};
  }
  std::vector<long long> out;
  for (const FieldReader& e : top.array(key)) {
    out.push_back(e.as_integer(Range::positive(k_max_width)));
  }
  if (out.empty()) {
    top.member(key).fail_plain("must name at least one stage");
  }
  f.record(key, top.where(key));
  return out;
}

// A ResNet unrolled at its image size: each ResNetConvLayer (a convolution of padding kernel / 2
// and a BatchNorm2d), its output side, and the activations alive at each op, the input images
// among them (the caller holds pixel_values through the forward pass).
class ResNetBuilder {
public:
  ResNetBuilder(ConvNet& net, long long channels, long long side)
      : m_net(net), m_channels(channels), m_side(side),
        m_image(static_cast<double>(channels) * square(side)) {}

  // ResNetEmbeddings: a 7x7 stride-2 convolution, its BatchNorm and activation, a 3x3 stride-2
  // max pool of padding 1.
  void stem(long long out) {
    const long long side = conv(m_channels, out, 7, 2, m_side);
    const double map = static_cast<double>(out) * square(side);
    keep(map);
    keep(2.0 * map); // BatchNorm and activation: their input and output
    m_side = pooled(side, 3, 2);
    m_channels = out;
    keep(map + static_cast<double>(out) * square(m_side));
  }

  // One residual layer (ResNetBasicLayer, ResNetBottleNeckLayer) of `out` channels whose first
  // convolution (or, with downsample_in_bottleneck, its 1x1 reduction) strides by `stride`; the
  // shortcut (a 1x1 convolution and BatchNorm) where the channels or the side change.
  void layer(bool bottleneck, long long out, long long stride, bool in_bottleneck) {
    const long long in = m_channels;
    const double input = static_cast<double>(in) * square(m_side);
    struct Step {
      long long in, out, kernel, stride;
    };
    // A fixed array, not a vector: g++ 12 warns (-Wnonnull) on a vector assigned a braced list.
    std::array<Step, 3> steps{};
    std::size_t count = 2;
    if (bottleneck) {
      const long long reduced = out / 4;
      steps = {{{in, reduced, 1, in_bottleneck ? stride : 1},
                {reduced, reduced, 3, in_bottleneck ? 1 : stride},
                {reduced, out, 1, 1}}};
      count = 3;
    } else {
      steps = {{{in, out, 3, stride}, {out, out, 3, 1}, {}}};
    }
    long long side = m_side;
    double previous = 0; // the first convolution reads the layer's input itself
    for (std::size_t k = 0; k < count; ++k) {
      const Step& s = steps[k];
      side = conv(s.in, s.out, s.kernel, s.stride, side);
      const double made = static_cast<double>(s.out) * square(side);
      keep(input + previous + made);
      keep(input + 2.0 * made);
      previous = made;
    }
    double residual = input;
    if (in != out || stride != 1) {
      const long long shortcut_side = conv(in, out, 1, stride, m_side);
      residual = static_cast<double>(out) * square(shortcut_side);
      keep(input + previous + 2.0 * residual);
    }
    keep(residual + 2.0 * previous); // the in-place add, then the activation's output
    m_channels = out;
    m_side = side;
  }

  [[nodiscard]] long long side() const { return m_side; }

private:
  static double square(long long side) {
    return static_cast<double>(side) * static_cast<double>(side);
  }
  // nn.Conv2d's and nn.MaxPool2d's output side: floor((side + 2 x padding - kernel) / stride) + 1.
  static long long pooled(long long side, long long kernel, long long stride) {
    return (side + 2 * (kernel / 2) - kernel) / stride + 1;
  }
  long long conv(long long in, long long out, long long kernel, long long stride, long long side) {
    Convolution c{kernel, in, out, stride, pooled(side, kernel, stride)};
    m_net.convolutions.push_back(c);
    m_net.batch_norms += 1;
    m_net.batch_norm_channels += static_cast<double>(out);
    return c.out_side;
  }
  void keep(double elements) {
    m_net.peak_activation_elements = std::max(m_net.peak_activation_elements, m_image + elements);
  }

  ConvNet& m_net;
  long long m_channels;
  long long m_side;
  double m_image;
};

// transformers' ResNet (ResNetModel, ResNetForImageClassification; docs/model.md "Convolutional
// encoders"): the stem, then stages of residual layers, the first layer of each but the first
// striding by 2 (the first too with downsample_in_first_stage), an average pool and, for
// classification, a Linear (hidden_sizes[-1] -> labels, biased). No transformer stack: the
// model's layers are its residual layers, for the engine's per-layer cost. Every image is
// resized to config.json's image_size when it states one, else 224 x 224 (the image processor
// of microsoft/resnet-50 resizes and crops to 224; the config does not say).
void read_resnet_config(const FieldReader& top, ModelArch& m) {
  const std::string arch = image_architecture(top, "ResNetModel");
  check_image_architecture(top, m.family, arch, {"ResNetModel", "ResNetForImageClassification"});
  ConfigFields f(top, m);
  ImageEncoder e;
  e.kind = "resnet";
  e.channels = f.find({"num_channels"}, Range::positive(1000), "num_channels").value_or(3);
  e.image_size =
      f.find({"image_size"}, Range::positive(100000), "image_size").value_or(k_resnet_image_size);
  if (!top.has("image_size")) {
    f.record("image_size",
             fmt::format("assumed: {} x {} px, the crop of the ResNet image processors "
                         "(config.json states no image_size)",
                         k_resnet_image_size,
                         k_resnet_image_size));
  }
  ConvNet net;
  net.layer_type = top.has("layer_type") ? top.string("layer_type") : "bottleneck";
  if (net.layer_type != "basic" && net.layer_type != "bottleneck") {
    top.member("layer_type").fail("must be \"basic\" or \"bottleneck\"");
  }
  f.record("layer_type",
           top.has("layer_type")
               ? top.where("layer_type")
               : "assumed: ResNetConfig's default layer_type = bottleneck (config.json omits it)");
  net.embedding = f.find({"embedding_size"}, Range::positive(k_max_width), "embedding_size")
                      .value_or(k_resnet_embedding);
  if (!top.has("embedding_size")) {
    f.record("embedding_size",
             fmt::format("assumed: ResNetConfig's default embedding_size = {} (config.json omits "
                         "it)",
                         k_resnet_embedding));
  }
  const auto depths = resnet_list(top, f, "depths", k_resnet_depths);
  const auto widths = resnet_list(top, f, "hidden_sizes", k_resnet_widths);
  if (depths.size() != widths.size()) {
    top.member("depths").fail_plain(fmt::format(
        "must name as many stages as hidden_sizes ({}), got {}", widths.size(), depths.size()));
  }
  const bool bottleneck = net.layer_type == "bottleneck";
  const bool first_downsamples = f.flag("downsample_in_first_stage", false);
  const bool in_bottleneck = f.flag("downsample_in_bottleneck", false);
  if (e.image_size < 32) {
    top.member("image_size").fail("must be at least 32 (five halvings of the side)");
  }

  ResNetBuilder build(net, e.channels, e.image_size);
  build.stem(net.embedding);
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const long long stride = s > 0 || first_downsamples ? 2 : 1;
    for (long long i = 0; i < depths[s]; ++i) {
      build.layer(bottleneck, widths[s], i == 0 ? stride : 1, in_bottleneck);
    }
    net.stages.push_back({depths[s], widths[s], stride, build.side()});
  }
  const auto last = static_cast<double>(widths.back());
  if (arch == "ResNetForImageClassification") {
    const auto labels = static_cast<double>(read_num_labels(top, f));
    e.head = last * labels + labels;
    net.classifier_flops = 2.0 * last * labels;
  }

  m.encoder_only = true;
  m.layers = 0;
  for (const long long d : depths) {
    m.layers += d;
  }
  f.derived("layers", "the residual layers of all stages (sum of depths)");
  m.hidden = widths.back();
  m.gated_mlp = false;
  m.max_position = e.tokens();
  e.cnn = std::move(net);
  m.image = std::move(e);
}

} // namespace

void read_resnet(const ConfigInput& in, ModelArch& m) {
  read_resnet_config(in.top, m);
}

} // namespace rightsize::hf
