// Reference LSTM kernels: LSTM (full and basic kernel) and UNIDIRECTIONAL_SEQUENCE_LSTM, computing
// what TensorFlow Lite 2.14's lstm.cc / unidirectional_sequence_lstm.cc compute. The arithmetic
// lives in runtime/kernels/internal/lstm_float.h; this file validates nodes and wires tensors to
// it.
//
// The full kernel runs in float32 today. Its arithmetic is chosen in Prepare from the tensor types
// (see ChooseArithmetic); the hybrid (float input, int8 weights) and integer (int8 input, int16
// cell state) paths of a later issue add their own cases there and in EvalFull.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/lstm_float.h"
#include "runtime/kernels/internal/lstm_shared.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using tflite::GetOptionalInputTensor;
using tflite::GetTensorData;
using tflite::NumElements;

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

// How a full-kernel node computes, decided in Prepare from its tensor types.
enum class Arithmetic { kFloat };

struct OpData {
  // LSTM only: the basic kernel (5 inputs, 4 outputs) instead of the full one.
  bool basic_kernel = false;

  Arithmetic arithmetic = Arithmetic::kFloat;
  bool time_major = true;  // LSTM is one time-major step
  lstm::FloatOptions options;
  int max_time = 0;
  int n_batch = 0;
  int n_cell = 0;
  int n_input = 0;
  int n_output = 0;
  // Four gate buffers of n_batch * n_cell, then the accumulation buffer.
  std::vector<float> scratch;
};

void* Init(TfLiteContext*, const char*, size_t) { return new OpData(); }

void Free(TfLiteContext*, void* buffer) { delete static_cast<OpData*>(buffer); }

bool IsValidActivation(TfLiteFusedActivation activation) {
  switch (activation) {
    case kTfLiteActNone:
    case kTfLiteActRelu:
    case kTfLiteActReluN1To1:
    case kTfLiteActRelu6:
    case kTfLiteActTanh:
    case kTfLiteActSignBit:
    case kTfLiteActSigmoid:
      return true;
  }
  return false;
}

// Reads the options both full-kernel ops share into `data`. A node without options gets the
// zero-filled struct TFLite's parser would give it.
TfLiteStatus ReadOptions(TfLiteContext* context, const TfLiteNode* node, bool is_sequence,
                         OpData* data) {
  lstm::FloatOptions& options = data->options;
  options = {kTfLiteActNone, 0.0f, 0.0f};
  data->time_major = !is_sequence;
  if (is_sequence) {
    const auto* params =
        static_cast<const TfLiteUnidirectionalSequenceLSTMParams*>(node->builtin_data);
    if (params != nullptr) {
      options = {params->activation, params->cell_clip, params->proj_clip};
      data->time_major = params->time_major;
      if (params->diagonal_recurrent_tensors) {
        TF_LITE_KERNEL_LOG(context, "option diagonal_recurrent_tensors is not supported");
        return kTfLiteError;
      }
    }
  } else {
    const auto* params = static_cast<const TfLiteLSTMParams*>(node->builtin_data);
    if (params != nullptr) options = {params->activation, params->cell_clip, params->proj_clip};
  }
  if (!IsValidActivation(options.activation)) {
    TF_LITE_KERNEL_LOG(context, "fused activation %d is not a valid activation",
                       static_cast<int>(options.activation));
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
TfLiteStatus CheckShape(TfLiteContext* context, const TfLiteTensor* tensor, int index,
                        const char* name, std::initializer_list<int> dims) {
  bool same = tensor->dims->size == static_cast<int>(dims.size());
  for (int i = 0; same && i < tensor->dims->size; ++i) {
    same = tensor->dims->data[i] == dims.begin()[i];
  }
  if (same) return kTfLiteOk;
  auto to_string = [](const int* data, int size) {
    std::string text = "[";
    for (int i = 0; i < size; ++i) text += (i > 0 ? ", " : "") + std::to_string(data[i]);
    return text + "]";
  };
  TF_LITE_KERNEL_LOG(context, "input %d (%s) has shape %s, expected %s", index, name,
                     to_string(tensor->dims->data, tensor->dims->size).c_str(),
                     to_string(dims.begin(), static_cast<int>(dims.size())).c_str());
  return kTfLiteError;
}

TfLiteStatus CheckType(TfLiteContext* context, const TfLiteTensor* tensor, const char* what,
                       int index, const char* name, TfLiteType type) {
  if (tensor->type == type) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s %d (%s) has type %s, expected %s", what, index, name,
                     TfLiteTypeGetName(tensor->type), TfLiteTypeGetName(type));
  return kTfLiteError;
}

// The full kernel's inputs, null where absent.
struct FullInputs {
  const TfLiteTensor* tensors[full::kNumInputs] = {};
  const TfLiteTensor* operator[](int index) const { return tensors[index]; }
};

TfLiteStatus RequireInput(TfLiteContext* context, const FullInputs& in, int index) {
  if (in[index] != nullptr) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "input %d (%s) is required but absent", index,
                     kFullInputNames[index]);
  return kTfLiteError;
}

TfLiteStatus RequireAbsent(TfLiteContext* context, const FullInputs& in, int index,
                           const char* reason) {
  if (in[index] == nullptr) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "input %d (%s) must be absent %s", index, kFullInputNames[index],
                     reason);
  return kTfLiteError;
}

// Picks the arithmetic from the input's and the weights' types. Only float32 is implemented; the
// hybrid and integer forms are refused by name until they are.
TfLiteStatus ChooseArithmetic(TfLiteContext* context, const FullInputs& in,
                              Arithmetic* arithmetic) {
  const TfLiteType input_type = in[full::kInputTensor]->type;
  const TfLiteType weight_type = in[full::kInputToOutputWeightsTensor]->type;
  if (input_type == kTfLiteFloat32 && weight_type == kTfLiteFloat32) {
    *arithmetic = Arithmetic::kFloat;
    return kTfLiteOk;
  }
  if (input_type == kTfLiteFloat32 && (weight_type == kTfLiteInt8 || weight_type == kTfLiteUInt8)) {
    TF_LITE_KERNEL_LOG(context,
                       "input 4 (input_to_output_weights) has type %s with a FLOAT32 input: "
                       "hybrid LSTM (quantized weights, float activations) is not supported yet",
                       TfLiteTypeGetName(weight_type));
    return kTfLiteError;
  }
  if (input_type == kTfLiteInt8 && weight_type == kTfLiteInt8) {
    TF_LITE_KERNEL_LOG(context,
                       "input 4 (input_to_output_weights) has type INT8 with an INT8 input: "
                       "integer LSTM (int8 weights, int16 cell state) is not supported yet");
    return kTfLiteError;
  }
  TF_LITE_KERNEL_LOG(context,
                     "input 0 (input) has type %s and input 4 (input_to_output_weights) type %s; "
                     "supported: FLOAT32 with FLOAT32 weights",
                     TfLiteTypeGetName(input_type), TfLiteTypeGetName(weight_type));
  return kTfLiteError;
}

// Checks every parameter tensor of a float full kernel against the sizes and the all-or-none rules
// of TFLite's CheckInputTensorDimensions, and that all are float32.
TfLiteStatus CheckFloatParameters(TfLiteContext* context, const FullInputs& in, int n_cell,
                                  int n_input, int n_output, bool use_layer_norm) {
  const bool use_cifg = in[full::kInputToInputWeightsTensor] == nullptr;
  // Both input-gate weights, or neither (CIFG); the input gate bias goes with them.
  if (use_cifg) {
    TF_LITE_ENSURE_OK(context, RequireAbsent(context, in, full::kRecurrentToInputWeightsTensor,
                                             "in a CIFG LSTM (input 1 absent)"));
    TF_LITE_ENSURE_OK(context, RequireAbsent(context, in, full::kInputGateBiasTensor,
                                             "in a CIFG LSTM (input 1 absent)"));
  } else {
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kRecurrentToInputWeightsTensor));
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kInputGateBiasTensor));
  }
  for (int index :
       {full::kInputToForgetWeightsTensor, full::kInputToCellWeightsTensor,
        full::kRecurrentToForgetWeightsTensor, full::kRecurrentToCellWeightsTensor,
        full::kForgetGateBiasTensor, full::kCellGateBiasTensor, full::kOutputGateBiasTensor}) {
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, index));
  }

  // Peephole weights: all three (the input gate's may be left out with CIFG), or none.
  const bool has_cell_to_input = in[full::kCellToInputWeightsTensor] != nullptr;
  const bool has_cell_to_forget = in[full::kCellToForgetWeightsTensor] != nullptr;
  const bool has_cell_to_output = in[full::kCellToOutputWeightsTensor] != nullptr;
  const bool peephole_all =
      (has_cell_to_input || use_cifg) && has_cell_to_forget && has_cell_to_output;
  const bool peephole_none = !has_cell_to_input && !has_cell_to_forget && !has_cell_to_output;
  if (!peephole_all && !peephole_none) {
    TF_LITE_KERNEL_LOG(context,
                       "peephole weights (inputs 9, 10, 11) must be given all or none (input 9 "
                       "may be left out in a CIFG LSTM)");
    return kTfLiteError;
  }

  // A projection bias needs projection weights.
  const bool use_projection = in[full::kProjectionWeightsTensor] != nullptr;
  if (!use_projection) {
    TF_LITE_ENSURE_OK(context, RequireAbsent(context, in, full::kProjectionBiasTensor,
                                             "without input 16 (projection_weights)"));
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
      TF_LITE_ENSURE_OK(context, RequireAbsent(context, in, full::kInputLayerNormCoefficientsTensor,
                                               "in a CIFG LSTM"));
    } else {
      TF_LITE_ENSURE_OK(context,
                        RequireInput(context, in, full::kInputLayerNormCoefficientsTensor));
    }
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kCellLayerNormCoefficientsTensor));
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, full::kOutputLayerNormCoefficientsTensor));
  } else {
    for (int index :
         {full::kInputLayerNormCoefficientsTensor, full::kCellLayerNormCoefficientsTensor,
          full::kOutputLayerNormCoefficientsTensor}) {
      TF_LITE_ENSURE_OK(
          context,
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
  for (const Expected& e : expected) {
    const TfLiteTensor* tensor = in[e.index];
    if (tensor == nullptr) continue;
    const char* name = kFullInputNames[e.index];
    TF_LITE_ENSURE_OK(context, CheckType(context, tensor, "input", e.index, name, kTfLiteFloat32));
    if (e.cols == 0) {
      TF_LITE_ENSURE_OK(context, CheckShape(context, tensor, e.index, name, {e.rows}));
    } else {
      TF_LITE_ENSURE_OK(context, CheckShape(context, tensor, e.index, name, {e.rows, e.cols}));
    }
  }
  return kTfLiteOk;
}

// A state must be a variable tensor, which the interpreter keeps across invocations.
TfLiteStatus CheckState(TfLiteContext* context, const TfLiteNode* node, int index,
                        int64_t expected_elements) {
  const TfLiteTensor* state = tflite::GetVariableInput(context, node, index);
  if (state == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input %d (%s) must be a variable tensor", index,
                       kFullInputNames[index]);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(
      context, CheckType(context, state, "input", index, kFullInputNames[index], kTfLiteFloat32));
  // Any shape with the right number of elements, as in TFLite.
  if (NumElements(state) != expected_elements) {
    TF_LITE_KERNEL_LOG(context, "input %d (%s) has %lld elements, expected %lld", index,
                       kFullInputNames[index], static_cast<long long>(NumElements(state)),
                       static_cast<long long>(expected_elements));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Prepare of LSTM's full kernel and of UNIDIRECTIONAL_SEQUENCE_LSTM.
TfLiteStatus PrepareFull(TfLiteContext* context, TfLiteNode* node, bool is_sequence) {
  OpData* data = static_cast<OpData*>(node->user_data);
  const int num_inputs = tflite::NumInputs(node);
  if (num_inputs != full::kNumInputs && num_inputs != full::kNumInputsWithoutLayerNorm) {
    TF_LITE_KERNEL_LOG(context, "expects 24 inputs (or 20 without layer normalization), got %d",
                       num_inputs);
    return kTfLiteError;
  }
  if (tflite::NumOutputs(node) != 1) {
    TF_LITE_KERNEL_LOG(context, "expects 1 output, got %d", tflite::NumOutputs(node));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, ReadOptions(context, node, is_sequence, data));

  FullInputs in;
  for (int i = 0; i < num_inputs; ++i) in.tensors[i] = GetOptionalInputTensor(context, node, i);
  for (int index : {full::kInputTensor, full::kInputToOutputWeightsTensor,
                    full::kRecurrentToOutputWeightsTensor}) {
    TF_LITE_ENSURE_OK(context, RequireInput(context, in, index));
  }
  // Layer normalization is on when the forget gate's coefficients are given.
  const bool use_layer_norm = in[full::kForgetLayerNormCoefficientsTensor] != nullptr;

  const TfLiteTensor* input = in[full::kInputTensor];
  const int input_rank = is_sequence ? 3 : 2;
  if (input->dims->size != input_rank) {
    TF_LITE_KERNEL_LOG(context, "input 0 (input) must be %d-D, got %d-D", input_rank,
                       input->dims->size);
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

  TF_LITE_ENSURE_OK(context, ChooseArithmetic(context, in, &data->arithmetic));
  TF_LITE_ENSURE_OK(context,
                    CheckFloatParameters(context, in, n_cell, n_input, n_output, use_layer_norm));

  // The step indexes its buffers with int.
  const int64_t gate_elements = static_cast<int64_t>(n_batch) * std::max(n_cell, n_output);
  if (gate_elements > INT_MAX / 5) {
    TF_LITE_KERNEL_LOG(context, "%d batches of %d cells are too many", n_batch, n_cell);
    return kTfLiteError;
  }

  TF_LITE_ENSURE_OK(context, CheckState(context, node, full::kOutputStateTensor,
                                        static_cast<int64_t>(n_batch) * n_output));
  TF_LITE_ENSURE_OK(context, CheckState(context, node, full::kCellStateTensor,
                                        static_cast<int64_t>(n_batch) * n_cell));

  TfLiteTensor* output = nullptr;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, full::kOutputTensor, &output));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output", 0, "output", kTfLiteFloat32));

  data->max_time = max_time;
  data->n_batch = n_batch;
  data->n_cell = n_cell;
  data->n_input = n_input;
  data->n_output = n_output;
  data->scratch.assign(
      static_cast<size_t>(n_batch) * (4 * static_cast<size_t>(n_cell) + std::max(n_cell, n_output)),
      0.0f);

  // LSTM: {n_batch, n_output}; the sequence op: the input's shape with n_output last.
  TfLiteIntArray* output_shape = TfLiteIntArrayCopy(input->dims);
  output_shape->data[input_rank - 1] = n_output;
  return context->ResizeTensor(context, output, output_shape);
}

TfLiteStatus EvalFloat(TfLiteContext* context, TfLiteNode* node, OpData* data) {
  auto weights = [&](int index) {
    return GetTensorData<float>(GetOptionalInputTensor(context, node, index));
  };
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
  lstm::FloatSequence(w, data->options, data->max_time, data->n_batch, data->n_cell, data->n_input,
                      data->n_output, data->time_major,
                      GetTensorData<float>(tflite::GetInput(context, node, full::kInputTensor)),
                      GetTensorData<float>(output_state), GetTensorData<float>(cell_state), scratch,
                      GetTensorData<float>(tflite::GetOutput(context, node, full::kOutputTensor)));
  return kTfLiteOk;
}

TfLiteStatus EvalFull(TfLiteContext* context, TfLiteNode* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  switch (data->arithmetic) {
    case Arithmetic::kFloat:
      return EvalFloat(context, node, data);
  }
  return kTfLiteError;
}

// The basic kernel: float32 only (TFLite also has a uint8/int16 form, not supported yet).
TfLiteStatus PrepareBasic(TfLiteContext* context, TfLiteNode* node) {
  if (tflite::NumInputs(node) != basic::kNumInputs ||
      tflite::NumOutputs(node) != basic::kNumOutputs) {
    TF_LITE_KERNEL_LOG(context,
                       "the basic LSTM kernel expects 5 inputs and 4 outputs, got %d and %d",
                       tflite::NumInputs(node), tflite::NumOutputs(node));
    return kTfLiteError;
  }
  static constexpr const char* kInputNames[basic::kNumInputs] = {"input", "prev_activation",
                                                                 "weights", "biases", "prev_state"};
  static constexpr const char* kOutputNames[basic::kNumOutputs] = {
      "activation", "state", "concat_temp", "activation_temp"};
  const TfLiteTensor* inputs[basic::kNumInputs];
  for (int i = 0; i < basic::kNumInputs; ++i) {
    TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, i, &inputs[i]));
    if (inputs[i]->type != kTfLiteFloat32) {
      TF_LITE_KERNEL_LOG(context,
                         "input %d (%s) has type %s; the basic LSTM kernel supports FLOAT32 only",
                         i, kInputNames[i], TfLiteTypeGetName(inputs[i]->type));
      return kTfLiteError;
    }
  }
  TfLiteTensor* outputs[basic::kNumOutputs];
  for (int i = 0; i < basic::kNumOutputs; ++i) {
    TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, i, &outputs[i]));
    TF_LITE_ENSURE_OK(context,
                      CheckType(context, outputs[i], "output", i, kOutputNames[i], kTfLiteFloat32));
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
    TF_LITE_KERNEL_LOG(context, "input 1 (prev_activation) has %d rows, input 0 has %d",
                       prev_activation->dims->data[0], n_batch);
    return kTfLiteError;
  }
  const int64_t gates = 4 * static_cast<int64_t>(depth);
  const int64_t total_depth = static_cast<int64_t>(input_depth) + depth;
  if (gates > INT_MAX || total_depth > INT_MAX) {
    TF_LITE_KERNEL_LOG(context, "input 1 (prev_activation) depth %d is too large", depth);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckShape(context, inputs[basic::kInputWeights], basic::kInputWeights,
                                        kInputNames[basic::kInputWeights],
                                        {static_cast<int>(gates), static_cast<int>(total_depth)}));
  TF_LITE_ENSURE_OK(context,
                    CheckShape(context, inputs[basic::kInputBiases], basic::kInputBiases,
                               kInputNames[basic::kInputBiases], {static_cast<int>(gates)}));
  TF_LITE_ENSURE_OK(context,
                    CheckShape(context, inputs[basic::kInputPrevState], basic::kInputPrevState,
                               kInputNames[basic::kInputPrevState], {n_batch, depth}));

  TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, outputs[basic::kOutputActivation],
                                                   TfLiteIntArrayCopy(prev_activation->dims)));
  TF_LITE_ENSURE_OK(
      context, context->ResizeTensor(context, outputs[basic::kOutputState],
                                     TfLiteIntArrayCopy(inputs[basic::kInputPrevState]->dims)));
  TF_LITE_ENSURE_OK(context, context->ResizeTensor(
                                 context, outputs[basic::kOutputConcatTemp],
                                 tflite::CreateIntArray({n_batch, static_cast<int>(total_depth)})));
  return context->ResizeTensor(context, outputs[basic::kOutputActivationTemp],
                               tflite::CreateIntArray({n_batch, static_cast<int>(gates)}));
}

TfLiteStatus EvalBasic(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, basic::kInputData);
  const TfLiteTensor* prev_activation =
      tflite::GetInput(context, node, basic::kInputPrevActivation);
  auto input_data = [&](int index) {
    return GetTensorData<float>(tflite::GetInput(context, node, index));
  };
  auto output_data = [&](int index) {
    return GetTensorData<float>(tflite::GetOutput(context, node, index));
  };
  lstm::FloatBasicCell(input->dims->data[0], input->dims->data[1], prev_activation->dims->data[1],
                       input_data(basic::kInputData), input_data(basic::kInputPrevActivation),
                       input_data(basic::kInputWeights), input_data(basic::kInputBiases),
                       input_data(basic::kInputPrevState), output_data(basic::kOutputState),
                       output_data(basic::kOutputActivation), output_data(basic::kOutputConcatTemp),
                       output_data(basic::kOutputActivationTemp));
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

TfLiteRegistration* Register_LSTM() {
  static TfLiteRegistration registration = {Init, Free, PrepareLstm, EvalLstm};
  return &registration;
}

TfLiteRegistration* Register_UNIDIRECTIONAL_SEQUENCE_LSTM() {
  static TfLiteRegistration registration = {Init, Free, PrepareSequenceLstm, EvalFull};
  return &registration;
}

}  // namespace reference
}  // namespace touchstone
