// FULLY_CONNECTED and BATCH_MATMUL, computing what TensorFlow Lite 2.14.1 computes
// (tensorflow/lite/kernels/{fully_connected,batch_matmul}.cc): the same output shapes, flattening
// and broadcasting, and the same inputs refused.
//
// Types: float32; uint8 (per-tensor weights); int8 (per-tensor or per-channel weights, int32 bias);
// int16 activations with int8 weights and int64 or int32 bias; and FULLY_CONNECTED's hybrid form
// (float input and output, int8 weights per tensor or per channel: with per-channel weights TFLite
// 2.14.1's output is the bias alone) and BATCH_MATMUL's (float lhs, per-tensor int8 rhs), whose
// float input TFLite quantizes per row on the fly. Quantized results are bit-exact with TFLite's
// x86 kernels: uint8 products run through gemmlowp (MultiplyByQuantizedMultiplier's rounding), int8
// and int16 ones through ruy (ties rounded up), those with an int64 bias through the 16x8 reference
// kernels (see nn::OutputStage).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/lstm_float.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

// The output stage TFLite's x86 build applies to a quantized matrix product of `type` inputs:
// uint8 runs through gemmlowp, int8 through ruy, and int16 through ruy too unless the bias is
// int64, which only the 16x8 reference kernel takes.
nn::OutputStage MatrixProductStage(TfLiteType type, const TfLiteTensor* bias) {
  if (type == kTfLiteUInt8) return nn::OutputStage::kDoubleRounding;
  if (type == kTfLiteInt16 && bias != nullptr && bias->type == kTfLiteInt64) {
    return nn::OutputStage::kInt64;
  }
  return nn::OutputStage::kRoundingUp;
}

// input_scale * weights_scale / output_scale as TFLite's GetQuantizedConvolutionMultipler takes it
// for per-tensor products: the product of the two scales in float, the quotient in double; with a
// bias, after checking its scale against that product.
TfLiteStatus PerTensorMultiplier(TfLiteContext* context, const TfLiteTensor* input, const TfLiteTensor* weights,
                                 const TfLiteTensor* bias, const TfLiteTensor* output, int32_t* multiplier,
                                 int* shift) {
  TF_LITE_ENSURE_OK(context, nn::CheckBiasScale(context, input, weights, bias, output));
  const double product = static_cast<double>(input->params.scale * weights->params.scale);
  if (!(product >= 0)) {
    TF_LITE_KERNEL_LOG(context, "the input and weights scales have a negative product");
    return kTfLiteError;
  }
  quantization_util::QuantizeMultiplier(product / static_cast<double>(output->params.scale), multiplier, shift);
  return kTfLiteOk;
}

// A quantized operand's zero point as an offset to add to its values.
int32_t OffsetOf(const TfLiteTensor* tensor) { return -tensor->params.zero_point; }

// ---- FULLY_CONNECTED: input [..., K] (any shape; its elements are read as rows of K), weights
// [N, K], optional bias [N] (absent or -1). The output is [rows, N], or with keep_num_dims the
// input's shape with the last dimension N.

struct FullyConnectedData {
  // Float and hybrid outputs.
  float activation_min = 0.f;
  float activation_max = 0.f;
  // Quantized outputs.
  nn::OutputRequantization requantization;
  nn::OutputStage stage = nn::OutputStage::kDoubleRounding;
  // Hybrid: scratch for the quantized input rows and their parameters, and the weights' row sums
  // (asymmetric input quantization subtracts offset * row sum).
  bool hybrid = false;
  // The weights' scale per output unit, when per-channel: TFLite's hybrid kernel then adds nothing.
  const float* per_channel_scales = nullptr;
  nn::QuantizedRows quantized_input;
  std::vector<int32_t> row_sums;
};

// TFLite's quantized FULLY_CONNECTED parameters: the per-tensor multiplier (float product of the
// scales), replaced per output unit by input_scale * weights_scale[n] / output_scale (in double)
// when the weights have one scale per unit.
TfLiteStatus PrepareQuantizedFullyConnected(TfLiteContext* context, const TfLiteFullyConnectedParams& params,
                                            const TfLiteTensor* input, const TfLiteTensor* weights,
                                            const TfLiteTensor* bias, const TfLiteTensor* output,
                                            FullyConnectedData* data) {
  TF_LITE_ENSURE_OK(context, CheckType(context, weights, "input 1 (weights)", nn::QuantizedWeightsType(input->type)));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  if (bias != nullptr && !(bias->type == kTfLiteInt32 || (input->type == kTfLiteInt16 && bias->type == kTfLiteInt64))) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) has type %s, expected INT32%s", TfLiteTypeGetName(bias->type),
                       input->type == kTfLiteInt16 ? " or INT64" : "");
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt16) {
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, input, "input 0"));
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, output, "output 0"));
  }
  const TfLiteAffineQuantization* quantization = AffineQuantization(weights);
  if (AffineQuantization(input) == nullptr || quantization == nullptr || AffineQuantization(output) == nullptr) {
    TF_LITE_KERNEL_LOG(context,
                       "a quantized FULLY_CONNECTED needs quantized input, weights and "
                       "output tensors");
    return kTfLiteError;
  }
  const int num_units = weights->dims->data[0];
  int32_t multiplier;
  int shift;
  TF_LITE_ENSURE_OK(context, PerTensorMultiplier(context, input, weights, bias, output, &multiplier, &shift));
  data->requantization.SetUniform(multiplier, shift);
  const int scale_count = quantization->scale->size;
  if (scale_count > 1) {
    if (input->type == kTfLiteUInt8 || quantization->quantized_dimension != 0 || scale_count != num_units) {
      TF_LITE_KERNEL_LOG(context,
                         "input 1 (weights) has %d scales along dimension %d; per-channel weights "
                         "need an INT8 or INT16 input and one scale per output unit (%d)",
                         scale_count, quantization->quantized_dimension, num_units);
      return kTfLiteError;
    }
    data->requantization.SetPerChannel(num_units);
    for (int n = 0; n < num_units; ++n) {
      const double effective_scale = static_cast<double>(input->params.scale) *
                                     static_cast<double>(quantization->scale->data[n]) /
                                     static_cast<double>(output->params.scale);
      quantization_util::QuantizeMultiplier(effective_scale, &data->requantization.multiplier[n],
                                            &data->requantization.shift[n]);
    }
  }
  data->stage = MatrixProductStage(input->type, bias);
  return tflite::CalculateActivationRangeQuantized(
      context, params.activation, output, &data->requantization.activation_min, &data->requantization.activation_max);
}

TfLiteStatus FullyConnectedPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteFullyConnectedParams>(node);
  auto* data = static_cast<FullyConnectedData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 2, 3));
  if (params.weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
    TF_LITE_KERNEL_LOG(context,
                       "weights_format %d (shuffled uint8 weights) is not supported; only "
                       "DEFAULT is",
                       static_cast<int>(params.weights_format));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckOutputCount(context, node, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* weights;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 1, &weights));
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  const TfLiteTensor* bias = nn::OptionalBias(context, node);
  TF_LITE_ENSURE_OK(context, CheckRank(context, weights, "input 1 (weights)", 2));
  const int num_units = weights->dims->data[0];
  const int accum_depth = weights->dims->data[1];
  if (bias != nullptr && tflite::NumElements(bias) != num_units) {
    TF_LITE_KERNEL_LOG(context, "input 2 (bias) has %d elements, expected %d (output units)",
                       static_cast<int>(tflite::NumElements(bias)), num_units);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, nn::CheckFusedActivation(context, params.activation));
  const bool hybrid = input->type == kTfLiteFloat32 && weights->type == kTfLiteInt8;
  // The hybrid form applies any activation to its float output (tensor_utils'
  // ApplyActivationToVector, TANH and SIGN_BIT included); every other form takes the clamping ones.
  if (!hybrid && params.activation != kTfLiteActNone && params.activation != kTfLiteActRelu &&
      params.activation != kTfLiteActReluN1To1 && params.activation != kTfLiteActRelu6) {
    TF_LITE_KERNEL_LOG(context,
                       "fused activation %d is not supported (only NONE, RELU, RELU_N1_TO_1 and RELU6 "
                       "outside the hybrid form)",
                       static_cast<int>(params.activation));
    return kTfLiteError;
  }

  data->hybrid = false;
  data->per_channel_scales = nullptr;
  switch (input->type) {
    case kTfLiteFloat32:
      if (weights->type == kTfLiteInt8) {
        const TfLiteAffineQuantization* quantization = AffineQuantization(weights);
        if (quantization == nullptr) {
          TF_LITE_KERNEL_LOG(context, "input 1 (weights) is INT8 but not quantized");
          return kTfLiteError;
        }
        if (quantization->scale->size > 1) {
          if (quantization->quantized_dimension != 0 || quantization->scale->size != num_units) {
            TF_LITE_KERNEL_LOG(context,
                               "input 1 (weights) has %d scales along dimension %d; per-channel weights "
                               "need one per output unit (%d) along dimension 0",
                               quantization->scale->size, quantization->quantized_dimension, num_units);
            return kTfLiteError;
          }
          data->per_channel_scales = quantization->scale->data;
          WarnTfliteDifference(context,
                               "FULLY_CONNECTED with a float input and per-channel int8 weights: TFLite "
                               "2.14.1 adds nothing for the weights (the output is the bias, then the "
                               "activation); so does Touchstone");
        }
        data->hybrid = true;
      } else if (weights->type == kTfLiteUInt8) {
        TF_LITE_KERNEL_LOG(context,
                           "input 1 (weights) has type UINT8 with a FLOAT32 input; hybrid "
                           "FULLY_CONNECTED supports INT8 weights only");
        return kTfLiteError;
      } else {
        TF_LITE_ENSURE_OK(context, CheckType(context, weights, "input 1 (weights)", kTfLiteFloat32));
      }
      TF_LITE_ENSURE_OK(context, nn::PrepareFloatOutput(context, params.activation, bias, "input 2 (bias)", output,
                                                        &data->activation_min, &data->activation_max));
      break;
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      TF_LITE_ENSURE_OK(context, PrepareQuantizedFullyConnected(context, params, input, weights, bias, output, data));
      break;
    default:
      return nn::RefuseProductInputType(context, "FULLY_CONNECTED", "input 0", input->type);
  }

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
      TF_LITE_KERNEL_LOG(context, "input 1 (weights) is [%d, %d]; its input size must be positive", num_units,
                         accum_depth);
      return kTfLiteError;
    }
    // TFLite reads the input as whole rows of K: leftover elements (when the element count is
    // not a multiple of K) are ignored.
    const int64_t rows = tflite::NumElements(input) / accum_depth;
    output_dims = tflite::CreateIntArray({static_cast<int>(rows), num_units});
  }
  if (data->hybrid) {
    // Scratch for the rows Eval computes (one per num_units outputs).
    const int64_t rows = num_units > 0 ? tflite::NumElements(output_dims) / num_units : 0;
    data->quantized_input.Resize(rows, accum_depth);
    data->row_sums.resize(num_units);
  }
  return context->ResizeTensor(context, output, output_dims);
}

// Calls emit(output index, unit, sum) for each output element: the sum of nn::ProductTerm over an
// input row and a weights row.
template <typename Acc, typename InputT, typename WeightsT, typename Emit>
void FullyConnectedSums(const TfLiteTensor* input, const TfLiteTensor* weights, const TfLiteTensor* output,
                        int32_t input_offset, int32_t weights_offset, Emit emit) {
  const int num_units = weights->dims->data[0];
  const int accum_depth = weights->dims->data[1];
  if (num_units == 0) return;
  const int64_t rows = tflite::NumElements(output) / num_units;
  const InputT* input_data = tflite::GetTensorData<InputT>(input);
  const WeightsT* weights_data = tflite::GetTensorData<WeightsT>(weights);
  for (int64_t row = 0; row < rows; ++row) {
    const InputT* input_row = input_data + row * accum_depth;
    for (int unit = 0; unit < num_units; ++unit) {
      const WeightsT* weights_row = weights_data + static_cast<int64_t>(unit) * accum_depth;
      Acc acc = 0;
      for (int d = 0; d < accum_depth; ++d) {
        acc += nn::ProductTerm<Acc>(input_row[d], weights_row[d], input_offset, weights_offset);
      }
      emit(row * num_units + unit, unit, acc);
    }
  }
}

void FullyConnectedFloat(const FullyConnectedData& data, const TfLiteTensor* input, const TfLiteTensor* weights,
                         const TfLiteTensor* bias, TfLiteTensor* output) {
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  FullyConnectedSums<float, float, float>(input, weights, output, 0, 0, [&](int64_t index, int unit, float total) {
    const float bias_value = bias_data != nullptr ? bias_data[unit] : 0.f;
    output_data[index] = nn::ClampToActivation(total + bias_value, data.activation_min, data.activation_max);
  });
}

template <typename InputT, typename WeightsT, typename OutputT>
void FullyConnectedQuantized(const FullyConnectedData& data, const TfLiteTensor* input, const TfLiteTensor* weights,
                             const TfLiteTensor* bias, TfLiteTensor* output) {
  const int32_t output_offset = output->params.zero_point;
  OutputT* output_data = tflite::GetTensorData<OutputT>(output);
  FullyConnectedSums<int64_t, InputT, WeightsT>(
      input, weights, output, OffsetOf(input), OffsetOf(weights), [&](int64_t index, int unit, int64_t acc) {
        output_data[index] = nn::RequantizeOutput<OutputT>(data.stage, data.requantization,
                                                           acc + nn::IntegerBiasValue(bias, unit), unit, output_offset);
      });
}

// TFLite's hybrid FULLY_CONNECTED (int8 weights, per tensor or per output unit): the output starts
// as the bias; each
// input row is quantized to int8 (symmetrically, or with a zero point when
// asymmetric_quantize_inputs is set) with its own scale; each unit's integer dot product (less
// zero point * the weights' row sum, taken in float as TFLite's portable kernel takes it) times
// (row scale * weights scale) is added to it; then the activation, TANH and SIGN_BIT included.
void FullyConnectedHybrid(const TfLiteFullyConnectedParams& params, FullyConnectedData& data, const TfLiteTensor* input,
                          const TfLiteTensor* weights, const TfLiteTensor* bias, TfLiteTensor* output) {
  const int num_units = weights->dims->data[0];
  const int accum_depth = weights->dims->data[1];
  if (num_units == 0) return;
  const int64_t rows = tflite::NumElements(output) / num_units;
  const float* input_data = tflite::GetTensorData<float>(input);
  const int8_t* weights_data = tflite::GetTensorData<int8_t>(weights);
  const float* bias_data = tflite::GetTensorData<float>(bias);
  float* output_data = tflite::GetTensorData<float>(output);
  const bool asymmetric = params.asymmetric_quantize_inputs;
  if (asymmetric) {
    for (int unit = 0; unit < num_units; ++unit) {
      const int8_t* weights_row = weights_data + static_cast<int64_t>(unit) * accum_depth;
      int32_t sum = 0;
      for (int d = 0; d < accum_depth; ++d) sum += weights_row[d];
      data.row_sums[unit] = sum;
    }
  }

  if (data.per_channel_scales != nullptr) {
    // TFLite 2.14.1 adds nothing for per-channel weights here (its output is the bias, then the
    // activation, whatever the input); Prepare warned.
    for (int64_t i = 0; i < rows * num_units; ++i) {
      output_data[i] = bias_data != nullptr ? bias_data[i % num_units] : 0.f;
    }
    lstm::float_internal::ApplyActivation(output_data, static_cast<int>(rows * num_units), params.activation,
                                          output_data);
    return;
  }
  for (int64_t row = 0; row < rows; ++row) {
    const float* input_row = input_data + row * accum_depth;
    int8_t* quantized_row = data.quantized_input.values.data() + row * accum_depth;
    float& scaling_factor = data.quantized_input.scaling_factors[row];
    int32_t& offset = data.quantized_input.offsets[row];
    nn::BatchQuantizeFloats(input_row, 1, accum_depth, quantized_row, &scaling_factor, &offset, asymmetric);
    scaling_factor *= weights->params.scale;
    float* output_row = output_data + row * num_units;
    for (int unit = 0; unit < num_units; ++unit) {
      const int8_t* weights_row = weights_data + static_cast<int64_t>(unit) * accum_depth;
      int64_t dot = 0;
      for (int d = 0; d < accum_depth; ++d) dot += quantized_row[d] * weights_row[d];
      int32_t dotprod = static_cast<int32_t>(static_cast<uint32_t>(dot));
      if (asymmetric) {
        dotprod = quantization_util::TruncateToInt32LikeX86(
            static_cast<float>(dotprod) - static_cast<float>(data.row_sums[unit]) * static_cast<float>(offset));
      }
      float value = bias_data != nullptr ? bias_data[unit] : 0.f;
      value += static_cast<float>(dotprod) * scaling_factor;
      output_row[unit] = value;
    }
  }
  lstm::float_internal::ApplyActivation(output_data, static_cast<int>(rows * num_units), params.activation,
                                        output_data);
}

TfLiteStatus FullyConnectedEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteFullyConnectedParams>(node);
  auto& data = *static_cast<FullyConnectedData*>(node->user_data);
  // Named, not only bound: the lambda below may not capture structured bindings (C++17; clang refuses).
  const nn::WeightedTensors tensors = nn::WeightedNodeTensors(context, node);
  const auto [input, weights, bias, output] = tensors;
  if (input->type == kTfLiteFloat32) {
    if (data.hybrid) {
      FullyConnectedHybrid(params, data, input, weights, bias, output);
    } else {
      FullyConnectedFloat(data, input, weights, bias, output);
    }
    return kTfLiteOk;
  }
  return nn::EvalQuantizedProduct(context, "input 0", input->type, [&](auto in, auto weights_t) {
    using InputT = decltype(in);
    FullyConnectedQuantized<InputT, decltype(weights_t), InputT>(data, tensors.input, tensors.weights, tensors.bias,
                                                                 tensors.output);
  });
}

// ---- BATCH_MATMUL: lhs [..., M, K] (or [..., K, M] with adj_x) times rhs [..., K, N] (or
// [..., N, K] with adj_y), ranks 2 to 5; the leading (batch) dimensions broadcast as in numpy.

constexpr int kMaxBatchMatMulRank = 5;
constexpr int kBatchDims = kMaxBatchMatMulRank - 2;

// The quantized forms' requantization (one multiplier; BATCH_MATMUL has no fused activation, so
// the clamp is the output type's range).
struct BatchMatMulData {
  nn::OutputRequantization requantization;
  nn::OutputStage stage = nn::OutputStage::kDoubleRounding;
  // Hybrid (float lhs, int8 rhs): the lhs rows quantized on the fly, with their scales and zero
  // points, and the rhs columns' sums (asymmetric input quantization subtracts offset * sum).
  bool hybrid = false;
  std::vector<int8_t> quantized_lhs;
  std::vector<float> scaling_factors;
  std::vector<int32_t> input_offsets;
  std::vector<int32_t> column_sums;
};

// `tensor`'s batch dimensions, right-aligned into kBatchDims slots padded with 1s in front.
void ExtendedBatchDims(const TfLiteTensor* tensor, int* batch_dims) {
  const int rank = tensor->dims->size;
  const int padding = kMaxBatchMatMulRank - rank;
  for (int i = 0; i < kBatchDims; ++i) {
    batch_dims[i] = i < padding ? 1 : tensor->dims->data[i - padding];
  }
}

TfLiteStatus PrepareQuantizedBatchMatMul(TfLiteContext* context, const TfLiteTensor* lhs, const TfLiteTensor* rhs,
                                         const TfLiteTensor* output, BatchMatMulData* data) {
  TF_LITE_ENSURE_OK(context, CheckType(context, rhs, "input 1", lhs->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", lhs->type));
  if (AffineQuantization(lhs) == nullptr || AffineQuantization(rhs) == nullptr ||
      AffineQuantization(output) == nullptr) {
    TF_LITE_KERNEL_LOG(context, "a quantized BATCH_MATMUL needs quantized inputs and output");
    return kTfLiteError;
  }
  if (lhs->type == kTfLiteInt16) {
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, lhs, "input 0"));
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, rhs, "input 1"));
    TF_LITE_ENSURE_OK(context, nn::CheckZeroPointIsZero(context, output, "output 0"));
  }
  int32_t multiplier;
  int shift;
  TF_LITE_ENSURE_OK(context, PerTensorMultiplier(context, lhs, rhs, nullptr, output, &multiplier, &shift));
  data->requantization.SetUniform(multiplier, shift);
  data->requantization.activation_min = lhs->type == kTfLiteInt8 ? -128 : -32768;
  data->requantization.activation_max = lhs->type == kTfLiteInt8 ? 127 : 32767;
  // int8 runs through ruy; int16 only through the reference kernel, with int64 sums.
  data->stage = lhs->type == kTfLiteInt8 ? nn::OutputStage::kRoundingUp : nn::OutputStage::kInt64;
  return kTfLiteOk;
}

TfLiteStatus BatchMatMulPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteBatchMatMulParams>(node);
  auto* data = static_cast<BatchMatMulData*>(node->user_data);
  const TfLiteTensor* lhs;
  const TfLiteTensor* rhs;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&lhs, &rhs}, {&output}));

  data->hybrid = lhs->type == kTfLiteFloat32 && rhs->type == kTfLiteInt8;
  switch (lhs->type) {
    case kTfLiteFloat32:
      if (data->hybrid) {
        if (AffineQuantization(rhs) == nullptr) {
          TF_LITE_KERNEL_LOG(context, "input 1 is INT8 but not quantized");
          return kTfLiteError;
        }
        TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteFloat32));
        break;
      }
      TF_LITE_ENSURE_OK(context, CheckType(context, rhs, "input 1", kTfLiteFloat32));
      TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteFloat32));
      break;
    case kTfLiteInt8:
    case kTfLiteInt16:
      TF_LITE_ENSURE_OK(context, PrepareQuantizedBatchMatMul(context, lhs, rhs, output, data));
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "input 0 has type %s; BATCH_MATMUL supports FLOAT32, INT8 and INT16",
                         TfLiteTypeGetName(lhs->type));
      return kTfLiteError;
  }

  TF_LITE_ENSURE_OK(context, CheckRankBetween(context, lhs, "input 0", 2, kMaxBatchMatMulRank));
  TF_LITE_ENSURE_OK(context, CheckRankBetween(context, rhs, "input 1", 2, kMaxBatchMatMulRank));
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
      TF_LITE_KERNEL_LOG(context, "batch dimension %d does not broadcast: %d vs %d", i, lhs_dim, rhs_dim);
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
  if (data->hybrid) {
    const int64_t lhs_rows = lhs_accum > 0 ? tflite::NumElements(lhs) / lhs_accum : 0;
    data->quantized_lhs.resize(tflite::NumElements(lhs));
    data->scaling_factors.resize(lhs_rows);
    data->input_offsets.resize(lhs_rows);
    data->column_sums.resize(tflite::NumElements(rhs) / std::max(rhs_accum, 1));
  }
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

// Each output element is finish(sum over k of (lhs + lhs_offset) * (rhs + rhs_offset)), the sum
// of type Acc; float uses offsets of 0 and keeps the sum.
template <typename T, typename Acc, typename OutputT, typename Finish>
void BatchMatMulImpl(const TfLiteBatchMatMulParams& params, const TfLiteTensor* lhs, const TfLiteTensor* rhs,
                     TfLiteTensor* output, int32_t lhs_offset, int32_t rhs_offset, Finish finish) {
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
  const T* lhs_data = tflite::GetTensorData<T>(lhs);
  const T* rhs_data = tflite::GetTensorData<T>(rhs);
  OutputT* output_data = tflite::GetTensorData<OutputT>(output);

  for (int b0 = 0; b0 < output_batch[0]; ++b0) {
    for (int b1 = 0; b1 < output_batch[1]; ++b1) {
      for (int b2 = 0; b2 < output_batch[2]; ++b2) {
        const T* lhs_ptr = lhs_data + BroadcastMatrixIndex(lhs_batch, b0, b1, b2) * lhs_matrix_size;
        const T* rhs_ptr = rhs_data + BroadcastMatrixIndex(rhs_batch, b0, b1, b2) * rhs_matrix_size;
        OutputT* output_ptr =
            output_data + BroadcastMatrixIndex(output_batch, b0, b1, b2) * static_cast<int64_t>(rows) * cols;
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) {
            Acc total = 0;
            for (int k = 0; k < accum_depth; ++k) {
              total += static_cast<Acc>(lhs_ptr[i * lhs_row_stride + k * lhs_depth_stride] + lhs_offset) *
                       static_cast<Acc>(rhs_ptr[k * rhs_depth_stride + j * rhs_col_stride] + rhs_offset);
            }
            output_ptr[static_cast<int64_t>(i) * cols + j] = finish(total);
          }
        }
      }
    }
  }
}

// TFLite's hybrid BATCH_MATMUL (float lhs, per-tensor int8 rhs): each lhs row of K values is
// quantized to int8 (symmetrically, or with a zero point when asymmetric_quantize_inputs is set)
// with its own scale, times the rhs scale; each output is that scale times the integer sum (less
// zero point * the rhs column's sum, taken in float as TFLite takes it).
void BatchMatMulHybrid(const TfLiteBatchMatMulParams& params, BatchMatMulData& data, const TfLiteTensor* lhs,
                       const TfLiteTensor* rhs, TfLiteTensor* output) {
  const int* lhs_matrix = lhs->dims->data + lhs->dims->size - 2;
  const int* rhs_matrix = rhs->dims->data + rhs->dims->size - 2;
  const int rows = params.adj_x ? lhs_matrix[1] : lhs_matrix[0];
  const int accum_depth = params.adj_x ? lhs_matrix[0] : lhs_matrix[1];
  const int cols = params.adj_y ? rhs_matrix[0] : rhs_matrix[1];
  const int64_t lhs_matrices = tflite::NumElements(lhs) / std::max<int64_t>(int64_t{rows} * accum_depth, 1);
  const int64_t rhs_matrices = tflite::NumElements(rhs) / std::max<int64_t>(int64_t{cols} * accum_depth, 1);
  const float* lhs_data = tflite::GetTensorData<float>(lhs);
  const int8_t* rhs_data = tflite::GetTensorData<int8_t>(rhs);
  const bool asymmetric = params.asymmetric_quantize_inputs;
  // The lhs rows, transposed first where adj_x says so, quantized one by one.
  std::vector<float> row(accum_depth);
  for (int64_t m = 0; m < lhs_matrices; ++m) {
    const float* matrix = lhs_data + m * rows * accum_depth;
    for (int i = 0; i < rows; ++i) {
      for (int k = 0; k < accum_depth; ++k) {
        row[k] = params.adj_x ? matrix[static_cast<int64_t>(k) * rows + i]
                              : matrix[static_cast<int64_t>(i) * accum_depth + k];
      }
      const int64_t r = m * rows + i;
      int8_t* quantized = data.quantized_lhs.data() + r * accum_depth;
      if (!asymmetric) data.input_offsets[r] = 0;
      nn::BatchQuantizeFloats(row.data(), 1, accum_depth, quantized, &data.scaling_factors[r], &data.input_offsets[r],
                              asymmetric);
      data.scaling_factors[r] *= rhs->params.scale;
    }
  }
  // Element (k, j) of an rhs matrix, transposed as adj_y says.
  const int64_t rhs_depth_stride = params.adj_y ? 1 : cols;
  const int64_t rhs_col_stride = params.adj_y ? accum_depth : 1;
  for (int64_t m = 0; m < rhs_matrices; ++m) {
    const int8_t* matrix = rhs_data + m * cols * accum_depth;
    for (int j = 0; j < cols; ++j) {
      int32_t sum = 0;
      for (int k = 0; k < accum_depth; ++k) sum += matrix[k * rhs_depth_stride + j * rhs_col_stride];
      data.column_sums[m * cols + j] = sum;
    }
  }
  int lhs_batch[kBatchDims], rhs_batch[kBatchDims], output_batch[kBatchDims];
  ExtendedBatchDims(lhs, lhs_batch);
  ExtendedBatchDims(rhs, rhs_batch);
  ExtendedBatchDims(output, output_batch);
  float* output_data = tflite::GetTensorData<float>(output);
  for (int b0 = 0; b0 < output_batch[0]; ++b0) {
    for (int b1 = 0; b1 < output_batch[1]; ++b1) {
      for (int b2 = 0; b2 < output_batch[2]; ++b2) {
        const int64_t lhs_index = BroadcastMatrixIndex(lhs_batch, b0, b1, b2);
        const int64_t rhs_index = BroadcastMatrixIndex(rhs_batch, b0, b1, b2);
        const int8_t* rhs_ptr = rhs_data + rhs_index * cols * accum_depth;
        float* output_ptr = output_data + BroadcastMatrixIndex(output_batch, b0, b1, b2) * int64_t{rows} * cols;
        for (int i = 0; i < rows; ++i) {
          const int64_t r = lhs_index * rows + i;
          const int8_t* quantized = data.quantized_lhs.data() + r * accum_depth;
          for (int j = 0; j < cols; ++j) {
            int32_t total = 0;
            for (int k = 0; k < accum_depth; ++k) {
              total += quantized[k] * rhs_ptr[k * rhs_depth_stride + j * rhs_col_stride];
            }
            if (asymmetric) {
              total = quantization_util::TruncateToInt32LikeX86(
                  static_cast<float>(total) - static_cast<float>(data.column_sums[rhs_index * cols + j]) *
                                                  static_cast<float>(data.input_offsets[r]));
            }
            output_ptr[static_cast<int64_t>(i) * cols + j] = 0.f + data.scaling_factors[r] * static_cast<float>(total);
          }
        }
      }
    }
  }
}

template <typename T>
void BatchMatMulQuantized(const TfLiteBatchMatMulParams& params, const BatchMatMulData& data, const TfLiteTensor* lhs,
                          const TfLiteTensor* rhs, TfLiteTensor* output) {
  const int32_t output_offset = output->params.zero_point;
  BatchMatMulImpl<T, int64_t, T>(params, lhs, rhs, output, OffsetOf(lhs), OffsetOf(rhs), [&](int64_t total) {
    return nn::RequantizeOutput<T>(data.stage, data.requantization, total, 0, output_offset);
  });
}

TfLiteStatus BatchMatMulEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteBatchMatMulParams>(node);
  auto& data = *static_cast<BatchMatMulData*>(node->user_data);
  const TfLiteTensor* lhs = tflite::GetInput(context, node, 0);
  const TfLiteTensor* rhs = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::NumElements(output) == 0) return kTfLiteOk;  // an empty batch, row or column dimension
  if (data.hybrid) {
    BatchMatMulHybrid(params, data, lhs, rhs, output);
    return kTfLiteOk;
  }
  switch (lhs->type) {
    case kTfLiteFloat32:
      BatchMatMulImpl<float, float, float>(params, lhs, rhs, output, 0, 0, [](float total) { return total; });
      return kTfLiteOk;
    case kTfLiteInt8:
      BatchMatMulQuantized<int8_t>(params, data, lhs, rhs, output);
      return kTfLiteOk;
    case kTfLiteInt16:
      BatchMatMulQuantized<int16_t>(params, data, lhs, rhs, output);
      return kTfLiteOk;
    default:
      TF_LITE_KERNEL_LOG(context, "input 0 has unsupported type %s", TfLiteTypeGetName(lhs->type));
      return kTfLiteError;
  }
}

}  // namespace

TS_REGISTER(FULLY_CONNECTED, NewNodeData<FullyConnectedData>, DeleteNodeData<FullyConnectedData>, FullyConnectedPrepare,
            FullyConnectedEval)
TS_REGISTER(BATCH_MATMUL, NewNodeData<BatchMatMulData>, DeleteNodeData<BatchMatMulData>, BatchMatMulPrepare,
            BatchMatMulEval)

}  // namespace reference
}  // namespace touchstone
