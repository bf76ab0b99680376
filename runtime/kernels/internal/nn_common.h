// Shared pieces of the nn kernels (convolution, pooling, dense layers, normalization, resizing):
// TensorFlow Lite's window arithmetic (tensorflow/lite/kernels/padding.h), NHWC indexing, and the
// Prepare-time window checks whose one-line messages every op of the group reports the same way (the
// checks of counts, types and ranks are kernel_helpers.h's).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_NN_COMMON_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_NN_COMMON_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace nn {

// Output length of a window sliding over `image_size` elements, as TFLite's ComputeOutSize.
// C++ division truncates toward zero, so a VALID window up to `stride` elements wider than the
// image still gives 0; a wider one gives a negative size (-1 here), which callers refuse.
// Intermediates are 64-bit so that no dimension or option of a damaged model overflows them.
inline int ComputeOutSize(TfLitePadding padding, int image_size, int filter_size, int stride, int dilation) {
  const int64_t effective_filter_size = (static_cast<int64_t>(filter_size) - 1) * dilation + 1;
  int64_t out_size = 0;
  switch (padding) {
    case kTfLitePaddingSame:
      out_size = (static_cast<int64_t>(image_size) + stride - 1) / stride;
      break;
    case kTfLitePaddingValid:
      out_size = (static_cast<int64_t>(image_size) + stride - effective_filter_size) / stride;
      break;
    default:
      break;
  }
  return out_size < 0 ? -1 : static_cast<int>(out_size);
}

// Padding before the first element; *offset is 1 when the total padding is odd (the extra element
// goes after the last one), as TFLite's ComputePaddingWithOffset.
inline int ComputePaddingWithOffset(int stride, int dilation, int in_size, int filter_size, int out_size, int* offset) {
  const int64_t effective_filter_size = (static_cast<int64_t>(filter_size) - 1) * dilation + 1;
  int64_t total_padding = (static_cast<int64_t>(out_size) - 1) * stride + effective_filter_size - in_size;
  total_padding = total_padding > 0 ? total_padding : 0;
  *offset = static_cast<int>(total_padding % 2);
  return static_cast<int>(total_padding / 2);
}

// Output size and padding of a 2-D window over an NHWC image, as TFLite's
// ComputePaddingHeightWidth.
inline TfLitePaddingValues ComputePaddingHeightWidth(int stride_height, int stride_width, int dilation_height,
                                                     int dilation_width, int in_height, int in_width, int filter_height,
                                                     int filter_width, TfLitePadding padding, int* out_height,
                                                     int* out_width) {
  *out_width = ComputeOutSize(padding, in_width, filter_width, stride_width, dilation_width);
  *out_height = ComputeOutSize(padding, in_height, filter_height, stride_height, dilation_height);
  TfLitePaddingValues values;
  int offset = 0;
  values.height =
      ComputePaddingWithOffset(stride_height, dilation_height, in_height, filter_height, *out_height, &offset);
  values.height_offset = offset;
  values.width = ComputePaddingWithOffset(stride_width, dilation_width, in_width, filter_width, *out_width, &offset);
  values.width_offset = offset;
  return values;
}

// Flat index of element (b, y, x, c) of an NHWC tensor with dimensions `dims`.
inline int64_t Offset4D(const int* dims, int b, int y, int x, int c) {
  return ((static_cast<int64_t>(b) * dims[1] + y) * dims[2] + x) * dims[3] + c;
}

// The sizes of an NHWC input and of an output with its batches and depth (a pool or a resize).
struct NhwcSizes {
  int batches, input_height, input_width, depth, output_height, output_width;
};

inline NhwcSizes NhwcSizesOf(const TfLiteTensor* input, const TfLiteTensor* output) {
  const int* in = input->dims->data;
  return {in[0], in[1], in[2], in[3], output->dims->data[1], output->dims->data[2]};
}

// The fused activation as TFLite's kernels apply it: a clamp to the activation's range.
inline float ClampToActivation(float value, float activation_min, float activation_max) {
  return std::min(std::max(value, activation_min), activation_max);
}

// The optimized kernels name kernel_helpers.h's ParamsOf from here.
using kernel_helpers::ParamsOf;

// The bias of a weighted node (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED): input 2, or null when
// the node has two inputs or omits it (-1).
inline const TfLiteTensor* OptionalBias(const TfLiteContext* context, const TfLiteNode* node) {
  return node->inputs->size == 3 ? tflite::GetInput(context, node, 2) : nullptr;
}

// A weighted node's tensors, once Prepare has checked them; read as
// `const auto [input, filter, bias, output] = WeightedNodeTensors(context, node);`.
struct WeightedTensors {
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  const TfLiteTensor* bias;  // null when absent
  TfLiteTensor* output;
};

inline WeightedTensors WeightedNodeTensors(TfLiteContext* context, const TfLiteNode* node) {
  return {tflite::GetInput(context, node, 0), tflite::GetInput(context, node, 1), OptionalBias(context, node),
          tflite::GetOutput(context, node, 0)};
}

// ---- Prepare-time checks. Each logs one line naming what is wrong and returns kTfLiteError.

inline TfLiteStatus CheckFusedActivation(TfLiteContext* context, TfLiteFusedActivation activation) {
  if (activation >= kTfLiteActNone && activation <= kTfLiteActSigmoid) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "fused activation %d is not a known activation", static_cast<int>(activation));
  return kTfLiteError;
}

// Windows wider than this, or strides longer, are refused: real models stay far below it, and it
// keeps every index the kernels compute (origin + dilation * tap) within int.
constexpr int64_t kMaxWindowExtent = int64_t{1} << 24;

// The 2-D window of a convolution or pool, as its options and filter shape give it.
struct Window {
  TfLitePadding padding;
  int stride_height;
  int stride_width;
  int dilation_height;
  int dilation_width;
  int filter_height;
  int filter_width;
};

inline TfLiteStatus CheckWindow(TfLiteContext* context, const Window& window) {
  if (window.padding != kTfLitePaddingSame && window.padding != kTfLitePaddingValid) {
    TF_LITE_KERNEL_LOG(context, "padding %d is neither SAME nor VALID", static_cast<int>(window.padding));
    return kTfLiteError;
  }
  if (window.stride_height < 1 || window.stride_width < 1 || window.stride_height > kMaxWindowExtent ||
      window.stride_width > kMaxWindowExtent) {
    TF_LITE_KERNEL_LOG(context, "strides must be in [1, %d], got height %d width %d",
                       static_cast<int>(kMaxWindowExtent), window.stride_height, window.stride_width);
    return kTfLiteError;
  }
  if (window.dilation_height < 1 || window.dilation_width < 1) {
    TF_LITE_KERNEL_LOG(context, "dilation factors must be positive, got height %d width %d", window.dilation_height,
                       window.dilation_width);
    return kTfLiteError;
  }
  if (window.filter_height < 1 || window.filter_width < 1) {
    TF_LITE_KERNEL_LOG(context, "filter size must be positive, got height %d width %d", window.filter_height,
                       window.filter_width);
    return kTfLiteError;
  }
  const int64_t extent_height = (static_cast<int64_t>(window.filter_height) - 1) * window.dilation_height + 1;
  const int64_t extent_width = (static_cast<int64_t>(window.filter_width) - 1) * window.dilation_width + 1;
  if (extent_height > kMaxWindowExtent || extent_width > kMaxWindowExtent) {
    TF_LITE_KERNEL_LOG(context, "the dilated filter spans %lld x %lld elements, more than %d",
                       static_cast<long long>(extent_height), static_cast<long long>(extent_width),
                       static_cast<int>(kMaxWindowExtent));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// A VALID window larger than the image leaves no output position (ComputeOutSize gave -1).
inline TfLiteStatus CheckOutSize(TfLiteContext* context, int out_height, int out_width) {
  if (out_height >= 0 && out_width >= 0) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context,
                     "with VALID padding the (dilated) filter window is larger than the input's "
                     "%s",
                     out_height < 0 ? "height" : "width");
  return kTfLiteError;
}

// A float32 bias (when present) and output, and the fused activation's float range: how every float
// convolution and matrix product ends its Prepare.
inline TfLiteStatus PrepareFloatOutput(TfLiteContext* context, TfLiteFusedActivation activation,
                                       const TfLiteTensor* bias, const char* bias_role, const TfLiteTensor* output,
                                       float* activation_min, float* activation_max) {
  if (bias != nullptr) {
    TF_LITE_ENSURE_OK(context, kernel_helpers::CheckType(context, bias, bias_role, kTfLiteFloat32));
  }
  TF_LITE_ENSURE_OK(context, kernel_helpers::CheckType(context, output, "output 0", kTfLiteFloat32));
  tflite::CalculateActivationRange(activation, activation_min, activation_max);
  return kTfLiteOk;
}

// Checks the window of a convolution or pooling over an NHWC input, computes TFLite's padding into
// *padding and resizes the output to [batch, out_height, out_width, output_depth].
inline TfLiteStatus ResizeWindowedOutput(TfLiteContext* context, const Window& window, const TfLiteTensor* input,
                                         int output_depth, TfLiteTensor* output, TfLitePaddingValues* padding) {
  TF_LITE_ENSURE_OK(context, CheckWindow(context, window));
  int out_height, out_width;
  *padding = ComputePaddingHeightWidth(
      window.stride_height, window.stride_width, window.dilation_height, window.dilation_width, input->dims->data[1],
      input->dims->data[2], window.filter_height, window.filter_width, window.padding, &out_height, &out_width);
  TF_LITE_ENSURE_OK(context, CheckOutSize(context, out_height, out_width));
  return context->ResizeTensor(context, output,
                               tflite::CreateIntArray({input->dims->data[0], out_height, out_width, output_depth}));
}

// ---- Quantized forms (uint8, int8 with per-channel weights, int16x8) and hybrid forms (float
// activations, int8 weights) of the convolutions and matrix products.

// The optimized kernels name tensor_util.h's AffineQuantization and kernel_util.h's quantized
// activation range from here.
using tflite::CalculateActivationRangeQuantized;
using ::touchstone::AffineQuantization;

// How a kernel turns its integer accumulators (bias included) into output values; TFLite's x86
// kernels do not all round alike, and each quantized op says which one its TFLite path uses.
enum class OutputStage {
  // MultiplyByQuantizedMultiplier: rounding doubling high multiply (ties up), then a rounding
  // shift (ties away from zero). The reference kernels, gemmlowp's output stage (uint8 GEMMs),
  // and the depthwise and transposed convolutions' own output loops.
  kDoubleRounding,
  // The same two steps, both rounding ties up: ruy's x86 GEMM kernels (CONV_2D,
  // FULLY_CONNECTED, BATCH_MATMUL).
  kRoundingUp,
  // 64-bit accumulators with the multiplier reduced to 16 bits (the 16x8 reference kernels).
  kInt64,
};

// Scales a 64-bit accumulator by multiplier * 2^(shift - 31) the way `stage` does. The 32-bit
// stages keep the accumulator's low 32 bits first, as the int32 accumulators of TFLite wrap.
inline int32_t ApplyOutputStage(OutputStage stage, int64_t acc, int32_t multiplier, int shift) {
  switch (stage) {
    case OutputStage::kDoubleRounding:
      return quantization_util::MultiplyByQuantizedMultiplier(static_cast<int32_t>(static_cast<uint32_t>(acc)),
                                                              multiplier, shift);
    case OutputStage::kRoundingUp:
      return quantization_util::MultiplyByQuantizedMultiplierRoundingUp(
          static_cast<int32_t>(static_cast<uint32_t>(acc)), multiplier, shift);
    case OutputStage::kInt64:
      break;
  }
  return quantization_util::MultiplyByQuantizedMultiplier(acc, multiplier, shift);
}

// One term of a convolution's or matrix product's sum: input * weight for a float Acc; for an
// integer one, (input + input_offset) * (weight + weight_offset) as the int32 product TFLite forms.
template <typename Acc, typename InputT, typename WeightT>
inline Acc ProductTerm(InputT input, WeightT weight, int32_t input_offset, int32_t weight_offset) {
  if constexpr (std::is_floating_point<Acc>::value) {
    return input * weight;
  } else {
    return (static_cast<int32_t>(input) + input_offset) * (static_cast<int32_t>(weight) + weight_offset);
  }
}

// Refuses an input type that no kernel of the convolution or matrix product `op` takes.
inline TfLiteStatus RefuseProductInputType(TfLiteContext* context, const char* op, const char* input_role,
                                           TfLiteType type) {
  TF_LITE_KERNEL_LOG(context, "%s has type %s; %s supports FLOAT32, UINT8, INT8 and INT16", input_role,
                     TfLiteTypeGetName(type), op);
  return kTfLiteError;
}

// The weights' type a quantized input takes: uint8 with uint8, int8 and int16 with int8.
inline TfLiteType QuantizedWeightsType(TfLiteType input_type) {
  return input_type == kTfLiteUInt8 ? kTfLiteUInt8 : kTfLiteInt8;
}

// Calls eval(InputT(), WeightsT()) with the element types of a quantized input of `input_type` and
// of its weights (QuantizedWeightsType's); the output has the input's type. Any other input type
// is refused, naming `input_role`.
template <typename Eval>
TfLiteStatus EvalQuantizedProduct(TfLiteContext* context, const char* input_role, TfLiteType input_type, Eval&& eval) {
  switch (input_type) {
    case kTfLiteUInt8:
      eval(uint8_t(), uint8_t());
      return kTfLiteOk;
    case kTfLiteInt8:
      eval(int8_t(), int8_t());
      return kTfLiteOk;
    case kTfLiteInt16:
      eval(int16_t(), int8_t());
      return kTfLiteOk;
    default:
      TF_LITE_KERNEL_LOG(context, "%s has unsupported type %s", input_role, TfLiteTypeGetName(input_type));
      return kTfLiteError;
  }
}

// What Prepare derives from the tensors' quantization for a quantized convolution or product: a
// multiplier and shift for each output channel, and the clamp. Weights with one scale keep a single
// entry that stands for every channel, instead of thousands of copies written at each Prepare.
struct OutputRequantization {
  std::vector<int32_t> multiplier;  // one per channel, or one for all
  std::vector<int> shift;           // the same count; TFLite's exponent: positive shifts left
  int32_t activation_min = 0;
  int32_t activation_max = 0;

  size_t EntryOf(int channel) const { return multiplier.size() == 1 ? 0 : static_cast<size_t>(channel); }
  int32_t MultiplierOf(int channel) const { return multiplier[EntryOf(channel)]; }
  int ShiftOf(int channel) const { return shift[EntryOf(channel)]; }
  void SetUniform(int32_t channel_multiplier, int channel_shift) {
    multiplier.assign(1, channel_multiplier);
    shift.assign(1, channel_shift);
  }
  void SetPerChannel(int channels) {
    multiplier.resize(channels);
    shift.resize(channels);
  }
};

// Output channel `channel`'s accumulator (bias included) scaled to the output: the channel's
// multiplier applied as `stage` rounds, the zero point added (wrapping like TFLite's int32 sum),
// the clamp.
template <typename OutputT>
OutputT RequantizeOutput(OutputStage stage, const OutputRequantization& rq, int64_t acc, int channel,
                         int32_t output_offset) {
  int32_t value = ApplyOutputStage(stage, acc, rq.MultiplierOf(channel), rq.ShiftOf(channel));
  value = quantization_util::WrappingAdd(value, output_offset);
  return static_cast<OutputT>(std::min(std::max(value, rq.activation_min), rq.activation_max));
}

// Element `channel` of an INT32 or INT64 bias; 0 without a bias.
inline int64_t IntegerBiasValue(const TfLiteTensor* bias, int channel) {
  if (bias == nullptr) return 0;
  return bias->type == kTfLiteInt64 ? tflite::GetTensorData<int64_t>(bias)[channel]
                                    : tflite::GetTensorData<int32_t>(bias)[channel];
}

// TFLite's check (GetQuantizedConvolutionMultipler) that a bias scale is close enough to
// input_scale * weights_scale for the kernels, which add the bias to the products unscaled: the
// difference, in output steps, must not exceed 0.02.
inline TfLiteStatus CheckBiasScale(TfLiteContext* context, const TfLiteTensor* input, const TfLiteTensor* weights,
                                   const TfLiteTensor* bias, const TfLiteTensor* output) {
  if (bias == nullptr) return kTfLiteOk;
  const double input_product_scale =
      static_cast<double>(input->params.scale) * static_cast<double>(weights->params.scale);
  const double bias_scale = bias->params.scale;
  const double output_scale = output->params.scale;
  if (std::abs(input_product_scale - bias_scale) / output_scale <= 0.02) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context,
                     "the bias scale %g differs from the input scale times the weights scale "
                     "(%g) by more than 0.02 output steps",
                     bias_scale, input_product_scale);
  return kTfLiteError;
}

// TFLite's PopulateConvolutionQuantizationParams for `num_channels` output channels: per-channel
// weights (int8 only, for int8 or int16 inputs) get input_scale * filter_scale[c] / output_scale
// in double; uint8 keeps TFLite's legacy per-tensor multiplier, whose product of scales is taken in
// float, and checks the bias scale against that product.
inline TfLiteStatus PopulateConvolutionQuantizationParams(TfLiteContext* context, const TfLiteTensor* input,
                                                          const TfLiteTensor* filter, const TfLiteTensor* bias,
                                                          const TfLiteTensor* output, TfLiteFusedActivation activation,
                                                          int num_channels, const char* filter_role,
                                                          OutputRequantization* result) {
  const TfLiteAffineQuantization* filter_quantization = AffineQuantization(filter);
  if (AffineQuantization(input) == nullptr || filter_quantization == nullptr || AffineQuantization(output) == nullptr) {
    TF_LITE_KERNEL_LOG(context, "%s",
                       AffineQuantization(input) == nullptr ? "the input is not quantized"
                       : filter_quantization == nullptr     ? "the weights are not quantized"
                                                            : "the output is not quantized");
    return kTfLiteError;
  }
  const int scale_count = filter_quantization->scale->size;
  const bool per_channel = scale_count > 1;
  if (per_channel) {
    if ((input->type != kTfLiteInt8 && input->type != kTfLiteInt16) || filter->type != kTfLiteInt8) {
      TF_LITE_KERNEL_LOG(context,
                         "%s has per-channel scales, which need INT8 weights and an INT8 or "
                         "INT16 input",
                         filter_role);
      return kTfLiteError;
    }
    const int qdim = filter_quantization->quantized_dimension;
    if (scale_count != num_channels || qdim < 0 || qdim >= filter->dims->size ||
        filter->dims->data[qdim] != num_channels) {
      TF_LITE_KERNEL_LOG(context,
                         "%s has %d scales along dimension %d; expected one per output channel "
                         "(%d)",
                         filter_role, scale_count, qdim, num_channels);
      return kTfLiteError;
    }
  }
  const float input_scale = input->params.scale;
  const float output_scale = output->params.scale;
  if (per_channel) {
    // Runs once per output channel of every layer at Prepare (17,000 times in a MobileNet v2):
    // plain pointers, so that the loop keeps nothing in memory but its results.
    result->SetPerChannel(num_channels);
    int32_t* multipliers = result->multiplier.data();
    int* shifts = result->shift.data();
    const float* filter_scales = filter_quantization->scale->data;
    const double input_scale_double = input_scale;
    const double output_scale_double = output_scale;
    for (int c = 0; c < num_channels; ++c) {
      const double effective_scale = input_scale_double * static_cast<double>(filter_scales[c]) / output_scale_double;
      quantization_util::QuantizeMultiplier(effective_scale, &multipliers[c], &shifts[c]);
    }
  } else if (input->type != kTfLiteUInt8) {
    // One scale: every channel's multiplier is the same (uint8's legacy one follows).
    const double effective_scale =
        static_cast<double>(input_scale) * filter_quantization->scale->data[0] / static_cast<double>(output_scale);
    int32_t multiplier;
    int shift;
    quantization_util::QuantizeMultiplier(effective_scale, &multiplier, &shift);
    result->SetUniform(multiplier, shift);
  }
  if (input->type == kTfLiteUInt8) {
    TF_LITE_ENSURE_OK(context, CheckBiasScale(context, input, filter, bias, output));
    const double legacy_product = static_cast<double>(input_scale * filter->params.scale);
    if (!(legacy_product >= 0)) {
      TF_LITE_KERNEL_LOG(context, "the input and weights scales have a negative product");
      return kTfLiteError;
    }
    int32_t multiplier;
    int shift;
    quantization_util::QuantizeMultiplier(legacy_product / static_cast<double>(output_scale), &multiplier, &shift);
    result->SetUniform(multiplier, shift);
  }
  return tflite::CalculateActivationRangeQuantized(context, activation, output, &result->activation_min,
                                                   &result->activation_max);
}

// Weights of an int8-per-channel or 16x8 kernel must be symmetric (every zero point 0).
inline TfLiteStatus CheckSymmetricWeights(TfLiteContext* context, const TfLiteTensor* filter, const char* role) {
  const TfLiteAffineQuantization* quantization = AffineQuantization(filter);
  if (quantization == nullptr) {
    TF_LITE_KERNEL_LOG(context, "%s is not quantized", role);
    return kTfLiteError;
  }
  if (quantization->zero_point != nullptr) {
    // One pass without an exit per channel (tens of thousands in a per-channel model); the
    // offender is looked for only when there is one.
    int any_nonzero = 0;
    for (int i = 0; i < quantization->zero_point->size; ++i) any_nonzero |= quantization->zero_point->data[i];
    for (int i = 0; any_nonzero != 0 && i < quantization->zero_point->size; ++i) {
      if (quantization->zero_point->data[i] != 0) {
        TF_LITE_KERNEL_LOG(context, "%s has zero point %d; symmetric weights (0) are required", role,
                           quantization->zero_point->data[i]);
        return kTfLiteError;
      }
    }
  }
  return kTfLiteOk;
}

// 16-bit activations are symmetric: their zero points must be 0.
inline TfLiteStatus CheckZeroPointIsZero(TfLiteContext* context, const TfLiteTensor* tensor, const char* role) {
  if (tensor->params.zero_point == 0) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has zero point %d; INT16 tensors must have zero point 0", role,
                     tensor->params.zero_point);
  return kTfLiteError;
}

// ---- Hybrid kernels: TFLite quantizes the float input to int8 on the fly, one scale per batch
// row (tensor_utils' portable functions, which its x86 build uses), multiplies in integers and
// scales the sums back to float.

// The quantizers themselves are quantization_util.h's.
using quantization_util::AsymmetricQuantizeFloats;
using quantization_util::BatchQuantizeFloats;
using quantization_util::SymmetricQuantizeFloats;

// A hybrid kernel's float input quantized row by row (BatchQuantizeFloats): the int8 rows, each
// row's scale and zero point. Prepare sizes it, Eval fills it.
struct QuantizedRows {
  std::vector<int8_t> values;
  std::vector<float> scaling_factors;
  std::vector<int32_t> offsets;

  void Resize(int64_t rows, int64_t depth) {
    values.resize(rows * depth);
    scaling_factors.resize(rows);
    offsets.resize(rows);
  }
  // Quantizes the rows of `input`: as many, and as long, as Resize was given.
  void Quantize(const float* input, bool asymmetric) {
    const int64_t rows = static_cast<int64_t>(scaling_factors.size());
    const int depth = rows == 0 ? 0 : static_cast<int>(static_cast<int64_t>(values.size()) / rows);
    BatchQuantizeFloats(input, rows, depth, values.data(), scaling_factors.data(), offsets.data(), asymmetric);
  }
};

}  // namespace nn
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_NN_COMMON_H_
