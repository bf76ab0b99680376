#include "datasets/sample_models.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

class NetworkWriter {
 public:
  explicit NetworkWriter(uint32_t seed) : engine_(seed) {}
  ModelBuilder& builder() { return builder_; }

  // Weights uniform in +-sqrt(3/fan_in) (unit variance through the layer), biases small.
  int Weights(const std::vector<int>& shape, int fan_in, const std::string& name) {
    size_t count = 1;
    for (int d : shape) count *= static_cast<size_t>(d);
    const float bound = std::sqrt(3.0f / static_cast<float>(fan_in));
    std::uniform_real_distribution<float> dist(-bound, bound);
    std::vector<float> values(count);
    for (float& v : values) v = dist(engine_);
    return builder_.AddConstTensor(kTfLiteFloat32, shape, values, name);
  }
  int Bias(int channels, const std::string& name) {
    std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
    std::vector<float> values(static_cast<size_t>(channels));
    for (float& v : values) v = dist(engine_);
    return builder_.AddConstTensor(kTfLiteFloat32, {channels}, values, name);
  }
  int Activation(const std::vector<int>& shape, const std::string& name) {
    return builder_.AddTensor(kTfLiteFloat32, shape, name);
  }

 private:
  std::mt19937 engine_;
  ModelBuilder builder_;
};

int OutputSize(int input, int stride) { return (input + stride - 1) / stride; }  // SAME padding

}  // namespace

std::vector<uint8_t> MakeMobileNetLike(const MobileNetLikeOptions& options) {
  NetworkWriter net(options.seed);
  ModelBuilder& b = net.builder();
  b.SetDescription("Touchstone sample MobileNet-like float model (seeded random weights)");
  auto channels = [&](int base) {
    return std::max(8, static_cast<int>(static_cast<float>(base) * options.width_multiplier));
  };

  int size = options.input_size;
  const int input = net.Activation({1, size, size, 3}, "input");
  int depth = channels(32);
  size = OutputSize(size, 2);
  int x = net.Activation({1, size, size, depth}, "conv0");
  b.AddOperator(kTfLiteBuiltinConv2d, {input, net.Weights({depth, 3, 3, 3}, 27, "conv0/w"), net.Bias(depth, "conv0/b")},
                {x}, fb::BuiltinOptions::Conv2DOptions,
                fb::CreateConv2DOptions(b.fbb(), fb::Padding::SAME, 2, 2, fb::ActivationFunctionType::RELU6).Union());

  // (output channels, stride) of MobileNet v1's 13 depthwise-separable blocks.
  const int blocks[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},  {512, 2}, {512, 1},
                             {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  for (int i = 0; i < 13; ++i) {
    const std::string name = "block" + std::to_string(i + 1);
    const int stride = blocks[i][1];
    size = OutputSize(size, stride);
    const int dw = net.Activation({1, size, size, depth}, name + "/dw");
    b.AddOperator(kTfLiteBuiltinDepthwiseConv2d,
                  {x, net.Weights({1, 3, 3, depth}, 9, name + "/dw/w"), net.Bias(depth, name + "/dw/b")}, {dw},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(b.fbb(), fb::Padding::SAME, stride, stride, 1,
                                                   fb::ActivationFunctionType::RELU6)
                      .Union());
    const int out_depth = channels(blocks[i][0]);
    const int pw = net.Activation({1, size, size, out_depth}, name + "/pw");
    b.AddOperator(
        kTfLiteBuiltinConv2d,
        {dw, net.Weights({out_depth, 1, 1, depth}, depth, name + "/pw/w"), net.Bias(out_depth, name + "/pw/b")}, {pw},
        fb::BuiltinOptions::Conv2DOptions,
        fb::CreateConv2DOptions(b.fbb(), fb::Padding::SAME, 1, 1, fb::ActivationFunctionType::RELU6).Union());
    x = pw;
    depth = out_depth;
  }

  const int pooled = net.Activation({1, 1, 1, depth}, "pool");
  b.AddOperator(kTfLiteBuiltinAveragePool2d, {x}, {pooled}, fb::BuiltinOptions::Pool2DOptions,
                fb::CreatePool2DOptions(b.fbb(), fb::Padding::VALID, 1, 1, size, size).Union());
  const int logits = net.Activation({1, options.num_classes}, "logits");
  b.AddOperator(
      kTfLiteBuiltinFullyConnected,
      {pooled, net.Weights({options.num_classes, depth}, depth, "fc/w"), net.Bias(options.num_classes, "fc/b")},
      {logits}, fb::BuiltinOptions::FullyConnectedOptions, fb::CreateFullyConnectedOptions(b.fbb()).Union());
  const int probabilities = net.Activation({1, options.num_classes}, "probabilities");
  b.AddOperator(kTfLiteBuiltinSoftmax, {logits}, {probabilities}, fb::BuiltinOptions::SoftmaxOptions,
                fb::CreateSoftmaxOptions(b.fbb(), 1.0f).Union());
  b.SetInputs({input});
  b.SetOutputs({probabilities});
  return b.Finish();
}

}  // namespace touchstone
