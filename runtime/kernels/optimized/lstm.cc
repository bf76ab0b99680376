// UNIDIRECTIONAL_SEQUENCE_LSTM and LSTM (the full kernel; the basic kernel keeps the reference).
//
// Float32 (tanh activation; CIFG, peephole, projection, clipping and layer normalization in any
// combination): the input's contribution to every gate of a run of time steps is one GEMM
// (input rows times the four gates' input weights side by side, biases included), which no step
// depends on; each step then adds one GEMM of the previous output state times the recurrent
// weights, and the cell arithmetic runs on whole gate vectors with the vectorised sigmoid and tanh
// (MicroKernels::sigmoid/tanh). All batch rows advance together whatever the layout, since rows do
// not interact. The sums are taken in another order than the reference's, so results agree within
// the optimized kernels' float tolerance.
//
// Integer ("8x8_16": int8 input, output and weights, int16 cell state): byte-identical to the
// reference (runtime/kernels/internal/lstm_integer.h), with the parameters its Prepare derived
// (reference::LstmIntegerParams). The steps are the reference's, in its order and with its row
// grouping; the int8 matrix products (each gate's weights side by side, packed at the first Eval)
// run on the Int8GemvKernels (int32 sums that wrap, the reference's low 32 bits exactly), the gates' fixed-point
// sigmoid and tanh on the vector FixedPointKernels (exact on every int16 input). The input's product does not depend on
// the recurrence, and the first of the gate's two rescaled sums starts from zero, so a run of rows gets its input
// terms, rescaled and clamped to int16, ahead of the steps that read them.
//
// Everything else (float with other activations or weights that are not constant, hybrid weights,
// empty sequences) runs the reference kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/lstm_integer.h"
#include "runtime/kernels/internal/lstm_shared.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/fixed_point_kernels.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

namespace full = lstm::full;

// The gate order of the packed weights (the input gate's columns are left out with CIFG).
constexpr int kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3, kGates = 4;
constexpr int kInputWeights[kGates] = {full::kInputToInputWeightsTensor, full::kInputToForgetWeightsTensor,
                                       full::kInputToCellWeightsTensor, full::kInputToOutputWeightsTensor};
constexpr int kRecurrentWeights[kGates] = {full::kRecurrentToInputWeightsTensor, full::kRecurrentToForgetWeightsTensor,
                                           full::kRecurrentToCellWeightsTensor, full::kRecurrentToOutputWeightsTensor};
constexpr int kGateBias[kGates] = {full::kInputGateBiasTensor, full::kForgetGateBiasTensor, full::kCellGateBiasTensor,
                                   full::kOutputGateBiasTensor};
constexpr int kCellWeights[kGates] = {full::kCellToInputWeightsTensor, full::kCellToForgetWeightsTensor, -1,
                                      full::kCellToOutputWeightsTensor};
constexpr int kLayerNorm[kGates] = {full::kInputLayerNormCoefficientsTensor, full::kForgetLayerNormCoefficientsTensor,
                                    full::kCellLayerNormCoefficientsTensor, full::kOutputLayerNormCoefficientsTensor};

// Floats of precomputed input contributions one run of steps may hold (the steps of a long
// sequence are taken in runs of this size).
constexpr size_t kMaxGateInputFloats = 64 * 1024;

struct LstmState : OpState {
  bool is_sequence = false;
  bool time_major = true;
  int max_time = 0, n_batch = 0, n_cell = 0, n_input = 0, n_output = 0;
  bool cifg = false, peephole = false, projection = false, layer_norm = false;
  float cell_clip = 0.f, proj_clip = 0.f;

  // Float: gates side by side, n_gates * n_cell columns; column offset of each gate (-1: absent).
  int n_gates = 0;
  int gate_offset[kGates] = {};
  const GemmVariant* input_variant = nullptr;
  const GemmVariant* recurrent_variant = nullptr;
  const GemmVariant* projection_variant = nullptr;
  // Packed at the first Eval, kept while the weights stay where they were.
  CacheAlignedVector<float> input_packed, recurrent_packed, projection_packed;
  std::vector<const void*> packed_from;
  int steps_per_run = 1;
  std::vector<float> gate_inputs;  // steps_per_run * n_batch rows of n_gates * n_cell
  std::vector<float> gate_sums;    // n_batch rows
  std::vector<float> hidden;       // n_batch rows of n_cell, before the projection
  std::vector<const float*> input_rows, state_rows, hidden_rows;

  // Integer: the reference's parameters; its gate buffers (four of n_batch * n_cell) and hidden
  // state; the rescaled input terms of a run of rows (input rows in memory order, n_gates * n_cell
  // each); the rows one step takes (n_batch time-major, 1 batch-major).
  bool integer = false;
  const lstm::IntegerParams* integer_params = nullptr;
  const FixedPointKernels* fixed_point = nullptr;
  int rows_per_step = 1;
  int rows_per_run = 1;
  std::vector<int16_t> integer_gates;
  std::vector<int8_t> integer_hidden;
  std::vector<int16_t> integer_gate_inputs;
  std::vector<int32_t> dots;            // one row's products of every gate, or the projection's
  std::vector<int32_t> recurrent_dots;  // a step's rows' recurrent products
  const Int8GemvKernels* gemv = nullptr;
  // Packed at the first Eval with `packed_gemv` (again if the set changed).
  std::vector<uint8_t> input_packed8, recurrent_packed8, projection_packed8;
  const Int8GemvKernels* packed_gemv = nullptr;
};

// The weight and bias tensors the float path packs, in a fixed order, to tell whether they moved.
std::vector<const void*> PackedSources(TfLiteContext* context, const TfLiteNode* node) {
  std::vector<const void*> sources;
  for (int index = full::kInputToInputWeightsTensor; index <= full::kProjectionBiasTensor; ++index) {
    const TfLiteTensor* t = tflite::GetOptionalInputTensor(context, node, index);
    sources.push_back(t != nullptr ? t->data.raw : nullptr);
  }
  return sources;
}

template <bool kSequence>
struct LstmOp {
  using State = LstmState;
  // The float path accumulates in another order than the reference anyway: denormals flushed
  // there (float_mode.h).
  static bool FlushesDenormals(const State* s) { return !s->integer; }
  static TfLiteRegistration* Reference() {
    return kSequence ? reference::Register_UNIDIRECTIONAL_SEQUENCE_LSTM() : reference::Register_LSTM();
  }

  static const TfLiteTensor* Input(TfLiteContext* context, const TfLiteNode* node, int index) {
    return tflite::GetOptionalInputTensor(context, node, index);
  }

  // Reads the options; false where the node is not a full kernel with a tanh activation.
  static bool ReadOptions(const TfLiteNode* node, State* s) {
    TfLiteFusedActivation activation = kTfLiteActNone;
    if (kSequence) {
      const auto* params = static_cast<const TfLiteUnidirectionalSequenceLSTMParams*>(node->builtin_data);
      if (params == nullptr) return false;
      activation = params->activation;
      s->cell_clip = params->cell_clip;
      s->proj_clip = params->proj_clip;
      s->time_major = params->time_major;
    } else {
      const auto* params = static_cast<const TfLiteLSTMParams*>(node->builtin_data);
      if (params == nullptr || params->kernel_type != kTfLiteLSTMFullKernel) return false;
      activation = params->activation;
      s->cell_clip = params->cell_clip;
      s->proj_clip = params->proj_clip;
      s->time_major = true;
    }
    return activation == kTfLiteActTanh;
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (tflite::NumInputs(node) != full::kNumInputs && tflite::NumInputs(node) != full::kNumInputsWithoutLayerNorm) {
      return kTfLiteOk;
    }
    if (!ReadOptions(node, s)) return kTfLiteOk;
    const TfLiteTensor* input = Input(context, node, full::kInputTensor);
    const TfLiteTensor* input_to_output = Input(context, node, full::kInputToOutputWeightsTensor);
    const TfLiteTensor* recurrent_to_output = Input(context, node, full::kRecurrentToOutputWeightsTensor);
    const TfLiteTensor* output = tflite::GetOutput(context, node, full::kOutputTensor);
    s->is_sequence = kSequence;
    s->max_time = kSequence ? input->dims->data[s->time_major ? 0 : 1] : 1;
    s->n_batch = kSequence ? input->dims->data[s->time_major ? 1 : 0] : input->dims->data[0];
    s->n_input = input->dims->data[input->dims->size - 1];
    s->n_cell = input_to_output->dims->data[0];
    s->n_output = recurrent_to_output->dims->data[1];
    s->cifg = Input(context, node, full::kInputToInputWeightsTensor) == nullptr;
    s->peephole = Input(context, node, full::kCellToOutputWeightsTensor) != nullptr;
    s->projection = Input(context, node, full::kProjectionWeightsTensor) != nullptr;
    s->layer_norm = Input(context, node, full::kForgetLayerNormCoefficientsTensor) != nullptr;
    if (tflite::NumElements(output) == 0 || tflite::IsDynamicTensor(output)) return kTfLiteOk;
    // The reference Prepare accepted the node, so its types agree with the input weights'.
    s->integer = false;
    if (input->type == kTfLiteFloat32 && input_to_output->type == kTfLiteFloat32) {
      return PrepareFloat(context, node, s);
    }
    if (input->type == kTfLiteInt8 && input_to_output->type == kTfLiteInt8) {
      return PrepareInteger(context, node, s);
    }
    return kTfLiteOk;
  }

  // ---- Float.

  static TfLiteStatus PrepareFloat(TfLiteContext* context, TfLiteNode* node, State* s) {
    for (int index = full::kInputToInputWeightsTensor; index <= full::kProjectionBiasTensor; ++index) {
      const TfLiteTensor* t = Input(context, node, index);
      if (t != nullptr && !tflite::IsConstantOrPersistentTensor(t)) return kTfLiteOk;
    }
    s->n_gates = 0;
    for (int g = 0; g < kGates; ++g) {
      const bool present = !(g == kInputGate && s->cifg);
      s->gate_offset[g] = present ? s->n_gates++ * s->n_cell : -1;
    }
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    s->input_variant = &ChooseGemmVariant(*s->kernels, columns);
    s->recurrent_variant = s->input_variant;
    s->projection_variant = &ChooseGemmVariant(*s->kernels, s->n_output);
    const std::vector<const void*> sources = PackedSources(context, node);
    if (sources != s->packed_from) {
      s->input_packed.clear();
      s->recurrent_packed.clear();
      s->projection_packed.clear();
      s->packed_from.clear();
    }
    const size_t batch = static_cast<size_t>(s->n_batch);
    const size_t row_floats = std::max<size_t>(1, batch * columns);
    s->steps_per_run =
        static_cast<int>(std::min<size_t>(s->max_time, std::max<size_t>(1, kMaxGateInputFloats / row_floats)));
    s->gate_inputs.assign(s->steps_per_run * batch * columns, 0.f);
    s->gate_sums.assign(batch * columns, 0.f);
    s->hidden.assign(s->projection ? batch * s->n_cell : 0, 0.f);
    s->fast = true;
    return kTfLiteOk;
  }

  // Packs `weights` (one {n_cell, depth} tensor per present gate) side by side, with the gates'
  // biases when `biases` is given.
  static void PackGates(TfLiteContext* context, const TfLiteNode* node, const State* s, const int* weights,
                        const int* biases, int depth, const GemmVariant& variant, CacheAlignedVector<float>* packed) {
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    std::vector<float> gathered(columns * depth);
    std::vector<float> bias(columns, 0.f);
    for (int g = 0; g < kGates; ++g) {
      if (s->gate_offset[g] < 0) continue;
      const float* w = tflite::GetTensorData<float>(Input(context, node, weights[g]));
      std::copy_n(w, static_cast<size_t>(s->n_cell) * depth,
                  gathered.begin() + static_cast<size_t>(s->gate_offset[g]) * depth);
      if (biases != nullptr) {
        const float* b = tflite::GetTensorData<float>(Input(context, node, biases[g]));
        std::copy_n(b, s->n_cell, bias.begin() + s->gate_offset[g]);
      }
    }
    PackGemmWeights(columns, 1, depth, gathered.data(), depth, 0, 1, bias.data(), variant.nr, packed);
  }

  // The gates' input and recurrent weights and the projection weights are read only from their
  // packed copies from here on: their file pages go back (ConstantCopied).
  static void WeightsPacked(TfLiteContext* context, const TfLiteNode* node, const State* s) {
    for (int g = 0; g < kGates; ++g) {
      if (s->gate_offset[g] < 0) continue;
      for (const int index : {kInputWeights[g], kRecurrentWeights[g]}) {
        const TfLiteTensor* weights = Input(context, node, index);
        ConstantCopied(context, weights->data.raw, weights->bytes);
      }
    }
    const TfLiteTensor* projection = Input(context, node, full::kProjectionWeightsTensor);
    if (projection != nullptr) ConstantCopied(context, projection->data.raw, projection->bytes);
  }

  static void PackFloat(TfLiteContext* context, const TfLiteNode* node, State* s) {
    // With layer normalization the bias is added after it (FloatGateInputs), not to the products.
    PackGates(context, node, s, kInputWeights, s->layer_norm ? nullptr : kGateBias, s->n_input, *s->input_variant,
              &s->input_packed);
    PackGates(context, node, s, kRecurrentWeights, nullptr, s->n_output, *s->recurrent_variant, &s->recurrent_packed);
    if (s->projection) {
      const TfLiteTensor* bias = Input(context, node, full::kProjectionBiasTensor);
      PackGemmWeights(s->n_output, 1, s->n_cell,
                      tflite::GetTensorData<float>(Input(context, node, full::kProjectionWeightsTensor)), s->n_cell, 0,
                      1, bias != nullptr ? tflite::GetTensorData<float>(bias) : nullptr, s->projection_variant->nr,
                      &s->projection_packed);
    }
    s->packed_from = PackedSources(context, node);
    WeightsPacked(context, node, s);
  }

  // Index of the row of time step t, batch b in the input and output.
  static size_t Row(const State* s, int t, int b) {
    return s->time_major ? static_cast<size_t>(t) * s->n_batch + b : static_cast<size_t>(b) * s->max_time + t;
  }

  // The reference clamps every product sum to the finite range, as TFLite's GEMM does.
  static GemmProblem Problem(const GemmVariant* variant, size_t m, size_t n, size_t k, const float* const* a,
                             const float* packed, float* c) {
    return MatrixProblem(variant, m, n, k, a, packed, c, std::numeric_limits<float>::lowest(),
                         std::numeric_limits<float>::max());
  }

  // The per-gate vectors the cell reads besides the sums (null where absent).
  struct GateVectors {
    const float* cell_weights[kGates] = {};
    const float* layer_norm[kGates] = {};
    const float* bias[kGates] = {};
  };

  // In place: (v - mean) / sqrt(variance + 1e-8) * coefficients + bias, as the reference's
  // MeanStddevNormalization and the steps after it.
  static void LayerNorm(int n, const float* coefficients, const float* bias, float* v) {
    float sum = 0.f;
    for (int j = 0; j < n; ++j) sum += v[j];
    const float mean = sum / n;
    float sum_diff_sq = 0.f;
    for (int j = 0; j < n; ++j) sum_diff_sq += (v[j] - mean) * (v[j] - mean);
    const float stddev_inv = 1.f / std::sqrt(sum_diff_sq / n + 1e-8f);
    for (int j = 0; j < n; ++j) v[j] = coefficients[j] * ((v[j] - mean) * stddev_inv) + bias[j];
  }

  // One batch row's cell: `gates` holds the recurrent sums, `gate_inputs` the input's (with the
  // bias unless there is layer normalization); updates `cell` and writes the cell output (before
  // any projection) to `hidden`.
  static void Cell(const State* s, const GateVectors& v, const float* gate_inputs, float* gates, float* cell,
                   float* hidden) {
    const int n = s->n_cell;
    const int columns = s->n_gates * n;
    for (int j = 0; j < columns; ++j) gates[j] += gate_inputs[j];
    float* gate[kGates];
    for (int g = 0; g < kGates; ++g) gate[g] = s->gate_offset[g] >= 0 ? gates + s->gate_offset[g] : nullptr;
    // Peephole and layer normalization of every gate but the output gate, which needs the new cell.
    for (int g = kInputGate; g <= kCellGate; ++g) {
      if (gate[g] == nullptr) continue;
      if (v.cell_weights[g] != nullptr) {
        for (int j = 0; j < n; ++j) gate[g][j] += v.cell_weights[g][j] * cell[j];
      }
      if (s->layer_norm) LayerNorm(n, v.layer_norm[g], v.bias[g], gate[g]);
    }
    float* forget = gate[kForgetGate];
    float* cell_gate = gate[kCellGate];
    float* output_gate = gate[kOutputGate];
    float* input_gate = gate[kInputGate];
    // The input and forget gates are adjacent: one call for both.
    float* first_sigmoid = s->cifg ? forget : input_gate;
    s->kernels->sigmoid(s->cifg ? n : 2 * n, first_sigmoid, first_sigmoid);
    s->kernels->tanh(n, cell_gate, cell_gate);
    if (s->cifg) {
      for (int j = 0; j < n; ++j) cell[j] = forget[j] * cell[j] + (1.f - forget[j]) * cell_gate[j];
    } else {
      for (int j = 0; j < n; ++j) cell[j] = forget[j] * cell[j] + input_gate[j] * cell_gate[j];
    }
    if (s->cell_clip > 0.f) {
      const float clip = s->cell_clip;
      for (int j = 0; j < n; ++j) cell[j] = std::max(-clip, std::min(clip, cell[j]));
    }
    if (v.cell_weights[kOutputGate] != nullptr) {
      for (int j = 0; j < n; ++j) output_gate[j] += v.cell_weights[kOutputGate][j] * cell[j];
    }
    if (s->layer_norm) LayerNorm(n, v.layer_norm[kOutputGate], v.bias[kOutputGate], output_gate);
    s->kernels->sigmoid(n, output_gate, output_gate);
    s->kernels->tanh(n, cell, cell_gate);
    for (int j = 0; j < n; ++j) hidden[j] = output_gate[j] * cell_gate[j];
  }

  static TfLiteStatus EvalFloat(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->input_packed.empty()) PackFloat(context, node, s);
    const float* input = tflite::GetTensorData<float>(Input(context, node, full::kInputTensor));
    float* output_state =
        tflite::GetTensorData<float>(tflite::GetVariableInput(context, node, full::kOutputStateTensor));
    float* cell_state = tflite::GetTensorData<float>(tflite::GetVariableInput(context, node, full::kCellStateTensor));
    float* output = tflite::GetTensorData<float>(tflite::GetOutput(context, node, full::kOutputTensor));
    auto weights = [&](int index) {
      const TfLiteTensor* t = Input(context, node, index);
      return t != nullptr ? tflite::GetTensorData<float>(t) : nullptr;
    };
    GateVectors vectors;
    for (int g = 0; g < kGates; ++g) {
      if (kCellWeights[g] >= 0) vectors.cell_weights[g] = weights(kCellWeights[g]);
      vectors.layer_norm[g] = weights(kLayerNorm[g]);
      vectors.bias[g] = weights(kGateBias[g]);
    }

    const int batch = s->n_batch;
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    const size_t n_output = s->n_output;
    s->state_rows.resize(batch);
    for (int b = 0; b < batch; ++b) s->state_rows[b] = output_state + b * n_output;
    float* hidden_base = s->projection ? s->hidden.data() : output_state;
    const size_t hidden_stride = s->projection ? s->n_cell : n_output;
    if (s->projection) {
      s->hidden_rows.resize(batch);
      for (int b = 0; b < batch; ++b) s->hidden_rows[b] = hidden_base + b * hidden_stride;
    }

    for (int t0 = 0; t0 < s->max_time; t0 += s->steps_per_run) {
      const int t1 = std::min(s->max_time, t0 + s->steps_per_run);
      // The input's contribution to the run's steps, rows in step order.
      s->input_rows.resize(static_cast<size_t>(t1 - t0) * batch);
      for (int t = t0; t < t1; ++t) {
        for (int b = 0; b < batch; ++b) {
          s->input_rows[static_cast<size_t>(t - t0) * batch + b] = input + Row(s, t, b) * s->n_input;
        }
      }
      RunGemm(context, Problem(s->input_variant, s->input_rows.size(), columns, s->n_input, s->input_rows.data(),
                               s->input_packed.data(), s->gate_inputs.data()));
      for (int t = t0; t < t1; ++t) {
        RunGemm(context, Problem(s->recurrent_variant, batch, columns, n_output, s->state_rows.data(),
                                 s->recurrent_packed.data(), s->gate_sums.data()));
        const float* step_inputs = s->gate_inputs.data() + static_cast<size_t>(t - t0) * batch * columns;
        for (int b = 0; b < batch; ++b) {
          Cell(s, vectors, step_inputs + b * columns, s->gate_sums.data() + b * columns,
               cell_state + static_cast<size_t>(b) * s->n_cell, hidden_base + b * hidden_stride);
        }
        if (s->projection) {
          RunGemm(context, Problem(s->projection_variant, batch, n_output, s->n_cell, s->hidden_rows.data(),
                                   s->projection_packed.data(), output_state));
          if (s->proj_clip > 0.f) {
            const float clip = s->proj_clip;
            for (size_t i = 0; i < batch * n_output; ++i) {
              output_state[i] = std::max(-clip, std::min(clip, output_state[i]));
            }
          }
        }
        for (int b = 0; b < batch; ++b) {
          std::memcpy(output + Row(s, t, b) * n_output, output_state + b * n_output, n_output * sizeof(float));
        }
      }
    }
    return kTfLiteOk;
  }

  // ---- Integer.

  static TfLiteStatus PrepareInteger(TfLiteContext* context, const TfLiteNode* node, State* s) {
    s->integer_params = reference::LstmIntegerParams(s->reference_data);
    if (s->integer_params == nullptr) return kTfLiteOk;
    s->gemv = &Int8GemvKernelsFor(*s->kernels);
    // The weights are constants (the reference requires it); packed again only if they moved.
    if (PackedSources(context, node) != s->packed_from) s->packed_from.clear();
    s->fixed_point = &FixedPointKernelsFor(*s->kernels);
    s->n_gates = 0;
    for (int g = 0; g < kGates; ++g) {
      const bool present = !(g == kInputGate && s->cifg);
      s->gate_offset[g] = present ? s->n_gates++ * s->n_cell : -1;
    }
    const size_t batch = static_cast<size_t>(s->n_batch);
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    s->rows_per_step = s->time_major ? s->n_batch : 1;
    // Whole steps per run, at least one.
    const size_t steps = std::max<size_t>(1, kMaxGateInputFloats / std::max<size_t>(1, s->rows_per_step * columns));
    s->rows_per_run = static_cast<int>(std::min<size_t>(steps * s->rows_per_step, batch * s->max_time));
    s->integer_gates.assign(lstm::kNumGates * batch * s->n_cell, 0);
    s->integer_hidden.assign(batch * s->n_cell, 0);
    s->integer_gate_inputs.assign(static_cast<size_t>(s->rows_per_run) * columns, 0);
    s->dots.assign(std::max<size_t>(columns, s->n_output), 0);
    s->recurrent_dots.assign(s->rows_per_step * columns, 0);
    s->integer = true;
    s->fast = true;
    return kTfLiteOk;
  }

  static int16_t ClampToInt16(int32_t x) {
    return static_cast<int16_t>(std::min<int32_t>(std::max<int32_t>(x, -32768), 32767));
  }

  // Packs each gate's `weights` ({n_cell, depth}) side by side for the gemv.
  static void PackIntegerGates(const State* s, const int8_t* const* weights, size_t depth,
                               std::vector<uint8_t>* packed) {
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    std::vector<int8_t> gathered(columns * depth);
    for (int g = 0; g < kGates; ++g) {
      if (s->gate_offset[g] < 0) continue;
      std::copy_n(weights[g], static_cast<size_t>(s->n_cell) * depth,
                  gathered.begin() + static_cast<size_t>(s->gate_offset[g]) * depth);
    }
    packed->resize(s->gemv->packed_size(columns, depth));
    s->gemv->pack(gathered.data(), columns, depth, packed->data());
  }

  static void PackInteger(TfLiteContext* context, const TfLiteNode* node, State* s, const lstm::IntegerWeights& w) {
    const int8_t* input_weights[kGates];
    const int8_t* recurrent_weights[kGates];
    for (int g = 0; g < kGates; ++g) {
      input_weights[g] = w.gates[g].input_weights;
      recurrent_weights[g] = w.gates[g].recurrent_weights;
    }
    PackIntegerGates(s, input_weights, s->n_input, &s->input_packed8);
    PackIntegerGates(s, recurrent_weights, s->n_output, &s->recurrent_packed8);
    s->projection_packed8.clear();
    if (w.projection != nullptr) {
      s->projection_packed8.resize(s->gemv->packed_size(s->n_output, s->n_cell));
      s->gemv->pack(w.projection, s->n_output, s->n_cell, s->projection_packed8.data());
    }
    s->packed_gemv = s->gemv;
    s->packed_from = PackedSources(context, node);
    WeightsPacked(context, node, s);
  }

  // The input terms of `rows` input rows: the reference's first MatMulAccumulate of each gate, which
  // starts from a zero gate with no zero point.
  static void IntegerGateInputs(const State* s, const int8_t* input, int rows, int16_t* out, int32_t* dots) {
    namespace qu = quantization_util;
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    for (int r = 0; r < rows; ++r) {
      s->gemv->gemv(s->input_packed8.data(), columns, s->n_input, input + static_cast<size_t>(r) * s->n_input, dots);
      for (int g = 0; g < kGates; ++g) {
        if (s->gate_offset[g] < 0) continue;
        const lstm::IntegerGateParams& p = s->integer_params->gates[g];
        const int32_t* d = dots + s->gate_offset[g];
        int16_t* o = out + r * columns + s->gate_offset[g];
        for (int j = 0; j < s->n_cell; ++j) {
          const int32_t acc = qu::WrappingAdd(p.input_effective_bias[j], d[j]);
          o[j] = ClampToInt16(qu::MultiplyByQuantizedMultiplier(acc, p.input_scale_a, p.input_scale_b));
        }
      }
    }
  }

  // One gate of one step (the reference's CalculateGate) from its input terms and the step's
  // recurrent products.
  static void IntegerGate(const State* s, const lstm::IntegerWeights& w, int g, int n_rows, const int16_t* gate_inputs,
                          const int32_t* recurrent_dots, const int16_t* cell_state, int16_t* gate) {
    namespace qu = quantization_util;
    namespace li = lstm::integer_internal;
    const lstm::IntegerGateParams& p = s->integer_params->gates[g];
    const lstm::IntegerGateWeights& gw = w.gates[g];
    const int n = s->n_cell;
    const size_t columns = static_cast<size_t>(s->n_gates) * n;
    for (int b = 0; b < n_rows; ++b) {
      const int32_t* d = recurrent_dots + b * columns + s->gate_offset[g];
      const int16_t* in = gate_inputs + b * columns + s->gate_offset[g];
      int16_t* out = gate + static_cast<size_t>(b) * n;
      for (int j = 0; j < n; ++j) {
        int32_t acc = qu::WrappingAdd(p.recurrent_effective_bias[j], d[j]);
        acc = qu::MultiplyByQuantizedMultiplier(acc, p.recurrent_scale_a, p.recurrent_scale_b);
        acc += in[j];
        out[j] = ClampToInt16(acc);
      }
    }
    if (gw.cell_weights != nullptr) {
      li::PeepholeAccumulate(gw.cell_weights, s->n_output, cell_state, n_rows, p.cell_scale_a, p.cell_scale_b, gate);
    }
    if (gw.layer_norm != nullptr) {
      li::LayerNorm(gate, gw.layer_norm, gw.bias, p.layer_norm_scale_a, p.layer_norm_scale_b, p.variance_guard, n_rows,
                    n);
    }
    if (g == kCellGate) {
      s->fixed_point->tanh(3, gate, static_cast<size_t>(n_rows) * n, gate);
    } else {
      s->fixed_point->sigmoid(gate, static_cast<size_t>(n_rows) * n, gate);
    }
  }

  // One step of n_rows rows (the reference's IntegerStep) with the rows' input terms precomputed.
  static void IntegerStep(const State* s, const lstm::IntegerWeights& w, int n_rows, const int16_t* gate_inputs,
                          int8_t* output_state, int16_t* cell_state, int16_t* const* gates, int8_t* hidden,
                          int32_t* dots, int32_t* recurrent_dots, int8_t* output) {
    namespace qu = quantization_util;
    namespace li = lstm::integer_internal;
    const lstm::IntegerParams& p = *s->integer_params;
    const int size = n_rows * s->n_cell;
    // Every gate's recurrent products at once: the output state changes only at the step's end.
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    for (int b = 0; b < n_rows; ++b) {
      s->gemv->gemv(s->recurrent_packed8.data(), columns, s->n_output,
                    output_state + static_cast<size_t>(b) * s->n_output, recurrent_dots + b * columns);
    }
    for (int g = s->cifg ? kForgetGate : kInputGate; g <= kCellGate; ++g) {
      IntegerGate(s, w, g, n_rows, gate_inputs, recurrent_dots, cell_state, gates[g]);
    }
    int16_t* forget_gate = gates[kForgetGate];
    const int16_t* cell_gate = gates[kCellGate];
    li::MulShift(forget_gate, cell_state, size, 15, cell_state);
    if (s->cifg) {
      for (int i = 0; i < size; ++i) forget_gate[i] = static_cast<int16_t>(32767 - forget_gate[i]);
      li::MulShift(forget_gate, cell_gate, size, 30 + p.cell_scale_log2, forget_gate);
    } else {
      li::MulShift(gates[kInputGate], cell_gate, size, 30 + p.cell_scale_log2, forget_gate);
    }
    li::AddSaturating(cell_state, forget_gate, size, cell_state);
    if (p.quantized_cell_clip > 0) li::Clip<int16_t>(cell_state, size, p.quantized_cell_clip);
    IntegerGate(s, w, kOutputGate, n_rows, gate_inputs, recurrent_dots, cell_state, gates[kOutputGate]);
    int16_t* cell_tanh = gates[kInputGate];
    s->fixed_point->tanh(15 + p.cell_scale_log2, cell_state, size, cell_tanh);
    li::HiddenState(gates[kOutputGate], cell_tanh, n_rows, s->n_cell, p.hidden_scale_a, p.hidden_scale_b,
                    p.hidden_zero_point, hidden);
    const int output_size = n_rows * s->n_output;
    if (w.projection != nullptr) {
      for (int b = 0; b < n_rows; ++b) {
        s->gemv->gemv(s->projection_packed8.data(), s->n_output, s->n_cell, hidden + static_cast<size_t>(b) * s->n_cell,
                      dots);
        int8_t* out = output_state + static_cast<size_t>(b) * s->n_output;
        for (int j = 0; j < s->n_output; ++j) {
          int32_t acc = qu::WrappingAdd(p.projection_effective_bias[j], dots[j]);
          acc = qu::MultiplyByQuantizedMultiplier(acc, p.projection_scale_a, p.projection_scale_b);
          acc += p.output_state_zero_point;
          out[j] = static_cast<int8_t>(std::min<int32_t>(std::max<int32_t>(acc, -128), 127));
        }
      }
      if (p.quantized_proj_clip > 0) li::Clip<int8_t>(output_state, output_size, p.quantized_proj_clip);
    } else {
      std::copy_n(hidden, output_size, output_state);
    }
    std::copy_n(output_state, output_size, output);
  }

  static TfLiteStatus EvalInteger(TfLiteContext* context, TfLiteNode* node, State* s) {
    auto tensor = [&](int index) { return Input(context, node, index); };
    lstm::IntegerWeights w;
    for (int g = 0; g < kGates; ++g) {
      lstm::IntegerGateWeights& gate = w.gates[g];
      gate.input_weights = tflite::GetTensorData<int8_t>(tensor(kInputWeights[g]));
      gate.recurrent_weights = tflite::GetTensorData<int8_t>(tensor(kRecurrentWeights[g]));
      if (kCellWeights[g] >= 0) gate.cell_weights = tflite::GetTensorData<int16_t>(tensor(kCellWeights[g]));
      if (s->layer_norm) {
        gate.layer_norm = tflite::GetTensorData<int16_t>(tensor(kLayerNorm[g]));
        gate.bias = tflite::GetTensorData<int32_t>(tensor(kGateBias[g]));
      }
    }
    w.projection = tflite::GetTensorData<int8_t>(tensor(full::kProjectionWeightsTensor));
    if (s->packed_gemv != s->gemv || s->packed_from.empty()) PackInteger(context, node, s, w);
    const int8_t* input = tflite::GetTensorData<int8_t>(tensor(full::kInputTensor));
    int8_t* output_state =
        tflite::GetTensorData<int8_t>(tflite::GetVariableInput(context, node, full::kOutputStateTensor));
    int16_t* cell_state =
        tflite::GetTensorData<int16_t>(tflite::GetVariableInput(context, node, full::kCellStateTensor));
    int8_t* output = tflite::GetTensorData<int8_t>(tflite::GetOutput(context, node, full::kOutputTensor));

    const size_t gate_size = static_cast<size_t>(s->n_batch) * s->n_cell;
    int16_t* gates[kGates];
    for (int g = 0; g < kGates; ++g) gates[g] = s->integer_gates.data() + g * gate_size;
    const size_t columns = static_cast<size_t>(s->n_gates) * s->n_cell;
    const int total_rows = s->n_batch * s->max_time;
    const int step_rows = s->rows_per_step;
    // Steps take the input rows in memory order (time-major: all rows of a step; batch-major: one
    // row's sequence after the other), so runs of rows are runs of whole steps.
    for (int r0 = 0; r0 < total_rows; r0 += s->rows_per_run) {
      const int r1 = std::min(total_rows, r0 + s->rows_per_run);
      IntegerGateInputs(s, input + static_cast<size_t>(r0) * s->n_input, r1 - r0, s->integer_gate_inputs.data(),
                        s->dots.data());
      for (int r = r0; r < r1; r += step_rows) {
        // Batch-major: the row's batch owns its slice of the states.
        const int batch = s->time_major ? 0 : r / s->max_time;
        IntegerStep(s, w, step_rows, s->integer_gate_inputs.data() + (r - r0) * columns,
                    output_state + static_cast<size_t>(batch) * s->n_output,
                    cell_state + static_cast<size_t>(batch) * s->n_cell, gates, s->integer_hidden.data(),
                    s->dots.data(), s->recurrent_dots.data(), output + static_cast<size_t>(r) * s->n_output);
      }
    }
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->integer) return EvalInteger(context, node, s);
    return EvalFloat(context, node, s);
  }
};

}  // namespace

TfLiteRegistration* Register_UNIDIRECTIONAL_SEQUENCE_LSTM() { return OptimizedKernel<LstmOp<true>>::Registration(); }

TfLiteRegistration* Register_LSTM() { return OptimizedKernel<LstmOp<false>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
