// Hybrid LSTM arithmetic (float input, states and output; int8 weights), step for step as
// TensorFlow Lite 2.14's lstm_eval.cc computes it (CalculateLstmGateHybrid,
// CalculateLstmOutputHybrid, LstmStepHybrid, EvalHybrid) with the portable tensor_utils kernels its
// x86-64 build runs: each step quantizes the input and the output state per batch row
// (symmetrically, or asymmetrically with asymmetric_quantize_inputs), multiplies in int32 and
// scales the sums back to float. The cell update and the activations are the float LSTM's.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_HYBRID_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_HYBRID_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/kernels/internal/lstm_float.h"
#include "runtime/kernels/internal/lstm_integer.h"
#include "runtime/kernels/internal/quantization_util.h"

namespace touchstone {
namespace lstm {

// One gate's hybrid parameters; null where absent. Weights are int8 with one float scale each.
struct HybridGateWeights {
  const int8_t* input_weights = nullptr;  // {n_cell, n_input}
  float input_scale = 1.0f;
  const int8_t* recurrent_weights = nullptr;  // {n_cell, n_output}
  float recurrent_scale = 1.0f;
  const int8_t* cell_weights = nullptr;  // {n_cell}, peephole
  float cell_scale = 1.0f;
  const float* layer_norm = nullptr;  // {n_cell}
  const float* bias = nullptr;        // {n_cell}
  // Row sums of the weights, used with asymmetric input quantization.
  const int32_t* input_row_sums = nullptr;
  const int32_t* recurrent_row_sums = nullptr;
};

struct HybridWeights {
  HybridGateWeights gates[kNumGates];  // gates[kInputGate].input_weights is null with CIFG
  const int8_t* projection = nullptr;  // {n_output, n_cell}
  float projection_scale = 1.0f;
  const float* projection_bias = nullptr;  // {n_output}
  const int32_t* projection_row_sums = nullptr;
};

struct HybridOptions {
  FloatOptions float_options;
  bool asymmetric_quantize_inputs = false;
};

// Work buffers of one step.
struct HybridScratch {
  float* gates[kNumGates] = {};              // n_batch * n_cell each; the input gate's unused with CIFG
  int8_t* quantized_input = nullptr;         // n_batch * n_input
  int8_t* quantized_output_state = nullptr;  // n_batch * n_output
  int8_t* quantized_hidden = nullptr;        // n_batch * n_cell
  float* input_scaling_factors = nullptr;    // n_batch each
  float* output_state_scaling_factors = nullptr;
  float* product_scaling_factors = nullptr;
  int32_t* input_zero_points = nullptr;
  int32_t* output_state_zero_points = nullptr;
  float* recovered_cell_weights = nullptr;  // n_cell
};

namespace hybrid_internal {

namespace qu = quantization_util;

// tensor_utils::BatchQuantizeFloats with the min-max scan of TFLite's LSTM and SVDF kernels.
inline void BatchQuantize(const float* values, int n_batch, int n_data, int8_t* quantized, float* scaling_factors,
                          int32_t* zero_points, bool asymmetric) {
  qu::BatchQuantizeFloats(values, n_batch, n_data, quantized, scaling_factors, zero_points, asymmetric,
                          qu::MinMaxScan::kMinMaxElement);
}

// result[b][r] += (matrix[r] . vectors[b] - row_sums[r] * zero_points[b]) * scale[b] with
// scale[b] = vector_scaling_factors[b] * matrix_scale (tensor_utils' hybrid
// MatrixBatchVectorMultiplyAccumulate). Without zero points (symmetric inputs) the row-sum term is
// absent; with them the correction is done in float and truncated back, as TFLite does.
inline void MatMulAccumulate(const int8_t* matrix, int m_rows, int m_cols, const int8_t* vectors, float matrix_scale,
                             const float* vector_scaling_factors, int n_batch, float* result,
                             const int32_t* zero_points, const int32_t* row_sums, float* scaling_factors_scratch) {
  for (int b = 0; b < n_batch; ++b) {
    scaling_factors_scratch[b] = vector_scaling_factors[b] * matrix_scale;
  }
  for (int b = 0; b < n_batch; ++b, vectors += m_cols) {
    const float scale = scaling_factors_scratch[b];
    const int8_t* row = matrix;
    for (int r = 0; r < m_rows; ++r, row += m_cols) {
      int32_t dot = 0;
      for (int c = 0; c < m_cols; ++c) dot += row[c] * vectors[c];
      if (zero_points != nullptr) {
        const float batch_offset = static_cast<float>(zero_points[b]);
        const float corrected = static_cast<float>(dot) - static_cast<float>(row_sums[r]) * batch_offset;
        dot = qu::TruncateToInt32LikeX86(static_cast<double>(corrected));
      }
      *result += static_cast<float>(dot) * scale;
      ++result;
    }
  }
}

// The quantized input of one matrix product: values, scaling factors and (asymmetric) zero points.
struct QuantizedVectors {
  const int8_t* values;
  const float* scaling_factors;
  const int32_t* zero_points;  // null for symmetric quantization
};

// One gate, in place: activation(W_input * input + W_recurrent * output_state + w .* cell + bias),
// or with layer norm activation(coefficients .* normalize(...) + bias). A product is skipped when
// its (float) vector is all zeros.
inline void CalculateGate(const QuantizedVectors& input, const QuantizedVectors& output_state, const float* cell_state,
                          const HybridGateWeights& w, int n_batch, int n_input, int n_output, int n_cell,
                          TfLiteFusedActivation activation, bool is_input_all_zeros, bool is_output_state_all_zeros,
                          const HybridScratch& scratch, float* gate) {
  using float_internal::ApplyActivation;
  const int size = n_batch * n_cell;
  if (w.layer_norm != nullptr) {
    std::fill_n(gate, size, 0.0f);
  } else {
    for (int b = 0; b < n_batch; ++b) std::copy_n(w.bias, n_cell, gate + b * n_cell);
  }
  if (!is_input_all_zeros) {
    MatMulAccumulate(w.input_weights, n_cell, n_input, input.values, w.input_scale, input.scaling_factors, n_batch,
                     gate, input.zero_points, w.input_row_sums, scratch.product_scaling_factors);
  }
  if (!is_output_state_all_zeros) {
    MatMulAccumulate(w.recurrent_weights, n_cell, n_output, output_state.values, w.recurrent_scale,
                     output_state.scaling_factors, n_batch, gate, output_state.zero_points, w.recurrent_row_sums,
                     scratch.product_scaling_factors);
  }
  if (w.cell_weights != nullptr) {
    float* recovered = scratch.recovered_cell_weights;
    for (int i = 0; i < n_cell; ++i) recovered[i] = w.cell_scale * w.cell_weights[i];
    for (int b = 0; b < n_batch; ++b) {
      for (int i = 0; i < n_cell; ++i) gate[b * n_cell + i] += recovered[i] * cell_state[b * n_cell + i];
    }
  }
  if (w.layer_norm != nullptr) {
    float_internal::MeanStddevNormalization(gate, n_cell, n_batch);
    for (int b = 0; b < n_batch; ++b) {
      float* row = gate + b * n_cell;
      for (int i = 0; i < n_cell; ++i) row[i] = w.layer_norm[i] * row[i];
      for (int i = 0; i < n_cell; ++i) row[i] += w.bias[i];
    }
  }
  ApplyActivation(gate, size, activation, gate);
}

}  // namespace hybrid_internal

// One time step for n_batch rows (TFLite's LstmStepHybrid without auxiliary input): updates
// output_state and cell_state and copies the new output state to `output`.
inline void HybridStep(const HybridWeights& w, const HybridOptions& options, int n_batch, int n_cell, int n_input,
                       int n_output, const float* input, float* output_state, float* cell_state,
                       const HybridScratch& scratch, float* output) {
  using namespace hybrid_internal;  // NOLINT: the step reads as TFLite's
  const FloatOptions& o = options.float_options;
  const bool asymmetric = options.asymmetric_quantize_inputs;
  const bool use_cifg = w.gates[kInputGate].input_weights == nullptr;
  const bool is_input_all_zeros = float_internal::IsZeroVector(input, n_batch * n_input);
  const bool is_output_state_all_zeros = float_internal::IsZeroVector(output_state, n_batch * n_output);
  if (!is_input_all_zeros) {
    BatchQuantize(input, n_batch, n_input, scratch.quantized_input, scratch.input_scaling_factors,
                  scratch.input_zero_points, asymmetric);
  }
  if (!is_output_state_all_zeros) {
    BatchQuantize(output_state, n_batch, n_output, scratch.quantized_output_state, scratch.output_state_scaling_factors,
                  scratch.output_state_zero_points, asymmetric);
  }
  const QuantizedVectors quantized_input = {scratch.quantized_input, scratch.input_scaling_factors,
                                            asymmetric ? scratch.input_zero_points : nullptr};
  const QuantizedVectors quantized_output_state = {scratch.quantized_output_state, scratch.output_state_scaling_factors,
                                                   asymmetric ? scratch.output_state_zero_points : nullptr};

  for (int g = use_cifg ? kForgetGate : kInputGate; g <= kCellGate; ++g) {
    CalculateGate(quantized_input, quantized_output_state, g == kCellGate ? nullptr : cell_state, w.gates[g], n_batch,
                  n_input, n_output, n_cell, g == kCellGate ? o.activation : kTfLiteActSigmoid, is_input_all_zeros,
                  is_output_state_all_zeros, scratch, scratch.gates[g]);
  }
  float_internal::UpdateCell(n_batch * n_cell, cell_state, scratch.gates[kInputGate], scratch.gates[kForgetGate],
                             scratch.gates[kCellGate], use_cifg, o.cell_clip);
  CalculateGate(quantized_input, quantized_output_state, cell_state, w.gates[kOutputGate], n_batch, n_input, n_output,
                n_cell, kTfLiteActSigmoid, is_input_all_zeros, is_output_state_all_zeros, scratch,
                scratch.gates[kOutputGate]);

  // output_gate .* activation(cell), into the cell gate's buffer (which kTfLiteActNone leaves as
  // it is, as in TFLite); then the projection, quantized like the gates' inputs.
  float* hidden = scratch.gates[kCellGate];
  float_internal::ApplyActivation(cell_state, n_batch * n_cell, o.activation, hidden);
  for (int i = 0; i < n_batch * n_cell; ++i) hidden[i] = scratch.gates[kOutputGate][i] * hidden[i];
  if (w.projection != nullptr) {
    if (w.projection_bias != nullptr) {
      for (int b = 0; b < n_batch; ++b) {
        std::copy_n(w.projection_bias, n_output, output_state + b * n_output);
      }
    } else {
      std::fill_n(output_state, n_batch * n_output, 0.0f);
    }
    if (!float_internal::IsZeroVector(hidden, n_batch * n_cell)) {
      // TFLite reuses the input's scaling factor and zero point buffers here.
      BatchQuantize(hidden, n_batch, n_cell, scratch.quantized_hidden, scratch.input_scaling_factors,
                    scratch.input_zero_points, asymmetric);
      MatMulAccumulate(w.projection, n_output, n_cell, scratch.quantized_hidden, w.projection_scale,
                       scratch.input_scaling_factors, n_batch, output_state,
                       asymmetric ? scratch.input_zero_points : nullptr, w.projection_row_sums,
                       scratch.input_scaling_factors);
    }
    if (o.proj_clip > 0.0f) float_internal::ClipInPlace(output_state, n_batch * n_output, o.proj_clip);
  } else {
    std::copy_n(hidden, n_batch * n_output, output_state);
  }
  std::copy_n(output_state, n_batch * n_output, output);
}

// A whole sequence (TFLite's EvalHybrid, forward), in ForEachSequenceStep's layouts.
inline void HybridSequence(const HybridWeights& w, const HybridOptions& options, int max_time, int n_batch, int n_cell,
                           int n_input, int n_output, bool time_major, const float* input, float* output_state,
                           float* cell_state, const HybridScratch& scratch, float* output) {
  // A batch-major row uses its own slice of the gate buffers, as TFLite offsets them.
  const auto step = [&](int n_rows, const float* step_input, float* step_output_state, float* step_cell_state,
                        int batch, float* step_output) {
    HybridScratch row_scratch = scratch;
    if (batch >= 0) {
      for (float*& gate : row_scratch.gates) {
        if (gate != nullptr) gate += batch * n_cell;
      }
    }
    HybridStep(w, options, n_rows, n_cell, n_input, n_output, step_input, step_output_state, step_cell_state,
               row_scratch, step_output);
  };
  ForEachSequenceStep(max_time, n_batch, n_cell, n_input, n_output, time_major, input, output_state, cell_state, output,
                      step);
}

}  // namespace lstm
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_HYBRID_H_
