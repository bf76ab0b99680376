// FULLY_CONNECTED and BATCH_MATMUL, computing what TensorFlow Lite 2.14.1 computes
// (tensorflow/lite/kernels/{fully_connected,batch_matmul}.cc): the same output shapes, flattening
// and broadcasting, and the same inputs refused. Float32 for now; each Prepare dispatches on the
// input type so that the quantized forms (int8, uint8, int16, hybrid int8 weights) slot in beside.
#include <algorithm>
#include <cstdint>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

// ---- FULLY_CONNECTED: input [..., K] (any shape; its elements are read as rows of K), weights
// [N, K], optional bias [N] (absent or -1). The output is [rows, N], or with keep_num_dims the
// input's shape with the last dimension N.

// What Prepare computes for Eval. The quantized kernels add their output multiplier and shift
// (per channel for int8) and integer activation range here.
struct FullyConnectedData {
  float activation_min = 0.f;
  float activation_max = 0.f;
};

void* InitFullyConnectedData(TfLiteContext*, const char*, size_t) { return new FullyConnectedData; }
void FreeFullyConnectedData(TfLiteContext*, void* data) {
  delete static_cast<FullyConnectedData*>(data);
}

const TfLiteTensor* FullyConnectedBias(TfLiteContext* context, const TfLiteNode* node) {
  return node->inputs->size == 3 ? tflite::GetOptionalInputTensor(context, node, 2) : nullptr;
}

TfLiteStatus FullyConnectedPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteFullyConnectedParams>(node);
  auto* data = static_cast<FullyConnectedData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 2, 3));
  if (params.weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
    TF_LITE_KERNEL_LOG(context,
                       "weights_format %d (shuffled uint8 weights) is not supported; only "
                       "DEFAULT is",
                       static_cast<int>(params.weights_format));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 1, &weights));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  const TfLiteTensor* bias = FullyConnectedBias(context, node);

  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckFloatWeights(context, weights, "input 1 (weights)"));
      if (bias != nullptr) {
        TF_LITE_ENSURE_OK(context, nn::CheckType(context, bias, kTfLiteFloat32, "input 2 (bias)"));
      }
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      tflite::CalculateActivationRange(params.activation, &data->activation_min,
                                       &data->activation_max);
      break;
    default: return nn::RefuseType(context, input, "input 0");
  }

  TF_LITE_ENSURE_OK(context, nn::CheckRank(context, weights, 2, "input 1 (weights)"));
  const int num_units = weights->dims->data[0];
  const int accum_depth = weights->dims->data[1];
  if (bias != nullptr && tflite::NumElements(bias) != num_units) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) has %d elements, expected %d (output units)",
                       static_cast<int>(tflite::NumElements(bias)), num_units);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));

  TfLiteIntArray* output_dims;
  if (params.keep_num_dims) {
    const int rank = input->dims->size;
    if (rank == 0 || input->dims->data[rank - 1] != accum_depth) {
      TF_LITE_KERNEL_LOG(context,
                         "keep_num_dims needs input 0's last dimension to be %d (the weights' "
                         "input size)",
                         accum_depth);
      return kTfLiteError;
    }
    output_dims = TfLiteIntArrayCopy(input->dims);
    output_dims->data[rank - 1] = num_units;
  } else {
    if (accum_depth <= 0) {
      TF_LITE_KERNEL_LOG(context, "input 1 (weights) is [%d, %d]; its input size must be positive",
                         num_units, accum_depth);
      return kTfLiteError;
    }
    // TFLite reads the input as whole rows of K: leftover elements (when the element count is
    // not a multiple of K) are ignored.
    const int64_t rows = tflite::NumElements(input) / accum_depth;
    output_dims = tflite::CreateIntArray({static_cast<int>(rows), num_units});
  }
  return context->ResizeTensor(context, output, output_dims);
}

void FullyConnectedFloat(const FullyConnectedData& data, const TfLiteTensor* input,
                         const TfLiteTensor* weights, const TfLiteTensor* bias,
                         TfLiteTensor* output) {
  const int num_units = weights->dims->data[0];
  const int accum_depth = weights->dims->data[1];
  if (num_units == 0) return;
  const int64_t rows = tflite::NumElements(output) / num_units;
  const float* input_data = tflite::GetTensorData<float>(input);
  const float* weights_data = tflite::GetTensorData<float>(weights);
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int64_t row = 0; row < rows; ++row) {
    const float* input_row = input_data + row * accum_depth;
    for (int unit = 0; unit < num_units; ++unit) {
      const float* weights_row = weights_data + static_cast<int64_t>(unit) * accum_depth;
      float total = 0.f;
      for (int d = 0; d < accum_depth; ++d) total += input_row[d] * weights_row[d];
      const float bias_value = bias_data != nullptr ? bias_data[unit] : 0.f;
      output_data[row * num_units + unit] =
          nn::ClampToActivation(total + bias_value, data.activation_min, data.activation_max);
    }
  }
}

TfLiteStatus FullyConnectedEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& data = *static_cast<const FullyConnectedData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* weights = tflite::GetInput(context, node, 1);
  const TfLiteTensor* bias = FullyConnectedBias(context, node);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: FullyConnectedFloat(data, input, weights, bias, output); return kTfLiteOk;
    default: return nn::RefuseType(context, input, "input 0");
  }
}

// ---- BATCH_MATMUL: lhs [..., M, K] (or [..., K, M] with adj_x) times rhs [..., K, N] (or
// [..., N, K] with adj_y), ranks 2 to 5; the leading (batch) dimensions broadcast as in numpy.

constexpr int kMaxBatchMatMulRank = 5;
constexpr int kBatchDims = kMaxBatchMatMulRank - 2;

// `tensor`'s batch dimensions, right-aligned into kBatchDims slots padded with 1s in front.
void ExtendedBatchDims(const TfLiteTensor* tensor, int* batch_dims) {
  const int rank = tensor->dims->size;
  const int padding = kMaxBatchMatMulRank - rank;
  for (int i = 0; i < kBatchDims; ++i) {
    batch_dims[i] = i < padding ? 1 : tensor->dims->data[i - padding];
  }
}

TfLiteStatus BatchMatMulPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteBatchMatMulParams>(node);
  TF_LITE_ENSURE_OK(context, nn::CheckInputCount(context, node, 2, 2));
  TF_LITE_ENSURE_OK(context, nn::CheckOutputCount(context, node, 1));
  const TfLiteTensor* lhs;
  const TfLiteTensor* rhs;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &lhs));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 1, &rhs));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));

  switch (lhs->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, nn::CheckFloatWeights(context, rhs, "input 1"));
      TF_LITE_ENSURE_OK(context, nn::CheckType(context, output, kTfLiteFloat32, "output 0"));
      break;
    default: return nn::RefuseType(context, lhs, "input 0");
  }

  TF_LITE_ENSURE_OK(context, nn::CheckRankBetween(context, lhs, 2, kMaxBatchMatMulRank, "input 0"));
  TF_LITE_ENSURE_OK(context, nn::CheckRankBetween(context, rhs, 2, kMaxBatchMatMulRank, "input 1"));
  const int lhs_rank = lhs->dims->size;
  const int rhs_rank = rhs->dims->size;
  const int output_rank = std::max(lhs_rank, rhs_rank);
  int lhs_batch[kBatchDims], rhs_batch[kBatchDims];
  ExtendedBatchDims(lhs, lhs_batch);
  ExtendedBatchDims(rhs, rhs_batch);

  TfLiteIntArray* output_dims = TfLiteIntArrayCreate(output_rank);
  // The output's batch dimensions are the last output_rank - 2 of the broadcast ones.
  for (int i = 0; i < output_rank - 2; ++i) {
    const int lhs_dim = lhs_batch[kBatchDims - (output_rank - 2) + i];
    const int rhs_dim = rhs_batch[kBatchDims - (output_rank - 2) + i];
    if (lhs_dim != rhs_dim && lhs_dim != 1 && rhs_dim != 1) {
      TF_LITE_KERNEL_LOG(context, "batch dimension %d does not broadcast: %d vs %d", i, lhs_dim,
                         rhs_dim);
      TfLiteIntArrayFree(output_dims);
      return kTfLiteError;
    }
    output_dims->data[i] = lhs_dim == 1 ? rhs_dim : lhs_dim;
  }
  const int* lhs_matrix = lhs->dims->data + lhs_rank - 2;
  const int* rhs_matrix = rhs->dims->data + rhs_rank - 2;
  const int lhs_accum = params.adj_x ? lhs_matrix[0] : lhs_matrix[1];
  const int rhs_accum = params.adj_y ? rhs_matrix[1] : rhs_matrix[0];
  if (lhs_accum != rhs_accum) {
    TF_LITE_KERNEL_LOG(context,
                       "inner dimensions differ: input 0 contributes %d, input 1 contributes %d "
                       "(adj_x %d, adj_y %d)",
                       lhs_accum, rhs_accum, params.adj_x, params.adj_y);
    TfLiteIntArrayFree(output_dims);
    return kTfLiteError;
  }
  output_dims->data[output_rank - 2] = params.adj_x ? lhs_matrix[1] : lhs_matrix[0];
  output_dims->data[output_rank - 1] = params.adj_y ? rhs_matrix[0] : rhs_matrix[1];
  return context->ResizeTensor(context, output, output_dims);
}

// Index of the matrix of an operand with batch dimensions `dims` used for output batch (b0, b1,
// b2): a dimension of 1 broadcasts.
int64_t BroadcastMatrixIndex(const int* dims, int b0, int b1, int b2) {
  const int i0 = dims[0] == 1 ? 0 : b0;
  const int i1 = dims[1] == 1 ? 0 : b1;
  const int i2 = dims[2] == 1 ? 0 : b2;
  return (static_cast<int64_t>(i0) * dims[1] + i1) * dims[2] + i2;
}

void BatchMatMulFloat(const TfLiteBatchMatMulParams& params, const TfLiteTensor* lhs,
                      const TfLiteTensor* rhs, TfLiteTensor* output) {
  int lhs_batch[kBatchDims], rhs_batch[kBatchDims], output_batch[kBatchDims];
  ExtendedBatchDims(lhs, lhs_batch);
  ExtendedBatchDims(rhs, rhs_batch);
  ExtendedBatchDims(output, output_batch);
  const int* lhs_matrix = lhs->dims->data + lhs->dims->size - 2;
  const int* rhs_matrix = rhs->dims->data + rhs->dims->size - 2;
  const int rows = output->dims->data[output->dims->size - 2];
  const int cols = output->dims->data[output->dims->size - 1];
  const int accum_depth = params.adj_x ? lhs_matrix[0] : lhs_matrix[1];
  // Element (i, k) of the lhs matrix and (k, j) of the rhs one, transposed as the flags say.
  const int64_t lhs_row_stride = params.adj_x ? 1 : lhs_matrix[1];
  const int64_t lhs_depth_stride = params.adj_x ? lhs_matrix[1] : 1;
  const int64_t rhs_depth_stride = params.adj_y ? 1 : rhs_matrix[1];
  const int64_t rhs_col_stride = params.adj_y ? rhs_matrix[1] : 1;
  const int64_t lhs_matrix_size = static_cast<int64_t>(lhs_matrix[0]) * lhs_matrix[1];
  const int64_t rhs_matrix_size = static_cast<int64_t>(rhs_matrix[0]) * rhs_matrix[1];
  const float* lhs_data = tflite::GetTensorData<float>(lhs);
  const float* rhs_data = tflite::GetTensorData<float>(rhs);
  float* output_data = tflite::GetTensorData<float>(output);

  for (int b0 = 0; b0 < output_batch[0]; ++b0) {
    for (int b1 = 0; b1 < output_batch[1]; ++b1) {
      for (int b2 = 0; b2 < output_batch[2]; ++b2) {
        const float* lhs_ptr =
            lhs_data + BroadcastMatrixIndex(lhs_batch, b0, b1, b2) * lhs_matrix_size;
        const float* rhs_ptr =
            rhs_data + BroadcastMatrixIndex(rhs_batch, b0, b1, b2) * rhs_matrix_size;
        float* output_ptr = output_data + BroadcastMatrixIndex(output_batch, b0, b1, b2) *
                                              static_cast<int64_t>(rows) * cols;
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) {
            float total = 0.f;
            for (int k = 0; k < accum_depth; ++k) {
              total += lhs_ptr[i * lhs_row_stride + k * lhs_depth_stride] *
                       rhs_ptr[k * rhs_depth_stride + j * rhs_col_stride];
            }
            output_ptr[static_cast<int64_t>(i) * cols + j] = total;
          }
        }
      }
    }
  }
}

TfLiteStatus BatchMatMulEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = nn::ParamsOf<TfLiteBatchMatMulParams>(node);
  const TfLiteTensor* lhs = tflite::GetInput(context, node, 0);
  const TfLiteTensor* rhs = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (lhs->type) {
    case kTfLiteFloat32: BatchMatMulFloat(params, lhs, rhs, output); return kTfLiteOk;
    default: return nn::RefuseType(context, lhs, "input 0");
  }
}

}  // namespace

TfLiteRegistration* Register_FULLY_CONNECTED() {
  static TfLiteRegistration r = nn::MakeRegistration(InitFullyConnectedData, FreeFullyConnectedData,
                                                     FullyConnectedPrepare, FullyConnectedEval);
  return &r;
}

TfLiteRegistration* Register_BATCH_MATMUL() {
  static TfLiteRegistration r =
      nn::MakeRegistration(nullptr, nullptr, BatchMatMulPrepare, BatchMatMulEval);
  return &r;
}

}  // namespace reference
}  // namespace touchstone
