// Reference activation kernels: TANH, LOGISTIC, RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1,
// LEAKY_RELU, PRELU, HARD_SWISH, ELU and GELU (helpers in elementwise_util.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/elementwise_broadcast.h"
#include "runtime/kernels/internal/elementwise_quant.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/internal/relu_bounds.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/elementwise_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace elementwise_ops;  // NOLINT(build/namespaces): the helpers of elementwise_util.h

// ================================================================================================
// Activations: TANH, LOGISTIC, RELU family, LEAKY_RELU, PRELU, HARD_SWISH, ELU, GELU.

bool TanhLogisticTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8 || t == kTfLiteInt16;
}

// int16 tanh/logistic: a power-of-two input scale of 2^-12 (tanh also 2^-11) goes through the
// fixed-point functions on Q3.12; any other scale is rescaled by input_multiplier / 2^shift onto
// the sigmoid table's scale. The output must be Q0.15.
TfLiteStatus PrepareInt16TanhLogistic(TfLiteContext* context, TfLiteNode* node, const char* op, bool tanh,
                                      const TfLiteTensor* in, const TfLiteTensor* out) {
  TF_LITE_ENSURE_OK(context, PrepareQuantizedUnaryOffsets(context, node, op, in, out));
  OpData* d = Data(node);
  int log2 = 0;
  bool pot = qu::CheckedLog2(in->params.scale, &log2);
  d->input_left_shift = (15 - 3) + log2;
  pot = pot && (d->input_left_shift == 0 || (tanh && d->input_left_shift == 1));
  d->input_multiplier = 0;
  if (!pot) {
    double multiplier = in->params.scale * 4096.0 * 3.0;
    d->input_left_shift = 0;
    while (multiplier <= 32767.0 / 2.0 && d->input_left_shift <= 30) {
      ++d->input_left_shift;
      multiplier *= 2.0;
    }
    d->input_multiplier = static_cast<int32_t>(multiplier);
  }
  int out_log2 = 0;
  TS_ENSURE(context, qu::CheckedLog2(out->params.scale, &out_log2) && out_log2 == -15,
            "%s: int16 output scale must be 1/32768 (got %g)", op, out->params.scale);
  return kTfLiteOk;
}

float TanhFloat(float x) { return std::tanh(x); }
float LogisticFloat(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TfLiteStatus PrepareTanh(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "TANH", TanhLogisticTypes, &in, &out));
  OpData* d = Data(node);
  if (in->type == kTfLiteUInt8 || in->type == kTfLiteInt8) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, "TANH", in, out));
    PopulateLut8(in, out, TanhFloat, d->lut8);
  } else if (in->type == kTfLiteInt16) {
    TF_LITE_ENSURE_OK(context, PrepareInt16TanhLogistic(context, node, "TANH", true, in, out));
  }
  return kTfLiteOk;
}

TfLiteStatus PrepareLogistic(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "LOGISTIC", TanhLogisticTypes, &in, &out));
  OpData* d = Data(node);
  if (in->type == kTfLiteUInt8 || in->type == kTfLiteInt8) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, "LOGISTIC", in, out));
    TS_ENSURE(context, out->params.scale == 1. / 256, "LOGISTIC: 8-bit output scale must be 1/256 (got %g)",
              out->params.scale);
    PopulateLut8(in, out, LogisticFloat, d->lut8);
  } else if (in->type == kTfLiteInt16) {
    TF_LITE_ENSURE_OK(context, RequireScale(context, out, "LOGISTIC", "output"));
    TS_ENSURE(context, out->params.scale == 1. / 32768 && out->params.zero_point == 0,
              "LOGISTIC: int16 output must have scale 1/32768 and zero point 0");
    TF_LITE_ENSURE_OK(context, PrepareInt16TanhLogistic(context, node, "LOGISTIC", false, in, out));
  }
  return kTfLiteOk;
}

// TANH (kTanh) or LOGISTIC: float directly, 8-bit through the table Prepare built, int16 through
// TFLite's table (a rescaled input) or its fixed-point function on Q3.12.
template <bool kTanh>
TfLiteStatus EvalTanhLogistic(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kTanh ? "TANH" : "LOGISTIC";
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, op, &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, kTanh ? TanhFloat : LogisticFloat);
    case kTfLiteUInt8:
    case kTfLiteInt8:
      return EvalLut(node, in, out);
    case kTfLiteInt16: {
      const OpData d = *Data(node);
      if (d.input_multiplier > 0) {
        return Unary<int16_t>(in, out, [&](int16_t x) {
          return kTanh ? elementwise::TanhInt16ByTable(x, d.input_multiplier, d.input_left_shift)
                       : elementwise::LogisticInt16ByTable(x, d.input_multiplier, d.input_left_shift);
        });
      }
      using F3 = fp::FixedPoint<int16_t, 3>;
      return Unary<int16_t>(in, out, [&](int16_t x) {
        if constexpr (kTanh) {
          const int16_t v = d.input_left_shift == 1 ? fp::SaturatingRoundingMultiplyByPOT<int16_t>(x, 1) : x;
          return fp::Tanh(F3::FromRaw(v)).raw;
        } else {
          return fp::Logistic(F3::FromRaw(x)).raw;
        }
      });
    }
    default:
      TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", op, TypeName(in->type));
      return kTfLiteError;
  }
}

// RELU family: clamp to [lo, hi]; quantized tensors are rescaled from the input's to the output's
// quantization and clamped to the quantized bounds.
template <ReluKind k>
struct ReluInfo;
template <>
struct ReluInfo<ReluKind::kRelu> {
  static constexpr const char* kName = "RELU";
  static constexpr bool kInt16 = true;
};
template <>
struct ReluInfo<ReluKind::kRelu6> {
  static constexpr const char* kName = "RELU6";
  static constexpr bool kInt16 = true;
};
template <>
struct ReluInfo<ReluKind::kReluN1To1> {
  static constexpr const char* kName = "RELU_N1_TO_1";
  static constexpr bool kInt16 = false;
};
template <>
struct ReluInfo<ReluKind::kRelu0To1> {
  static constexpr const char* kName = "RELU_0_TO_1";
  static constexpr bool kInt16 = false;
};

template <ReluKind k>
bool ReluTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8 || (ReluInfo<k>::kInt16 && t == kTfLiteInt16);
}

template <ReluKind k>
TfLiteStatus PrepareRelu(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ReluInfo<k>::kName;
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, op, ReluTypes<k>, &in, &out));
  if (in->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(context, PrepareQuantizedUnaryOffsets(context, node, op, in, out));
    OpData* d = Data(node);
    QuantizeMultiplier(in->params.scale / out->params.scale, &d->multiplier, &d->shift);
    int32_t qmin, qmax;
    TypeRange(out->type, &qmin, &qmax);
    const float scale = out->params.scale;
    const int32_t zp = out->params.zero_point;
    d->act_min = std::max(qmin, zp + static_cast<int32_t>(std::round(ReluLow(k) / scale)));
    d->act_max = std::isinf(ReluHigh(k))
                     ? qmax
                     : std::min(qmax, zp + static_cast<int32_t>(std::round(ReluHigh(k) / scale)));
  }
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus EvalReluQuantized(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData d = *Data(node);
  return Unary<T>(in, out, [&](T x) {
    const int32_t r = d.output_offset +
                      MultiplyByQuantizedMultiplier(static_cast<int32_t>(x) - d.input1_offset, d.multiplier, d.shift);
    return static_cast<T>(Clamp(r, d.act_min, d.act_max));
  });
}

template <ReluKind k>
TfLiteStatus EvalRelu(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ReluInfo<k>::kName;
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, op, &in, &out));
  switch (in->type) {
    case kTfLiteFloat32: {
      const float lo = ReluLow(k), hi = ReluHigh(k);
      return Unary<float>(in, out, [lo, hi](float x) { return std::min(std::max(lo, x), hi); });
    }
    case kTfLiteUInt8:
      return EvalReluQuantized<uint8_t>(node, in, out);
    case kTfLiteInt8:
      return EvalReluQuantized<int8_t>(node, in, out);
    case kTfLiteInt16:
      if (ReluInfo<k>::kInt16) return EvalReluQuantized<int16_t>(node, in, out);
      break;
    default:
      break;
  }
  TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", op, TypeName(in->type));
  return kTfLiteError;
}

bool LeakyReluTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8 || t == kTfLiteInt16;
}

float LeakyReluAlpha(const TfLiteNode* node) {
  return node->builtin_data ? static_cast<const TfLiteLeakyReluParams*>(node->builtin_data)->alpha : 0.2f;
}

TfLiteStatus PrepareLeakyRelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "LEAKY_RELU", LeakyReluTypes, &in, &out));
  if (in->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(context, PrepareQuantizedUnaryOffsets(context, node, "LEAKY_RELU", in, out));
    OpData* d = Data(node);
    const float alpha = LeakyReluAlpha(node);
    QuantizeMultiplier(in->params.scale * alpha / out->params.scale, &d->multiplier2, &d->shift2);
    QuantizeMultiplier(in->params.scale / out->params.scale, &d->multiplier, &d->shift);
  }
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus EvalLeakyReluQuantized(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData d = *Data(node);
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return Unary<T>(in, out, [&](T x) {
    const int32_t v = static_cast<int32_t>(x) - d.input1_offset;
    const int32_t r = v >= 0 ? MultiplyByQuantizedMultiplier(v, d.multiplier, d.shift)
                             : MultiplyByQuantizedMultiplier(v, d.multiplier2, d.shift2);
    return static_cast<T>(Clamp(d.output_offset + r, lo, hi));
  });
}

TfLiteStatus EvalLeakyRelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "LEAKY_RELU", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32: {
      const float alpha = LeakyReluAlpha(node);
      return Unary<float>(in, out, [alpha](float x) { return x > 0 ? x : x * alpha; });
    }
    case kTfLiteUInt8:
      return EvalLeakyReluQuantized<uint8_t>(node, in, out);
    case kTfLiteInt8:
      return EvalLeakyReluQuantized<int8_t>(node, in, out);
    case kTfLiteInt16:
      return EvalLeakyReluQuantized<int16_t>(node, in, out);
    default:
      TF_LITE_KERNEL_LOG(context, "LEAKY_RELU: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

// PRELU: out = x >= 0 ? x : x * alpha, alpha broadcast onto the input's shape.
TfLiteStatus PreparePrelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "PRELU", in, &out));
  const TfLiteTensor* input = in[0];
  const TfLiteTensor* alpha = in[1];
  TS_ENSURE(context, input->type == alpha->type, "PRELU: input type %s and alpha type %s differ", TypeName(input->type),
            TypeName(alpha->type));
  TS_ENSURE(context, input->type == kTfLiteFloat32 || input->type == kTfLiteUInt8 || input->type == kTfLiteInt8,
            "PRELU: type %s is not supported", TypeName(input->type));
  out->type = input->type;
  if (input->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(context, RequireScale(context, input, "PRELU", "input"));
    TF_LITE_ENSURE_OK(context, RequireScale(context, alpha, "PRELU", "alpha"));
    TF_LITE_ENSURE_OK(context, RequireScale(context, out, "PRELU", "output"));
    OpData* d = Data(node);
    d->input1_offset = -input->params.zero_point;
    d->input2_offset = -alpha->params.zero_point;
    d->output_offset = out->params.zero_point;
    QuantizeMultiplier(input->params.scale / out->params.scale, &d->multiplier, &d->shift);
    QuantizeMultiplier(input->params.scale * alpha->params.scale / out->params.scale, &d->multiplier2, &d->shift2);
  }
  TF_LITE_ENSURE_OK(context, ResizeBroadcast(context, input, alpha, out, "PRELU"));
  TS_ENSURE(context, tflite::HaveSameShapes(input, out), "PRELU: alpha must broadcast to the input's shape");
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus EvalPreluQuantized(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor* input,
                                const TfLiteTensor* alpha, TfLiteTensor* out) {
  const OpData d = *Data(node);
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return Binary<T, T, T>(context, input, alpha, out, [d, lo, hi](T x, T a) {
    const int32_t v = d.input1_offset + x;
    int32_t r;
    if (v >= 0) {
      r = MultiplyByQuantizedMultiplier(v, d.multiplier, d.shift);
    } else {
      r = MultiplyByQuantizedMultiplier(v * (d.input2_offset + a), d.multiplier2, d.shift2);
    }
    return static_cast<T>(Clamp(r + d.output_offset, lo, hi));
  });
}

TfLiteStatus EvalPrelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "PRELU", in, &out));
  switch (in[0]->type) {
    case kTfLiteFloat32:
      return Binary<float, float, float>(context, in[0], in[1], out,
                                         [](float x, float a) { return x >= 0.0f ? x : x * a; });
    case kTfLiteUInt8:
      return EvalPreluQuantized<uint8_t>(context, node, in[0], in[1], out);
    case kTfLiteInt8:
      return EvalPreluQuantized<int8_t>(context, node, in[0], in[1], out);
    default:
      TF_LITE_KERNEL_LOG(context, "PRELU: type %s is not supported", TypeName(in[0]->type));
      return kTfLiteError;
  }
}

bool HardSwishTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8; }

int16_t DownScaleMultiplierToInt16(int32_t m) {
  constexpr int32_t kRound = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRound) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + kRound) >> 16);
}

TfLiteStatus PrepareHardSwish(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "HARD_SWISH", HardSwishTypes, &in, &out));
  if (in->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(context, PrepareQuantizedUnaryOffsets(context, node, "HARD_SWISH", in, out));
    OpData* d = Data(node);
    const float hires_input_scale = (1.0f / 128.0f) * in->params.scale;
    const float reluish_scale = 3.0f / 32768.0f;
    const float output_multiplier = hires_input_scale / out->params.scale;
    int32_t m32;
    QuantizeMultiplier(output_multiplier, &m32, &d->hs_output_exponent);
    d->hs_output_multiplier = DownScaleMultiplierToInt16(m32);
    TS_ENSURE(context, d->hs_output_exponent <= 0,
              "HARD_SWISH: output scale too small for the input scale (multiplier exponent %d)", d->hs_output_exponent);
    const float reluish_multiplier = hires_input_scale / reluish_scale;
    QuantizeMultiplier(reluish_multiplier, &m32, &d->hs_reluish_exponent);
    d->hs_reluish_multiplier = DownScaleMultiplierToInt16(m32);
  }
  return kTfLiteOk;
}

int16_t SaturatingLeftShift16(int16_t value, int amount) {
  const int64_t r = static_cast<int64_t>(value) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::min<int64_t>(32767, std::max<int64_t>(-32768, r)));
}

// Doubling high multiply that truncates instead of rounding.
int16_t SaturatingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((static_cast<int32_t>(a) * static_cast<int32_t>(b)) / (1 << 15));
}

// Quantized hard-swish in 16-bit fixed point: the input on a 128x finer scale, multiplied by a
// "relu-ish" factor in [0, 1] that is x/3 rescaled from [-3, 3] and saturated.
template <typename T>
TfLiteStatus EvalHardSwishQuantized(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData d = *Data(node);
  return Unary<T>(in, out, [&](T x) {
    const int16_t input_value = static_cast<int16_t>(static_cast<int32_t>(x) - d.input1_offset);
    const int16_t hires = static_cast<int16_t>(input_value * (1 << 7));
    const int16_t preshift_out = qu::SaturatingRoundingDoublingHighMul(hires, d.hs_output_multiplier);
    int16_t reluish = hires;
    if (d.hs_reluish_exponent > 0) reluish = SaturatingLeftShift16(reluish, d.hs_reluish_exponent - 1);
    reluish = qu::SaturatingRoundingDoublingHighMul(reluish, d.hs_reluish_multiplier);
    if (d.hs_reluish_exponent > 0) reluish = SaturatingLeftShift16(reluish, 1);
    if (d.hs_reluish_exponent < 0) reluish = qu::RoundingDivideByPOT(reluish, -d.hs_reluish_exponent);
    reluish = static_cast<int16_t>((static_cast<int32_t>(reluish) + (1 << 15)) >> 1);
    const int16_t preshift = SaturatingDoublingHighMul16(reluish, preshift_out);
    int16_t v = qu::RoundingDivideByPOT(preshift, -d.hs_output_exponent);
    v = static_cast<int16_t>(v + d.output_offset);
    v = std::min<int16_t>(v, std::numeric_limits<T>::max());
    v = std::max<int16_t>(v, std::numeric_limits<T>::min());
    return static_cast<T>(v);
  });
}

TfLiteStatus EvalHardSwish(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "HARD_SWISH", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return x * std::min(6.0f, std::max(0.0f, x + 3.0f)) / 6.0f; });
    case kTfLiteUInt8:
      return EvalHardSwishQuantized<uint8_t>(node, in, out);
    case kTfLiteInt8:
      return EvalHardSwishQuantized<int8_t>(node, in, out);
    default:
      TF_LITE_KERNEL_LOG(context, "HARD_SWISH: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

bool EluTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteInt8; }
float EluFloat(float x) { return x < 0.0f ? std::expm1(x) : x; }

TfLiteStatus PrepareElu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "ELU", EluTypes, &in, &out));
  if (in->type == kTfLiteInt8) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, "ELU", in, out));
    PopulateLut8(in, out, EluFloat, Data(node)->lut8);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalElu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "ELU", &in, &out));
  if (in->type == kTfLiteFloat32) return Unary<float>(in, out, EluFloat);
  if (in->type == kTfLiteInt8) return EvalLut(node, in, out);
  TF_LITE_KERNEL_LOG(context, "ELU: type %s is not supported", TypeName(in->type));
  return kTfLiteError;
}

bool GeluApproximate(const TfLiteNode* node) {
  return node->builtin_data != nullptr && static_cast<const TfLiteGeluParams*>(node->builtin_data)->approximate;
}

// 0.5 x (1 + erf(x / sqrt 2)), written with erfc to stay accurate for large negative x.
float GeluExact(float x) { return 0.5f * x * std::erfc(x * static_cast<float>(-M_SQRT1_2)); }
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
float GeluTanh(float x) {
  constexpr float kSqrt2OverPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
  return 0.5f * x * (1.f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

bool GeluTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8; }

TfLiteStatus PrepareGelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "GELU", GeluTypes, &in, &out));
  if (in->type != kTfLiteFloat32) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, "GELU", in, out));
    float (*f)(float) = GeluApproximate(node) ? GeluTanh : GeluExact;
    PopulateLut8(in, out, f, Data(node)->lut8);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalGelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "GELU", &in, &out));
  if (in->type == kTfLiteFloat32) return Unary<float>(in, out, GeluApproximate(node) ? GeluTanh : GeluExact);
  if (in->type == kTfLiteUInt8 || in->type == kTfLiteInt8) return EvalLut(node, in, out);
  TF_LITE_KERNEL_LOG(context, "GELU: type %s is not supported", TypeName(in->type));
  return kTfLiteError;
}

}  // namespace

void GetQuantizedActivationParams(const void* user_data, QuantizedActivationParams* params) {
  const OpData* d = static_cast<const OpData*>(user_data);
  std::memcpy(params->lut8, d->lut8, sizeof(params->lut8));
  params->input_multiplier = d->input_multiplier;
  params->input_left_shift = d->input_left_shift;
}

TS_REGISTER(TANH, Init, Free, PrepareTanh, EvalTanhLogistic<true>)
TS_REGISTER(LOGISTIC, Init, Free, PrepareLogistic, EvalTanhLogistic<false>)
TS_REGISTER(RELU, Init, Free, PrepareRelu<ReluKind::kRelu>, EvalRelu<ReluKind::kRelu>)
TS_REGISTER(RELU6, Init, Free, PrepareRelu<ReluKind::kRelu6>, EvalRelu<ReluKind::kRelu6>)
TS_REGISTER(RELU_N1_TO_1, Init, Free, PrepareRelu<ReluKind::kReluN1To1>, EvalRelu<ReluKind::kReluN1To1>)
TS_REGISTER(RELU_0_TO_1, Init, Free, PrepareRelu<ReluKind::kRelu0To1>, EvalRelu<ReluKind::kRelu0To1>)
TS_REGISTER(LEAKY_RELU, Init, Free, PrepareLeakyRelu, EvalLeakyRelu)
TS_REGISTER(PRELU, Init, Free, PreparePrelu, EvalPrelu)
TS_REGISTER(HARD_SWISH, Init, Free, PrepareHardSwish, EvalHardSwish)
TS_REGISTER(ELU, Init, Free, PrepareElu, EvalElu)
TS_REGISTER(GELU, Init, Free, PrepareGelu, EvalGelu)

}  // namespace reference
}  // namespace touchstone
