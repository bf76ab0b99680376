// Integer LSTM arithmetic ("8x8_16": int8 input, output and weights, int16 cell state and gates),
// step for step as TensorFlow Lite 2.14's lstm_eval.cc computes it (CalculateLstmGateInteger8x8_16,
// UpdateLstmCellInteger, CalculateLstmOutputInteger8x8_16, LstmStepInteger8x8_16,
// EvalInteger8x8_16) with the portable tensor_utils kernels its x86-64 build runs. The gates are
// int16 in Q3.12 (or, with layer normalization, in the scale of the op's intermediate tensors) and
// go through gemmlowp's fixed-point sigmoid and tanh.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_INTEGER_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_INTEGER_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/kernels/internal/lstm_shared.h"
#include "runtime/kernels/internal/quantization_util.h"

namespace touchstone {
namespace lstm {

// Gate positions in the arrays below, in the order TFLite computes them.
enum Gate { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3, kNumGates = 4 };

// One gate's parameters as TFLite's Prepare derives them (IntegerLstmParameter). A multiplier is
// a Q0.31 significand `_a` with a power-of-two exponent `_b`.
struct IntegerGateParams {
  int32_t input_scale_a = 0;  // input * input weights -> gate
  int input_scale_b = 0;
  int32_t recurrent_scale_a = 0;  // output state * recurrent weights -> gate
  int recurrent_scale_b = 0;
  int32_t cell_scale_a = 0;  // cell state * peephole weights -> gate
  int cell_scale_b = 0;
  int32_t layer_norm_scale_a = 0;
  int layer_norm_scale_b = 0;
  int32_t variance_guard = 0;  // stands in for a zero variance in the layer norm
  // The input weights' row sums times -input_zero_point, plus the gate bias when there is no layer
  // normalization; and the recurrent weights' row sums times -output_state_zero_point.
  std::vector<int32_t> input_effective_bias;
  std::vector<int32_t> recurrent_effective_bias;
};

struct IntegerParams {
  IntegerGateParams gates[kNumGates];  // the input gate's is unused with CIFG
  int32_t projection_scale_a = 0;
  int projection_scale_b = 0;
  std::vector<int32_t> projection_effective_bias;  // bias + row sums * hidden_zero_point
  int32_t hidden_scale_a = 0;                      // output gate * tanh(cell) -> hidden (int8)
  int hidden_scale_b = 0;
  int32_t hidden_zero_point = 0;    // the hidden intermediate's (see HiddenState)
  int16_t quantized_cell_clip = 0;  // 0: no clipping
  int8_t quantized_proj_clip = 0;   // 0: no clipping
  int cell_scale_log2 = 0;          // the cell state's scale is 2^cell_scale_log2
  int32_t output_state_zero_point = 0;
};

// One gate's tensors; null where absent (peephole weights, layer norm coefficients).
struct IntegerGateWeights {
  const int8_t* input_weights = nullptr;      // {n_cell, n_input}
  const int8_t* recurrent_weights = nullptr;  // {n_cell, n_output}
  const int16_t* cell_weights = nullptr;      // {n_cell}
  const int16_t* layer_norm = nullptr;        // {n_cell}
  const int32_t* bias = nullptr;              // {n_cell}; only read by the layer norm
};

struct IntegerWeights {
  IntegerGateWeights gates[kNumGates];  // gates[kInputGate].input_weights is null with CIFG
  const int8_t* projection = nullptr;   // {n_output, n_cell}
};

// Work buffers of one step, n_batch * n_cell each.
struct IntegerScratch {
  int16_t* gates[kNumGates] = {};  // gates[kInputGate] also holds tanh(cell) for the output
  int8_t* hidden = nullptr;
};

namespace integer_internal {

namespace qu = quantization_util;

// output[b][r] = clamp(output[b][r] + output_zp + rescale(bias[r] + weights[r] . input[b])), T
// being int16 for the gates and int8 for the projection.
template <typename T>
inline void MatMulAccumulate(const int8_t* input, const int32_t* bias, const int8_t* weights, int32_t multiplier,
                             int shift, int n_batch, int n_input, int n_output, int32_t output_zp, T* output) {
  for (int b = 0; b < n_batch; ++b) {
    for (int r = 0; r < n_output; ++r) {
      const int8_t* row = weights + r * n_input;
      const int8_t* vector = input + b * n_input;
      int64_t dot = 0;
      for (int c = 0; c < n_input; ++c) dot += row[c] * vector[c];
      // TFLite sums in int32 from the bias on; an overflow wraps.
      int32_t acc = qu::WrappingAdd(bias[r], static_cast<int32_t>(static_cast<uint32_t>(dot)));
      acc = qu::MultiplyByQuantizedMultiplier(acc, multiplier, shift);
      acc += output_zp;
      acc += output[b * n_output + r];
      acc = std::min<int32_t>(std::max<int32_t>(acc, std::numeric_limits<T>::min()), std::numeric_limits<T>::max());
      output[b * n_output + r] = static_cast<T>(acc);
    }
  }
}

// The peephole term, gate += rescale(weights .* cell_state). TFLite passes n_output as the vector
// size here (not n_cell) and walks both batch vectors with that stride; so does this.
inline void PeepholeAccumulate(const int16_t* weights, int v_size, const int16_t* cell_state, int n_batch,
                               int32_t multiplier, int shift, int16_t* gate) {
  for (int b = 0; b < n_batch; ++b) {
    for (int v = 0; v < v_size; ++v) {
      int32_t product = weights[v] * *cell_state++;
      product = qu::MultiplyByQuantizedMultiplier(product, multiplier, shift);
      const int32_t sum = product + *gate;
      *gate++ = static_cast<int16_t>(std::max<int32_t>(std::min<int32_t>(32767, sum), -32768));
    }
  }
}

// Integer layer normalization of each batch row (tensor_utils::ApplyLayerNorm), in place.
inline void LayerNorm(int16_t* values, const int16_t* weights, const int32_t* bias, int32_t scale_a, int scale_b,
                      int32_t variance_limit, int n_batch, int n_input) {
  if (n_input == 0) return;  // nothing to normalize (and no division by zero)
  constexpr int kTwoToPower20 = 1 << 20;
  for (int b = 0; b < n_batch; ++b) {
    int16_t* row = values + b * n_input;
    int64_t sum = 0;
    int64_t sum_sq = 0;
    for (int j = 0; j < n_input; ++j) {
      const int32_t value = row[j];
      sum += value;
      sum_sq += value * value;
    }
    const int32_t mean = static_cast<int32_t>(sum * 1024 / n_input);
    // TFLite's own overflow workaround, exact only for power-of-two n_input.
    const int32_t temp = kTwoToPower20 / n_input;
    const int64_t variance = sum_sq * temp - static_cast<int64_t>(mean) * mean;
    int32_t variance2 = static_cast<int32_t>(variance / kTwoToPower20);
    if (variance2 < 1) variance2 = variance_limit;
    int32_t stddev_inverse_a;
    int stddev_inverse_b;
    qu::GetInvSqrtQuantizedMultiplierExp(variance2, /*reverse_shift=*/-1, &stddev_inverse_a, &stddev_inverse_b);
    for (int j = 0; j < n_input; ++j) {
      const int32_t shifted = 1024 * row[j] - mean;
      const int32_t rescaled = qu::MultiplyByQuantizedMultiplier(shifted, stddev_inverse_a, stddev_inverse_b);
      // rescaled * weight + bias is an int32 expression in TFLite: it wraps before widening.
      const int64_t weighted =
          qu::WrappingAdd(static_cast<int32_t>(static_cast<uint32_t>(rescaled) *
                                               static_cast<uint32_t>(static_cast<int32_t>(weights[j]))),
                          bias[j]);
      const int32_t unscaled = static_cast<int32_t>((weighted > 0 ? weighted + 512 : weighted - 512) / 1024);
      int32_t out = qu::MultiplyByQuantizedMultiplier(unscaled, scale_a, scale_b + 12);
      out = std::min<int32_t>(std::max<int32_t>(out, -32768), 32767);
      row[j] = static_cast<int16_t>(out);
    }
  }
}

// Q3.12 -> Q0.15 sigmoid.
inline void Sigmoid(const int16_t* input, int size, int16_t* output) {
  using F3 = qu::fixed_point::FixedPoint<int16_t, 3>;
  for (int i = 0; i < size; ++i) output[i] = qu::fixed_point::Logistic(F3::FromRaw(input[i])).raw;
}

template <int IntegerBits>
inline void TanhImpl(const int16_t* input, int size, int16_t* output) {
  using FX = qu::fixed_point::FixedPoint<int16_t, IntegerBits>;
  for (int i = 0; i < size; ++i) output[i] = qu::fixed_point::Tanh(FX::FromRaw(input[i])).raw;
}

// Q(integer_bits).(15 - integer_bits) -> Q0.15 tanh; integer_bits in [0, 6] (checked in Prepare:
// TFLite leaves the output untouched outside that range).
inline void Tanh(int integer_bits, const int16_t* input, int size, int16_t* output) {
  switch (integer_bits) {
    case 0:
      return TanhImpl<0>(input, size, output);
    case 1:
      return TanhImpl<1>(input, size, output);
    case 2:
      return TanhImpl<2>(input, size, output);
    case 3:
      return TanhImpl<3>(input, size, output);
    case 4:
      return TanhImpl<4>(input, size, output);
    case 5:
      return TanhImpl<5>(input, size, output);
    case 6:
      return TanhImpl<6>(input, size, output);
    default:
      return;
  }
}

// output = round(a * b / 2^shift), truncated to int16 as TFLite does.
inline void MulShift(const int16_t* a, const int16_t* b, int size, int shift, int16_t* output) {
  for (int i = 0; i < size; ++i) {
    const int32_t product = static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
    output[i] = static_cast<int16_t>(qu::RoundingDivideByPOT(product, shift));
  }
}

// The hidden state, clamp(rescale(output_gate * tanh(cell)) +- zero_point) as int8, for n_batch
// rows of n_cell, as TFLite 2.14.1's CwiseMul computes it on x86 and Arm (the NEON kernel, which
// x86 builds run through NEON_2_SSE): it adds the zero point in each row's blocks of 8 and
// subtracts it in the row's last n_cell % 8 values (the portable loop's older sign).
constexpr int kHiddenBlock = 8;

inline int32_t RescaleToInt8(int16_t a, int16_t b, int32_t multiplier, int shift, int32_t offset) {
  int32_t value = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  value = qu::MultiplyByQuantizedMultiplier(value, multiplier, shift) + offset;
  return std::min<int32_t>(std::max<int32_t>(value, -128), 127);
}

inline void HiddenState(const int16_t* output_gate, const int16_t* cell_tanh, int n_batch, int n_cell,
                        int32_t multiplier, int shift, int32_t zero_point, int8_t* hidden) {
  const int blocked = n_cell - n_cell % kHiddenBlock;
  for (int b = 0; b < n_batch; ++b) {
    const int row = b * n_cell;
    for (int i = row; i < row + blocked; ++i) {
      hidden[i] = static_cast<int8_t>(RescaleToInt8(output_gate[i], cell_tanh[i], multiplier, shift, zero_point));
    }
    for (int i = row + blocked; i < row + n_cell; ++i) {
      hidden[i] = static_cast<int8_t>(RescaleToInt8(output_gate[i], cell_tanh[i], multiplier, shift, -zero_point));
    }
  }
}

inline void AddSaturating(const int16_t* a, const int16_t* b, int size, int16_t* output) {
  for (int i = 0; i < size; ++i) {
    const int32_t sum = static_cast<int32_t>(a[i]) + b[i];
    output[i] = static_cast<int16_t>(std::min<int32_t>(std::max<int32_t>(sum, -32768), 32767));
  }
}

template <typename T>
inline void Clip(T* values, int size, T clip) {
  for (int i = 0; i < size; ++i) {
    values[i] = std::max(std::min(clip, values[i]), static_cast<T>(-clip));
  }
}

// One gate: activation(layer_norm(W_input * input + W_recurrent * output_state + w .* cell)).
// Unlike the float LSTM, the bias is folded into the effective biases or the layer norm.
inline void CalculateGate(const int8_t* input, const int8_t* output_state, const int16_t* cell_state,
                          const IntegerGateWeights& w, const IntegerGateParams& p, int n_batch, int n_input,
                          int n_output, int n_cell, bool is_cell_gate, int16_t* gate) {
  const int size = n_batch * n_cell;
  std::fill_n(gate, size, 0);
  MatMulAccumulate(input, p.input_effective_bias.data(), w.input_weights, p.input_scale_a, p.input_scale_b, n_batch,
                   n_input, n_cell, 0, gate);
  MatMulAccumulate(output_state, p.recurrent_effective_bias.data(), w.recurrent_weights, p.recurrent_scale_a,
                   p.recurrent_scale_b, n_batch, n_output, n_cell, 0, gate);
  if (w.cell_weights != nullptr) {
    PeepholeAccumulate(w.cell_weights, n_output, cell_state, n_batch, p.cell_scale_a, p.cell_scale_b, gate);
  }
  if (w.layer_norm != nullptr) {
    LayerNorm(gate, w.layer_norm, w.bias, p.layer_norm_scale_a, p.layer_norm_scale_b, p.variance_guard, n_batch,
              n_cell);
  }
  if (is_cell_gate) {
    Tanh(3, gate, size, gate);
  } else {
    Sigmoid(gate, size, gate);
  }
}

}  // namespace integer_internal

// One time step for n_batch rows: updates output_state {n_batch, n_output} and cell_state
// {n_batch, n_cell} and copies the new output state to `output` (TFLite's LstmStepInteger8x8_16).
inline void IntegerStep(const IntegerWeights& w, const IntegerParams& p, int n_batch, int n_cell, int n_input,
                        int n_output, const int8_t* input, int8_t* output_state, int16_t* cell_state,
                        const IntegerScratch& scratch, int8_t* output) {
  using namespace integer_internal;  // NOLINT: the step reads as TFLite's
  const bool use_cifg = w.gates[kInputGate].input_weights == nullptr;
  const int size = n_batch * n_cell;
  for (int g = use_cifg ? kForgetGate : kInputGate; g <= kCellGate; ++g) {
    CalculateGate(input, output_state, cell_state, w.gates[g], p.gates[g], n_batch, n_input, n_output, n_cell,
                  g == kCellGate, scratch.gates[g]);
  }

  // cell = clip(forget .* cell + input .* cell_gate), input = 1 - forget with CIFG. The forget
  // gate's buffer holds the second product.
  int16_t* forget_gate = scratch.gates[kForgetGate];
  const int16_t* cell_gate = scratch.gates[kCellGate];
  MulShift(forget_gate, cell_state, size, 15, cell_state);
  if (use_cifg) {
    for (int i = 0; i < size; ++i) forget_gate[i] = static_cast<int16_t>(32767 - forget_gate[i]);
    MulShift(forget_gate, cell_gate, size, 30 + p.cell_scale_log2, forget_gate);
  } else {
    MulShift(scratch.gates[kInputGate], cell_gate, size, 30 + p.cell_scale_log2, forget_gate);
  }
  AddSaturating(cell_state, forget_gate, size, cell_state);
  if (p.quantized_cell_clip > 0) Clip<int16_t>(cell_state, size, p.quantized_cell_clip);

  CalculateGate(input, output_state, cell_state, w.gates[kOutputGate], p.gates[kOutputGate], n_batch, n_input, n_output,
                n_cell, /*is_cell_gate=*/false, scratch.gates[kOutputGate]);

  // hidden = output_gate .* tanh(cell), then the projection (no float-style bias: it is folded
  // into the effective bias) or a plain copy.
  int16_t* cell_tanh = scratch.gates[kInputGate];
  Tanh(15 + p.cell_scale_log2, cell_state, size, cell_tanh);
  HiddenState(scratch.gates[kOutputGate], cell_tanh, n_batch, n_cell, p.hidden_scale_a, p.hidden_scale_b,
              p.hidden_zero_point, scratch.hidden);
  if (w.projection != nullptr) {
    std::fill_n(output_state, n_batch * n_output, 0);
    MatMulAccumulate(scratch.hidden, p.projection_effective_bias.data(), w.projection, p.projection_scale_a,
                     p.projection_scale_b, n_batch, n_cell, n_output, p.output_state_zero_point, output_state);
    if (p.quantized_proj_clip > 0) {
      Clip<int8_t>(output_state, n_batch * n_output, p.quantized_proj_clip);
    }
  } else {
    std::copy_n(scratch.hidden, n_batch * n_output, output_state);
  }
  std::copy_n(output_state, n_batch * n_output, output);
}

// A whole sequence (TFLite's EvalInteger8x8_16), in ForEachSequenceStep's layouts.
inline void IntegerSequence(const IntegerWeights& w, const IntegerParams& p, int max_time, int n_batch, int n_cell,
                            int n_input, int n_output, bool time_major, const int8_t* input, int8_t* output_state,
                            int16_t* cell_state, const IntegerScratch& scratch, int8_t* output) {
  const auto step = [&](int n_rows, const int8_t* step_input, int8_t* step_output_state, int16_t* step_cell_state, int,
                        int8_t* step_output) {
    IntegerStep(w, p, n_rows, n_cell, n_input, n_output, step_input, step_output_state, step_cell_state, scratch,
                step_output);
  };
  ForEachSequenceStep(max_time, n_batch, n_cell, n_input, n_output, time_major, input, output_state, cell_state, output,
                      step);
}

}  // namespace lstm
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_INTEGER_H_
