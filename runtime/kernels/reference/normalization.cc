// SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION, computing what
// TensorFlow Lite 2.14.1 computes (tensorflow/lite/kernels/{activations,l2norm,
// local_response_norm}.cc and the reference kernels they call). All normalize along the last
// dimension. Float32 for now; each Prepare dispatches on the input type so that the quantized forms
// (with their lookup tables and multipliers, kept in a per-node OpData) slot in beside.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

// Shared Prepare of the four ops: one input, one output of the same shape, a float element type,
// and a rank within [min_rank, max_rank].
TfLiteStatus PrepareSameShape(TfLiteContext* context, TfLiteNode* node, int min_rank,
                              int max_rank) {
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 1, 1));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      break;
    default: return nn::RefuseType(context, input, "input 0");
  }
  TF_LITE_ENSURE_OK(context, nn::CheckRankBetween(context, input, min_rank, max_rank, "input 0"));
  return context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims));
}

// The input viewed as `outer` rows of `depth` (its last dimension) elements.
struct Rows {
  int64_t outer;
  int depth;
};

Rows RowsOf(const TfLiteTensor* tensor) {
  const int depth = tensor->dims->data[tensor->dims->size - 1];
  return {depth == 0 ? 0 : tflite::NumElements(tensor) / depth, depth};
}

// ---- SOFTMAX: exp(beta * (x - max)) / sum, per row (TFLite's reference float kernel).

TfLiteStatus SoftmaxPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSameShape(context, node, 1, std::numeric_limits<int>::max());
}

void SoftmaxFloat(float beta, const TfLiteTensor* input, TfLiteTensor* output) {
  const Rows rows = RowsOf(input);
  const float* input_data = tflite::GetTensorData<float>(input);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int64_t i = 0; i < rows.outer; ++i) {
    const float* in = input_data + i * rows.depth;
    float* out = output_data + i * rows.depth;
    // Subtracting the row's maximum keeps exp from overflowing.
    float max = std::numeric_limits<float>::lowest();
    for (int c = 0; c < rows.depth; ++c) max = std::max(max, in[c]);
    float sum = 0.f;
    for (int c = 0; c < rows.depth; ++c) {
      out[c] = std::exp((in[c] - max) * beta);
      sum += out[c];
    }
    for (int c = 0; c < rows.depth; ++c) out[c] = out[c] / sum;
  }
}

TfLiteStatus SoftmaxEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteSoftmaxParams>(node);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: SoftmaxFloat(params.beta, input, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

// ---- LOG_SOFTMAX: x - max - log(sum(exp(x - max))), per row.

TfLiteStatus LogSoftmaxPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSameShape(context, node, 1, std::numeric_limits<int>::max());
}

void LogSoftmaxFloat(const TfLiteTensor* input, TfLiteTensor* output) {
  const Rows rows = RowsOf(input);
  const float* input_data = tflite::GetTensorData<float>(input);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int64_t i = 0; i < rows.outer; ++i) {
    const float* in = input_data + i * rows.depth;
    float* out = output_data + i * rows.depth;
    float max = std::numeric_limits<float>::lowest();
    for (int c = 0; c < rows.depth; ++c) max = std::max(max, in[c]);
    float sum = 0.f;
    for (int c = 0; c < rows.depth; ++c) sum += std::exp(in[c] - max);
    const float log_sum = std::log(sum);
    for (int c = 0; c < rows.depth; ++c) out[c] = in[c] - max - log_sum;
  }
}

TfLiteStatus LogSoftmaxEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: LogSoftmaxFloat(input, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

// ---- L2_NORMALIZATION: x / max(sqrt(sum(x^2)), 1e-6) per row. TFLite takes inputs of rank up to
// 4 and refuses a fused activation ("our implementations don't support activations").

constexpr float kL2NormEpsilon = 1e-6f;

TfLiteStatus L2NormPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteL2NormParams>(node);
  if (params.activation != kTfLiteActNone) {
    TF_LITE_KERNEL_LOG(context, "fused activation %d is not supported; only NONE is",
                       static_cast<int>(params.activation));
    return kTfLiteError;
  }
  return PrepareSameShape(context, node, 1, 4);
}

void L2NormFloat(const TfLiteTensor* input, TfLiteTensor* output) {
  const Rows rows = RowsOf(input);
  const float* input_data = tflite::GetTensorData<float>(input);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int64_t i = 0; i < rows.outer; ++i) {
    const float* in = input_data + i * rows.depth;
    float* out = output_data + i * rows.depth;
    float squared_l2_norm = 0.f;
    for (int c = 0; c < rows.depth; ++c) squared_l2_norm += in[c] * in[c];
    const float l2_norm = std::max(std::sqrt(squared_l2_norm), kL2NormEpsilon);
    for (int c = 0; c < rows.depth; ++c) out[c] = in[c] / l2_norm;
  }
}

TfLiteStatus L2NormEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: L2NormFloat(input, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

// ---- LOCAL_RESPONSE_NORMALIZATION on a 4-D input: each channel c is scaled by
// (bias + alpha * sum of squares over channels [c - radius, c + radius]) ^ -beta.

TfLiteStatus LocalResponseNormPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteLocalResponseNormParams>(node);
  if (params.radius < 0) {
    TF_LITE_KERNEL_LOG(context, "radius %d is negative", params.radius);
    return kTfLiteError;
  }
  return PrepareSameShape(context, node, 4, 4);
}

void LocalResponseNormFloat(const TfLiteLocalResponseNormParams& params, const TfLiteTensor* input,
                            TfLiteTensor* output) {
  const Rows rows = RowsOf(input);
  const float* input_data = tflite::GetTensorData<float>(input);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int64_t i = 0; i < rows.outer; ++i) {
    const float* in = input_data + i * rows.depth;
    float* out = output_data + i * rows.depth;
    for (int c = 0; c < rows.depth; ++c) {
      const int begin = std::max(0, c - params.radius);
      const int end = std::min(rows.depth, c + params.radius + 1);
      float sum_squares = 0.f;
      for (int k = begin; k < end; ++k) sum_squares += in[k] * in[k];
      out[c] = in[c] * std::pow(params.bias + params.alpha * sum_squares, -params.beta);
    }
  }
}

TfLiteStatus LocalResponseNormEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteLocalResponseNormParams>(node);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: LocalResponseNormFloat(params, input, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

}  // namespace

TfLiteRegistration* Register_SOFTMAX() {
  static TfLiteRegistration r = nn::MakeRegistration(nullptr, nullptr, SoftmaxPrepare, SoftmaxEval);
  return &r;
}

TfLiteRegistration* Register_LOG_SOFTMAX() {
  static TfLiteRegistration r =
      nn::MakeRegistration(nullptr, nullptr, LogSoftmaxPrepare, LogSoftmaxEval);
  return &r;
}

TfLiteRegistration* Register_L2_NORMALIZATION() {
  static TfLiteRegistration r = nn::MakeRegistration(nullptr, nullptr, L2NormPrepare, L2NormEval);
  return &r;
}

TfLiteRegistration* Register_LOCAL_RESPONSE_NORMALIZATION() {
  static TfLiteRegistration r =
      nn::MakeRegistration(nullptr, nullptr, LocalResponseNormPrepare, LocalResponseNormEval);
  return &r;
}

}  // namespace reference
}  // namespace touchstone
