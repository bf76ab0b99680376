// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D on NHWC tensors, computing what TensorFlow Lite
// 2.14.1 computes (tensorflow/lite/kernels/pooling.cc): windows are clipped to the input, so an
// average counts only the in-bounds elements, and padding never contributes a value. Average and
// max pooling take float32, uint8, int8 and int16; L2 pooling is float32 only, as in TFLite.
// Quantized pooling works on the stored integers alone: TFLite only DCHECKs that input and output
// share a scale and zero point, so release builds ignore the output's quantization except for the
// fused activation's clamp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

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

enum class PoolKind { kAverage, kMax, kL2 };

// What Prepare computes for Eval: the padding and the fused activation's clamp, in real values for
// float32 and in stored integers for the quantized types.
struct PoolData {
  TfLitePaddingValues padding{};
  float activation_min = 0.f;
  float activation_max = 0.f;
  int32_t quantized_activation_min = 0;
  int32_t quantized_activation_max = 0;
};

template <PoolKind kind>
TfLiteStatus PoolPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLitePoolParams>(node);
  auto* data = static_cast<PoolData*>(node->user_data);
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckRank(context, input, "input 0", 4));

  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  switch (input->type) {
    case kTfLiteFloat32:
      tflite::CalculateActivationRange(params.activation, &data->activation_min, &data->activation_max);
      break;
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      if (kind == PoolKind::kL2) {
        TF_LITE_KERNEL_LOG(context, "input 0 has type %s; L2_POOL_2D has only a FLOAT32 kernel in TFLite",
                           TfLiteTypeGetName(input->type));
        return kTfLiteError;
      }
      TF_LITE_ENSURE_OK(context, tflite::CalculateActivationRangeQuantized(context, params.activation, output,
                                                                           &data->quantized_activation_min,
                                                                           &data->quantized_activation_max));
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "input 0 has type %s; supported are %s", TfLiteTypeGetName(input->type),
                         kind == PoolKind::kL2 ? "FLOAT32" : "FLOAT32, UINT8, INT8 and INT16");
      return kTfLiteError;
  }
  // TFLite refuses zero strides; an empty window would average nothing.
  return nn::ResizeWindowedOutput(
      context,
      {params.padding, params.stride_height, params.stride_width, 1, 1, params.filter_height, params.filter_width},
      input, input->dims->data[3], output, &data->padding);
}

// Every pool visits the window of each output element clipped to the input, rows then columns,
// as TFLite's reference kernels do; only the reduction differs. Each output element is
// finish(sum, count) where sum = accumulate(... accumulate(init, v0) ..., vn) over the count
// values of its window.
template <typename T, typename Acc, typename Accumulate, typename Finish>
void Pool(const TfLitePoolParams& params, const PoolData& data, const TfLiteTensor* input, TfLiteTensor* output,
          Acc init, Accumulate accumulate, Finish finish) {
  const int* input_dims = input->dims->data;
  const int* output_dims = output->dims->data;
  const auto [batches, input_height, input_width, depth, output_height, output_width] = nn::NhwcSizesOf(input, output);
  const T* input_data = tflite::GetTensorData<T>(input);
  T* output_data = tflite::GetTensorData<T>(output);

  for (int b = 0; b < batches; ++b) {
    for (int out_y = 0; out_y < output_height; ++out_y) {
      const int in_y_origin = out_y * params.stride_height - data.padding.height;
      const int filter_y_start = std::max(0, -in_y_origin);
      const int filter_y_end = std::min(params.filter_height, input_height - in_y_origin);
      for (int out_x = 0; out_x < output_width; ++out_x) {
        const int in_x_origin = out_x * params.stride_width - data.padding.width;
        const int filter_x_start = std::max(0, -in_x_origin);
        const int filter_x_end = std::min(params.filter_width, input_width - in_x_origin);
        const int64_t count = static_cast<int64_t>(filter_y_end - filter_y_start) * (filter_x_end - filter_x_start);
        for (int c = 0; c < depth; ++c) {
          Acc accumulator = init;
          for (int filter_y = filter_y_start; filter_y < filter_y_end; ++filter_y) {
            for (int filter_x = filter_x_start; filter_x < filter_x_end; ++filter_x) {
              accumulator = accumulate(
                  accumulator,
                  input_data[nn::Offset4D(input_dims, b, in_y_origin + filter_y, in_x_origin + filter_x, c)]);
            }
          }
          output_data[nn::Offset4D(output_dims, b, out_y, out_x, c)] = finish(accumulator, count);
        }
      }
    }
  }
}

template <PoolKind kind>
void PoolFloat(const TfLitePoolParams& params, const PoolData& data, const TfLiteTensor* input, TfLiteTensor* output) {
  Pool<float>(
      params, data, input, output, kind == PoolKind::kMax ? std::numeric_limits<float>::lowest() : 0.f,
      [](float accumulator, float value) {
        if (kind == PoolKind::kMax) return std::max(accumulator, value);
        if (kind == PoolKind::kL2) return accumulator + value * value;
        return accumulator + value;
      },
      [&data](float accumulator, int64_t count) {
        float result = accumulator;
        if (kind == PoolKind::kAverage) result = accumulator / count;
        if (kind == PoolKind::kL2) result = std::sqrt(accumulator / count);
        return nn::ClampToActivation(result, data.activation_min, data.activation_max);
      });
}

// Average and max pooling on stored integers. The average rounds half away from zero, as both of
// TFLite's integer kernels (the optimized 8-bit ones with 16-bit accumulators for windows up to
// 16x16, and the reference ones) compute it: (sum +- count / 2) / count with truncating division.
template <PoolKind kind, typename T>
void PoolQuantized(const TfLitePoolParams& params, const PoolData& data, const TfLiteTensor* input,
                   TfLiteTensor* output) {
  static_assert(kind != PoolKind::kL2, "L2 pooling has no quantized kernel");
  Pool<T>(
      params, data, input, output, kind == PoolKind::kMax ? int64_t{std::numeric_limits<T>::min()} : int64_t{0},
      [](int64_t accumulator, T value) {
        return kind == PoolKind::kMax ? std::max<int64_t>(accumulator, value) : accumulator + value;
      },
      [&data](int64_t accumulator, int64_t count) {
        if (kind == PoolKind::kAverage) {
          accumulator = accumulator > 0 ? (accumulator + count / 2) / count : (accumulator - count / 2) / count;
        }
        return static_cast<T>(std::min<int64_t>(std::max<int64_t>(accumulator, data.quantized_activation_min),
                                                data.quantized_activation_max));
      });
}

template <PoolKind kind>
TfLiteStatus PoolEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLitePoolParams>(node);
  const auto& data = *static_cast<const PoolData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32:
      PoolFloat<kind>(params, data, input, output);
      return kTfLiteOk;
    default:
      break;
  }
  if constexpr (kind != PoolKind::kL2) {
    switch (input->type) {
      case kTfLiteUInt8:
        PoolQuantized<kind, uint8_t>(params, data, input, output);
        return kTfLiteOk;
      case kTfLiteInt8:
        PoolQuantized<kind, int8_t>(params, data, input, output);
        return kTfLiteOk;
      case kTfLiteInt16:
        PoolQuantized<kind, int16_t>(params, data, input, output);
        return kTfLiteOk;
      default:
        break;
    }
  }
  TF_LITE_KERNEL_LOG(context, "input 0 has type %s, which Prepare did not accept", TfLiteTypeGetName(input->type));
  return kTfLiteError;
}

}  // namespace

TS_REGISTER(AVERAGE_POOL_2D, NewNodeData<PoolData>, DeleteNodeData<PoolData>, PoolPrepare<PoolKind::kAverage>,
            PoolEval<PoolKind::kAverage>)
TS_REGISTER(MAX_POOL_2D, NewNodeData<PoolData>, DeleteNodeData<PoolData>, PoolPrepare<PoolKind::kMax>,
            PoolEval<PoolKind::kMax>)
TS_REGISTER(L2_POOL_2D, NewNodeData<PoolData>, DeleteNodeData<PoolData>, PoolPrepare<PoolKind::kL2>,
            PoolEval<PoolKind::kL2>)

}  // namespace reference
}  // namespace touchstone
