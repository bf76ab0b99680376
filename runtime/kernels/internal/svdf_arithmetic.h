// SVDF arithmetic (a fully connected layer factored into a feature and a time filter), as
// TensorFlow Lite 2.14's reference/svdf.h computes it: EvalFloatSVDF, EvalHybridSVDF (float input,
// int8 weights) and EvalIntegerSVDF (int8 input and output, int16 state and time weights).
//
// The state holds, per batch row and filter, the last memory_size feature activations, oldest
// first. Each invocation shifts it left by one and writes the new activation in the last column.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SVDF_ARITHMETIC_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SVDF_ARITHMETIC_H_

#include <algorithm>
#include <cstdint>
#include <limits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/kernels/internal/lstm_float.h"
#include "runtime/kernels/internal/lstm_hybrid.h"
#include "runtime/kernels/internal/quantization_util.h"

namespace touchstone {
namespace svdf {

// Sizes of one node.
struct Shape {
  int batch_size = 0;
  int input_size = 0;
  int num_filters = 0;
  int num_units = 0;  // num_filters / rank
  int rank = 1;
  int memory_size = 0;
};

namespace internal {

// Drops the oldest activation: the whole state moves one element left (the last column's stale
// values are overwritten afterwards).
template <typename T>
inline void ShiftStateLeft(const Shape& s, T* state) {
  const int64_t size = static_cast<int64_t>(s.batch_size) * s.memory_size * s.num_filters;
  if (size > 1) std::copy(state + 1, state + size, state);
}

// state[i][memory_size - 1] = activations[i] for every (batch, filter) row i.
template <typename T>
inline void StoreNewestActivations(const Shape& s, const T* activations, T* state) {
  for (int i = 0; i < s.batch_size * s.num_filters; ++i) {
    state[i * s.memory_size + s.memory_size - 1] = activations[i];
  }
}

// The float tail shared by the float and hybrid kernels: scratch = weights_time . state per
// filter, output = sum over rank + bias, then the activation.
inline void ApplyTimeWeightsBiasAndActivation(const Shape& s, const float* weights_time, const float* bias,
                                              TfLiteFusedActivation activation, const float* state, float* scratch,
                                              float* output) {
  for (int b = 0; b < s.batch_size; ++b) {
    const float* state_batch = state + b * s.memory_size * s.num_filters;
    float* scratch_batch = scratch + b * s.num_filters;
    for (int f = 0; f < s.num_filters; ++f) {
      const float* w = weights_time + f * s.memory_size;
      const float* v = state_batch + f * s.memory_size;
      float dot = 0.0f;
      for (int m = 0; m < s.memory_size; ++m) dot += w[m] * v[m];
      scratch_batch[f] = dot;
    }
  }
  for (int o = 0; o < s.batch_size * s.num_units; ++o) {
    float sum = 0.0f;
    for (int r = 0; r < s.rank; ++r) sum += scratch[o * s.rank + r];
    output[o] = sum;
  }
  if (bias != nullptr) {
    for (int b = 0; b < s.batch_size; ++b) {
      for (int u = 0; u < s.num_units; ++u) output[b * s.num_units + u] += bias[u];
    }
  }
  lstm::float_internal::ApplyActivation(output, s.batch_size * s.num_units, activation, output);
}

}  // namespace internal

// scratch: batch_size * num_filters floats.
inline void EvalFloat(const Shape& s, TfLiteFusedActivation activation, const float* input,
                      const float* weights_feature, const float* weights_time, const float* bias, float* scratch,
                      float* state, float* output) {
  internal::ShiftStateLeft(s, state);
  // The feature filter: scratch = weights_feature . input (a fully connected layer without bias).
  for (int b = 0; b < s.batch_size; ++b) {
    const float* vector = input + b * s.input_size;
    for (int f = 0; f < s.num_filters; ++f) {
      const float* row = weights_feature + f * s.input_size;
      float dot = 0.0f;
      for (int c = 0; c < s.input_size; ++c) dot += row[c] * vector[c];
      scratch[b * s.num_filters + f] = 0.0f + dot;
    }
  }
  internal::StoreNewestActivations(s, scratch, state);
  internal::ApplyTimeWeightsBiasAndActivation(s, weights_time, bias, activation, state, scratch, output);
}

// Buffers of the hybrid kernel.
struct HybridScratch {
  float* scratch = nullptr;           // batch_size * num_filters
  float* scaling_factors = nullptr;   // batch_size
  int32_t* zero_points = nullptr;     // batch_size; used with asymmetric quantization
  int8_t* quantized_input = nullptr;  // batch_size * input_size
};

// The input is quantized per batch row; the time weights were dequantized once in Prepare
// (weights_time_float). row_sums: the feature weights' row sums (asymmetric quantization only).
inline void EvalHybrid(const Shape& s, TfLiteFusedActivation activation, bool asymmetric_quantize_inputs,
                       const float* input, const int8_t* weights_feature, float weights_feature_scale,
                       const int32_t* row_sums, const float* weights_time_float, const float* bias,
                       const HybridScratch& buffers, float* state, float* output) {
  namespace hybrid = lstm::hybrid_internal;
  internal::ShiftStateLeft(s, state);
  float* scratch = buffers.scratch;
  std::fill_n(scratch, s.batch_size * s.num_filters, 0.0f);
  if (!lstm::float_internal::IsZeroVector(input, s.batch_size * s.input_size)) {
    hybrid::BatchQuantize(input, s.batch_size, s.input_size, buffers.quantized_input, buffers.scaling_factors,
                          buffers.zero_points, asymmetric_quantize_inputs);
    for (int b = 0; b < s.batch_size; ++b) buffers.scaling_factors[b] *= weights_feature_scale;
    hybrid::MatMulAccumulate(weights_feature, s.num_filters, s.input_size, buffers.quantized_input,
                             /*matrix_scale=*/1.0f, buffers.scaling_factors, s.batch_size, scratch,
                             asymmetric_quantize_inputs ? buffers.zero_points : nullptr, row_sums,
                             buffers.scaling_factors);
  }
  internal::StoreNewestActivations(s, scratch, state);
  internal::ApplyTimeWeightsBiasAndActivation(s, weights_time_float, bias, activation, state, scratch, output);
}

// The integer kernel's requantization: input * weights_feature -> state (scale_1), and
// weights_time . state summed over rank + bias -> output (scale_2).
struct IntegerParams {
  int32_t scale_1_a = 0;
  int scale_1_b = 0;
  int32_t scale_2_a = 0;
  int scale_2_b = 0;
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
};

namespace internal {

// A feature filter's dot product (input zero point already taken off) requantized to the state's
// scale and clamped to int16: the value written in the state's newest column.
inline int16_t RequantizeFeature(int32_t dot, const IntegerParams& p) {
  dot = quantization_util::MultiplyByQuantizedMultiplier(dot, p.scale_1_a, p.scale_1_b);
  dot = std::min<int32_t>(std::max<int32_t>(dot, std::numeric_limits<int16_t>::min()),
                          std::numeric_limits<int16_t>::max());
  return static_cast<int16_t>(dot);
}

// After the newest column is written: the time filter, the sum over rank, the bias and the output
// requantization. TFLite's int32 sums here can overflow on a long memory; they wrap (computed in 64
// bits and truncated, which is the same).
inline void IntegerTimeAndOutput(const Shape& s, const IntegerParams& p, const int16_t* weights_time,
                                 const int32_t* bias, const int16_t* state, int32_t* scratch, int32_t* output_temp,
                                 int8_t* output) {
  namespace qu = quantization_util;
  for (int b = 0; b < s.batch_size; ++b) {
    const int16_t* state_batch = state + b * s.memory_size * s.num_filters;
    for (int f = 0; f < s.num_filters; ++f) {
      const int16_t* w = weights_time + f * s.memory_size;
      const int16_t* v = state_batch + f * s.memory_size;
      int64_t dot = 0;
      for (int m = 0; m < s.memory_size; ++m) dot += w[m] * v[m];
      scratch[b * s.num_filters + f] = static_cast<int32_t>(static_cast<uint32_t>(dot));
    }
  }

  // Sum over rank, bias, requantize.
  for (int o = 0; o < s.batch_size * s.num_units; ++o) {
    int32_t sum = 0;
    for (int r = 0; r < s.rank; ++r) sum = qu::WrappingAdd(sum, scratch[o * s.rank + r]);
    output_temp[o] = sum;
  }
  if (bias != nullptr) {
    for (int b = 0; b < s.batch_size; ++b) {
      for (int u = 0; u < s.num_units; ++u) {
        int32_t& value = output_temp[b * s.num_units + u];
        value = qu::WrappingAdd(value, bias[u]);
      }
    }
  }
  for (int i = 0; i < s.batch_size * s.num_units; ++i) {
    const int32_t scaled =
        qu::MultiplyByQuantizedMultiplier(output_temp[i], p.scale_2_a, p.scale_2_b) + p.output_zero_point;
    output[i] = static_cast<int8_t>(std::min<int32_t>(std::max<int32_t>(scaled, -128), 127));
  }
}

}  // namespace internal

// scratch: batch_size * num_filters; output_temp: batch_size * num_units. TFLite requires a ReLU
// activation for this kernel but applies none beyond the int8 clamp; neither does this.
inline void EvalInteger(const Shape& s, const IntegerParams& p, const int8_t* input, const int8_t* weights_feature,
                        const int16_t* weights_time, const int32_t* bias, int16_t* state, int32_t* scratch,
                        int32_t* output_temp, int8_t* output) {
  internal::ShiftStateLeft(s, state);

  // The feature filter, requantized to the (symmetric) state's scale, into the newest column.
  int16_t* newest = state + (s.memory_size - 1);
  for (int b = 0; b < s.batch_size; ++b) {
    const int8_t* vector = input + b * s.input_size;
    for (int f = 0; f < s.num_filters; ++f) {
      const int8_t* row = weights_feature + f * s.input_size;
      int32_t dot = 0;
      for (int c = 0; c < s.input_size; ++c) dot += row[c] * (vector[c] - p.input_zero_point);
      *newest = internal::RequantizeFeature(dot, p);
      newest += s.memory_size;
    }
  }
  internal::IntegerTimeAndOutput(s, p, weights_time, bias, state, scratch, output_temp, output);
}

}  // namespace svdf
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SVDF_ARITHMETIC_H_
