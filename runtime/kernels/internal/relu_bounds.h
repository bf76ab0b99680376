// The clamp bounds of RELU, RELU6, RELU_N1_TO_1 and RELU_0_TO_1, shared by the reference kernels
// (which also rescale them for quantized tensors) and the optimized float kernel.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_RELU_BOUNDS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_RELU_BOUNDS_H_

#include <limits>

namespace touchstone {

enum class ReluKind { kRelu, kRelu6, kReluN1To1, kRelu0To1 };

constexpr float ReluLow(ReluKind kind) { return kind == ReluKind::kReluN1To1 ? -1.0f : 0.0f; }

constexpr float ReluHigh(ReluKind kind) {
  return kind == ReluKind::kRelu ? std::numeric_limits<float>::infinity() : kind == ReluKind::kRelu6 ? 6.0f : 1.0f;
}

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_RELU_BOUNDS_H_
