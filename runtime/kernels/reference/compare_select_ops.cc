// Reference comparison, logical and selection kernels: LESS, LESS_EQUAL, GREATER, GREATER_EQUAL,
// EQUAL, NOT_EQUAL, LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, SELECT, SELECT_V2 (elementwise_util.h).
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
// SELECT, SELECT_V2.

// The tensors of SELECT or SELECT_V2, and whether the three inputs have one shape.
struct SelectIO {
  const TfLiteTensor* cond;
  const TfLiteTensor* x;
  const TfLiteTensor* y;
  TfLiteTensor* out;
  bool same_shapes;
};

// The op's name in messages.
template <bool kV2>
constexpr const char* kSelectName = kV2 ? "SELECT_V2" : "SELECT";

template <bool kV2>
TfLiteStatus GetSelectIO(TfLiteContext* context, TfLiteNode* node, SelectIO* io) {
  const TfLiteTensor* in[3];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 3, kSelectName<kV2>, in, &out));
  *io = {in[0], in[1], in[2], out, tflite::HaveSameShapes(in[0], in[1]) && tflite::HaveSameShapes(in[1], in[2])};
  return kTfLiteOk;
}

// SELECT (v1): condition, x and y of one shape; or a scalar condition; or a rank-1 condition that
// picks whole slices along x's first dimension. SELECT_V2: all three broadcast together.
template <bool kV2>
TfLiteStatus PrepareSelect(TfLiteContext* context, TfLiteNode* node) {
  SelectIO io;
  TF_LITE_ENSURE_OK(context, GetSelectIO<kV2>(context, node, &io));
  const auto [cond, x, y, out, same] = io;
  TS_ENSURE(context, cond->type == kTfLiteBool, "%s: condition must be BOOL, got %s", kSelectName<kV2>,
            TypeName(cond->type));
  TS_ENSURE(context, x->type == y->type, "%s: x type %s and y type %s differ", kSelectName<kV2>, TypeName(x->type),
            TypeName(y->type));
  TS_ENSURE(context, tflite::TfLiteTypeGetSize(x->type) > 0, "%s: type %s is not supported", kSelectName<kV2>,
            TypeName(x->type));
  out->type = x->type;
  TfLiteIntArray* shape = nullptr;
  if (same) {
    shape = TfLiteIntArrayCopy(x->dims);
  } else if (!kV2) {
    const bool scalar = tflite::NumDimensions(cond) == 0;
    const bool rank_one = tflite::NumDimensions(cond) == 1 && tflite::NumDimensions(x) >= 1 &&
                          tflite::SizeOfDimension(cond, 0) == tflite::SizeOfDimension(x, 0);
    TS_ENSURE(context, scalar || rank_one,
              "SELECT: condition must have the shape of x, be a scalar, or be rank 1 matching x's "
              "first dimension");
    TS_ENSURE(context, tflite::HaveSameShapes(x, y), "SELECT: x and y must have the same shape");
    shape = TfLiteIntArrayCopy(x->dims);
  } else if (tflite::CalculateShapeForBroadcast(context, cond, x, y, &shape) != kTfLiteOk) {
    TF_LITE_KERNEL_LOG(context, "SELECT_V2: condition, x and y shapes cannot be broadcast together");
    return kTfLiteError;
  }
  return ResizeBroadcastOutput(context, shape, out, kSelectName<kV2>);
}

template <bool kV2>
TfLiteStatus EvalSelect(TfLiteContext* context, TfLiteNode* node) {
  SelectIO io;
  TF_LITE_ENSURE_OK(context, GetSelectIO<kV2>(context, node, &io));
  const auto [cond, x, y, out, same] = io;
  const size_t size = tflite::TfLiteTypeGetSize(x->type);
  const bool* c = In<bool>(cond);
  const char* xs = x->data.raw_const;
  const char* ys = y->data.raw_const;
  char* o = out->data.raw;
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
  TS_ENSURE(context, elementwise::MakeBroadcastWalk(shapes, 3, out->dims, &walk),
            "%s: input shapes do not broadcast to the output shape", kSelectName<kV2>);
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
  TF_LITE_ENSURE_OK(context, GetSameTypedBinaryIO(context, node, op, in, &out));
  const TfLiteType t = in[0]->type;
  const bool equality = c == Cmp::kEqual || c == Cmp::kNotEqual;
  TS_ENSURE(context, IsOneOf(CompareTypes(), t) && (equality || t != kTfLiteBool), "%s: type %s is not supported", op,
            TypeName(t));
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
TfLiteStatus EvalCompareT(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor* a, const TfLiteTensor* b,
                          TfLiteTensor* out) {
  const OpData d = *Data(node);
  if constexpr (std::is_same<T, uint8_t>::value || std::is_same<T, int8_t>::value) {
    if (d.scaled_compare) {
      return Binary<T, T, bool>(context, a, b, out, [d](T x, T y) {
        const int32_t v1 = MultiplyByQuantizedMultiplier((d.input1_offset + x) * (1 << d.left_shift),
                                                         d.input1_multiplier, d.input1_shift);
        const int32_t v2 = MultiplyByQuantizedMultiplier((d.input2_offset + y) * (1 << d.left_shift),
                                                         d.input2_multiplier, d.input2_shift);
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
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, CmpName(c), in, &out));
  return EvalForType(context, CompareTypes(), in[0]->type, CmpName(c),
                     [&](auto t) { return EvalCompareT<c, decltype(t)>(context, node, in[0], in[1], out); });
}

// ================================================================================================
// LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT.

template <bool kAnd>
TfLiteStatus PrepareLogicalBinary(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kAnd ? "LOGICAL_AND" : "LOGICAL_OR";
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, op, in, &out));
  TS_ENSURE(context, in[0]->type == kTfLiteBool && in[1]->type == kTfLiteBool, "%s: inputs must be BOOL (got %s, %s)",
            op, TypeName(in[0]->type), TypeName(in[1]->type));
  out->type = kTfLiteBool;
  return ResizeBroadcast(context, in[0], in[1], out, op);
}

template <bool kAnd>
TfLiteStatus EvalLogicalBinary(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in[2];
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 2, kAnd ? "LOGICAL_AND" : "LOGICAL_OR", in, &out));
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
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "LOGICAL_NOT", &in, &out));
  return Unary<bool>(in, out, [](bool x) { return !x; });
}

}  // namespace

TS_REGISTER(SELECT, Init, Free, PrepareSelect<false>, EvalSelect<false>)
TS_REGISTER(SELECT_V2, Init, Free, PrepareSelect<true>, EvalSelect<true>)
TS_REGISTER(LESS, Init, Free, PrepareCompare<Cmp::kLess>, EvalCompare<Cmp::kLess>)
TS_REGISTER(LESS_EQUAL, Init, Free, PrepareCompare<Cmp::kLessEqual>, EvalCompare<Cmp::kLessEqual>)
TS_REGISTER(GREATER, Init, Free, PrepareCompare<Cmp::kGreater>, EvalCompare<Cmp::kGreater>)
TS_REGISTER(GREATER_EQUAL, Init, Free, PrepareCompare<Cmp::kGreaterEqual>, EvalCompare<Cmp::kGreaterEqual>)
TS_REGISTER(EQUAL, Init, Free, PrepareCompare<Cmp::kEqual>, EvalCompare<Cmp::kEqual>)
TS_REGISTER(NOT_EQUAL, Init, Free, PrepareCompare<Cmp::kNotEqual>, EvalCompare<Cmp::kNotEqual>)
TS_REGISTER(LOGICAL_AND, Init, Free, PrepareLogicalBinary<true>, EvalLogicalBinary<true>)
TS_REGISTER(LOGICAL_OR, Init, Free, PrepareLogicalBinary<false>, EvalLogicalBinary<false>)
TS_REGISTER(LOGICAL_NOT, Init, Free, PrepareLogicalNot, EvalLogicalNot)

}  // namespace reference
}  // namespace touchstone
