// SOFTMAX of 8-bit inputs as TensorFlow Lite 2.14.1's x86 builtin kernel computes it
// (optimized_ops::Softmax with PopulateSoftmaxLookupTable): exp of each value's distance to its
// row's maximum from a 256-entry float table, summed in float in order, each output the table value
// times the inverse of the sum in output steps. The reference kernel runs Softmax8BitRow; the
// optimized one shares the table and the rounding.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SOFTMAX_8BIT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SOFTMAX_8BIT_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"

namespace touchstone {
namespace softmax_8bit {

// table[255 - d] = exp(-input_scale * beta * d) in float, d the distance to the row's maximum.
inline void PopulateSoftmaxLookupTable(float input_scale, float beta, float* table) {
  const float scale = -input_scale * beta;
  for (int32_t d = 0; d <= 255; ++d) table[255 - d] = std::exp(scale * static_cast<float>(d));
}

// A probability in output steps as stored: rounded half away from zero plus the zero point, except
// that x86 builds specialize uint8 to a truncation of value + 0.5 that ignores the zero point.
// Conversions and sums are x86's (TruncateToInt32LikeX86, wrapping), so that scales that make the
// probabilities infinite or NaN give TFLite's values rather than undefined behaviour.
template <typename Out>
inline int32_t QuantizeSoftmaxOutput(float probability_in_steps, int32_t zero_point) {
  if (std::is_same<Out, uint8_t>::value) {
    return quantization_util::TruncateToInt32LikeX86(probability_in_steps + 0.5f);
  }
  return quantization_util::WrappingAdd(quantization_util::TruncateToInt32LikeX86(std::round(probability_in_steps)),
                                        zero_point);
}

// One row of `depth` values (In: uint8 or int8; Out: In or int16).
template <typename In, typename Out>
void Softmax8BitRow(const float* exp_table, float output_scale, int32_t output_zero_point, const In* in, Out* out,
                    int depth) {
  int32_t max = std::numeric_limits<In>::min();
  for (int c = 0; c < depth; ++c) max = std::max<int32_t>(max, in[c]);
  // table[x] is the entry for x's distance to the maximum.
  const float* table = exp_table + 255 - max;
  float sum_exp = 0.f;
  for (int c = 0; c < depth; ++c) sum_exp += table[in[c]];
  const float inverse_sum_in_steps = 1.0f / (sum_exp * output_scale);
  for (int c = 0; c < depth; ++c) {
    out[c] = kernel_helpers::SaturateTo<Out>(
        QuantizeSoftmaxOutput<Out>(table[in[c]] * inverse_sum_in_steps, output_zero_point));
  }
}

}  // namespace softmax_8bit
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SOFTMAX_8BIT_H_
