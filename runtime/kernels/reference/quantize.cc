// Reference kernels for the conversions between float and quantized tensors (QUANTIZE, DEQUANTIZE)
// and for expanding sparse constant weights (DENSIFY), with TensorFlow Lite 2.14.1's semantics
// (tensorflow/lite/kernels/quantize.cc, dequantize.cc/.h, densify.cc and the internal reference and
// optimized routines they call on x86-64 builds).
//
// Rounding is what TFLite's built-in kernels compute on x86-64, byte for byte:
// - QUANTIZE float -> int, per tensor (optimized_ops::AffineQuantize, the default kernel): the float
//   is divided by the scale in double precision, rounded half away from zero, converted to int32
//   (NaN and out-of-range values give INT32_MIN, as cvttsd2si does), offset by the zero point
//   (wrapping) and clamped to the output type.
// - QUANTIZE float -> int, per channel (reference_ops::PerChannelQuantize): float division by the
//   channel's scale, rounded half away from zero, offset and clamped in double precision.
// - QUANTIZE int -> int (Requantize): subtract the input zero point, apply the fixed-point multiplier
//   input_scale / output_scale (double rounding), add the output zero point, clamp.
// - DEQUANTIZE per tensor: float(double(scale) * (q - zero_point)); per channel:
//   float(scale[c]) * float(q - zero_point[c]); float16: exact IEEE half -> float.
// DEQUANTIZE of a constant (or persistent) input and DENSIFY compute their output once, in
// Prepare, into a kTfLitePersistentRo tensor: the float16 / sparse weights of MediaPipe models.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/sparsity.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace reference {
namespace {

using quantization_util::MultiplyByQuantizedMultiplier;
using quantization_util::QuantizeMultiplier;
using quantization_util::TruncateToInt32LikeX86;
using quantization_util::WrappingAdd;
using quantization_util::WrappingSub;

// ---------------------------------------------------------------------------------------------
// Common helpers.

TfLiteStatus CheckOneInOneOut(TfLiteContext* context, const TfLiteNode* node) {
  if (tflite::NumInputs(node) != 1 || tflite::NumOutputs(node) != 1) {
    TF_LITE_KERNEL_LOG(context, "expected 1 input and 1 output, got %d and %d", tflite::NumInputs(node),
                       tflite::NumOutputs(node));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// A per-channel tensor needs one scale and zero point per entry of its quantized dimension.
TfLiteStatus CheckPerChannelParams(TfLiteContext* context, const TfLiteTensor* t, const char* which) {
  const TfLiteAffineQuantization* q = AffineQuantization(t);
  const int rank = tflite::NumDimensions(t);
  const int axis = q->quantized_dimension;
  if (axis < 0 || axis >= rank) {
    TF_LITE_KERNEL_LOG(context, "%s quantized_dimension %d is out of range for a %d-D tensor", which, axis, rank);
    return kTfLiteError;
  }
  if (q->scale->size != t->dims->data[axis] || q->zero_point == nullptr || q->zero_point->size != q->scale->size) {
    TF_LITE_KERNEL_LOG(context, "%s has %d scales and %d zero points for %d channels", which, q->scale->size,
                       q->zero_point != nullptr ? q->zero_point->size : 0, t->dims->data[axis]);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Calls fn(index, channel) over a tensor's elements in row-major order, where channel is the
// element's index along `axis`.
template <typename Fn>
void ForEachWithChannel(const TfLiteIntArray* dims, int axis, Fn fn) {
  const int64_t channels = dims->data[axis];
  int64_t inner = 1;
  for (int d = axis + 1; d < dims->size; ++d) inner *= dims->data[d];
  const int64_t total = tflite::NumElements(dims);
  for (int64_t i = 0; i < total; ++i) fn(i, static_cast<int>((i / inner) % channels));
}

template <typename T>
T ClampTo(int32_t value) {
  return static_cast<T>(
      std::min<int32_t>(std::max<int32_t>(value, std::numeric_limits<T>::min()), std::numeric_limits<T>::max()));
}

// ---------------------------------------------------------------------------------------------
// QUANTIZE.

struct QuantizeData {
  int32_t multiplier = 0;  // input_scale / output_scale, for requantization
  int shift = 0;
};

template <typename T>
void AffineQuantize(const float* input, int64_t count, float scale, int32_t zero_point, T* output) {
  const double scale_double = static_cast<double>(scale);
  for (int64_t i = 0; i < count; ++i) {
    const int32_t rounded = TruncateToInt32LikeX86(std::round(input[i] / scale_double));
    output[i] = ClampTo<T>(WrappingAdd(rounded, zero_point));
  }
}

template <typename T>
void PerChannelQuantize(const TfLiteTensor* input, const TfLiteAffineQuantization& q, T* output) {
  const float* in = tflite::GetTensorData<float>(input);
  const double lowest = std::numeric_limits<T>::min();
  const double highest = std::numeric_limits<T>::max();
  ForEachWithChannel(input->dims, q.quantized_dimension, [&](int64_t i, int c) {
    const double unclamped =
        static_cast<double>(std::round(in[i] / q.scale->data[c])) + static_cast<double>(q.zero_point->data[c]);
    // NaN survives the clamp; x86 converts it to the integer-indefinite value, whose low bits are 0.
    output[i] = std::isnan(unclamped) ? T(0) : static_cast<T>(std::min(std::max(unclamped, lowest), highest));
  });
}

template <typename In, typename Out>
void Requantize(const In* input, int64_t count, const QuantizeData& data, int32_t input_zero_point,
                int32_t output_zero_point, Out* output) {
  for (int64_t i = 0; i < count; ++i) {
    const int32_t centered = WrappingSub(static_cast<int32_t>(input[i]), input_zero_point);
    const int32_t scaled = MultiplyByQuantizedMultiplier(centered, data.multiplier, data.shift);
    output[i] = ClampTo<Out>(WrappingAdd(scaled, output_zero_point));
  }
}

template <typename In>
TfLiteStatus RequantizeFrom(TfLiteContext* context, const TfLiteTensor* input, TfLiteTensor* output,
                            const QuantizeData& data) {
  const In* in = tflite::GetTensorData<In>(input);
  const int64_t count = tflite::NumElements(input);
  const int32_t in_zp = input->params.zero_point;
  const int32_t out_zp = output->params.zero_point;
  switch (output->type) {
    case kTfLiteInt8:
      Requantize(in, count, data, in_zp, out_zp, tflite::GetTensorData<int8_t>(output));
      return kTfLiteOk;
    case kTfLiteUInt8:
      Requantize(in, count, data, in_zp, out_zp, tflite::GetTensorData<uint8_t>(output));
      return kTfLiteOk;
    case kTfLiteInt16:
      Requantize(in, count, data, in_zp, out_zp, tflite::GetTensorData<int16_t>(output));
      return kTfLiteOk;
    case kTfLiteInt32:
      Requantize(in, count, data, in_zp, out_zp, tflite::GetTensorData<int32_t>(output));
      return kTfLiteOk;
    default:
      TF_LITE_KERNEL_LOG(context, "cannot requantize to %s", TfLiteTypeGetName(output->type));
      return kTfLiteError;
  }
}

// The conversions TFLite 2.14's QUANTIZE accepts.
bool QuantizeSupports(TfLiteType in, TfLiteType out) {
  switch (in) {
    case kTfLiteFloat32:
      return out == kTfLiteUInt8 || out == kTfLiteInt8 || out == kTfLiteInt16;
    case kTfLiteInt16:
      return out == kTfLiteInt8 || out == kTfLiteInt16 || out == kTfLiteInt32;
    case kTfLiteInt32:
      return out == kTfLiteInt8 || out == kTfLiteInt16;
    case kTfLiteInt8:
    case kTfLiteUInt8:
      return out == kTfLiteUInt8 || out == kTfLiteInt8;
    default:
      return false;
  }
}

TfLiteStatus QuantizePrepare(TfLiteContext* context, TfLiteNode* node) {
  auto* data = static_cast<QuantizeData*>(node->user_data);
  TF_LITE_ENSURE_OK(context, CheckOneInOneOut(context, node));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));

  if (AffineQuantization(output) == nullptr) {
    TF_LITE_KERNEL_LOG(context, "output has no quantization parameters");
    return kTfLiteError;
  }
  if (!QuantizeSupports(input->type, output->type)) {
    TF_LITE_KERNEL_LOG(context, "input type %s with output type %s is not supported", TfLiteTypeGetName(input->type),
                       TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (input->type == kTfLiteFloat32) {
    if (IsPerChannelQuantized(output)) TF_LITE_ENSURE_OK(context, CheckPerChannelParams(context, output, "output"));
  } else {
    // Requantization uses the per-tensor parameters (the first channel's, as TFLite does).
    QuantizeMultiplier(static_cast<double>(input->params.scale) / static_cast<double>(output->params.scale),
                       &data->multiplier, &data->shift);
  }
  if (input->type == kTfLiteInt16 && output->type == kTfLiteInt16 &&
      (input->params.zero_point != 0 || output->params.zero_point != 0)) {
    TF_LITE_KERNEL_LOG(context, "int16 requantization needs zero points of 0, got %d and %d", input->params.zero_point,
                       output->params.zero_point);
    return kTfLiteError;
  }
  return context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims));
}

TfLiteStatus QuantizeEval(TfLiteContext* context, TfLiteNode* node) {
  const auto& data = *static_cast<const QuantizeData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32: {
      if (IsPerChannelQuantized(output)) {
        const TfLiteAffineQuantization& q = *AffineQuantization(output);
        switch (output->type) {
          case kTfLiteInt8:
            PerChannelQuantize(input, q, tflite::GetTensorData<int8_t>(output));
            return kTfLiteOk;
          case kTfLiteUInt8:
            PerChannelQuantize(input, q, tflite::GetTensorData<uint8_t>(output));
            return kTfLiteOk;
          default:
            PerChannelQuantize(input, q, tflite::GetTensorData<int16_t>(output));
            return kTfLiteOk;
        }
      }
      const float* in = tflite::GetTensorData<float>(input);
      const int64_t count = tflite::NumElements(input);
      const float scale = output->params.scale;
      const int32_t zero_point = output->params.zero_point;
      switch (output->type) {
        case kTfLiteInt8:
          AffineQuantize(in, count, scale, zero_point, tflite::GetTensorData<int8_t>(output));
          return kTfLiteOk;
        case kTfLiteUInt8:
          AffineQuantize(in, count, scale, zero_point, tflite::GetTensorData<uint8_t>(output));
          return kTfLiteOk;
        default:
          AffineQuantize(in, count, scale, zero_point, tflite::GetTensorData<int16_t>(output));
          return kTfLiteOk;
      }
    }
    case kTfLiteInt8:
      return RequantizeFrom<int8_t>(context, input, output, data);
    case kTfLiteUInt8:
      return RequantizeFrom<uint8_t>(context, input, output, data);
    case kTfLiteInt16:
      return RequantizeFrom<int16_t>(context, input, output, data);
    case kTfLiteInt32:
      return RequantizeFrom<int32_t>(context, input, output, data);
    default:
      TF_LITE_KERNEL_LOG(context, "cannot quantize from %s", TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
}

// ---------------------------------------------------------------------------------------------
// DEQUANTIZE.

template <typename T>
void DequantizePerTensor(const T* input, int64_t count, float scale, int32_t zero_point, float* output) {
  const double scale_double = static_cast<double>(scale);
  for (int64_t i = 0; i < count; ++i) {
    output[i] = static_cast<float>(scale_double * WrappingSub(static_cast<int32_t>(input[i]), zero_point));
  }
}

template <typename T>
void DequantizePerChannel(const TfLiteTensor* input, float* output) {
  const TfLiteAffineQuantization& q = *AffineQuantization(input);
  const T* in = tflite::GetTensorData<T>(input);
  ForEachWithChannel(input->dims, q.quantized_dimension, [&](int64_t i, int c) {
    const int32_t centered = WrappingSub(static_cast<int32_t>(in[i]), q.zero_point->data[c]);
    output[i] = q.scale->data[c] * static_cast<float>(centered);
  });
}

// Writes the float form of `input` into `output` (same element count); types checked in Prepare.
void Dequantize(const TfLiteTensor* input, TfLiteTensor* output) {
  float* out = tflite::GetTensorData<float>(output);
  const int64_t count = tflite::NumElements(input);
  if (count == 0) return;
  if (input->type == kTfLiteFloat16) {
    const auto* in = reinterpret_cast<const uint16_t*>(input->data.raw);
    float16::HalfsToFloats(in, count, out);
    return;
  }
  if (IsPerChannelQuantized(input)) {
    if (input->type == kTfLiteInt8) {
      DequantizePerChannel<int8_t>(input, out);
    } else {
      DequantizePerChannel<uint8_t>(input, out);
    }
    return;
  }
  const float scale = input->params.scale;
  const int32_t zero_point = input->params.zero_point;
  switch (input->type) {
    case kTfLiteUInt8:
      DequantizePerTensor(tflite::GetTensorData<uint8_t>(input), count, scale, zero_point, out);
      break;
    case kTfLiteInt8:
      DequantizePerTensor(tflite::GetTensorData<int8_t>(input), count, scale, zero_point, out);
      break;
    default:
      DequantizePerTensor(tflite::GetTensorData<int16_t>(input), count, scale, zero_point, out);
      break;
  }
}

// Values known at Prepare: a constant, or a tensor its producer filled in its own Prepare
// (kTfLitePersistentRo, e.g. DENSIFY's output).
bool IsPrecomputable(const TfLiteTensor* t) { return tflite::IsConstantOrPersistentTensor(t); }

TfLiteStatus DequantizePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckOneInOneOut(context, node));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));

  if (input->type != kTfLiteUInt8 && input->type != kTfLiteInt8 && input->type != kTfLiteInt16 &&
      input->type != kTfLiteFloat16) {
    TF_LITE_KERNEL_LOG(context, "input has type %s, expected UINT8, INT8, INT16 or FLOAT16",
                       TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (input->type == kTfLiteInt16 && input->params.zero_point != 0) {
    TF_LITE_KERNEL_LOG(context, "int16 input needs zero point 0, got %d", input->params.zero_point);
    return kTfLiteError;
  }
  if (IsPerChannelQuantized(input)) {
    if (input->type != kTfLiteInt8 && input->type != kTfLiteUInt8) {
      TF_LITE_KERNEL_LOG(context, "per-channel dequantization of %s is not supported", TfLiteTypeGetName(input->type));
      return kTfLiteError;
    }
    TF_LITE_ENSURE_OK(context, CheckPerChannelParams(context, input, "input"));
  }

  output->type = kTfLiteFloat32;
  const bool precompute = IsPrecomputable(input);
  if (precompute) tflite::SetTensorToPersistentRo(output);
  TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims)));
  if (precompute) {
    Dequantize(input, output);
    // The output holds the values from here on (a later Prepare reads the input again).
    ConstantCopied(context, input->data.raw, input->bytes);
  }
  return kTfLiteOk;
}

TfLiteStatus DequantizeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (!IsPrecomputable(input)) Dequantize(input, output);
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// DENSIFY.

TfLiteStatus DensifyPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckOneInOneOut(context, node));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, 0, &input));
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));

  if (!tflite::IsConstantTensor(input) || input->sparsity == nullptr) {
    TF_LITE_KERNEL_LOG(context, "input must be a sparse constant tensor");
    return kTfLiteError;
  }
  if (input->type != kTfLiteFloat32 && input->type != kTfLiteFloat16 && input->type != kTfLiteInt8) {
    TF_LITE_KERNEL_LOG(context, "input has type %s, expected FLOAT32, FLOAT16 or INT8", TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  output->type = input->type;
  tflite::SetTensorToPersistentRo(output);
  TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims)));
  std::string error;
  if (!sparsity::SparseToDense(*input->sparsity, input->dims, tflite::TfLiteTypeGetSize(input->type), input->data.raw,
                               input->bytes, output->data.raw, output->bytes, &error)) {
    TF_LITE_KERNEL_LOG(context, "input %s", error.c_str());
    return kTfLiteError;
  }
  // The dense output holds the values from here on (a later Prepare reads the input again).
  ConstantCopied(context, input->data.raw, input->bytes);
  return kTfLiteOk;
}

// The dense weights were written in Prepare.
TfLiteStatus DensifyEval(TfLiteContext*, TfLiteNode*) { return kTfLiteOk; }

}  // namespace

TS_REGISTER(QUANTIZE, NewNodeData<QuantizeData>, DeleteNodeData<QuantizeData>, QuantizePrepare, QuantizeEval)
TS_REGISTER(DEQUANTIZE, DequantizePrepare, DequantizeEval)
TS_REGISTER(DENSIFY, DensifyPrepare, DensifyEval)

}  // namespace reference
}  // namespace touchstone
