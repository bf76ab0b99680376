// Reference LSTM kernels: LSTM (full and basic kernel) and UNIDIRECTIONAL_SEQUENCE_LSTM, computing
// what TensorFlow Lite 2.14's lstm.cc and unidirectional_sequence_lstm.cc compute. The arithmetic
// lives in runtime/kernels/internal/lstm_{float,hybrid,integer}.h; this file validates nodes and
// wires tensors to it (helpers shared with svdf_ops.cc in recurrent_util.h).
//
// The full LSTM kernel runs in one of three arithmetics, chosen in Prepare from the tensor types
// (see ChooseArithmetic): float32; hybrid (float input and states, int8 weights); and integer
// "8x8_16" (int8 input, output and weights, int16 cell state, gate scales from the op's
// intermediate tensors).

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/lstm_float.h"
#include "runtime/kernels/internal/lstm_hybrid.h"
#include "runtime/kernels/internal/lstm_integer.h"
#include "runtime/kernels/internal/lstm_shared.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/svdf_arithmetic.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/recurrent_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace recurrent;  // NOLINT(build/namespaces): the helpers of recurrent_util.h

namespace full = lstm::full;
namespace basic = lstm::basic;

// Names of the full kernel's inputs, for messages.
constexpr const char* kFullInputNames[full::kNumInputs] = {
    "input",
    "input_to_input_weights",
    "input_to_forget_weights",
    "input_to_cell_weights",
    "input_to_output_weights",
    "recurrent_to_input_weights",
    "recurrent_to_forget_weights",
    "recurrent_to_cell_weights",
    "recurrent_to_output_weights",
    "cell_to_input_weights",
    "cell_to_forget_weights",
    "cell_to_output_weights",
    "input_gate_bias",
    "forget_gate_bias",
    "cell_gate_bias",
    "output_gate_bias",
    "projection_weights",
    "projection_bias",
    "output_state",
    "cell_state",
    "input_layer_norm_coefficients",
    "forget_layer_norm_coefficients",
    "cell_layer_norm_coefficients",
    "output_layer_norm_coefficients",
};

// Each gate's tensors, indexed by lstm::Gate.
constexpr int kInputWeights[lstm::kNumGates] = {full::kInputToInputWeightsTensor, full::kInputToForgetWeightsTensor,
                                                full::kInputToCellWeightsTensor, full::kInputToOutputWeightsTensor};
constexpr int kRecurrentWeights[lstm::kNumGates] = {
    full::kRecurrentToInputWeightsTensor, full::kRecurrentToForgetWeightsTensor, full::kRecurrentToCellWeightsTensor,
    full::kRecurrentToOutputWeightsTensor};
// The cell gate has no peephole weights.
constexpr int kCellWeights[lstm::kNumGates] = {full::kCellToInputWeightsTensor, full::kCellToForgetWeightsTensor, -1,
                                               full::kCellToOutputWeightsTensor};
constexpr int kGateBias[lstm::kNumGates] = {full::kInputGateBiasTensor, full::kForgetGateBiasTensor,
                                            full::kCellGateBiasTensor, full::kOutputGateBiasTensor};
constexpr int kLayerNorm[lstm::kNumGates] = {
    full::kInputLayerNormCoefficientsTensor, full::kForgetLayerNormCoefficientsTensor,
    full::kCellLayerNormCoefficientsTensor, full::kOutputLayerNormCoefficientsTensor};

// The integer kernel's intermediate tensors: one per gate (read only with layer normalization),
// then the hidden state's (the cell output before the projection).
constexpr int kNumIntegerIntermediates = 5;
constexpr int kHiddenIntermediate = 4;

struct OpData {
  // LSTM only: the basic kernel (5 inputs, 4 outputs) instead of the full one.
  bool basic_kernel = false;

  Arithmetic arithmetic = Arithmetic::kFloat;
  bool is_sequence = false;
  bool time_major = true;  // LSTM is one time-major step
  lstm::FloatOptions options;
  bool asymmetric_quantize_inputs = false;
  int max_time = 0;
  int n_batch = 0;
  int n_cell = 0;
  int n_input = 0;
  int n_output = 0;

  // Float: four gate buffers of n_batch * n_cell, then the accumulation buffer. Hybrid: the four
  // gate buffers.
  std::vector<float> scratch;

  // Hybrid only.
  std::vector<int8_t> quantized;       // input, output state, hidden
  std::vector<float> scaling_factors;  // input, output state, product: n_batch each
  std::vector<int32_t> zero_points;    // input, output state: n_batch each
  std::vector<float> recovered_cell_weights;
  // Row sums of each gate's input and recurrent weights, then the projection's; computed at the
  // first invocation (as TFLite does), for asymmetric input quantization only.
  bool row_sums_computed = false;
  std::vector<int32_t> input_row_sums[lstm::kNumGates];
  std::vector<int32_t> recurrent_row_sums[lstm::kNumGates];
  std::vector<int32_t> projection_row_sums;

  // Integer only.
  lstm::IntegerParams integer;
  std::vector<int16_t> integer_gates;  // four buffers of n_batch * n_cell
  std::vector<int8_t> integer_hidden;
};

// Reads the options both full-kernel ops share into `data`. A node without options gets the
// zero-filled struct TFLite's parser would give it.
TfLiteStatus ReadOptions(TfLiteContext* context, const TfLiteNode* node, bool is_sequence, OpData* data) {
  lstm::FloatOptions& options = data->options;
  options = {kTfLiteActNone, 0.0f, 0.0f};
  data->asymmetric_quantize_inputs = false;
  data->is_sequence = is_sequence;
  data->time_major = !is_sequence;
  if (is_sequence) {
    const auto* params = static_cast<const TfLiteUnidirectionalSequenceLSTMParams*>(node->builtin_data);
    if (params != nullptr) {
      options = {params->activation, params->cell_clip, params->proj_clip};
      data->time_major = params->time_major;
      data->asymmetric_quantize_inputs = params->asymmetric_quantize_inputs;
      if (params->diagonal_recurrent_tensors) {
        TF_LITE_KERNEL_LOG(context, "option diagonal_recurrent_tensors is not supported");
        return kTfLiteError;
      }
    }
  } else {
    const auto* params = static_cast<const TfLiteLSTMParams*>(node->builtin_data);
    if (params != nullptr) {
      options = {params->activation, params->cell_clip, params->proj_clip};
      data->asymmetric_quantize_inputs = params->asymmetric_quantize_inputs;
    }
  }
  if (!IsValidActivation(options.activation)) {
    TF_LITE_KERNEL_LOG(context, "fused activation %d is not a valid activation", static_cast<int>(options.activation));
    return kTfLiteError;
  }
  // 0 means no clipping; negative (or NaN) values are refused, as TFLite does.
  if (!(options.cell_clip >= 0.0f)) {
    TF_LITE_KERNEL_LOG(context, "option cell_clip is %g, expected >= 0", options.cell_clip);
    return kTfLiteError;
  }
  if (!(options.proj_clip >= 0.0f)) {
    TF_LITE_KERNEL_LOG(context, "option proj_clip is %g, expected >= 0", options.proj_clip);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Fails with a message unless `tensor` (input `index`) has exactly the dimensions `dims`.
TfLiteStatus CheckShape(TfLiteContext* context, const TfLiteTensor* tensor, int index, const char* name,
                        std::initializer_list<int> dims) {
  bool same = tensor->dims->size == static_cast<int>(dims.size());
  for (int i = 0; same && i < tensor->dims->size; ++i) {
    same = tensor->dims->data[i] == dims.begin()[i];
  }
  if (same) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "input %d (%s) has shape %s, expected %s", index, name, ShapeString(tensor).c_str(),
                     ShapeString(std::vector<int>(dims)).c_str());
  return kTfLiteError;
}

// The full kernel's inputs, null where absent.
struct FullInputs {
  const TfLiteTensor* tensors[full::kNumInputs] = {};
  const TfLiteTensor* operator[](int index) const { return index < 0 ? nullptr : tensors[index]; }
};

TfLiteStatus RequireInput(TfLiteContext* context, const FullInputs& in, int index) {
  if (in[index] != nullptr) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "input %d (%s) is required but absent", index, kFullInputNames[index]);
  return kTfLiteError;
}

TfLiteStatus RequireAbsent(TfLiteContext* context, const FullInputs& in, int index, const char* reason) {
  if (in[index] == nullptr) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "input %d (%s) must be absent %s", index, kFullInputNames[index], reason);
  return kTfLiteError;
}

// Picks the arithmetic from the input's and the weights' types.
TfLiteStatus ChooseArithmetic(TfLiteContext* context, const TfLiteNode* node, const FullInputs& in, bool is_sequence,
                              Arithmetic* arithmetic) {
  const TfLiteType input_type = in[full::kInputTensor]->type;
  const TfLiteType weight_type = in[full::kInputToOutputWeightsTensor]->type;
  if (input_type == kTfLiteFloat32 && weight_type == kTfLiteFloat32) {
    *arithmetic = Arithmetic::kFloat;
    return kTfLiteOk;
  }
  // Hybrid: TFLite reads uint8 weights as int8 bytes, and so does this kernel.
  if (input_type == kTfLiteFloat32 && (weight_type == kTfLiteInt8 || weight_type == kTfLiteUInt8)) {
    *arithmetic = Arithmetic::kHybrid;
    return kTfLiteOk;
  }
  if (input_type == kTfLiteInt8 && weight_type == kTfLiteInt8) {
    const int num_intermediates = node->intermediates != nullptr ? node->intermediates->size : 0;
    if (num_intermediates == kNumIntegerIntermediates) {
      *arithmetic = Arithmetic::kInteger;
      return kTfLiteOk;
    }
    if (num_intermediates == 12 && !is_sequence) {
      TF_LITE_KERNEL_LOG(context,
                         "the integer LSTM with 8-bit gates (12 intermediate tensors) is not "
                         "supported; only the 16-bit gate form (5 intermediates) is");
      return kTfLiteError;
    }
    TF_LITE_KERNEL_LOG(context,
                       "an integer LSTM needs 5 intermediate tensors (the gate and hidden "
                       "scales), got %d",
                       num_intermediates);
    return kTfLiteError;
  }
  TF_LITE_KERNEL_LOG(context,
                     "input 0 (input) has type %s and input 4 (input_to_output_weights) type %s; "
                     "supported: FLOAT32 with FLOAT32 or INT8 weights, INT8 with INT8 weights",
                     TfLiteTypeGetName(input_type), TfLiteTypeGetName(weight_type));
  return kTfLiteError;
}

// The type a parameter tensor must have under `arithmetic` (`weight_type` is the hybrid weights').
TfLiteType ExpectedParameterType(int index, Arithmetic arithmetic, TfLiteType weight_type) {
  const bool is_bias = (index >= full::kInputGateBiasTensor && index <= full::kOutputGateBiasTensor) ||
                       index == full::kProjectionBiasTensor;
  const bool is_peephole = index >= full::kCellToInputWeightsTensor && index <= full::kCellToOutputWeightsTensor;
  const bool is_layer_norm = index >= full::kInputLayerNormCoefficientsTensor;
  switch (arithmetic) {
    case Arithmetic::kFloat:
      return kTfLiteFloat32;
    case Arithmetic::kHybrid:
      return is_bias || is_layer_norm ? kTfLiteFloat32 : weight_type;
    case Arithmetic::kInteger:
      if (is_bias) return kTfLiteInt32;
      if (is_peephole || is_layer_norm) return kTfLiteInt16;
      return kTfLiteInt8;
  }
  return kTfLiteNoType;
}

// Checks every parameter tensor of a full kernel against the sizes and the all-or-none rules of
// TFLite's CheckInputTensorDimensions, and their types against the arithmetic.
TfLiteStatus CheckParameters(TfLiteContext* context, const FullInputs& in, int n_cell, int n_input, int n_output,
                             bool use_layer_norm, Arithmetic arithmetic) {
  const bool use_cifg = in[full::kInputToInputWeightsTensor] == nullptr;
  // Both input-gate weights, or neither (CIFG); the input gate bias goes with them.
  if (use_cifg) {
    TF_LITE_ENSURE_OK(
        context, RequireAbsent(context, in, full::kRecurrentToInputWeightsTensor, "in a CIFG LSTM (input 1 absent)"));
    TF_LITE_ENSURE_OK(context,
                      RequireAbsent(context, in, full::kInputGateBiasTensor, "in a CIFG LSTM (input 1 absent)"));
  } else {
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kRecurrentToInputWeightsTensor));
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kInputGateBiasTensor));
  }
  for (int index : {full::kInputToForgetWeightsTensor, full::kInputToCellWeightsTensor,
                    full::kRecurrentToForgetWeightsTensor, full::kRecurrentToCellWeightsTensor,
                    full::kForgetGateBiasTensor, full::kCellGateBiasTensor, full::kOutputGateBiasTensor}) {
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, index));
  }

  // Peephole weights: all three (the input gate's may be left out with CIFG), or none.
  const bool has_cell_to_input = in[full::kCellToInputWeightsTensor] != nullptr;
  const bool has_cell_to_forget = in[full::kCellToForgetWeightsTensor] != nullptr;
  const bool has_cell_to_output = in[full::kCellToOutputWeightsTensor] != nullptr;
  const bool peephole_all = (has_cell_to_input || use_cifg) && has_cell_to_forget && has_cell_to_output;
  const bool peephole_none = !has_cell_to_input && !has_cell_to_forget && !has_cell_to_output;
  if (!peephole_all && !peephole_none) {
    TF_LITE_KERNEL_LOG(context,
                       "peephole weights (inputs 9, 10, 11) must be given all or none (input 9 "
                       "may be left out in a CIFG LSTM)");
    return kTfLiteError;
  }
  // TFLite's integer peephole walks the cell state with a stride of n_output; beyond n_cell it
  // would read out of bounds.
  if (arithmetic == Arithmetic::kInteger && peephole_all && n_output > n_cell) {
    TF_LITE_KERNEL_LOG(context,
                       "an integer LSTM with peephole weights needs an output size (%d) no larger "
                       "than the number of cells (%d)",
                       n_output, n_cell);
    return kTfLiteError;
  }

  // A projection bias needs projection weights.
  const bool use_projection = in[full::kProjectionWeightsTensor] != nullptr;
  if (!use_projection) {
    TF_LITE_ENSURE_OK(context,
                      RequireAbsent(context, in, full::kProjectionBiasTensor, "without input 16 (projection_weights)"));
    // Without a projection the output state is the cell output itself.
    if (n_output != n_cell) {
      TF_LITE_KERNEL_LOG(context,
                         "the output size (%d, from input 8) must equal the number of cells (%d) "
                         "without a projection",
                         n_output, n_cell);
      return kTfLiteError;
    }
  }

  if (use_layer_norm) {
    if (use_cifg) {
      TF_LITE_ENSURE_OK(context, RequireAbsent(context, in, full::kInputLayerNormCoefficientsTensor, "in a CIFG LSTM"));
    } else {
      TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kInputLayerNormCoefficientsTensor));
    }
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kCellLayerNormCoefficientsTensor));
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kOutputLayerNormCoefficientsTensor));
  } else {
    for (int index : {full::kInputLayerNormCoefficientsTensor, full::kCellLayerNormCoefficientsTensor,
                      full::kOutputLayerNormCoefficientsTensor}) {
      TF_LITE_ENSURE_OK(context,
                        RequireAbsent(context, in, index, "without input 21 (forget_layer_norm_coefficients)"));
    }
  }

  struct Expected {
    int index;
    int rows;
    int cols;  // 0 for vectors
  };
  const Expected expected[] = {
      {full::kInputToInputWeightsTensor, n_cell, n_input},
      {full::kInputToForgetWeightsTensor, n_cell, n_input},
      {full::kInputToCellWeightsTensor, n_cell, n_input},
      {full::kInputToOutputWeightsTensor, n_cell, n_input},
      {full::kRecurrentToInputWeightsTensor, n_cell, n_output},
      {full::kRecurrentToForgetWeightsTensor, n_cell, n_output},
      {full::kRecurrentToCellWeightsTensor, n_cell, n_output},
      {full::kRecurrentToOutputWeightsTensor, n_cell, n_output},
      {full::kCellToInputWeightsTensor, n_cell, 0},
      {full::kCellToForgetWeightsTensor, n_cell, 0},
      {full::kCellToOutputWeightsTensor, n_cell, 0},
      {full::kInputGateBiasTensor, n_cell, 0},
      {full::kForgetGateBiasTensor, n_cell, 0},
      {full::kCellGateBiasTensor, n_cell, 0},
      {full::kOutputGateBiasTensor, n_cell, 0},
      {full::kProjectionWeightsTensor, n_output, n_cell},
      {full::kProjectionBiasTensor, n_output, 0},
      {full::kInputLayerNormCoefficientsTensor, n_cell, 0},
      {full::kForgetLayerNormCoefficientsTensor, n_cell, 0},
      {full::kCellLayerNormCoefficientsTensor, n_cell, 0},
      {full::kOutputLayerNormCoefficientsTensor, n_cell, 0},
  };
  const TfLiteType weight_type = in[full::kInputToOutputWeightsTensor]->type;
  for (const Expected& e : expected) {
    const TfLiteTensor* tensor = in[e.index];
    if (tensor == nullptr) continue;
    const char* name = kFullInputNames[e.index];
    TF_LITE_ENSURE_OK(context, CheckType(context, tensor, "input", e.index, name,
                                         ExpectedParameterType(e.index, arithmetic, weight_type)));
    if (e.cols == 0) {
      TF_LITE_ENSURE_OK(context, CheckShape(context, tensor, e.index, name, {e.rows}));
    } else {
      TF_LITE_ENSURE_OK(context, CheckShape(context, tensor, e.index, name, {e.rows, e.cols}));
    }
  }
  return kTfLiteOk;
}

// A state must be a variable tensor, which the interpreter keeps across invocations.
TfLiteStatus CheckState(TfLiteContext* context, const TfLiteNode* node, int index, TfLiteType type,
                        int64_t expected_elements) {
  const TfLiteTensor* state = tflite::GetVariableInput(context, node, index);
  if (state == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input %d (%s) must be a variable tensor", index, kFullInputNames[index]);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckType(context, state, "input", index, kFullInputNames[index], type));
  // Any shape with the right number of elements, as in TFLite.
  if (NumElements(state) != expected_elements) {
    TF_LITE_KERNEL_LOG(context, "input %d (%s) has %lld elements, expected %lld", index, kFullInputNames[index],
                       static_cast<long long>(NumElements(state)), static_cast<long long>(expected_elements));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// The weights' row sums times `zero_point`, plus `bias` when given (TFLite's
// PrecomputeZeroPointTimesWeightWithBias); int32 arithmetic wraps as TFLite's does.
std::vector<int32_t> ZeroPointTimesWeightsWithBias(int32_t zero_point, const TfLiteTensor* weights,
                                                   const TfLiteTensor* bias) {
  const int rows = weights->dims->data[0];
  const int cols = weights->dims->data[1];
  std::vector<int32_t> result(rows, 0);
  if (bias != nullptr) std::copy_n(GetTensorData<int32_t>(bias), rows, result.begin());
  const int8_t* w = GetTensorData<int8_t>(weights);
  for (int r = 0; r < rows; ++r) {
    int32_t row_sum = 0;
    for (int c = 0; c < cols; ++c) row_sum += w[r * cols + c];
    result[r] = qu::WrappingAdd(
        result[r], static_cast<int32_t>(static_cast<uint32_t>(row_sum) * static_cast<uint32_t>(zero_point)));
  }
  return result;
}

// The integer kernel's scales, clips and effective biases (TFLite's
// PopulateQuantizedLstmParams8x8_16 and PopulatePrecomputedZPTimesWeightsWithBias). The float
// and double steps are TFLite's own: some products are rounded to float, some are computed in
// double, and QuantizeMultiplier sees exactly those values.
TfLiteStatus PrepareIntegerParams(TfLiteContext* context, const TfLiteNode* node, const FullInputs& in,
                                  bool use_layer_norm, OpData* data) {
  lstm::IntegerParams& p = data->integer;
  const TfLiteTensor* input = in[full::kInputTensor];
  const TfLiteTensor* output_state = in[full::kOutputStateTensor];
  const TfLiteTensor* cell_state = in[full::kCellStateTensor];
  const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const bool use_cifg = in[full::kInputToInputWeightsTensor] == nullptr;
  const bool use_peephole = in[full::kCellToOutputWeightsTensor] != nullptr;
  const bool use_projection = in[full::kProjectionWeightsTensor] != nullptr;

  if (RequireQuantization(context, input, "input 0 (input)") == nullptr ||
      RequireQuantization(context, output_state, "input 18 (output_state)") == nullptr ||
      RequireQuantization(context, cell_state, "input 19 (cell_state)") == nullptr ||
      RequireQuantization(context, output, "output 0") == nullptr) {
    return kTfLiteError;
  }
  // The effective biases are computed here from the weights, so these must be constants. (Their
  // scales are read as TFLite reads them: params.scale, 0 when a tensor has none.)
  for (int index = full::kInputToInputWeightsTensor; index <= full::kProjectionBiasTensor; ++index) {
    const TfLiteTensor* tensor = in[index];
    if (tensor != nullptr && !tflite::IsConstantTensor(tensor)) {
      TF_LITE_KERNEL_LOG(context, "input %d (%s) must be a constant tensor in an integer LSTM", index,
                         kFullInputNames[index]);
      return kTfLiteError;
    }
  }

  // The gates' scales: the intermediates' with layer norm, Q3.12 without; then the hidden state's.
  float intermediate_scale[kNumIntegerIntermediates];
  int32_t intermediate_zp[kNumIntegerIntermediates];
  for (int i = 0; i < kNumIntegerIntermediates; ++i) {
    if (i < kHiddenIntermediate && !use_layer_norm) {
      intermediate_scale[i] = static_cast<float>(std::pow(2, -12));
      intermediate_zp[i] = 0;
      continue;
    }
    const TfLiteTensor* intermediate = tflite::GetIntermediates(context, node, i);
    const TfLiteAffineQuantization* q =
        intermediate == nullptr
            ? nullptr
            : RequireQuantization(context, intermediate, "intermediate tensor " + std::to_string(i));
    if (q == nullptr) {
      if (intermediate == nullptr) {
        TF_LITE_KERNEL_LOG(context, "intermediate tensor %d is missing", i);
      }
      return kTfLiteError;
    }
    intermediate_scale[i] = q->scale->data[0];
    intermediate_zp[i] = q->zero_point->data[0];
  }

  // The cell state's scale must be a power of two, 2^-15 to 2^-9 (TFLite's tanh of the cell state
  // takes 0 to 6 integer bits; LSTM checks the upper bound itself, the sequence op does not).
  int cell_scale = 0;
  if (!qu::CheckedLog2(cell_state->params.scale, &cell_scale)) {
    TF_LITE_KERNEL_LOG(context, "input 19 (cell_state) has scale %g, expected a power of two",
                       cell_state->params.scale);
    return kTfLiteError;
  }
  if (cell_scale < -15 || cell_scale > -9) {
    TF_LITE_KERNEL_LOG(context, "input 19 (cell_state) has scale 2^%d, expected 2^-15 to 2^-9", cell_scale);
    return kTfLiteError;
  }
  p.cell_scale_log2 = cell_scale;

  auto scale_of = [&](int index) { return in[index] != nullptr ? in[index]->params.scale : 1.0f; };
  const float input_scale = input->params.scale;
  const float output_state_scale = output_state->params.scale;
  for (int g = 0; g < lstm::kNumGates; ++g) {
    lstm::IntegerGateParams& gate = p.gates[g];
    if (g == lstm::kInputGate && use_cifg) continue;
    const float input_weight_scale = scale_of(kInputWeights[g]);
    const float recurrent_weight_scale = scale_of(kRecurrentWeights[g]);
    // Intermediates 0..3 are the input, forget, cell and output gates'.
    const float effective_input_scale = input_weight_scale * input_scale / intermediate_scale[g];
    const float effective_recurrent_scale = recurrent_weight_scale * output_state_scale / intermediate_scale[g];
    qu::QuantizeMultiplier(effective_input_scale, &gate.input_scale_a, &gate.input_scale_b);
    qu::QuantizeMultiplier(effective_recurrent_scale, &gate.recurrent_scale_a, &gate.recurrent_scale_b);
    if (use_peephole && kCellWeights[g] >= 0) {
      const float effective_cell_scale =
          static_cast<float>(std::pow(2, cell_scale) * scale_of(kCellWeights[g]) / intermediate_scale[g]);
      qu::QuantizeMultiplier(effective_cell_scale, &gate.cell_scale_a, &gate.cell_scale_b);
    }
    const float layer_norm_scale = use_layer_norm ? scale_of(kLayerNorm[g]) : 1.0f;
    qu::QuantizeMultiplier(layer_norm_scale, &gate.layer_norm_scale_a, &gate.layer_norm_scale_b);
    // 10000 keeps the kernel's arithmetic from overflowing (TFLite's comment).
    gate.variance_guard = std::max(1, qu::TruncateToInt32LikeX86(static_cast<double>(10000 * layer_norm_scale)));

    // With layer norm the gate bias is added after the normalization, not to the products.
    const TfLiteTensor* bias = use_layer_norm ? nullptr : in[kGateBias[g]];
    gate.input_effective_bias = ZeroPointTimesWeightsWithBias(-input->params.zero_point, in[kInputWeights[g]], bias);
    gate.recurrent_effective_bias =
        ZeroPointTimesWeightsWithBias(-output_state->params.zero_point, in[kRecurrentWeights[g]], nullptr);
  }

  const float effective_hidden_scale =
      static_cast<float>(std::pow(2, -15) / intermediate_scale[kHiddenIntermediate] * std::pow(2, -15));
  qu::QuantizeMultiplier(effective_hidden_scale, &p.hidden_scale_a, &p.hidden_scale_b);
  // The hidden state's zero point; HiddenState applies it with TFLite 2.14.1's signs, which
  // dtln_noise_suppression.tflite (128 cells) and lstm_quantized.bin (2 cells) show.
  const int32_t hidden_zero_point = intermediate_zp[kHiddenIntermediate];
  p.hidden_zero_point = hidden_zero_point;
  const int n_cell = in[full::kInputToOutputWeightsTensor]->dims->data[0];
  if (hidden_zero_point != 0 && n_cell % lstm::integer_internal::kHiddenBlock != 0) {
    WarnTfliteDifference(context,
                         "%s with %d cells and hidden zero point %d: TFLite 2.14.1 subtracts the "
                         "zero point from the last %d cells' hidden state where it adds it to the "
                         "others; so does Touchstone",
                         data->is_sequence ? "UNIDIRECTIONAL_SEQUENCE_LSTM" : "LSTM", n_cell,
                         static_cast<int>(hidden_zero_point), n_cell % lstm::integer_internal::kHiddenBlock);
  }
  const float effective_projection_scale =
      scale_of(full::kProjectionWeightsTensor) * intermediate_scale[kHiddenIntermediate] / output_state_scale;
  qu::QuantizeMultiplier(effective_projection_scale, &p.projection_scale_a, &p.projection_scale_b);
  if (use_projection) {
    // TFLite adds the hidden zero point's row sums with a plus sign.
    p.projection_effective_bias = ZeroPointTimesWeightsWithBias(hidden_zero_point, in[full::kProjectionWeightsTensor],
                                                                in[full::kProjectionBiasTensor]);
  }
  p.output_state_zero_point = output_state->params.zero_point;

  const float cell_clip = data->options.cell_clip;
  const float proj_clip = data->options.proj_clip;
  p.quantized_cell_clip =
      cell_clip > 0.0f
          ? static_cast<int16_t>(std::min(std::max(cell_clip / cell_state->params.scale, -32768.0f), 32767.0f))
          : 0;
  p.quantized_proj_clip =
      proj_clip > 0.0f ? static_cast<int8_t>(std::min(std::max(proj_clip / output->params.scale, -128.0f), 127.0f)) : 0;
  return kTfLiteOk;
}

// Prepare of LSTM's full kernel and of UNIDIRECTIONAL_SEQUENCE_LSTM.
TfLiteStatus PrepareFull(TfLiteContext* context, TfLiteNode* node, bool is_sequence) {
  OpData* data = static_cast<OpData*>(node->user_data);
  const int num_inputs = tflite::NumInputs(node);
  if (num_inputs != full::kNumInputs && num_inputs != full::kNumInputsWithoutLayerNorm) {
    TF_LITE_KERNEL_LOG(context, "expects 24 inputs (or 20 without layer normalization), got %d", num_inputs);
    return kTfLiteError;
  }
  if (tflite::NumOutputs(node) != 1) {
    TF_LITE_KERNEL_LOG(context, "expects 1 output, got %d", tflite::NumOutputs(node));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, ReadOptions(context, node, is_sequence, data));

  FullInputs in;
  for (int i = 0; i < num_inputs; ++i) in.tensors[i] = GetOptionalInputTensor(context, node, i);
  for (int index : {full::kInputTensor, full::kInputToOutputWeightsTensor, full::kRecurrentToOutputWeightsTensor}) {
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, index));
  }
  // Layer normalization is on when the forget gate's coefficients are given.
  const bool use_layer_norm = in[full::kForgetLayerNormCoefficientsTensor] != nullptr;

  const TfLiteTensor* input = in[full::kInputTensor];
  const int input_rank = is_sequence ? 3 : 2;
  if (input->dims->size != input_rank) {
    TF_LITE_KERNEL_LOG(context, "input 0 (input) must be %d-D, got %d-D", input_rank, input->dims->size);
    return kTfLiteError;
  }
  int max_time = 1;
  int n_batch = input->dims->data[0];
  if (is_sequence) {
    max_time = data->time_major ? input->dims->data[0] : input->dims->data[1];
    n_batch = data->time_major ? input->dims->data[1] : input->dims->data[0];
  }
  const int n_input = input->dims->data[input_rank - 1];

  const TfLiteTensor* input_to_output_weights = in[full::kInputToOutputWeightsTensor];
  const TfLiteTensor* recurrent_to_output_weights = in[full::kRecurrentToOutputWeightsTensor];
  if (input_to_output_weights->dims->size != 2 || recurrent_to_output_weights->dims->size != 2) {
    TF_LITE_KERNEL_LOG(context, "inputs 4 and 8 (input/recurrent_to_output_weights) must be 2-D");
    return kTfLiteError;
  }
  const int n_cell = input_to_output_weights->dims->data[0];
  const int n_output = recurrent_to_output_weights->dims->data[1];

  TF_LITE_ENSURE_OK(context, ChooseArithmetic(context, node, in, is_sequence, &data->arithmetic));
  const Arithmetic arithmetic = data->arithmetic;
  TF_LITE_ENSURE_OK(context, CheckParameters(context, in, n_cell, n_input, n_output, use_layer_norm, arithmetic));

  // The step indexes its buffers with int.
  const int64_t gate_elements = static_cast<int64_t>(n_batch) * std::max({n_cell, n_output, n_input});
  if (gate_elements > INT_MAX / 5) {
    TF_LITE_KERNEL_LOG(context, "%d batches of %d cells and %d inputs are too many", n_batch, n_cell, n_input);
    return kTfLiteError;
  }

  const bool is_integer = arithmetic == Arithmetic::kInteger;
  TF_LITE_ENSURE_OK(context,
                    CheckState(context, node, full::kOutputStateTensor, is_integer ? kTfLiteInt8 : kTfLiteFloat32,
                               static_cast<int64_t>(n_batch) * n_output));
  TF_LITE_ENSURE_OK(context,
                    CheckState(context, node, full::kCellStateTensor, is_integer ? kTfLiteInt16 : kTfLiteFloat32,
                               static_cast<int64_t>(n_batch) * n_cell));

  TfLiteTensor* output = nullptr;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, full::kOutputTensor, &output));
  TF_LITE_ENSURE_OK(context,
                    CheckType(context, output, "output", 0, "output", is_integer ? kTfLiteInt8 : kTfLiteFloat32));

  data->max_time = max_time;
  data->n_batch = n_batch;
  data->n_cell = n_cell;
  data->n_input = n_input;
  data->n_output = n_output;
  const size_t batch = static_cast<size_t>(n_batch);
  const size_t gate_size = batch * static_cast<size_t>(n_cell);
  switch (arithmetic) {
    case Arithmetic::kFloat:
      data->scratch.assign(4 * gate_size + batch * std::max(n_cell, n_output), 0.0f);
      break;
    case Arithmetic::kHybrid:
      data->scratch.assign(4 * gate_size, 0.0f);
      data->quantized.assign(batch * n_input + batch * n_output + gate_size, 0);
      data->scaling_factors.assign(3 * batch, 0.0f);
      data->zero_points.assign(2 * batch, 0);
      data->recovered_cell_weights.assign(n_cell, 0.0f);
      data->row_sums_computed = false;
      break;
    case Arithmetic::kInteger:
      TF_LITE_ENSURE_OK(context, PrepareIntegerParams(context, node, in, use_layer_norm, data));
      data->integer_gates.assign(4 * gate_size, 0);
      data->integer_hidden.assign(gate_size, 0);
      break;
  }

  // LSTM: {n_batch, n_output}; the sequence op: the input's shape with n_output last.
  TfLiteIntArray* output_shape = TfLiteIntArrayCopy(input->dims);
  output_shape->data[input_rank - 1] = n_output;
  return context->ResizeTensor(context, output, output_shape);
}

TfLiteStatus EvalFloat(TfLiteContext* context, TfLiteNode* node, OpData* data) {
  auto weights = [&](int index) { return GetTensorData<float>(GetOptionalInputTensor(context, node, index)); };
  lstm::FloatWeights w;
  w.input_to_input = weights(full::kInputToInputWeightsTensor);
  w.input_to_forget = weights(full::kInputToForgetWeightsTensor);
  w.input_to_cell = weights(full::kInputToCellWeightsTensor);
  w.input_to_output = weights(full::kInputToOutputWeightsTensor);
  w.recurrent_to_input = weights(full::kRecurrentToInputWeightsTensor);
  w.recurrent_to_forget = weights(full::kRecurrentToForgetWeightsTensor);
  w.recurrent_to_cell = weights(full::kRecurrentToCellWeightsTensor);
  w.recurrent_to_output = weights(full::kRecurrentToOutputWeightsTensor);
  w.cell_to_input = weights(full::kCellToInputWeightsTensor);
  w.cell_to_forget = weights(full::kCellToForgetWeightsTensor);
  w.cell_to_output = weights(full::kCellToOutputWeightsTensor);
  w.input_gate_bias = weights(full::kInputGateBiasTensor);
  w.forget_gate_bias = weights(full::kForgetGateBiasTensor);
  w.cell_gate_bias = weights(full::kCellGateBiasTensor);
  w.output_gate_bias = weights(full::kOutputGateBiasTensor);
  w.projection_weights = weights(full::kProjectionWeightsTensor);
  w.projection_bias = weights(full::kProjectionBiasTensor);
  w.input_layer_norm = weights(full::kInputLayerNormCoefficientsTensor);
  w.forget_layer_norm = weights(full::kForgetLayerNormCoefficientsTensor);
  w.cell_layer_norm = weights(full::kCellLayerNormCoefficientsTensor);
  w.output_layer_norm = weights(full::kOutputLayerNormCoefficientsTensor);

  const int gate_size = data->n_batch * data->n_cell;
  lstm::FloatScratch scratch;
  float* buffer = data->scratch.data();
  if (w.input_to_input != nullptr) scratch.input_gate = buffer;
  scratch.forget_gate = buffer + gate_size;
  scratch.cell_gate = buffer + 2 * gate_size;
  scratch.output_gate = buffer + 3 * gate_size;
  scratch.accumulation = buffer + 4 * gate_size;

  TfLiteTensor* output_state = tflite::GetVariableInput(context, node, full::kOutputStateTensor);
  TfLiteTensor* cell_state = tflite::GetVariableInput(context, node, full::kCellStateTensor);
  lstm::FloatSequence(w, data->options, data->max_time, data->n_batch, data->n_cell, data->n_input, data->n_output,
                      data->time_major, GetTensorData<float>(tflite::GetInput(context, node, full::kInputTensor)),
                      GetTensorData<float>(output_state), GetTensorData<float>(cell_state), scratch,
                      GetTensorData<float>(tflite::GetOutput(context, node, full::kOutputTensor)));
  return kTfLiteOk;
}

TfLiteStatus EvalHybrid(TfLiteContext* context, TfLiteNode* node, OpData* data) {
  auto tensor = [&](int index) { return GetOptionalInputTensor(context, node, index); };
  // Weights are read as int8 whatever their declared type (int8 or uint8), as TFLite does.
  auto int8_data = [&](int index) {
    const TfLiteTensor* t = tensor(index);
    return t == nullptr ? nullptr : reinterpret_cast<const int8_t*>(t->data.raw);
  };
  auto scale = [&](int index) {
    const TfLiteTensor* t = tensor(index);
    return t == nullptr ? 1.0f : t->params.scale;
  };
  const int n_cell = data->n_cell;
  const int n_input = data->n_input;
  const int n_output = data->n_output;
  const bool asymmetric = data->asymmetric_quantize_inputs;

  if (asymmetric && !data->row_sums_computed) {
    for (int g = 0; g < lstm::kNumGates; ++g) {
      if (tensor(kInputWeights[g]) == nullptr) continue;
      data->input_row_sums[g] = RowSums(int8_data(kInputWeights[g]), n_cell, n_input);
      data->recurrent_row_sums[g] = RowSums(int8_data(kRecurrentWeights[g]), n_cell, n_output);
    }
    if (tensor(full::kProjectionWeightsTensor) != nullptr) {
      data->projection_row_sums = RowSums(int8_data(full::kProjectionWeightsTensor), n_output, n_cell);
    }
    data->row_sums_computed = true;
  }

  lstm::HybridWeights w;
  for (int g = 0; g < lstm::kNumGates; ++g) {
    lstm::HybridGateWeights& gate = w.gates[g];
    gate.input_weights = int8_data(kInputWeights[g]);
    gate.input_scale = scale(kInputWeights[g]);
    gate.recurrent_weights = int8_data(kRecurrentWeights[g]);
    gate.recurrent_scale = scale(kRecurrentWeights[g]);
    if (kCellWeights[g] >= 0) {
      gate.cell_weights = int8_data(kCellWeights[g]);
      gate.cell_scale = scale(kCellWeights[g]);
    }
    gate.layer_norm = GetTensorData<float>(tensor(kLayerNorm[g]));
    gate.bias = GetTensorData<float>(tensor(kGateBias[g]));
    if (asymmetric && gate.input_weights != nullptr) {
      gate.input_row_sums = data->input_row_sums[g].data();
      gate.recurrent_row_sums = data->recurrent_row_sums[g].data();
    }
  }
  w.projection = int8_data(full::kProjectionWeightsTensor);
  w.projection_scale = scale(full::kProjectionWeightsTensor);
  w.projection_bias = GetTensorData<float>(tensor(full::kProjectionBiasTensor));
  if (asymmetric) w.projection_row_sums = data->projection_row_sums.data();

  const int n_batch = data->n_batch;
  const int gate_size = n_batch * n_cell;
  lstm::HybridScratch scratch;
  for (int g = 0; g < lstm::kNumGates; ++g) scratch.gates[g] = data->scratch.data() + g * gate_size;
  if (w.gates[lstm::kInputGate].input_weights == nullptr) scratch.gates[lstm::kInputGate] = nullptr;
  scratch.quantized_input = data->quantized.data();
  scratch.quantized_output_state = scratch.quantized_input + n_batch * n_input;
  scratch.quantized_hidden = scratch.quantized_output_state + n_batch * n_output;
  scratch.input_scaling_factors = data->scaling_factors.data();
  scratch.output_state_scaling_factors = scratch.input_scaling_factors + n_batch;
  scratch.product_scaling_factors = scratch.output_state_scaling_factors + n_batch;
  scratch.input_zero_points = data->zero_points.data();
  scratch.output_state_zero_points = scratch.input_zero_points + n_batch;
  scratch.recovered_cell_weights = data->recovered_cell_weights.data();

  const lstm::HybridOptions options = {data->options, asymmetric};
  TfLiteTensor* output_state = tflite::GetVariableInput(context, node, full::kOutputStateTensor);
  TfLiteTensor* cell_state = tflite::GetVariableInput(context, node, full::kCellStateTensor);
  lstm::HybridSequence(w, options, data->max_time, n_batch, n_cell, n_input, n_output, data->time_major,
                       GetTensorData<float>(tflite::GetInput(context, node, full::kInputTensor)),
                       GetTensorData<float>(output_state), GetTensorData<float>(cell_state), scratch,
                       GetTensorData<float>(tflite::GetOutput(context, node, full::kOutputTensor)));
  return kTfLiteOk;
}

TfLiteStatus EvalInteger(TfLiteContext* context, TfLiteNode* node, OpData* data) {
  auto tensor = [&](int index) { return GetOptionalInputTensor(context, node, index); };
  const bool use_layer_norm = tensor(full::kForgetLayerNormCoefficientsTensor) != nullptr;
  lstm::IntegerWeights w;
  for (int g = 0; g < lstm::kNumGates; ++g) {
    lstm::IntegerGateWeights& gate = w.gates[g];
    gate.input_weights = GetTensorData<int8_t>(tensor(kInputWeights[g]));
    gate.recurrent_weights = GetTensorData<int8_t>(tensor(kRecurrentWeights[g]));
    if (kCellWeights[g] >= 0) gate.cell_weights = GetTensorData<int16_t>(tensor(kCellWeights[g]));
    if (use_layer_norm) {
      gate.layer_norm = GetTensorData<int16_t>(tensor(kLayerNorm[g]));
      gate.bias = GetTensorData<int32_t>(tensor(kGateBias[g]));
    }
  }
  w.projection = GetTensorData<int8_t>(tensor(full::kProjectionWeightsTensor));

  const int gate_size = data->n_batch * data->n_cell;
  lstm::IntegerScratch scratch;
  for (int g = 0; g < lstm::kNumGates; ++g) {
    scratch.gates[g] = data->integer_gates.data() + g * gate_size;
  }
  scratch.hidden = data->integer_hidden.data();

  TfLiteTensor* output_state = tflite::GetVariableInput(context, node, full::kOutputStateTensor);
  TfLiteTensor* cell_state = tflite::GetVariableInput(context, node, full::kCellStateTensor);
  lstm::IntegerSequence(w, data->integer, data->max_time, data->n_batch, data->n_cell, data->n_input, data->n_output,
                        data->time_major, GetTensorData<int8_t>(tflite::GetInput(context, node, full::kInputTensor)),
                        GetTensorData<int8_t>(output_state), GetTensorData<int16_t>(cell_state), scratch,
                        GetTensorData<int8_t>(tflite::GetOutput(context, node, full::kOutputTensor)));
  return kTfLiteOk;
}

TfLiteStatus EvalFull(TfLiteContext* context, TfLiteNode* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  switch (data->arithmetic) {
    case Arithmetic::kFloat:
      return EvalFloat(context, node, data);
    case Arithmetic::kHybrid:
      return EvalHybrid(context, node, data);
    case Arithmetic::kInteger:
      return EvalInteger(context, node, data);
  }
  return kTfLiteError;
}

// The basic kernel: float32 only (TFLite also has a uint8/int16 form, not supported yet).
TfLiteStatus PrepareBasic(TfLiteContext* context, TfLiteNode* node) {
  if (tflite::NumInputs(node) != basic::kNumInputs || tflite::NumOutputs(node) != basic::kNumOutputs) {
    TF_LITE_KERNEL_LOG(context, "the basic LSTM kernel expects 5 inputs and 4 outputs, got %d and %d",
                       tflite::NumInputs(node), tflite::NumOutputs(node));
    return kTfLiteError;
  }
  static constexpr const char* kInputNames[basic::kNumInputs] = {"input", "prev_activation", "weights", "biases",
                                                                 "prev_state"};
  static constexpr const char* kOutputNames[basic::kNumOutputs] = {"activation", "state", "concat_temp",
                                                                   "activation_temp"};
  const TfLiteTensor* inputs[basic::kNumInputs];
  for (int i = 0; i < basic::kNumInputs; ++i) {
    TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, i, &inputs[i]));
    if (inputs[i]->type != kTfLiteFloat32) {
      TF_LITE_KERNEL_LOG(context, "input %d (%s) has type %s; the basic LSTM kernel supports FLOAT32 only", i,
                         kInputNames[i], TfLiteTypeGetName(inputs[i]->type));
      return kTfLiteError;
    }
  }
  TfLiteTensor* outputs[basic::kNumOutputs];
  for (int i = 0; i < basic::kNumOutputs; ++i) {
    TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, i, &outputs[i]));
    TF_LITE_ENSURE_OK(context, CheckType(context, outputs[i], "output", i, kOutputNames[i], kTfLiteFloat32));
  }

  const TfLiteTensor* input = inputs[basic::kInputData];
  const TfLiteTensor* prev_activation = inputs[basic::kInputPrevActivation];
  if (input->dims->size != 2 || prev_activation->dims->size != 2) {
    TF_LITE_KERNEL_LOG(context, "inputs 0 (input) and 1 (prev_activation) must be 2-D");
    return kTfLiteError;
  }
  const int n_batch = input->dims->data[0];
  const int input_depth = input->dims->data[1];
  const int depth = prev_activation->dims->data[1];
  if (prev_activation->dims->data[0] != n_batch) {
    TF_LITE_KERNEL_LOG(context, "input 1 (prev_activation) has %d rows, input 0 has %d", prev_activation->dims->data[0],
                       n_batch);
    return kTfLiteError;
  }
  const int64_t gates = 4 * static_cast<int64_t>(depth);
  const int64_t total_depth = static_cast<int64_t>(input_depth) + depth;
  if (gates > INT_MAX || total_depth > INT_MAX) {
    TF_LITE_KERNEL_LOG(context, "input 1 (prev_activation) depth %d is too large", depth);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(
      context, CheckShape(context, inputs[basic::kInputWeights], basic::kInputWeights,
                          kInputNames[basic::kInputWeights], {static_cast<int>(gates), static_cast<int>(total_depth)}));
  TF_LITE_ENSURE_OK(context, CheckShape(context, inputs[basic::kInputBiases], basic::kInputBiases,
                                        kInputNames[basic::kInputBiases], {static_cast<int>(gates)}));
  TF_LITE_ENSURE_OK(context, CheckShape(context, inputs[basic::kInputPrevState], basic::kInputPrevState,
                                        kInputNames[basic::kInputPrevState], {n_batch, depth}));

  TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, outputs[basic::kOutputActivation],
                                                   TfLiteIntArrayCopy(prev_activation->dims)));
  TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, outputs[basic::kOutputState],
                                                   TfLiteIntArrayCopy(inputs[basic::kInputPrevState]->dims)));
  TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, outputs[basic::kOutputConcatTemp],
                                                   tflite::CreateIntArray({n_batch, static_cast<int>(total_depth)})));
  return context->ResizeTensor(context, outputs[basic::kOutputActivationTemp],
                               tflite::CreateIntArray({n_batch, static_cast<int>(gates)}));
}

TfLiteStatus EvalBasic(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, basic::kInputData);
  const TfLiteTensor* prev_activation = tflite::GetInput(context, node, basic::kInputPrevActivation);
  auto input_data = [&](int index) { return GetTensorData<float>(tflite::GetInput(context, node, index)); };
  auto output_data = [&](int index) { return GetTensorData<float>(tflite::GetOutput(context, node, index)); };
  lstm::FloatBasicCell(
      input->dims->data[0], input->dims->data[1], prev_activation->dims->data[1], input_data(basic::kInputData),
      input_data(basic::kInputPrevActivation), input_data(basic::kInputWeights), input_data(basic::kInputBiases),
      input_data(basic::kInputPrevState), output_data(basic::kOutputState), output_data(basic::kOutputActivation),
      output_data(basic::kOutputConcatTemp), output_data(basic::kOutputActivationTemp));
  return kTfLiteOk;
}

TfLiteStatus PrepareLstm(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteLSTMParams*>(node->builtin_data);
  OpData* data = static_cast<OpData*>(node->user_data);
  data->basic_kernel = params != nullptr && params->kernel_type == kTfLiteLSTMBasicKernel;
  if (data->basic_kernel) return PrepareBasic(context, node);
  return PrepareFull(context, node, /*is_sequence=*/false);
}

TfLiteStatus EvalLstm(TfLiteContext* context, TfLiteNode* node) {
  if (static_cast<OpData*>(node->user_data)->basic_kernel) return EvalBasic(context, node);
  return EvalFull(context, node);
}

TfLiteStatus PrepareSequenceLstm(TfLiteContext* context, TfLiteNode* node) {
  return PrepareFull(context, node, /*is_sequence=*/true);
}

}  // namespace

const lstm::IntegerParams* LstmIntegerParams(const void* user_data) {
  const auto* data = static_cast<const OpData*>(user_data);
  if (data == nullptr || data->basic_kernel || data->arithmetic != Arithmetic::kInteger) return nullptr;
  return &data->integer;
}

TS_REGISTER(LSTM, NewNodeData<OpData>, DeleteNodeData<OpData>, PrepareLstm, EvalLstm)
TS_REGISTER(UNIDIRECTIONAL_SEQUENCE_LSTM, NewNodeData<OpData>, DeleteNodeData<OpData>, PrepareSequenceLstm, EvalFull)

}  // namespace reference
}  // namespace touchstone
