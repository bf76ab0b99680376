// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D on NHWC tensors, computing what TensorFlow Lite
// 2.14.1 computes (tensorflow/lite/kernels/pooling.cc): windows are clipped to the input, so an
// average counts only the in-bounds elements, and padding never contributes a value. Float32 for
// now; Prepare dispatches on the input type so that the quantized forms slot in beside.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

enum class PoolKind { kAverage, kMax, kL2 };

// What Prepare computes for Eval. The quantized kernels add their integer activation range here.
struct PoolData {
  TfLitePaddingValues padding{};
  float activation_min = 0.f;
  float activation_max = 0.f;
};

void* InitPoolData(TfLiteContext*, const char*, size_t) { return new PoolData; }
void FreePoolData(TfLiteContext*, void* data) { delete static_cast<PoolData*>(data); }

TfLiteStatus PoolPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLitePoolParams>(node);
  auto* data = static_cast<PoolData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 1, 1));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, input, 4, "input 0"));

  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      tflite::CalculateActivationRange(params.activation, &data->activation_min,
                                       &data->activation_max);
      break;
    default: return nn::RefuseType(context, input, "input 0");
  }

  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  // TFLite refuses zero strides; an empty window would average nothing.
  TF_LITE_ENSURE_OK(
      context, nn::CheckWindow(context, {params.padding, params.stride_height, params.stride_width,
                                         1, 1, params.filter_height, params.filter_width}));
  int out_height, out_width;
  data->padding = nn::ComputePaddingHeightWidth(
      params.stride_height, params.stride_width, 1, 1, input->dims->data[1], input->dims->data[2],
      params.filter_height, params.filter_width, params.padding, &out_height, &out_width);
  TF_LITE_ENSURE_OK(context, nn::CheckOutSize(context, out_height, out_width));
  return context->ResizeTensor(
      context, output,
      tflite::CreateIntArray({input->dims->data[0], out_height, out_width, input->dims->data[3]}));
}

// Every pool visits the window of each output element clipped to the input, rows then columns,
// as TFLite's reference kernels do; only the reduction differs.
template <PoolKind kind>
void PoolFloat(const TfLitePoolParams& params, const PoolData& data, const TfLiteTensor* input,
               TfLiteTensor* output) {
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
    for (int out_y = 0; out_y < output_height; ++out_y) {
      const int in_y_origin = out_y * params.stride_height - data.padding.height;
      const int filter_y_start = std::max(0, -in_y_origin);
      const int filter_y_end = std::min(params.filter_height, input_height - in_y_origin);
      for (int out_x = 0; out_x < output_width; ++out_x) {
        const int in_x_origin = out_x * params.stride_width - data.padding.width;
        const int filter_x_start = std::max(0, -in_x_origin);
        const int filter_x_end = std::min(params.filter_width, input_width - in_x_origin);
        for (int c = 0; c < depth; ++c) {
          float accumulator = kind == PoolKind::kMax ? std::numeric_limits<float>::lowest() : 0.f;
          int count = 0;
          for (int filter_y = filter_y_start; filter_y < filter_y_end; ++filter_y) {
            for (int filter_x = filter_x_start; filter_x < filter_x_end; ++filter_x) {
              const float value = input_data[nn::Offset4D(input_dims, b, in_y_origin + filter_y,
                                                          in_x_origin + filter_x, c)];
              switch (kind) {
                case PoolKind::kAverage: accumulator += value; break;
                case PoolKind::kMax: accumulator = std::max(accumulator, value); break;
                case PoolKind::kL2: accumulator += value * value; break;
              }
              ++count;
            }
          }
          float result = accumulator;
          if (kind == PoolKind::kAverage) result = accumulator / count;
          if (kind == PoolKind::kL2) result = std::sqrt(accumulator / count);
          output_data[nn::Offset4D(output_dims, b, out_y, out_x, c)] =
              nn::ClampToActivation(result, data.activation_min, data.activation_max);
        }
      }
    }
  }
}

template <PoolKind kind>
TfLiteStatus PoolEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLitePoolParams>(node);
  const auto& data = *static_cast<const PoolData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: PoolFloat<kind>(params, data, input, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

}  // namespace

TfLiteRegistration* Register_AVERAGE_POOL_2D() {
  static TfLiteRegistration r =
      nn::MakeRegistration(InitPoolData, FreePoolData, PoolPrepare, PoolEval<PoolKind::kAverage>);
  return &r;
}

TfLiteRegistration* Register_MAX_POOL_2D() {
  static TfLiteRegistration r =
      nn::MakeRegistration(InitPoolData, FreePoolData, PoolPrepare, PoolEval<PoolKind::kMax>);
  return &r;
}

TfLiteRegistration* Register_L2_POOL_2D() {
  static TfLiteRegistration r =
      nn::MakeRegistration(InitPoolData, FreePoolData, PoolPrepare, PoolEval<PoolKind::kL2>);
  return &r;
}

}  // namespace reference
}  // namespace touchstone
