// Reference kernels for reshaping, data movement, reductions and sorting, with TensorFlow Lite
// 2.14.1's semantics (tensorflow/lite/kernels/*.cc and internal/reference/*.h).
//
// Conventions of this file:
// - Data-movement ops never interpret elements: they copy the bytes of any fixed-size type (float,
//   float16, bool, quantized and plain integers, complex), so one implementation serves every type.
//   A few ops refuse types exactly where TFLite 2.14 refuses them (TILE, DEPTH_TO_SPACE, ...).
// - An output whose shape depends on the *values* of an input (a shape, begin/end, axis, k, ...)
//   is sized in Prepare when that input is constant, and otherwise made dynamic and sized in Eval,
//   as TFLite does; shapes can then flow at run time (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE).
// - Invalid attributes or indices are errors with a one-line message naming the op and the value,
//   never out-of-bounds reads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

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

Shape ShapeOf(const TfLiteTensor* t) { return Shape(t->dims->data, t->dims->data + t->dims->size); }

TfLiteStatus ResizeOutput(TfLiteContext* context, TfLiteTensor* output, const Shape& shape) {
  TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i) dims->data[i] = shape[i];
  return context->ResizeTensor(context, output, dims);
}

// True when the tensor's values are available at Prepare time.
bool ValuesKnown(const TfLiteTensor* t) {
  return t == nullptr || tflite::IsConstantOrPersistentTensor(t);
}

TfLiteStatus GetIn(TfLiteContext* context, TfLiteNode* node, int index, const TfLiteTensor** t) {
  return tflite::GetInputSafe(context, node, index, t);
}
TfLiteStatus GetOut(TfLiteContext* context, TfLiteNode* node, int index, TfLiteTensor** t) {
  return tflite::GetOutputSafe(context, node, index, t);
}

TfLiteStatus CheckIo(TfLiteContext* context, const TfLiteNode* node, const char* op, int min_in,
                     int max_in, int outputs) {
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

TfLiteStatus CheckSameType(TfLiteContext* context, const char* op, const TfLiteTensor* a,
                           const TfLiteTensor* b, const char* a_role, const char* b_role) {
  if (a->type != b->type) {
    TF_LITE_KERNEL_LOG(context, "%s: %s type %s differs from %s type %s", op, a_role,
                       TfLiteTypeGetName(a->type), b_role, TfLiteTypeGetName(b->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Fetches input 0 and output 0, which must have the same type.
TfLiteStatus GetSameTypedIo(TfLiteContext* context, TfLiteNode* node, const char* op,
                            const TfLiteTensor** input, TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, output));
  return CheckSameType(context, op, *output, *input, "output", "input");
}

// Bytes of one element; refuses types without a fixed size (string, resource, variant).
TfLiteStatus ElementSize(TfLiteContext* context, const char* op, const TfLiteTensor* t,
                         size_t* elem) {
  *elem = tflite::TfLiteTypeGetSize(t->type);
  if (*elem == 0) {
    TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported (no fixed element size)", op,
                       TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Reads an integer tensor of index type (int32, int64 or int16) as int64 values.
TfLiteStatus ReadInts(TfLiteContext* context, const char* op, const char* role,
                      const TfLiteTensor* t, std::vector<int64_t>* values) {
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
      TF_LITE_KERNEL_LOG(context, "%s: %s must be INT32 or INT64, got %s", op, role,
                         TfLiteTypeGetName(t->type));
      return kTfLiteError;
  }
}

// Reads a tensor holding exactly one integer (a scalar or a one-element vector).
TfLiteStatus ReadOneInt(TfLiteContext* context, const char* op, const char* role,
                        const TfLiteTensor* t, int64_t* value) {
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, op, role, t, &values));
  if (values.size() != 1) {
    TF_LITE_KERNEL_LOG(context, "%s: %s must hold one value, has %d", op, role,
                       static_cast<int>(values.size()));
    return kTfLiteError;
  }
  *value = values[0];
  return kTfLiteOk;
}

TfLiteStatus CheckDimValue(TfLiteContext* context, const char* op, int64_t value) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    TF_LITE_KERNEL_LOG(context, "%s: output dimension %lld is out of range", op,
                       static_cast<long long>(value));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Computes an op's output shape (or shapes) from its inputs' shapes and values.
using ShapeFn = TfLiteStatus (*)(TfLiteContext* context, TfLiteNode* node,
                                 std::vector<Shape>* shapes);

TfLiteStatus ResizeOutputs(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
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
TfLiteStatus SizeOrDefer(TfLiteContext* context, TfLiteNode* node, bool known, ShapeFn fn) {
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
TfLiteStatus PrepareShapedByInput1(TfLiteContext* context, TfLiteNode* node, const char* op,
                                   ShapeFn fn) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, op, &input, &output));
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 1)), fn);
}

TfLiteStatus ResizeDynamicOutputs(TfLiteContext* context, TfLiteNode* node, ShapeFn fn) {
  bool any_dynamic = false;
  for (int i = 0; i < NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOut(context, node, i, &output));
    any_dynamic = any_dynamic || IsDynamicTensor(output);
  }
  return any_dynamic ? ResizeOutputs(context, node, fn) : kTfLiteOk;
}

// Copies all of `input`'s bytes into `output` (same byte size), for ops that only relabel shape.
TfLiteStatus CopyAllBytes(TfLiteContext* context, const char* op, const TfLiteTensor* input,
                          TfLiteTensor* output) {
  if (output->bytes != input->bytes) {
    TF_LITE_KERNEL_LOG(context, "%s: output has %zu bytes, input %zu", op, output->bytes,
                       input->bytes);
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
TfLiteStatus GatherMapped(TfLiteContext* context, const char* op, const TfLiteTensor* input,
                          const std::vector<std::vector<int64_t>>& maps,
                          const std::vector<int64_t>& in_strides, const char* pad_value,
                          TfLiteTensor* output) {
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, op, input, &elem));
  const Shape out_shape = ShapeOf(output);
  if (static_cast<size_t>(FlatSize(out_shape)) * elem != output->bytes) {
    TF_LITE_KERNEL_LOG(context, "%s: output buffer has %zu bytes, shape needs %lld", op,
                       output->bytes, static_cast<long long>(FlatSize(out_shape) * elem));
    return kTfLiteError;
  }
  shape_util::GatherByDimMaps(input->data.raw_const, elem, out_shape, maps, in_strides, pad_value,
                              output->data.raw);
  return kTfLiteOk;
}

template <typename T>
T SaturateTo(int64_t v) {
  return static_cast<T>(std::min<int64_t>(std::max<int64_t>(v, std::numeric_limits<T>::min()),
                                          std::numeric_limits<T>::max()));
}

// ---------------------------------------------------------------------------------------------
// RESHAPE (TFLite 2.14 reshape.cc): the new shape comes from input 1 when it is a 1-D INT32
// tensor, else from the options (where a legacy [0] means a scalar). One -1 is inferred.

Shape ReshapeRequestedShape(TfLiteContext* context, TfLiteNode* node) {
  if (NumInputs(node) == 2) {
    const TfLiteTensor* shape = GetInput(context, node, 1);
    if (shape != nullptr && shape->dims->size == 1 && shape->type == kTfLiteInt32) {
      const int n = shape->dims->data[0];
      Shape result(n);
      for (int i = 0; i < n; ++i) result[i] = shape->data.i32[i];
      return result;
    }
  }
  const TfLiteReshapeParams params = ParamsOrDefault<TfLiteReshapeParams>(node);
  int n = std::min(std::max(params.num_dimensions, 0), TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT);
  if (n == 1 && params.shape[0] == 0) n = 0;
  return Shape(params.shape, params.shape + n);
}

TfLiteStatus ReshapeShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  if (NumInputs(node) == 2) {
    const TfLiteTensor* shape = GetInput(context, node, 1);
    if (shape != nullptr && shape->dims->size == 1 && shape->type == kTfLiteInt32 &&
        shape->dims->data[0] > 0 && shape->data.raw == nullptr) {
      TF_LITE_KERNEL_LOG(context, "RESHAPE: shape input has no data");
      return kTfLiteError;
    }
  }
  Shape out = ReshapeRequestedShape(context, node);
  const int64_t num_input = tflite::NumElements(input);
  int64_t non_zero_input = 1;
  for (int i = 0; i < input->dims->size; ++i) {
    if (input->dims->data[i] != 0) non_zero_input *= input->dims->data[i];
  }
  int stretch = -1;
  int64_t num_output = 1, non_zero_output = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (stretch != -1) {
        TF_LITE_KERNEL_LOG(context, "RESHAPE: more than one -1 in the new shape");
        return kTfLiteError;
      }
      stretch = static_cast<int>(i);
      continue;
    }
    if (out[i] < 0) {
      TF_LITE_KERNEL_LOG(context, "RESHAPE: negative dimension %d in the new shape", out[i]);
      return kTfLiteError;
    }
    if (out[i] != 0) non_zero_output *= out[i];
    num_output *= out[i];
  }
  if (stretch != -1) {
    if (num_input == 0 && num_output != 0) {
      out[stretch] = 0;
    } else {
      out[stretch] = static_cast<int>(non_zero_input / non_zero_output);
    }
    num_output *= out[stretch];
  }
  if (num_input != num_output) {
    std::string dims;
    for (size_t i = 0; i < out.size(); ++i) dims += (i ? "," : "") + std::to_string(out[i]);
    TF_LITE_KERNEL_LOG(
        context, "RESHAPE: cannot reshape %lld elements into shape [%s] (%lld elements)",
        static_cast<long long>(num_input), dims.c_str(), static_cast<long long>(num_output));
    return kTfLiteError;
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus ReshapePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "RESHAPE", 1, 2, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "RESHAPE", &input, &output));
  // String tensors are always sized in Eval, when their content is known (as in TFLite).
  if (output->type == kTfLiteString) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  const bool known = NumInputs(node) == 1 || ValuesKnown(GetInput(context, node, 1));
  return SizeOrDefer(context, node, known, ReshapeShape);
}

TfLiteStatus ReshapeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, ReshapeShape));
  if (output->type == kTfLiteString) {
    TF_LITE_ENSURE_OK(context, TfLiteTensorRealloc(input->bytes, output));
    output->bytes = input->bytes;
  }
  return CopyAllBytes(context, "RESHAPE", input, output);
}

// ---------------------------------------------------------------------------------------------
// SQUEEZE: drops the listed size-1 dimensions, or all of them when none are listed.

TfLiteStatus SqueezePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "SQUEEZE", 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "SQUEEZE", &input, &output));
  const TfLiteSqueezeParams params = ParamsOrDefault<TfLiteSqueezeParams>(node);
  const int rank = NumDimensions(input);
  std::vector<bool> squeeze(rank, false);
  const int count = std::min(std::max(params.num_squeeze_dims, 0), 8);
  if (count == 0) {
    for (int i = 0; i < rank; ++i) squeeze[i] = input->dims->data[i] == 1;
  } else {
    for (int i = 0; i < count; ++i) {
      int axis;
      if (!NormalizeAxis(params.squeeze_dims[i], rank, &axis)) {
        TF_LITE_KERNEL_LOG(context, "SQUEEZE: dimension %d is out of range for rank %d",
                           params.squeeze_dims[i], rank);
        return kTfLiteError;
      }
      if (input->dims->data[axis] != 1) {
        TF_LITE_KERNEL_LOG(context, "SQUEEZE: dimension %d has size %d, not 1", axis,
                           input->dims->data[axis]);
        return kTfLiteError;
      }
      squeeze[axis] = true;
    }
  }
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (!squeeze[i]) out.push_back(input->dims->data[i]);
  }
  return ResizeOutput(context, output, out);
}

TfLiteStatus CopyEval(TfLiteContext* context, TfLiteNode* node, const char* op) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  return CopyAllBytes(context, op, input, output);
}

TfLiteStatus SqueezeEval(TfLiteContext* context, TfLiteNode* node) {
  return CopyEval(context, node, "SQUEEZE");
}

// ---------------------------------------------------------------------------------------------
// EXPAND_DIMS: inserts a size-1 dimension at `axis` (input 1), in [-(rank+1), rank].

TfLiteStatus ExpandDimsShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input;
  const TfLiteTensor* axis_t;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &axis_t));
  int64_t axis;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, "EXPAND_DIMS", "axis", axis_t, &axis));
  int normalized;
  if (!NormalizeAxis(axis, NumDimensions(input) + 1, &normalized)) {
    TF_LITE_KERNEL_LOG(context, "EXPAND_DIMS: axis %lld is out of range for rank %d",
                       static_cast<long long>(axis), NumDimensions(input));
    return kTfLiteError;
  }
  Shape out = ShapeOf(input);
  out.insert(out.begin() + normalized, 1);
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus ExpandDimsPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, "EXPAND_DIMS", ExpandDimsShape);
}

TfLiteStatus ExpandDimsEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, ExpandDimsShape));
  return CopyEval(context, node, "EXPAND_DIMS");
}

// ---------------------------------------------------------------------------------------------
// SHAPE and RANK.

TfLiteStatus ShapePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "SHAPE", 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  const TfLiteShapeParams params = ParamsOrDefault<TfLiteShapeParams>(node);
  const TfLiteType want = params.out_type == kTfLiteNoType ? output->type : params.out_type;
  if ((want != kTfLiteInt32 && want != kTfLiteInt64) || output->type != want) {
    TF_LITE_KERNEL_LOG(context,
                       "SHAPE: output type must be INT32 or INT64 (out_type %s, output %s)",
                       TfLiteTypeGetName(params.out_type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {NumDimensions(input)});
}

TfLiteStatus ShapeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  for (int i = 0; i < input->dims->size; ++i) {
    if (output->type == kTfLiteInt64) {
      output->data.i64[i] = input->dims->data[i];
    } else {
      output->data.i32[i] = input->dims->data[i];
    }
  }
  return kTfLiteOk;
}

TfLiteStatus RankPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "RANK", 1, 1, 1));
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  if (output->type != kTfLiteInt32) {
    TF_LITE_KERNEL_LOG(context, "RANK: output type must be INT32, got %s",
                       TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {});
}

TfLiteStatus RankEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  output->data.i32[0] = NumDimensions(input);
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// TILE: output[i] = input[i mod input_shape], repeated `multiples` times per dimension.

TfLiteStatus TileShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input;
  const TfLiteTensor* multiples_t;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &multiples_t));
  std::vector<int64_t> multiples;
  TF_LITE_ENSURE_OK(context, ReadInts(context, "TILE", "multiples", multiples_t, &multiples));
  const int rank = NumDimensions(input);
  if (NumDimensions(multiples_t) != 1 || static_cast<int>(multiples.size()) != rank) {
    TF_LITE_KERNEL_LOG(context, "TILE: multiples must be a vector of %d values, has %d", rank,
                       static_cast<int>(multiples.size()));
    return kTfLiteError;
  }
  Shape out(rank);
  for (int i = 0; i < rank; ++i) {
    if (multiples[i] < 0) {
      TF_LITE_KERNEL_LOG(context, "TILE: negative multiple %lld",
                         static_cast<long long>(multiples[i]));
      return kTfLiteError;
    }
    const int64_t d = input->dims->data[i] * multiples[i];
    TF_LITE_ENSURE_OK(context, CheckDimValue(context, "TILE", d));
    out[i] = static_cast<int>(d);
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus TilePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "TILE", 2, 2, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "TILE", &input, &output));
  switch (input->type) {  // as TFLite 2.14 (no INT16)
    case kTfLiteFloat32:
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt32:
    case kTfLiteInt64:
    case kTfLiteBool: break;
    default:
      TF_LITE_KERNEL_LOG(context, "TILE: type %s is not supported", TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 1)), TileShape);
}

TfLiteStatus TileEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, TileShape));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  const Shape in_shape = ShapeOf(input);
  const Shape out_shape = ShapeOf(output);
  std::vector<std::vector<int64_t>> maps(out_shape.size());
  for (size_t d = 0; d < out_shape.size(); ++d) {
    maps[d].resize(out_shape[d]);
    for (int i = 0; i < out_shape[d]; ++i) maps[d][i] = i % in_shape[d];
  }
  return GatherMapped(context, "TILE", input, maps, RowMajorStrides(in_shape), nullptr, output);
}

// ---------------------------------------------------------------------------------------------
// TRANSPOSE: output dimension i is input dimension perm[i].

TfLiteStatus TransposePerm(TfLiteContext* context, TfLiteNode* node, std::vector<int>* perm) {
  const TfLiteTensor* input;
  const TfLiteTensor* perm_t;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &perm_t));
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, "TRANSPOSE", "perm", perm_t, &values));
  const int rank = NumDimensions(input);
  if (static_cast<int>(values.size()) != rank) {
    TF_LITE_KERNEL_LOG(context, "TRANSPOSE: perm has %d entries, input rank is %d",
                       static_cast<int>(values.size()), rank);
    return kTfLiteError;
  }
  std::vector<bool> seen(rank, false);
  perm->resize(rank);
  for (int i = 0; i < rank; ++i) {
    if (values[i] < 0 || values[i] >= rank || seen[values[i]]) {
      TF_LITE_KERNEL_LOG(context,
                         "TRANSPOSE: perm is not a permutation of 0..%d (entry %d is %lld)",
                         rank - 1, i, static_cast<long long>(values[i]));
      return kTfLiteError;
    }
    seen[values[i]] = true;
    (*perm)[i] = static_cast<int>(values[i]);
  }
  return kTfLiteOk;
}

TfLiteStatus TransposeShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  std::vector<int> perm;
  TF_LITE_ENSURE_OK(context, TransposePerm(context, node, &perm));
  const TfLiteTensor* input = GetInput(context, node, 0);
  Shape out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = input->dims->data[perm[i]];
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus TransposePrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, "TRANSPOSE", TransposeShape);
}

TfLiteStatus TransposeEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, TransposeShape));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  std::vector<int> perm;
  TF_LITE_ENSURE_OK(context, TransposePerm(context, node, &perm));
  const std::vector<int64_t> in_strides = RowMajorStrides(ShapeOf(input));
  const Shape out_shape = ShapeOf(output);
  std::vector<std::vector<int64_t>> maps(perm.size());
  std::vector<int64_t> strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    maps[d].resize(out_shape[d]);
    std::iota(maps[d].begin(), maps[d].end(), 0);
    strides[d] = in_strides[perm[d]];
  }
  return GatherMapped(context, "TRANSPOSE", input, maps, strides, nullptr, output);
}

// ---------------------------------------------------------------------------------------------
// PACK / UNPACK.

TfLiteStatus PackPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLitePackParams params = ParamsOrDefault<TfLitePackParams>(node);
  const int n = NumInputs(node);
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "PACK", 1, 1 << 20, 1));
  if (params.values_count != 0 && params.values_count != n) {
    TF_LITE_KERNEL_LOG(context, "PACK: values_count is %d but the op has %d inputs",
                       params.values_count, n);
    return kTfLiteError;
  }
  const TfLiteTensor* input0;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input0));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  const int rank = NumDimensions(input0);
  int axis;
  if (!NormalizeAxis(params.axis, rank + 1, &axis)) {
    TF_LITE_KERNEL_LOG(context, "PACK: axis %d is out of range for inputs of rank %d", params.axis,
                       rank);
    return kTfLiteError;
  }
  for (int i = 0; i < n; ++i) {
    const TfLiteTensor* t;
    TF_LITE_ENSURE_OK(context, GetIn(context, node, i, &t));
    TF_LITE_ENSURE_OK(context, CheckSameType(context, "PACK", t, output, "input", "output"));
    if (!TfLiteIntArrayEqual(t->dims, input0->dims)) {
      TF_LITE_KERNEL_LOG(context, "PACK: input %d has a different shape from input 0", i);
      return kTfLiteError;
    }
  }
  Shape out = ShapeOf(input0);
  out.insert(out.begin() + axis, n);
  return ResizeOutput(context, output, out);
}

TfLiteStatus PackEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLitePackParams params = ParamsOrDefault<TfLitePackParams>(node);
  const int n = NumInputs(node);
  const TfLiteTensor* input0;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input0));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "PACK", output, &elem));
  const Shape shape = ShapeOf(input0);
  int axis;
  NormalizeAxis(params.axis, static_cast<int>(shape.size()) + 1, &axis);
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const size_t inner_bytes = ProductOfDims(shape, axis, static_cast<int>(shape.size())) * elem;
  for (int i = 0; i < n; ++i) {
    const TfLiteTensor* t = GetInput(context, node, i);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(output->data.raw + (o * n + i) * inner_bytes, t->data.raw_const + o * inner_bytes,
                  inner_bytes);
    }
  }
  return kTfLiteOk;
}

TfLiteStatus UnpackPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteUnpackParams params = ParamsOrDefault<TfLiteUnpackParams>(node);
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "UNPACK", 1, 1, -1));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  const int rank = NumDimensions(input);
  int axis;
  if (!NormalizeAxis(params.axis, rank, &axis)) {
    TF_LITE_KERNEL_LOG(context, "UNPACK: axis %d is out of range for rank %d", params.axis, rank);
    return kTfLiteError;
  }
  const int n = NumOutputs(node);
  if (input->dims->data[axis] != n || (params.num != 0 && params.num != n)) {
    TF_LITE_KERNEL_LOG(context,
                       "UNPACK: dimension %d has size %d, but the op has %d outputs (num %d)", axis,
                       input->dims->data[axis], n, params.num);
    return kTfLiteError;
  }
  Shape out = ShapeOf(input);
  out.erase(out.begin() + axis);
  for (int i = 0; i < n; ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOut(context, node, i, &output));
    TF_LITE_ENSURE_OK(context, CheckSameType(context, "UNPACK", output, input, "output", "input"));
    TF_LITE_ENSURE_OK(context, ResizeOutput(context, output, out));
  }
  return kTfLiteOk;
}

TfLiteStatus UnpackEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteUnpackParams params = ParamsOrDefault<TfLiteUnpackParams>(node);
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "UNPACK", input, &elem));
  const Shape shape = ShapeOf(input);
  int axis;
  NormalizeAxis(params.axis, static_cast<int>(shape.size()), &axis);
  const int n = NumOutputs(node);
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const size_t inner_bytes = ProductOfDims(shape, axis + 1, static_cast<int>(shape.size())) * elem;
  for (int i = 0; i < n; ++i) {
    TfLiteTensor* output = GetOutput(context, node, i);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(output->data.raw + o * inner_bytes,
                  input->data.raw_const + (o * n + i) * inner_bytes, inner_bytes);
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// GATHER (with batch_dims) and GATHER_ND.

// Index tensors (GATHER, GATHER_ND) may be INT32, INT64 or INT16.
TfLiteStatus CheckIndexType(TfLiteContext* context, const char* op, const TfLiteTensor* t) {
  if (t->type == kTfLiteInt32 || t->type == kTfLiteInt64 || t->type == kTfLiteInt16) {
    return kTfLiteOk;
  }
  TF_LITE_KERNEL_LOG(context, "%s: indices must be INT32, INT64 or INT16, got %s", op,
                     TfLiteTypeGetName(t->type));
  return kTfLiteError;
}

struct GatherDims {
  int axis;
  int batch_dims;
};

TfLiteStatus GatherResolve(TfLiteContext* context, TfLiteNode* node, GatherDims* g) {
  const TfLiteGatherParams params = ParamsOrDefault<TfLiteGatherParams>(node);
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* positions = GetInput(context, node, 1);
  const int rank = NumDimensions(input);
  if (!NormalizeAxis(params.axis, rank, &g->axis)) {
    TF_LITE_KERNEL_LOG(context, "GATHER: axis %d is out of range for rank %d", params.axis, rank);
    return kTfLiteError;
  }
  g->batch_dims = params.batch_dims;
  if (g->batch_dims < 0) g->batch_dims += NumDimensions(positions);
  if (g->batch_dims < 0 || g->batch_dims > g->axis || g->batch_dims > NumDimensions(positions)) {
    TF_LITE_KERNEL_LOG(context,
                       "GATHER: batch_dims %d is invalid for axis %d and indices of rank %d",
                       params.batch_dims, g->axis, NumDimensions(positions));
    return kTfLiteError;
  }
  for (int i = 0; i < g->batch_dims; ++i) {
    if (input->dims->data[i] != positions->dims->data[i]) {
      TF_LITE_KERNEL_LOG(context, "GATHER: batch dimension %d differs between params and indices",
                         i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus GatherPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "GATHER", 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* positions;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "GATHER", &input, &output));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &positions));
  TF_LITE_ENSURE_OK(context, CheckIndexType(context, "GATHER", positions));
  GatherDims g;
  TF_LITE_ENSURE_OK(context, GatherResolve(context, node, &g));
  Shape out(input->dims->data, input->dims->data + g.axis);
  out.insert(out.end(), positions->dims->data + g.batch_dims,
             positions->dims->data + positions->dims->size);
  out.insert(out.end(), input->dims->data + g.axis + 1, input->dims->data + input->dims->size);
  return ResizeOutput(context, output, out);
}

TfLiteStatus GatherEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* positions = GetInput(context, node, 1);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "GATHER", input, &elem));
  GatherDims g;
  TF_LITE_ENSURE_OK(context, GatherResolve(context, node, &g));
  std::vector<int64_t> coords;
  TF_LITE_ENSURE_OK(context, ReadInts(context, "GATHER", "indices", positions, &coords));
  const Shape in_shape = ShapeOf(input);
  const Shape pos_shape = ShapeOf(positions);
  const int64_t batch = ProductOfDims(in_shape, 0, g.batch_dims);
  const int64_t outer = ProductOfDims(in_shape, g.batch_dims, g.axis);
  const int64_t axis_size = in_shape[g.axis];
  const size_t inner_bytes =
      ProductOfDims(in_shape, g.axis + 1, static_cast<int>(in_shape.size())) * elem;
  const int64_t coord_count =
      ProductOfDims(pos_shape, g.batch_dims, static_cast<int>(pos_shape.size()));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < coord_count; ++i) {
        const int64_t index = coords[b * coord_count + i];
        if (index < 0 || index >= axis_size) {
          TF_LITE_KERNEL_LOG(context, "GATHER: index %lld is out of range [0, %lld)",
                             static_cast<long long>(index), static_cast<long long>(axis_size));
          return kTfLiteError;
        }
        std::memcpy(output->data.raw + ((b * outer + o) * coord_count + i) * inner_bytes,
                    input->data.raw_const + ((b * outer + o) * axis_size + index) * inner_bytes,
                    inner_bytes);
      }
    }
  }
  return kTfLiteOk;
}

TfLiteStatus GatherNdPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "GATHER_ND", 2, 2, 1));
  const TfLiteTensor* params;
  const TfLiteTensor* indices;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "GATHER_ND", &params, &output));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &indices));
  TF_LITE_ENSURE_OK(context, CheckIndexType(context, "GATHER_ND", indices));
  const int params_rank = NumDimensions(params);
  const int indices_rank = NumDimensions(indices);
  if (params_rank < 1 || indices_rank < 1) {
    TF_LITE_KERNEL_LOG(context, "GATHER_ND: params and indices must each be at least a vector");
    return kTfLiteError;
  }
  const int nd = indices->dims->data[indices_rank - 1];
  if (nd > params_rank) {
    TF_LITE_KERNEL_LOG(context, "GATHER_ND: index depth %d exceeds params rank %d", nd,
                       params_rank);
    return kTfLiteError;
  }
  Shape out(indices->dims->data, indices->dims->data + indices_rank - 1);
  out.insert(out.end(), params->dims->data + nd, params->dims->data + params_rank);
  return ResizeOutput(context, output, out);
}

TfLiteStatus GatherNdEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* params = GetInput(context, node, 0);
  const TfLiteTensor* indices = GetInput(context, node, 1);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "GATHER_ND", params, &elem));
  std::vector<int64_t> idx;
  TF_LITE_ENSURE_OK(context, ReadInts(context, "GATHER_ND", "indices", indices, &idx));
  const Shape p_shape = ShapeOf(params);
  const int nd = indices->dims->data[indices->dims->size - 1];
  const std::vector<int64_t> p_strides = RowMajorStrides(p_shape);
  const size_t slice_bytes = ProductOfDims(p_shape, nd, static_cast<int>(p_shape.size())) * elem;
  const int64_t count = ProductOfDims(ShapeOf(indices), 0, indices->dims->size - 1);
  for (int64_t n = 0; n < count; ++n) {
    int64_t from = 0;
    for (int j = 0; j < nd; ++j) {
      const int64_t v = idx[n * nd + j];
      if (v < 0 || v >= p_shape[j]) {
        TF_LITE_KERNEL_LOG(context, "GATHER_ND: index %lld is out of range [0, %d) in dimension %d",
                           static_cast<long long>(v), p_shape[j], j);
        return kTfLiteError;
      }
      from += v * p_strides[j];
    }
    std::memcpy(output->data.raw + n * slice_bytes, params->data.raw_const + from * elem,
                slice_bytes);
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// SLICE (begin, size; size -1 means "to the end").

TfLiteStatus SliceRange(TfLiteContext* context, TfLiteNode* node, std::vector<int64_t>* begin,
                        Shape* size) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* begin_t = GetInput(context, node, 1);
  const TfLiteTensor* size_t_ = GetInput(context, node, 2);
  std::vector<int64_t> sizes;
  TF_LITE_ENSURE_OK(context, ReadInts(context, "SLICE", "begin", begin_t, begin));
  TF_LITE_ENSURE_OK(context, ReadInts(context, "SLICE", "size", size_t_, &sizes));
  const int rank = NumDimensions(input);
  if (static_cast<int>(begin->size()) != rank || static_cast<int>(sizes.size()) != rank) {
    TF_LITE_KERNEL_LOG(context, "SLICE: begin and size must have %d values (have %d and %d)", rank,
                       static_cast<int>(begin->size()), static_cast<int>(sizes.size()));
    return kTfLiteError;
  }
  size->resize(rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = input->dims->data[i];
    const int64_t b = (*begin)[i];
    int64_t s = sizes[i];
    if (b < 0 || b > dim) {
      TF_LITE_KERNEL_LOG(context, "SLICE: begin %lld is out of range for dimension %d of size %lld",
                         static_cast<long long>(b), i, static_cast<long long>(dim));
      return kTfLiteError;
    }
    if (s == -1) s = dim - b;
    if (s < 0 || b + s > dim) {
      TF_LITE_KERNEL_LOG(context,
                         "SLICE: begin %lld and size %lld exceed dimension %d of size %lld",
                         static_cast<long long>(b), static_cast<long long>(sizes[i]), i,
                         static_cast<long long>(dim));
      return kTfLiteError;
    }
    (*size)[i] = static_cast<int>(s);
  }
  return kTfLiteOk;
}

TfLiteStatus SliceShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  std::vector<int64_t> begin;
  Shape size;
  TF_LITE_ENSURE_OK(context, SliceRange(context, node, &begin, &size));
  shapes->assign(1, size);
  return kTfLiteOk;
}

TfLiteStatus SlicePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "SLICE", 3, 3, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "SLICE", &input, &output));
  const bool known =
      ValuesKnown(GetInput(context, node, 1)) && ValuesKnown(GetInput(context, node, 2));
  return SizeOrDefer(context, node, known, SliceShape);
}

TfLiteStatus SliceEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, SliceShape));
  std::vector<int64_t> begin;
  Shape size;
  TF_LITE_ENSURE_OK(context, SliceRange(context, node, &begin, &size));
  const TfLiteTensor* input = GetInput(context, node, 0);
  std::vector<std::vector<int64_t>> maps(size.size());
  for (size_t d = 0; d < size.size(); ++d) {
    maps[d].resize(size[d]);
    std::iota(maps[d].begin(), maps[d].end(), begin[d]);
  }
  return GatherMapped(context, "SLICE", input, maps, RowMajorStrides(ShapeOf(input)), nullptr,
                      GetOutput(context, node, 0));
}

// ---------------------------------------------------------------------------------------------
// STRIDED_SLICE, following TFLite 2.14's strided_slice.cc: the ellipsis and new-axis masks are
// folded into an "effective" input shape (new axes are size-1 dimensions), then each effective
// dimension is sliced with strided_slice_logic.h's start/stop rules.

struct StridedSlicing {
  Shape effective_shape;   // input shape with the new axes inserted
  std::vector<int> start;  // per effective dimension
  std::vector<int> count;  // elements taken per effective dimension
  std::vector<int> stride;
  std::vector<bool> shrink;  // dimension dropped from the output
};

TfLiteStatus BuildStridedSlicing(TfLiteContext* context, TfLiteNode* node, StridedSlicing* s) {
  const TfLiteStridedSliceParams params = ParamsOrDefault<TfLiteStridedSliceParams>(node);
  const TfLiteTensor* input = GetInput(context, node, 0);
  std::vector<int64_t> begin, end, strides;
  TF_LITE_ENSURE_OK(
      context, ReadInts(context, "STRIDED_SLICE", "begin", GetInput(context, node, 1), &begin));
  TF_LITE_ENSURE_OK(context,
                    ReadInts(context, "STRIDED_SLICE", "end", GetInput(context, node, 2), &end));
  TF_LITE_ENSURE_OK(
      context, ReadInts(context, "STRIDED_SLICE", "strides", GetInput(context, node, 3), &strides));
  const int begin_count = static_cast<int>(begin.size());
  if (static_cast<int>(end.size()) != begin_count ||
      static_cast<int>(strides.size()) != begin_count) {
    TF_LITE_KERNEL_LOG(context,
                       "STRIDED_SLICE: begin, end and strides differ in length (%d, %d, %d)",
                       begin_count, static_cast<int>(end.size()), static_cast<int>(strides.size()));
    return kTfLiteError;
  }
  if (begin_count > 31) {
    TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: %d indices are too many", begin_count);
    return kTfLiteError;
  }
  const int input_dims = NumDimensions(input);
  int num_add_axis = 0;
  for (int i = 0; i < begin_count; ++i) {
    if (!((1 << i) & params.ellipsis_mask) && ((1 << i) & params.new_axis_mask)) ++num_add_axis;
  }
  const int effective_dims = input_dims + num_add_axis;
  if (effective_dims > 31) {
    TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: %d dimensions are too many", effective_dims);
    return kTfLiteError;
  }
  // Expand the ellipsis (it covers the dimensions that begin/end/strides leave unspecified); a
  // new-axis bit at the ellipsis position has no effect.
  int64_t effective_ellipsis_mask = 0, effective_new_axis_mask = 0;
  int ellipsis_start = effective_dims, expanded_ellipsis = 0;
  for (int i = 0; i < effective_dims;) {
    if ((1 << i) & params.ellipsis_mask) {
      ellipsis_start = i;
      const int ellipsis_end = std::max(
          i + 1, std::min(i + 1 + num_add_axis + input_dims - begin_count, effective_dims));
      expanded_ellipsis = ellipsis_end - ellipsis_start - 1;
      for (; i < ellipsis_end; ++i) effective_ellipsis_mask |= (int64_t{1} << i);
      continue;
    }
    if (i - expanded_ellipsis < 31 && ((1 << (i - expanded_ellipsis)) & params.new_axis_mask)) {
      effective_new_axis_mask |= (int64_t{1} << i);
    }
    ++i;
  }
  s->effective_shape.assign(effective_dims, 1);
  s->start.assign(effective_dims, 0);
  s->count.assign(effective_dims, 0);
  s->stride.assign(effective_dims, 1);
  s->shrink.assign(effective_dims, false);
  int added_ellipsis = 0, added_axes = 0;
  for (int i = 0; i < effective_dims; ++i) {
    int64_t b = 0, e = 0, stride = 1;
    bool begin_mask = false, end_mask = false;
    const bool is_new_axis = !((int64_t{1} << i) & effective_ellipsis_mask) &&
                             ((int64_t{1} << i) & effective_new_axis_mask);
    if (!is_new_axis) {
      if (i - added_axes >= input_dims) {
        TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: the masks do not fit an input of rank %d",
                           input_dims);
        return kTfLiteError;
      }
      s->effective_shape[i] = input->dims->data[i - added_axes];
    }
    if ((int64_t{1} << i) & effective_ellipsis_mask) {
      added_ellipsis = std::max(0, i - ellipsis_start);
      begin_mask = end_mask = true;
    } else if (is_new_axis) {
      b = 0;
      e = 1;
      s->effective_shape[i] = 1;
      ++added_axes;
    } else if (i >= begin_count + expanded_ellipsis) {
      begin_mask = end_mask = true;
    } else {
      const int orig = i - added_ellipsis;
      b = begin[orig];
      e = end[orig];
      stride = strides[orig];
      begin_mask = (params.begin_mask >> orig) & 1;
      end_mask = (params.end_mask >> orig) & 1;
      s->shrink[i] = (params.shrink_axis_mask >> orig) & 1;
    }
    if (stride == 0) {
      TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: stride of dimension %d is zero", i);
      return kTfLiteError;
    }
    const int size = s->effective_shape[i];
    const int st = static_cast<int>(stride);
    const int start = shape_util::StridedSliceStart(
        static_cast<int>(std::max<int64_t>(std::min<int64_t>(b, INT32_MAX), INT32_MIN)), st, size,
        begin_mask);
    if (s->shrink[i]) {
      // Shrinking takes exactly the element at `start` (TF's semantics; it must exist).
      if (start < 0 || start >= size) {
        TF_LITE_KERNEL_LOG(
            context, "STRIDED_SLICE: shrunk index %lld is out of range for dimension %d of size %d",
            static_cast<long long>(b), i, size);
        return kTfLiteError;
      }
      s->start[i] = start;
      s->count[i] = 1;
      s->stride[i] = 1;
      continue;
    }
    const int stop = shape_util::StridedSliceStop(
        static_cast<int>(std::max<int64_t>(std::min<int64_t>(e, INT32_MAX), INT32_MIN)), start, st,
        size, end_mask, false, params.offset);
    s->start[i] = start;
    s->stride[i] = st;
    s->count[i] = shape_util::StridedCount(start, stop, st);
  }
  return kTfLiteOk;
}

TfLiteStatus StridedSliceShape(TfLiteContext* context, TfLiteNode* node,
                               std::vector<Shape>* shapes) {
  StridedSlicing slicing;
  TF_LITE_ENSURE_OK(context, BuildStridedSlicing(context, node, &slicing));
  Shape out;
  for (size_t i = 0; i < slicing.count.size(); ++i) {
    if (!slicing.shrink[i]) out.push_back(slicing.count[i]);
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus StridedSlicePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "STRIDED_SLICE", 4, 4, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "STRIDED_SLICE", &input, &output));
  for (int i = 1; i <= 3; ++i) {
    const TfLiteTensor* t;
    TF_LITE_ENSURE_OK(context, GetIn(context, node, i, &t));
    if (NumDimensions(t) != 1) {
      TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: input %d (begin/end/strides) must be 1-D", i);
      return kTfLiteError;
    }
  }
  const bool known = ValuesKnown(GetInput(context, node, 1)) &&
                     ValuesKnown(GetInput(context, node, 2)) &&
                     ValuesKnown(GetInput(context, node, 3));
  return SizeOrDefer(context, node, known, StridedSliceShape);
}

TfLiteStatus StridedSliceEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, StridedSliceShape));
  StridedSlicing slicing;
  TF_LITE_ENSURE_OK(context, BuildStridedSlicing(context, node, &slicing));
  const int dims = static_cast<int>(slicing.count.size());
  std::vector<std::vector<int64_t>> maps(dims);
  Shape view(dims);
  for (int d = 0; d < dims; ++d) {
    view[d] = slicing.count[d];
    maps[d].resize(slicing.count[d]);
    for (int i = 0; i < slicing.count[d]; ++i) {
      maps[d][i] = slicing.start[d] + int64_t{i} * slicing.stride[d];
    }
  }
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "STRIDED_SLICE", input, &elem));
  if (static_cast<size_t>(FlatSize(view)) * elem != output->bytes) {
    TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: output buffer has %zu bytes, slice needs %lld",
                       output->bytes, static_cast<long long>(FlatSize(view) * elem));
    return kTfLiteError;
  }
  shape_util::GatherByDimMaps(input->data.raw_const, elem, view, maps,
                              RowMajorStrides(slicing.effective_shape), nullptr, output->data.raw);
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// CONCATENATION, SPLIT, SPLIT_V.

TfLiteStatus ConcatPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "CONCATENATION", 1, 1 << 20, 1));
  const TfLiteConcatenationParams params = ParamsOrDefault<TfLiteConcatenationParams>(node);
  const TfLiteTensor* input0;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input0));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  const int rank = NumDimensions(input0);
  int axis;
  if (!NormalizeAxis(params.axis, rank, &axis)) {
    TF_LITE_KERNEL_LOG(context, "CONCATENATION: axis %d is out of range for rank %d", params.axis,
                       rank);
    return kTfLiteError;
  }
  if (params.activation != kTfLiteActNone) {
    // TFLite 2.14.1 refuses every fused activation here, float32 included.
    TF_LITE_KERNEL_LOG(context, "CONCATENATION: fused activation %d is not supported (only NONE)",
                       static_cast<int>(params.activation));
    return kTfLiteError;
  }
  Shape out = ShapeOf(input0);
  int64_t sum = 0;
  for (int i = 0; i < NumInputs(node); ++i) {
    const TfLiteTensor* t;
    TF_LITE_ENSURE_OK(context, GetIn(context, node, i, &t));
    TF_LITE_ENSURE_OK(context,
                      CheckSameType(context, "CONCATENATION", t, output, "input", "output"));
    if (NumDimensions(t) != rank) {
      TF_LITE_KERNEL_LOG(context, "CONCATENATION: input %d has rank %d, input 0 has %d", i,
                         NumDimensions(t), rank);
      return kTfLiteError;
    }
    for (int d = 0; d < rank; ++d) {
      if (d != axis && t->dims->data[d] != out[d]) {
        TF_LITE_KERNEL_LOG(
            context, "CONCATENATION: input %d differs from input 0 in dimension %d (%d vs %d)", i,
            d, t->dims->data[d], out[d]);
        return kTfLiteError;
      }
    }
    if ((t->type == kTfLiteInt8 || t->type == kTfLiteInt16) &&
        (t->params.scale != output->params.scale ||
         t->params.zero_point != output->params.zero_point)) {
      // TFLite rescales only UINT8 inputs; INT8 and INT16 must already share the output's.
      TF_LITE_KERNEL_LOG(context,
                         "CONCATENATION: input %d's quantization differs from the output's", i);
      return kTfLiteError;
    }
    sum += t->dims->data[axis];
  }
  TF_LITE_ENSURE_OK(context, CheckDimValue(context, "CONCATENATION", sum));
  out[axis] = static_cast<int>(sum);
  return ResizeOutput(context, output, out);
}

// Requantizes one block of UINT8 values as TFLite's ConcatenationWithScaling does.
template <typename T>
void RequantizeBlock(const T* in, int64_t n, float in_scale, int32_t in_zp, float out_scale,
                     int32_t out_zp, T* out) {
  const float scale = in_scale * (1.f / out_scale);
  const float bias = -in_zp * scale;
  auto requantize = [&](T x) {
    return SaturateTo<T>(static_cast<int32_t>(std::round(x * scale + bias)) + out_zp);
  };
  if (sizeof(T) == 1 && n > 256) {
    // An 8-bit value's result depends on nothing else: tabulate the same expression once.
    T table[256];
    for (int v = 0; v < 256; ++v) table[v] = requantize(static_cast<T>(v));
    for (int64_t j = 0; j < n; ++j) out[j] = table[static_cast<uint8_t>(in[j])];
    return;
  }
  for (int64_t j = 0; j < n; ++j) out[j] = requantize(in[j]);
}

TfLiteStatus ConcatEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteConcatenationParams params = ParamsOrDefault<TfLiteConcatenationParams>(node);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "CONCATENATION", output, &elem));
  const Shape out_shape = ShapeOf(output);
  int axis;
  NormalizeAxis(params.axis, static_cast<int>(out_shape.size()), &axis);
  const int64_t outer = ProductOfDims(out_shape, 0, axis);
  const int64_t inner = ProductOfDims(out_shape, axis + 1, static_cast<int>(out_shape.size()));
  const bool rescalable = output->type == kTfLiteUInt8;
  char* out = output->data.raw;
  for (int64_t o = 0; o < outer; ++o) {
    for (int i = 0; i < NumInputs(node); ++i) {
      const TfLiteTensor* t = GetInput(context, node, i);
      const int64_t n = t->dims->data[axis] * inner;
      const char* in = t->data.raw_const + o * n * elem;
      const bool rescale = rescalable && (t->params.scale != output->params.scale ||
                                          t->params.zero_point != output->params.zero_point);
      if (!rescale) {
        std::memcpy(out, in, n * elem);
      } else {
        RequantizeBlock(reinterpret_cast<const uint8_t*>(in), n, t->params.scale,
                        t->params.zero_point, output->params.scale, output->params.zero_point,
                        reinterpret_cast<uint8_t*>(out));
      }
      out += n * elem;
    }
  }
  return kTfLiteOk;
}

// SPLIT (axis, input) and SPLIT_V (input, size_splits, axis) differ only in where their input
// is and how the part sizes are found; `Resolve` gives the axis and one size per output.
using SplitResolveFn = TfLiteStatus (*)(TfLiteContext* context, TfLiteNode* node, int* axis,
                                        std::vector<int64_t>* sizes);

TfLiteStatus SplitResolve(TfLiteContext* context, TfLiteNode* node, int* axis,
                          std::vector<int64_t>* sizes) {
  const TfLiteTensor* axis_t = GetInput(context, node, 0);
  const TfLiteTensor* input = GetInput(context, node, 1);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, "SPLIT", "axis", axis_t, &a));
  if (!NormalizeAxis(a, NumDimensions(input), axis)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT: axis %lld is out of range for rank %d",
                       static_cast<long long>(a), NumDimensions(input));
    return kTfLiteError;
  }
  const int n = NumOutputs(node);
  const int dim = input->dims->data[*axis];
  if (n == 0 || dim % n != 0) {
    TF_LITE_KERNEL_LOG(context, "SPLIT: dimension %d of size %d does not split into %d equal parts",
                       *axis, dim, n);
    return kTfLiteError;
  }
  sizes->assign(n, dim / n);
  return kTfLiteOk;
}

TfLiteStatus SplitVResolve(TfLiteContext* context, TfLiteNode* node, int* axis,
                           std::vector<int64_t>* sizes) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  int64_t a;
  TF_LITE_ENSURE_OK(context,
                    ReadOneInt(context, "SPLIT_V", "axis", GetInput(context, node, 2), &a));
  if (!NormalizeAxis(a, NumDimensions(input), axis)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT_V: axis %lld is out of range for rank %d",
                       static_cast<long long>(a), NumDimensions(input));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context,
                    ReadInts(context, "SPLIT_V", "size_splits", GetInput(context, node, 1), sizes));
  if (static_cast<int>(sizes->size()) != NumOutputs(node)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT_V: %d size_splits for %d outputs",
                       static_cast<int>(sizes->size()), NumOutputs(node));
    return kTfLiteError;
  }
  const int64_t dim = input->dims->data[*axis];
  int64_t sum = 0;
  int inferred = -1;
  for (size_t i = 0; i < sizes->size(); ++i) {
    const int64_t v = (*sizes)[i];
    if (v == -1 && inferred == -1) {
      inferred = static_cast<int>(i);
    } else if (v < 0) {
      TF_LITE_KERNEL_LOG(context, "SPLIT_V: invalid size_splits entry %lld",
                         static_cast<long long>(v));
      return kTfLiteError;
    } else {
      sum += v;
    }
  }
  if (inferred != -1) {
    if (sum > dim) {
      TF_LITE_KERNEL_LOG(context, "SPLIT_V: size_splits add up to %lld, more than dimension %lld",
                         static_cast<long long>(sum), static_cast<long long>(dim));
      return kTfLiteError;
    }
    (*sizes)[inferred] = dim - sum;
  } else if (sum != dim) {
    TF_LITE_KERNEL_LOG(context, "SPLIT_V: size_splits add up to %lld, dimension %d has size %lld",
                       static_cast<long long>(sum), *axis, static_cast<long long>(dim));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

template <int kInput, SplitResolveFn kResolve>
TfLiteStatus SplitShapes(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  int axis;
  std::vector<int64_t> sizes;
  TF_LITE_ENSURE_OK(context, kResolve(context, node, &axis, &sizes));
  Shape shape = ShapeOf(GetInput(context, node, kInput));
  shapes->clear();
  for (int64_t size : sizes) {
    shape[axis] = static_cast<int>(size);
    shapes->push_back(shape);
  }
  return kTfLiteOk;
}

// Checks the outputs' types, then sizes them now or at Eval (when `known` is false).
template <int kInput, SplitResolveFn kResolve>
TfLiteStatus SplitPrepareCommon(TfLiteContext* context, TfLiteNode* node, const char* op,
                                bool known) {
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, kInput, &input));
  for (int i = 0; i < NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOut(context, node, i, &output));
    TF_LITE_ENSURE_OK(context, CheckSameType(context, op, output, input, "output", "input"));
  }
  return SizeOrDefer(context, node, known, SplitShapes<kInput, kResolve>);
}

// Copies consecutive blocks of the input along the axis into the outputs.
template <int kInput, SplitResolveFn kResolve>
TfLiteStatus SplitEvalCommon(TfLiteContext* context, TfLiteNode* node, const char* op) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, SplitShapes<kInput, kResolve>));
  int axis;
  std::vector<int64_t> sizes;
  TF_LITE_ENSURE_OK(context, kResolve(context, node, &axis, &sizes));
  const TfLiteTensor* input = GetInput(context, node, kInput);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, op, input, &elem));
  const Shape shape = ShapeOf(input);
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const int64_t inner_bytes =
      ProductOfDims(shape, axis + 1, static_cast<int>(shape.size())) * static_cast<int64_t>(elem);
  const char* in = input->data.raw_const;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      TfLiteTensor* output = GetOutput(context, node, static_cast<int>(i));
      const int64_t n = sizes[i] * inner_bytes;
      std::memcpy(output->data.raw + o * n, in, n);
      in += n;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus SplitPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "SPLIT", 2, 2, -1));
  const TfLiteSplitParams params = ParamsOrDefault<TfLiteSplitParams>(node);
  if (params.num_splits != 0 && params.num_splits != NumOutputs(node)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT: num_splits is %d but the op has %d outputs",
                       params.num_splits, NumOutputs(node));
    return kTfLiteError;
  }
  return SplitPrepareCommon<1, SplitResolve>(context, node, "SPLIT",
                                             ValuesKnown(GetInput(context, node, 0)));
}

TfLiteStatus SplitEval(TfLiteContext* context, TfLiteNode* node) {
  return SplitEvalCommon<1, SplitResolve>(context, node, "SPLIT");
}

TfLiteStatus SplitVPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "SPLIT_V", 3, 3, -1));
  const bool known =
      ValuesKnown(GetInput(context, node, 1)) && ValuesKnown(GetInput(context, node, 2));
  return SplitPrepareCommon<0, SplitVResolve>(context, node, "SPLIT_V", known);
}

TfLiteStatus SplitVEval(TfLiteContext* context, TfLiteNode* node) {
  return SplitEvalCommon<0, SplitVResolve>(context, node, "SPLIT_V");
}

// ---------------------------------------------------------------------------------------------
// PAD, PADV2, MIRROR_PAD. Paddings are an INT32/INT64 [rank, 2] tensor of (before, after).

TfLiteStatus ReadPaddings(TfLiteContext* context, TfLiteNode* node, const char* op,
                          std::vector<int64_t>* pads) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* paddings = GetInput(context, node, 1);
  const int rank = NumDimensions(input);
  if (NumDimensions(paddings) != 2 || paddings->dims->data[0] != rank ||
      paddings->dims->data[1] != 2) {
    TF_LITE_KERNEL_LOG(context, "%s: paddings must have shape [%d, 2]", op, rank);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, ReadInts(context, op, "paddings", paddings, pads));
  for (int64_t p : *pads) {
    if (p < 0) {
      TF_LITE_KERNEL_LOG(context, "%s: negative padding %lld", op, static_cast<long long>(p));
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus PaddedShape(TfLiteContext* context, TfLiteNode* node, const char* op,
                         std::vector<Shape>* shapes) {
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, op, &pads));
  const TfLiteTensor* input = GetInput(context, node, 0);
  Shape out(NumDimensions(input));
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t v = input->dims->data[d] + pads[2 * d] + pads[2 * d + 1];
    TF_LITE_ENSURE_OK(context, CheckDimValue(context, op, v));
    out[d] = static_cast<int>(v);
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus PadShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  return PaddedShape(context, node, "PAD", shapes);
}

TfLiteStatus PadPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "PAD", 2, 3, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "PAD", &input, &output));
  // TFLite's PAD and PADV2 kernels stop at rank 5 (PadKernelMaxDimensionCount) and refuse more.
  constexpr int kMaxPadRank = 5;
  if (NumDimensions(input) > kMaxPadRank) {
    TF_LITE_KERNEL_LOG(context, "PAD: rank %d is above %d, the most TFLite pads", NumDimensions(input), kMaxPadRank);
    return kTfLiteError;
  }
  const TfLiteTensor* value = NumInputs(node) == 3 ? GetInput(context, node, 2) : nullptr;
  if (value != nullptr) {
    TF_LITE_ENSURE_OK(context,
                      CheckSameType(context, "PAD", value, input, "constant_values", "input"));
    if (tflite::NumElements(value) != 1) {
      TF_LITE_KERNEL_LOG(context, "PAD: constant_values must hold one value");
      return kTfLiteError;
    }
  }
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 1)), PadShape);
}

TfLiteStatus PadEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, PadShape));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, "PAD", &pads));
  // The pad value: constant_values when given, else zero (the zero point for quantized types).
  char pad_value[16] = {0};
  const TfLiteTensor* value = NumInputs(node) == 3 ? GetInput(context, node, 2) : nullptr;
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "PAD", input, &elem));
  if (value != nullptr) {
    std::memcpy(pad_value, value->data.raw_const, elem);
  } else if (output->type == kTfLiteUInt8) {
    pad_value[0] = static_cast<char>(static_cast<uint8_t>(output->params.zero_point));
  } else if (output->type == kTfLiteInt8) {
    pad_value[0] = static_cast<char>(static_cast<int8_t>(output->params.zero_point));
  } else if (output->type == kTfLiteInt16) {
    const int16_t zp = static_cast<int16_t>(output->params.zero_point);
    std::memcpy(pad_value, &zp, sizeof(zp));
  }
  const Shape in_shape = ShapeOf(input);
  const Shape out_shape = ShapeOf(output);
  std::vector<std::vector<int64_t>> maps(out_shape.size());
  for (size_t d = 0; d < out_shape.size(); ++d) {
    maps[d].resize(out_shape[d]);
    for (int i = 0; i < out_shape[d]; ++i) {
      const int64_t j = i - pads[2 * d];
      maps[d][i] = (j >= 0 && j < in_shape[d]) ? j : -1;
    }
  }
  return GatherMapped(context, "PAD", input, maps, RowMajorStrides(in_shape), pad_value, output);
}

TfLiteStatus MirrorPadShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteMirrorPaddingParams params = ParamsOrDefault<TfLiteMirrorPaddingParams>(node);
  if (params.mode != kTfLiteMirrorPaddingReflect && params.mode != kTfLiteMirrorPaddingSymmetric) {
    TF_LITE_KERNEL_LOG(context, "MIRROR_PAD: mode must be REFLECT or SYMMETRIC (got %d)",
                       static_cast<int>(params.mode));
    return kTfLiteError;
  }
  const int offset = params.mode == kTfLiteMirrorPaddingReflect ? 1 : 0;
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, "MIRROR_PAD", &pads));
  const TfLiteTensor* input = GetInput(context, node, 0);
  for (int d = 0; d < NumDimensions(input); ++d) {
    const int64_t limit = input->dims->data[d] - offset;
    if (pads[2 * d] > limit || pads[2 * d + 1] > limit) {
      TF_LITE_KERNEL_LOG(
          context, "MIRROR_PAD: padding (%lld, %lld) of dimension %d exceeds %lld for %s mode",
          static_cast<long long>(pads[2 * d]), static_cast<long long>(pads[2 * d + 1]), d,
          static_cast<long long>(std::max<int64_t>(limit, 0)), offset ? "REFLECT" : "SYMMETRIC");
      return kTfLiteError;
    }
  }
  return PaddedShape(context, node, "MIRROR_PAD", shapes);
}

TfLiteStatus MirrorPadPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, "MIRROR_PAD", MirrorPadShape);
}

TfLiteStatus MirrorPadEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, MirrorPadShape));
  const TfLiteMirrorPaddingParams params = ParamsOrDefault<TfLiteMirrorPaddingParams>(node);
  const int offset = params.mode == kTfLiteMirrorPaddingReflect ? 1 : 0;
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, "MIRROR_PAD", &pads));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  const Shape in_shape = ShapeOf(input);
  const Shape out_shape = ShapeOf(output);
  std::vector<std::vector<int64_t>> maps(out_shape.size());
  for (size_t d = 0; d < out_shape.size(); ++d) {
    maps[d].resize(out_shape[d]);
    for (int i = 0; i < out_shape[d]; ++i) {
      maps[d][i] = shape_util::MirrorPadIndex(i, pads[2 * d], in_shape[d], offset);
    }
  }
  return GatherMapped(context, "MIRROR_PAD", input, maps, RowMajorStrides(in_shape), nullptr,
                      output);
}

// ---------------------------------------------------------------------------------------------
// Reductions: MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL (TFLite 2.14 reduce.cc).
// The input is visited in row-major order and each element is folded into its output position,
// as TFLite's reference Reduce does, so float sums are accumulated in the same order.

struct Reduction {
  Shape input_shape;
  std::vector<int> axes;            // resolved, unique, in the order given
  std::vector<int64_t> out_stride;  // per input dimension; 0 for reduced dimensions
  int64_t output_size = 1;
  int64_t reduced_count = 1;  // input elements folded into each output
  int raw_axis_count = 0;     // entries in the axis tensor (duplicates included)
  std::vector<int64_t> raw_axes;
};

TfLiteStatus ResolveReduction(TfLiteContext* context, TfLiteNode* node, const char* op,
                              Reduction* r, Shape* output_shape) {
  const TfLiteReducerParams params = ParamsOrDefault<TfLiteReducerParams>(node);
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* axis_t = GetInput(context, node, 1);
  TF_LITE_ENSURE_OK(context, ReadInts(context, op, "axis", axis_t, &r->raw_axes));
  r->raw_axis_count = static_cast<int>(r->raw_axes.size());
  r->input_shape = ShapeOf(input);
  const int rank = static_cast<int>(r->input_shape.size());
  std::vector<bool> reduced(rank, false);
  r->axes.clear();
  if (rank > 0) {
    for (int64_t a : r->raw_axes) {
      int axis;
      if (!NormalizeAxis(a, rank, &axis)) {
        TF_LITE_KERNEL_LOG(context, "%s: axis %lld is out of range for rank %d", op,
                           static_cast<long long>(a), rank);
        return kTfLiteError;
      }
      if (!reduced[axis]) r->axes.push_back(axis);
      reduced[axis] = true;
    }
  }
  output_shape->clear();
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      output_shape->push_back(r->input_shape[d]);
    } else if (params.keep_dims) {
      output_shape->push_back(1);
    }
  }
  r->out_stride.assign(rank, 0);
  r->output_size = 1;
  r->reduced_count = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (reduced[d]) {
      r->reduced_count *= r->input_shape[d];
    } else {
      r->out_stride[d] = r->output_size;
      r->output_size *= r->input_shape[d];
    }
  }
  return kTfLiteOk;
}

// acc[out(i)] = fold(acc[out(i)], in[i]) for every input element i in row-major order.
template <typename In, typename Acc, typename Fold>
void FoldInto(const Reduction& r, const In* in, Acc* acc, Fold fold) {
  const int rank = static_cast<int>(r.input_shape.size());
  const int64_t total = FlatSize(r.input_shape);
  if (total == 0) return;
  if (rank == 0) {
    acc[0] = fold(acc[0], in[0]);
    return;
  }
  std::vector<int> index(rank, 0);
  int64_t out = 0;
  const int inner = r.input_shape[rank - 1];
  const int64_t inner_stride = r.out_stride[rank - 1];
  for (int64_t i = 0; i < total;) {
    if (inner_stride == 1) {
      // A kept last axis: blocks of 16 fold through a local array, which the compiler can keep in
      // vector registers (8-bit inputs may alias the accumulators in memory, which stops it).
      Acc* a = acc + out;
      int k = 0;
      for (; k + 16 <= inner; k += 16) {
        Acc local[16];
        for (int j = 0; j < 16; ++j) local[j] = fold(a[k + j], in[i + k + j]);
        for (int j = 0; j < 16; ++j) a[k + j] = local[j];
      }
      for (; k < inner; ++k) a[k] = fold(a[k], in[i + k]);
      i += inner;
    } else {
      for (int k = 0; k < inner; ++k, ++i) {
        Acc& a = acc[out + k * inner_stride];
        a = fold(a, in[i]);
      }
    }
    int d = rank - 2;
    while (d >= 0) {
      out += r.out_stride[d];
      if (++index[d] < r.input_shape[d]) break;
      out -= r.out_stride[d] * index[d];
      index[d] = 0;
      --d;
    }
    if (d < 0) break;
  }
}

enum class ReduceKind { kMean, kSum, kProd, kMax, kMin, kAny, kAll };

constexpr bool IsLogical(ReduceKind kind) { return kind == ReduceKind::kAny || kind == ReduceKind::kAll; }

const char* ReduceName(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kMean: return "MEAN";
    case ReduceKind::kSum: return "SUM";
    case ReduceKind::kProd: return "REDUCE_PROD";
    case ReduceKind::kMax: return "REDUCE_MAX";
    case ReduceKind::kMin: return "REDUCE_MIN";
    case ReduceKind::kAny: return "REDUCE_ANY";
    case ReduceKind::kAll: return "REDUCE_ALL";
  }
  return "reduction";
}

template <ReduceKind kKind>
TfLiteStatus ReduceShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  Reduction r;
  Shape out;
  TF_LITE_ENSURE_OK(context, ResolveReduction(context, node, ReduceName(kKind), &r, &out));
  shapes->assign(1, out);
  return kTfLiteOk;
}

bool IsQuantized8or16(const TfLiteTensor* t) {
  return t->type == kTfLiteUInt8 || t->type == kTfLiteInt8 || t->type == kTfLiteInt16;
}

template <ReduceKind kKind>
TfLiteStatus ReducePrepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ReduceName(kKind);
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &axis));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckSameType(context, op, output, input, "output", "input"));
  if (axis->type != kTfLiteInt32) {  // TFLite 2.14 refuses INT64 axes here
    TF_LITE_KERNEL_LOG(context, "%s: axis must be INT32, got %s", op,
                       TfLiteTypeGetName(axis->type));
    return kTfLiteError;
  }
  bool type_ok = false;
  switch (input->type) {
    case kTfLiteFloat32:
    case kTfLiteInt32:
    case kTfLiteInt64: type_ok = !IsLogical(kKind); break;
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      type_ok = !IsLogical(kKind);
      if (kKind == ReduceKind::kProd && input->type == kTfLiteUInt8 &&
          input->quantization.type != kTfLiteNoQuantization) {
        type_ok = false;
      }
      break;
    case kTfLiteBool: type_ok = IsLogical(kKind); break;
    default: break;
  }
  if (!type_ok) {
    TF_LITE_KERNEL_LOG(context, "%s: input type %s is not supported", op,
                       TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  const bool same_scale = input->params.scale == output->params.scale &&
                          input->params.zero_point == output->params.zero_point;
  if ((kKind == ReduceKind::kMax || kKind == ReduceKind::kMin) && IsQuantized8or16(input) &&
      !same_scale) {
    TF_LITE_KERNEL_LOG(context, "%s: input and output quantization must be the same", op);
    return kTfLiteError;
  }
  if (kKind == ReduceKind::kSum && input->type == kTfLiteInt16 && !same_scale) {
    // TFLite's Eval refuses it, not its Prepare.
    return RefuseAtInvoke(context, node, "SUM: INT16 input and output quantization must be the same");
  }
  if ((kKind == ReduceKind::kMean || kKind == ReduceKind::kSum || kKind == ReduceKind::kProd) &&
      input->type == kTfLiteInt16 &&
      (input->params.zero_point != 0 || output->params.zero_point != 0)) {
    TF_LITE_KERNEL_LOG(context, "%s: INT16 zero points must be 0", op);
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, ValuesKnown(axis), ReduceShape<kKind>);
}

// MEAN of 8/16-bit quantized values, bit-exact with TFLite 2.14.1's x86 builtin kernels (checked
// against the op suite's TFLite outputs):
// - int8/uint8 NHWC mean over height and width with keep_dims (axes given as [1, 2] or [2, 1]):
//   integer sum, one fixed-point rescale by in_scale / (n * out_scale), plus the rounded
//   zero-point bias out_zp - round(in_zp * in_scale / out_scale), saturated;
// - every other case: (sum - n * in_zp) rescaled by in_scale / out_scale with 1/n folded into the
//   multiplier (reference QuantizedMeanOrSum), plus out_zp, saturated.
template <typename T>
void QuantizedMean(const Reduction& r, bool keep_dims, const TfLiteTensor* input,
                   TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
  const float in_scale = input->params.scale, out_scale = output->params.scale;
  const int32_t in_zp = input->params.zero_point, out_zp = output->params.zero_point;
  const int64_t n = r.reduced_count;
  if (n == 0) {
    // Empty input: TFLite's "NaN" initialisation, which is 0 for integer types.
    std::fill(out, out + r.output_size, T(0));
    return;
  }
  if (r.raw_axis_count == 0) {
    // No axes: TFLite copies the input unchanged (ReduceIsCopy), whatever the quantization.
    std::memcpy(out, in, r.output_size * sizeof(T));
    return;
  }
  std::vector<int32_t> sum(r.output_size, 0);
  FoldInto(r, in, sum.data(), [](int32_t a, T v) { return a + static_cast<int32_t>(v); });
  const bool spatial_4d =
      keep_dims && r.input_shape.size() == 4 && r.raw_axis_count == 2 &&
      ((r.raw_axes[0] == 1 && r.raw_axes[1] == 2) || (r.raw_axes[0] == 2 && r.raw_axes[1] == 1));
  if (spatial_4d && !std::is_same<T, int16_t>::value) {
    float bias_f = in_zp * in_scale / out_scale;
    bias_f = bias_f > 0 ? bias_f + 0.5f : bias_f - 0.5f;
    const int32_t bias = out_zp - static_cast<int32_t>(bias_f);
    const float real_scale = in_scale / (static_cast<float>(n) * out_scale);
    int32_t multiplier;
    int shift;
    QuantizeMultiplier(static_cast<double>(real_scale), &multiplier, &shift);
    for (int64_t i = 0; i < r.output_size; ++i) {
      out[i] = SaturateTo<T>(
          static_cast<int64_t>(MultiplyByQuantizedMultiplier(sum[i], multiplier, shift)) + bias);
    }
    return;
  }
  int32_t multiplier;
  int shift;
  QuantizeMultiplier(static_cast<double>(in_scale) / static_cast<double>(out_scale), &multiplier,
                     &shift);
  // Fold 1/n into the multiplier: shift left by floor(log2(n)) first to keep precision.
  int n_shift = 0;
  while ((int64_t{2} << n_shift) <= n) ++n_shift;
  n_shift = std::min(n_shift, 32);
  n_shift = std::min(n_shift, 31 + shift);
  multiplier = static_cast<int32_t>((static_cast<int64_t>(multiplier) << n_shift) / n);
  shift -= n_shift;
  for (int64_t i = 0; i < r.output_size; ++i) {
    const int32_t shifted = static_cast<int32_t>(sum[i] - static_cast<int64_t>(in_zp) * n);
    out[i] = SaturateTo<T>(
        static_cast<int64_t>(MultiplyByQuantizedMultiplier(shifted, multiplier, shift)) + out_zp);
  }
}

// SUM of 8-bit quantized values (TFLite's QuantizedMeanOrSum with compute_sum, used whatever the
// quantization): round(sum * in_scale / out_scale - in_zp * n * in_scale / out_scale) + out_zp in
// float, saturated to the type's range.
template <typename T>
void QuantizedSum(const Reduction& r, const TfLiteTensor* input, TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
  std::vector<int32_t> sum(r.output_size, 0);
  FoldInto(r, in, sum.data(), [](int32_t a, T v) { return a + static_cast<int32_t>(v); });
  if (r.reduced_count == 0) {
    std::fill(out, out + r.output_size, T(0));
    return;
  }
  const float scale = input->params.scale / output->params.scale;
  const float bias = -input->params.zero_point * scale * static_cast<float>(r.reduced_count);
  for (int64_t i = 0; i < r.output_size; ++i) {
    const int64_t value =
        static_cast<int64_t>(std::round(sum[i] * scale + bias)) + output->params.zero_point;
    out[i] = SaturateTo<T>(value);
  }
}

// Quantized REDUCE_PROD (TFLite's QuantizedReduceProd): each multiplication is rescaled by
// in_scale / out_scale^(1/n) to stay in range.
template <typename T>
void QuantizedProd(const Reduction& r, const TfLiteTensor* input, TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
  if (r.output_size == 0 || r.reduced_count == 0) return;
  const double scaling = static_cast<double>(input->params.scale) /
                         std::pow(static_cast<double>(output->params.scale),
                                  1.0 / static_cast<double>(r.reduced_count));
  int32_t multiplier;
  int shift;
  QuantizeMultiplier(scaling, &multiplier, &shift);
  const int32_t in_zp = input->params.zero_point;
  // The first element of each reduction is taken as is; later ones multiply and rescale.
  struct State {
    int32_t value;
    bool first;
  };
  std::vector<State> state(r.output_size, State{0, true});
  FoldInto(r, in, state.data(), [&](State s, T v) {
    const int32_t x = static_cast<int32_t>(v) - in_zp;
    if (s.first) return State{x, false};
    return State{
        MultiplyByQuantizedMultiplier(static_cast<int64_t>(s.value) * x, multiplier, shift), false};
  });
  for (int64_t i = 0; i < r.output_size; ++i) {
    const int32_t result =
        MultiplyByQuantizedMultiplier(static_cast<int64_t>(state[i].value), multiplier, shift) +
        output->params.zero_point;
    out[i] = SaturateTo<T>(result);
  }
}

template <typename T, ReduceKind kKind>
void ReduceGeneric(const Reduction& r, const TfLiteTensor* input, TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
  T init;
  switch (kKind) {
    case ReduceKind::kProd: init = T(1); break;
    case ReduceKind::kMax: init = std::numeric_limits<T>::lowest(); break;
    case ReduceKind::kMin: init = std::numeric_limits<T>::max(); break;
    default: init = T(0); break;
  }
  std::fill(out, out + r.output_size, init);
  FoldInto(r, in, out, [](T a, T v) -> T {
    switch (kKind) {
      case ReduceKind::kProd:
        if (std::is_integral<T>::value) {
          using U = typename std::make_unsigned<
              typename std::conditional<std::is_integral<T>::value, T, int>::type>::type;
          return static_cast<T>(static_cast<U>(a) * static_cast<U>(v));
        }
        return a * v;
      case ReduceKind::kMax: return v > a ? v : a;
      case ReduceKind::kMin: return v < a ? v : a;
      default:
        if (std::is_integral<T>::value) {
          using U = typename std::make_unsigned<
              typename std::conditional<std::is_integral<T>::value, T, int>::type>::type;
          return static_cast<T>(static_cast<U>(a) + static_cast<U>(v));
        }
        return a + v;
    }
  });
}

template <>
void ReduceGeneric<bool, ReduceKind::kAny>(const Reduction& r, const TfLiteTensor* input,
                                           TfLiteTensor* output) {
  std::fill(output->data.b, output->data.b + r.output_size, false);
  FoldInto(r, input->data.b, output->data.b, [](bool a, bool v) { return a || v; });
}

template <>
void ReduceGeneric<bool, ReduceKind::kAll>(const Reduction& r, const TfLiteTensor* input,
                                           TfLiteTensor* output) {
  std::fill(output->data.b, output->data.b + r.output_size, true);
  FoldInto(r, input->data.b, output->data.b, [](bool a, bool v) { return a && v; });
}

template <typename T, typename Acc>
void FloatOrIntMean(const Reduction& r, const TfLiteTensor* input, TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
  if (r.reduced_count == 0) {
    // TFLite fills the output with NaN (0 for integer types) when the input is empty.
    std::fill(out, out + r.output_size,
              std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0));
    return;
  }
  std::vector<Acc> sum(r.output_size, Acc(0));
  FoldInto(r, in, sum.data(), [](Acc a, T v) { return a + static_cast<Acc>(v); });
  for (int64_t i = 0; i < r.output_size; ++i) {
    out[i] = static_cast<T>(sum[i] / static_cast<Acc>(r.reduced_count));
  }
}

template <ReduceKind kKind>
TfLiteStatus ReduceEval(TfLiteContext* context, TfLiteNode* node) {
  const char* op = ReduceName(kKind);
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, ReduceShape<kKind>));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  Reduction r;
  Shape out_shape;
  TF_LITE_ENSURE_OK(context, ResolveReduction(context, node, op, &r, &out_shape));
  const bool keep_dims = ParamsOrDefault<TfLiteReducerParams>(node).keep_dims;
  const bool quantized = input->quantization.type != kTfLiteNoQuantization;
  switch (kKind) {
    case ReduceKind::kMean:
      switch (input->type) {
        case kTfLiteFloat32: FloatOrIntMean<float, float>(r, input, output); break;
        case kTfLiteInt32: FloatOrIntMean<int32_t, int64_t>(r, input, output); break;
        case kTfLiteInt64: FloatOrIntMean<int64_t, int64_t>(r, input, output); break;
        case kTfLiteUInt8: QuantizedMean<uint8_t>(r, keep_dims, input, output); break;
        case kTfLiteInt8: QuantizedMean<int8_t>(r, keep_dims, input, output); break;
        case kTfLiteInt16: QuantizedMean<int16_t>(r, keep_dims, input, output); break;
        default: break;
      }
      return kTfLiteOk;
    case ReduceKind::kSum:
      if (input->type == kTfLiteUInt8) {
        QuantizedSum<uint8_t>(r, input, output);
        return kTfLiteOk;
      }
      if (input->type == kTfLiteInt8) {
        QuantizedSum<int8_t>(r, input, output);
        return kTfLiteOk;
      }
      break;
    case ReduceKind::kProd:
      if (quantized && input->type == kTfLiteInt8) {
        QuantizedProd<int8_t>(r, input, output);
        return kTfLiteOk;
      }
      if (quantized && input->type == kTfLiteInt16) {
        QuantizedProd<int16_t>(r, input, output);
        return kTfLiteOk;
      }
      break;
    default: break;
  }
  switch (input->type) {
    case kTfLiteFloat32: ReduceGeneric<float, kKind>(r, input, output); break;
    case kTfLiteInt32: ReduceGeneric<int32_t, kKind>(r, input, output); break;
    case kTfLiteInt64: ReduceGeneric<int64_t, kKind>(r, input, output); break;
    case kTfLiteUInt8: ReduceGeneric<uint8_t, kKind>(r, input, output); break;
    case kTfLiteInt8: ReduceGeneric<int8_t, kKind>(r, input, output); break;
    case kTfLiteInt16: ReduceGeneric<int16_t, kKind>(r, input, output); break;
    case kTfLiteBool:
      if (kKind == ReduceKind::kAny) ReduceGeneric<bool, ReduceKind::kAny>(r, input, output);
      if (kKind == ReduceKind::kAll) ReduceGeneric<bool, ReduceKind::kAll>(r, input, output);
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "%s: input type %s is not supported", op,
                         TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// ARG_MAX / ARG_MIN: the first index of the extreme value along `axis`.

TfLiteStatus ArgAxis(TfLiteContext* context, TfLiteNode* node, const char* op, int* axis) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, op, "axis", GetInput(context, node, 1), &a));
  if (!NormalizeAxis(a, NumDimensions(input), axis)) {
    TF_LITE_KERNEL_LOG(context, "%s: axis %lld is out of range for rank %d", op,
                       static_cast<long long>(a), NumDimensions(input));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

template <bool kIsMax>
TfLiteStatus ArgShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  int axis;
  TF_LITE_ENSURE_OK(context, ArgAxis(context, node, kIsMax ? "ARG_MAX" : "ARG_MIN", &axis));
  Shape out = ShapeOf(GetInput(context, node, 0));
  out.erase(out.begin() + axis);
  shapes->assign(1, out);
  return kTfLiteOk;
}

// ARG_MAX's and ARG_MIN's input types, as TFLite 2.14's (no INT16).
using ArgTypes = TypeList<float, int32_t, int64_t, uint8_t, int8_t, bool>;

template <bool kIsMax>
TfLiteStatus ArgPrepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kIsMax ? "ARG_MAX" : "ARG_MIN";
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, op, 2, 2, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  const TfLiteType param_type = kIsMax ? ParamsOrDefault<TfLiteArgMaxParams>(node).output_type
                                       : ParamsOrDefault<TfLiteArgMinParams>(node).output_type;
  const TfLiteType want = param_type == kTfLiteNoType ? output->type : param_type;
  if ((want != kTfLiteInt32 && want != kTfLiteInt64) || output->type != want) {
    TF_LITE_KERNEL_LOG(context,
                       "%s: output type must be INT32 or INT64 (output_type %s, output %s)", op,
                       TfLiteTypeGetName(param_type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (!IsOneOf(ArgTypes(), input->type)) {
    TF_LITE_KERNEL_LOG(context, "%s: input type %s is not supported", op,
                       TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (NumDimensions(input) == 0) {
    TF_LITE_KERNEL_LOG(context, "%s: input must have at least one dimension", op);
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 1)), ArgShape<kIsMax>);
}

template <typename T, typename Out, bool kIsMax>
void ArgCompute(const Shape& shape, int axis, const T* in, Out* out) {
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const int64_t inner = ProductOfDims(shape, axis + 1, static_cast<int>(shape.size()));
  const int n = shape[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = in + o * n * inner + i;
      T best = n > 0 ? p[0] : T();
      int best_index = 0;
      // Selects rather than branches: a segmentation map's class scores make the branch unpredictable.
      for (int k = 1; k < n; ++k) {
        const T v = p[k * inner];
        const bool better = kIsMax ? (v > best) : (v < best);
        best = better ? v : best;
        best_index = better ? k : best_index;
      }
      out[o * inner + i] = static_cast<Out>(best_index);
    }
  }
}

template <typename T, bool kIsMax>
void ArgDispatchOut(const Shape& shape, int axis, const TfLiteTensor* input, TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  if (output->type == kTfLiteInt64) {
    ArgCompute<T, int64_t, kIsMax>(shape, axis, in, output->data.i64);
  } else {
    ArgCompute<T, int32_t, kIsMax>(shape, axis, in, output->data.i32);
  }
}

template <bool kIsMax>
TfLiteStatus ArgEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, ArgShape<kIsMax>));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  int axis;
  TF_LITE_ENSURE_OK(context, ArgAxis(context, node, kIsMax ? "ARG_MAX" : "ARG_MIN", &axis));
  const Shape shape = ShapeOf(input);
  return DispatchType(
      ArgTypes(), input->type,
      [&](auto t) {
        ArgDispatchOut<decltype(t), kIsMax>(shape, axis, input, output);
        return kTfLiteOk;
      },
      [] { return kTfLiteError; });
}

// ---------------------------------------------------------------------------------------------
// TOPK_V2: the k largest values of each last-dimension row, in descending order; equal values
// keep their original order (lower index first), as TFLite's TopContainer.

TfLiteStatus TopKShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  int64_t k;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, "TOPK_V2", "k", GetInput(context, node, 1), &k));
  const int rank = NumDimensions(input);
  const int64_t row = input->dims->data[rank - 1];
  if (k < 0 || k > row) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: k = %lld is out of range [0, %lld]",
                       static_cast<long long>(k), static_cast<long long>(row));
    return kTfLiteError;
  }
  Shape out = ShapeOf(input);
  out[rank - 1] = static_cast<int>(k);
  shapes->assign(2, out);
  return kTfLiteOk;
}

using TopKTypes = TypeList<float, int32_t, int64_t, uint8_t, int8_t, int16_t>;

TfLiteStatus TopKPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "TOPK_V2", 2, 2, 2));
  const TfLiteTensor* input;
  TfLiteTensor* values;
  TfLiteTensor* indices;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &values));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 1, &indices));
  TF_LITE_ENSURE_OK(context,
                    CheckSameType(context, "TOPK_V2", values, input, "values output", "input"));
  if (indices->type != kTfLiteInt32 && indices->type != kTfLiteInt16 &&
      indices->type != kTfLiteInt64) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: indices output must be INT32, got %s",
                       TfLiteTypeGetName(indices->type));
    return kTfLiteError;
  }
  if (!IsOneOf(TopKTypes(), input->type)) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: input type %s is not supported",
                       TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (NumDimensions(input) < 1) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: input must have at least one dimension");
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 1)), TopKShape);
}

template <typename T>
void TopKRows(const T* in, int64_t rows, int row_size, int k, T* values, TfLiteTensor* indices) {
  std::vector<int> order(row_size);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = in + r * row_size;
    std::iota(order.begin(), order.end(), 0);
    // Without NaNs, (value descending, index ascending) is a total order whose first k are the
    // stable sort's: a partial sort finds them without sorting the row.
    bool has_nan = false;
    if (std::is_floating_point<T>::value) {
      for (int i = 0; i < row_size; ++i) has_nan |= row[i] != row[i];
    }
    if (has_nan) {
      std::stable_sort(order.begin(), order.end(), [row](int a, int b) { return row[a] > row[b]; });
    } else {
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [row](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
    }
    for (int i = 0; i < k; ++i) {
      values[r * k + i] = row[order[i]];
      switch (indices->type) {
        case kTfLiteInt64: indices->data.i64[r * k + i] = order[i]; break;
        case kTfLiteInt16: indices->data.i16[r * k + i] = static_cast<int16_t>(order[i]); break;
        default: indices->data.i32[r * k + i] = order[i]; break;
      }
    }
  }
}

TfLiteStatus TopKEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, TopKShape));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* values = GetOutput(context, node, 0);
  TfLiteTensor* indices = GetOutput(context, node, 1);
  const int row_size = input->dims->data[input->dims->size - 1];
  const int k = values->dims->data[values->dims->size - 1];
  const int64_t rows = row_size == 0 ? 0 : tflite::NumElements(input) / row_size;
  return DispatchType(
      TopKTypes(), input->type,
      [&](auto t) {
        using T = decltype(t);
        TopKRows(tflite::GetTensorData<T>(input), rows, row_size, k,
                 tflite::GetTensorData<T>(values), indices);
        return kTfLiteOk;
      },
      [] { return kTfLiteError; });
}

// ---------------------------------------------------------------------------------------------
// FILL, ZEROS_LIKE, ONES_LIKE, RANGE, BROADCAST_TO.

TfLiteStatus ReadShapeTensor(TfLiteContext* context, const char* op, const TfLiteTensor* t,
                             Shape* shape) {
  if (NumDimensions(t) != 1) {
    TF_LITE_KERNEL_LOG(context, "%s: the shape input must be 1-D", op);
    return kTfLiteError;
  }
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, op, "shape", t, &values));
  shape->resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    TF_LITE_ENSURE_OK(context, CheckDimValue(context, op, values[i]));
    (*shape)[i] = static_cast<int>(values[i]);
  }
  return kTfLiteOk;
}

TfLiteStatus FillShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  Shape shape;
  TF_LITE_ENSURE_OK(context, ReadShapeTensor(context, "FILL", GetInput(context, node, 0), &shape));
  shapes->assign(1, shape);
  return kTfLiteOk;
}

TfLiteStatus FillPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "FILL", 2, 2, 1));
  const TfLiteTensor* value;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &value));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckSameType(context, "FILL", output, value, "output", "value"));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, "FILL", value, &elem));
  if (tflite::NumElements(value) != 1) {
    TF_LITE_KERNEL_LOG(context, "FILL: value must be a scalar");
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, ValuesKnown(GetInput(context, node, 0)), FillShape);
}

TfLiteStatus FillEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, FillShape));
  const TfLiteTensor* value = GetInput(context, node, 1);
  TfLiteTensor* output = GetOutput(context, node, 0);
  const size_t elem = tflite::TfLiteTypeGetSize(value->type);
  for (size_t off = 0; off + elem <= output->bytes; off += elem) {
    shape_util::CopyElement(value->data.raw_const, output->data.raw + off, elem);
  }
  return kTfLiteOk;
}

TfLiteStatus LikePrepare(TfLiteContext* context, TfLiteNode* node, const char* op) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, op, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckSameType(context, op, output, input, "output", "input"));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, op, input, &elem));
  return ResizeOutput(context, output, ShapeOf(input));
}

TfLiteStatus ZerosLikePrepare(TfLiteContext* context, TfLiteNode* node) {
  return LikePrepare(context, node, "ZEROS_LIKE");
}

TfLiteStatus ZerosLikeEval(TfLiteContext* context, TfLiteNode* node) {
  TfLiteTensor* output = GetOutput(context, node, 0);
  if (output->bytes > 0) std::memset(output->data.raw, 0, output->bytes);
  return kTfLiteOk;
}

TfLiteStatus OnesLikePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, LikePrepare(context, node, "ONES_LIKE"));
  const TfLiteTensor* input = GetInput(context, node, 0);
  switch (input->type) {
    case kTfLiteFloat32:
    case kTfLiteFloat64:
    case kTfLiteFloat16:
    case kTfLiteInt32:
    case kTfLiteInt64:
    case kTfLiteInt16:
    case kTfLiteInt8:
    case kTfLiteUInt8:
    case kTfLiteUInt16:
    case kTfLiteUInt32:
    case kTfLiteUInt64:
    case kTfLiteBool: return kTfLiteOk;
    default:
      TF_LITE_KERNEL_LOG(context, "ONES_LIKE: type %s is not supported",
                         TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
}

TfLiteStatus OnesLikeEval(TfLiteContext* context, TfLiteNode* node) {
  TfLiteTensor* output = GetOutput(context, node, 0);
  char one[8] = {0};
  size_t elem = tflite::TfLiteTypeGetSize(output->type);
  switch (output->type) {
    case kTfLiteFloat32: {
      const float v = 1.f;
      std::memcpy(one, &v, 4);
      break;
    }
    case kTfLiteFloat64: {
      const double v = 1.0;
      std::memcpy(one, &v, 8);
      break;
    }
    case kTfLiteFloat16: {
      const uint16_t v = 0x3C00;
      std::memcpy(one, &v, 2);
      break;
    }
    default: {  // Little-endian integers and bool: the low byte is 1.
      one[0] = 1;
      break;
    }
  }
  for (size_t off = 0; off + elem <= output->bytes; off += elem) {
    std::memcpy(output->data.raw + off, one, elem);
  }
  return kTfLiteOk;
}

using RangeTypes = TypeList<int32_t, int64_t, float>;

template <typename T>
TfLiteStatus RangeCount(TfLiteContext* context, T start, T limit, T delta, int64_t* count) {
  if (delta == T(0)) {
    TF_LITE_KERNEL_LOG(context, "RANGE: delta must not be zero");
    return kTfLiteError;
  }
  if (!((start >= limit && delta < T(0)) || (start <= limit && delta > T(0)))) {
    TF_LITE_KERNEL_LOG(context, "RANGE: delta has the wrong sign to go from start to limit");
    return kTfLiteError;
  }
  double n;
  if (std::is_integral<T>::value) {
    const double span = std::fabs(static_cast<double>(limit) - static_cast<double>(start));
    const double step = std::fabs(static_cast<double>(delta));
    n = std::ceil(span / step);
  } else {
    n = std::ceil(std::fabs(static_cast<double>((limit - start) / delta)));
  }
  if (!(n >= 0) || n > std::numeric_limits<int>::max()) {
    TF_LITE_KERNEL_LOG(context, "RANGE: %g elements are too many", n);
    return kTfLiteError;
  }
  *count = static_cast<int64_t>(n);
  return kTfLiteOk;
}

TfLiteStatus RangeShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* start = GetInput(context, node, 0);
  const TfLiteTensor* limit = GetInput(context, node, 1);
  const TfLiteTensor* delta = GetInput(context, node, 2);
  for (const TfLiteTensor* t : {start, limit, delta}) {
    if (tflite::NumElements(t) != 1 || t->data.raw == nullptr) {
      TF_LITE_KERNEL_LOG(context, "RANGE: start, limit and delta must be scalars with data");
      return kTfLiteError;
    }
  }
  int64_t n = 0;
  const auto count = [&](auto t) {
    using T = decltype(t);
    return RangeCount(context, *tflite::GetTensorData<T>(start), *tflite::GetTensorData<T>(limit),
                      *tflite::GetTensorData<T>(delta), &n);
  };
  TF_LITE_ENSURE_OK(context,
                    DispatchType(RangeTypes(), start->type, count, [] { return kTfLiteError; }));
  shapes->assign(1, Shape{static_cast<int>(n)});
  return kTfLiteOk;
}

TfLiteStatus RangePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "RANGE", 3, 3, 1));
  const TfLiteTensor* start;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &start));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  if (!IsOneOf(RangeTypes(), start->type)) {
    TF_LITE_KERNEL_LOG(context, "RANGE: type %s is not supported (INT32, INT64, FLOAT32)",
                       TfLiteTypeGetName(start->type));
    return kTfLiteError;
  }
  for (int i = 1; i < 3; ++i) {
    const TfLiteTensor* t;
    TF_LITE_ENSURE_OK(context, GetIn(context, node, i, &t));
    TF_LITE_ENSURE_OK(
        context, CheckSameType(context, "RANGE", t, start, i == 1 ? "limit" : "delta", "start"));
  }
  TF_LITE_ENSURE_OK(context, CheckSameType(context, "RANGE", output, start, "output", "start"));
  const bool known = ValuesKnown(start) && ValuesKnown(GetInput(context, node, 1)) &&
                     ValuesKnown(GetInput(context, node, 2));
  return SizeOrDefer(context, node, known, RangeShape);
}

template <typename T>
void RangeFill(const TfLiteTensor* start, const TfLiteTensor* delta, TfLiteTensor* output) {
  T value = *reinterpret_cast<const T*>(start->data.raw_const);
  const T step = *reinterpret_cast<const T*>(delta->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
  for (int64_t i = 0, n = tflite::NumElements(output); i < n; ++i) {
    out[i] = value;
    value += step;
  }
}

TfLiteStatus RangeEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, RangeShape));
  const TfLiteTensor* start = GetInput(context, node, 0);
  const TfLiteTensor* delta = GetInput(context, node, 2);
  TfLiteTensor* output = GetOutput(context, node, 0);
  return DispatchType(
      RangeTypes(), start->type,
      [&](auto t) {
        RangeFill<decltype(t)>(start, delta, output);
        return kTfLiteOk;
      },
      [] { return kTfLiteError; });
}

// BROADCAST_ARGS: the broadcast of two shape vectors (int32 or int64), of the longer one's length.
TfLiteStatus BroadcastArgsPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "BROADCAST_ARGS", 2, 2, 1));
  const TfLiteTensor* a;
  const TfLiteTensor* b;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &a));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &b));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  if (NumDimensions(a) != 1 || NumDimensions(b) != 1) {
    TF_LITE_KERNEL_LOG(context, "BROADCAST_ARGS: the shapes must be vectors (ranks %d and %d)", NumDimensions(a),
                       NumDimensions(b));
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {std::max(a->dims->data[0], b->dims->data[0])});
}

template <typename T>
TfLiteStatus BroadcastArgsFill(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                               TfLiteTensor* output) {
  const int na = a->dims->data[0], nb = b->dims->data[0], n = output->dims->data[0];
  const T* da = reinterpret_cast<const T*>(a->data.raw);
  const T* db = reinterpret_cast<const T*>(b->data.raw);
  T* out = reinterpret_cast<T*>(output->data.raw);
  // Aligned on the last dimension; a missing leading one counts as 1.
  for (int back = 0; back < n; ++back) {
    const T x = back < na ? da[na - 1 - back] : T(1);
    const T y = back < nb ? db[nb - 1 - back] : T(1);
    if (x != 1 && y != 1 && x != y) {
      // TFLite aborts here (a failed CHECK); refused instead.
      TF_LITE_KERNEL_LOG(context, "BROADCAST_ARGS: dimensions %lld and %lld do not broadcast",
                         static_cast<long long>(x), static_cast<long long>(y));
      return kTfLiteError;
    }
    out[n - 1 - back] = x == 1 ? y : x;
  }
  return kTfLiteOk;
}

TfLiteStatus BroadcastArgsEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* a = GetInput(context, node, 0);
  const TfLiteTensor* b = GetInput(context, node, 1);
  TfLiteTensor* output = GetOutput(context, node, 0);
  return output->type == kTfLiteInt64 ? BroadcastArgsFill<int64_t>(context, a, b, output)
                                      : BroadcastArgsFill<int32_t>(context, a, b, output);
}

TfLiteStatus BroadcastToShape(TfLiteContext* context, TfLiteNode* node,
                              std::vector<Shape>* shapes) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  Shape out;
  TF_LITE_ENSURE_OK(context,
                    ReadShapeTensor(context, "BROADCAST_TO", GetInput(context, node, 1), &out));
  const int in_rank = NumDimensions(input);
  const int out_rank = static_cast<int>(out.size());
  if (in_rank > out_rank) {
    TF_LITE_KERNEL_LOG(context, "BROADCAST_TO: input rank %d exceeds the target rank %d", in_rank,
                       out_rank);
    return kTfLiteError;
  }
  for (int i = 0; i < in_rank; ++i) {
    const int in_dim = input->dims->data[i];
    const int out_dim = out[out_rank - in_rank + i];
    if (in_dim != 1 && in_dim != out_dim) {
      TF_LITE_KERNEL_LOG(context,
                         "BROADCAST_TO: input dimension %d (size %d) does not broadcast to %d", i,
                         in_dim, out_dim);
      return kTfLiteError;
    }
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus BroadcastToPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, "BROADCAST_TO", BroadcastToShape);
}

TfLiteStatus BroadcastToEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, BroadcastToShape));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  const Shape in_shape = ShapeOf(input);
  const Shape out_shape = ShapeOf(output);
  const std::vector<int64_t> in_strides = RowMajorStrides(in_shape);
  const int lead = static_cast<int>(out_shape.size() - in_shape.size());
  std::vector<std::vector<int64_t>> maps(out_shape.size());
  std::vector<int64_t> strides(out_shape.size(), 0);
  for (size_t d = 0; d < out_shape.size(); ++d) {
    const int in_d = static_cast<int>(d) - lead;
    const bool broadcast = in_d < 0 || in_shape[in_d] == 1;
    if (in_d >= 0) strides[d] = in_strides[in_d];
    maps[d].resize(out_shape[d]);
    for (int i = 0; i < out_shape[d]; ++i) maps[d][i] = broadcast ? 0 : i;
  }
  return GatherMapped(context, "BROADCAST_TO", input, maps, strides, nullptr, output);
}

// ---------------------------------------------------------------------------------------------
// DEPTH_TO_SPACE and SPACE_TO_DEPTH on NHWC tensors.

template <bool kDepthToSpace>
TfLiteStatus BlockPrepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kDepthToSpace ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH";
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, op, 1, 1, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOut(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckSameType(context, op, output, input, "output", "input"));
  const int bs = kDepthToSpace ? ParamsOrDefault<TfLiteDepthToSpaceParams>(node).block_size
                               : ParamsOrDefault<TfLiteSpaceToDepthParams>(node).block_size;
  switch (input->type) {  // as TFLite 2.14
    case kTfLiteFloat32:
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt32:
    case kTfLiteInt64: break;
    default:
      TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", op,
                         TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  if (NumDimensions(input) != 4) {
    TF_LITE_KERNEL_LOG(context, "%s: input must be 4-D (NHWC), has rank %d", op,
                       NumDimensions(input));
    return kTfLiteError;
  }
  if (bs < 1) {
    TF_LITE_KERNEL_LOG(context, "%s: block_size must be at least 1, got %d", op, bs);
    return kTfLiteError;
  }
  const int* d = input->dims->data;
  if (kDepthToSpace) {
    if (d[3] % (bs * bs) != 0) {
      TF_LITE_KERNEL_LOG(context, "%s: depth %d is not a multiple of block_size^2 = %d", op, d[3],
                         bs * bs);
      return kTfLiteError;
    }
    return ResizeOutput(context, output, {d[0], d[1] * bs, d[2] * bs, d[3] / (bs * bs)});
  }
  if (d[1] % bs != 0 || d[2] % bs != 0) {
    TF_LITE_KERNEL_LOG(context, "%s: height %d and width %d must be multiples of block_size %d", op,
                       d[1], d[2], bs);
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {d[0], d[1] / bs, d[2] / bs, d[3] * bs * bs});
}

template <bool kDepthToSpace>
TfLiteStatus BlockEval(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kDepthToSpace ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH";
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, op, input, &elem));
  const int bs = kDepthToSpace ? ParamsOrDefault<TfLiteDepthToSpaceParams>(node).block_size
                               : ParamsOrDefault<TfLiteSpaceToDepthParams>(node).block_size;
  // Walk the larger-depth tensor (input for DEPTH_TO_SPACE, output for SPACE_TO_DEPTH) as
  // (b, h, w, [block row, block column, depth]) and move each depth run to its spatial position.
  const TfLiteTensor* deep = kDepthToSpace ? input : output;
  const TfLiteTensor* wide = kDepthToSpace ? output : input;
  const int batch = deep->dims->data[0], h = deep->dims->data[1], w = deep->dims->data[2];
  const int depth = wide->dims->data[3];
  const int wide_h = wide->dims->data[1], wide_w = wide->dims->data[2];
  const size_t run = depth * elem;
  for (int b = 0; b < batch; ++b) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        for (int by = 0; by < bs; ++by) {
          for (int bx = 0; bx < bs; ++bx) {
            const int64_t deep_off =
                (((int64_t{b} * h + y) * w + x) * bs * bs + (by * bs + bx)) * depth;
            const int64_t wide_off =
                ((int64_t{b} * wide_h + (y * bs + by)) * wide_w + (x * bs + bx)) * depth;
            if (kDepthToSpace) {
              std::memcpy(output->data.raw + wide_off * elem,
                          input->data.raw_const + deep_off * elem, run);
            } else {
              std::memcpy(output->data.raw + deep_off * elem,
                          input->data.raw_const + wide_off * elem, run);
            }
          }
        }
      }
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// REVERSE_V2 and CUMSUM.

TfLiteStatus ReversePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "REVERSE_V2", 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "REVERSE_V2", &input, &output));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &axis));
  if (NumDimensions(axis) > 1) {
    TF_LITE_KERNEL_LOG(context, "REVERSE_V2: axis must be a vector");
    return kTfLiteError;
  }
  if (tflite::NumElements(axis) > 1) {
    WarnTfliteDifference(context,
                         "REVERSE_V2 over %lld axes: TFLite 2.14.1 does not support more than one and "
                         "reverses along the first listed axis only; so does Touchstone",
                         static_cast<long long>(tflite::NumElements(axis)));
  }
  return ResizeOutput(context, output, ShapeOf(input));
}

TfLiteStatus ReverseEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  std::vector<int64_t> axes;
  TF_LITE_ENSURE_OK(context,
                    ReadInts(context, "REVERSE_V2", "axis", GetInput(context, node, 1), &axes));
  const Shape shape = ShapeOf(input);
  const int rank = static_cast<int>(shape.size());
  std::vector<bool> reversed(rank, false);
  // TFLite 2.14.1 reverses along the first listed axis only (ReversePrepare warned).
  if (axes.size() > 1) axes.resize(1);
  for (int64_t a : axes) {
    int axis;
    if (!NormalizeAxis(a, rank, &axis) || reversed[axis]) {
      TF_LITE_KERNEL_LOG(context, "REVERSE_V2: axis %lld is out of range or repeated for rank %d",
                         static_cast<long long>(a), rank);
      return kTfLiteError;
    }
    reversed[axis] = true;
  }
  std::vector<std::vector<int64_t>> maps(rank);
  for (int d = 0; d < rank; ++d) {
    maps[d].resize(shape[d]);
    for (int i = 0; i < shape[d]; ++i) maps[d][i] = reversed[d] ? shape[d] - 1 - i : i;
  }
  return GatherMapped(context, "REVERSE_V2", input, maps, RowMajorStrides(shape), nullptr, output);
}

TfLiteStatus CumsumPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckIo(context, node, "CUMSUM", 2, 2, 1));
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, "CUMSUM", &input, &output));
  TF_LITE_ENSURE_OK(context, GetIn(context, node, 1, &axis));
  if (input->type != kTfLiteFloat32 && input->type != kTfLiteInt32 && input->type != kTfLiteInt64) {
    TF_LITE_KERNEL_LOG(context, "CUMSUM: type %s is not supported (FLOAT32, INT32, INT64)",
                       TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (NumDimensions(axis) != 0 && tflite::NumElements(axis) != 1) {
    TF_LITE_KERNEL_LOG(context, "CUMSUM: axis must be a scalar");
    return kTfLiteError;
  }
  return ResizeOutput(context, output, ShapeOf(input));
}

template <typename T>
void CumsumCompute(const Shape& shape, int axis, bool exclusive, bool reverse, const T* in,
                   T* out) {
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const int64_t inner = ProductOfDims(shape, axis + 1, static_cast<int>(shape.size()));
  const int n = shape[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      T acc = T(0);
      for (int k = 0; k < n; ++k) {
        const int64_t off = (o * n + (reverse ? n - 1 - k : k)) * inner + i;
        if (exclusive) {
          out[off] = acc;
          acc += in[off];
        } else {
          acc += in[off];
          out[off] = acc;
        }
      }
    }
  }
}

TfLiteStatus CumsumEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  const TfLiteCumsumParams params = ParamsOrDefault<TfLiteCumsumParams>(node);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, "CUMSUM", "axis", GetInput(context, node, 1), &a));
  const Shape shape = ShapeOf(input);
  int axis;
  if (!NormalizeAxis(a, static_cast<int>(shape.size()), &axis)) {
    TF_LITE_KERNEL_LOG(context, "CUMSUM: axis %lld is out of range for rank %d",
                       static_cast<long long>(a), static_cast<int>(shape.size()));
    return kTfLiteError;
  }
  switch (input->type) {
    case kTfLiteFloat32:
      CumsumCompute(shape, axis, params.exclusive, params.reverse, input->data.f, output->data.f);
      break;
    case kTfLiteInt32:
      CumsumCompute(shape, axis, params.exclusive, params.reverse, input->data.i32,
                    output->data.i32);
      break;
    case kTfLiteInt64:
      CumsumCompute(shape, axis, params.exclusive, params.reverse, input->data.i64,
                    output->data.i64);
      break;
    default: return kTfLiteError;
  }
  return kTfLiteOk;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registrations.

namespace {

}  // namespace

TS_REGISTER(RESHAPE, ReshapePrepare, ReshapeEval)
TS_REGISTER(SQUEEZE, SqueezePrepare, SqueezeEval)
TS_REGISTER(EXPAND_DIMS, ExpandDimsPrepare, ExpandDimsEval)
TS_REGISTER(SHAPE, ShapePrepare, ShapeEval)
TS_REGISTER(RANK, RankPrepare, RankEval)
TS_REGISTER(TILE, TilePrepare, TileEval)
TS_REGISTER(TRANSPOSE, TransposePrepare, TransposeEval)
TS_REGISTER(PACK, PackPrepare, PackEval)
TS_REGISTER(UNPACK, UnpackPrepare, UnpackEval)
TS_REGISTER(GATHER, GatherPrepare, GatherEval)
TS_REGISTER(GATHER_ND, GatherNdPrepare, GatherNdEval)
TS_REGISTER(SLICE, SlicePrepare, SliceEval)
TS_REGISTER(STRIDED_SLICE, StridedSlicePrepare, StridedSliceEval)
TS_REGISTER(CONCATENATION, ConcatPrepare, ConcatEval)
TS_REGISTER(SPLIT, SplitPrepare, SplitEval)
TS_REGISTER(SPLIT_V, SplitVPrepare, SplitVEval)
TS_REGISTER(PAD, PadPrepare, PadEval)
TS_REGISTER(PADV2, PadPrepare, PadEval)
TS_REGISTER(MIRROR_PAD, MirrorPadPrepare, MirrorPadEval)
TS_REGISTER(MEAN, ReducePrepare<ReduceKind::kMean>, ReduceEval<ReduceKind::kMean>)
TS_REGISTER(SUM, ReducePrepare<ReduceKind::kSum>, ReduceEval<ReduceKind::kSum>)
TS_REGISTER(REDUCE_PROD, ReducePrepare<ReduceKind::kProd>, ReduceEval<ReduceKind::kProd>)
TS_REGISTER(REDUCE_MAX, ReducePrepare<ReduceKind::kMax>, ReduceEval<ReduceKind::kMax>)
TS_REGISTER(REDUCE_MIN, ReducePrepare<ReduceKind::kMin>, ReduceEval<ReduceKind::kMin>)
TS_REGISTER(REDUCE_ANY, ReducePrepare<ReduceKind::kAny>, ReduceEval<ReduceKind::kAny>)
TS_REGISTER(REDUCE_ALL, ReducePrepare<ReduceKind::kAll>, ReduceEval<ReduceKind::kAll>)
TS_REGISTER(ARG_MAX, ArgPrepare<true>, ArgEval<true>)
TS_REGISTER(ARG_MIN, ArgPrepare<false>, ArgEval<false>)
TS_REGISTER(TOPK_V2, TopKPrepare, TopKEval)
TS_REGISTER(FILL, FillPrepare, FillEval)
TS_REGISTER(ZEROS_LIKE, ZerosLikePrepare, ZerosLikeEval)
TS_REGISTER(ONES_LIKE, OnesLikePrepare, OnesLikeEval)
TS_REGISTER(RANGE, RangePrepare, RangeEval)
TS_REGISTER(BROADCAST_TO, BroadcastToPrepare, BroadcastToEval)
TS_REGISTER(BROADCAST_ARGS, BroadcastArgsPrepare, BroadcastArgsEval)
TS_REGISTER(DEPTH_TO_SPACE, BlockPrepare<true>, BlockEval<true>)
TS_REGISTER(SPACE_TO_DEPTH, BlockPrepare<false>, BlockEval<false>)
TS_REGISTER(REVERSE_V2, ReversePrepare, ReverseEval)
TS_REGISTER(CUMSUM, CumsumPrepare, CumsumEval)

}  // namespace reference
}  // namespace touchstone
