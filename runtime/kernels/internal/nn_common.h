// Shared pieces of the nn kernels (convolution, pooling, dense layers, normalization, resizing):
// TensorFlow Lite's window arithmetic (tensorflow/lite/kernels/padding.h), NHWC indexing, and the
// Prepare-time checks whose one-line messages every op of the group reports the same way.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_NN_COMMON_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_NN_COMMON_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"

namespace touchstone {
namespace nn {

// Output length of a window sliding over `image_size` elements, as TFLite's ComputeOutSize.
// C++ division truncates toward zero, so a VALID window up to `stride` elements wider than the
// image still gives 0; a wider one gives a negative size (-1 here), which callers refuse.
// Intermediates are 64-bit so that no dimension or option of a damaged model overflows them.
inline int ComputeOutSize(TfLitePadding padding, int image_size, int filter_size, int stride,
                          int dilation) {
  const int64_t effective_filter_size = (static_cast<int64_t>(filter_size) - 1) * dilation + 1;
  int64_t out_size = 0;
  switch (padding) {
    case kTfLitePaddingSame:
      out_size = (static_cast<int64_t>(image_size) + stride - 1) / stride;
      break;
    case kTfLitePaddingValid:
      out_size = (static_cast<int64_t>(image_size) + stride - effective_filter_size) / stride;
      break;
    default: break;
  }
  return out_size < 0 ? -1 : static_cast<int>(out_size);
}

// Padding before the first element; *offset is 1 when the total padding is odd (the extra element
// goes after the last one), as TFLite's ComputePaddingWithOffset.
inline int ComputePaddingWithOffset(int stride, int dilation, int in_size, int filter_size,
                                    int out_size, int* offset) {
  const int64_t effective_filter_size = (static_cast<int64_t>(filter_size) - 1) * dilation + 1;
  int64_t total_padding =
      (static_cast<int64_t>(out_size) - 1) * stride + effective_filter_size - in_size;
  total_padding = total_padding > 0 ? total_padding : 0;
  *offset = static_cast<int>(total_padding % 2);
  return static_cast<int>(total_padding / 2);
}

// Output size and padding of a 2-D window over an NHWC image, as TFLite's
// ComputePaddingHeightWidth.
inline TfLitePaddingValues ComputePaddingHeightWidth(int stride_height, int stride_width,
                                                     int dilation_height, int dilation_width,
                                                     int in_height, int in_width, int filter_height,
                                                     int filter_width, TfLitePadding padding,
                                                     int* out_height, int* out_width) {
  *out_width = ComputeOutSize(padding, in_width, filter_width, stride_width, dilation_width);
  *out_height = ComputeOutSize(padding, in_height, filter_height, stride_height, dilation_height);
  TfLitePaddingValues values;
  int offset = 0;
  values.height = ComputePaddingWithOffset(stride_height, dilation_height, in_height, filter_height,
                                           *out_height, &offset);
  values.height_offset = offset;
  values.width = ComputePaddingWithOffset(stride_width, dilation_width, in_width, filter_width,
                                          *out_width, &offset);
  values.width_offset = offset;
  return values;
}

// Flat index of element (b, y, x, c) of an NHWC tensor with dimensions `dims`.
inline int64_t Offset4D(const int* dims, int b, int y, int x, int c) {
  return ((static_cast<int64_t>(b) * dims[1] + y) * dims[2] + x) * dims[3] + c;
}

// The fused activation as TFLite's kernels apply it: a clamp to the activation's range.
inline float ClampToActivation(float value, float activation_min, float activation_max) {
  return std::min(std::max(value, activation_min), activation_max);
}

// The node's TfLite*Params; TFLite zero-fills them when the options table is absent, so a node
// without builtin_data reads the same zeros.
template <typename Params>
const Params& ParamsOf(const TfLiteNode* node) {
  static const Params kZeroFilled{};
  return node->builtin_data != nullptr ? *static_cast<const Params*>(node->builtin_data)
                                       : kZeroFilled;
}

// A registration with only the four kernel callbacks set (init and free may be null).
inline TfLiteRegistration MakeRegistration(void* (*init)(TfLiteContext*, const char*, size_t),
                                           void (*free)(TfLiteContext*, void*),
                                           TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*),
                                           TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*)) {
  TfLiteRegistration registration{};
  registration.init = init;
  registration.free = free;
  registration.prepare = prepare;
  registration.invoke = invoke;
  return registration;
}

// ---- Prepare-time checks. Each logs one line naming what is wrong and returns kTfLiteError.

inline TfLiteStatus CheckInputCount(TfLiteContext* context, const TfLiteNode* node, int min_count,
                                    int max_count) {
  const int count = node->inputs->size;
  if (count >= min_count && count <= max_count) return kTfLiteOk;
  if (min_count == max_count) {
    TF_LITE_KERNEL_LOG(context, "has %d inputs, expected %d", count, min_count);
  } else {
    TF_LITE_KERNEL_LOG(context, "has %d inputs, expected %d to %d", count, min_count, max_count);
  }
  return kTfLiteError;
}

inline TfLiteStatus CheckOutputCount(TfLiteContext* context, const TfLiteNode* node, int count) {
  if (node->outputs->size == count) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "has %d outputs, expected %d", node->outputs->size, count);
  return kTfLiteError;
}

// `role` names the tensor in messages, e.g. "input 1 (filter)".
inline TfLiteStatus CheckType(TfLiteContext* context, const TfLiteTensor* tensor,
                              TfLiteType expected, const char* role) {
  if (tensor->type == expected) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has type %s, expected %s", role, TfLiteTypeGetName(tensor->type),
                     TfLiteTypeGetName(expected));
  return kTfLiteError;
}

inline TfLiteStatus CheckRank(TfLiteContext* context, const TfLiteTensor* tensor, int rank,
                              const char* role) {
  if (tensor->dims->size == rank) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s is %d-D, expected %d-D", role, tensor->dims->size, rank);
  return kTfLiteError;
}

inline TfLiteStatus CheckRankBetween(TfLiteContext* context, const TfLiteTensor* tensor,
                                     int min_rank, int max_rank, const char* role) {
  const int rank = tensor->dims->size;
  if (rank >= min_rank && rank <= max_rank) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s is %d-D, expected %d-D to %d-D", role, rank, min_rank, max_rank);
  return kTfLiteError;
}

// Refuses an element type this kernel has no implementation for (yet): the message says which
// type the kernel does compute, so a quantized model fails with a clear reason.
inline TfLiteStatus RefuseType(TfLiteContext* context, const TfLiteTensor* tensor,
                               const char* role) {
  TF_LITE_KERNEL_LOG(context, "%s has type %s; this kernel supports only FLOAT32 so far", role,
                     TfLiteTypeGetName(tensor->type));
  return kTfLiteError;
}

// Weights of a float op: float32 too. Float input with int8/uint8 weights is TFLite's hybrid path,
// which is not written yet.
inline TfLiteStatus CheckFloatWeights(TfLiteContext* context, const TfLiteTensor* weights,
                                      const char* role) {
  if (weights->type == kTfLiteInt8 || weights->type == kTfLiteUInt8) {
    TF_LITE_KERNEL_LOG(context,
                       "%s has type %s with a FLOAT32 input; hybrid (quantized-weight) kernels "
                       "are not supported yet",
                       role, TfLiteTypeGetName(weights->type));
    return kTfLiteError;
  }
  return CheckType(context, weights, kTfLiteFloat32, role);
}

inline TfLiteStatus CheckFusedActivation(TfLiteContext* context, TfLiteFusedActivation activation) {
  if (activation >= kTfLiteActNone && activation <= kTfLiteActSigmoid) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "fused activation %d is not a known activation",
                     static_cast<int>(activation));
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
    TF_LITE_KERNEL_LOG(context, "padding %d is neither SAME nor VALID",
                       static_cast<int>(window.padding));
    return kTfLiteError;
  }
  if (window.stride_height < 1 || window.stride_width < 1 ||
      window.stride_height > kMaxWindowExtent || window.stride_width > kMaxWindowExtent) {
    TF_LITE_KERNEL_LOG(context, "strides must be in [1, %d], got height %d width %d",
                       static_cast<int>(kMaxWindowExtent), window.stride_height,
                       window.stride_width);
    return kTfLiteError;
  }
  if (window.dilation_height < 1 || window.dilation_width < 1) {
    TF_LITE_KERNEL_LOG(context, "dilation factors must be positive, got height %d width %d",
                       window.dilation_height, window.dilation_width);
    return kTfLiteError;
  }
  if (window.filter_height < 1 || window.filter_width < 1) {
    TF_LITE_KERNEL_LOG(context, "filter size must be positive, got height %d width %d",
                       window.filter_height, window.filter_width);
    return kTfLiteError;
  }
  const int64_t extent_height =
      (static_cast<int64_t>(window.filter_height) - 1) * window.dilation_height + 1;
  const int64_t extent_width =
      (static_cast<int64_t>(window.filter_width) - 1) * window.dilation_width + 1;
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

}  // namespace nn
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_NN_COMMON_H_
