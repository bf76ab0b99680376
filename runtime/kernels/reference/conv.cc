// CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV on NHWC tensors, computing what TensorFlow Lite
// 2.14.1 computes (tensorflow/lite/kernels/{conv,depthwise_conv,transpose_conv}.cc and the kernels
// they call): the same output shapes, padding, dilation, groups, and the same inputs refused.
//
// Types: float32; uint8 (per-tensor weights); int8 with per-channel int8 weights and int32 bias;
// int16 activations with int8 weights and int64 bias (CONV_2D also int32 bias); and the hybrid
// forms of CONV_2D and DEPTHWISE_CONV_2D (float input and output, int8 weights). Quantized results
// are bit-exact with TFLite's x86 kernels, whose output stages do not all round alike (see
// nn::OutputStage): CONV_2D runs its uint8 products through gemmlowp and its int8 and int16 ones
// through ruy, while DEPTHWISE_CONV_2D, TRANSPOSE_CONV and the grouped and int64-bias convolutions
// requantize in TFLite's own loops.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

// What Prepare computes once per shape for Eval.
struct ConvData {
  TfLitePaddingValues padding{};
  // Float and hybrid outputs.
  float activation_min = 0.f;
  float activation_max = 0.f;
  // Quantized outputs: per-channel multipliers, clamp, and how TFLite rounds them.
  nn::OutputRequantization requantization;
  nn::OutputStage stage = nn::OutputStage::kDoubleRounding;
  // Hybrid CONV_2D: weights with distinct per-channel scales take TFLite's asymmetric per-channel
  // path; the others its symmetric per-tensor one. The vectors are scratch for Eval.
  bool hybrid = false;
  bool hybrid_per_channel = false;
  nn::QuantizedRows quantized_input;
  // TRANSPOSE_CONV's accumulators, one per output element.
  std::vector<int64_t> accumulators;
};

// The tensor-type checks TFLite makes on a quantized convolution: weights of the matching type
// (symmetric for int8 and int16 inputs), an int32 bias with zero point 0 (int64 for int16 inputs,
// or int32 where `int16_bias_may_be_int32`), an output of the input's type, and zero points of 0 on
// int16 activations.
TfLiteStatus CheckQuantizedConvTypes(TfLiteContext* context, const TfLiteTensor* input, const TfLiteTensor* filter,
                                     const TfLiteTensor* bias, const TfLiteTensor* output, const char* input_role,
                                     const char* filter_role, const char* bias_role, bool int16_bias_may_be_int32) {
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, filter, filter_role, nn::QuantizedWeightsType(input->type)));
  if (input->type != kTfLiteUInt8) {
    TF_LITE_ENSURE_OK(context, nn::CheckSymmetricWeights(context, filter, filter_role));
  }
  if (input->type == kTfLiteInt16) {
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, input, input_role));
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, output, "output 0"));
  }
  if (bias == nullptr) return kTfLiteOk;
  if (input->type == kTfLiteInt16) {
    if (bias->type != kTfLiteInt64 && !(int16_bias_may_be_int32 && bias->type == kTfLiteInt32)) {
      TF_LITE_KERNEL_LOG(context, "%s has type %s, expected INT64%s", bias_role, TfLiteTypeGetName(bias->type),
                         int16_bias_may_be_int32 ? " or INT32" : "");
      return kTfLiteError;
    }
  } else {
    TF_LITE_ENSURE_OK(context, CheckType(context, bias, bias_role, kTfLiteInt32));
  }
  if (bias->params.zero_point != 0) {
    TF_LITE_KERNEL_LOG(context, "%s has zero point %d, expected 0", bias_role, bias->params.zero_point);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// The tensor types of DEPTHWISE_CONV_2D (besides its hybrid form, prepared apart) and TRANSPOSE_CONV
// (`op`): float32 throughout, or a quantized input with the weights and bias CheckQuantizedConvTypes
// takes. TFLite requantizes both in its own loops with MultiplyByQuantizedMultiplier, int16 in
// the 16x8 reference kernels with int64 sums.
TfLiteStatus PrepareConvTypesWithoutHybrid(TfLiteContext* context, const char* op, TfLiteFusedActivation activation,
                                           const TfLiteTensor* input, const char* input_role,
                                           const TfLiteTensor* filter, const char* filter_role,
                                           const TfLiteTensor* bias, const char* bias_role, const TfLiteTensor* output,
                                           ConvData* data) {
  switch (input->type) {
    case kTfLiteFloat32:
      if (filter->type == kTfLiteInt8 || filter->type == kTfLiteUInt8) {
        TF_LITE_KERNEL_LOG(context, "%s has type %s with a FLOAT32 input; hybrid %s is not supported", filter_role,
                           TfLiteTypeGetName(filter->type), op);
        return kTfLiteError;
      }
      TF_LITE_ENSURE_OK(context, CheckType(context, filter, filter_role, kTfLiteFloat32));
      return nn::PrepareFloatOutput(context, activation, bias, bias_role, output, &data->activation_min,
                                    &data->activation_max);
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      TF_LITE_ENSURE_OK(
          context, CheckQuantizedConvTypes(context, input, filter, bias, output, input_role, filter_role, bias_role,
                                           /*int16_bias_may_be_int32=*/false));
      data->stage = input->type == kTfLiteInt16 ? nn::OutputStage::kInt64 : nn::OutputStage::kDoubleRounding;
      return kTfLiteOk;
    default:
      return nn::RefuseProductInputType(context, op, input_role, input->type);
  }
}

// The fused activation's float range and Eval's scratch for quantizing the float input batch by
// batch: how the hybrid convolutions end their Prepare.
void PrepareHybridScratch(TfLiteFusedActivation activation, const TfLiteTensor* input, ConvData* data) {
  tflite::CalculateActivationRange(activation, &data->activation_min, &data->activation_max);
  const int batches = input->dims->data[0];
  data->quantized_input.Resize(batches, batches == 0 ? 0 : tflite::NumElements(input) / batches);
}

// Quantizes the float input of a hybrid convolution into data.quantized_input batch by batch, as
// tensor_utils does (an empty input leaves it as it is).
void QuantizeInputBatches(const TfLiteTensor* input, bool asymmetric, ConvData& data) {
  if (tflite::NumElements(input) > 0) data.quantized_input.Quantize(tflite::GetTensorData<float>(input), asymmetric);
}

// Input 0 and input 1 (filter) of CONV_2D or DEPTHWISE_CONV_2D, both 4-D, and output 0; the node
// has 2 or 3 inputs (the bias is the op's to check) and 1 output.
TfLiteStatus GetConvTensors(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor** input,
                            const TfLiteTensor** filter, TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 2, 3));
  TF_LITE_ENSURE_OK(context, CheckOutputCount(context, node, 1));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, input));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, filter));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, output));
  TF_LITE_ENSURE_OK(context, CheckRank(context, *input, "input 0", 4));
  return CheckRank(context, *filter, "input 1 (filter)", 4);
}

// The emit of the float convolutions' sums: the bias (none counts as zeros), then the clamp.
auto FloatConvEmit(const ConvData& data, const TfLiteTensor* bias, TfLiteTensor* output) {
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  return [&data, bias_data, output_data](int, int64_t index, int out_c, float total) {
    const float bias_value = bias_data != nullptr ? bias_data[out_c] : 0.f;
    output_data[index] = nn::ClampToActivation(total + bias_value, data.activation_min, data.activation_max);
  };
}

// The emit of the quantized convolutions' sums: the bias (none counts as zeros), then the
// requantization to the output.
template <typename OutputT>
auto QuantizedConvEmit(const ConvData& data, const TfLiteTensor* bias, TfLiteTensor* output) {
  const int32_t output_offset = output->params.zero_point;
  OutputT* output_data = tflite::GetTensorData<OutputT>(output);
  return [&data, bias, output_offset, output_data](int, int64_t index, int out_c, int64_t acc) {
    output_data[index] = nn::RequantizeOutput<OutputT>(data.stage, data.requantization,
                                                       acc + nn::IntegerBiasValue(bias, out_c), out_c, output_offset);
  };
}

// How CONV_2D and DEPTHWISE_CONV_2D (`params` the op's options, the filter [*, KH, KW, *]) end their
// Prepare: the window checked, TFLite's padding computed, the output resized to
// [N, out_height, out_width, output_depth].
template <typename Params>
TfLiteStatus ResizeConvOutput(TfLiteContext* context, const Params& params, const TfLiteTensor* input,
                              const TfLiteTensor* filter, int output_depth, TfLiteTensor* output, ConvData* data) {
  return nn::ResizeWindowedOutput(
      context,
      {params.padding, params.stride_height, params.stride_width, params.dilation_height_factor,
       params.dilation_width_factor, filter->dims->data[1], filter->dims->data[2]},
      input, output_depth, output, &data->padding);
}

// Walks the windows of CONV_2D and DEPTHWISE_CONV_2D (`params` the op's options, the filter
// [*, KH, KW, *]): calls position(b, out_y, out_x, for_each_tap) for each output position, where
// for_each_tap(tap) calls tap(in_y, in_x, filter_y, filter_x) for each tap of the position's window
// that falls inside the input, in TFLite's reference order (rows, then columns); padding
// contributes nothing.
template <typename Params, typename Position>
void ForEachConvWindow(const Params& params, const ConvData& data, const TfLiteTensor* input,
                       const TfLiteTensor* filter, const TfLiteTensor* output, Position position) {
  const int batches = input->dims->data[0];
  const int input_height = input->dims->data[1];
  const int input_width = input->dims->data[2];
  const int filter_height = filter->dims->data[1];
  const int filter_width = filter->dims->data[2];
  const int output_height = output->dims->data[1];
  const int output_width = output->dims->data[2];
  for (int b = 0; b < batches; ++b) {
    for (int out_y = 0; out_y < output_height; ++out_y) {
      const int in_y_origin = out_y * params.stride_height - data.padding.height;
      for (int out_x = 0; out_x < output_width; ++out_x) {
        const int in_x_origin = out_x * params.stride_width - data.padding.width;
        position(b, out_y, out_x, [&](auto tap) {
          for (int filter_y = 0; filter_y < filter_height; ++filter_y) {
            const int in_y = in_y_origin + params.dilation_height_factor * filter_y;
            if (in_y < 0 || in_y >= input_height) continue;  // zero padding
            for (int filter_x = 0; filter_x < filter_width; ++filter_x) {
              const int in_x = in_x_origin + params.dilation_width_factor * filter_x;
              if (in_x < 0 || in_x >= input_width) continue;
              tap(in_y, in_x, filter_y, filter_x);
            }
          }
        });
      }
    }
  }
}

// ---- CONV_2D: input [N, H, W, C], filter [OC, KH, KW, C / groups], bias [OC].

// Hybrid CONV_2D (float input, int8 weights): float bias and output, quantized weights.
TfLiteStatus PrepareHybridConv(TfLiteContext* context, const TfLiteConvParams& params, const TfLiteTensor* input,
                               const TfLiteTensor* filter, const TfLiteTensor* bias, const TfLiteTensor* output,
                               int groups, ConvData* data) {
  if (filter->type != kTfLiteInt8) {
    TF_LITE_KERNEL_LOG(context,
                       "input 1 (filter) has type %s with a FLOAT32 input; hybrid CONV_2D "
                       "supports INT8 weights only",
                       TfLiteTypeGetName(filter->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckType(context, bias, "input 2 (bias)", kTfLiteFloat32));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteFloat32));
  const TfLiteAffineQuantization* quantization = AffineQuantization(filter);
  if (quantization == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input 1 (filter) is INT8 but not quantized");
    return kTfLiteError;
  }
  if (groups != 1) {
    TF_LITE_KERNEL_LOG(context, "hybrid (INT8-weight) CONV_2D does not support groups (%d)", groups);
    return kTfLiteError;
  }
  // TFLite takes the per-channel path only when the channel scales actually differ.
  data->hybrid_per_channel = false;
  for (int i = 1; i < quantization->scale->size; ++i) {
    if (quantization->scale->data[i] != quantization->scale->data[0]) {
      data->hybrid_per_channel = true;
    }
  }
  if (data->hybrid_per_channel &&
      (quantization->quantized_dimension != 0 || quantization->scale->size != filter->dims->data[0])) {
    TF_LITE_KERNEL_LOG(context,
                       "input 1 (filter) has %d scales along dimension %d; per-channel weights "
                       "need one per output channel (dimension 0)",
                       quantization->scale->size, quantization->quantized_dimension);
    return kTfLiteError;
  }
  data->hybrid = true;
  PrepareHybridScratch(params.activation, input, data);
  return kTfLiteOk;
}

TfLiteStatus ConvPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  const TfLiteTensor* input;
  const TfLiteTensor* filter;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetConvTensors(context, node, &input, &filter, &output));
  // TFLite 2.14's conv.cc requires the bias ("has_bias was not true"), for every type.
  if (node->inputs->size == 2 || tflite::GetOptionalInputTensor(context, node, 2) == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) is missing; CONV_2D requires a bias tensor");
    return kTfLiteError;
  }
  const TfLiteTensor* bias = tflite::GetInput(context, node, 2);

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
    TF_LITE_KERNEL_LOG(context, "filter has %d output channels, not divisible into %d groups", output_depth, groups);
    return kTfLiteError;
  }
  if (tflite::NumElements(bias) != output_depth) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) has %d elements, expected %d (output channels)",
                       static_cast<int>(tflite::NumElements(bias)), output_depth);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));

  data->hybrid = false;
  switch (input->type) {
    case kTfLiteFloat32:
      if (filter->type == kTfLiteInt8 || filter->type == kTfLiteUInt8) {
        TF_LITE_ENSURE_OK(context, PrepareHybridConv(context, params, input, filter, bias, output, groups, data));
        break;
      }
      TF_LITE_ENSURE_OK(context, CheckType(context, filter, "input 1 (filter)", kTfLiteFloat32));
      TF_LITE_ENSURE_OK(context, nn::PrepareFloatOutput(context, params.activation, bias, "input 2 (bias)", output,
                                                        &data->activation_min, &data->activation_max));
      break;
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      TF_LITE_ENSURE_OK(context, CheckQuantizedConvTypes(context, input, filter, bias, output, "input 0",
                                                         "input 1 (filter)", "input 2 (bias)",
                                                         /*int16_bias_may_be_int32=*/true));
      TF_LITE_ENSURE_OK(
          context, nn::PopulateConvolutionQuantizationParams(context, input, filter, bias, output, params.activation,
                                                             output_depth, "input 1 (filter)", &data->requantization));
      // TFLite's x86 build multiplies uint8 through gemmlowp (whose output stage is
      // MultiplyByQuantizedMultiplier's) and int8 and int16 through ruy; groups take its
      // reference kernel, and int16 with an int64 bias the 16x8 reference.
      if (input->type == kTfLiteInt16 && bias->type == kTfLiteInt64) {
        data->stage = nn::OutputStage::kInt64;
      } else if (input->type == kTfLiteUInt8 || groups != 1) {
        data->stage = nn::OutputStage::kDoubleRounding;
      } else {
        data->stage = nn::OutputStage::kRoundingUp;
      }
      break;
    default:
      return nn::RefuseProductInputType(context, "CONV_2D", "input 0", input->type);
  }

  return ResizeConvOutput(context, params, input, filter, output_depth, output, data);
}

// Calls emit(batch, output index, output channel, sum) once per output element, the sum of
// nn::ProductTerm (input offset input_offset_of(batch)) running over its window in TFLite's
// reference order (filter rows, columns, then channels); padding contributes nothing. The float,
// quantized and hybrid kernels share it and differ in what they make of the sum.
template <typename Acc, typename InputT, typename FilterT, typename InputOffset, typename Emit>
void ConvSums(const TfLiteConvParams& params, const ConvData& data, const TfLiteTensor* input, const InputT* input_data,
              const TfLiteTensor* filter, const FilterT* filter_data, const TfLiteTensor* output, int32_t filter_offset,
              InputOffset input_offset_of, Emit emit) {
  const int* input_dims = input->dims->data;
  const int* filter_dims = filter->dims->data;
  const int* output_dims = output->dims->data;
  const int filter_depth = filter_dims[3];
  const int output_depth = output_dims[3];
  const int filters_per_group = output_depth / (input_dims[3] / filter_depth);
  ForEachConvWindow(params, data, input, filter, output, [&](int b, int out_y, int out_x, auto for_each_tap) {
    const int32_t input_offset = input_offset_of(b);
    for (int out_c = 0; out_c < output_depth; ++out_c) {
      const int group = out_c / filters_per_group;
      Acc acc = 0;
      for_each_tap([&](int in_y, int in_x, int filter_y, int filter_x) {
        const InputT* input_pixel = input_data + nn::Offset4D(input_dims, b, in_y, in_x, group * filter_depth);
        const FilterT* filter_pixel = filter_data + nn::Offset4D(filter_dims, out_c, filter_y, filter_x, 0);
        for (int c = 0; c < filter_depth; ++c) {
          acc += nn::ProductTerm<Acc>(input_pixel[c], filter_pixel[c], input_offset, filter_offset);
        }
      });
      emit(b, nn::Offset4D(output_dims, b, out_y, out_x, out_c), out_c, acc);
    }
  });
}

void ConvFloat(const TfLiteConvParams& params, const ConvData& data, const TfLiteTensor* input,
               const TfLiteTensor* filter, const TfLiteTensor* bias, TfLiteTensor* output) {
  ConvSums<float>(
      params, data, input, tflite::GetTensorData<float>(input), filter, tflite::GetTensorData<float>(filter), output, 0,
      [](int) { return 0; }, FloatConvEmit(data, bias, output));
}

template <typename InputT, typename FilterT, typename OutputT>
void ConvQuantized(const TfLiteConvParams& params, const ConvData& data, const TfLiteTensor* input,
                   const TfLiteTensor* filter, const TfLiteTensor* bias, TfLiteTensor* output) {
  const int32_t input_offset = -input->params.zero_point;
  ConvSums<int64_t>(
      params, data, input, tflite::GetTensorData<InputT>(input), filter, tflite::GetTensorData<FilterT>(filter), output,
      -filter->params.zero_point, [&](int) { return input_offset; }, QuantizedConvEmit<OutputT>(data, bias, output));
}

// TFLite's hybrid convolution: each batch's input quantized to int8 on the fly, the integer sums
// scaled back with (input scale * weight scale), then the bias added and the activation applied,
// each step rounded to float as TFLite's kernels round it.
void ConvHybrid(const TfLiteConvParams& params, ConvData& data, const TfLiteTensor* input, const TfLiteTensor* filter,
                const TfLiteTensor* bias, TfLiteTensor* output) {
  QuantizeInputBatches(input, data.hybrid_per_channel, data);
  if (!data.hybrid_per_channel && tflite::NumElements(input) > 0) {
    for (float& scaling_factor : data.quantized_input.scaling_factors) scaling_factor *= filter->params.scale;
  }
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  const float* channel_scales = AffineQuantization(filter)->scale->data;
  const ConvData& const_data = data;
  ConvSums<int64_t>(
      params, const_data, input, const_data.quantized_input.values.data(), filter,
      tflite::GetTensorData<int8_t>(filter), output, 0,
      // The asymmetric path sums (q - zero point) * w: TFLite pads its im2col with the zero
      // point and subtracts zero point * (the filter's sum).
      [&](int b) { return const_data.hybrid_per_channel ? -const_data.quantized_input.offsets[b] : 0; },
      [&](int b, int64_t index, int out_c, int64_t acc) {
        const int32_t sum = static_cast<int32_t>(acc);
        float value;
        if (const_data.hybrid_per_channel) {
          // Eigen's expression in optimized_ops::HybridConvPerChannel.
          const float scale = channel_scales[out_c] * const_data.quantized_input.scaling_factors[b];
          value = static_cast<float>(sum) * scale + bias_data[out_c];
        } else {
          // MatrixBatchVectorMultiplyAccumulate into zeros, then the bias.
          value = static_cast<float>(sum) * const_data.quantized_input.scaling_factors[b];
          value += bias_data[out_c];
        }
        output_data[index] = nn::ClampToActivation(value, const_data.activation_min, const_data.activation_max);
      });
}

// ---- DEPTHWISE_CONV_2D: input [N, H, W, C], filter [1, KH, KW, C * M], optional bias [C * M].
// Output channel c * M + m is input channel c through filter channel c * M + m; TFLite derives the
// depth multiplier M from the shapes and ignores the redundant depth_multiplier option.

// Hybrid DEPTHWISE_CONV_2D (float input and output, int8 weights with one scale per output
// channel): TFLite quantizes each batch's input asymmetrically on the fly. With a single weights
// scale TFLite reads per-channel scales past it (its outputs vary from run to run); that scale
// serves every channel here.
TfLiteStatus PrepareHybridDepthwiseConv(TfLiteContext* context, const TfLiteDepthwiseConvParams& params,
                                        const TfLiteTensor* input, const TfLiteTensor* filter, const TfLiteTensor* bias,
                                        const TfLiteTensor* output, ConvData* data) {
  if (bias != nullptr) {
    TF_LITE_ENSURE_OK(context, CheckType(context, bias, "input 2 (bias)", kTfLiteFloat32));
  }
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteFloat32));
  const TfLiteAffineQuantization* quantization = AffineQuantization(filter);
  if (quantization == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input 1 (filter) is INT8 but not quantized");
    return kTfLiteError;
  }
  const int output_depth = filter->dims->data[3];
  if (quantization->scale->size != 1 &&
      (quantization->scale->size != output_depth || quantization->quantized_dimension != 3)) {
    TF_LITE_KERNEL_LOG(context,
                       "input 1 (filter) has %d scales along dimension %d; per-channel weights "
                       "need one per output channel (%d) along dimension 3",
                       quantization->scale->size, quantization->quantized_dimension, output_depth);
    return kTfLiteError;
  }
  PrepareHybridScratch(params.activation, input, data);
  return kTfLiteOk;
}

TfLiteStatus DepthwiseConvPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteDepthwiseConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  const TfLiteTensor* input;
  const TfLiteTensor* filter;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetConvTensors(context, node, &input, &filter, &output));
  const bool has_bias = node->inputs->size == 3;
  // A third input that is omitted (-1) is refused by TFLite 2.14 ("Tensor at index 2 was
  // optional but was expected"); a bias-free depthwise convolution has two inputs.
  if (has_bias && tflite::GetOptionalInputTensor(context, node, 2) == nullptr) {
    TF_LITE_KERNEL_LOG(context,
                       "input 2 (bias) is omitted (-1); a DEPTHWISE_CONV_2D without bias must "
                       "have 2 inputs");
    return kTfLiteError;
  }
  const TfLiteTensor* bias = has_bias ? tflite::GetInput(context, node, 2) : nullptr;

  data->hybrid = input->type == kTfLiteFloat32 && filter->type == kTfLiteInt8;
  if (data->hybrid) {
    TF_LITE_ENSURE_OK(context, PrepareHybridDepthwiseConv(context, params, input, filter, bias, output, data));
  } else {
    TF_LITE_ENSURE_OK(context,
                      PrepareConvTypesWithoutHybrid(context, "DEPTHWISE_CONV_2D", params.activation, input, "input 0",
                                                    filter, "input 1 (filter)", bias, "input 2 (bias)", output, data));
  }

  if (filter->dims->data[0] != 1) {
    TF_LITE_KERNEL_LOG(context, "input 1 (filter) must be [1, H, W, C], has %d in dimension 0", filter->dims->data[0]);
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
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) must be [%d] (the filter's channels)", output_depth);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  if (input->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(
        context, nn::PopulateConvolutionQuantizationParams(context, input, filter, bias, output, params.activation,
                                                           output_depth, "input 1 (filter)", &data->requantization));
  }
  return ResizeConvOutput(context, params, input, filter, output_depth, output, data);
}

// Calls emit(batch, output index, output channel, sum) once per output element; output channel
// c * M + m sums nn::ProductTerm (input offset input_offset_of(batch)) of input channel c and
// filter channel c * M + m over its window, in TFLite's order.
template <typename Acc, typename InputT, typename FilterT, typename InputOffset, typename Emit>
void DepthwiseConvSums(const TfLiteDepthwiseConvParams& params, const ConvData& data, const TfLiteTensor* input,
                       const InputT* input_data, const TfLiteTensor* filter, const TfLiteTensor* output,
                       InputOffset input_offset_of, int32_t filter_offset, Emit emit) {
  const int* input_dims = input->dims->data;
  const int* filter_dims = filter->dims->data;
  const int* output_dims = output->dims->data;
  const int input_depth = input_dims[3];
  const int depth_multiplier = output_dims[3] / input_depth;
  const FilterT* filter_data = tflite::GetTensorData<FilterT>(filter);
  ForEachConvWindow(params, data, input, filter, output, [&](int b, int out_y, int out_x, auto for_each_tap) {
    const int32_t input_offset = input_offset_of(b);
    for (int in_c = 0; in_c < input_depth; ++in_c) {
      for (int m = 0; m < depth_multiplier; ++m) {
        const int out_c = in_c * depth_multiplier + m;
        Acc acc = 0;
        for_each_tap([&](int in_y, int in_x, int filter_y, int filter_x) {
          acc += nn::ProductTerm<Acc>(input_data[nn::Offset4D(input_dims, b, in_y, in_x, in_c)],
                                      filter_data[nn::Offset4D(filter_dims, 0, filter_y, filter_x, out_c)],
                                      input_offset, filter_offset);
        });
        emit(b, nn::Offset4D(output_dims, b, out_y, out_x, out_c), out_c, acc);
      }
    }
  });
}

void ConvFloat(const TfLiteDepthwiseConvParams& params, const ConvData& data, const TfLiteTensor* input,
               const TfLiteTensor* filter, const TfLiteTensor* bias, TfLiteTensor* output) {
  DepthwiseConvSums<float, float, float>(
      params, data, input, tflite::GetTensorData<float>(input), filter, output, [](int) { return 0; }, 0,
      FloatConvEmit(data, bias, output));
}

// A missing bias counts as zeros (TFLite 2.14 itself crashes on a bias-free int8 depthwise
// convolution; this computes what the op means).
template <typename InputT, typename FilterT, typename OutputT>
void ConvQuantized(const TfLiteDepthwiseConvParams& params, const ConvData& data, const TfLiteTensor* input,
                   const TfLiteTensor* filter, const TfLiteTensor* bias, TfLiteTensor* output) {
  const int32_t input_offset = -input->params.zero_point;
  DepthwiseConvSums<int64_t, InputT, FilterT>(
      params, data, input, tflite::GetTensorData<InputT>(input), filter, output, [&](int) { return input_offset; },
      -filter->params.zero_point, QuantizedConvEmit<OutputT>(data, bias, output));
}

// TFLite's reference_integer_ops::DepthwiseConvHybridPerChannel: integer sums of the weights and
// (quantized input - the batch's zero point), times (channel scale * the batch's input scale), then
// the bias and the activation.
void ConvHybrid(const TfLiteDepthwiseConvParams& params, ConvData& data, const TfLiteTensor* input,
                const TfLiteTensor* filter, const TfLiteTensor* bias, TfLiteTensor* output) {
  QuantizeInputBatches(input, /*asymmetric=*/true, data);
  const TfLiteFloatArray* scales = AffineQuantization(filter)->scale;
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  const ConvData& const_data = data;
  DepthwiseConvSums<int64_t, int8_t, int8_t>(
      params, const_data, input, const_data.quantized_input.values.data(), filter, output,
      [&](int b) { return -const_data.quantized_input.offsets[b]; }, 0,
      [&](int b, int64_t index, int out_c, int64_t acc) {
        float value = static_cast<float>(static_cast<int32_t>(acc));
        value *= scales->data[scales->size == 1 ? 0 : out_c] * const_data.quantized_input.scaling_factors[b];
        if (bias_data != nullptr) value += bias_data[out_c];
        output_data[index] = nn::ClampToActivation(value, const_data.activation_min, const_data.activation_max);
      });
}

// Eval of CONV_2D and DEPTHWISE_CONV_2D (`Params` their options): the kernel for the input's type,
// hybrid where Prepare found int8 weights for a float input. A bias-free DEPTHWISE_CONV_2D has 2
// inputs; CONV_2D's Prepare requires the third.
template <typename Params>
TfLiteStatus ConvEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<Params>(node);
  auto& data = *static_cast<ConvData*>(node->user_data);
  // Named, not only bound: the lambda below may not capture structured bindings (C++17; clang refuses).
  const nn::WeightedTensors tensors = nn::WeightedNodeTensors(context, node);
  const auto [input, filter, bias, output] = tensors;
  if (input->type == kTfLiteFloat32) {
    if (data.hybrid) {
      ConvHybrid(params, data, input, filter, bias, output);
    } else {
      ConvFloat(params, data, input, filter, bias, output);
    }
    return kTfLiteOk;
  }
  return nn::EvalQuantizedProduct(context, "input 0", input->type, [&](auto in, auto weights) {
    using InputT = decltype(in);
    ConvQuantized<InputT, decltype(weights), InputT>(params, data, tensors.input, tensors.weights, tensors.bias,
                                                     tensors.output);
  });
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
TfLiteStatus ResizeTransposeConvOutput(TfLiteContext* context, const TfLiteTransposeConvParams& params,
                                       const TfLiteTensor* output_shape, const TfLiteTensor* weights,
                                       const TfLiteTensor* input, TfLiteTensor* output, ConvData* data) {
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
                       shape[0], shape[1], shape[2], shape[3], input->dims->data[0], weights->dims->data[0]);
    return kTfLiteError;
  }
  int unused_height, unused_width;
  data->padding = nn::ComputePaddingHeightWidth(params.stride_height, params.stride_width, 1, 1, shape[1], shape[2],
                                                weights->dims->data[1], weights->dims->data[2], params.padding,
                                                &unused_height, &unused_width);
  return context->ResizeTensor(context, output, tflite::CreateIntArray({shape[0], shape[1], shape[2], shape[3]}));
}

TfLiteStatus TransposeConvPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteTransposeConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 3, 4));
  TF_LITE_ENSURE_OK(context, CheckOutputCount(context, node, 1));
  const TfLiteTensor* output_shape;
  const TfLiteTensor* weights;
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kOutputShapeInput, &output_shape));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kWeightsInput, &weights));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kDataInput, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  const TfLiteTensor* bias = tflite::GetOptionalInputTensor(context, node, kTransposeBiasInput);

  TF_LITE_ENSURE_OK(context, CheckType(context, output_shape, "input 0 (output shape)", kTfLiteInt32));
  if (output_shape->dims->size != 1 || output_shape->dims->data[0] != 4) {
    TF_LITE_KERNEL_LOG(context, "input 0 (output shape) must be a 1-D tensor of 4 elements");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckRank(context, weights, "input 1 (weights)", 4));
  TF_LITE_ENSURE_OK(context, CheckRank(context, input, "input 2", 4));

  TF_LITE_ENSURE_OK(
      context, PrepareConvTypesWithoutHybrid(context, "TRANSPOSE_CONV", params.activation, input, "input 2", weights,
                                             "input 1 (weights)", bias, "input 3 (bias)", output, data));
  // Without a bias TFLite's 16x8 TRANSPOSE_CONV requantizes with the 32-bit multiplier (as its
  // 8-bit kernels do), not the reduced 16-bit one its int64-bias path takes.
  if (input->type == kTfLiteInt16 && bias == nullptr) data->stage = nn::OutputStage::kDoubleRounding;

  if (input->dims->data[3] != weights->dims->data[3]) {
    TF_LITE_KERNEL_LOG(context, "input 2 has %d channels but input 1 (weights) expects %d", input->dims->data[3],
                       weights->dims->data[3]);
    return kTfLiteError;
  }
  if (bias != nullptr && tflite::NumElements(bias) != weights->dims->data[0]) {
    TF_LITE_KERNEL_LOG(context, "input 3 (bias) has %d elements, expected %d (output channels)",
                       static_cast<int>(tflite::NumElements(bias)), weights->dims->data[0]);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  if (input->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(context, nn::PopulateConvolutionQuantizationParams(context, input, weights, bias, output,
                                                                         params.activation, weights->dims->data[0],
                                                                         "input 1 (weights)", &data->requantization));
  }
  TF_LITE_ENSURE_OK(context, nn::CheckWindow(context, {params.padding, params.stride_height, params.stride_width, 1, 1,
                                                       weights->dims->data[1], weights->dims->data[2]}));
  if (!tflite::IsConstantTensor(output_shape)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return ResizeTransposeConvOutput(context, params, output_shape, weights, input, output, data);
}

// TFLite's reference scatter: each input pixel adds its contribution to the output pixels its
// filter window covers; `emit(index, out_c, total)` then sees every output element's total. The
// float and integer kernels share it; T is the accumulator type.
template <typename T, typename InputT, typename WeightsT, typename Emit>
void TransposeConvScatter(const TfLiteTransposeConvParams& params, const ConvData& data, const TfLiteTensor* input,
                          const InputT* input_data, const TfLiteTensor* weights, const WeightsT* weights_data,
                          int32_t input_offset, int32_t weights_offset, const TfLiteTensor* output, T* totals,
                          Emit emit) {
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

  const int64_t output_size = tflite::NumElements(output);
  for (int64_t i = 0; i < output_size; ++i) totals[i] = T(0);
  for (int b = 0; b < batches; ++b) {
    for (int in_y = 0; in_y < input_height; ++in_y) {
      // 64-bit: a large input times the stride may pass int even where the output is small.
      const int64_t out_y_origin = static_cast<int64_t>(in_y) * params.stride_height - data.padding.height;
      for (int in_x = 0; in_x < input_width; ++in_x) {
        const int64_t out_x_origin = static_cast<int64_t>(in_x) * params.stride_width - data.padding.width;
        for (int in_c = 0; in_c < input_depth; ++in_c) {
          const T input_value =
              static_cast<T>(input_data[nn::Offset4D(input_dims, b, in_y, in_x, in_c)] + input_offset);
          for (int filter_y = 0; filter_y < filter_height; ++filter_y) {
            const int64_t out_y = out_y_origin + filter_y;
            if (out_y < 0 || out_y >= output_height) continue;
            for (int filter_x = 0; filter_x < filter_width; ++filter_x) {
              const int64_t out_x = out_x_origin + filter_x;
              if (out_x < 0 || out_x >= output_width) continue;
              T* output_pixel =
                  totals + nn::Offset4D(output_dims, b, static_cast<int>(out_y), static_cast<int>(out_x), 0);
              for (int out_c = 0; out_c < output_depth; ++out_c) {
                output_pixel[out_c] +=
                    input_value *
                    static_cast<T>(weights_data[nn::Offset4D(weights_dims, out_c, filter_y, filter_x, in_c)] +
                                   weights_offset);
              }
            }
          }
        }
      }
    }
  }
  for (int64_t i = 0; i < output_size; ++i) emit(i, static_cast<int>(i % output_depth), totals[i]);
}

void TransposeConvFloat(const TfLiteTransposeConvParams& params, const ConvData& data, const TfLiteTensor* input,
                        const TfLiteTensor* weights, const TfLiteTensor* bias, TfLiteTensor* output) {
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  TransposeConvScatter<float>(
      params, data, input, tflite::GetTensorData<float>(input), weights, tflite::GetTensorData<float>(weights), 0, 0,
      output, output_data, [&](int64_t index, int out_c, float total) {
        const float bias_value = bias_data != nullptr ? bias_data[out_c] : 0.f;
        output_data[index] = nn::ClampToActivation(total + bias_value, data.activation_min, data.activation_max);
      });
}

template <typename InputT, typename WeightsT, typename OutputT>
void TransposeConvQuantized(const TfLiteTransposeConvParams& params, ConvData& data, const TfLiteTensor* input,
                            const TfLiteTensor* weights, const TfLiteTensor* bias, TfLiteTensor* output) {
  data.accumulators.resize(tflite::NumElements(output));
  const int32_t output_offset = output->params.zero_point;
  OutputT* output_data = tflite::GetTensorData<OutputT>(output);
  const ConvData& const_data = data;
  TransposeConvScatter<int64_t>(
      params, const_data, input, tflite::GetTensorData<InputT>(input), weights,
      tflite::GetTensorData<WeightsT>(weights), -input->params.zero_point, -weights->params.zero_point, output,
      data.accumulators.data(), [&](int64_t index, int out_c, int64_t total) {
        output_data[index] =
            nn::RequantizeOutput<OutputT>(const_data.stage, const_data.requantization,
                                          total + nn::IntegerBiasValue(bias, out_c), out_c, output_offset);
      });
}

TfLiteStatus TransposeConvEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteTransposeConvParams>(node);
  auto* data = static_cast<ConvData*>(node->user_data);
  const TfLiteTensor* output_shape = tflite::GetInput(context, node, kOutputShapeInput);
  const TfLiteTensor* weights = tflite::GetInput(context, node, kWeightsInput);
  const TfLiteTensor* input = tflite::GetInput(context, node, kDataInput);
  const TfLiteTensor* bias = tflite::GetOptionalInputTensor(context, node, kTransposeBiasInput);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) {
    TF_LITE_ENSURE_OK(context, ResizeTransposeConvOutput(context, params, output_shape, weights, input, output, data));
  }
  if (input->type == kTfLiteFloat32) {
    TransposeConvFloat(params, *data, input, weights, bias, output);
    return kTfLiteOk;
  }
  return nn::EvalQuantizedProduct(context, "input 2", input->type, [&](auto in, auto weights_t) {
    using InputT = decltype(in);
    TransposeConvQuantized<InputT, decltype(weights_t), InputT>(params, *data, input, weights, bias, output);
  });
}

}  // namespace

const nn::OutputRequantization* ConvRequantization(const void* user_data) {
  return user_data != nullptr ? &static_cast<const ConvData*>(user_data)->requantization : nullptr;
}

TS_REGISTER(CONV_2D, NewNodeData<ConvData>, DeleteNodeData<ConvData>, ConvPrepare, ConvEval<TfLiteConvParams>)
TS_REGISTER(DEPTHWISE_CONV_2D, NewNodeData<ConvData>, DeleteNodeData<ConvData>, DepthwiseConvPrepare,
            ConvEval<TfLiteDepthwiseConvParams>)
TS_REGISTER(TRANSPOSE_CONV, NewNodeData<ConvData>, DeleteNodeData<ConvData>, TransposeConvPrepare, TransposeConvEval)

}  // namespace reference
}  // namespace touchstone
