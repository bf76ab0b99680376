// RESIZE_BILINEAR, float32 with a constant size: output rows split over the thread pool, channels
// vectorised, each value computed with the reference expression in the same order (so exactly the
// reference's). Other types and a size computed at run time run the reference kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

constexpr int64_t kMinElementsPerChunk = 16 * 1024;

// The sampling positions along one axis, as TFLite's ComputeInterpolationValues (and the reference
// kernel) compute them.
struct Axis {
  std::vector<int32_t> lower, upper;
  std::vector<float> fraction;

  void Compute(int input_size, int output_size, bool align_corners, bool half_pixel_centers) {
    const float scale = align_corners && output_size > 1
                            ? static_cast<float>(input_size - 1) / (output_size - 1)
                            : static_cast<float>(input_size) / output_size;
    lower.resize(output_size);
    upper.resize(output_size);
    fraction.resize(output_size);
    for (int i = 0; i < output_size; ++i) {
      const float position = static_cast<float>(i);
      const float scaled = half_pixel_centers ? (position + 0.5f) * scale - 0.5f : position * scale;
      lower[i] = std::min(std::max(static_cast<int>(std::floor(scaled)), 0), input_size - 1);
      upper[i] = std::min(static_cast<int>(std::ceil(scaled)), input_size - 1);
      fraction[i] = scaled - lower[i];
    }
  }
};

struct ResizeState : OpState {
  int batches = 0, in_height = 0, in_width = 0, channels = 0, out_height = 0, out_width = 0;
  Axis rows, columns;
};

struct ResizeBilinearOp {
  using State = ResizeState;
  static TfLiteRegistration* Reference() { return reference::Register_RESIZE_BILINEAR(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto& params = nn::ParamsOf<TfLiteResizeBilinearParams>(node);
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    if (input->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 ||
        tflite::IsDynamicTensor(output) || output->dims->size != 4 ||
        tflite::NumElements(output) == 0 || tflite::NumElements(input) == 0) {
      return kTfLiteOk;
    }
    s->batches = input->dims->data[0];
    s->in_height = input->dims->data[1];
    s->in_width = input->dims->data[2];
    s->channels = input->dims->data[3];
    s->out_height = output->dims->data[1];
    s->out_width = output->dims->data[2];
    s->rows.Compute(s->in_height, s->out_height, params.align_corners, params.half_pixel_centers);
    s->columns.Compute(s->in_width, s->out_width, params.align_corners, params.half_pixel_centers);
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const float* input = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* output = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const BilinearRowFn row_fn = s->kernels->bilinear_row;
    const size_t channels = s->channels;
    const size_t in_row = static_cast<size_t>(s->in_width) * channels;
    const size_t out_row = static_cast<size_t>(s->out_width) * channels;
    const int64_t rows = int64_t{s->batches} * s->out_height;
    const int64_t min_rows = std::max<int64_t>(1, kMinElementsPerChunk / std::max<size_t>(1, out_row));
    ParallelChunks(context, rows, min_rows, [&](int, int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / s->out_height;
        const int y = static_cast<int>(r % s->out_height);
        const float* image = input + static_cast<size_t>(b) * s->in_height * in_row;
        row_fn(channels, s->out_width, image + s->rows.lower[y] * in_row,
               image + s->rows.upper[y] * in_row, s->columns.lower.data(),
               s->columns.upper.data(), s->columns.fraction.data(), s->rows.fraction[y],
               output + r * out_row);
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_RESIZE_BILINEAR() {
  return OptimizedKernel<ResizeBilinearOp>::Registration();
}

}  // namespace optimized
}  // namespace touchstone
