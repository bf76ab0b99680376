// Reference unary math kernels: ABS, NEG, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, FLOOR, CEIL
// and ROUND (helpers in elementwise_util.h).
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
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/elementwise_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace elementwise_ops;  // NOLINT(build/namespaces): the helpers of elementwise_util.h

// ================================================================================================
// Unary math: ABS, NEG, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND.

bool FloatOnly(TfLiteType t) { return t == kTfLiteFloat32; }

// Float-only unary ops.
enum class FloatUnaryOp { kSqrt, kSquare, kSin, kCos, kFloor, kCeil, kRound, kLog };
template <FloatUnaryOp kOp>
struct FloatUnary;
#define EW_FLOAT_UNARY(ID, NAME, EXPR)           \
  template <>                                    \
  struct FloatUnary<FloatUnaryOp::ID> {          \
    static constexpr const char* kName = NAME;   \
    static float Apply(float x) { return EXPR; } \
  };
EW_FLOAT_UNARY(kSqrt, "SQRT", std::sqrt(x))
EW_FLOAT_UNARY(kSquare, "SQUARE", x* x)
EW_FLOAT_UNARY(kSin, "SIN", std::sin(x))
EW_FLOAT_UNARY(kCos, "COS", std::cos(x))
EW_FLOAT_UNARY(kFloor, "FLOOR", std::floor(x))
EW_FLOAT_UNARY(kCeil, "CEIL", std::ceil(x))
EW_FLOAT_UNARY(kRound, "ROUND", std::nearbyint(x))  // ties to even (default rounding mode)
EW_FLOAT_UNARY(kLog, "LOG", std::log(x))
#undef EW_FLOAT_UNARY

template <FloatUnaryOp kOp>
TfLiteStatus PrepareFloatUnary(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  return PrepareUnaryBase(context, node, FloatUnary<kOp>::kName, FloatOnly, &in, &out);
}

template <FloatUnaryOp kOp>
TfLiteStatus EvalFloatUnary(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, FloatUnary<kOp>::kName, &in, &out));
  TS_ENSURE(context, in->type == kTfLiteFloat32, "%s: type %s is not supported", FloatUnary<kOp>::kName,
            TypeName(in->type));
  return Unary<float>(in, out, FloatUnary<kOp>::Apply);
}

bool AbsTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteInt8 || t == kTfLiteInt16 || t == kTfLiteInt32;
}

TfLiteStatus PrepareAbs(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "ABS", AbsTypes, &in, &out));
  OpData* d = Data(node);
  d->needs_rescale = false;
  if (in->type == kTfLiteInt8 || (in->type == kTfLiteInt16 && HasScale(in))) {
    TF_LITE_ENSURE_OK(context, PrepareQuantizedUnaryOffsets(context, node, "ABS", in, out));
    d->needs_rescale = in->params.scale != out->params.scale;
    if (d->needs_rescale) QuantizeMultiplier(in->params.scale / out->params.scale, &d->multiplier, &d->shift);
  }
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus EvalAbsQuantized(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData d = *Data(node);
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return Unary<T>(in, out, [&](T x) {
    const int32_t v = std::abs(static_cast<int32_t>(x) - d.input1_offset);
    const int32_t r = d.needs_rescale ? MultiplyByQuantizedMultiplier(v, d.multiplier, d.shift) + d.output_offset
                                      : v + d.output_offset;
    return static_cast<T>(Clamp(r, lo, hi));
  });
}

TfLiteStatus EvalAbs(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "ABS", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return std::fabs(x); });
    case kTfLiteInt32:
      return Unary<int32_t>(in, out, [](int32_t x) { return x < 0 ? qu::WrappingNeg(x) : x; });
    case kTfLiteInt8:
      return EvalAbsQuantized<int8_t>(node, in, out);
    case kTfLiteInt16:
      if (!HasScale(in)) {
        return Unary<int16_t>(in, out,
                              [](int16_t x) { return static_cast<int16_t>(std::abs(static_cast<int32_t>(x))); });
      }
      return EvalAbsQuantized<int16_t>(node, in, out);
    default:
      TF_LITE_KERNEL_LOG(context, "ABS: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

bool NegTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteInt32 || t == kTfLiteInt64; }

TfLiteStatus PrepareNeg(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  return PrepareUnaryBase(context, node, "NEG", NegTypes, &in, &out);
}

TfLiteStatus EvalNeg(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "NEG", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return -x; });
    case kTfLiteInt32:
      return Unary<int32_t>(in, out, [](int32_t x) { return qu::WrappingNeg(x); });
    case kTfLiteInt64:
      return Unary<int64_t>(in, out, [](int64_t x) { return qu::WrappingNeg(x); });
    default:
      TF_LITE_KERNEL_LOG(context, "NEG: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

bool RsqrtTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteInt8; }

TfLiteStatus PrepareRsqrt(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "RSQRT", RsqrtTypes, &in, &out));
  if (in->type == kTfLiteInt8) {
    TF_LITE_ENSURE_OK(context, PrepareQuantizedUnaryOffsets(context, node, "RSQRT", in, out));
    OpData* d = Data(node);
    const double real = 1. / (std::sqrt(in->params.scale) * out->params.scale);
    QuantizeMultiplier(real, &d->multiplier, &d->shift);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalRsqrt(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "RSQRT", &in, &out));
  if (in->type == kTfLiteFloat32) return Unary<float>(in, out, [](float x) { return 1.f / std::sqrt(x); });
  TS_ENSURE(context, in->type == kTfLiteInt8, "RSQRT: type %s is not supported", TypeName(in->type));
  const OpData d = *Data(node);
  const int64_t n = tflite::NumElements(in);
  const int8_t* x = In<int8_t>(in);
  for (int64_t i = 0; i < n; ++i) {
    TS_ENSURE(context, x[i] >= d.input1_offset, "RSQRT: input is negative (defined for non-negative values only)");
  }
  return Unary<int8_t>(in, out, [&](int8_t v) -> int8_t {
    const int32_t value = v - d.input1_offset;
    constexpr int kShift = 20;  // keeps the reciprocal square root an integer
    if (value == 0) return 127;
    int32_t inv_sqrt_multiplier;
    int inv_sqrt_shift;
    qu::GetInvSqrtQuantizedMultiplierExp(value, -1, &inv_sqrt_multiplier, &inv_sqrt_shift);
    const int32_t data = MultiplyByQuantizedMultiplier(1, inv_sqrt_multiplier, inv_sqrt_shift + kShift);
    const int32_t r = MultiplyByQuantizedMultiplier(data, d.multiplier, d.shift - kShift) + d.output_offset;
    return static_cast<int8_t>(Clamp<int32_t>(r, -128, 127));
  });
}

bool ExpTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteInt8 || t == kTfLiteInt16; }

TfLiteStatus PrepareExp(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, PrepareUnaryBase(context, node, "EXP", ExpTypes, &in, &out));
  OpData* d = Data(node);
  auto f = [](float v) { return std::exp(v); };
  if (in->type == kTfLiteInt8) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, "EXP", in, out));
    PopulateLut8(in, out, f, d->lut8);
  } else if (in->type == kTfLiteInt16) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, "EXP", in, out));
    qu::PopulateLut16(in->params.scale, in->params.zero_point, out->params.scale, out->params.zero_point, f, d->lut16);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalExp(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "EXP", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return std::exp(x); });
    case kTfLiteInt8:
    case kTfLiteInt16:
      return EvalLut(node, in, out);
    default:
      TF_LITE_KERNEL_LOG(context, "EXP: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

}  // namespace

TS_REGISTER(ABS, Init, Free, PrepareAbs, EvalAbs)
TS_REGISTER(NEG, Init, Free, PrepareNeg, EvalNeg)
TS_REGISTER(SQRT, Init, Free, PrepareFloatUnary<FloatUnaryOp::kSqrt>, EvalFloatUnary<FloatUnaryOp::kSqrt>)
TS_REGISTER(RSQRT, Init, Free, PrepareRsqrt, EvalRsqrt)
TS_REGISTER(SQUARE, Init, Free, PrepareFloatUnary<FloatUnaryOp::kSquare>, EvalFloatUnary<FloatUnaryOp::kSquare>)
TS_REGISTER(EXP, Init, Free, PrepareExp, EvalExp)
TS_REGISTER(LOG, Init, Free, PrepareFloatUnary<FloatUnaryOp::kLog>, EvalFloatUnary<FloatUnaryOp::kLog>)
TS_REGISTER(SIN, Init, Free, PrepareFloatUnary<FloatUnaryOp::kSin>, EvalFloatUnary<FloatUnaryOp::kSin>)
TS_REGISTER(COS, Init, Free, PrepareFloatUnary<FloatUnaryOp::kCos>, EvalFloatUnary<FloatUnaryOp::kCos>)
TS_REGISTER(FLOOR, Init, Free, PrepareFloatUnary<FloatUnaryOp::kFloor>, EvalFloatUnary<FloatUnaryOp::kFloor>)
TS_REGISTER(CEIL, Init, Free, PrepareFloatUnary<FloatUnaryOp::kCeil>, EvalFloatUnary<FloatUnaryOp::kCeil>)
TS_REGISTER(ROUND, Init, Free, PrepareFloatUnary<FloatUnaryOp::kRound>, EvalFloatUnary<FloatUnaryOp::kRound>)

}  // namespace reference
}  // namespace touchstone
