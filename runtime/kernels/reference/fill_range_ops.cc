// Reference FILL, ZEROS_LIKE, ONES_LIKE, RANGE, BROADCAST_TO and BROADCAST_ARGS kernels (TFLite
// 2.14 semantics; helpers in kernel_helpers.h).
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
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

// ---------------------------------------------------------------------------------------------
// FILL, ZEROS_LIKE, ONES_LIKE, RANGE, BROADCAST_TO.

TfLiteStatus ReadShapeTensor(TfLiteContext* context, const char* op, const TfLiteTensor* t, Shape* shape) {
  if (NumDimensions(t) != 1) {
    TF_LITE_KERNEL_LOG(context, "%s: the shape input must be 1-D", op);
    return kTfLiteError;
  }
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, t, "shape", &values));
  shape->resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    TF_LITE_ENSURE_OK(context, CheckDimValue(context, values[i]));
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
  TF_LITE_ENSURE_OK(context, CheckArity(context, node, 2, 1));
  const TfLiteTensor* value;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &value));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", value->type));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, value, "input 1 (value)", &elem));
  if (tflite::NumElements(value) != 1) {
    TF_LITE_KERNEL_LOG(context, "FILL: value must be a scalar");
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, InputValuesKnown(context, node, 0), FillShape);
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

TfLiteStatus LikePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  return ResizeOutput(context, output, ShapeOf(input));
}

TfLiteStatus ZerosLikePrepare(TfLiteContext* context, TfLiteNode* node) { return LikePrepare(context, node); }

TfLiteStatus ZerosLikeEval(TfLiteContext* context, TfLiteNode* node) {
  TfLiteTensor* output = GetOutput(context, node, 0);
  if (output->bytes > 0) std::memset(output->data.raw, 0, output->bytes);
  return kTfLiteOk;
}

TfLiteStatus OnesLikePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, LikePrepare(context, node));
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
    case kTfLiteBool:
      return kTfLiteOk;
    default:
      TF_LITE_KERNEL_LOG(context, "ONES_LIKE: type %s is not supported", TfLiteTypeGetName(input->type));
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
  TF_LITE_ENSURE_OK(context, DispatchType(RangeTypes(), start->type, count, [] { return kTfLiteError; }));
  shapes->assign(1, Shape{static_cast<int>(n)});
  return kTfLiteOk;
}

TfLiteStatus RangePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* start;
  const TfLiteTensor* limit;
  const TfLiteTensor* delta;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&start, &limit, &delta}, {&output}));
  if (!IsOneOf(RangeTypes(), start->type)) {
    TF_LITE_KERNEL_LOG(context, "RANGE: type %s is not supported (INT32, INT64, FLOAT32)",
                       TfLiteTypeGetName(start->type));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckType(context, limit, "limit", start->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, delta, "delta", start->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", start->type));
  const bool known = ValuesKnown(start) && ValuesKnown(limit) && ValuesKnown(delta);
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
  return EvalForType(RangeTypes(), start->type, [&](auto t) { RangeFill<decltype(t)>(start, delta, output); });
}

// BROADCAST_ARGS: the broadcast of two shape vectors (int32 or int64), of the longer one's length.
TfLiteStatus BroadcastArgsPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* a;
  const TfLiteTensor* b;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&a, &b}, {&output}));
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

TfLiteStatus BroadcastToShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  Shape out;
  TF_LITE_ENSURE_OK(context, ReadShapeTensor(context, "BROADCAST_TO", GetInput(context, node, 1), &out));
  const int in_rank = NumDimensions(input);
  const int out_rank = static_cast<int>(out.size());
  if (in_rank > out_rank) {
    TF_LITE_KERNEL_LOG(context, "BROADCAST_TO: input rank %d exceeds the target rank %d", in_rank, out_rank);
    return kTfLiteError;
  }
  for (int i = 0; i < in_rank; ++i) {
    const int in_dim = input->dims->data[i];
    const int out_dim = out[out_rank - in_rank + i];
    if (in_dim != 1 && in_dim != out_dim) {
      TF_LITE_KERNEL_LOG(context, "BROADCAST_TO: input dimension %d (size %d) does not broadcast to %d", i, in_dim,
                         out_dim);
      return kTfLiteError;
    }
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus BroadcastToPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, BroadcastToShape);
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
  return GatherMapped(context, input, maps, strides, nullptr, output);
}

}  // namespace

TS_REGISTER(FILL, FillPrepare, FillEval)
TS_REGISTER(ZEROS_LIKE, ZerosLikePrepare, ZerosLikeEval)
TS_REGISTER(ONES_LIKE, OnesLikePrepare, OnesLikeEval)
TS_REGISTER(RANGE, RangePrepare, RangeEval)
TS_REGISTER(BROADCAST_TO, BroadcastToPrepare, BroadcastToEval)
TS_REGISTER(BROADCAST_ARGS, BroadcastArgsPrepare, BroadcastArgsEval)

}  // namespace reference
}  // namespace touchstone
