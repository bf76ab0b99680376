// Reference binary arithmetic kernels: ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM,
// POW, FLOOR_DIV, FLOOR_MOD, BITWISE_XOR and RIGHT_SHIFT (helpers in elementwise_util.h).
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
// ADD, SUB, MUL, DIV.

enum class Arith { kAdd, kSub, kMul, kDiv };

const char* ArithName(Arith k) {
  switch (k) {
    case Arith::kAdd:
      return "ADD";
    case Arith::kSub:
      return "SUB";
    case Arith::kMul:
      return "MUL";
    default:
      return "DIV";
  }
}

TfLiteFusedActivation ArithActivation(Arith k, const TfLiteNode* node) {
  if (node->builtin_data == nullptr) return kTfLiteActNone;
  switch (k) {
    case Arith::kAdd:
      return static_cast<const TfLiteAddParams*>(node->builtin_data)->activation;
    case Arith::kSub:
      return static_cast<const TfLiteSubParams*>(node->builtin_data)->activation;
    case Arith::kMul:
      return static_cast<const TfLiteMulParams*>(node->builtin_data)->activation;
    default:
      return static_cast<const TfLiteDivParams*>(node->builtin_data)->activation;
  }
}

bool ArithPotScaleInt16(Arith k, const TfLiteNode* node) {
  if (node->builtin_data == nullptr) return false;
  if (k == Arith::kAdd) return static_cast<const TfLiteAddParams*>(node->builtin_data)->pot_scale_int16;
  if (k == Arith::kSub) return static_cast<const TfLiteSubParams*>(node->builtin_data)->pot_scale_int16;
  return false;
}

// ADD/SUB on quantized tensors: both inputs are brought to a common scale (twice the larger input
// scale, with 20 extra bits for 8-bit types and 15 for int16), added, and rescaled to the output.
TfLiteStatus PrepareQuantizedAddSub(TfLiteContext* context, TfLiteNode* node, Arith kind, const TfLiteTensor* in1,
                                    const TfLiteTensor* in2, TfLiteTensor* out) {
  const char* op = ArithName(kind);
  OpData* d = Data(node);
  int32_t qmin, qmax;
  TypeRange(out->type, &qmin, &qmax);
  for (const TfLiteTensor* t : {static_cast<const TfLiteTensor*>(in1), static_cast<const TfLiteTensor*>(in2),
                                static_cast<const TfLiteTensor*>(out)}) {
    TS_ENSURE(context, t->params.zero_point >= qmin && t->params.zero_point <= qmax,
              "%s: zero point %d is outside the range of %s", op, t->params.zero_point, TypeName(t->type));
  }
  bool general = true;
  int log1 = 0, log2 = 0, logo = 0;
  if (out->type == kTfLiteInt16) {
    TS_ENSURE(context, in1->params.zero_point == 0 && in2->params.zero_point == 0 && out->params.zero_point == 0,
              "%s: int16 tensors must have zero point 0 (got %d, %d, %d)", op, in1->params.zero_point,
              in2->params.zero_point, out->params.zero_point);
    if (ArithPotScaleInt16(kind, node)) {
      const bool pot1 = qu::CheckedLog2(in1->params.scale, &log1);
      const bool pot2 = qu::CheckedLog2(in2->params.scale, &log2);
      const bool poto = qu::CheckedLog2(out->params.scale, &logo);
      general = !(pot1 && pot2 && poto);
    }
  }
  d->pot_int16 = !general;
  if (d->pot_int16) {
    // Power-of-two scales: one input is shifted right onto the output scale, the other must
    // already be on it.
    d->input1_shift = log1 - logo;
    d->input2_shift = log2 - logo;
    TS_ENSURE(context, d->input1_shift == 0 || d->input2_shift == 0,
              "%s: with power-of-two int16 scales one input's scale must equal the output's", op);
    TS_ENSURE(context, d->input1_shift <= 0 && d->input2_shift <= 0,
              "%s: with power-of-two int16 scales the inputs' scales may not exceed the output's", op);
  } else {
    d->input1_offset = -in1->params.zero_point;
    d->input2_offset = -in2->params.zero_point;
    d->output_offset = out->params.zero_point;
    d->left_shift = out->type == kTfLiteInt16 ? 15 : 20;
    qu::QuantizeAddMultipliers(in1->params.scale, in2->params.scale, out->params.scale, d->left_shift,
                               &d->input1_multiplier, &d->input1_shift, &d->input2_multiplier, &d->input2_shift,
                               &d->output_multiplier, &d->output_shift);
  }
  return tflite::CalculateActivationRangeQuantized(context, ArithActivation(kind, node), out, &d->act_min, &d->act_max);
}

template <Arith kind>
TfLiteStatus PrepareArith(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ArithName(kind);
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetSameTypedBinaryIO(context, node, op, in, &out));
  const TfLiteTensor* in1 = in[0];
  const TfLiteTensor* in2 = in[1];
  const TfLiteFusedActivation activation = ArithActivation(kind, node);
  if (activation == kTfLiteActTanh || activation == kTfLiteActSignBit || activation == kTfLiteActSigmoid) {
    WarnTfliteDifference(context,
                         "%s with fused activation %d: TFLite 2.14.1 applies no activation for it (it clamps "
                         "only for RELU, RELU6 and RELU_N1_TO_1); neither does Touchstone",
                         op, static_cast<int>(activation));
  }
  const TfLiteType type = in1->type;
  // ADD, SUB and DIV give the output the inputs' type, as TFLite does; MUL refuses a different
  // declared output type (TFLite's int16 -> 8-bit MUL is not implemented here).
  TS_ENSURE(context, kind != Arith::kMul || out->type == type || out->type == kTfLiteNoType,
            "MUL: output type %s differs from input type %s", TypeName(out->type), TypeName(type));
  out->type = type;
  OpData* d = Data(node);
  bool type_ok = false;
  switch (kind) {
    case Arith::kAdd:
    case Arith::kSub:
      type_ok = type == kTfLiteFloat32 || type == kTfLiteInt32 || type == kTfLiteInt64 || IsQuantizableType(type);
      break;
    case Arith::kMul:
      type_ok = type == kTfLiteFloat32 || type == kTfLiteInt32 || type == kTfLiteInt64 || IsQuantizableType(type);
      break;
    case Arith::kDiv:
      type_ok = type == kTfLiteFloat32 || type == kTfLiteInt32 || type == kTfLiteUInt8 || type == kTfLiteInt8;
      break;
  }
  TS_ENSURE(context, type_ok, "%s: type %s is not supported", op, TypeName(type));

  // int16 MUL without quantization parameters is plain integer multiplication.
  const bool quantized = IsQuantizableType(type) && !(kind == Arith::kMul && type == kTfLiteInt16 && !HasScale(in1) &&
                                                      !HasScale(in2) && !HasScale(out));
  if (quantized) {
    TF_LITE_ENSURE_OK(context, RequireScales(context, op, in1, in2, out));
    if (kind == Arith::kAdd || kind == Arith::kSub) {
      TF_LITE_ENSURE_OK(context, PrepareQuantizedAddSub(context, node, kind, in1, in2, out));
    } else {
      d->input1_offset = -in1->params.zero_point;
      d->input2_offset = -in2->params.zero_point;
      d->output_offset = out->params.zero_point;
      if (kind == Arith::kMul && type == kTfLiteInt16 &&
          (in1->params.zero_point != 0 || in2->params.zero_point != 0 || out->params.zero_point != 0)) {
        // TFLite's Eval refuses it (a nonzero offset), not its Prepare.
        return RefuseAtInvoke(context, node, "MUL: int16 tensors must have zero point 0");
      }
      // The scale ratio is formed in float, as TFLite does, before it becomes a multiplier.
      const float real = kind == Arith::kMul ? in1->params.scale * in2->params.scale / out->params.scale
                                             : in1->params.scale / (in2->params.scale * out->params.scale);
      QuantizeMultiplier(real, &d->output_multiplier, &d->output_shift);
      TF_LITE_ENSURE_OK(context,
                        tflite::CalculateActivationRangeQuantized(context, activation, out, &d->act_min, &d->act_max));
    }
  }
  return ResizeBroadcast(context, in1, in2, out, op);
}

template <Arith kind, typename T>
TfLiteStatus EvalArithPlain(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor* in1, const TfLiteTensor* in2,
                            TfLiteTensor* out) {
  T lo, hi;
  ActivationBounds<T>(ArithActivation(kind, node), &lo, &hi);
  if constexpr (std::is_floating_point<T>::value) {
    return Binary<T, T, T>(context, in1, in2, out, [lo, hi](T a, T b) {
      T r;
      switch (kind) {
        case Arith::kAdd:
          r = a + b;
          break;
        case Arith::kSub:
          r = a - b;
          break;
        case Arith::kMul:
          r = a * b;
          break;
        default:
          r = a / b;
          break;
      }
      return Clamp(r, lo, hi);
    });
  } else {
    if (kind == Arith::kDiv) {
      const int64_t n = tflite::NumElements(in2);
      const T* b = In<T>(in2);
      for (int64_t i = 0; i < n; ++i) TS_ENSURE(context, b[i] != 0, "DIV: division by zero");
    }
    return Binary<T, T, T>(context, in1, in2, out, [lo, hi](T a, T b) {
      T r;
      switch (kind) {
        case Arith::kAdd:
          r = qu::WrappingAdd<T>(a, b);
          break;
        case Arith::kSub:
          r = qu::WrappingSub<T>(a, b);
          break;
        case Arith::kMul:
          r = qu::WrappingMul<T>(a, b);
          break;
        default:
          // The one overflowing quotient wraps instead of trapping.
          r = (b == -1) ? qu::WrappingNeg<T>(a) : static_cast<T>(a / b);
          break;
      }
      return Clamp(r, lo, hi);
    });
  }
}

// One element of a quantized ADD or SUB (not int16 with power-of-two scales).
template <Arith kind, typename T>
T QuantizedAddSubValue(const OpData& d, T a, T b) {
  const int32_t v1 = elementwise::ShiftLeftWrap(d.input1_offset + a, d.left_shift);
  const int32_t v2 = elementwise::ShiftLeftWrap(d.input2_offset + b, d.left_shift);
  const int32_t s1 = MultiplyByQuantizedMultiplier(v1, d.input1_multiplier, d.input1_shift);
  const int32_t s2 = MultiplyByQuantizedMultiplier(v2, d.input2_multiplier, d.input2_shift);
  const int32_t raw = kind == Arith::kAdd ? s1 + s2 : s1 - s2;
  const int32_t r = MultiplyByQuantizedMultiplier(raw, d.output_multiplier, d.output_shift) + d.output_offset;
  return static_cast<T>(Clamp(r, d.act_min, d.act_max));
}

template <Arith kind, typename T>
TfLiteStatus EvalArithQuantized(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor* in1,
                                const TfLiteTensor* in2, TfLiteTensor* out) {
  const OpData d = *Data(node);
  if ((kind == Arith::kAdd || kind == Arith::kSub) && d.pot_int16) {
    // int16 with power-of-two scales: rounding shift of one input, saturating add/sub in Q0.15.
    const bool shift_first = d.input1_shift != 0;
    const int right_shift = shift_first ? -d.input1_shift : -d.input2_shift;
    const int16_t lo = static_cast<int16_t>(d.act_min), hi = static_cast<int16_t>(d.act_max);
    return Binary<int16_t, int16_t, int16_t>(context, in1, in2, out, [=](int16_t a, int16_t b) {
      int32_t x = a, y = b;
      if (shift_first)
        x = qu::RoundingDivideByPOT(x, right_shift);
      else
        y = qu::RoundingDivideByPOT(y, right_shift);
      int32_t r = kind == Arith::kAdd ? x + y : x - y;
      r = std::min<int32_t>(32767, std::max<int32_t>(-32768, r));
      return static_cast<int16_t>(Clamp<int32_t>(r, lo, hi));
    });
  }
  switch (kind) {
    case Arith::kAdd:
    case Arith::kSub:
      return Binary<T, T, T>(context, in1, in2, out, [d](T a, T b) { return QuantizedAddSubValue<kind, T>(d, a, b); });
    case Arith::kMul:
      return Binary<T, T, T>(context, in1, in2, out, [d](T a, T b) {
        const int32_t p = (d.input1_offset + a) * (d.input2_offset + b);
        const int32_t r = d.output_offset + MultiplyByQuantizedMultiplier(p, d.output_multiplier, d.output_shift);
        return static_cast<T>(Clamp(r, d.act_min, d.act_max));
      });
    default: {
      const int64_t n = tflite::NumElements(in2);
      const T* b = In<T>(in2);
      for (int64_t i = 0; i < n; ++i) {
        TS_ENSURE(context, b[i] != static_cast<T>(in2->params.zero_point),
                  "DIV: division by zero (divisor equals its zero point)");
      }
      // Quotient by a fixed-point reciprocal of the divisor, normalised by the dividend's headroom.
      return Binary<T, T, T>(context, in1, in2, out, [d](T a, T b) {
        int32_t x = d.input1_offset + a;
        int32_t y = d.input2_offset + b;
        if (y < 0) {
          x = -x;
          y = -y;
        }
        int recip_shift;
        const int32_t inv = elementwise::GetReciprocal(y, 31, &recip_shift);
        const int headroom = elementwise::CountLeadingSignBits32(x);
        const int32_t unscaled = qu::SaturatingRoundingDoublingHighMul(elementwise::ShiftLeftWrap(x, headroom), inv);
        const int total_shift = d.output_shift - recip_shift - headroom;
        const int32_t r = d.output_offset + MultiplyByQuantizedMultiplier(unscaled, d.output_multiplier, total_shift);
        return static_cast<T>(Clamp(r, d.act_min, d.act_max));
      });
    }
  }
}

template <Arith kind>
TfLiteStatus EvalArith(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, ArithName(kind), in, &out));
  switch (out->type) {
    case kTfLiteFloat32:
      return EvalArithPlain<kind, float>(context, node, in[0], in[1], out);
    case kTfLiteInt32:
      return EvalArithPlain<kind, int32_t>(context, node, in[0], in[1], out);
    case kTfLiteInt64:
      return EvalArithPlain<kind, int64_t>(context, node, in[0], in[1], out);
    case kTfLiteUInt8:
      return EvalArithQuantized<kind, uint8_t>(context, node, in[0], in[1], out);
    case kTfLiteInt8:
      return EvalArithQuantized<kind, int8_t>(context, node, in[0], in[1], out);
    case kTfLiteInt16:
      if (kind == Arith::kMul && !HasScale(out)) return EvalArithPlain<kind, int16_t>(context, node, in[0], in[1], out);
      return EvalArithQuantized<kind, int16_t>(context, node, in[0], in[1], out);
    default:
      TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", ArithName(kind), TypeName(out->type));
      return kTfLiteError;
  }
}

// ================================================================================================
// SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, POW, FLOOR_DIV, FLOOR_MOD.

// Shared Prepare for binary ops without options: same input types, output of that type, broadcast.
template <typename Types>
TfLiteStatus PrepareSimpleBinary(TfLiteContext* context, TfLiteNode* node, const char* op, Types types) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetSameTypedBinaryIO(context, node, op, in, &out));
  TS_ENSURE(context, IsOneOf(types, in[0]->type), "%s: type %s is not supported", op, TypeName(in[0]->type));
  out->type = in[0]->type;
  return ResizeBroadcast(context, in[0], in[1], out, op);
}

using SquaredDifferenceTypes = TypeList<float, int32_t, int8_t>;

TfLiteStatus PrepareSquaredDifference(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, PrepareSimpleBinary(context, node, "SQUARED_DIFFERENCE", SquaredDifferenceTypes()));
  const TfLiteTensor* in1 = tflite::GetInput(context, node, 0);
  const TfLiteTensor* in2 = tflite::GetInput(context, node, 1);
  TfLiteTensor* out = tflite::GetOutput(context, node, 0);
  if (in1->type == kTfLiteInt8) {
    const char* op = "SQUARED_DIFFERENCE";
    TF_LITE_ENSURE_OK(context, RequireScales(context, op, in1, in2, out));
    OpData* d = Data(node);
    d->input1_offset = -in1->params.zero_point;
    d->input2_offset = -in2->params.zero_point;
    d->output_offset = out->params.zero_point;
    d->left_shift = 7;
    const double twice_max = 2.0f * std::max(in1->params.scale, in2->params.scale);
    QuantizeMultiplier(in1->params.scale / twice_max, &d->input1_multiplier, &d->input1_shift);
    QuantizeMultiplier(in2->params.scale / twice_max, &d->input2_multiplier, &d->input2_shift);
    QuantizeMultiplier((twice_max * twice_max) / ((1 << (2 * d->left_shift)) * out->params.scale),
                       &d->output_multiplier, &d->output_shift);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalSquaredDifference(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "SQUARED_DIFFERENCE", in, &out));
  switch (out->type) {
    case kTfLiteFloat32:
      return Binary<float, float, float>(context, in[0], in[1], out, [](float a, float b) {
        const float diff = a - b;
        return diff * diff;
      });
    case kTfLiteInt32:
      return Binary<int32_t, int32_t, int32_t>(context, in[0], in[1], out, [](int32_t a, int32_t b) {
        const int32_t diff = qu::WrappingSub(a, b);
        return qu::WrappingMul(diff, diff);
      });
    case kTfLiteInt8: {
      const OpData d = *Data(node);
      return Binary<int8_t, int8_t, int8_t>(context, in[0], in[1], out, [d](int8_t a, int8_t b) {
        const int32_t s1 = MultiplyByQuantizedMultiplier((d.input1_offset + a) * (1 << d.left_shift),
                                                         d.input1_multiplier, d.input1_shift);
        const int32_t s2 = MultiplyByQuantizedMultiplier((d.input2_offset + b) * (1 << d.left_shift),
                                                         d.input2_multiplier, d.input2_shift);
        const int32_t diff = s1 - s2;
        const int32_t r =
            MultiplyByQuantizedMultiplier(diff * diff, d.output_multiplier, d.output_shift) + d.output_offset;
        return static_cast<int8_t>(Clamp<int32_t>(r, -128, 127));
      });
    }
    default:
      TF_LITE_KERNEL_LOG(context, "SQUARED_DIFFERENCE: type %s is not supported", TypeName(out->type));
      return kTfLiteError;
  }
}

using MinMaxTypes = TypeList<float, uint8_t, int8_t, int16_t, int32_t, int64_t>;

// MAXIMUM/MINIMUM compare stored values directly (quantized inputs are assumed to share the
// output's quantization, as in TFLite).
template <bool kMax>
TfLiteStatus PrepareMinMax(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSimpleBinary(context, node, kMax ? "MAXIMUM" : "MINIMUM", MinMaxTypes());
}

template <bool kMax, typename T>
TfLiteStatus EvalMinMaxT(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b, TfLiteTensor* out) {
  return Binary<T, T, T>(context, a, b, out, [](T x, T y) {
    if (kMax) return x > y ? x : y;
    return x < y ? x : y;
  });
}

template <bool kMax>
TfLiteStatus EvalMinMax(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kMax ? "MAXIMUM" : "MINIMUM";
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, op, in, &out));
  return EvalForType(context, MinMaxTypes(), out->type, op,
                     [&](auto t) { return EvalMinMaxT<kMax, decltype(t)>(context, in[0], in[1], out); });
}

using PowTypes = TypeList<float, int32_t>;

TfLiteStatus PreparePow(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSimpleBinary(context, node, "POW", PowTypes());
}

// int32 result of a double, as the x86-64 conversion TFLite's static_cast compiles to gives it:
// truncation toward zero, and INT32_MIN for NaN and values out of range.
int32_t DoubleToInt32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

TfLiteStatus EvalPow(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "POW", in, &out));
  switch (out->type) {
    case kTfLiteFloat32:
      return Binary<float, float, float>(context, in[0], in[1], out, [](float a, float b) { return std::pow(a, b); });
    case kTfLiteInt32: {
      const int64_t n = tflite::NumElements(in[1]);
      const int32_t* e = In<int32_t>(in[1]);
      for (int64_t i = 0; i < n; ++i) TS_ENSURE(context, e[i] >= 0, "POW: negative exponent %d for int32", e[i]);
      return Binary<int32_t, int32_t, int32_t>(context, in[0], in[1], out, [](int32_t a, int32_t b) {
        return DoubleToInt32(std::pow(static_cast<double>(a), static_cast<double>(b)));
      });
    }
    default:
      TF_LITE_KERNEL_LOG(context, "POW: type %s is not supported", TypeName(out->type));
      return kTfLiteError;
  }
}

using FloorDivModTypes = TypeList<float, int8_t, int16_t, int32_t, int64_t>;

TfLiteStatus PrepareFloorDiv(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSimpleBinary(context, node, "FLOOR_DIV", FloorDivModTypes());
}
TfLiteStatus PrepareFloorMod(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSimpleBinary(context, node, "FLOOR_MOD", FloorDivModTypes());
}

template <typename T>
TfLiteStatus CheckNoZeroDivisor(TfLiteContext* context, const TfLiteTensor* t, const char* op) {
  const int64_t n = tflite::NumElements(t);
  const T* v = In<T>(t);
  for (int64_t i = 0; i < n; ++i) TS_ENSURE(context, v[i] != 0, "%s: division by zero", op);
  return kTfLiteOk;
}

// floor(a / b), the quotient formed in double.
template <typename T>
TfLiteStatus EvalFloorDivT(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b, TfLiteTensor* out) {
  if (std::is_integral<T>::value) TF_LITE_ENSURE_OK(context, CheckNoZeroDivisor<T>(context, b, "FLOOR_DIV"));
  return Binary<T, T, T>(context, a, b, out, [](T x, T y) {
    const double q = std::floor(static_cast<double>(x) / static_cast<double>(y));
    if (std::is_same<T, int64_t>::value) {
      // Exact integer floor division (a double quotient loses precision beyond 2^53).
      const int64_t xi = static_cast<int64_t>(x), yi = static_cast<int64_t>(y);
      if (yi == -1) return static_cast<T>(qu::WrappingNeg<int64_t>(xi));
      int64_t qi = xi / yi;
      if ((xi % yi != 0) && ((xi < 0) != (yi < 0))) --qi;
      return static_cast<T>(qi);
    }
    if (std::is_floating_point<T>::value) return static_cast<T>(q);
    return static_cast<T>(DoubleToInt32(q));  // narrower types wrap (e.g. int8 -128 / -1)
  });
}

TfLiteStatus EvalFloorDiv(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "FLOOR_DIV", in, &out));
  return EvalForType(context, FloorDivModTypes(), out->type, "FLOOR_DIV",
                     [&](auto t) { return EvalFloorDivT<decltype(t)>(context, in[0], in[1], out); });
}

// Python's modulo: the remainder takes the divisor's sign. Integer types; float below.
template <typename T>
TfLiteStatus EvalFloorModT(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b, TfLiteTensor* out) {
  TF_LITE_ENSURE_OK(context, CheckNoZeroDivisor<T>(context, b, "FLOOR_MOD"));
  return Binary<T, T, T>(context, a, b, out, [](T x, T y) {
    // x % -1 is 0 (and INT_MIN % -1 would trap).
    const T trunc_mod = y == static_cast<T>(-1) ? T(0) : static_cast<T>(x % y);
    return (trunc_mod != 0) && ((y < 0) != (trunc_mod < 0)) ? static_cast<T>(trunc_mod + y) : trunc_mod;
  });
}

// Float: the truncated remainder from fmod, moved onto the divisor's sign.
template <>
TfLiteStatus EvalFloorModT<float>(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                                  TfLiteTensor* out) {
  return Binary<float, float, float>(context, a, b, out, [](float x, float y) {
    const float trunc_mod = std::fmod(x, y);
    return (trunc_mod != 0) && ((y < 0) != (trunc_mod < 0)) ? trunc_mod + y : trunc_mod;
  });
}

TfLiteStatus EvalFloorMod(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "FLOOR_MOD", in, &out));
  return EvalForType(context, FloorDivModTypes(), out->type, "FLOOR_MOD",
                     [&](auto t) { return EvalFloorModT<decltype(t)>(context, in[0], in[1], out); });
}

// ================================================================================================
// BITWISE_XOR, RIGHT_SHIFT: integer bit operations, broadcast (TFLite's own broadcast path stops at
// rank 4 and aborts above it; these follow the definition at any rank).

using BitTypes = TypeList<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t>;

TfLiteStatus PrepareBitwiseXor(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSimpleBinary(context, node, "BITWISE_XOR", BitTypes());
}
TfLiteStatus PrepareRightShift(TfLiteContext* context, TfLiteNode* node) {
  return PrepareSimpleBinary(context, node, "RIGHT_SHIFT", BitTypes());
}

TfLiteStatus EvalBitwiseXor(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "BITWISE_XOR", in, &out));
  return EvalForType(context, BitTypes(), out->type, "BITWISE_XOR", [&](auto t) {
    using T = decltype(t);
    return Binary<T, T, T>(context, in[0], in[1], out, [](T a, T b) { return static_cast<T>(a ^ b); });
  });
}

// TFLite clamps the shift to [0, bits - 1] and shifts signed values arithmetically.
TfLiteStatus EvalRightShift(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, "RIGHT_SHIFT", in, &out));
  return EvalForType(context, BitTypes(), out->type, "RIGHT_SHIFT", [&](auto t) {
    using T = decltype(t);
    return Binary<T, T, T>(context, in[0], in[1], out, [](T a, T b) {
      constexpr int kBits = static_cast<int>(sizeof(T) * 8);
      const int64_t shift = std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(b), 0), kBits - 1);
      return static_cast<T>(a >> shift);
    });
  });
}

}  // namespace

TS_REGISTER(ADD, Init, Free, PrepareArith<Arith::kAdd>, EvalArith<Arith::kAdd>)
TS_REGISTER(SUB, Init, Free, PrepareArith<Arith::kSub>, EvalArith<Arith::kSub>)
TS_REGISTER(MUL, Init, Free, PrepareArith<Arith::kMul>, EvalArith<Arith::kMul>)
TS_REGISTER(DIV, Init, Free, PrepareArith<Arith::kDiv>, EvalArith<Arith::kDiv>)
TS_REGISTER(SQUARED_DIFFERENCE, Init, Free, PrepareSquaredDifference, EvalSquaredDifference)
TS_REGISTER(MAXIMUM, Init, Free, PrepareMinMax<true>, EvalMinMax<true>)
TS_REGISTER(MINIMUM, Init, Free, PrepareMinMax<false>, EvalMinMax<false>)
TS_REGISTER(POW, Init, Free, PreparePow, EvalPow)
TS_REGISTER(FLOOR_DIV, Init, Free, PrepareFloorDiv, EvalFloorDiv)
TS_REGISTER(FLOOR_MOD, Init, Free, PrepareFloorMod, EvalFloorMod)
TS_REGISTER(BITWISE_XOR, Init, Free, PrepareBitwiseXor, EvalBitwiseXor)
TS_REGISTER(RIGHT_SHIFT, Init, Free, PrepareRightShift, EvalRightShift)

bool GetQuantizedAddParams(const void* user_data, TfLiteType type, QuantizedAddParams* p) {
  if (user_data == nullptr || (type != kTfLiteUInt8 && type != kTfLiteInt8)) return false;
  const OpData& d = *static_cast<const OpData*>(user_data);
  p->input1_offset = d.input1_offset;
  p->input2_offset = d.input2_offset;
  p->left_shift = d.left_shift;
  p->input1_multiplier = d.input1_multiplier;
  p->input1_shift = d.input1_shift;
  p->input2_multiplier = d.input2_multiplier;
  p->input2_shift = d.input2_shift;
  p->output_multiplier = d.output_multiplier;
  p->output_shift = d.output_shift;
  p->output_offset = d.output_offset;
  p->act_min = d.act_min;
  p->act_max = d.act_max;
  return true;
}

bool QuantizedAddTable(const void* user_data, TfLiteType type, uint8_t* table) {
  if (user_data == nullptr || (type != kTfLiteUInt8 && type != kTfLiteInt8)) return false;
  const OpData& d = *static_cast<const OpData*>(user_data);
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      table[a * 256 + b] = type == kTfLiteUInt8 ? QuantizedAddSubValue<Arith::kAdd, uint8_t>(d, static_cast<uint8_t>(a),
                                                                                             static_cast<uint8_t>(b))
                                                : static_cast<uint8_t>(QuantizedAddSubValue<Arith::kAdd, int8_t>(
                                                      d, static_cast<int8_t>(a), static_cast<int8_t>(b)));
    }
  }
  return true;
}

}  // namespace reference
}  // namespace touchstone
