// Helpers shared by the reference element-wise kernels (arithmetic_ops.cc, unary_math_ops.cc,
// activation_ops.cc, cast_ops.cc, compare_select_ops.cc).
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
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_ELEMENTWISE_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_ELEMENTWISE_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/elementwise_broadcast.h"
#include "runtime/kernels/internal/elementwise_quant.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace reference {
namespace elementwise_ops {

using elementwise::BroadcastBinary;
using elementwise::BroadcastTernary;
using kernel_helpers::ResizeLike;
namespace qu = quantization_util;
namespace fp = quantization_util::fixed_point;
using qu::MultiplyByQuantizedMultiplier;
using qu::QuantizeMultiplier;

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

// The element-wise kernels' init and free.
constexpr auto Init = NewNodeData<OpData>;
constexpr auto Free = DeleteNodeData<OpData>;
inline OpData* Data(TfLiteNode* node) { return static_cast<OpData*>(node->user_data); }

// ------------------------------------------------------------------------------------------------
// Small helpers.

inline const char* TypeName(TfLiteType t) { return TfLiteTypeGetName(t); }

inline TfLiteStatus GetIO(TfLiteContext* context, TfLiteNode* node, int num_inputs, const char* op,
                          const TfLiteTensor** in, TfLiteTensor** out) {
  TS_ENSURE(context, node->inputs != nullptr && tflite::NumInputs(node) == num_inputs,
            "%s: expected %d input(s), got %d", op, num_inputs, node->inputs ? tflite::NumInputs(node) : 0);
  TS_ENSURE(context, node->outputs != nullptr && tflite::NumOutputs(node) == 1, "%s: expected 1 output, got %d", op,
            node->outputs ? tflite::NumOutputs(node) : 0);
  for (int i = 0; i < num_inputs; ++i) {
    in[i] = tflite::GetInput(context, node, i);
    TS_ENSURE(context, in[i] != nullptr, "%s: input %d is missing", op, i);
  }
  *out = tflite::GetOutput(context, node, 0);
  TS_ENSURE(context, *out != nullptr, "%s: output is missing", op);
  return kTfLiteOk;
}

inline bool IsQuantizableType(TfLiteType t) { return t == kTfLiteUInt8 || t == kTfLiteInt8 || t == kTfLiteInt16; }
inline bool HasScale(const TfLiteTensor* t) { return t->params.scale > 0.0f && std::isfinite(t->params.scale); }

inline void TypeRange(TfLiteType t, int32_t* lo, int32_t* hi) {
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

inline TfLiteStatus RequireScale(TfLiteContext* context, const TfLiteTensor* t, const char* op, const char* which) {
  TS_ENSURE(context, HasScale(t), "%s: %s tensor of type %s needs quantization parameters (a positive scale)", op,
            which, TypeName(t->type));
  return kTfLiteOk;
}

inline TfLiteStatus RequireScales(TfLiteContext* context, const char* op, const TfLiteTensor* in,
                                  const TfLiteTensor* out) {
  TF_LITE_ENSURE_OK(context, RequireScale(context, in, op, "input"));
  return RequireScale(context, out, op, "output");
}
inline TfLiteStatus RequireScales(TfLiteContext* context, const char* op, const TfLiteTensor* in1,
                                  const TfLiteTensor* in2, const TfLiteTensor* out) {
  TF_LITE_ENSURE_OK(context, RequireScale(context, in1, op, "input 0"));
  TF_LITE_ENSURE_OK(context, RequireScale(context, in2, op, "input 1"));
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

// Gives out the shape `shape` (which it takes), refusing ranks the broadcast walk does not take.
inline TfLiteStatus ResizeBroadcastOutput(TfLiteContext* context, TfLiteIntArray* shape, TfLiteTensor* out,
                                          const char* op) {
  if (shape->size > elementwise::kMaxBroadcastRank) {
    TF_LITE_KERNEL_LOG(context, "%s: rank %d exceeds the supported maximum of %d", op, shape->size,
                       elementwise::kMaxBroadcastRank);
    TfLiteIntArrayFree(shape);
    return kTfLiteError;
  }
  return context->ResizeTensor(context, out, shape);
}

// Sets out's shape to the broadcast of a's and b's (a's shape when they match).
inline TfLiteStatus ResizeBroadcast(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                                    TfLiteTensor* out, const char* op) {
  TfLiteIntArray* shape = nullptr;
  if (tflite::HaveSameShapes(a, b)) {
    shape = TfLiteIntArrayCopy(a->dims);
  } else if (tflite::CalculateShapeForBroadcast(context, a, b, &shape) != kTfLiteOk) {
    TF_LITE_KERNEL_LOG(context, "%s: input shapes cannot be broadcast together", op);
    return kTfLiteError;
  }
  return ResizeBroadcastOutput(context, shape, out, op);
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
TfLiteStatus Binary(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b, TfLiteTensor* out, F&& f) {
  TS_ENSURE(context, BroadcastBinary(a->dims, In<A>(a), b->dims, In<B>(b), out->dims, Out<O>(out), f),
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

// The two inputs, of one type, and the output of a binary op.
inline TfLiteStatus GetSameTypedBinaryIO(TfLiteContext* context, TfLiteNode* node, const char* op,
                                         const TfLiteTensor** in, TfLiteTensor** out) {
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, op, in, out));
  TS_ENSURE(context, in[0]->type == in[1]->type, "%s: input types differ (%s vs %s)", op, TypeName(in[0]->type),
            TypeName(in[1]->type));
  return kTfLiteOk;
}

// eval(T()) for the element type T among `types` that `type` stores; any other type is refused.
template <typename Types, typename Eval>
TfLiteStatus EvalForType(TfLiteContext* context, Types types, TfLiteType type, const char* op, Eval&& eval) {
  return DispatchType(types, type, eval, [&] {
    TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", op, TypeName(type));
    return kTfLiteError;
  });
}

// ------------------------------------------------------------------------------------------------
// Shared by the unary ops.

// Shared Prepare: one input, output of the same type and shape.
inline TfLiteStatus PrepareUnaryBase(TfLiteContext* context, TfLiteNode* node, const char* op,
                                     bool (*type_ok)(TfLiteType), const TfLiteTensor** in, TfLiteTensor** out) {
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, op, in, out));
  TS_ENSURE(context, type_ok((*in)->type), "%s: type %s is not supported", op, TypeName((*in)->type));
  TS_ENSURE(context, (*in)->type == (*out)->type, "%s: output type %s differs from input type %s", op,
            TypeName((*out)->type), TypeName((*in)->type));
  return ResizeLike(context, *out, *in);
}

// Records input/output zero points for the quantized unary ops; int16 must be symmetric.
inline TfLiteStatus PrepareQuantizedUnaryOffsets(TfLiteContext* context, TfLiteNode* node, const char* op,
                                                 const TfLiteTensor* in, const TfLiteTensor* out) {
  TF_LITE_ENSURE_OK(context, RequireScales(context, op, in, out));
  OpData* d = Data(node);
  d->input1_offset = in->params.zero_point;
  d->output_offset = out->params.zero_point;
  if (in->type == kTfLiteInt16) {
    TS_ENSURE(context, in->params.zero_point == 0 && out->params.zero_point == 0,
              "%s: int16 tensors must have zero point 0", op);
  }
  return kTfLiteOk;
}

// Applies a table prepared in OpData to an 8- or 16-bit tensor.
inline TfLiteStatus EvalLut(TfLiteNode* node, const TfLiteTensor* in, TfLiteTensor* out) {
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

}  // namespace elementwise_ops
}  // namespace reference
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_ELEMENTWISE_UTIL_H_
