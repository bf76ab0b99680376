// Models Touchstone makes itself, for demos and tests that must not depend on ../shared.
#ifndef TOUCHSTONE_DATASETS_SAMPLE_MODELS_H_
#define TOUCHSTONE_DATASETS_SAMPLE_MODELS_H_

#include <cstdint>
#include <vector>

namespace touchstone {

struct MobileNetLikeOptions {
  int input_size = 224;  // square input, 3 channels
  float width_multiplier = 0.25f;
  int num_classes = 1001;
  uint32_t seed = 1;  // weights are drawn from mt19937(seed)
};

// A float32 MobileNet v1-shaped network: a strided 3x3 convolution, 13 depthwise-separable blocks
// (ReLU6 fused), global average pooling, a fully connected classifier and softmax. Its weights are
// seeded random values scaled to keep activations in range, so it computes nothing meaningful but
// has the shape, op mix and cost of the real model.
std::vector<uint8_t> MakeMobileNetLike(const MobileNetLikeOptions& options);

}  // namespace touchstone

#endif  // TOUCHSTONE_DATASETS_SAMPLE_MODELS_H_
