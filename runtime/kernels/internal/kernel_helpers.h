// The checks and shape plumbing every reference kernel shares. Each check reports one line naming
// the input, output or option at fault (the interpreter prefixes the op's name and index) and
// returns kTfLiteError.
//
// Conventions of the kernels that use them:
// - Data-movement ops never interpret elements: they copy the bytes of any fixed-size type (float,
//   float16, bool, quantized and plain integers, complex), so one implementation serves every type.
// - An output whose shape depends on the *values* of an input (a shape, begin/end, axis, k, ...)
//   is sized in Prepare when that input is constant, and otherwise made dynamic and sized in Eval,
//   as TFLite does (SizeOrDefer, ResizeDynamicOutputs); shapes can then flow at run time
//   (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE).
// - Invalid attributes or indices are errors with a one-line message, never out-of-bounds reads.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_KERNEL_HELPERS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_KERNEL_HELPERS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace kernel_helpers {

using shape_util::NormalizeAxis;
using shape_util::ProductOfDims;
using shape_util::RowMajorStrides;
using shape_util::Shape;
using tflite::GetInput;
using tflite::GetInputSafe;
using tflite::GetOutput;
using tflite::GetOutputSafe;
using tflite::IsDynamicTensor;
using tflite::NumDimensions;
using tflite::NumElements;
using tflite::NumInputs;
using tflite::NumOutputs;

// The node's TfLite*Params; TFLite zero-fills them when the options table is absent, so a node
// without builtin_data reads the same zeros.
template <typename Params>
const Params& ParamsOf(const TfLiteNode* node) {
  static const Params kZeroFilled{};
  return node->builtin_data != nullptr ? *static_cast<const Params*>(node->builtin_data) : kZeroFilled;
}

// ---- The node's inputs and outputs.

inline TfLiteStatus CheckInputCount(TfLiteContext* context, const TfLiteNode* node, int min_count, int max_count) {
  const int count = NumInputs(node);
  if (count >= min_count && count <= max_count) return kTfLiteOk;
  if (min_count == max_count) {
    TF_LITE_KERNEL_LOG(context, "expected %d inputs, got %d", min_count, count);
  } else {
    TF_LITE_KERNEL_LOG(context, "expected %d to %d inputs, got %d", min_count, max_count, count);
  }
  return kTfLiteError;
}

inline TfLiteStatus CheckOutputCount(TfLiteContext* context, const TfLiteNode* node, int count) {
  if (NumOutputs(node) == count) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "expected %d outputs, got %d", count, NumOutputs(node));
  return kTfLiteError;
}

// Exactly `inputs` inputs and `outputs` outputs.
inline TfLiteStatus CheckArity(TfLiteContext* context, const TfLiteNode* node, int inputs, int outputs) {
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, inputs, inputs));
  return CheckOutputCount(context, node, outputs);
}

// Exactly as many inputs and outputs as `inputs` and `outputs` name, fetched into them in order.
inline TfLiteStatus GetNodeTensors(TfLiteContext* context, const TfLiteNode* node,
                                   std::initializer_list<const TfLiteTensor**> inputs,
                                   std::initializer_list<TfLiteTensor**> outputs) {
  TF_LITE_ENSURE_OK(context,
                    CheckArity(context, node, static_cast<int>(inputs.size()), static_cast<int>(outputs.size())));
  int index = 0;
  for (const TfLiteTensor** input : inputs) TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, index++, input));
  index = 0;
  for (TfLiteTensor** output : outputs) TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, index++, output));
  return kTfLiteOk;
}

// ---- Types, ranks and element sizes. `role` names the tensor, e.g. "input 1 (filter)".

inline TfLiteStatus CheckType(TfLiteContext* context, const TfLiteTensor* t, const char* role, TfLiteType expected) {
  if (t->type == expected) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has type %s, expected %s", role, TfLiteTypeGetName(t->type),
                     TfLiteTypeGetName(expected));
  return kTfLiteError;
}

inline TfLiteStatus CheckTypeOneOf(TfLiteContext* context, const TfLiteTensor* t, const char* role,
                                   std::initializer_list<TfLiteType> allowed) {
  std::string names;
  for (TfLiteType type : allowed) {
    if (t->type == type) return kTfLiteOk;
    if (!names.empty()) names += ", ";
    names += TfLiteTypeGetName(type);
  }
  TF_LITE_KERNEL_LOG(context, "%s has type %s, which this op does not support (supported: %s)", role,
                     TfLiteTypeGetName(t->type), names.c_str());
  return kTfLiteError;
}

template <typename... Ts>
inline TfLiteStatus CheckTypeOneOf(TfLiteContext* context, const TfLiteTensor* t, const char* role, TypeList<Ts...>) {
  return CheckTypeOneOf(context, t, role, {TfLiteTypeOf<Ts>()...});
}

inline TfLiteStatus CheckRankBetween(TfLiteContext* context, const TfLiteTensor* t, const char* role, int min_rank,
                                     int max_rank) {
  const int rank = NumDimensions(t);
  if (rank >= min_rank && rank <= max_rank) return kTfLiteOk;
  if (min_rank == max_rank) {
    TF_LITE_KERNEL_LOG(context, "%s has shape %s, expected rank %d", role, ShapeString(t).c_str(), min_rank);
  } else {
    TF_LITE_KERNEL_LOG(context, "%s has shape %s, expected rank %d to %d", role, ShapeString(t).c_str(), min_rank,
                       max_rank);
  }
  return kTfLiteError;
}

inline TfLiteStatus CheckRank(TfLiteContext* context, const TfLiteTensor* t, const char* role, int rank) {
  return CheckRankBetween(context, t, role, rank, rank);
}

// Bytes of one element; refuses types without a fixed size (string, resource, variant, and int4,
// whose elements are half a byte).
inline TfLiteStatus ElementSize(TfLiteContext* context, const TfLiteTensor* t, const char* role, size_t* bytes) {
  *bytes = tflite::TfLiteTypeGetSize(t->type);
  if (*bytes > 0) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has type %s, which has no fixed element size", role, TfLiteTypeGetName(t->type));
  return kTfLiteError;
}

// ---- Values that shapes depend on.

// True when the values of `t` (present) are available at Prepare time: a constant's or a persistent
// tensor's, and those of a tensor with no elements whose shape is fixed until the next Prepare (a
// model's empty "constant" has no buffer and so lives in the arena; sizing the output now spares
// every Invoke the dynamic path).
inline bool ValuesKnown(const TfLiteTensor* t) {
  return tflite::IsConstantOrPersistentTensor(t) ||
         (t->allocation_type != kTfLiteDynamic && t->dims != nullptr && tflite::NumElements(t) == 0);
}

// ValuesKnown for input `index` of the node, where a missing (optional or out-of-range) input counts
// as known: the op's shape function then runs in Prepare and refuses it there.
inline bool InputValuesKnown(TfLiteContext* context, const TfLiteNode* node, int index) {
  const TfLiteTensor* t = GetInput(context, node, index);
  return t == nullptr || ValuesKnown(t);
}

// Reads an integer tensor of index type (INT32, INT64, or INT16) as int64 values; a missing tensor
// is refused.
inline TfLiteStatus ReadInts(TfLiteContext* context, const TfLiteTensor* t, const char* role,
                             std::vector<int64_t>* values) {
  if (t == nullptr) {
    TF_LITE_KERNEL_LOG(context, "%s is missing", role);
    return kTfLiteError;
  }
  const int64_t n = NumElements(t);
  values->resize(n);
  if (n > 0 && t->data.raw == nullptr) {
    TF_LITE_KERNEL_LOG(context, "%s has no data", role);
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
      TF_LITE_KERNEL_LOG(context, "%s has type %s, expected INT32 or INT64", role, TfLiteTypeGetName(t->type));
      return kTfLiteError;
  }
}

// Reads a tensor holding exactly one integer (a scalar or a one-element vector).
inline TfLiteStatus ReadOneInt(TfLiteContext* context, const TfLiteTensor* t, const char* role, int64_t* value) {
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, t, role, &values));
  if (values.size() != 1) {
    TF_LITE_KERNEL_LOG(context, "%s must hold one value, has %d", role, static_cast<int>(values.size()));
    return kTfLiteError;
  }
  *value = values[0];
  return kTfLiteOk;
}

// An output dimension computed from input values must fit an int.
inline TfLiteStatus CheckDimValue(TfLiteContext* context, int64_t value) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    TF_LITE_KERNEL_LOG(context, "output dimension %lld is out of range", static_cast<long long>(value));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// ---- Sizing outputs.

inline TfLiteStatus ResizeOutput(TfLiteContext* context, TfLiteTensor* output, const Shape& shape) {
  for (int d : shape) {
    if (d < 0) {
      TF_LITE_KERNEL_LOG(context, "output dimension %d is negative", d);
      return kTfLiteError;
    }
  }
  if (DynamicTensorHasShape(output, static_cast<int>(shape.size()), shape.data())) return kTfLiteOk;
  TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i) dims->data[i] = shape[i];
  return context->ResizeTensor(context, output, dims);
}

// The output takes the input's shape.
inline TfLiteStatus ResizeLike(TfLiteContext* context, TfLiteTensor* output, const TfLiteTensor* input) {
  if (DynamicTensorHasShape(output, input->dims->size, input->dims->data)) return kTfLiteOk;
  return context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims));
}

// Computes an op's output shape (or shapes) from its inputs' shapes and values. It sets *shapes whole
// (assign), since *shapes may hold an earlier call's shapes, whose capacity it reuses.
using ShapeFn = TfLiteStatus (*)(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes);

inline TfLiteStatus ResizeOutputs(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
  // Kept from call to call (the shape functions assign into it), so that sizing a dynamic output at
  // every Eval allocates nothing once the shapes settle.
  thread_local std::vector<Shape> shapes;
  TF_LITE_ENSURE_OK(context, fn(context, node, &shapes));
  for (size_t i = 0; i < shapes.size(); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, static_cast<int>(i), &output));
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
    TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, i, &output));
    tflite::SetTensorToDynamic(output);
  }
  return kTfLiteOk;
}

inline TfLiteStatus ResizeDynamicOutputs(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
  bool any_dynamic = false;
  for (int i = 0; i < NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, i, &output));
    any_dynamic = any_dynamic || IsDynamicTensor(output);
  }
  return any_dynamic ? ResizeOutputs(context, node, fn) : kTfLiteOk;
}

// A node of `min_inputs` to `max_inputs` inputs and 1 output: input 0 and output 0, which must have
// the same type.
inline TfLiteStatus GetSameTypedIo(TfLiteContext* context, TfLiteNode* node, int min_inputs, int max_inputs,
                                   const TfLiteTensor** input, TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, min_inputs, max_inputs));
  TF_LITE_ENSURE_OK(context, CheckOutputCount(context, node, 1));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, output));
  return CheckType(context, *output, "output 0", (*input)->type);
}

// A node of one or more inputs and 1 output (CONCATENATION, PACK): input 0 and output 0.
inline TfLiteStatus GetVariadicIo(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor** input0,
                                  TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 1, 1 << 20));
  TF_LITE_ENSURE_OK(context, CheckOutputCount(context, node, 1));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, input0));
  return GetOutputSafe(context, node, 0, output);
}

// For each input i in order: checks that it has type `type`, then returns check(i, input) if that
// fails.
template <typename Check>
TfLiteStatus CheckEachInput(TfLiteContext* context, TfLiteNode* node, TfLiteType type, Check check) {
  for (int i = 0; i < NumInputs(node); ++i) {
    const TfLiteTensor* t;
    TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, i, &t));
    TF_LITE_ENSURE_OK(context, CheckType(context, t, "input", type));
    TF_LITE_ENSURE_OK(context, check(i, t));
  }
  return kTfLiteOk;
}

// Prepare of an op of `num_inputs` inputs whose output has input 0's type and a shape that depends on
// the values of the other inputs (1 to num_inputs - 1).
inline TfLiteStatus PrepareShapedByInputValues(TfLiteContext* context, TfLiteNode* node, int num_inputs, ShapeFn fn) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, num_inputs, num_inputs, &input, &output));
  bool known = true;
  for (int i = 1; known && i < num_inputs; ++i) known = InputValuesKnown(context, node, i);
  return SizeOrDefer(context, node, known, fn);
}

// The two-input case: the shape depends on the values of input 1.
inline TfLiteStatus PrepareShapedByInput1(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
  return PrepareShapedByInputValues(context, node, 2, fn);
}

// ---- Moving bytes.

// Copies all of `input`'s bytes into `output` (same byte size), for ops that only relabel shape.
inline TfLiteStatus CopyAllBytes(TfLiteContext* context, const TfLiteTensor* input, TfLiteTensor* output) {
  if (output->bytes != input->bytes) {
    TF_LITE_KERNEL_LOG(context, "output 0 has %zu bytes, input 0 %zu", output->bytes, input->bytes);
    return kTfLiteError;
  }
  if (input->bytes > 0 && output->data.raw != input->data.raw) {
    shape_util::CopyRow(output->data.raw, input->data.raw, input->bytes);
  }
  return kTfLiteOk;
}

// Runs shape_util::GatherByDimMaps from tensor to tensor.
inline TfLiteStatus GatherMapped(TfLiteContext* context, const TfLiteTensor* input,
                                 const std::vector<std::vector<int64_t>>& maps, const std::vector<int64_t>& in_strides,
                                 const char* pad_value, TfLiteTensor* output) {
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  const Shape out_shape = ShapeOf(output);
  if (static_cast<size_t>(ElementCount(out_shape)) * elem != output->bytes) {
    TF_LITE_KERNEL_LOG(context, "output 0 has %zu bytes, its shape needs %lld", output->bytes,
                       static_cast<long long>(ElementCount(out_shape) * elem));
    return kTfLiteError;
  }
  shape_util::GatherByDimMaps(input->data.raw_const, elem, out_shape, maps, in_strides, pad_value, output->data.raw);
  return kTfLiteOk;
}

// GatherMapped over the input's row-major layout with the maps source_index(d, i) gives: the input
// index along dimension d of output index i along it, or -1 for `pad_value`.
template <typename SourceIndex>
TfLiteStatus GatherEachDim(TfLiteContext* context, const TfLiteTensor* input, SourceIndex source_index,
                           const char* pad_value, TfLiteTensor* output) {
  const Shape out_shape = ShapeOf(output);
  // Nothing to gather: the maps (a division per entry for TILE) would be built for nothing.
  if (ElementCount(out_shape) == 0 && output->bytes == 0) return kTfLiteOk;
  std::vector<std::vector<int64_t>> maps(out_shape.size());
  for (size_t d = 0; d < out_shape.size(); ++d) {
    maps[d].resize(out_shape[d]);
    for (int i = 0; i < out_shape[d]; ++i) maps[d][i] = source_index(static_cast<int>(d), i);
  }
  return GatherMapped(context, input, maps, RowMajorStrides(ShapeOf(input)), pad_value, output);
}

// v clamped to T's range.
template <typename T>
T SaturateTo(int64_t v) {
  return static_cast<T>(
      std::min<int64_t>(std::max<int64_t>(v, std::numeric_limits<T>::min()), std::numeric_limits<T>::max()));
}

}  // namespace kernel_helpers
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_KERNEL_HELPERS_H_
