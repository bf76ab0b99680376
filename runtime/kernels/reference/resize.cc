// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR on NHWC tensors, computing what TensorFlow Lite
// 2.14.1 computes (tensorflow/lite/kernels/resize_{bilinear,nearest_neighbor}.cc and the reference
// kernels): the same source coordinates for align_corners and half_pixel_centers, in float
// arithmetic. Input 1 is the new [height, width] (int32 [2]); when it is not constant the output is
// dynamic and resized in Eval. Float32 for now; Prepare dispatches on the input type so that the
// quantized forms slot in beside.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

enum class ResizeKind { kBilinear, kNearestNeighbor };

// Reads the requested size and resizes the output to [batch, height, width, channels]. TFLite
// refuses a non-positive bilinear size; a nearest-neighbor size of 0 gives an empty output.
template <ResizeKind kind>
TfLiteStatus ResizeOutput(TfLiteContext* context, const TfLiteTensor* input,
                          const TfLiteTensor* size, TfLiteTensor* output) {
  const int32_t* size_data = tflite::GetTensorData<int32_t>(size);
  const int32_t min_size = kind == ResizeKind::kBilinear ? 1 : 0;
  if (size_data[0] < min_size || size_data[1] < min_size) {
    TF_LITE_KERNEL_LOG(context, "input 1 (size) is [%d, %d]; both must be at least %d",
                       size_data[0], size_data[1], min_size);
    return kTfLiteError;
  }
  const int* input_dims = input->dims->data;
  const bool has_pixels = input_dims[0] > 0 && input_dims[3] > 0;
  if (has_pixels && (input_dims[1] == 0 || input_dims[2] == 0) && size_data[0] > 0 &&
      size_data[1] > 0) {
    TF_LITE_KERNEL_LOG(context, "input 0 is a %d x %d image; it cannot be resized to %d x %d",
                       input_dims[1], input_dims[2], size_data[0], size_data[1]);
    return kTfLiteError;
  }
  return context->ResizeTensor(context, output,
                               tflite::CreateIntArray({input->dims->data[0], size_data[0],
                                                       size_data[1], input->dims->data[3]}));
}

template <ResizeKind kind>
TfLiteStatus ResizePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 2, 2));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* size;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 1, &size));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, input, 4, "input 0"));
  TF_LITE_ENSURE_OK(context, nn::CheckType(context, size, kTfLiteInt32, "input 1 (size)"));
  if (size->dims->size != 1 || size->dims->data[0] != 2) {
    TF_LITE_KERNEL_LOG(context, "input 1 (size) must be a 1-D tensor of 2 elements");
    return kTfLiteError;
  }
  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      break;
    default: return nn::RefuseType(context, input, "input 0");
  }
  if (kind == ResizeKind::kBilinear) {
    const auto& params = nn::ParamsOf<TfLiteResizeBilinearParams>(node);
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

// The source coordinate of output position `value` and the two input positions around it, as
// TFLite's ComputeInterpolationValues.
void InterpolationValues(int value, float scale, bool half_pixel_centers, int input_size,
                         float* scaled_value, int* lower_bound, int* upper_bound) {
  const float position = static_cast<float>(value);
  *scaled_value = half_pixel_centers ? (position + 0.5f) * scale - 0.5f : position * scale;
  *lower_bound = std::max(static_cast<int>(std::floor(*scaled_value)), 0);
  *upper_bound = std::min(static_cast<int>(std::ceil(*scaled_value)), input_size - 1);
}

void ResizeBilinearFloat(const TfLiteResizeBilinearParams& params, const TfLiteTensor* input,
                         TfLiteTensor* output) {
  const int* input_dims = input->dims->data;
  const int* output_dims = output->dims->data;
  const int batches = input_dims[0];
  const int input_height = input_dims[1];
  const int input_width = input_dims[2];
  const int depth = input_dims[3];
  const int output_height = output_dims[1];
  const int output_width = output_dims[2];
  const float height_scale = ResizeScale(input_height, output_height, params.align_corners);
  const float width_scale = ResizeScale(input_width, output_width, params.align_corners);
  const float* input_data = tflite::GetTensorData<float>(input);
  float* output_data = tflite::GetTensorData<float>(output);

  for (int b = 0; b < batches; ++b) {
    for (int y = 0; y < output_height; ++y) {
      float input_y;
      int y0, y1;
      InterpolationValues(y, height_scale, params.half_pixel_centers, input_height, &input_y, &y0,
                          &y1);
      const float dy = input_y - y0;
      for (int x = 0; x < output_width; ++x) {
        float input_x;
        int x0, x1;
        InterpolationValues(x, width_scale, params.half_pixel_centers, input_width, &input_x, &x0,
                            &x1);
        const float dx = input_x - x0;
        const float* top_left = input_data + nn::Offset4D(input_dims, b, y0, x0, 0);
        const float* bottom_left = input_data + nn::Offset4D(input_dims, b, y1, x0, 0);
        const float* top_right = input_data + nn::Offset4D(input_dims, b, y0, x1, 0);
        const float* bottom_right = input_data + nn::Offset4D(input_dims, b, y1, x1, 0);
        float* out = output_data + nn::Offset4D(output_dims, b, y, x, 0);
        // TFLite's reference expression, term for term.
        for (int c = 0; c < depth; ++c) {
          out[c] = top_left[c] * (1 - dy) * (1 - dx) + bottom_left[c] * dy * (1 - dx) +
                   top_right[c] * (1 - dy) * dx + bottom_right[c] * dy * dx;
        }
      }
    }
  }
}

// The input position output position `value` copies, as TFLite's GetNearestNeighbor.
int NearestNeighbor(int value, int input_size, int output_size, bool align_corners,
                    bool half_pixel_centers) {
  const float scale = ResizeScale(input_size, output_size, align_corners);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float position = (value + offset) * scale;
  int nearest = std::min(align_corners ? static_cast<int>(std::round(position))
                                       : static_cast<int>(std::floor(position)),
                         input_size - 1);
  if (half_pixel_centers) nearest = std::max(0, nearest);
  return nearest;
}

void ResizeNearestNeighborFloat(const TfLiteResizeNearestNeighborParams& params,
                                const TfLiteTensor* input, TfLiteTensor* output) {
  const int* input_dims = input->dims->data;
  const int* output_dims = output->dims->data;
  const int batches = input_dims[0];
  const int input_height = input_dims[1];
  const int input_width = input_dims[2];
  const int depth = input_dims[3];
  const int output_height = output_dims[1];
  const int output_width = output_dims[2];
  const float* input_data = tflite::GetTensorData<float>(input);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int b = 0; b < batches; ++b) {
    for (int y = 0; y < output_height; ++y) {
      const int in_y = NearestNeighbor(y, input_height, output_height, params.align_corners,
                                       params.half_pixel_centers);
      for (int x = 0; x < output_width; ++x) {
        const int in_x = NearestNeighbor(x, input_width, output_width, params.align_corners,
                                         params.half_pixel_centers);
        std::memcpy(output_data + nn::Offset4D(output_dims, b, y, x, 0),
                    input_data + nn::Offset4D(input_dims, b, in_y, in_x, 0), depth * sizeof(float));
      }
    }
  }
}

template <ResizeKind kind>
TfLiteStatus ResizeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* size = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) {
    TF_LITE_ENSURE_OK(context, ResizeOutput<kind>(context, input, size, output));
  }
  switch (input->type) {
    case kTfLiteFloat32:
      if (kind == ResizeKind::kBilinear) {
        ResizeBilinearFloat(nn::ParamsOf<TfLiteResizeBilinearParams>(node), input, output);
      } else {
        ResizeNearestNeighborFloat(nn::ParamsOf<TfLiteResizeNearestNeighborParams>(node), input,
                                   output);
      }
      return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

}  // namespace

TfLiteRegistration* Register_RESIZE_BILINEAR() {
  static TfLiteRegistration r = nn::MakeRegistration(
      nullptr, nullptr, ResizePrepare<ResizeKind::kBilinear>, ResizeEval<ResizeKind::kBilinear>);
  return &r;
}

TfLiteRegistration* Register_RESIZE_NEAREST_NEIGHBOR() {
  static TfLiteRegistration r =
      nn::MakeRegistration(nullptr, nullptr, ResizePrepare<ResizeKind::kNearestNeighbor>,
                           ResizeEval<ResizeKind::kNearestNeighbor>);
  return &r;
}

}  // namespace reference
}  // namespace touchstone
