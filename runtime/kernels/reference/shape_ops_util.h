// Helpers shared by the reference shape, data-movement, reduction and sorting kernels
// (reshape_ops.cc, rearrange_ops.cc, gather_ops.cc, ... reduce_ops.cc, fill_range_ops.cc).
//
// Conventions of these files:
// - Data-movement ops never interpret elements: they copy the bytes of any fixed-size type (float,
//   float16, bool, quantized and plain integers, complex), so one implementation serves every type.
//   A few ops refuse types exactly where TFLite 2.14 refuses them (TILE, DEPTH_TO_SPACE, ...).
// - An output whose shape depends on the *values* of an input (a shape, begin/end, axis, k, ...)
//   is sized in Prepare when that input is constant, and otherwise made dynamic and sized in Eval,
//   as TFLite does; shapes can then flow at run time (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE).
// - Invalid attributes or indices are errors with a one-line message naming the op and the value,
//   never out-of-bounds reads.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_SHAPE_OPS_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_SHAPE_OPS_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/misc_ops_util.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace reference {
namespace shape_ops {

using misc_ops::GetIn;
using misc_ops::GetOut;
using misc_ops::ShapeOf;
using quantization_util::MultiplyByQuantizedMultiplier;
using quantization_util::QuantizeMultiplier;
using shape_util::FlatSize;
using shape_util::NormalizeAxis;
using shape_util::ProductOfDims;
using shape_util::RowMajorStrides;
using shape_util::Shape;
using tflite::GetInput;
using tflite::GetOutput;
using tflite::IsDynamicTensor;
using tflite::NumDimensions;
using tflite::NumInputs;
using tflite::NumOutputs;

// ---------------------------------------------------------------------------------------------
// Common helpers.

inline TfLiteStatus ResizeOutput(TfLiteContext* context, TfLiteTensor* output, const Shape& shape) {
  TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i) dims->data[i] = shape[i];
  return context->ResizeTensor(context, output, dims);
}

// True when the tensor's values are available at Prepare time.
inline bool ValuesKnown(const TfLiteTensor* t) { return t == nullptr || tflite::IsConstantOrPersistentTensor(t); }

inline TfLiteStatus CheckIo(TfLiteContext* context, const TfLiteNode* node, const char* op, int min_in, int max_in,
                            int outputs) {
  const int n = NumInputs(node);
  if (n < min_in || n > max_in) {
    if (min_in == max_in) {
      TF_LITE_KERNEL_LOG(context, "%s: expected %d inputs, got %d", op, min_in, n);
    } else {
      TF_LITE_KERNEL_LOG(context, "%s: expected %d to %d inputs, got %d", op, min_in, max_in, n);
    }
    return kTfLiteError;
  }
  if (outputs >= 0 && NumOutputs(node) != outputs) {
    TF_LITE_KERNEL_LOG(context, "%s: expected %d outputs, got %d", op, outputs, NumOutputs(node));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

inline TfLiteStatus CheckSameType(TfLiteContext* context, const char* op, const TfLiteTensor* a, const TfLiteTensor* b,
                                  const char* a_role, const char* b_role) {
  if (a->type != b->type) {
    TF_LITE_KERNEL_LOG(context, "%s: %s type %s differs from %s type %s", op, a_role, TfLiteTypeGetName(a->type),
                       b_role, TfLiteTypeGetName(b->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Fetches input 0 and output 0, which must have the same type.
inline TfLiteStatus GetSameTypedIo(TfLiteContext* context, TfLiteNode* node, const char* op, const TfLiteTensor** input,
                                   TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, output));
  return CheckSameType(context, op, *output, *input, "output", "input");
}

// Bytes of one element; refuses types without a fixed size (string, resource, variant).
inline TfLiteStatus ElementSize(TfLiteContext* context, const char* op, const TfLiteTensor* t, size_t* elem) {
  *elem = tflite::TfLiteTypeGetSize(t->type);
  if (*elem == 0) {
    TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported (no fixed element size)", op, TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Reads an integer tensor of index type (int32, int64 or int16) as int64 values.
inline TfLiteStatus ReadInts(TfLiteContext* context, const char* op, const char* role, const TfLiteTensor* t,
                             std::vector<int64_t>* values) {
  const int64_t n = tflite::NumElements(t);
  values->resize(n);
  if (n > 0 && t->data.raw == nullptr) {
    TF_LITE_KERNEL_LOG(context, "%s: %s has no data", op, role);
    return kTfLiteError;
  }
  switch (t->type) {
    case kTfLiteInt32:
      for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data.i32[i];
      return kTfLiteOk;
    case kTfLiteInt64:
      for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data.i64[i];
      return kTfLiteOk;
    case kTfLiteInt16:
      for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data.i16[i];
      return kTfLiteOk;
    default:
      TF_LITE_KERNEL_LOG(context, "%s: %s must be INT32 or INT64, got %s", op, role, TfLiteTypeGetName(t->type));
      return kTfLiteError;
  }
}

// Reads a tensor holding exactly one integer (a scalar or a one-element vector).
inline TfLiteStatus ReadOneInt(TfLiteContext* context, const char* op, const char* role, const TfLiteTensor* t,
                               int64_t* value) {
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, op, role, t, &values));
  if (values.size() != 1) {
    TF_LITE_KERNEL_LOG(context, "%s: %s must hold one value, has %d", op, role, static_cast<int>(values.size()));
    return kTfLiteError;
  }
  *value = values[0];
  return kTfLiteOk;
}

inline TfLiteStatus CheckDimValue(TfLiteContext* context, const char* op, int64_t value) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    TF_LITE_KERNEL_LOG(context, "%s: output dimension %lld is out of range", op, static_cast<long long>(value));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Computes an op's output shape (or shapes) from its inputs' shapes and values.
using ShapeFn = TfLiteStatus (*)(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes);

inline TfLiteStatus ResizeOutputs(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
  std::vector<Shape> shapes;
  TF_LITE_ENSURE_OK(context, fn(context, node, &shapes));
  for (size_t i = 0; i < shapes.size(); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOut(context, node, static_cast<int>(i), &output));
    TF_LITE_ENSURE_OK(context, ResizeOutput(context, output, shapes[i]));
  }
  return kTfLiteOk;
}

// Prepare: size every output now when the values the shape depends on are known, else make the
// outputs dynamic (sized in Eval by ResizeDynamicOutputs).
inline TfLiteStatus SizeOrDefer(TfLiteContext* context, TfLiteNode* node, bool known, ShapeFn fn) {
  if (known) return ResizeOutputs(context, node, fn);
  for (int i = 0; i < NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOut(context, node, i, &output));
    tflite::SetTensorToDynamic(output);
  }
  return kTfLiteOk;
}

// Prepare of a two-input op whose output has the input's type and a shape that depends on the
// values of input 1.
inline TfLiteStatus PrepareShapedByInput1(TfLiteContext* context, TfLiteNode* node, const char* op, ShapeFn fn) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, op, &input, &output));
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 1)), fn);
}

inline TfLiteStatus ResizeDynamicOutputs(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
  bool any_dynamic = false;
  for (int i = 0; i < NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOut(context, node, i, &output));
    any_dynamic = any_dynamic || IsDynamicTensor(output);
  }
  return any_dynamic ? ResizeOutputs(context, node, fn) : kTfLiteOk;
}

// Copies all of `input`'s bytes into `output` (same byte size), for ops that only relabel shape.
inline TfLiteStatus CopyAllBytes(TfLiteContext* context, const char* op, const TfLiteTensor* input,
                                 TfLiteTensor* output) {
  if (output->bytes != input->bytes) {
    TF_LITE_KERNEL_LOG(context, "%s: output has %zu bytes, input %zu", op, output->bytes, input->bytes);
    return kTfLiteError;
  }
  if (input->bytes > 0 && output->data.raw != input->data.raw) {
    std::memcpy(output->data.raw, input->data.raw, input->bytes);
  }
  return kTfLiteOk;
}

template <typename P>
P ParamsOrDefault(const TfLiteNode* node) {
  P params{};
  if (node->builtin_data != nullptr) params = *reinterpret_cast<const P*>(node->builtin_data);
  return params;
}

// Runs `GatherByDimMaps` from tensor to tensor.
inline TfLiteStatus GatherMapped(TfLiteContext* context, const char* op, const TfLiteTensor* input,
                                 const std::vector<std::vector<int64_t>>& maps, const std::vector<int64_t>& in_strides,
                                 const char* pad_value, TfLiteTensor* output) {
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, op, input, &elem));
  const Shape out_shape = ShapeOf(output);
  if (static_cast<size_t>(FlatSize(out_shape)) * elem != output->bytes) {
    TF_LITE_KERNEL_LOG(context, "%s: output buffer has %zu bytes, shape needs %lld", op, output->bytes,
                       static_cast<long long>(FlatSize(out_shape) * elem));
    return kTfLiteError;
  }
  shape_util::GatherByDimMaps(input->data.raw_const, elem, out_shape, maps, in_strides, pad_value, output->data.raw);
  return kTfLiteOk;
}

template <typename T>
T SaturateTo(int64_t v) {
  return static_cast<T>(
      std::min<int64_t>(std::max<int64_t>(v, std::numeric_limits<T>::min()), std::numeric_limits<T>::max()));
}

}  // namespace shape_ops
}  // namespace reference
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_SHAPE_OPS_UTIL_H_
