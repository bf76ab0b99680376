// CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV on NHWC tensors, computing what TensorFlow Lite
// 2.14.1 computes (tensorflow/lite/kernels/{conv,depthwise_conv,transpose_conv}.cc and the
// reference kernels they call): the same output shapes, padding, dilation, groups, and the same
// inputs refused. Float32 for now; each Prepare dispatches on the input type so that the quantized
// forms (int8 per-channel, uint8, int16, hybrid int8 weights) slot in beside the float one.
#include <cstdint>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

// What Prepare computes once per shape for Eval. The quantized kernels add their output
// multipliers and shifts (per channel) and integer activation range here.
struct ConvData {
  TfLitePaddingValues padding{};
  float activation_min = 0.f;
  float activation_max = 0.f;
};

void* InitConvData(TfLiteContext*, const char*, size_t) { return new ConvData; }
void FreeConvData(TfLiteContext*, void* data) { delete static_cast<ConvData*>(data); }

// ---- CONV_2D: input [N, H, W, C], filter [OC, KH, KW, C / groups], bias [OC].

TfLiteStatus ConvPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 2, 3));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  // TFLite 2.14's conv.cc requires the bias ("has_bias was not true"), even for float.
  if (node->inputs->size == 2 || tflite::GetOptionalInputTensor(context, node, 2) == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) is missing; CONV_2D requires a bias tensor");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  const TfLiteTensor* filter;
  const TfLiteTensor* bias;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 1, &filter));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 2, &bias));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, input, 4, "input 0"));
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, filter, 4, "input 1 (filter)"));

  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckFloatWeights(context, filter, "input 1 (filter)"));
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, bias, kTfLiteFloat32, "input 2 (bias)"));
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      tflite::CalculateActivationRange(params.activation, &data->activation_min,
                                       &data->activation_max);
      break;
    default: return nn::RefuseType(context, input, "input 0");
  }

  const int input_depth = input->dims->data[3];
  const int output_depth = filter->dims->data[0];
  const int filter_depth = filter->dims->data[3];
  // Grouped convolution: the input channels split into groups of filter_depth channels, and
  // each group feeds output_depth / groups of the filters.
  if (filter_depth <= 0 || input_depth <= 0 || input_depth % filter_depth != 0) {
    TF_LITE_KERNEL_LOG(context,
                       "input 0 has %d channels, not a positive multiple of the filter's %d "
                       "input channels",
                       input_depth, filter_depth);
    return kTfLiteError;
  }
  const int groups = input_depth / filter_depth;
  if (output_depth % groups != 0) {
    TF_LITE_KERNEL_LOG(context, "filter has %d output channels, not divisible into %d groups",
                       output_depth, groups);
    return kTfLiteError;
  }
  if (tflite::NumElements(bias) != output_depth) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) has %d elements, expected %d (output channels)",
                       static_cast<int>(tflite::NumElements(bias)), output_depth);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  TF_LITE_ENSURE_OK(
      context,
      nn::CheckWindow(context, {params.padding, params.stride_height, params.stride_width,
                                params.dilation_height_factor, params.dilation_width_factor,
                                filter->dims->data[1], filter->dims->data[2]}));
  int out_height, out_width;
  data->padding = nn::ComputePaddingHeightWidth(
      params.stride_height, params.stride_width, params.dilation_height_factor,
      params.dilation_width_factor, input->dims->data[1], input->dims->data[2],
      filter->dims->data[1], filter->dims->data[2], params.padding, &out_height, &out_width);
  TF_LITE_ENSURE_OK(context, nn::CheckOutSize(context, out_height, out_width));
  return context->ResizeTensor(
      context, output,
      tflite::CreateIntArray({input->dims->data[0], out_height, out_width, output_depth}));
}

void ConvFloat(const TfLiteConvParams& params, const ConvData& data, const TfLiteTensor* input,
               const TfLiteTensor* filter, const TfLiteTensor* bias, TfLiteTensor* output) {
  const int* input_dims = input->dims->data;
  const int* filter_dims = filter->dims->data;
  const int* output_dims = output->dims->data;
  const int batches = input_dims[0];
  const int input_height = input_dims[1];
  const int input_width = input_dims[2];
  const int filter_height = filter_dims[1];
  const int filter_width = filter_dims[2];
  const int filter_depth = filter_dims[3];
  const int output_height = output_dims[1];
  const int output_width = output_dims[2];
  const int output_depth = output_dims[3];
  const int groups = input_dims[3] / filter_depth;
  const int filters_per_group = output_depth / groups;
  const float* input_data = tflite::GetTensorData<float>(input);
  const float* filter_data = tflite::GetTensorData<float>(filter);
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);

  for (int b = 0; b < batches; ++b) {
    for (int out_y = 0; out_y < output_height; ++out_y) {
      const int in_y_origin = out_y * params.stride_height - data.padding.height;
      for (int out_x = 0; out_x < output_width; ++out_x) {
        const int in_x_origin = out_x * params.stride_width - data.padding.width;
        for (int out_c = 0; out_c < output_depth; ++out_c) {
          const int group = out_c / filters_per_group;
          // Sum in TFLite's reference order: filter rows, columns, then channels.
          float total = 0.f;
          for (int filter_y = 0; filter_y < filter_height; ++filter_y) {
            const int in_y = in_y_origin + params.dilation_height_factor * filter_y;
            if (in_y < 0 || in_y >= input_height) continue;  // zero padding
            for (int filter_x = 0; filter_x < filter_width; ++filter_x) {
              const int in_x = in_x_origin + params.dilation_width_factor * filter_x;
              if (in_x < 0 || in_x >= input_width) continue;
              const float* input_pixel =
                  input_data + nn::Offset4D(input_dims, b, in_y, in_x, group * filter_depth);
              const float* filter_pixel =
                  filter_data + nn::Offset4D(filter_dims, out_c, filter_y, filter_x, 0);
              for (int c = 0; c < filter_depth; ++c) total += input_pixel[c] * filter_pixel[c];
            }
          }
          output_data[nn::Offset4D(output_dims, b, out_y, out_x, out_c)] = nn::ClampToActivation(
              total + bias_data[out_c], data.activation_min, data.activation_max);
        }
      }
    }
  }
}

TfLiteStatus ConvEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteConvParams>(node);
  const auto& data = *static_cast<const ConvData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* filter = tflite::GetInput(context, node, 1);
  const TfLiteTensor* bias = tflite::GetInput(context, node, 2);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: ConvFloat(params, data, input, filter, bias, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

// ---- DEPTHWISE_CONV_2D: input [N, H, W, C], filter [1, KH, KW, C * M], optional bias [C * M].
// Output channel c * M + m is input channel c through filter channel c * M + m; TFLite derives the
// depth multiplier M from the shapes and ignores the redundant depth_multiplier option.

TfLiteStatus DepthwiseConvPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteDepthwiseConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 2, 3));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const bool has_bias = node->inputs->size == 3;
  // A third input that is omitted (-1) is refused by TFLite 2.14 ("Tensor at index 2 was
  // optional but was expected"); a bias-free depthwise convolution has two inputs.
  if (has_bias && tflite::GetOptionalInputTensor(context, node, 2) == nullptr) {
    TF_LITE_KERNEL_LOG(context,
                       "input 2 (bias) is omitted (-1); a DEPTHWISE_CONV_2D without bias must "
                       "have 2 inputs");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  const TfLiteTensor* filter;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 1, &filter));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  const TfLiteTensor* bias = has_bias ? tflite::GetInput(context, node, 2) : nullptr;
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, input, 4, "input 0"));
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, filter, 4, "input 1 (filter)"));

  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckFloatWeights(context, filter, "input 1 (filter)"));
      if (bias != nullptr) {
        TF_LITE_ENSURE_OK(context, nn::CheckType(context, bias, kTfLiteFloat32, "input 2 (bias)"));
      }
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      tflite::CalculateActivationRange(params.activation, &data->activation_min,
                                       &data->activation_max);
      break;
    default: return nn::RefuseType(context, input, "input 0");
  }

  if (filter->dims->data[0] != 1) {
    TF_LITE_KERNEL_LOG(context, "input 1 (filter) must be [1, H, W, C], has %d in dimension 0",
                       filter->dims->data[0]);
    return kTfLiteError;
  }
  const int input_depth = input->dims->data[3];
  const int output_depth = filter->dims->data[3];
  if (input_depth <= 0 || output_depth % input_depth != 0) {
    TF_LITE_KERNEL_LOG(context,
                       "input 1 (filter) has %d channels, not a multiple of the input's %d "
                       "channels",
                       output_depth, input_depth);
    return kTfLiteError;
  }
  if (bias != nullptr && (bias->dims->size != 1 || bias->dims->data[0] != output_depth)) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) must be [%d] (the filter's channels)",
                       output_depth);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  TF_LITE_ENSURE_OK(
      context,
      nn::CheckWindow(context, {params.padding, params.stride_height, params.stride_width,
                                params.dilation_height_factor, params.dilation_width_factor,
                                filter->dims->data[1], filter->dims->data[2]}));
  int out_height, out_width;
  data->padding = nn::ComputePaddingHeightWidth(
      params.stride_height, params.stride_width, params.dilation_height_factor,
      params.dilation_width_factor, input->dims->data[1], input->dims->data[2],
      filter->dims->data[1], filter->dims->data[2], params.padding, &out_height, &out_width);
  TF_LITE_ENSURE_OK(context, nn::CheckOutSize(context, out_height, out_width));
  return context->ResizeTensor(
      context, output,
      tflite::CreateIntArray({input->dims->data[0], out_height, out_width, output_depth}));
}

void DepthwiseConvFloat(const TfLiteDepthwiseConvParams& params, const ConvData& data,
                        const TfLiteTensor* input, const TfLiteTensor* filter,
                        const TfLiteTensor* bias, TfLiteTensor* output) {
  const int* input_dims = input->dims->data;
  const int* filter_dims = filter->dims->data;
  const int* output_dims = output->dims->data;
  const int batches = input_dims[0];
  const int input_height = input_dims[1];
  const int input_width = input_dims[2];
  const int input_depth = input_dims[3];
  const int filter_height = filter_dims[1];
  const int filter_width = filter_dims[2];
  const int output_height = output_dims[1];
  const int output_width = output_dims[2];
  const int depth_multiplier = output_dims[3] / input_depth;
  const float* input_data = tflite::GetTensorData<float>(input);
  const float* filter_data = tflite::GetTensorData<float>(filter);
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);

  for (int b = 0; b < batches; ++b) {
    for (int out_y = 0; out_y < output_height; ++out_y) {
      const int in_y_origin = out_y * params.stride_height - data.padding.height;
      for (int out_x = 0; out_x < output_width; ++out_x) {
        const int in_x_origin = out_x * params.stride_width - data.padding.width;
        for (int in_c = 0; in_c < input_depth; ++in_c) {
          for (int m = 0; m < depth_multiplier; ++m) {
            const int out_c = in_c * depth_multiplier + m;
            float total = 0.f;
            for (int filter_y = 0; filter_y < filter_height; ++filter_y) {
              const int in_y = in_y_origin + params.dilation_height_factor * filter_y;
              if (in_y < 0 || in_y >= input_height) continue;  // zero padding
              for (int filter_x = 0; filter_x < filter_width; ++filter_x) {
                const int in_x = in_x_origin + params.dilation_width_factor * filter_x;
                if (in_x < 0 || in_x >= input_width) continue;
                total += input_data[nn::Offset4D(input_dims, b, in_y, in_x, in_c)] *
                         filter_data[nn::Offset4D(filter_dims, 0, filter_y, filter_x, out_c)];
              }
            }
            const float bias_value = bias_data != nullptr ? bias_data[out_c] : 0.f;
            output_data[nn::Offset4D(output_dims, b, out_y, out_x, out_c)] =
                nn::ClampToActivation(total + bias_value, data.activation_min, data.activation_max);
          }
        }
      }
    }
  }
}

TfLiteStatus DepthwiseConvEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteDepthwiseConvParams>(node);
  const auto& data = *static_cast<const ConvData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* filter = tflite::GetInput(context, node, 1);
  const TfLiteTensor* bias = node->inputs->size == 3 ? tflite::GetInput(context, node, 2) : nullptr;
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32:
      DepthwiseConvFloat(params, data, input, filter, bias, output);
      return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

// ---- TRANSPOSE_CONV: input 0 the output shape (int32 [4]), input 1 weights [OC, KH, KW, IC],
// input 2 the data [N, H, W, IC], optional input 3 bias [OC]. The output shape is given, not
// derived; when its tensor is not constant the output is dynamic and resized in Eval.

constexpr int kOutputShapeInput = 0;
constexpr int kWeightsInput = 1;
constexpr int kDataInput = 2;
constexpr int kTransposeBiasInput = 3;

// Checks the requested output shape against the data and weights, resizes the output to it, and
// derives the padding from it as TFLite does: the padding of a forward convolution over an image
// of the output's size.
TfLiteStatus ResizeTransposeConvOutput(TfLiteContext* context,
                                       const TfLiteTransposeConvParams& params,
                                       const TfLiteTensor* output_shape,
                                       const TfLiteTensor* weights, const TfLiteTensor* input,
                                       TfLiteTensor* output, ConvData* data) {
  const int32_t* shape = tflite::GetTensorData<int32_t>(output_shape);
  for (int i = 0; i < 4; ++i) {
    if (shape[i] < 0) {
      TF_LITE_KERNEL_LOG(context, "input 0 (output shape) has negative dimension %d", shape[i]);
      return kTfLiteError;
    }
  }
  if (shape[0] != input->dims->data[0] || shape[3] != weights->dims->data[0]) {
    TF_LITE_KERNEL_LOG(context,
                       "input 0 (output shape) is [%d, %d, %d, %d], but the batch must be %d "
                       "(the input's) and the channels %d (the weights')",
                       shape[0], shape[1], shape[2], shape[3], input->dims->data[0],
                       weights->dims->data[0]);
    return kTfLiteError;
  }
  int unused_height, unused_width;
  data->padding = nn::ComputePaddingHeightWidth(
      params.stride_height, params.stride_width, 1, 1, shape[1], shape[2], weights->dims->data[1],
      weights->dims->data[2], params.padding, &unused_height, &unused_width);
  return context->ResizeTensor(context, output,
                               tflite::CreateIntArray({shape[0], shape[1], shape[2], shape[3]}));
}

TfLiteStatus TransposeConvPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteTransposeConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 3, 4));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const TfLiteTensor* output_shape;
  const TfLiteTensor* weights;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kOutputShapeInput, &output_shape));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kWeightsInput, &weights));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kDataInput, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  const TfLiteTensor* bias = tflite::GetOptionalInputTensor(context, node, kTransposeBiasInput);

  TF_LITE_ENSURE_OK(context,
                    nn::CheckType(context, output_shape, kTfLiteInt32, "input 0 (output shape)"));
  if (output_shape->dims->size != 1 || output_shape->dims->data[0] != 4) {
    TF_LITE_KERNEL_LOG(context, "input 0 (output shape) must be a 1-D tensor of 4 elements");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, weights, 4, "input 1 (weights)"));
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, input, 4, "input 2"));

  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckFloatWeights(context, weights, "input 1 (weights)"));
      if (bias != nullptr) {
        TF_LITE_ENSURE_OK(context, nn::CheckType(context, bias, kTfLiteFloat32, "input 3 (bias)"));
      }
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      tflite::CalculateActivationRange(params.activation, &data->activation_min,
                                       &data->activation_max);
      break;
    default: return nn::RefuseType(context, input, "input 2");
  }

  if (input->dims->data[3] != weights->dims->data[3]) {
    TF_LITE_KERNEL_LOG(context, "input 2 has %d channels but input 1 (weights) expects %d",
                       input->dims->data[3], weights->dims->data[3]);
    return kTfLiteError;
  }
  if (bias != nullptr && tflite::NumElements(bias) != weights->dims->data[0]) {
    TF_LITE_KERNEL_LOG(context, "input 3 (bias) has %d elements, expected %d (output channels)",
                       static_cast<int>(tflite::NumElements(bias)), weights->dims->data[0]);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  TF_LITE_ENSURE_OK(
      context, nn::CheckWindow(context, {params.padding, params.stride_height, params.stride_width,
                                         1, 1, weights->dims->data[1], weights->dims->data[2]}));
  if (!tflite::IsConstantTensor(output_shape)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return ResizeTransposeConvOutput(context, params, output_shape, weights, input, output, data);
}

// TFLite's reference scatter: each input pixel adds its contribution to the output pixels its
// filter window covers, then bias and activation are applied.
void TransposeConvFloat(const TfLiteTransposeConvParams& params, const ConvData& data,
                        const TfLiteTensor* input, const TfLiteTensor* weights,
                        const TfLiteTensor* bias, TfLiteTensor* output) {
  const int* input_dims = input->dims->data;
  const int* weights_dims = weights->dims->data;
  const int* output_dims = output->dims->data;
  const int batches = input_dims[0];
  const int input_height = input_dims[1];
  const int input_width = input_dims[2];
  const int input_depth = input_dims[3];
  const int filter_height = weights_dims[1];
  const int filter_width = weights_dims[2];
  const int output_height = output_dims[1];
  const int output_width = output_dims[2];
  const int output_depth = output_dims[3];
  const float* input_data = tflite::GetTensorData<float>(input);
  const float* weights_data = tflite::GetTensorData<float>(weights);
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);

  const int64_t output_size = tflite::NumElements(output);
  for (int64_t i = 0; i < output_size; ++i) output_data[i] = 0.f;
  for (int b = 0; b < batches; ++b) {
    for (int in_y = 0; in_y < input_height; ++in_y) {
      // 64-bit: a large input times the stride may pass int even where the output is small.
      const int64_t out_y_origin =
          static_cast<int64_t>(in_y) * params.stride_height - data.padding.height;
      for (int in_x = 0; in_x < input_width; ++in_x) {
        const int64_t out_x_origin =
            static_cast<int64_t>(in_x) * params.stride_width - data.padding.width;
        for (int in_c = 0; in_c < input_depth; ++in_c) {
          const float input_value = input_data[nn::Offset4D(input_dims, b, in_y, in_x, in_c)];
          for (int filter_y = 0; filter_y < filter_height; ++filter_y) {
            const int64_t out_y = out_y_origin + filter_y;
            if (out_y < 0 || out_y >= output_height) continue;
            for (int filter_x = 0; filter_x < filter_width; ++filter_x) {
              const int64_t out_x = out_x_origin + filter_x;
              if (out_x < 0 || out_x >= output_width) continue;
              float* output_pixel =
                  output_data +
                  nn::Offset4D(output_dims, b, static_cast<int>(out_y), static_cast<int>(out_x), 0);
              for (int out_c = 0; out_c < output_depth; ++out_c) {
                output_pixel[out_c] +=
                    input_value *
                    weights_data[nn::Offset4D(weights_dims, out_c, filter_y, filter_x, in_c)];
              }
            }
          }
        }
      }
    }
  }
  for (int64_t i = 0; i < output_size; ++i) {
    const float bias_value = bias_data != nullptr ? bias_data[i % output_depth] : 0.f;
    output_data[i] = nn::ClampToActivation(output_data[i] + bias_value, data.activation_min,
                                           data.activation_max);
  }
}

TfLiteStatus TransposeConvEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteTransposeConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  const TfLiteTensor* output_shape = tflite::GetInput(context, node, kOutputShapeInput);
  const TfLiteTensor* weights = tflite::GetInput(context, node, kWeightsInput);
  const TfLiteTensor* input = tflite::GetInput(context, node, kDataInput);
  const TfLiteTensor* bias = tflite::GetOptionalInputTensor(context, node, kTransposeBiasInput);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) {
    TF_LITE_ENSURE_OK(context, ResizeTransposeConvOutput(context, params, output_shape, weights,
                                                         input, output, data));
  }
  switch (input->type) {
    case kTfLiteFloat32:
      TransposeConvFloat(params, *data, input, weights, bias, output);
      return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 2");
  }
}

}  // namespace

TfLiteRegistration* Register_CONV_2D() {
  static TfLiteRegistration r =
      nn::MakeRegistration(InitConvData, FreeConvData, ConvPrepare, ConvEval);
  return &r;
}

TfLiteRegistration* Register_DEPTHWISE_CONV_2D() {
  static TfLiteRegistration r =
      nn::MakeRegistration(InitConvData, FreeConvData, DepthwiseConvPrepare, DepthwiseConvEval);
  return &r;
}

TfLiteRegistration* Register_TRANSPOSE_CONV() {
  static TfLiteRegistration r =
      nn::MakeRegistration(InitConvData, FreeConvData, TransposeConvPrepare, TransposeConvEval);
  return &r;
}

}  // namespace reference
}  // namespace touchstone
