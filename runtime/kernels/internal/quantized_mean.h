// The output stage of an 8- or 16-bit quantized MEAN, as TensorFlow Lite 2.14.1's x86 builtin
// kernels compute it from the integer sum of the n reduced values. The reference and the optimized
// MEAN share it: they differ only in how they take the sums (integers: any order gives the same).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_QUANTIZED_MEAN_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_QUANTIZED_MEAN_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"

namespace touchstone {
namespace quantized_mean {

// output = saturate(MultiplyByQuantizedMultiplier(int32(sum - sum_offset), multiplier, shift)
//                   + output_offset)
struct MeanStage {
  int32_t multiplier = 0;
  int shift = 0;
  int64_t sum_offset = 0;
  int32_t output_offset = 0;
};

// TFLite's rule for an int8 / uint8 NHWC mean over height and width with keep_dims, the axes
// given as [1, 2] or [2, 1] (raw: as the axis tensor holds them, negative values not resolved).
inline bool UsesSpatialRule(bool is_int16, bool keep_dims, int rank, const std::vector<int64_t>& raw_axes) {
  return !is_int16 && keep_dims && rank == 4 && raw_axes.size() == 2 &&
         ((raw_axes[0] == 1 && raw_axes[1] == 2) || (raw_axes[0] == 2 && raw_axes[1] == 1));
}

// n > 0 values a sum.
// - The spatial rule: one fixed-point rescale by in_scale / (n * out_scale) of the raw sum, plus
//   the rounded zero-point bias out_zp - round(in_zp * in_scale / out_scale).
// - Otherwise (reference QuantizedMeanOrSum): (sum - n * in_zp) rescaled by in_scale / out_scale
//   with 1/n folded into the multiplier, plus out_zp.
inline MeanStage MeanStageFor(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int64_t n,
                              bool spatial_rule) {
  MeanStage stage;
  if (spatial_rule) {
    float bias = in_zp * in_scale / out_scale;
    bias = bias > 0 ? bias + 0.5f : bias - 0.5f;
    stage.output_offset = out_zp - static_cast<int32_t>(bias);
    const float real_scale = in_scale / (static_cast<float>(n) * out_scale);
    quantization_util::QuantizeMultiplier(static_cast<double>(real_scale), &stage.multiplier, &stage.shift);
    return stage;
  }
  int32_t multiplier;
  int shift;
  quantization_util::QuantizeMultiplier(static_cast<double>(in_scale) / static_cast<double>(out_scale), &multiplier,
                                        &shift);
  // 1/n folded into the multiplier: shifted left by floor(log2(n)) first to keep precision.
  int n_shift = 0;
  while ((int64_t{2} << n_shift) <= n) ++n_shift;
  n_shift = std::min(n_shift, 32);
  n_shift = std::min(n_shift, 31 + shift);
  stage.multiplier = static_cast<int32_t>((static_cast<int64_t>(multiplier) << n_shift) / n);
  stage.shift = shift - n_shift;
  stage.sum_offset = static_cast<int64_t>(in_zp) * n;
  stage.output_offset = out_zp;
  return stage;
}

template <typename T>
inline T ApplyMeanStage(const MeanStage& stage, int32_t sum) {
  const int32_t shifted = static_cast<int32_t>(sum - stage.sum_offset);
  return kernel_helpers::SaturateTo<T>(
      static_cast<int64_t>(quantization_util::MultiplyByQuantizedMultiplier(shifted, stage.multiplier, stage.shift)) +
      stage.output_offset);
}

}  // namespace quantized_mean
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_QUANTIZED_MEAN_H_
