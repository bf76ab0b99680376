// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR on NHWC tensors, computing what TensorFlow Lite
// 2.14.1 computes (tensorflow/lite/kernels/resize_{bilinear,nearest_neighbor}.cc and the kernels
// they select). Input 1 is the new [height, width] (int32 [2]); when it is not constant the output
// is dynamic and resized in Eval. Both ops take float32, uint8, int8 and int16, and quantized
// values are resized as stored (input and output share their quantization). Each type follows the
// arithmetic of the kernel TFLite runs for it:
// - bilinear float32: the reference expression in float;
// - bilinear uint8: float corner weights, rounded by adding 0.5 and truncating (optimized_ops);
// - bilinear int8 and int16: 10-bit fixed-point coordinates and weights (ResizeBilinearInteger);
// - nearest uint8 without align_corners or half_pixel_centers: 16.16 fixed-point coordinates
//   (optimized_ops), which can pick another pixel than float would;
// - nearest otherwise: float coordinates (reference_ops).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

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

enum class ResizeKind { kBilinear, kNearestNeighbor };

// Reads the requested size and resizes the output to [batch, height, width, channels]. TFLite
// refuses a non-positive bilinear size; a nearest-neighbor size of 0 gives an empty output.
template <ResizeKind kind>
TfLiteStatus ResizeOutput(TfLiteContext* context, const TfLiteTensor* input, const TfLiteTensor* size,
                          TfLiteTensor* output) {
  const int32_t* size_data = tflite::GetTensorData<int32_t>(size);
  const int32_t min_size = kind == ResizeKind::kBilinear ? 1 : 0;
  if (size_data[0] < min_size || size_data[1] < min_size) {
    TF_LITE_KERNEL_LOG(context, "input 1 (size) is [%d, %d]; both must be at least %d", size_data[0], size_data[1],
                       min_size);
    return kTfLiteError;
  }
  const int* input_dims = input->dims->data;
  const bool has_pixels = input_dims[0] > 0 && input_dims[3] > 0;
  if (has_pixels && (input_dims[1] == 0 || input_dims[2] == 0) && size_data[0] > 0 && size_data[1] > 0) {
    TF_LITE_KERNEL_LOG(context, "input 0 is a %d x %d image; it cannot be resized to %d x %d", input_dims[1],
                       input_dims[2], size_data[0], size_data[1]);
    return kTfLiteError;
  }
  return context->ResizeTensor(
      context, output,
      tflite::CreateIntArray({input->dims->data[0], size_data[0], size_data[1], input->dims->data[3]}));
}

template <ResizeKind kind>
TfLiteStatus ResizePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* size;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input, &size}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckRank(context, input, "input 0", 4));
  TF_LITE_ENSURE_OK(context, CheckType(context, size, "input 1 (size)", kTfLiteInt32));
  if (size->dims->size != 1 || size->dims->data[0] != 2) {
    TF_LITE_KERNEL_LOG(context, "input 1 (size) must be a 1-D tensor of 2 elements");
    return kTfLiteError;
  }
  switch (input->type) {
    case kTfLiteFloat32:
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "input 0 has type %s; supported are FLOAT32, UINT8, INT8 and INT16",
                         TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  if (kind == ResizeKind::kBilinear) {
    const auto& params = ParamsOf<TfLiteResizeBilinearParams>(node);
    if (params.half_pixel_centers && params.align_corners) {
      TF_LITE_KERNEL_LOG(context, "If half_pixel_centers is True, align_corners must be False.");
      return kTfLiteError;
    }
  }
  if (!tflite::IsConstantOrPersistentTensor(size)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return ResizeOutput<kind>(context, input, size, output);
}

// Ratio of input to output positions along one axis; align_corners maps the corner pixels onto
// each other.
float ResizeScale(int input_size, int output_size, bool align_corners) {
  if (align_corners && output_size > 1) {
    return static_cast<float>(input_size - 1) / (output_size - 1);
  }
  return static_cast<float>(input_size) / output_size;
}

// The two input positions around an output position's source coordinate along one axis, and the
// coordinate's distance from the lower one (in float, or in 1/1024 steps).
template <typename Distance>
struct Neighbors {
  int lower;
  int upper;
  Distance distance;
};

// Each output element of a bilinear resize is blend(top_left, top_right, bottom_left, bottom_right,
// dy, dx): the four input elements around its source coordinate (rows(out_y) and columns(out_x)
// give the Neighbors, pixel(b, y, x) addresses an input pixel) and the coordinate's distances from
// the top-left one.
template <typename T, typename Rows, typename Columns, typename Pixel, typename Blend>
void ResizeBilinearPixels(const TfLiteTensor* input, TfLiteTensor* output, Rows rows, Columns columns, Pixel pixel,
                          Blend blend) {
  const auto [batches, input_height, input_width, depth, output_height, output_width] = nn::NhwcSizesOf(input, output);
  T* output_data = tflite::GetTensorData<T>(output);
  for (int b = 0; b < batches; ++b) {
    for (int y = 0; y < output_height; ++y) {
      const auto row = rows(y);
      for (int x = 0; x < output_width; ++x) {
        const auto column = columns(x);
        const T* top_left = pixel(b, row.lower, column.lower);
        const T* top_right = pixel(b, row.lower, column.upper);
        const T* bottom_left = pixel(b, row.upper, column.lower);
        const T* bottom_right = pixel(b, row.upper, column.upper);
        T* out = output_data + nn::Offset4D(output->dims->data, b, y, x, 0);
        for (int c = 0; c < depth; ++c) {
          out[c] = blend(top_left[c], top_right[c], bottom_left[c], bottom_right[c], row.distance, column.distance);
        }
      }
    }
  }
}

// The source coordinate of output position `value` and the two input positions around it, as
// TFLite's ComputeInterpolationValues. The lower bound is also kept below input_size, which it
// only reaches when float rounding of enormous sizes pushes the coordinate past the last pixel.
Neighbors<float> InterpolationValues(int value, float scale, bool half_pixel_centers, int input_size) {
  const float position = static_cast<float>(value);
  const float scaled_value = half_pixel_centers ? (position + 0.5f) * scale - 0.5f : position * scale;
  const int lower = std::min(std::max(static_cast<int>(std::floor(scaled_value)), 0), input_size - 1);
  const int upper = std::min(static_cast<int>(std::ceil(scaled_value)), input_size - 1);
  return {lower, upper, scaled_value - lower};
}

// The bilinear resize with float weights: blend as ResizeBilinearPixels takes it, dy and dx in
// float.
template <typename T, typename Blend>
void ResizeBilinearWithFloatWeights(const TfLiteResizeBilinearParams& params, const TfLiteTensor* input,
                                    TfLiteTensor* output, Blend blend) {
  const int* input_dims = input->dims->data;
  const float height_scale = ResizeScale(input_dims[1], output->dims->data[1], params.align_corners);
  const float width_scale = ResizeScale(input_dims[2], output->dims->data[2], params.align_corners);
  const T* input_data = tflite::GetTensorData<T>(input);
  ResizeBilinearPixels<T>(
      input, output,
      [&](int y) { return InterpolationValues(y, height_scale, params.half_pixel_centers, input_dims[1]); },
      [&](int x) { return InterpolationValues(x, width_scale, params.half_pixel_centers, input_dims[2]); },
      [&](int b, int y, int x) { return input_data + nn::Offset4D(input_dims, b, y, x, 0); }, blend);
}

void ResizeBilinearFloat(const TfLiteResizeBilinearParams& params, const TfLiteTensor* input, TfLiteTensor* output) {
  ResizeBilinearWithFloatWeights<float>(
      params, input, output,
      [](float top_left, float top_right, float bottom_left, float bottom_right, float dy, float dx) {
        // TFLite's reference expression, term for term.
        return top_left * (1 - dy) * (1 - dx) + bottom_left * dy * (1 - dx) + top_right * (1 - dy) * dx +
               bottom_right * dy * dx;
      });
}

// uint8, as optimized_ops::ResizeBilinear (ResizeBilinearGenericSmallChannel): the four corner
// weights are float products, the weighted sum is taken in that order in float, and 0.5 is added
// before truncating. Its special case for 8x half-pixel upsampling works in 8.8 fixed point but
// computes the same values (all weights are sixteenths, so both are exact), and needs no code here.
void ResizeBilinearUInt8(const TfLiteResizeBilinearParams& params, const TfLiteTensor* input, TfLiteTensor* output) {
  ResizeBilinearWithFloatWeights<uint8_t>(
      params, input, output,
      [](uint8_t top_left, uint8_t top_right, uint8_t bottom_left, uint8_t bottom_right, float dy, float dx) {
        const float top_left_weight = (1 - dy) * (1 - dx);
        const float top_right_weight = (1 - dy) * dx;
        const float bottom_left_weight = dy * (1 - dx);
        const float bottom_right_weight = dy * dx;
        return static_cast<uint8_t>(top_left * top_left_weight + top_right * top_right_weight +
                                    bottom_left * bottom_left_weight + bottom_right * bottom_right_weight + 0.5f);
      });
}

// Ratio of input to output positions in 10-bit fixed point, rounded to nearest, as
// ResizeBilinearInteger computes it.
int32_t ResizeScale10(int input_size, int output_size, bool align_corners) {
  if (align_corners && output_size > 1) {
    return static_cast<int32_t>((int64_t{1024} * (input_size - 1) + (output_size - 1) / 2) / (output_size - 1));
  }
  return static_cast<int32_t>((int64_t{1024} * input_size + output_size / 2) / output_size);
}

// The source coordinate (10 fractional bits) and the two input positions around it, as
// ComputeInterpolationValuesInteger. Division truncates toward zero, as TFLite's does. Unlike the
// upper bound, the lower bound is not kept below input_size: a scale rounded up can put the last
// output's coordinate exactly on input_size (33 -> 513 does), and TFLite then reads that
// "pixel", which is the first of the next row.
Neighbors<int64_t> InterpolationValuesInteger(int value, int32_t scale_10, bool half_pixel_centers, int input_size) {
  const int64_t scaled_value =
      half_pixel_centers ? int64_t{value} * scale_10 + scale_10 / 2 - (1 << 9) : int64_t{value} * scale_10;
  const int lower = static_cast<int>(std::max<int64_t>(scaled_value / (1 << 10), 0));
  const int upper = static_cast<int>(std::min<int64_t>((scaled_value + (1 << 10) - 1) / (1 << 10), input_size - 1));
  return {lower, upper, scaled_value - int64_t{1 << 10} * lower};
}

// int8 and int16, as reference_ops::ResizeBilinearInteger (TFLite's optimized int8 kernel calls
// it too): products of the value and two 10-bit weights summed in 64 bits, then divided by 2^20
// rounding half away from zero. Corners are addressed by flat offset as TFLite's are, so a lower
// bound one past the row or column reads what TFLite reads; only a read past the whole tensor,
// which TFLite makes out of bounds, is moved onto the last pixel instead.
template <typename T>
void ResizeBilinearInteger(const TfLiteResizeBilinearParams& params, const TfLiteTensor* input, TfLiteTensor* output) {
  const int* input_dims = input->dims->data;
  const int32_t height_scale_10 = ResizeScale10(input_dims[1], output->dims->data[1], params.align_corners);
  const int32_t width_scale_10 = ResizeScale10(input_dims[2], output->dims->data[2], params.align_corners);
  const T* input_data = tflite::GetTensorData<T>(input);
  const int64_t last_pixel = tflite::NumElements(input) - input_dims[3];
  ResizeBilinearPixels<T>(
      input, output,
      [&](int y) { return InterpolationValuesInteger(y, height_scale_10, params.half_pixel_centers, input_dims[1]); },
      [&](int x) { return InterpolationValuesInteger(x, width_scale_10, params.half_pixel_centers, input_dims[2]); },
      [&](int b, int y, int x) { return input_data + std::min(nn::Offset4D(input_dims, b, y, x, 0), last_pixel); },
      [](T top_left, T top_right, T bottom_left, T bottom_right, int64_t dy, int64_t dx) {
        constexpr int64_t kOne = 1 << 10;
        const int64_t sum_20 = top_left * (kOne - dy) * (kOne - dx) + bottom_left * dy * (kOne - dx) +
                               top_right * (kOne - dy) * dx + bottom_right * dy * dx;
        const int64_t round = sum_20 > 0 ? (1 << 19) : -(1 << 19);
        return static_cast<T>((sum_20 + round) / (1 << 20));
      });
}

// The input position output position `value` copies, as TFLite's GetNearestNeighbor.
int NearestNeighbor(int value, int input_size, int output_size, bool align_corners, bool half_pixel_centers) {
  const float scale = ResizeScale(input_size, output_size, align_corners);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float position = (value + offset) * scale;
  int nearest = std::min(
      align_corners ? static_cast<int>(std::round(position)) : static_cast<int>(std::floor(position)), input_size - 1);
  if (half_pixel_centers) nearest = std::max(0, nearest);
  return nearest;
}

// Copies into each output pixel (b, y, x) the input pixel (b, source_y(y), source_x(x)); the
// element type does not matter, only its size.
template <typename SourceY, typename SourceX>
void CopyNearestPixels(const TfLiteTensor* input, TfLiteTensor* output, SourceY source_y, SourceX source_x) {
  const int* input_dims = input->dims->data;
  const int* output_dims = output->dims->data;
  const size_t element_size = tflite::TfLiteTypeGetSize(input->type);
  const size_t pixel_bytes = input_dims[3] * element_size;
  const char* input_data = input->data.raw_const;
  char* output_data = output->data.raw;
  for (int b = 0; b < input_dims[0]; ++b) {
    for (int y = 0; y < output_dims[1]; ++y) {
      const int in_y = source_y(y);
      for (int x = 0; x < output_dims[2]; ++x) {
        std::memcpy(output_data + nn::Offset4D(output_dims, b, y, x, 0) * element_size,
                    input_data + nn::Offset4D(input_dims, b, in_y, source_x(x), 0) * element_size, pixel_bytes);
      }
    }
  }
}

void ResizeNearestNeighborReference(const TfLiteResizeNearestNeighborParams& params, const TfLiteTensor* input,
                                    TfLiteTensor* output) {
  const int input_height = input->dims->data[1];
  const int input_width = input->dims->data[2];
  const int output_height = output->dims->data[1];
  const int output_width = output->dims->data[2];
  CopyNearestPixels(
      input, output,
      [&](int y) {
        return NearestNeighbor(y, input_height, output_height, params.align_corners, params.half_pixel_centers);
      },
      [&](int x) {
        return NearestNeighbor(x, input_width, output_width, params.align_corners, params.half_pixel_centers);
      });
}

// uint8 without align_corners or half_pixel_centers, as optimized_ops::ResizeNearestNeighbor: the
// scale in 16.16 fixed point, plus 1 ("an error factor"), and the source index the product's
// integer part. It can pick a different pixel than the float coordinates do.
void ResizeNearestNeighborUInt8FixedPoint(const TfLiteTensor* input, TfLiteTensor* output) {
  const int input_height = input->dims->data[1];
  const int input_width = input->dims->data[2];
  const int output_height = output->dims->data[1];
  const int output_width = output->dims->data[2];
  // An empty output needs no scale (TFLite's kernel divides by zero computing it).
  if (output_height == 0 || output_width == 0) return;
  const int64_t height_scale = (int64_t{input_height} << 16) / output_height + 1;
  const int64_t width_scale = (int64_t{input_width} << 16) / output_width + 1;
  CopyNearestPixels(
      input, output,
      [&](int y) { return static_cast<int>(std::min<int64_t>((y * height_scale) >> 16, input_height - 1)); },
      [&](int x) { return static_cast<int>(std::min<int64_t>((x * width_scale) >> 16, input_width - 1)); });
}

template <ResizeKind kind>
TfLiteStatus ResizeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* size = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) {
    TF_LITE_ENSURE_OK(context, ResizeOutput<kind>(context, input, size, output));
  }
  if (kind == ResizeKind::kBilinear) {
    const auto& params = ParamsOf<TfLiteResizeBilinearParams>(node);
    switch (input->type) {
      case kTfLiteFloat32:
        ResizeBilinearFloat(params, input, output);
        break;
      case kTfLiteUInt8:
        ResizeBilinearUInt8(params, input, output);
        break;
      case kTfLiteInt8:
        ResizeBilinearInteger<int8_t>(params, input, output);
        break;
      case kTfLiteInt16:
        ResizeBilinearInteger<int16_t>(params, input, output);
        break;
      default:
        TF_LITE_KERNEL_LOG(context, "input 0 has type %s, which Prepare did not accept",
                           TfLiteTypeGetName(input->type));
        return kTfLiteError;
    }
  } else {
    const auto& params = ParamsOf<TfLiteResizeNearestNeighborParams>(node);
    if (input->type == kTfLiteUInt8 && !params.align_corners && !params.half_pixel_centers) {
      ResizeNearestNeighborUInt8FixedPoint(input, output);
    } else {
      ResizeNearestNeighborReference(params, input, output);
    }
  }
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(RESIZE_BILINEAR, ResizePrepare<ResizeKind::kBilinear>, ResizeEval<ResizeKind::kBilinear>)
TS_REGISTER(RESIZE_NEAREST_NEIGHBOR, ResizePrepare<ResizeKind::kNearestNeighbor>,
            ResizeEval<ResizeKind::kNearestNeighbor>)

}  // namespace reference
}  // namespace touchstone
