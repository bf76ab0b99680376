// Float LSTM arithmetic, step for step as TensorFlow Lite 2.14's lstm_eval.cc float path computes
// it (CalculateLstmGateFloat, UpdateLstmCellFloat, CalculateLstmOutputFloat, LstmStepFloat,
// EvalFloat), plus the basic kernel's cell (optimized_ops::LstmCell). Shared by every kernel set
// that runs LSTMs; the hybrid and integer paths get their own headers beside this one.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_FLOAT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_FLOAT_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "runtime/c/builtin_op_data.h"
#include "runtime/kernels/internal/lstm_shared.h"

namespace touchstone {
namespace lstm {

// One cell's float parameters. Optional ones are null when absent: the input gate's weights and
// bias in a CIFG LSTM, the peephole weights, the projection, the layer-norm coefficients.
struct FloatWeights {
  const float* input_to_input = nullptr;
  const float* input_to_forget = nullptr;
  const float* input_to_cell = nullptr;
  const float* input_to_output = nullptr;
  const float* recurrent_to_input = nullptr;
  const float* recurrent_to_forget = nullptr;
  const float* recurrent_to_cell = nullptr;
  const float* recurrent_to_output = nullptr;
  const float* cell_to_input = nullptr;
  const float* cell_to_forget = nullptr;
  const float* cell_to_output = nullptr;
  const float* input_gate_bias = nullptr;
  const float* forget_gate_bias = nullptr;
  const float* cell_gate_bias = nullptr;
  const float* output_gate_bias = nullptr;
  const float* projection_weights = nullptr;
  const float* projection_bias = nullptr;
  const float* input_layer_norm = nullptr;
  const float* forget_layer_norm = nullptr;
  const float* cell_layer_norm = nullptr;
  const float* output_layer_norm = nullptr;
};

struct FloatOptions {
  TfLiteFusedActivation activation = kTfLiteActTanh;  // of the cell gate and the cell output
  float cell_clip = 0.0f;                             // 0: no clipping
  float proj_clip = 0.0f;                             // 0: no clipping
};

// Work buffers of one step: the four gates hold n_batch * n_cell floats each (input_gate is unused
// with CIFG), accumulation n_batch * max(n_cell, n_output).
struct FloatScratch {
  float* input_gate = nullptr;
  float* forget_gate = nullptr;
  float* cell_gate = nullptr;
  float* output_gate = nullptr;
  float* accumulation = nullptr;
};

namespace float_internal {

inline bool IsZeroVector(const float* vector, int size) {
  for (int i = 0; i < size; ++i) {
    if (vector[i] != 0.0f) return false;
  }
  return true;
}

// Clamps to the finite float range, as TFLite's float GEMM output stage does (it maps +-inf to
// +-FLT_MAX and keeps NaN).
inline float ClampToFinite(float x) {
  return std::min(std::max(x, std::numeric_limits<float>::lowest()), std::numeric_limits<float>::max());
}

inline float Dot(const float* a, const float* b, int size) {
  float sum = 0.0f;
  for (int i = 0; i < size; ++i) sum += a[i] * b[i];
  return sum;
}

// output[b][r] = matrix[r] . vectors[b] + accumulator[b][r], as lstm_eval's
// MatrixBatchVectorMultiplyAccumulate gets it from a fully connected layer: with one batch the
// accumulator is the layer's bias, added before the output clamp; with several it is added after.
inline void MatrixBatchVectorMultiplyAdd(const float* matrix, int rows, int cols, const float* vectors, int n_batch,
                                         const float* accumulator, float* output) {
  for (int b = 0; b < n_batch; ++b) {
    const float* vector = vectors + b * cols;
    for (int r = 0; r < rows; ++r) {
      const float product = Dot(matrix + r * cols, vector, cols);
      const int i = b * rows + r;
      output[i] = n_batch == 1 ? ClampToFinite(product + accumulator[i]) : ClampToFinite(product) + accumulator[i];
    }
  }
}

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// tensor_utils::ApplyActivationToVector. kTfLiteActNone writes nothing: `output` keeps what it
// held, which TFLite's float LSTM then reads (see CalculateGate and CalculateOutput).
inline void ApplyActivation(const float* input, int size, TfLiteFusedActivation activation, float* output) {
  switch (activation) {
    case kTfLiteActNone:
      return;
    case kTfLiteActRelu:
      for (int i = 0; i < size; ++i) output[i] = std::max(0.0f, input[i]);
      return;
    case kTfLiteActReluN1To1:
      for (int i = 0; i < size; ++i) output[i] = std::max(-1.0f, std::min(input[i], 1.0f));
      return;
    case kTfLiteActRelu6:
      for (int i = 0; i < size; ++i) output[i] = std::max(0.0f, std::min(input[i], 6.0f));
      return;
    case kTfLiteActTanh:
      for (int i = 0; i < size; ++i) output[i] = std::tanh(input[i]);
      return;
    case kTfLiteActSignBit:
      for (int i = 0; i < size; ++i) output[i] = std::signbit(input[i]) ? 1.0f : 0.0f;
      return;
    case kTfLiteActSigmoid:
      for (int i = 0; i < size; ++i) output[i] = Sigmoid(input[i]);
      return;
  }
}

// In place, per batch: (x - mean) / sqrt(variance + 1e-8) (tensor_utils::MeanStddevNormalization).
inline void MeanStddevNormalization(float* vectors, int size, int n_batch) {
  for (int b = 0; b < n_batch; ++b) {
    float* v = vectors + b * size;
    float sum = 0.0f;
    for (int i = 0; i < size; ++i) sum += v[i];
    const float mean = sum / size;
    float sum_diff_sq = 0.0f;
    for (int i = 0; i < size; ++i) {
      const float diff = v[i] - mean;
      sum_diff_sq += diff * diff;
    }
    const float variance = sum_diff_sq / size;
    constexpr float kNormalizationConstant = 1e-8f;
    const float stddev_inv = 1.0f / std::sqrt(variance + kNormalizationConstant);
    for (int i = 0; i < size; ++i) v[i] = (v[i] - mean) * stddev_inv;
  }
}

inline void ClipInPlace(float* vector, int size, float clip) {
  for (int i = 0; i < size; ++i) vector[i] = std::max(std::min(clip, vector[i]), -clip);
}

// One gate: activation(W_input * input + W_recurrent * output_state + w_peephole .* cell_state +
// bias), or with layer norm activation(coefficients .* normalize(...) + bias).
// The sums alternate between `gate` and `accumulation` exactly as TFLite's buffers do, because
// kTfLiteActNone leaves `gate` as it was: holding the full sum when the input term was added (the
// last sum then lands in `gate`), but only the bias (zeros with layer norm) when an all-zero input
// skipped that term.
inline void CalculateGate(const float* input, const float* input_to_gate_weights, const float* output_state,
                          const float* recurrent_to_gate_weights, const float* cell_state,
                          const float* cell_to_gate_weights, const float* layer_norm_coefficients,
                          const float* gate_bias, int n_batch, int n_input, int n_output, int n_cell,
                          TfLiteFusedActivation activation, bool is_input_all_zeros, float* gate, float* accumulation) {
  const int size = n_batch * n_cell;
  if (layer_norm_coefficients != nullptr) {
    std::fill_n(gate, size, 0.0f);
  } else {
    for (int b = 0; b < n_batch; ++b) std::copy_n(gate_bias, n_cell, gate + b * n_cell);
  }
  float* sum_in = gate;
  float* sum_out = accumulation;
  if (!is_input_all_zeros) {
    MatrixBatchVectorMultiplyAdd(input_to_gate_weights, n_cell, n_input, input, n_batch, sum_in, sum_out);
    std::swap(sum_in, sum_out);
  }
  MatrixBatchVectorMultiplyAdd(recurrent_to_gate_weights, n_cell, n_output, output_state, n_batch, sum_in, sum_out);
  if (cell_to_gate_weights != nullptr) {
    for (int b = 0; b < n_batch; ++b) {
      for (int i = 0; i < n_cell; ++i) {
        sum_out[b * n_cell + i] += cell_to_gate_weights[i] * cell_state[b * n_cell + i];
      }
    }
  }
  if (layer_norm_coefficients != nullptr) {
    MeanStddevNormalization(sum_out, n_cell, n_batch);
    for (int b = 0; b < n_batch; ++b) {
      float* v = sum_out + b * n_cell;
      for (int i = 0; i < n_cell; ++i) v[i] = layer_norm_coefficients[i] * v[i];
      for (int i = 0; i < n_cell; ++i) v[i] += gate_bias[i];
    }
  }
  ApplyActivation(sum_out, size, activation, gate);
}

// cell_state = clip(forget_gate .* cell_state + input_gate .* cell_gate), with input_gate =
// 1 - forget_gate under CIFG (computed into forget_gate, as TFLite does).
inline void UpdateCell(int size, float* cell_state, const float* input_gate, float* forget_gate, const float* cell_gate,
                       bool use_cifg, float clip) {
  for (int i = 0; i < size; ++i) cell_state[i] = forget_gate[i] * cell_state[i];
  if (use_cifg) {
    for (int i = 0; i < size; ++i) forget_gate[i] = 1.0f - forget_gate[i];
    for (int i = 0; i < size; ++i) cell_state[i] += cell_gate[i] * forget_gate[i];
  } else {
    for (int i = 0; i < size; ++i) cell_state[i] += cell_gate[i] * input_gate[i];
  }
  if (clip > 0.0f) ClipInPlace(cell_state, size, clip);
}

// output_state = output_gate .* activation(cell_state), projected and clipped when there is a
// projection. `scratch` is the cell gate's buffer: with kTfLiteActNone the activation leaves it
// untouched and TFLite multiplies the output gate by the cell gate instead of the cell state.
inline void CalculateOutput(int n_batch, int n_cell, int n_output, const float* cell_state, const float* output_gate,
                            TfLiteFusedActivation activation, const float* projection_weights,
                            const float* projection_bias, float proj_clip, float* output_state, float* scratch,
                            float* projection_accumulator) {
  const int size = n_batch * n_cell;
  ApplyActivation(cell_state, size, activation, scratch);
  for (int i = 0; i < size; ++i) scratch[i] = output_gate[i] * scratch[i];
  if (projection_weights != nullptr) {
    if (projection_bias != nullptr) {
      for (int b = 0; b < n_batch; ++b) {
        std::copy_n(projection_bias, n_output, projection_accumulator + b * n_output);
      }
    } else {
      std::fill_n(projection_accumulator, n_batch * n_output, 0.0f);
    }
    MatrixBatchVectorMultiplyAdd(projection_weights, n_output, n_cell, scratch, n_batch, projection_accumulator,
                                 output_state);
    if (proj_clip > 0.0f) ClipInPlace(output_state, n_batch * n_output, proj_clip);
  } else {
    std::copy_n(scratch, n_batch * n_output, output_state);
  }
}

}  // namespace float_internal

// One time step for n_batch rows: updates output_state {n_batch, n_output} and cell_state
// {n_batch, n_cell} and copies the new output state to `output` (TFLite's LstmStepFloat without
// auxiliary input).
inline void FloatStep(const FloatWeights& w, const FloatOptions& options, int n_batch, int n_cell, int n_input,
                      int n_output, const float* input, float* output_state, float* cell_state,
                      const FloatScratch& scratch, float* output) {
  using namespace float_internal;  // NOLINT: the step reads as TFLite's
  const bool use_cifg = w.input_to_input == nullptr;
  const bool is_input_all_zeros = IsZeroVector(input, n_batch * n_input);
  if (!use_cifg) {
    CalculateGate(input, w.input_to_input, output_state, w.recurrent_to_input, cell_state, w.cell_to_input,
                  w.input_layer_norm, w.input_gate_bias, n_batch, n_input, n_output, n_cell, kTfLiteActSigmoid,
                  is_input_all_zeros, scratch.input_gate, scratch.accumulation);
  }
  CalculateGate(input, w.input_to_forget, output_state, w.recurrent_to_forget, cell_state, w.cell_to_forget,
                w.forget_layer_norm, w.forget_gate_bias, n_batch, n_input, n_output, n_cell, kTfLiteActSigmoid,
                is_input_all_zeros, scratch.forget_gate, scratch.accumulation);
  CalculateGate(input, w.input_to_cell, output_state, w.recurrent_to_cell, /*cell_state=*/nullptr,
                /*cell_to_gate_weights=*/nullptr, w.cell_layer_norm, w.cell_gate_bias, n_batch, n_input, n_output,
                n_cell, options.activation, is_input_all_zeros, scratch.cell_gate, scratch.accumulation);
  UpdateCell(n_batch * n_cell, cell_state, scratch.input_gate, scratch.forget_gate, scratch.cell_gate, use_cifg,
             options.cell_clip);
  CalculateGate(input, w.input_to_output, output_state, w.recurrent_to_output, cell_state, w.cell_to_output,
                w.output_layer_norm, w.output_gate_bias, n_batch, n_input, n_output, n_cell, kTfLiteActSigmoid,
                is_input_all_zeros, scratch.output_gate, scratch.accumulation);
  CalculateOutput(n_batch, n_cell, n_output, cell_state, scratch.output_gate, options.activation, w.projection_weights,
                  w.projection_bias, options.proj_clip, output_state, scratch.cell_gate, scratch.accumulation);
  std::copy_n(output_state, n_batch * n_output, output);
}

// A whole sequence (TFLite's lstm_eval::EvalFloat, forward), in ForEachSequenceStep's layouts.
inline void FloatSequence(const FloatWeights& w, const FloatOptions& options, int max_time, int n_batch, int n_cell,
                          int n_input, int n_output, bool time_major, const float* input, float* output_state,
                          float* cell_state, const FloatScratch& scratch, float* output) {
  // A batch-major row uses its own slice of the gate buffers; the accumulation buffer is shared.
  const auto step = [&](int n_rows, const float* step_input, float* step_output_state, float* step_cell_state,
                        int batch, float* step_output) {
    FloatScratch row_scratch = scratch;
    if (batch >= 0) {
      if (row_scratch.input_gate != nullptr) row_scratch.input_gate += batch * n_cell;
      row_scratch.forget_gate += batch * n_cell;
      row_scratch.cell_gate += batch * n_cell;
      row_scratch.output_gate += batch * n_cell;
    }
    FloatStep(w, options, n_rows, n_cell, n_input, n_output, step_input, step_output_state, step_cell_state,
              row_scratch, step_output);
  };
  ForEachSequenceStep(max_time, n_batch, n_cell, n_input, n_output, time_major, input, output_state, cell_state, output,
                      step);
}

// The basic kernel's cell (optimized_ops::LstmCell): gates = FC([input, prev_activation]) laid out
// as input gate, new input, forget gate, output gate, each `depth` wide; then
// state = sigmoid(i) * tanh(n) + sigmoid(f) * prev_state and activation = sigmoid(o) * tanh(state).
inline void FloatBasicCell(int n_batch, int input_depth, int depth, const float* input, const float* prev_activation,
                           const float* weights, const float* bias, const float* prev_state, float* state,
                           float* activation, float* concat, float* gates) {
  using namespace float_internal;  // NOLINT
  const int total_depth = input_depth + depth;
  for (int b = 0; b < n_batch; ++b) {
    std::copy_n(input + b * input_depth, input_depth, concat + b * total_depth);
    std::copy_n(prev_activation + b * depth, depth, concat + b * total_depth + input_depth);
  }
  for (int b = 0; b < n_batch; ++b) {
    for (int r = 0; r < 4 * depth; ++r) {
      gates[b * 4 * depth + r] =
          ClampToFinite(Dot(weights + r * total_depth, concat + b * total_depth, total_depth) + bias[r]);
    }
  }
  for (int b = 0; b < n_batch; ++b) {
    const float* g = gates + b * 4 * depth;
    for (int c = 0; c < depth; ++c) {
      const float input_gate = Sigmoid(g[c]);
      const float new_input = std::tanh(g[depth + c]);
      const float forget_gate = Sigmoid(g[2 * depth + c]);
      const float output_gate = Sigmoid(g[3 * depth + c]);
      const int i = b * depth + c;
      const float new_state = input_gate * new_input + forget_gate * prev_state[i];
      state[i] = new_state;
      activation[i] = output_gate * std::tanh(new_state);
    }
  }
}

}  // namespace lstm
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_FLOAT_H_
