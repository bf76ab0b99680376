// Reference SVDF kernel, computing what TensorFlow Lite 2.14's svdf.cc computes (the arithmetic
// lives in runtime/kernels/internal/svdf_arithmetic.h; helpers in recurrent_util.h).

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

// ---- SVDF: input {batch, input_size}, weights_feature {num_filters, input_size}, weights_time
// {num_filters, memory_size}, optional bias {num_units}, variable state
// {batch, memory_size * num_filters}; output {batch, num_units} with num_units = num_filters /
// rank. Float, hybrid (float input, int8 weights) and integer (int8 input and output, int16 state
// and time weights, int32 bias).

constexpr int kSvdfInput = 0;
constexpr int kSvdfWeightsFeature = 1;
constexpr int kSvdfWeightsTime = 2;
constexpr int kSvdfBias = 3;
constexpr int kSvdfState = 4;
constexpr const char* kSvdfInputNames[] = {"input", "weights_feature", "weights_time", "bias", "state"};

struct SvdfData {
  Arithmetic arithmetic = Arithmetic::kFloat;
  svdf::Shape shape;
  TfLiteFusedActivation activation = kTfLiteActNone;
  bool asymmetric_quantize_inputs = false;
  std::vector<float> scratch;  // float and hybrid: batch * num_filters
  // Hybrid.
  std::vector<float> weights_time_float;  // dequantized once, at the first invocation
  bool weights_time_dequantized = false;
  std::vector<int32_t> row_sums;  // of weights_feature, at the first invocation (asymmetric only)
  bool row_sums_computed = false;
  std::vector<float> scaling_factors;
  std::vector<int32_t> zero_points;
  std::vector<int8_t> quantized_input;
  // Integer.
  svdf::IntegerParams integer;
  std::vector<int32_t> integer_scratch;      // batch * num_filters
  std::vector<int32_t> integer_output_temp;  // batch * num_units
};

TfLiteStatus CheckSvdfType(TfLiteContext* context, const TfLiteTensor* tensor, int index, TfLiteType type) {
  return CheckType(context, tensor, "input", index, kSvdfInputNames[index], type);
}

// The integer part of PrepareSvdf (int8 input and weights, int16 state and time weights, int32
// bias): the types, the activation, and the rescaling of the two products.
TfLiteStatus PrepareSvdfInteger(TfLiteContext* context, const TfLiteSVDFParams* params, const TfLiteTensor* input,
                                const TfLiteTensor* weights_feature, const TfLiteTensor* weights_time,
                                const TfLiteTensor* bias, const TfLiteTensor* state, const TfLiteTensor* output,
                                size_t batch, SvdfData* data) {
  const svdf::Shape& shape = data->shape;
  TF_LITE_ENSURE_OK(context, CheckSvdfType(context, weights_time, kSvdfWeightsTime, kTfLiteInt16));
  if (bias != nullptr) {
    TF_LITE_ENSURE_OK(context, CheckSvdfType(context, bias, kSvdfBias, kTfLiteInt32));
  }
  TF_LITE_ENSURE_OK(context, CheckSvdfType(context, state, kSvdfState, kTfLiteInt16));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output", 0, "output", kTfLiteInt8));
  // TFLite refuses other activations (at invocation) without applying ReLU beyond the clamp.
  if (params->activation != kTfLiteActRelu) {
    TF_LITE_KERNEL_LOG(context, "the integer SVDF supports only a RELU activation, got %d",
                       static_cast<int>(params->activation));
    return kTfLiteError;
  }
  const TfLiteAffineQuantization* q[5] = {RequireQuantization(context, input, "input 0 (input)"),
                                          RequireQuantization(context, weights_feature, "input 1 (weights_feature)"),
                                          RequireQuantization(context, weights_time, "input 2 (weights_time)"),
                                          RequireQuantization(context, state, "input 4 (state)"),
                                          RequireQuantization(context, output, "output 0")};
  for (const TfLiteAffineQuantization* quantization : q) {
    if (quantization == nullptr) return kTfLiteError;
  }
  // Products of float scales, rounded to float before QuantizeMultiplier sees them (TFLite's
  // expressions are float).
  const float effective_scale_1 = q[0]->scale->data[0] * q[1]->scale->data[0] / q[3]->scale->data[0];
  const float effective_scale_2 = q[3]->scale->data[0] * q[2]->scale->data[0] / q[4]->scale->data[0];
  qu::QuantizeMultiplier(effective_scale_1, &data->integer.scale_1_a, &data->integer.scale_1_b);
  qu::QuantizeMultiplier(effective_scale_2, &data->integer.scale_2_a, &data->integer.scale_2_b);
  data->integer.input_zero_point = q[0]->zero_point->data[0];
  data->integer.output_zero_point = q[4]->zero_point->data[0];
  data->integer_scratch.assign(batch * shape.num_filters, 0);
  data->integer_output_temp.assign(batch * shape.num_units, 0);
  return kTfLiteOk;
}

TfLiteStatus PrepareSvdf(TfLiteContext* context, TfLiteNode* node) {
  SvdfData* data = static_cast<SvdfData*>(node->user_data);
  if (tflite::NumInputs(node) != 5 || tflite::NumOutputs(node) != 1) {
    TF_LITE_KERNEL_LOG(context, "expects 5 inputs and 1 output, got %d and %d", tflite::NumInputs(node),
                       tflite::NumOutputs(node));
    return kTfLiteError;
  }
  const auto* params = static_cast<const TfLiteSVDFParams*>(node->builtin_data);
  // Without options TFLite's parser leaves rank at 0, which it refuses.
  if (params == nullptr || params->rank <= 0) {
    TF_LITE_KERNEL_LOG(context, "option rank is %d, expected > 0", params == nullptr ? 0 : params->rank);
    return kTfLiteError;
  }
  if (!IsValidActivation(params->activation)) {
    TF_LITE_KERNEL_LOG(context, "fused activation %d is not a valid activation", static_cast<int>(params->activation));
    return kTfLiteError;
  }
  data->activation = params->activation;
  data->asymmetric_quantize_inputs = params->asymmetric_quantize_inputs;

  const TfLiteTensor* input = nullptr;
  const TfLiteTensor* weights_feature = nullptr;
  const TfLiteTensor* weights_time = nullptr;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kSvdfInput, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kSvdfWeightsFeature, &weights_feature));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kSvdfWeightsTime, &weights_time));
  const TfLiteTensor* bias = GetOptionalInputTensor(context, node, kSvdfBias);
  for (int index : {kSvdfInput, kSvdfWeightsFeature, kSvdfWeightsTime}) {
    const TfLiteTensor* t = tflite::GetInput(context, node, index);
    if (t->dims->size != 2) {
      TF_LITE_KERNEL_LOG(context, "input %d (%s) must be 2-D, got %d-D", index, kSvdfInputNames[index], t->dims->size);
      return kTfLiteError;
    }
  }

  svdf::Shape& shape = data->shape;
  shape.rank = params->rank;
  shape.batch_size = input->dims->data[0];
  shape.input_size = input->dims->data[1];
  shape.num_filters = weights_feature->dims->data[0];
  shape.memory_size = weights_time->dims->data[1];
  if (shape.num_filters % shape.rank != 0) {
    TF_LITE_KERNEL_LOG(context, "input 1 (weights_feature) has %d filters, not a multiple of rank %d",
                       shape.num_filters, shape.rank);
    return kTfLiteError;
  }
  shape.num_units = shape.num_filters / shape.rank;
  if (weights_feature->dims->data[1] != shape.input_size) {
    TF_LITE_KERNEL_LOG(context, "input 1 (weights_feature) has %d columns, input 0 has %d",
                       weights_feature->dims->data[1], shape.input_size);
    return kTfLiteError;
  }
  if (weights_time->dims->data[0] != shape.num_filters) {
    TF_LITE_KERNEL_LOG(context, "input 2 (weights_time) has %d rows, expected %d (the filters)",
                       weights_time->dims->data[0], shape.num_filters);
    return kTfLiteError;
  }
  // The newest activation goes into the last of memory_size columns.
  if (shape.memory_size < 1) {
    TF_LITE_KERNEL_LOG(context, "input 2 (weights_time) has memory size %d, expected >= 1", shape.memory_size);
    return kTfLiteError;
  }
  if (bias != nullptr && (bias->dims->size != 1 || bias->dims->data[0] != shape.num_units)) {
    TF_LITE_KERNEL_LOG(context, "input 3 (bias) has shape %s, expected [%d]", ShapeString(bias).c_str(),
                       shape.num_units);
    return kTfLiteError;
  }
  const TfLiteTensor* state = tflite::GetVariableInput(context, node, kSvdfState);
  if (state == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input 4 (state) must be a variable tensor");
    return kTfLiteError;
  }
  const int64_t state_columns = static_cast<int64_t>(shape.memory_size) * shape.num_filters;
  if (state->dims->size != 2 || state->dims->data[0] != shape.batch_size || state->dims->data[1] != state_columns) {
    TF_LITE_KERNEL_LOG(context,
                       "input 4 (state) has shape %s, expected [%d,%lld]: its size does not match "
                       "memory_size * num_filters",
                       ShapeString(state).c_str(), shape.batch_size, static_cast<long long>(state_columns));
    return kTfLiteError;
  }
  if (static_cast<int64_t>(shape.batch_size) * state_columns > INT_MAX) {
    TF_LITE_KERNEL_LOG(context, "input 4 (state) is too large");
    return kTfLiteError;
  }
  TfLiteTensor* output = nullptr;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));

  const TfLiteType input_type = input->type;
  const TfLiteType weight_type = weights_feature->type;
  const size_t batch = static_cast<size_t>(shape.batch_size);
  // Hybrid: int8 (or uint8, read as int8 bytes like TFLite) feature and time weights.
  const bool hybrid = weight_type == kTfLiteInt8 || weight_type == kTfLiteUInt8;
  if (input_type == kTfLiteFloat32 && (weight_type == kTfLiteFloat32 || hybrid)) {
    data->arithmetic = hybrid ? Arithmetic::kHybrid : Arithmetic::kFloat;
    TF_LITE_ENSURE_OK(context, CheckSvdfType(context, weights_time, kSvdfWeightsTime, weight_type));
    if (bias != nullptr) {
      TF_LITE_ENSURE_OK(context, CheckSvdfType(context, bias, kSvdfBias, kTfLiteFloat32));
    }
    TF_LITE_ENSURE_OK(context, CheckSvdfType(context, state, kSvdfState, kTfLiteFloat32));
    TF_LITE_ENSURE_OK(context, CheckType(context, output, "output", 0, "output", kTfLiteFloat32));
    data->scratch.assign(batch * shape.num_filters, 0.0f);
    if (hybrid) {
      data->weights_time_float.assign(static_cast<size_t>(shape.num_filters) * shape.memory_size, 0.0f);
      data->weights_time_dequantized = false;
      data->row_sums_computed = false;
      data->scaling_factors.assign(batch, 0.0f);
      data->zero_points.assign(batch, 0);
      data->quantized_input.assign(batch * shape.input_size, 0);
    }
  } else if (input_type == kTfLiteInt8 && weight_type == kTfLiteInt8) {
    data->arithmetic = Arithmetic::kInteger;
    TF_LITE_ENSURE_OK(context, PrepareSvdfInteger(context, params, input, weights_feature, weights_time, bias, state,
                                                  output, batch, data));
  } else {
    TF_LITE_KERNEL_LOG(context,
                       "input 0 (input) has type %s and input 1 (weights_feature) type %s; "
                       "supported: FLOAT32 with FLOAT32 or INT8 weights, INT8 with INT8 weights",
                       TfLiteTypeGetName(input_type), TfLiteTypeGetName(weight_type));
    return kTfLiteError;
  }
  return context->ResizeTensor(context, output, tflite::CreateIntArray({shape.batch_size, shape.num_units}));
}

TfLiteStatus EvalSvdf(TfLiteContext* context, TfLiteNode* node) {
  SvdfData* data = static_cast<SvdfData*>(node->user_data);
  const svdf::Shape& s = data->shape;
  const TfLiteTensor* input = tflite::GetInput(context, node, kSvdfInput);
  const TfLiteTensor* weights_feature = tflite::GetInput(context, node, kSvdfWeightsFeature);
  const TfLiteTensor* weights_time = tflite::GetInput(context, node, kSvdfWeightsTime);
  const TfLiteTensor* bias = GetOptionalInputTensor(context, node, kSvdfBias);
  TfLiteTensor* state = tflite::GetVariableInput(context, node, kSvdfState);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (data->arithmetic) {
    case Arithmetic::kFloat:
      svdf::EvalFloat(s, data->activation, GetTensorData<float>(input), GetTensorData<float>(weights_feature),
                      GetTensorData<float>(weights_time), GetTensorData<float>(bias), data->scratch.data(),
                      GetTensorData<float>(state), GetTensorData<float>(output));
      return kTfLiteOk;
    case Arithmetic::kHybrid: {
      const auto* feature = reinterpret_cast<const int8_t*>(weights_feature->data.raw);
      if (!data->weights_time_dequantized) {
        const auto* time = reinterpret_cast<const int8_t*>(weights_time->data.raw);
        for (size_t i = 0; i < data->weights_time_float.size(); ++i) {
          data->weights_time_float[i] = time[i] * weights_time->params.scale;
        }
        data->weights_time_dequantized = true;
      }
      if (data->asymmetric_quantize_inputs && !data->row_sums_computed) {
        data->row_sums = RowSums(feature, s.num_filters, s.input_size);
        data->row_sums_computed = true;
      }
      svdf::HybridScratch buffers;
      buffers.scratch = data->scratch.data();
      buffers.scaling_factors = data->scaling_factors.data();
      buffers.zero_points = data->zero_points.data();
      buffers.quantized_input = data->quantized_input.data();
      svdf::EvalHybrid(s, data->activation, data->asymmetric_quantize_inputs, GetTensorData<float>(input), feature,
                       weights_feature->params.scale, data->row_sums.data(), data->weights_time_float.data(),
                       GetTensorData<float>(bias), buffers, GetTensorData<float>(state), GetTensorData<float>(output));
      return kTfLiteOk;
    }
    case Arithmetic::kInteger:
      svdf::EvalInteger(s, data->integer, GetTensorData<int8_t>(input), GetTensorData<int8_t>(weights_feature),
                        GetTensorData<int16_t>(weights_time), GetTensorData<int32_t>(bias),
                        GetTensorData<int16_t>(state), data->integer_scratch.data(), data->integer_output_temp.data(),
                        GetTensorData<int8_t>(output));
      return kTfLiteOk;
  }
  return kTfLiteError;
}

}  // namespace

bool SvdfIntegerParams(const void* user_data, svdf::Shape* shape, svdf::IntegerParams* params) {
  const auto* data = static_cast<const SvdfData*>(user_data);
  if (data == nullptr || data->arithmetic != Arithmetic::kInteger) return false;
  *shape = data->shape;
  *params = data->integer;
  return true;
}

TS_REGISTER(SVDF, NewNodeData<SvdfData>, DeleteNodeData<SvdfData>, PrepareSvdf, EvalSvdf)

}  // namespace reference
}  // namespace touchstone
