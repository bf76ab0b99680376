// SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION, computing what
// TensorFlow Lite 2.14.1 computes (tensorflow/lite/kernels/{activations,l2norm,
// local_response_norm}.cc and the kernels they call). All normalize along the last dimension.
// Quantized forms, bit-exact with TFLite's default (optimized) kernels:
// - SOFTMAX uint8/int8 input (output of the same type, or int16): a 256-entry float table of
//   exp(-input_scale * beta * d) indexed by the distance d to the row's maximum, summed in float
//   (optimized_ops::Softmax with PopulateSoftmaxLookupTable).
// - SOFTMAX int16: the exp and 1/(1+x) 513-entry int16 tables with linear interpolation
//   (reference_ops::SoftmaxInt16).
// - LOG_SOFTMAX uint8/int8: the same float exp table, log of the sum in float, rounded with rint
//   (optimized_ops::LogSoftmax).
// - L2_NORMALIZATION uint8/int8: 1/sqrt(sum of squares) as a fixed-point multiplier (the optimized
//   uint8 kernel, and the reference int8 one TFLite uses for every kernel type).
// LOCAL_RESPONSE_NORMALIZATION is float32 only, as in TFLite.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/softmax_8bit.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

// Counts, the two tensors, and a rank within [min_rank, max_rank]: what every op here checks first.
TfLiteStatus GetTensors(TfLiteContext* context, TfLiteNode* node, int min_rank, int max_rank,
                        const TfLiteTensor** input, TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {input}, {output}));
  return CheckRankBetween(context, *input, "input 0", min_rank, max_rank);
}

TfLiteStatus ResizeToInput(TfLiteContext* context, const TfLiteTensor* input, TfLiteTensor* output) {
  return context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims));
}

// Refuses an input type with the list of the types the op takes.
TfLiteStatus RefuseInputType(TfLiteContext* context, const TfLiteTensor* input, const char* supported) {
  TF_LITE_KERNEL_LOG(context, "input 0 has type %s; supported are %s", TfLiteTypeGetName(input->type), supported);
  return kTfLiteError;
}

// A quantized output whose scale and zero point the kernel's fixed output format requires.
TfLiteStatus CheckOutputQuantization(TfLiteContext* context, const TfLiteTensor* output, double scale,
                                     int32_t zero_point) {
  if (output->params.scale == scale && output->params.zero_point == zero_point) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context,
                     "output 0 has scale %g and zero point %d; a %s output of this op needs scale "
                     "%g and zero point %d",
                     static_cast<double>(output->params.scale), output->params.zero_point,
                     TfLiteTypeGetName(output->type), scale, zero_point);
  return kTfLiteError;
}

// LOG_SOFTMAX and L2_NORMALIZATION take FLOAT32, and UINT8 and INT8 with a fixed output format.
using FloatOr8Bit = TypeList<float, uint8_t, int8_t>;
constexpr char kFloatOr8BitNames[] = "FLOAT32, UINT8 and INT8";

// The tensors of an op taking FloatOr8Bit inputs of rank 1 to `max_rank` and giving an output of
// the input's type; an 8-bit output must have the format the kernel produces: `scale`, and zero
// point `uint8_zero_point` (uint8) or `int8_zero_point` (int8).
TfLiteStatus GetFloatOr8BitTensors(TfLiteContext* context, TfLiteNode* node, int max_rank, double scale,
                                   int32_t uint8_zero_point, int32_t int8_zero_point, const TfLiteTensor** input,
                                   TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, GetTensors(context, node, 1, max_rank, input, output));
  const TfLiteType type = (*input)->type;
  if (!IsOneOf(FloatOr8Bit(), type)) return RefuseInputType(context, *input, kFloatOr8BitNames);
  TF_LITE_ENSURE_OK(context, CheckType(context, *output, "output 0", type));
  if (type == kTfLiteFloat32) return kTfLiteOk;
  return CheckOutputQuantization(context, *output, scale, type == kTfLiteUInt8 ? uint8_zero_point : int8_zero_point);
}

// eval(T(), input, output) for the node's input 0 and output 0, T the input's FloatOr8Bit type.
template <typename Eval>
TfLiteStatus EvalFloatOr8Bit(TfLiteContext* context, TfLiteNode* node, Eval eval) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  return DispatchType(
      FloatOr8Bit(), input->type,
      [&](auto type) {
        eval(type, input, output);
        return kTfLiteOk;
      },
      [&] { return RefuseInputType(context, input, kFloatOr8BitNames); });
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

// Calls fn(in, out, depth) for each row of the input and the same row of the output.
template <typename In, typename Out, typename Fn>
void ForEachRow(const TfLiteTensor* input, TfLiteTensor* output, Fn fn) {
  const Rows rows = RowsOf(input);
  const In* input_data = tflite::GetTensorData<In>(input);
  Out* output_data = tflite::GetTensorData<Out>(output);
  for (int64_t i = 0; i < rows.outer; ++i) {
    fn(input_data + i * rows.depth, output_data + i * rows.depth, rows.depth);
  }
}

// What Prepare computes for the quantized SOFTMAX and LOG_SOFTMAX kernels.
struct SoftmaxData {
  // 8-bit inputs: exp_table[255 - d] = exp(-input_scale * beta * d), d = distance to the row max.
  float exp_table[256] = {};
  float input_scale = 0.f;
  float output_scale = 0.f;
  int32_t output_zero_point = 0;
  // int16 inputs: exp on [-10, 0] and 1/(1+x) on [0, 1], 512 segments each plus an end point, and
  // the multiplier that maps input differences onto the exp table's [-65535, 0] domain.
  int16_t exp_lut[513] = {};
  int16_t one_over_one_plus_x_lut[513] = {};
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
  std::vector<int16_t> row_exps;  // Scratch: one row's exp values.
};

// ---- SOFTMAX: exp(beta * (x - max)) / sum, per row.

// The 8-bit input's table and the output's format. TFLite requires int8 -> int8 to produce
// probabilities in 1/256 steps from -128; uint8 and int16 outputs take any quantization.
TfLiteStatus PrepareSoftmax8Bit(TfLiteContext* context, float beta, const TfLiteTensor* input,
                                const TfLiteTensor* output, SoftmaxData* data) {
  if (output->type != input->type && output->type != kTfLiteInt16) {
    TF_LITE_KERNEL_LOG(context, "output 0 has type %s; with a %s input it must be %s or INT16",
                       TfLiteTypeGetName(output->type), TfLiteTypeGetName(input->type), TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt8 && output->type == kTfLiteInt8) {
    const float expected_scale = 1.f / 256;
    if (output->params.zero_point != -128 ||
        std::fabs(output->params.scale - expected_scale) > 0.001f * expected_scale) {
      TF_LITE_KERNEL_LOG(context,
                         "output 0 has scale %g and zero point %d; an INT8 softmax needs 1/256 "
                         "and -128",
                         static_cast<double>(output->params.scale), output->params.zero_point);
      return kTfLiteError;
    }
  }
  softmax_8bit::PopulateSoftmaxLookupTable(input->params.scale, beta, data->exp_table);
  data->output_scale = output->params.scale;
  data->output_zero_point = output->params.zero_point;
  return kTfLiteOk;
}

// int16 -> int16: symmetric input, output in 1/32768 steps from 0, rank at most 4.
TfLiteStatus PrepareSoftmaxInt16(TfLiteContext* context, float beta, const TfLiteTensor* input,
                                 const TfLiteTensor* output, SoftmaxData* data) {
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteInt16));
  TF_LITE_ENSURE_OK(context, CheckRankBetween(context, input, "input 0", 1, 4));
  const float expected_scale = 1.f / 32768;
  if (input->params.zero_point != 0 || output->params.zero_point != 0 ||
      std::fabs(output->params.scale - expected_scale) > 0.001f * expected_scale) {
    TF_LITE_KERNEL_LOG(context,
                       "an INT16 softmax needs zero points 0 and output scale 1/32768; got input "
                       "zero point %d, output zero point %d, output scale %g",
                       input->params.zero_point, output->params.zero_point, static_cast<double>(output->params.scale));
    return kTfLiteError;
  }
  constexpr int32_t kRange = std::numeric_limits<int16_t>::max() - std::numeric_limits<int16_t>::min();
  // exp matters on [-10, 0] only: exp(-10) adds nothing visible to a sum of Q0.15 values.
  quantization_util::PopulateLut16(
      10.0 / kRange, std::numeric_limits<int16_t>::max(), 2.0 / kRange, 0, [](double x) { return std::exp(x); },
      data->exp_lut);
  quantization_util::PopulateLut16(
      1.0 / kRange, std::numeric_limits<int16_t>::min(), 2.0 / kRange, 0, [](double x) { return 1.0 / (1.0 + x); },
      data->one_over_one_plus_x_lut);
  // Maps input differences so that [-65535, 0] stands for [-10, 0]. TFLite multiplies the two
  // floats in float before dividing in double.
  const float input_scale_beta = input->params.scale * beta;
  quantization_util::QuantizeMultiplier(static_cast<double>(input_scale_beta) / (10.0 / 65535.0),
                                        &data->input_multiplier, &data->input_left_shift);
  // The row's sum of Q0.15 exps must fit in 32 bits.
  const int depth = RowsOf(input).depth;
  if (depth > 65536) {
    TF_LITE_KERNEL_LOG(context, "input 0 has rows of %d elements; an INT16 softmax takes at most 65536", depth);
    return kTfLiteError;
  }
  data->row_exps.resize(depth);
  return kTfLiteOk;
}

TfLiteStatus SoftmaxPrepare(TfLiteContext* context, TfLiteNode* node) {
  const float beta = ParamsOf<TfLiteSoftmaxParams>(node).beta;
  auto* data = static_cast<SoftmaxData*>(node->user_data);
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetTensors(context, node, 1, std::numeric_limits<int>::max(), &input, &output));
  switch (input->type) {
    case kTfLiteFloat32:
      TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteFloat32));
      break;
    case kTfLiteUInt8:
    case kTfLiteInt8:
      TF_LITE_ENSURE_OK(context, PrepareSoftmax8Bit(context, beta, input, output, data));
      break;
    case kTfLiteInt16:
      TF_LITE_ENSURE_OK(context, PrepareSoftmaxInt16(context, beta, input, output, data));
      break;
    default:
      return RefuseInputType(context, input, "FLOAT32, UINT8, INT8 and INT16");
  }
  return ResizeToInput(context, input, output);
}

void SoftmaxFloat(float beta, const TfLiteTensor* input, TfLiteTensor* output) {
  ForEachRow<float, float>(input, output, [&](const float* in, float* out, int depth) {
    // Subtracting the row's maximum keeps exp from overflowing.
    float max = std::numeric_limits<float>::lowest();
    for (int c = 0; c < depth; ++c) max = std::max(max, in[c]);
    float sum = 0.f;
    for (int c = 0; c < depth; ++c) {
      out[c] = std::exp((in[c] - max) * beta);
      sum += out[c];
    }
    for (int c = 0; c < depth; ++c) out[c] = out[c] / sum;
  });
}

// 8-bit inputs: internal/softmax_8bit.h's rows.
template <typename In, typename Out>
void Softmax8Bit(const SoftmaxData& data, const TfLiteTensor* input, TfLiteTensor* output) {
  ForEachRow<In, Out>(input, output, [&](const In* in, Out* out, int depth) {
    softmax_8bit::Softmax8BitRow<In, Out>(data.exp_table, data.output_scale, data.output_zero_point, in, out, depth);
  });
}

// int16: reference_ops::SoftmaxInt16. exp of the rescaled differences from the exp table (Q0.15),
// their sum in Q16.15, its reciprocal from the 1/(1+x) table after normalizing the sum to [1, 2).
void SoftmaxInt16(SoftmaxData& data, const TfLiteTensor* input, TfLiteTensor* output) {
  int16_t* exps = data.row_exps.data();
  ForEachRow<int16_t, int16_t>(input, output, [&](const int16_t* in, int16_t* out, int depth) {
    int16_t max = std::numeric_limits<int16_t>::min();
    for (int c = 0; c < depth; ++c) max = std::max(max, in[c]);
    int32_t sum_of_exps = 0;
    for (int c = 0; c < depth; ++c) {
      const int32_t scaled_diff =
          quantization_util::MultiplyByQuantizedMultiplier(in[c] - max, data.input_multiplier, data.input_left_shift);
      // Recentred from [-65535, 0] onto the table's symmetric [-32768, 32767].
      const int32_t symmetric = std::min(std::max(scaled_diff + 32767, -32768), 32767);
      exps[c] = quantization_util::Lut16Lookup(static_cast<int16_t>(symmetric), data.exp_lut);
      sum_of_exps += exps[c];
    }
    // The row maximum contributes exp(0), so the sum is positive.
    const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(sum_of_exps));
    const int32_t shifted_sum =
        static_cast<int32_t>(((static_cast<int64_t>(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    // x = sum - 1 in [0, 1) as [0, 65535], recentred onto [-32768, 32767].
    const int32_t symmetric_sum = std::min(std::max(shifted_sum - ((1 << 15) + (1 << 16)), -32768), 32767);
    const int32_t reciprocal =
        quantization_util::Lut16Lookup(static_cast<int16_t>(symmetric_sum), data.one_over_one_plus_x_lut);
    const int right_shift = 31 - headroom_plus_one;
    const int64_t round = int64_t{1} << (right_shift - 1);
    for (int c = 0; c < depth; ++c) {
      const int32_t result = static_cast<int32_t>((static_cast<int64_t>(exps[c]) * reciprocal + round) >> right_shift);
      out[c] = static_cast<int16_t>(std::min(std::max(result, 0), 32767));
    }
  });
}

TfLiteStatus SoftmaxEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteSoftmaxParams>(node);
  auto& data = *static_cast<SoftmaxData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const TfLiteType in = input->type;
  const TfLiteType out = output->type;
  if (in == kTfLiteFloat32) {
    SoftmaxFloat(params.beta, input, output);
  } else if (in == kTfLiteUInt8 && out == kTfLiteUInt8) {
    Softmax8Bit<uint8_t, uint8_t>(data, input, output);
  } else if (in == kTfLiteUInt8 && out == kTfLiteInt16) {
    Softmax8Bit<uint8_t, int16_t>(data, input, output);
  } else if (in == kTfLiteInt8 && out == kTfLiteInt8) {
    Softmax8Bit<int8_t, int8_t>(data, input, output);
  } else if (in == kTfLiteInt8 && out == kTfLiteInt16) {
    Softmax8Bit<int8_t, int16_t>(data, input, output);
  } else if (in == kTfLiteInt16) {
    SoftmaxInt16(data, input, output);
  } else {
    TF_LITE_KERNEL_LOG(context, "input 0 (%s) and output 0 (%s) are a pair Prepare did not accept",
                       TfLiteTypeGetName(in), TfLiteTypeGetName(out));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// ---- LOG_SOFTMAX: x - max - log(sum(exp(x - max))), per row. The 8-bit forms output in 16/256
// steps, from 255 (uint8) or 127 (int8) down.

TfLiteStatus LogSoftmaxPrepare(TfLiteContext* context, TfLiteNode* node) {
  auto* data = static_cast<SoftmaxData*>(node->user_data);
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetFloatOr8BitTensors(context, node, std::numeric_limits<int>::max(), 16.0 / 256, 255, 127,
                                                   &input, &output));
  if (input->type != kTfLiteFloat32) {
    softmax_8bit::PopulateSoftmaxLookupTable(input->params.scale, 1.0f, data->exp_table);
    data->input_scale = input->params.scale;
    data->output_scale = output->params.scale;
    data->output_zero_point = output->params.zero_point;
  }
  return ResizeToInput(context, input, output);
}

void LogSoftmaxFloat(const TfLiteTensor* input, TfLiteTensor* output) {
  ForEachRow<float, float>(input, output, [&](const float* in, float* out, int depth) {
    float max = std::numeric_limits<float>::lowest();
    for (int c = 0; c < depth; ++c) max = std::max(max, in[c]);
    float sum = 0.f;
    for (int c = 0; c < depth; ++c) sum += std::exp(in[c] - max);
    const float log_sum = std::log(sum);
    for (int c = 0; c < depth; ++c) out[c] = in[c] - max - log_sum;
  });
}

// optimized_ops::LogSoftmax for 8-bit types: the sum of exps from the table, its log, and each
// output as (input_scale * (x - max) - log_sum) / output_scale computed in float as TFLite
// arranges it, rounded with rint.
template <typename T>
void LogSoftmax8Bit(const SoftmaxData& data, const TfLiteTensor* input, TfLiteTensor* output) {
  const float scale = data.input_scale / data.output_scale;
  ForEachRow<T, T>(input, output, [&](const T* in, T* out, int depth) {
    T max = std::numeric_limits<T>::min();
    for (int c = 0; c < depth; ++c) max = std::max(max, in[c]);
    float sum_exp = 0.f;
    for (int c = 0; c < depth; ++c) sum_exp += data.exp_table[255 - (max - in[c])];
    const float log_sum_exp = std::log(sum_exp);
    const float precomputed = (data.input_scale * max + log_sum_exp) / data.output_scale;
    for (int c = 0; c < depth; ++c) {
      const float log_prob = scale * in[c] - precomputed;
      const int32_t quantized = quantization_util::TruncateToInt32LikeX86(std::rint(log_prob) + data.output_zero_point);
      out[c] = static_cast<T>(std::min<int32_t>(std::max<int32_t>(quantized, std::numeric_limits<T>::min()),
                                                std::numeric_limits<T>::max()));
    }
  });
}

TfLiteStatus LogSoftmaxEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& data = *static_cast<const SoftmaxData*>(node->user_data);
  return EvalFloatOr8Bit(context, node, [&](auto type, const TfLiteTensor* input, TfLiteTensor* output) {
    using T = decltype(type);
    if constexpr (std::is_same_v<T, float>) {
      LogSoftmaxFloat(input, output);
    } else {
      LogSoftmax8Bit<T>(data, input, output);
    }
  });
}

// ---- L2_NORMALIZATION: x / max(sqrt(sum(x^2)), 1e-6) per row. TFLite takes inputs of rank up to
// 4 and refuses a fused activation ("our implementations don't support activations"). The 8-bit
// forms output in 1/128 steps around 128 (uint8) or 0 (int8).

constexpr float kL2NormEpsilon = 1e-6f;

TfLiteStatus L2NormPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteL2NormParams>(node);
  if (params.activation != kTfLiteActNone) {
    TF_LITE_KERNEL_LOG(context, "fused activation %d is not supported; only NONE is",
                       static_cast<int>(params.activation));
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetFloatOr8BitTensors(context, node, 4, 1.0 / 128, 128, 0, &input, &output));
  return ResizeToInput(context, input, output);
}

void L2NormFloat(const TfLiteTensor* input, TfLiteTensor* output) {
  ForEachRow<float, float>(input, output, [&](const float* in, float* out, int depth) {
    float squared_l2_norm = 0.f;
    for (int c = 0; c < depth; ++c) squared_l2_norm += in[c] * in[c];
    const float l2_norm = std::max(std::sqrt(squared_l2_norm), kL2NormEpsilon);
    for (int c = 0; c < depth; ++c) out[c] = in[c] / l2_norm;
  });
}

// 8-bit rows: each element's difference from the zero point goes through rescale(diff,
// multiplier, shift) with the row's 1/sqrt(sum of squared differences) as a multiplier and a
// (non-positive) exponent. A sum of 0 or 1 gives the largest multiplier, so no epsilon is needed.
template <typename T, typename Rescale>
void L2Norm8Bit(const TfLiteTensor* input, TfLiteTensor* output, Rescale rescale) {
  const int32_t zero_point = input->params.zero_point;
  ForEachRow<T, T>(input, output, [&](const T* in, T* out, int depth) {
    int32_t sum_of_squares = 0;
    for (int c = 0; c < depth; ++c) {
      const int32_t diff = in[c] - zero_point;
      sum_of_squares = quantization_util::WrappingAdd(sum_of_squares, diff * diff);
    }
    int32_t multiplier;
    int shift;
    quantization_util::GetInvSqrtQuantizedMultiplierExp(sum_of_squares, /*reverse_shift=*/-1, &multiplier, &shift);
    for (int c = 0; c < depth; ++c) out[c] = rescale(in[c] - zero_point, multiplier, shift);
  });
}

// uint8 (optimized_ops::L2Normalization): 128 * diff scaled by the multiplier, plus 128.
void L2NormUInt8(const TfLiteTensor* input, TfLiteTensor* output) {
  L2Norm8Bit<uint8_t>(input, output, [](int32_t diff, int32_t multiplier, int shift) {
    // MultiplyByQuantizedMultiplierSmallerThanOneExp: the shift is zero or negative.
    const int32_t rescaled = quantization_util::RoundingDivideByPOT(
        quantization_util::SaturatingRoundingDoublingHighMul(128 * diff, multiplier), -shift);
    return static_cast<uint8_t>(std::min(std::max(128 + rescaled, 0), 255));
  });
}

// int8 (reference_integer_ops::L2Normalization): diff scaled by the multiplier with 7 more bits of
// left shift, which places the result in 1/128 steps.
void L2NormInt8(const TfLiteTensor* input, TfLiteTensor* output) {
  L2Norm8Bit<int8_t>(input, output, [](int32_t diff, int32_t multiplier, int shift) {
    const int32_t scaled = quantization_util::MultiplyByQuantizedMultiplier(diff, multiplier, shift + 7);
    return static_cast<int8_t>(std::min(std::max(scaled, -128), 127));
  });
}

TfLiteStatus L2NormEval(TfLiteContext* context, TfLiteNode* node) {
  return EvalFloatOr8Bit(context, node, [](auto type, const TfLiteTensor* input, TfLiteTensor* output) {
    using T = decltype(type);
    if constexpr (std::is_same_v<T, float>) {
      L2NormFloat(input, output);
    } else if constexpr (std::is_same_v<T, uint8_t>) {
      L2NormUInt8(input, output);
    } else {
      L2NormInt8(input, output);
    }
  });
}

// ---- LOCAL_RESPONSE_NORMALIZATION on a 4-D input: each channel c is scaled by
// (bias + alpha * sum of squares over channels [c - radius, c + radius]) ^ -beta. TFLite has only a
// float32 kernel.

TfLiteStatus LocalResponseNormPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteLocalResponseNormParams>(node);
  if (params.radius < 0) {
    TF_LITE_KERNEL_LOG(context, "radius %d is negative", params.radius);
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetTensors(context, node, 4, 4, &input, &output));
  if (input->type != kTfLiteFloat32) {
    return RefuseInputType(context, input, "FLOAT32 only (TFLite has no quantized kernel)");
  }
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteFloat32));
  return ResizeToInput(context, input, output);
}

void LocalResponseNormFloat(const TfLiteLocalResponseNormParams& params, const TfLiteTensor* input,
                            TfLiteTensor* output) {
  ForEachRow<float, float>(input, output, [&](const float* in, float* out, int depth) {
    for (int c = 0; c < depth; ++c) {
      const int begin = std::max(0, c - params.radius);
      const int end = std::min(depth, c + params.radius + 1);
      float sum_squares = 0.f;
      for (int k = begin; k < end; ++k) sum_squares += in[k] * in[k];
      out[c] = in[c] * std::pow(params.bias + params.alpha * sum_squares, -params.beta);
    }
  });
}

TfLiteStatus LocalResponseNormEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& params = ParamsOf<TfLiteLocalResponseNormParams>(node);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  LocalResponseNormFloat(params, input, output);
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(SOFTMAX, NewNodeData<SoftmaxData>, DeleteNodeData<SoftmaxData>, SoftmaxPrepare, SoftmaxEval)
TS_REGISTER(LOG_SOFTMAX, NewNodeData<SoftmaxData>, DeleteNodeData<SoftmaxData>, LogSoftmaxPrepare, LogSoftmaxEval)
TS_REGISTER(L2_NORMALIZATION, L2NormPrepare, L2NormEval)
TS_REGISTER(LOCAL_RESPONSE_NORMALIZATION, LocalResponseNormPrepare, LocalResponseNormEval)

}  // namespace reference
}  // namespace touchstone
