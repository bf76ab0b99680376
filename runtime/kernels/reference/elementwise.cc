// Reference element-wise kernels: arithmetic, unary math, activations, comparisons, casts,
// selection.
//
// Each kernel computes what TensorFlow Lite 2.14's built-in kernel computes for the same model, so
// that the reference can serve as the golden implementation: float results to the last ulp or two
// of the math library, integer and quantized results bit for bit (the fixed-point steps live in
// runtime/kernels/internal/elementwise_quant.h). Where TFLite refuses a type or a quantization, so
// do these kernels, with a message that names the op and the problem; a few places go further than
// TFLite and say so below (broadcasting to any rank up to 8 for every binary op, unsupported fused
// activations refused instead of ignored, integer overflow defined as two's-complement wrap).
//
// Binary ops broadcast numpy-style (runtime/kernels/internal/elementwise_broadcast.h); rank-0
// tensors are scalars and work everywhere.
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
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/internal/elementwise_quant.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using elementwise::BroadcastBinary;
using elementwise::BroadcastTernary;
namespace qu = quantization_util;
namespace fp = quantization_util::fixed_point;
using qu::MultiplyByQuantizedMultiplier;
using qu::QuantizeMultiplier;

#define EW_ENSURE(context, cond, ...)             \
  do {                                            \
    if (!(cond)) {                                \
      TF_LITE_KERNEL_LOG((context), __VA_ARGS__); \
      return kTfLiteError;                        \
    }                                             \
  } while (0)

#define EW_OK(expr)                                 \
  do {                                              \
    const TfLiteStatus ew_status_ = (expr);         \
    if (ew_status_ != kTfLiteOk) return ew_status_; \
  } while (0)

// ------------------------------------------------------------------------------------------------
// Per-node state, filled by Prepare and read by Eval.

struct OpData {
  // Binary quantized arithmetic and comparisons.
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  int32_t input1_multiplier = 0, input2_multiplier = 0, output_multiplier = 0;
  int input1_shift = 0, input2_shift = 0, output_shift = 0, left_shift = 0;
  int32_t act_min = 0, act_max = 0;
  bool pot_int16 = false;       // ADD/SUB int16 with power-of-two scales
  bool scaled_compare = false;  // quantized comparison with rescaling
  // Unary quantized ops.
  int32_t multiplier = 0, multiplier2 = 0;
  int shift = 0, shift2 = 0;
  int32_t input_multiplier = 0;  // int16 tanh/logistic table path (0: power-of-two path)
  int input_left_shift = 0;
  bool needs_rescale = false;
  int16_t hs_output_multiplier = 0, hs_reluish_multiplier = 0;
  int hs_output_exponent = 0, hs_reluish_exponent = 0;
  uint8_t lut8[256] = {};
  int16_t lut16[513] = {};
};

void* Init(TfLiteContext*, const char*, size_t) { return new OpData(); }
void Free(TfLiteContext*, void* buffer) { delete static_cast<OpData*>(buffer); }
OpData* Data(TfLiteNode* node) { return static_cast<OpData*>(node->user_data); }

// ------------------------------------------------------------------------------------------------
// Small helpers.

const char* TypeName(TfLiteType t) { return TfLiteTypeGetName(t); }

TfLiteStatus GetIO(TfLiteContext* context, TfLiteNode* node, int num_inputs, const char* op,
                   const TfLiteTensor** in, TfLiteTensor** out) {
  EW_ENSURE(context, node->inputs != nullptr && tflite::NumInputs(node) == num_inputs,
            "%s: expected %d input(s), got %d", op, num_inputs,
            node->inputs ? tflite::NumInputs(node) : 0);
  EW_ENSURE(context, node->outputs != nullptr && tflite::NumOutputs(node) == 1,
            "%s: expected 1 output, got %d", op, node->outputs ? tflite::NumOutputs(node) : 0);
  for (int i = 0; i < num_inputs; ++i) {
    in[i] = tflite::GetInput(context, node, i);
    EW_ENSURE(context, in[i] != nullptr, "%s: input %d is missing", op, i);
  }
  *out = tflite::GetOutput(context, node, 0);
  EW_ENSURE(context, *out != nullptr, "%s: output is missing", op);
  return kTfLiteOk;
}

bool IsQuantizableType(TfLiteType t) {
  return t == kTfLiteUInt8 || t == kTfLiteInt8 || t == kTfLiteInt16;
}
bool HasScale(const TfLiteTensor* t) {
  return t->params.scale > 0.0f && std::isfinite(t->params.scale);
}

void TypeRange(TfLiteType t, int32_t* lo, int32_t* hi) {
  switch (t) {
    case kTfLiteUInt8:
      *lo = 0;
      *hi = 255;
      break;
    case kTfLiteInt8:
      *lo = -128;
      *hi = 127;
      break;
    case kTfLiteInt16:
      *lo = -32768;
      *hi = 32767;
      break;
    default:
      *lo = std::numeric_limits<int32_t>::min();
      *hi = std::numeric_limits<int32_t>::max();
      break;
  }
}

TfLiteStatus RequireScale(TfLiteContext* context, const TfLiteTensor* t, const char* op,
                          const char* which) {
  EW_ENSURE(context, HasScale(t),
            "%s: %s tensor of type %s needs quantization parameters (a positive scale)", op, which,
            TypeName(t->type));
  return kTfLiteOk;
}

TfLiteStatus RequireScales(TfLiteContext* context, const char* op, const TfLiteTensor* in,
                           const TfLiteTensor* out) {
  EW_OK(RequireScale(context, in, op, "input"));
  return RequireScale(context, out, op, "output");
}
TfLiteStatus RequireScales(TfLiteContext* context, const char* op, const TfLiteTensor* in1,
                           const TfLiteTensor* in2, const TfLiteTensor* out) {
  EW_OK(RequireScale(context, in1, op, "input 0"));
  EW_OK(RequireScale(context, in2, op, "input 1"));
  return RequireScale(context, out, op, "output");
}

// The table of an 8-bit (uint8 or int8) input: quantize_out(f(dequantize_in(v))) for each value.
template <typename F>
void PopulateLut8(const TfLiteTensor* in, const TfLiteTensor* out, F f, uint8_t* lut) {
  if (in->type == kTfLiteUInt8) {
    elementwise::PopulateLut8<uint8_t>(in->params.scale, in->params.zero_point, out->params.scale,
                                       out->params.zero_point, f, lut);
  } else {
    elementwise::PopulateLut8<int8_t>(in->params.scale, in->params.zero_point, out->params.scale,
                                      out->params.zero_point, f, lut);
  }
}

// Clamp bounds of a fused activation for float and integer outputs. With no activation the bounds
// are the type's finite range: a float infinity becomes the largest finite value, as in TFLite.
// TFLite's ADD, SUB, MUL and DIV take every fused activation and clamp nothing for TANH, SIGN_BIT
// and the others that are not a range: neither do these.
template <typename T>
void ActivationBounds(TfLiteFusedActivation a, T* lo, T* hi) {
  switch (a) {
    case kTfLiteActRelu:
      *lo = 0;
      *hi = std::numeric_limits<T>::max();
      break;
    case kTfLiteActRelu6:
      *lo = 0;
      *hi = 6;
      break;
    case kTfLiteActReluN1To1:
      *lo = -1;
      *hi = 1;
      break;
    default:
      *lo = std::numeric_limits<T>::lowest();
      *hi = std::numeric_limits<T>::max();
      break;
  }
}

template <typename T>
T Clamp(T v, T lo, T hi) {
  return std::min(std::max(v, lo), hi);
}

// Clamp bounds of a fused activation on a quantized output, in the output's integer units.
void QuantizedActivationBounds(TfLiteFusedActivation a, const TfLiteTensor* out, int32_t* lo,
                               int32_t* hi) {
  int32_t qmin, qmax;
  TypeRange(out->type, &qmin, &qmax);
  const float scale = out->params.scale;
  const int32_t zp = out->params.zero_point;
  auto quantize = [&](float f) { return zp + static_cast<int32_t>(std::round(f / scale)); };
  switch (a) {
    case kTfLiteActRelu:
      *lo = std::max(qmin, quantize(0.0f));
      *hi = qmax;
      break;
    case kTfLiteActRelu6:
      *lo = std::max(qmin, quantize(0.0f));
      *hi = std::min(qmax, quantize(6.0f));
      break;
    case kTfLiteActReluN1To1:
      *lo = std::max(qmin, quantize(-1.0f));
      *hi = std::min(qmax, quantize(1.0f));
      break;
    default:
      *lo = qmin;
      *hi = qmax;
      break;
  }
}

// Sets out's shape to the broadcast of a's and b's (a's shape when they match).
TfLiteStatus ResizeBroadcast(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                             TfLiteTensor* out, const char* op) {
  TfLiteIntArray* shape = nullptr;
  if (tflite::HaveSameShapes(a, b)) {
    shape = TfLiteIntArrayCopy(a->dims);
  } else if (tflite::CalculateShapeForBroadcast(context, a, b, &shape) != kTfLiteOk) {
    TF_LITE_KERNEL_LOG(context, "%s: input shapes cannot be broadcast together", op);
    return kTfLiteError;
  }
  if (shape->size > elementwise::kMaxBroadcastRank) {
    TF_LITE_KERNEL_LOG(context, "%s: rank %d exceeds the supported maximum of %d", op, shape->size,
                       elementwise::kMaxBroadcastRank);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  return context->ResizeTensor(context, out, shape);
}

TfLiteStatus ResizeLike(TfLiteContext* context, const TfLiteTensor* in, TfLiteTensor* out) {
  return context->ResizeTensor(context, out, TfLiteIntArrayCopy(in->dims));
}

template <typename T>
const T* In(const TfLiteTensor* t) {
  return reinterpret_cast<const T*>(t->data.raw_const);
}
template <typename T>
T* Out(TfLiteTensor* t) {
  return reinterpret_cast<T*>(t->data.raw);
}

// Binary broadcast over tensors; the shapes were checked in Prepare.
template <typename A, typename B, typename O, typename F>
TfLiteStatus Binary(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                    TfLiteTensor* out, F&& f) {
  EW_ENSURE(context,
            BroadcastBinary(a->dims, In<A>(a), b->dims, In<B>(b), out->dims, Out<O>(out), f),
            "element-wise op: input shapes do not broadcast to the output shape");
  return kTfLiteOk;
}

template <typename T, typename F>
TfLiteStatus Unary(const TfLiteTensor* in, TfLiteTensor* out, F&& f) {
  const int64_t n = tflite::NumElements(in);
  const T* x = In<T>(in);
  T* y = Out<T>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  return kTfLiteOk;
}

// eval(T()) for the element type T among `types` that `type` stores; any other type is refused.
template <typename Types, typename Eval>
TfLiteStatus EvalForType(TfLiteContext* context, Types types, TfLiteType type, const char* op,
                         Eval&& eval) {
  return DispatchType(types, type, eval, [&] {
    TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", op, TypeName(type));
    return kTfLiteError;
  });
}

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
  if (k == Arith::kAdd)
    return static_cast<const TfLiteAddParams*>(node->builtin_data)->pot_scale_int16;
  if (k == Arith::kSub)
    return static_cast<const TfLiteSubParams*>(node->builtin_data)->pot_scale_int16;
  return false;
}

// ADD/SUB on quantized tensors: both inputs are brought to a common scale (twice the larger input
// scale, with 20 extra bits for 8-bit types and 15 for int16), added, and rescaled to the output.
TfLiteStatus PrepareQuantizedAddSub(TfLiteContext* context, TfLiteNode* node, Arith kind,
                                    const TfLiteTensor* in1, const TfLiteTensor* in2,
                                    TfLiteTensor* out) {
  const char* op = ArithName(kind);
  OpData* d = Data(node);
  int32_t qmin, qmax;
  TypeRange(out->type, &qmin, &qmax);
  for (const TfLiteTensor* t :
       {static_cast<const TfLiteTensor*>(in1), static_cast<const TfLiteTensor*>(in2),
        static_cast<const TfLiteTensor*>(out)}) {
    EW_ENSURE(context, t->params.zero_point >= qmin && t->params.zero_point <= qmax,
              "%s: zero point %d is outside the range of %s", op, t->params.zero_point,
              TypeName(t->type));
  }
  bool general = true;
  int log1 = 0, log2 = 0, logo = 0;
  if (out->type == kTfLiteInt16) {
    EW_ENSURE(
        context,
        in1->params.zero_point == 0 && in2->params.zero_point == 0 && out->params.zero_point == 0,
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
    EW_ENSURE(context, d->input1_shift == 0 || d->input2_shift == 0,
              "%s: with power-of-two int16 scales one input's scale must equal the output's", op);
    EW_ENSURE(context, d->input1_shift <= 0 && d->input2_shift <= 0,
              "%s: with power-of-two int16 scales the inputs' scales may not exceed the output's",
              op);
  } else {
    d->input1_offset = -in1->params.zero_point;
    d->input2_offset = -in2->params.zero_point;
    d->output_offset = out->params.zero_point;
    d->left_shift = out->type == kTfLiteInt16 ? 15 : 20;
    const double twice_max_input_scale = 2.0f * std::max(in1->params.scale, in2->params.scale);
    const double real1 = in1->params.scale / twice_max_input_scale;
    const double real2 = in2->params.scale / twice_max_input_scale;
    const double real_out =
        twice_max_input_scale / (static_cast<float>(1 << d->left_shift) * out->params.scale);
    QuantizeMultiplier(real1, &d->input1_multiplier, &d->input1_shift);
    QuantizeMultiplier(real2, &d->input2_multiplier, &d->input2_shift);
    QuantizeMultiplier(real_out, &d->output_multiplier, &d->output_shift);
  }
  QuantizedActivationBounds(ArithActivation(kind, node), out, &d->act_min, &d->act_max);
  return kTfLiteOk;
}

template <Arith kind>
TfLiteStatus PrepareArith(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ArithName(kind);
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, op, in, &out));
  const TfLiteTensor* in1 = in[0];
  const TfLiteTensor* in2 = in[1];
  EW_ENSURE(context, in1->type == in2->type, "%s: input types differ (%s vs %s)", op,
            TypeName(in1->type), TypeName(in2->type));
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
  EW_ENSURE(context, kind != Arith::kMul || out->type == type || out->type == kTfLiteNoType,
            "MUL: output type %s differs from input type %s", TypeName(out->type), TypeName(type));
  out->type = type;
  OpData* d = Data(node);
  bool type_ok = false;
  switch (kind) {
    case Arith::kAdd:
    case Arith::kSub:
      type_ok = type == kTfLiteFloat32 || type == kTfLiteInt32 || type == kTfLiteInt64 ||
                IsQuantizableType(type);
      break;
    case Arith::kMul:
      type_ok = type == kTfLiteFloat32 || type == kTfLiteInt32 || type == kTfLiteInt64 ||
                IsQuantizableType(type);
      break;
    case Arith::kDiv:
      type_ok = type == kTfLiteFloat32 || type == kTfLiteInt32 || type == kTfLiteUInt8 ||
                type == kTfLiteInt8;
      break;
  }
  EW_ENSURE(context, type_ok, "%s: type %s is not supported", op, TypeName(type));

  // int16 MUL without quantization parameters is plain integer multiplication.
  const bool quantized =
      IsQuantizableType(type) && !(kind == Arith::kMul && type == kTfLiteInt16 && !HasScale(in1) &&
                                   !HasScale(in2) && !HasScale(out));
  if (quantized) {
    EW_OK(RequireScales(context, op, in1, in2, out));
    if (kind == Arith::kAdd || kind == Arith::kSub) {
      EW_OK(PrepareQuantizedAddSub(context, node, kind, in1, in2, out));
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
      const float real = kind == Arith::kMul
                             ? in1->params.scale * in2->params.scale / out->params.scale
                             : in1->params.scale / (in2->params.scale * out->params.scale);
      QuantizeMultiplier(real, &d->output_multiplier, &d->output_shift);
      QuantizedActivationBounds(activation, out, &d->act_min, &d->act_max);
    }
  }
  return ResizeBroadcast(context, in1, in2, out, op);
}

template <Arith kind, typename T>
TfLiteStatus EvalArithPlain(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor* in1,
                            const TfLiteTensor* in2, TfLiteTensor* out) {
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
      for (int64_t i = 0; i < n; ++i) EW_ENSURE(context, b[i] != 0, "DIV: division by zero");
    }
    return Binary<T, T, T>(context, in1, in2, out, [lo, hi](T a, T b) {
      T r;
      switch (kind) {
        case Arith::kAdd: r = qu::WrappingAdd<T>(a, b); break;
        case Arith::kSub: r = qu::WrappingSub<T>(a, b); break;
        case Arith::kMul: r = qu::WrappingMul<T>(a, b); break;
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
  const int32_t r =
      MultiplyByQuantizedMultiplier(raw, d.output_multiplier, d.output_shift) + d.output_offset;
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
      return Binary<T, T, T>(context, in1, in2, out,
                             [d](T a, T b) { return QuantizedAddSubValue<kind, T>(d, a, b); });
    case Arith::kMul:
      return Binary<T, T, T>(context, in1, in2, out, [d](T a, T b) {
        const int32_t p = (d.input1_offset + a) * (d.input2_offset + b);
        const int32_t r =
            d.output_offset + MultiplyByQuantizedMultiplier(p, d.output_multiplier, d.output_shift);
        return static_cast<T>(Clamp(r, d.act_min, d.act_max));
      });
    default: {
      const int64_t n = tflite::NumElements(in2);
      const T* b = In<T>(in2);
      for (int64_t i = 0; i < n; ++i) {
        EW_ENSURE(context, b[i] != static_cast<T>(in2->params.zero_point),
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
        const int32_t unscaled =
            qu::SaturatingRoundingDoublingHighMul(elementwise::ShiftLeftWrap(x, headroom), inv);
        const int total_shift = d.output_shift - recip_shift - headroom;
        const int32_t r = d.output_offset +
                          MultiplyByQuantizedMultiplier(unscaled, d.output_multiplier, total_shift);
        return static_cast<T>(Clamp(r, d.act_min, d.act_max));
      });
    }
  }
}

template <Arith kind>
TfLiteStatus EvalArith(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, ArithName(kind), in, &out));
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
      if (kind == Arith::kMul && !HasScale(out))
        return EvalArithPlain<kind, int16_t>(context, node, in[0], in[1], out);
      return EvalArithQuantized<kind, int16_t>(context, node, in[0], in[1], out);
    default:
      TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", ArithName(kind),
                         TypeName(out->type));
      return kTfLiteError;
  }
}

// ================================================================================================
// SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, POW, FLOOR_DIV, FLOOR_MOD.

// Shared Prepare for binary ops without options: same input types, output of that type, broadcast.
template <typename Types>
TfLiteStatus PrepareSimpleBinary(TfLiteContext* context, TfLiteNode* node, const char* op,
                                 Types types) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, op, in, &out));
  EW_ENSURE(context, in[0]->type == in[1]->type, "%s: input types differ (%s vs %s)", op,
            TypeName(in[0]->type), TypeName(in[1]->type));
  EW_ENSURE(context, IsOneOf(types, in[0]->type), "%s: type %s is not supported", op,
            TypeName(in[0]->type));
  out->type = in[0]->type;
  return ResizeBroadcast(context, in[0], in[1], out, op);
}

using SquaredDifferenceTypes = TypeList<float, int32_t, int8_t>;

TfLiteStatus PrepareSquaredDifference(TfLiteContext* context, TfLiteNode* node) {
  EW_OK(PrepareSimpleBinary(context, node, "SQUARED_DIFFERENCE", SquaredDifferenceTypes()));
  const TfLiteTensor* in1 = tflite::GetInput(context, node, 0);
  const TfLiteTensor* in2 = tflite::GetInput(context, node, 1);
  TfLiteTensor* out = tflite::GetOutput(context, node, 0);
  if (in1->type == kTfLiteInt8) {
    const char* op = "SQUARED_DIFFERENCE";
    EW_OK(RequireScales(context, op, in1, in2, out));
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
  EW_OK(GetIO(context, node, 2, "SQUARED_DIFFERENCE", in, &out));
  switch (out->type) {
    case kTfLiteFloat32:
      return Binary<float, float, float>(context, in[0], in[1], out, [](float a, float b) {
        const float diff = a - b;
        return diff * diff;
      });
    case kTfLiteInt32:
      return Binary<int32_t, int32_t, int32_t>(context, in[0], in[1], out,
                                               [](int32_t a, int32_t b) {
                                                 const int32_t diff = qu::WrappingSub(a, b);
                                                 return qu::WrappingMul(diff, diff);
                                               });
    case kTfLiteInt8: {
      const OpData d = *Data(node);
      return Binary<int8_t, int8_t, int8_t>(context, in[0], in[1], out, [d](int8_t a, int8_t b) {
        const int32_t s1 = MultiplyByQuantizedMultiplier(
            (d.input1_offset + a) * (1 << d.left_shift), d.input1_multiplier, d.input1_shift);
        const int32_t s2 = MultiplyByQuantizedMultiplier(
            (d.input2_offset + b) * (1 << d.left_shift), d.input2_multiplier, d.input2_shift);
        const int32_t diff = s1 - s2;
        const int32_t r =
            MultiplyByQuantizedMultiplier(diff * diff, d.output_multiplier, d.output_shift) +
            d.output_offset;
        return static_cast<int8_t>(Clamp<int32_t>(r, -128, 127));
      });
    }
    default:
      TF_LITE_KERNEL_LOG(context, "SQUARED_DIFFERENCE: type %s is not supported",
                         TypeName(out->type));
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
TfLiteStatus EvalMinMaxT(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                         TfLiteTensor* out) {
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
  EW_OK(GetIO(context, node, 2, op, in, &out));
  return EvalForType(context, MinMaxTypes(), out->type, op, [&](auto t) {
    return EvalMinMaxT<kMax, decltype(t)>(context, in[0], in[1], out);
  });
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
  EW_OK(GetIO(context, node, 2, "POW", in, &out));
  switch (out->type) {
    case kTfLiteFloat32:
      return Binary<float, float, float>(context, in[0], in[1], out,
                                         [](float a, float b) { return std::pow(a, b); });
    case kTfLiteInt32: {
      const int64_t n = tflite::NumElements(in[1]);
      const int32_t* e = In<int32_t>(in[1]);
      for (int64_t i = 0; i < n; ++i)
        EW_ENSURE(context, e[i] >= 0, "POW: negative exponent %d for int32", e[i]);
      return Binary<int32_t, int32_t, int32_t>(
          context, in[0], in[1], out, [](int32_t a, int32_t b) {
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
  for (int64_t i = 0; i < n; ++i) EW_ENSURE(context, v[i] != 0, "%s: division by zero", op);
  return kTfLiteOk;
}

// floor(a / b), the quotient formed in double.
template <typename T>
TfLiteStatus EvalFloorDivT(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                           TfLiteTensor* out) {
  if (std::is_integral<T>::value) EW_OK(CheckNoZeroDivisor<T>(context, b, "FLOOR_DIV"));
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
  EW_OK(GetIO(context, node, 2, "FLOOR_DIV", in, &out));
  return EvalForType(context, FloorDivModTypes(), out->type, "FLOOR_DIV", [&](auto t) {
    return EvalFloorDivT<decltype(t)>(context, in[0], in[1], out);
  });
}

// Python's modulo: the remainder takes the divisor's sign. Integer types; float below.
template <typename T>
TfLiteStatus EvalFloorModT(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                           TfLiteTensor* out) {
  EW_OK(CheckNoZeroDivisor<T>(context, b, "FLOOR_MOD"));
  return Binary<T, T, T>(context, a, b, out, [](T x, T y) {
    // x % -1 is 0 (and INT_MIN % -1 would trap).
    const T trunc_mod = y == static_cast<T>(-1) ? T(0) : static_cast<T>(x % y);
    return (trunc_mod != 0) && ((y < 0) != (trunc_mod < 0)) ? static_cast<T>(trunc_mod + y)
                                                            : trunc_mod;
  });
}

// Float: the truncated remainder from fmod, moved onto the divisor's sign.
template <>
TfLiteStatus EvalFloorModT<float>(TfLiteContext* context, const TfLiteTensor* a,
                                  const TfLiteTensor* b, TfLiteTensor* out) {
  return Binary<float, float, float>(context, a, b, out, [](float x, float y) {
    const float trunc_mod = std::fmod(x, y);
    return (trunc_mod != 0) && ((y < 0) != (trunc_mod < 0)) ? trunc_mod + y : trunc_mod;
  });
}

TfLiteStatus EvalFloorMod(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, "FLOOR_MOD", in, &out));
  return EvalForType(context, FloorDivModTypes(), out->type, "FLOOR_MOD", [&](auto t) {
    return EvalFloorModT<decltype(t)>(context, in[0], in[1], out);
  });
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
  EW_OK(GetIO(context, node, 2, "BITWISE_XOR", in, &out));
  return EvalForType(context, BitTypes(), out->type, "BITWISE_XOR", [&](auto t) {
    using T = decltype(t);
    return Binary<T, T, T>(context, in[0], in[1], out, [](T a, T b) { return static_cast<T>(a ^ b); });
  });
}

// TFLite clamps the shift to [0, bits - 1] and shifts signed values arithmetically.
TfLiteStatus EvalRightShift(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, "RIGHT_SHIFT", in, &out));
  return EvalForType(context, BitTypes(), out->type, "RIGHT_SHIFT", [&](auto t) {
    using T = decltype(t);
    return Binary<T, T, T>(context, in[0], in[1], out, [](T a, T b) {
      constexpr int kBits = static_cast<int>(sizeof(T) * 8);
      const int64_t shift = std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(b), 0), kBits - 1);
      return static_cast<T>(a >> shift);
    });
  });
}

// ================================================================================================
// Unary math: ABS, NEG, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND.

// Shared Prepare: one input, output of the same type and shape.
TfLiteStatus PrepareUnaryBase(TfLiteContext* context, TfLiteNode* node, const char* op,
                              bool (*type_ok)(TfLiteType), const TfLiteTensor** in,
                              TfLiteTensor** out) {
  EW_OK(GetIO(context, node, 1, op, in, out));
  EW_ENSURE(context, type_ok((*in)->type), "%s: type %s is not supported", op,
            TypeName((*in)->type));
  EW_ENSURE(context, (*in)->type == (*out)->type, "%s: output type %s differs from input type %s",
            op, TypeName((*out)->type), TypeName((*in)->type));
  return ResizeLike(context, *in, *out);
}

bool FloatOnly(TfLiteType t) { return t == kTfLiteFloat32; }

// Float-only unary ops.
template <int kOp>
struct FloatUnary;
#define EW_FLOAT_UNARY(ID, NAME, EXPR)           \
  template <>                                    \
  struct FloatUnary<ID> {                        \
    static constexpr const char* kName = NAME;   \
    static float Apply(float x) { return EXPR; } \
  };
EW_FLOAT_UNARY(0, "SQRT", std::sqrt(x))
EW_FLOAT_UNARY(1, "SQUARE", x* x)
EW_FLOAT_UNARY(2, "SIN", std::sin(x))
EW_FLOAT_UNARY(3, "COS", std::cos(x))
EW_FLOAT_UNARY(4, "FLOOR", std::floor(x))
EW_FLOAT_UNARY(5, "CEIL", std::ceil(x))
EW_FLOAT_UNARY(6, "ROUND", std::nearbyint(x))  // ties to even (default rounding mode)
EW_FLOAT_UNARY(7, "LOG", std::log(x))
#undef EW_FLOAT_UNARY

template <int kOp>
TfLiteStatus PrepareFloatUnary(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  return PrepareUnaryBase(context, node, FloatUnary<kOp>::kName, FloatOnly, &in, &out);
}

template <int kOp>
TfLiteStatus EvalFloatUnary(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, FloatUnary<kOp>::kName, &in, &out));
  EW_ENSURE(context, in->type == kTfLiteFloat32, "%s: type %s is not supported",
            FloatUnary<kOp>::kName, TypeName(in->type));
  return Unary<float>(in, out, FloatUnary<kOp>::Apply);
}

// Records input/output zero points for the quantized unary ops; int16 must be symmetric.
TfLiteStatus PrepareQuantizedUnaryOffsets(TfLiteContext* context, TfLiteNode* node, const char* op,
                                          const TfLiteTensor* in, const TfLiteTensor* out) {
  EW_OK(RequireScales(context, op, in, out));
  OpData* d = Data(node);
  d->input1_offset = in->params.zero_point;
  d->output_offset = out->params.zero_point;
  if (in->type == kTfLiteInt16) {
    EW_ENSURE(context, in->params.zero_point == 0 && out->params.zero_point == 0,
              "%s: int16 tensors must have zero point 0", op);
  }
  return kTfLiteOk;
}

bool AbsTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteInt8 || t == kTfLiteInt16 || t == kTfLiteInt32;
}

TfLiteStatus PrepareAbs(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "ABS", AbsTypes, &in, &out));
  OpData* d = Data(node);
  d->needs_rescale = false;
  if (in->type == kTfLiteInt8 || (in->type == kTfLiteInt16 && HasScale(in))) {
    EW_OK(PrepareQuantizedUnaryOffsets(context, node, "ABS", in, out));
    d->needs_rescale = in->params.scale != out->params.scale;
    if (d->needs_rescale)
      QuantizeMultiplier(in->params.scale / out->params.scale, &d->multiplier, &d->shift);
  }
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus EvalAbsQuantized(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData d = *Data(node);
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return Unary<T>(in, out, [&](T x) {
    const int32_t v = std::abs(static_cast<int32_t>(x) - d.input1_offset);
    const int32_t r =
        d.needs_rescale ? MultiplyByQuantizedMultiplier(v, d.multiplier, d.shift) + d.output_offset
                        : v + d.output_offset;
    return static_cast<T>(Clamp(r, lo, hi));
  });
}

TfLiteStatus EvalAbs(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "ABS", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return std::fabs(x); });
    case kTfLiteInt32:
      return Unary<int32_t>(in, out, [](int32_t x) { return x < 0 ? qu::WrappingNeg(x) : x; });
    case kTfLiteInt8:
      return EvalAbsQuantized<int8_t>(node, in, out);
    case kTfLiteInt16:
      if (!HasScale(in)) {
        return Unary<int16_t>(in, out, [](int16_t x) {
          return static_cast<int16_t>(std::abs(static_cast<int32_t>(x)));
        });
      }
      return EvalAbsQuantized<int16_t>(node, in, out);
    default:
      TF_LITE_KERNEL_LOG(context, "ABS: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

bool NegTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteInt32 || t == kTfLiteInt64;
}

TfLiteStatus PrepareNeg(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  return PrepareUnaryBase(context, node, "NEG", NegTypes, &in, &out);
}

TfLiteStatus EvalNeg(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "NEG", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return -x; });
    case kTfLiteInt32: return Unary<int32_t>(in, out, [](int32_t x) { return qu::WrappingNeg(x); });
    case kTfLiteInt64: return Unary<int64_t>(in, out, [](int64_t x) { return qu::WrappingNeg(x); });
    default:
      TF_LITE_KERNEL_LOG(context, "NEG: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

bool RsqrtTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteInt8; }

TfLiteStatus PrepareRsqrt(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "RSQRT", RsqrtTypes, &in, &out));
  if (in->type == kTfLiteInt8) {
    EW_OK(PrepareQuantizedUnaryOffsets(context, node, "RSQRT", in, out));
    OpData* d = Data(node);
    const double real = 1. / (std::sqrt(in->params.scale) * out->params.scale);
    QuantizeMultiplier(real, &d->multiplier, &d->shift);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalRsqrt(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "RSQRT", &in, &out));
  if (in->type == kTfLiteFloat32)
    return Unary<float>(in, out, [](float x) { return 1.f / std::sqrt(x); });
  EW_ENSURE(context, in->type == kTfLiteInt8, "RSQRT: type %s is not supported",
            TypeName(in->type));
  const OpData d = *Data(node);
  const int64_t n = tflite::NumElements(in);
  const int8_t* x = In<int8_t>(in);
  for (int64_t i = 0; i < n; ++i) {
    EW_ENSURE(context, x[i] >= d.input1_offset,
              "RSQRT: input is negative (defined for non-negative values only)");
  }
  return Unary<int8_t>(in, out, [&](int8_t v) -> int8_t {
    const int32_t value = v - d.input1_offset;
    constexpr int kShift = 20;  // keeps the reciprocal square root an integer
    if (value == 0) return 127;
    int32_t inv_sqrt_multiplier;
    int inv_sqrt_shift;
    qu::GetInvSqrtQuantizedMultiplierExp(value, -1, &inv_sqrt_multiplier, &inv_sqrt_shift);
    const int32_t data =
        MultiplyByQuantizedMultiplier(1, inv_sqrt_multiplier, inv_sqrt_shift + kShift);
    const int32_t r =
        MultiplyByQuantizedMultiplier(data, d.multiplier, d.shift - kShift) + d.output_offset;
    return static_cast<int8_t>(Clamp<int32_t>(r, -128, 127));
  });
}

bool ExpTypes(TfLiteType t) { return t == kTfLiteFloat32 || t == kTfLiteInt8 || t == kTfLiteInt16; }

TfLiteStatus PrepareExp(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "EXP", ExpTypes, &in, &out));
  OpData* d = Data(node);
  auto f = [](float v) { return std::exp(v); };
  if (in->type == kTfLiteInt8) {
    EW_OK(RequireScales(context, "EXP", in, out));
    PopulateLut8(in, out, f, d->lut8);
  } else if (in->type == kTfLiteInt16) {
    EW_OK(RequireScales(context, "EXP", in, out));
    qu::PopulateLut16(in->params.scale, in->params.zero_point, out->params.scale,
                      out->params.zero_point, f, d->lut16);
  }
  return kTfLiteOk;
}

// Applies a table prepared in OpData to an 8- or 16-bit tensor.
TfLiteStatus EvalLut(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData* d = Data(node);
  const int64_t n = tflite::NumElements(in);
  if (in->type == kTfLiteInt16) {
    const int16_t* x = In<int16_t>(in);
    int16_t* y = Out<int16_t>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = qu::Lut16Lookup(x[i], d->lut16);
    return kTfLiteOk;
  }
  const uint8_t* x = In<uint8_t>(in);  // int8 bytes index the table directly
  uint8_t* y = Out<uint8_t>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = d->lut8[x[i]];
  return kTfLiteOk;
}

TfLiteStatus EvalExp(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "EXP", &in, &out));
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

// ================================================================================================
// Activations: TANH, LOGISTIC, RELU family, LEAKY_RELU, PRELU, HARD_SWISH, ELU, GELU.

bool TanhLogisticTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8 || t == kTfLiteInt16;
}

// int16 tanh/logistic: a power-of-two input scale of 2^-12 (tanh also 2^-11) goes through the
// fixed-point functions on Q3.12; any other scale is rescaled by input_multiplier / 2^shift onto
// the sigmoid table's scale. The output must be Q0.15.
TfLiteStatus PrepareInt16TanhLogistic(TfLiteContext* context, TfLiteNode* node, const char* op,
                                      bool tanh, const TfLiteTensor* in, const TfLiteTensor* out) {
  EW_OK(PrepareQuantizedUnaryOffsets(context, node, op, in, out));
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
  EW_ENSURE(context, qu::CheckedLog2(out->params.scale, &out_log2) && out_log2 == -15,
            "%s: int16 output scale must be 1/32768 (got %g)", op, out->params.scale);
  return kTfLiteOk;
}

TfLiteStatus PrepareTanh(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "TANH", TanhLogisticTypes, &in, &out));
  OpData* d = Data(node);
  auto f = [](float v) { return std::tanh(v); };
  if (in->type == kTfLiteUInt8 || in->type == kTfLiteInt8) {
    EW_OK(RequireScales(context, "TANH", in, out));
    PopulateLut8(in, out, f, d->lut8);
  } else if (in->type == kTfLiteInt16) {
    EW_OK(PrepareInt16TanhLogistic(context, node, "TANH", true, in, out));
  }
  return kTfLiteOk;
}

TfLiteStatus EvalTanh(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "TANH", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, [](float x) { return std::tanh(x); });
    case kTfLiteUInt8:
    case kTfLiteInt8:
      return EvalLut(node, in, out);
    case kTfLiteInt16: {
      const OpData d = *Data(node);
      if (d.input_multiplier > 0) {
        return Unary<int16_t>(in, out, [&](int16_t x) {
          return elementwise::TanhInt16ByTable(x, d.input_multiplier, d.input_left_shift);
        });
      }
      using F3 = fp::FixedPoint<int16_t, 3>;
      return Unary<int16_t>(in, out, [&](int16_t x) {
        const int16_t v =
            d.input_left_shift == 1 ? fp::SaturatingRoundingMultiplyByPOT<int16_t>(x, 1) : x;
        return fp::Tanh(F3::FromRaw(v)).raw;
      });
    }
    default:
      TF_LITE_KERNEL_LOG(context, "TANH: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

float LogisticFloat(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TfLiteStatus PrepareLogistic(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "LOGISTIC", TanhLogisticTypes, &in, &out));
  OpData* d = Data(node);
  if (in->type == kTfLiteUInt8 || in->type == kTfLiteInt8) {
    EW_OK(RequireScales(context, "LOGISTIC", in, out));
    EW_ENSURE(context, out->params.scale == 1. / 256,
              "LOGISTIC: 8-bit output scale must be 1/256 (got %g)", out->params.scale);
    PopulateLut8(in, out, LogisticFloat, d->lut8);
  } else if (in->type == kTfLiteInt16) {
    EW_OK(RequireScale(context, out, "LOGISTIC", "output"));
    EW_ENSURE(context, out->params.scale == 1. / 32768 && out->params.zero_point == 0,
              "LOGISTIC: int16 output must have scale 1/32768 and zero point 0");
    EW_OK(PrepareInt16TanhLogistic(context, node, "LOGISTIC", false, in, out));
  }
  return kTfLiteOk;
}

TfLiteStatus EvalLogistic(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "LOGISTIC", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(in, out, LogisticFloat);
    case kTfLiteUInt8:
    case kTfLiteInt8:
      return EvalLut(node, in, out);
    case kTfLiteInt16: {
      const OpData d = *Data(node);
      if (d.input_multiplier > 0) {
        return Unary<int16_t>(in, out, [&](int16_t x) {
          return elementwise::LogisticInt16ByTable(x, d.input_multiplier, d.input_left_shift);
        });
      }
      using F3 = fp::FixedPoint<int16_t, 3>;
      return Unary<int16_t>(in, out, [](int16_t x) { return fp::Logistic(F3::FromRaw(x)).raw; });
    }
    default:
      TF_LITE_KERNEL_LOG(context, "LOGISTIC: type %s is not supported", TypeName(in->type));
      return kTfLiteError;
  }
}

// RELU family: clamp to [lo, hi]; quantized tensors are rescaled from the input's to the output's
// quantization and clamped to the quantized bounds.
enum class ReluKind { kRelu, kRelu6, kReluN1To1, kRelu0To1 };

template <ReluKind k>
struct ReluInfo;
template <>
struct ReluInfo<ReluKind::kRelu> {
  static constexpr const char* kName = "RELU";
  static constexpr bool kInt16 = true;
  static float Lo() { return 0.0f; }
  static float Hi() { return std::numeric_limits<float>::infinity(); }
};
template <>
struct ReluInfo<ReluKind::kRelu6> {
  static constexpr const char* kName = "RELU6";
  static constexpr bool kInt16 = true;
  static float Lo() { return 0.0f; }
  static float Hi() { return 6.0f; }
};
template <>
struct ReluInfo<ReluKind::kReluN1To1> {
  static constexpr const char* kName = "RELU_N1_TO_1";
  static constexpr bool kInt16 = false;
  static float Lo() { return -1.0f; }
  static float Hi() { return 1.0f; }
};
template <>
struct ReluInfo<ReluKind::kRelu0To1> {
  static constexpr const char* kName = "RELU_0_TO_1";
  static constexpr bool kInt16 = false;
  static float Lo() { return 0.0f; }
  static float Hi() { return 1.0f; }
};

template <ReluKind k>
bool ReluTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8 ||
         (ReluInfo<k>::kInt16 && t == kTfLiteInt16);
}

template <ReluKind k>
TfLiteStatus PrepareRelu(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ReluInfo<k>::kName;
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, op, ReluTypes<k>, &in, &out));
  if (in->type != kTfLiteFloat32) {
    EW_OK(PrepareQuantizedUnaryOffsets(context, node, op, in, out));
    OpData* d = Data(node);
    QuantizeMultiplier(in->params.scale / out->params.scale, &d->multiplier, &d->shift);
    int32_t qmin, qmax;
    TypeRange(out->type, &qmin, &qmax);
    const float scale = out->params.scale;
    const int32_t zp = out->params.zero_point;
    d->act_min = std::max(qmin, zp + static_cast<int32_t>(std::round(ReluInfo<k>::Lo() / scale)));
    d->act_max =
        std::isinf(ReluInfo<k>::Hi())
            ? qmax
            : std::min(qmax, zp + static_cast<int32_t>(std::round(ReluInfo<k>::Hi() / scale)));
  }
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus EvalReluQuantized(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
  const OpData d = *Data(node);
  return Unary<T>(in, out, [&](T x) {
    const int32_t r =
        d.output_offset + MultiplyByQuantizedMultiplier(static_cast<int32_t>(x) - d.input1_offset,
                                                        d.multiplier, d.shift);
    return static_cast<T>(Clamp(r, d.act_min, d.act_max));
  });
}

template <ReluKind k>
TfLiteStatus EvalRelu(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ReluInfo<k>::kName;
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, op, &in, &out));
  switch (in->type) {
    case kTfLiteFloat32: {
      const float lo = ReluInfo<k>::Lo(), hi = ReluInfo<k>::Hi();
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
  return node->builtin_data ? static_cast<const TfLiteLeakyReluParams*>(node->builtin_data)->alpha
                            : 0.2f;
}

TfLiteStatus PrepareLeakyRelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "LEAKY_RELU", LeakyReluTypes, &in, &out));
  if (in->type != kTfLiteFloat32) {
    EW_OK(PrepareQuantizedUnaryOffsets(context, node, "LEAKY_RELU", in, out));
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
  EW_OK(GetIO(context, node, 1, "LEAKY_RELU", &in, &out));
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
  EW_OK(GetIO(context, node, 2, "PRELU", in, &out));
  const TfLiteTensor* input = in[0];
  const TfLiteTensor* alpha = in[1];
  EW_ENSURE(context, input->type == alpha->type, "PRELU: input type %s and alpha type %s differ",
            TypeName(input->type), TypeName(alpha->type));
  EW_ENSURE(
      context,
      input->type == kTfLiteFloat32 || input->type == kTfLiteUInt8 || input->type == kTfLiteInt8,
      "PRELU: type %s is not supported", TypeName(input->type));
  out->type = input->type;
  if (input->type != kTfLiteFloat32) {
    EW_OK(RequireScale(context, input, "PRELU", "input"));
    EW_OK(RequireScale(context, alpha, "PRELU", "alpha"));
    EW_OK(RequireScale(context, out, "PRELU", "output"));
    OpData* d = Data(node);
    d->input1_offset = -input->params.zero_point;
    d->input2_offset = -alpha->params.zero_point;
    d->output_offset = out->params.zero_point;
    QuantizeMultiplier(input->params.scale / out->params.scale, &d->multiplier, &d->shift);
    QuantizeMultiplier(input->params.scale * alpha->params.scale / out->params.scale,
                       &d->multiplier2, &d->shift2);
  }
  EW_OK(ResizeBroadcast(context, input, alpha, out, "PRELU"));
  EW_ENSURE(context, tflite::HaveSameShapes(input, out),
            "PRELU: alpha must broadcast to the input's shape");
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
  EW_OK(GetIO(context, node, 2, "PRELU", in, &out));
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

bool HardSwishTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8;
}

int16_t DownScaleMultiplierToInt16(int32_t m) {
  constexpr int32_t kRound = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRound) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + kRound) >> 16);
}

TfLiteStatus PrepareHardSwish(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "HARD_SWISH", HardSwishTypes, &in, &out));
  if (in->type != kTfLiteFloat32) {
    EW_OK(PrepareQuantizedUnaryOffsets(context, node, "HARD_SWISH", in, out));
    OpData* d = Data(node);
    const float hires_input_scale = (1.0f / 128.0f) * in->params.scale;
    const float reluish_scale = 3.0f / 32768.0f;
    const float output_multiplier = hires_input_scale / out->params.scale;
    int32_t m32;
    QuantizeMultiplier(output_multiplier, &m32, &d->hs_output_exponent);
    d->hs_output_multiplier = DownScaleMultiplierToInt16(m32);
    EW_ENSURE(context, d->hs_output_exponent <= 0,
              "HARD_SWISH: output scale too small for the input scale (multiplier exponent %d)",
              d->hs_output_exponent);
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
  if (a == b && a == std::numeric_limits<int16_t>::min())
    return std::numeric_limits<int16_t>::max();
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
    const int16_t preshift_out =
        qu::SaturatingRoundingDoublingHighMul(hires, d.hs_output_multiplier);
    int16_t reluish = hires;
    if (d.hs_reluish_exponent > 0)
      reluish = SaturatingLeftShift16(reluish, d.hs_reluish_exponent - 1);
    reluish = qu::SaturatingRoundingDoublingHighMul(reluish, d.hs_reluish_multiplier);
    if (d.hs_reluish_exponent > 0) reluish = SaturatingLeftShift16(reluish, 1);
    if (d.hs_reluish_exponent < 0)
      reluish = qu::RoundingDivideByPOT(reluish, -d.hs_reluish_exponent);
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
  EW_OK(GetIO(context, node, 1, "HARD_SWISH", &in, &out));
  switch (in->type) {
    case kTfLiteFloat32:
      return Unary<float>(
          in, out, [](float x) { return x * std::min(6.0f, std::max(0.0f, x + 3.0f)) / 6.0f; });
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
  EW_OK(PrepareUnaryBase(context, node, "ELU", EluTypes, &in, &out));
  if (in->type == kTfLiteInt8) {
    EW_OK(RequireScales(context, "ELU", in, out));
    PopulateLut8(in, out, EluFloat, Data(node)->lut8);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalElu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "ELU", &in, &out));
  if (in->type == kTfLiteFloat32) return Unary<float>(in, out, EluFloat);
  if (in->type == kTfLiteInt8) return EvalLut(node, in, out);
  TF_LITE_KERNEL_LOG(context, "ELU: type %s is not supported", TypeName(in->type));
  return kTfLiteError;
}

bool GeluApproximate(const TfLiteNode* node) {
  return node->builtin_data != nullptr &&
         static_cast<const TfLiteGeluParams*>(node->builtin_data)->approximate;
}

// 0.5 x (1 + erf(x / sqrt 2)), written with erfc to stay accurate for large negative x.
float GeluExact(float x) { return 0.5f * x * std::erfc(x * static_cast<float>(-M_SQRT1_2)); }
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
float GeluTanh(float x) {
  constexpr float kSqrt2OverPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
  return 0.5f * x * (1.f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

bool GeluTypes(TfLiteType t) {
  return t == kTfLiteFloat32 || t == kTfLiteUInt8 || t == kTfLiteInt8;
}

TfLiteStatus PrepareGelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(PrepareUnaryBase(context, node, "GELU", GeluTypes, &in, &out));
  if (in->type != kTfLiteFloat32) {
    EW_OK(RequireScales(context, "GELU", in, out));
    float (*f)(float) = GeluApproximate(node) ? GeluTanh : GeluExact;
    PopulateLut8(in, out, f, Data(node)->lut8);
  }
  return kTfLiteOk;
}

TfLiteStatus EvalGelu(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "GELU", &in, &out));
  if (in->type == kTfLiteFloat32)
    return Unary<float>(in, out, GeluApproximate(node) ? GeluTanh : GeluExact);
  if (in->type == kTfLiteUInt8 || in->type == kTfLiteInt8) return EvalLut(node, in, out);
  TF_LITE_KERNEL_LOG(context, "GELU: type %s is not supported", TypeName(in->type));
  return kTfLiteError;
}

// ================================================================================================
// CAST.

using CastTypes = TypeList<bool, uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t,
                           uint64_t, float, double>;

// Float to integer as x86-64 code compiled from a static_cast computes it: truncation toward zero;
// out-of-range values and NaN give the "integer indefinite" value of the 32- or 64-bit conversion
// instruction, and narrower types keep the low bits of the 32-bit conversion.
template <typename To>
To FloatToInteger(double v) {
  const bool in_int64 = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
  const int64_t as_int64 = in_int64 ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::min();
  if (std::is_same<To, int64_t>::value) return static_cast<To>(as_int64);
  if (std::is_same<To, uint64_t>::value) {
    if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) {
      return static_cast<To>(static_cast<uint64_t>(v));
    }
    return static_cast<To>(static_cast<uint64_t>(as_int64));
  }
  if (std::is_same<To, uint32_t>::value) return static_cast<To>(static_cast<uint64_t>(as_int64));
  const bool in_int32 = v > -2147483649.0 && v < 2147483648.0;
  const int32_t as_int32 = in_int32 ? static_cast<int32_t>(v) : std::numeric_limits<int32_t>::min();
  return static_cast<To>(static_cast<uint32_t>(as_int32));  // keeps the low bits for narrow types
}

template <typename From, typename To>
To CastValue(From x) {
  if (std::is_same<To, bool>::value) return static_cast<To>(x != From(0));
  if (std::is_floating_point<From>::value && std::is_integral<To>::value) {
    return FloatToInteger<To>(static_cast<double>(x));
  }
  return static_cast<To>(x);
}

template <typename From, typename To>
void CastLoop(const TfLiteTensor* in, TfLiteTensor* out) {
  const int64_t n = tflite::NumElements(in);
  const From* x = In<From>(in);
  To* y = Out<To>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = CastValue<From, To>(x[i]);
}

template <typename From>
TfLiteStatus CastFrom(TfLiteContext* context, const TfLiteTensor* in, TfLiteTensor* out) {
  return DispatchType(
      CastTypes(), out->type,
      [&](auto to) {
        CastLoop<From, decltype(to)>(in, out);
        return kTfLiteOk;
      },
      [&] {
        TF_LITE_KERNEL_LOG(context, "CAST: output type %s is not supported", TypeName(out->type));
        return kTfLiteError;
      });
}

// FLOAT16 goes through float32 both ways, as in TFLite: a half input is widened exactly and then
// cast as a float would be; a value cast to half is first cast to float, then rounded to nearest even.
template <typename To>
void CastFromHalf(const TfLiteTensor* in, TfLiteTensor* out) {
  const int64_t n = tflite::NumElements(in);
  const uint16_t* x = In<uint16_t>(in);
  To* y = Out<To>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = CastValue<float, To>(float16::HalfToFloat(x[i]));
}

template <typename From>
void CastToHalf(const TfLiteTensor* in, TfLiteTensor* out) {
  const int64_t n = tflite::NumElements(in);
  const From* x = In<From>(in);
  uint16_t* y = Out<uint16_t>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = float16::FloatToHalf(CastValue<From, float>(x[i]));
}

bool IsCastType(TfLiteType type) { return type == kTfLiteFloat16 || IsOneOf(CastTypes(), type); }

TfLiteStatus PrepareCast(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "CAST", &in, &out));
  EW_ENSURE(context, IsCastType(in->type), "CAST: input type %s is not supported", TypeName(in->type));
  EW_ENSURE(context, IsCastType(out->type), "CAST: output type %s is not supported", TypeName(out->type));
  return ResizeLike(context, in, out);
}

TfLiteStatus EvalCast(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "CAST", &in, &out));
  if (in->type == kTfLiteFloat16) {
    if (out->type == kTfLiteFloat16) {
      const int64_t n = tflite::NumElements(in);
      for (int64_t i = 0; i < n; ++i) {
        Out<uint16_t>(out)[i] = float16::FloatToHalf(float16::HalfToFloat(In<uint16_t>(in)[i]));
      }
      return kTfLiteOk;
    }
    return DispatchType(
        CastTypes(), out->type,
        [&](auto to) {
          CastFromHalf<decltype(to)>(in, out);
          return kTfLiteOk;
        },
        [] { return kTfLiteError; });
  }
  if (out->type == kTfLiteFloat16) {
    return DispatchType(
        CastTypes(), in->type,
        [&](auto from) {
          CastToHalf<decltype(from)>(in, out);
          return kTfLiteOk;
        },
        [] { return kTfLiteError; });
  }
  return DispatchType(
      CastTypes(), in->type, [&](auto from) { return CastFrom<decltype(from)>(context, in, out); },
      [&] {
        TF_LITE_KERNEL_LOG(context, "CAST: input type %s is not supported", TypeName(in->type));
        return kTfLiteError;
      });
}

// ================================================================================================
// SELECT, SELECT_V2.

// SELECT (v1): condition, x and y of one shape; or a scalar condition; or a rank-1 condition that
// picks whole slices along x's first dimension. SELECT_V2: all three broadcast together.
template <bool kV2>
TfLiteStatus PrepareSelect(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kV2 ? "SELECT_V2" : "SELECT";
  const TfLiteTensor* in[3];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 3, op, in, &out));
  const TfLiteTensor* cond = in[0];
  const TfLiteTensor* x = in[1];
  const TfLiteTensor* y = in[2];
  EW_ENSURE(context, cond->type == kTfLiteBool, "%s: condition must be BOOL, got %s", op,
            TypeName(cond->type));
  EW_ENSURE(context, x->type == y->type, "%s: x type %s and y type %s differ", op,
            TypeName(x->type), TypeName(y->type));
  EW_ENSURE(context, tflite::TfLiteTypeGetSize(x->type) > 0, "%s: type %s is not supported", op,
            TypeName(x->type));
  out->type = x->type;
  TfLiteIntArray* shape = nullptr;
  const bool same = tflite::HaveSameShapes(cond, x) && tflite::HaveSameShapes(x, y);
  if (same) {
    shape = TfLiteIntArrayCopy(x->dims);
  } else if (!kV2) {
    const bool scalar = tflite::NumDimensions(cond) == 0;
    const bool rank_one = tflite::NumDimensions(cond) == 1 && tflite::NumDimensions(x) >= 1 &&
                          tflite::SizeOfDimension(cond, 0) == tflite::SizeOfDimension(x, 0);
    EW_ENSURE(context, scalar || rank_one,
              "SELECT: condition must have the shape of x, be a scalar, or be rank 1 matching x's "
              "first dimension");
    EW_ENSURE(context, tflite::HaveSameShapes(x, y), "SELECT: x and y must have the same shape");
    shape = TfLiteIntArrayCopy(x->dims);
  } else if (tflite::CalculateShapeForBroadcast(context, cond, x, y, &shape) != kTfLiteOk) {
    TF_LITE_KERNEL_LOG(context,
                       "SELECT_V2: condition, x and y shapes cannot be broadcast together");
    return kTfLiteError;
  }
  if (shape->size > elementwise::kMaxBroadcastRank) {
    TF_LITE_KERNEL_LOG(context, "%s: rank %d exceeds the supported maximum of %d", op, shape->size,
                       elementwise::kMaxBroadcastRank);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  return context->ResizeTensor(context, out, shape);
}

template <bool kV2>
TfLiteStatus EvalSelect(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kV2 ? "SELECT_V2" : "SELECT";
  const TfLiteTensor* in[3];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 3, op, in, &out));
  const TfLiteTensor* cond = in[0];
  const TfLiteTensor* x = in[1];
  const TfLiteTensor* y = in[2];
  const size_t size = tflite::TfLiteTypeGetSize(x->type);
  const bool* c = In<bool>(cond);
  const char* xs = x->data.raw_const;
  const char* ys = y->data.raw_const;
  char* o = out->data.raw;
  const bool same = tflite::HaveSameShapes(cond, x) && tflite::HaveSameShapes(x, y);
  if (!kV2 && !same) {
    // A scalar or rank-1 condition selects whole slices.
    const int64_t outer = tflite::NumElements(cond);
    const int64_t total = tflite::NumElements(x);
    const int64_t inner = outer > 0 ? total / outer : 0;
    for (int64_t i = 0; i < outer; ++i) {
      const char* src = (c[i] ? xs : ys) + i * inner * size;
      std::memcpy(o + i * inner * size, src, inner * size);
    }
    return kTfLiteOk;
  }
  const TfLiteIntArray* shapes[] = {cond->dims, x->dims, y->dims};
  elementwise::BroadcastWalk walk;
  EW_ENSURE(context, elementwise::MakeBroadcastWalk(shapes, 3, out->dims, &walk),
            "%s: input shapes do not broadcast to the output shape", op);
  elementwise::ForEachBroadcastIndex(walk, [&](int64_t oi, int64_t ci, int64_t xi, int64_t yi) {
    std::memcpy(o + oi * size, c[ci] ? xs + xi * size : ys + yi * size, size);
  });
  return kTfLiteOk;
}

// ================================================================================================
// Comparisons.

enum class Cmp { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

const char* CmpName(Cmp c) {
  switch (c) {
    case Cmp::kLess:
      return "LESS";
    case Cmp::kLessEqual:
      return "LESS_EQUAL";
    case Cmp::kGreater:
      return "GREATER";
    case Cmp::kGreaterEqual:
      return "GREATER_EQUAL";
    case Cmp::kEqual:
      return "EQUAL";
    default:
      return "NOT_EQUAL";
  }
}

template <Cmp c, typename T>
bool Compare(T a, T b) {
  switch (c) {
    case Cmp::kLess:
      return a < b;
    case Cmp::kLessEqual:
      return a <= b;
    case Cmp::kGreater:
      return a > b;
    case Cmp::kGreaterEqual:
      return a >= b;
    case Cmp::kEqual:
      return a == b;
    default:
      return a != b;
  }
}

// Quantized uint8/int8 inputs are compared on a common scale: each value, offset by its zero point
// and shifted left 8 bits, is multiplied by its own scale.
// Element types of the comparisons; BOOL only for EQUAL and NOT_EQUAL. Which op takes INT16 is
// TFLite's per-op choice (op_type_rules.cc); it compares int16 values as stored, without rescaling.
using CompareTypes = TypeList<float, int32_t, int64_t, uint8_t, int8_t, int16_t, bool>;

template <Cmp c>
TfLiteStatus PrepareCompare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = CmpName(c);
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, op, in, &out));
  const TfLiteType t = in[0]->type;
  EW_ENSURE(context, t == in[1]->type, "%s: input types differ (%s vs %s)", op, TypeName(t),
            TypeName(in[1]->type));
  const bool equality = c == Cmp::kEqual || c == Cmp::kNotEqual;
  EW_ENSURE(context, IsOneOf(CompareTypes(), t) && (equality || t != kTfLiteBool),
            "%s: type %s is not supported", op, TypeName(t));
  out->type = kTfLiteBool;
  OpData* d = Data(node);
  d->scaled_compare = (t == kTfLiteUInt8 || t == kTfLiteInt8) && HasScale(in[0]) && HasScale(in[1]);
  if (d->scaled_compare) {
    d->input1_offset = -in[0]->params.zero_point;
    d->input2_offset = -in[1]->params.zero_point;
    d->left_shift = 8;
    QuantizeMultiplier(in[0]->params.scale, &d->input1_multiplier, &d->input1_shift);
    QuantizeMultiplier(in[1]->params.scale, &d->input2_multiplier, &d->input2_shift);
  }
  return ResizeBroadcast(context, in[0], in[1], out, op);
}

template <Cmp c, typename T>
TfLiteStatus EvalCompareT(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor* a,
                          const TfLiteTensor* b, TfLiteTensor* out) {
  const OpData d = *Data(node);
  if constexpr (std::is_same<T, uint8_t>::value || std::is_same<T, int8_t>::value) {
    if (d.scaled_compare) {
      return Binary<T, T, bool>(context, a, b, out, [d](T x, T y) {
        const int32_t v1 = MultiplyByQuantizedMultiplier(
            (d.input1_offset + x) * (1 << d.left_shift), d.input1_multiplier, d.input1_shift);
        const int32_t v2 = MultiplyByQuantizedMultiplier(
            (d.input2_offset + y) * (1 << d.left_shift), d.input2_multiplier, d.input2_shift);
        return Compare<c, int32_t>(v1, v2);
      });
    }
  }
  return Binary<T, T, bool>(context, a, b, out, [](T x, T y) { return Compare<c, T>(x, y); });
}

template <Cmp c>
TfLiteStatus EvalCompare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, CmpName(c), in, &out));
  return EvalForType(context, CompareTypes(), in[0]->type, CmpName(c), [&](auto t) {
    return EvalCompareT<c, decltype(t)>(context, node, in[0], in[1], out);
  });
}

// ================================================================================================
// LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT.

template <bool kAnd>
TfLiteStatus PrepareLogicalBinary(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kAnd ? "LOGICAL_AND" : "LOGICAL_OR";
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, op, in, &out));
  EW_ENSURE(context, in[0]->type == kTfLiteBool && in[1]->type == kTfLiteBool,
            "%s: inputs must be BOOL (got %s, %s)", op, TypeName(in[0]->type),
            TypeName(in[1]->type));
  out->type = kTfLiteBool;
  return ResizeBroadcast(context, in[0], in[1], out, op);
}

template <bool kAnd>
TfLiteStatus EvalLogicalBinary(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 2, kAnd ? "LOGICAL_AND" : "LOGICAL_OR", in, &out));
  return Binary<bool, bool, bool>(context, in[0], in[1], out,
                                  [](bool a, bool b) { return kAnd ? (a && b) : (a || b); });
}

bool BoolOnly(TfLiteType t) { return t == kTfLiteBool; }

TfLiteStatus PrepareLogicalNot(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  return PrepareUnaryBase(context, node, "LOGICAL_NOT", BoolOnly, &in, &out);
}

TfLiteStatus EvalLogicalNot(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  EW_OK(GetIO(context, node, 1, "LOGICAL_NOT", &in, &out));
  return Unary<bool>(in, out, [](bool x) { return !x; });
}

}  // namespace

void GetQuantizedActivationParams(const void* user_data, QuantizedActivationParams* params) {
  const OpData* d = static_cast<const OpData*>(user_data);
  std::memcpy(params->lut8, d->lut8, sizeof(params->lut8));
  params->input_multiplier = d->input_multiplier;
  params->input_left_shift = d->input_left_shift;
}

// ================================================================================================
// Registrations.

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
TS_REGISTER(ABS, Init, Free, PrepareAbs, EvalAbs)
TS_REGISTER(NEG, Init, Free, PrepareNeg, EvalNeg)
TS_REGISTER(SQRT, Init, Free, PrepareFloatUnary<0>, EvalFloatUnary<0>)
TS_REGISTER(RSQRT, Init, Free, PrepareRsqrt, EvalRsqrt)
TS_REGISTER(SQUARE, Init, Free, PrepareFloatUnary<1>, EvalFloatUnary<1>)
TS_REGISTER(EXP, Init, Free, PrepareExp, EvalExp)
TS_REGISTER(LOG, Init, Free, PrepareFloatUnary<7>, EvalFloatUnary<7>)
TS_REGISTER(SIN, Init, Free, PrepareFloatUnary<2>, EvalFloatUnary<2>)
TS_REGISTER(COS, Init, Free, PrepareFloatUnary<3>, EvalFloatUnary<3>)
TS_REGISTER(FLOOR, Init, Free, PrepareFloatUnary<4>, EvalFloatUnary<4>)
TS_REGISTER(CEIL, Init, Free, PrepareFloatUnary<5>, EvalFloatUnary<5>)
TS_REGISTER(ROUND, Init, Free, PrepareFloatUnary<6>, EvalFloatUnary<6>)
TS_REGISTER(TANH, Init, Free, PrepareTanh, EvalTanh)
TS_REGISTER(LOGISTIC, Init, Free, PrepareLogistic, EvalLogistic)
TS_REGISTER(RELU, Init, Free, PrepareRelu<ReluKind::kRelu>, EvalRelu<ReluKind::kRelu>)
TS_REGISTER(RELU6, Init, Free, PrepareRelu<ReluKind::kRelu6>, EvalRelu<ReluKind::kRelu6>)
TS_REGISTER(RELU_N1_TO_1, Init, Free, PrepareRelu<ReluKind::kReluN1To1>,
            EvalRelu<ReluKind::kReluN1To1>)
TS_REGISTER(RELU_0_TO_1, Init, Free, PrepareRelu<ReluKind::kRelu0To1>,
            EvalRelu<ReluKind::kRelu0To1>)
TS_REGISTER(LEAKY_RELU, Init, Free, PrepareLeakyRelu, EvalLeakyRelu)
TS_REGISTER(PRELU, Init, Free, PreparePrelu, EvalPrelu)
TS_REGISTER(HARD_SWISH, Init, Free, PrepareHardSwish, EvalHardSwish)
TS_REGISTER(ELU, Init, Free, PrepareElu, EvalElu)
TS_REGISTER(GELU, Init, Free, PrepareGelu, EvalGelu)
TS_REGISTER(CAST, Init, Free, PrepareCast, EvalCast)
TS_REGISTER(SELECT, Init, Free, PrepareSelect<false>, EvalSelect<false>)
TS_REGISTER(SELECT_V2, Init, Free, PrepareSelect<true>, EvalSelect<true>)
TS_REGISTER(LESS, Init, Free, PrepareCompare<Cmp::kLess>, EvalCompare<Cmp::kLess>)
TS_REGISTER(LESS_EQUAL, Init, Free, PrepareCompare<Cmp::kLessEqual>, EvalCompare<Cmp::kLessEqual>)
TS_REGISTER(GREATER, Init, Free, PrepareCompare<Cmp::kGreater>, EvalCompare<Cmp::kGreater>)
TS_REGISTER(GREATER_EQUAL, Init, Free, PrepareCompare<Cmp::kGreaterEqual>,
            EvalCompare<Cmp::kGreaterEqual>)
TS_REGISTER(EQUAL, Init, Free, PrepareCompare<Cmp::kEqual>, EvalCompare<Cmp::kEqual>)
TS_REGISTER(NOT_EQUAL, Init, Free, PrepareCompare<Cmp::kNotEqual>, EvalCompare<Cmp::kNotEqual>)
TS_REGISTER(LOGICAL_AND, Init, Free, PrepareLogicalBinary<true>, EvalLogicalBinary<true>)
TS_REGISTER(LOGICAL_OR, Init, Free, PrepareLogicalBinary<false>, EvalLogicalBinary<false>)
TS_REGISTER(LOGICAL_NOT, Init, Free, PrepareLogicalNot, EvalLogicalNot)

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
      table[a * 256 + b] =
          type == kTfLiteUInt8
              ? QuantizedAddSubValue<Arith::kAdd, uint8_t>(d, static_cast<uint8_t>(a),
                                                           static_cast<uint8_t>(b))
              : static_cast<uint8_t>(QuantizedAddSubValue<Arith::kAdd, int8_t>(
                    d, static_cast<int8_t>(a), static_cast<int8_t>(b)));
    }
  }
  return true;
}

}  // namespace reference
}  // namespace touchstone
