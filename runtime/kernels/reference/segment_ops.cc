// Reference SEGMENT_SUM, UNSORTED_SEGMENT_{SUM,MAX,MIN,PROD} and SCATTER_ND with TensorFlow Lite
// 2.14.1's semantics (tensorflow/lite/kernels/segment_sum.cc, unsorted_segment.cc,
// scatter_nd.cc and their internal/reference helpers). Every id and index is validated before
// any write: a bad one is a one-line error, never an access outside a tensor.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h
using tflite::IsDynamicTensor;
using tflite::NumElements;

// ---------------------------------------------------------------------------------------------
// SEGMENT_SUM(data, segment_ids): output[s] = sum of the data rows whose id is s. The ids must
// be sorted: they start at 0 and grow by 0 or 1. The output has max_id + 1 rows; it is sized in
// Prepare when the ids are constant and at run time otherwise.

TfLiteStatus SegmentSumResize(TfLiteContext* context, const TfLiteTensor* data, const TfLiteTensor* ids,
                              TfLiteTensor* output) {
  const int n = ids->dims->data[0];
  if (n != data->dims->data[0]) {
    TF_LITE_KERNEL_LOG(context, "input 1 (segment_ids) has %d ids but input 0 has %d rows", n, data->dims->data[0]);
    return kTfLiteError;
  }
  int previous = -1;
  for (int i = 0; i < n; ++i) {
    const int id = ids->data.i32[i];
    const bool sorted = i == 0 ? id == 0 : (id == previous || id == previous + 1);
    if (!sorted) {
      TF_LITE_KERNEL_LOG(context,
                         "segment id %d at position %d does not continue the sorted run 0, 1, 2, "
                         "... (previous id %d)",
                         id, i, previous);
      return kTfLiteError;
    }
    previous = id;
  }
  Shape shape = ShapeOf(data);
  shape[0] = previous + 1;
  return ResizeOutput(context, output, shape);
}

TfLiteStatus SegmentSumPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* data;
  const TfLiteTensor* ids;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&data, &ids}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, data, "input 0", {kTfLiteFloat32, kTfLiteInt32}));
  TF_LITE_ENSURE_OK(context, CheckType(context, ids, "input 1 (segment_ids)", kTfLiteInt32));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", data->type));
  TF_LITE_ENSURE_OK(context, CheckRank(context, ids, "input 1 (segment_ids)", 1));
  if (data->dims->size < 1) {
    TF_LITE_KERNEL_LOG(context, "input 0 is a scalar; expected rank 1 or more");
    return kTfLiteError;
  }
  if (!ValuesKnown(ids)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return SegmentSumResize(context, data, ids, output);
}

template <typename T>
void SegmentSumCompute(const TfLiteTensor* data, const int32_t* ids, TfLiteTensor* output) {
  const int rows = data->dims->data[0];
  const int64_t row_size = rows == 0 ? 0 : NumElements(data) / rows;
  T* out = tflite::GetTensorData<T>(output);
  const T* in = tflite::GetTensorData<T>(data);
  std::fill(out, out + NumElements(output), T(0));
  for (int i = 0; i < rows; ++i) {
    T* dst = out + ids[i] * row_size;
    const T* src = in + i * row_size;
    for (int64_t j = 0; j < row_size; ++j) dst[j] = quantization_util::WrappingAdd(dst[j], src[j]);
  }
}

TfLiteStatus SegmentSumEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* data = tflite::GetInput(context, node, 0);
  const TfLiteTensor* ids = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, SegmentSumResize(context, data, ids, output));
  if (data->type == kTfLiteFloat32) {
    SegmentSumCompute<float>(data, ids->data.i32, output);
  } else {
    SegmentSumCompute<int32_t>(data, ids->data.i32, output);
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// UNSORTED_SEGMENT_*(data, segment_ids, num_segments): output[s] = reduction of the data slices
// whose id is s; negative ids are skipped and empty segments hold the reduction's identity (for
// MAX the lowest finite value, for MIN the largest). segment_ids' shape is a prefix of data's;
// the output is [num_segments] + the rest of data's shape.

enum class SegmentReduction { kSum, kMax, kMin, kProd };

TfLiteStatus UnsortedSegmentResize(TfLiteContext* context, const TfLiteTensor* data, const TfLiteTensor* ids,
                                   const TfLiteTensor* num_segments, TfLiteTensor* output) {
  const int ids_rank = ids->dims->size;
  bool prefix = ids_rank <= data->dims->size;
  for (int i = 0; prefix && i < ids_rank; ++i) prefix = ids->dims->data[i] == data->dims->data[i];
  if (!prefix) {
    TF_LITE_KERNEL_LOG(context, "input 1 (segment_ids) has shape %s, which is not a prefix of input 0's %s",
                       ShapeString(ids).c_str(), ShapeString(data).c_str());
    return kTfLiteError;
  }
  const int segments = num_segments->data.i32[0];
  if (segments < 0) {
    TF_LITE_KERNEL_LOG(context, "input 2 (num_segments) is %d; it must not be negative", segments);
    return kTfLiteError;
  }
  const int64_t n = NumElements(ids);
  for (int64_t i = 0; i < n; ++i) {
    if (ids->data.i32[i] >= segments) {
      TF_LITE_KERNEL_LOG(context, "segment id %d at position %lld is not below num_segments %d", ids->data.i32[i],
                         static_cast<long long>(i), segments);
      return kTfLiteError;
    }
  }
  Shape shape = {segments};
  for (int i = ids_rank; i < data->dims->size; ++i) shape.push_back(data->dims->data[i]);
  return ResizeOutput(context, output, shape);
}

TfLiteStatus UnsortedSegmentPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* data;
  const TfLiteTensor* ids;
  const TfLiteTensor* num_segments;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&data, &ids, &num_segments}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, data, "input 0", {kTfLiteFloat32, kTfLiteInt32}));
  TF_LITE_ENSURE_OK(context, CheckType(context, ids, "input 1 (segment_ids)", kTfLiteInt32));
  TF_LITE_ENSURE_OK(context, CheckType(context, num_segments, "input 2 (num_segments)", kTfLiteInt32));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", data->type));
  if (NumElements(num_segments) != 1 || num_segments->dims->size > 1) {
    TF_LITE_KERNEL_LOG(context, "input 2 (num_segments) has shape %s, expected a scalar or [1]",
                       ShapeString(num_segments).c_str());
    return kTfLiteError;
  }
  if (IsDynamicTensor(data) || !ValuesKnown(ids) || !ValuesKnown(num_segments)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return UnsortedSegmentResize(context, data, ids, num_segments, output);
}

template <typename T, SegmentReduction kReduction>
void UnsortedSegmentCompute(const TfLiteTensor* data, const TfLiteTensor* ids, TfLiteTensor* output) {
  T identity;
  switch (kReduction) {
    case SegmentReduction::kSum:
      identity = T(0);
      break;
    case SegmentReduction::kProd:
      identity = T(1);
      break;
    case SegmentReduction::kMax:
      identity = std::numeric_limits<T>::lowest();
      break;
    case SegmentReduction::kMin:
      identity = std::numeric_limits<T>::max();
      break;
  }
  T* out = tflite::GetTensorData<T>(output);
  const T* in = tflite::GetTensorData<T>(data);
  std::fill(out, out + NumElements(output), identity);
  int64_t slice = 1;
  for (int i = 1; i < output->dims->size; ++i) slice *= output->dims->data[i];
  const int64_t n = NumElements(ids);
  for (int64_t i = 0; i < n; ++i) {
    const int id = ids->data.i32[i];
    if (id < 0) continue;
    T* dst = out + id * slice;
    const T* src = in + i * slice;
    for (int64_t j = 0; j < slice; ++j) {
      // std::max/std::min with the accumulator first, as TFLite's functors call them.
      switch (kReduction) {
        case SegmentReduction::kSum:
          dst[j] = quantization_util::WrappingAdd(dst[j], src[j]);
          break;
        case SegmentReduction::kProd:
          dst[j] = quantization_util::WrappingMul(dst[j], src[j]);
          break;
        case SegmentReduction::kMax:
          dst[j] = std::max(dst[j], src[j]);
          break;
        case SegmentReduction::kMin:
          dst[j] = std::min(dst[j], src[j]);
          break;
      }
    }
  }
}

template <SegmentReduction kReduction>
TfLiteStatus UnsortedSegmentEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* data = tflite::GetInput(context, node, 0);
  const TfLiteTensor* ids = tflite::GetInput(context, node, 1);
  const TfLiteTensor* num_segments = tflite::GetInput(context, node, 2);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (IsDynamicTensor(output)) {
    TF_LITE_ENSURE_OK(context, UnsortedSegmentResize(context, data, ids, num_segments, output));
  }
  if (data->type == kTfLiteFloat32) {
    UnsortedSegmentCompute<float, kReduction>(data, ids, output);
  } else {
    UnsortedSegmentCompute<int32_t, kReduction>(data, ids, output);
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// SCATTER_ND(indices, updates, shape): a zero tensor of `shape` to which each update slice is
// added at its index (duplicates accumulate; bool ORs). As in TFLite, an index is checked only
// by the flat position of its slice: it must lie wholly inside the output.

// The updates' types; Prepare refuses the others.
using ScatterNdTypes = TypeList<float, uint8_t, bool, int8_t, int64_t, int32_t>;

TfLiteStatus ScatterNdCheckShapes(TfLiteContext* context, const TfLiteTensor* indices, const TfLiteTensor* updates,
                                  const TfLiteTensor* shape) {
  if (indices->dims->size < 1 || updates->dims->size < 1 || shape->dims->size != 1) {
    TF_LITE_KERNEL_LOG(context, "indices %s and updates %s need rank 1 or more and shape %s rank 1",
                       ShapeString(indices).c_str(), ShapeString(updates).c_str(), ShapeString(shape).c_str());
    return kTfLiteError;
  }
  const int outer = indices->dims->size - 1;
  const int index_depth = indices->dims->data[outer];
  const int out_rank = shape->dims->data[0];
  bool ok =
      updates->dims->size >= outer && index_depth <= out_rank && updates->dims->size - outer == out_rank - index_depth;
  for (int i = 0; ok && i < outer; ++i) ok = indices->dims->data[i] == updates->dims->data[i];
  for (int i = 0; ok && i + outer < updates->dims->size; ++i) {
    ok = updates->dims->data[outer + i] == shape->data.i32[index_depth + i];
  }
  if (!ok) {
    TF_LITE_KERNEL_LOG(context, "updates %s do not match indices %s and the output shape %s",
                       ShapeString(updates).c_str(), ShapeString(indices).c_str(),
                       ShapeString(Shape(shape->data.i32, shape->data.i32 + out_rank)).c_str());
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus ScatterNdResize(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* indices = tflite::GetInput(context, node, 0);
  const TfLiteTensor* updates = tflite::GetInput(context, node, 1);
  const TfLiteTensor* shape = tflite::GetInput(context, node, 2);
  TF_LITE_ENSURE_OK(context, ScatterNdCheckShapes(context, indices, updates, shape));
  const int rank = shape->dims->data[0];
  return ResizeOutput(context, tflite::GetOutput(context, node, 0), Shape(shape->data.i32, shape->data.i32 + rank));
}

TfLiteStatus ScatterNdPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* indices;
  const TfLiteTensor* updates;
  const TfLiteTensor* shape;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&indices, &updates, &shape}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, updates, "input 1 (updates)", ScatterNdTypes()));
  TF_LITE_ENSURE_OK(context, CheckType(context, indices, "input 0 (indices)", kTfLiteInt32));
  TF_LITE_ENSURE_OK(context, CheckType(context, shape, "input 2 (shape)", kTfLiteInt32));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", updates->type));
  if (!ValuesKnown(shape)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return ScatterNdResize(context, node);
}

template <typename T>
void ScatterNdAdd(const T* src, int64_t n, T* dst) {
  for (int64_t j = 0; j < n; ++j) {
    if constexpr (std::is_same<T, bool>::value) {
      dst[j] = dst[j] || src[j];
    } else {
      dst[j] = quantization_util::WrappingAdd(dst[j], src[j]);
    }
  }
}

template <typename T>
TfLiteStatus ScatterNdCompute(TfLiteContext* context, const TfLiteTensor* indices, const TfLiteTensor* updates,
                              TfLiteTensor* output) {
  const int outer = indices->dims->size - 1;
  const int index_depth = indices->dims->data[outer];
  int64_t num_slices = 1;
  for (int i = 0; i < outer; ++i) num_slices *= indices->dims->data[i];
  const Shape out_shape = ShapeOf(output);
  const int64_t out_size = NumElements(output);
  int64_t slice = 1;
  for (size_t i = index_depth; i < out_shape.size(); ++i) slice *= out_shape[i];
  std::vector<int64_t> strides(index_depth, slice);
  for (int i = index_depth - 2; i >= 0; --i) strides[i] = strides[i + 1] * out_shape[i + 1];
  T* out = tflite::GetTensorData<T>(output);
  const T* src = tflite::GetTensorData<T>(updates);
  std::fill(out, out + out_size, T(0));
  for (int64_t s = 0; s < num_slices; ++s) {
    int64_t position = 0;
    for (int j = 0; j < index_depth; ++j) position += indices->data.i32[s * index_depth + j] * strides[j];
    if (position < 0 || position + slice > out_size) {
      TF_LITE_KERNEL_LOG(context, "index %lld addresses elements [%lld, %lld) of a %lld-element output",
                         static_cast<long long>(s), static_cast<long long>(position),
                         static_cast<long long>(position + slice), static_cast<long long>(out_size));
      return kTfLiteError;
    }
    ScatterNdAdd(src + s * slice, slice, out + position);
  }
  return kTfLiteOk;
}

TfLiteStatus ScatterNdEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* indices = tflite::GetInput(context, node, 0);
  const TfLiteTensor* updates = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, ScatterNdResize(context, node));
  return DispatchType(
      ScatterNdTypes(), updates->type,
      [&](auto t) { return ScatterNdCompute<decltype(t)>(context, indices, updates, output); },
      [] { return kTfLiteError; });
}

}  // namespace

TS_REGISTER(SEGMENT_SUM, SegmentSumPrepare, SegmentSumEval)
TS_REGISTER(UNSORTED_SEGMENT_SUM, UnsortedSegmentPrepare, UnsortedSegmentEval<SegmentReduction::kSum>)
TS_REGISTER(UNSORTED_SEGMENT_MAX, UnsortedSegmentPrepare, UnsortedSegmentEval<SegmentReduction::kMax>)
TS_REGISTER(UNSORTED_SEGMENT_MIN, UnsortedSegmentPrepare, UnsortedSegmentEval<SegmentReduction::kMin>)
TS_REGISTER(UNSORTED_SEGMENT_PROD, UnsortedSegmentPrepare, UnsortedSegmentEval<SegmentReduction::kProd>)
TS_REGISTER(SCATTER_ND, ScatterNdPrepare, ScatterNdEval)

}  // namespace reference
}  // namespace touchstone
