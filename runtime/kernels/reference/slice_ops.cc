// Reference SLICE and STRIDED_SLICE kernels (TFLite 2.14 semantics; helpers in kernel_helpers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
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
// SLICE (begin, size; size -1 means "to the end").

TfLiteStatus SliceRange(TfLiteContext* context, TfLiteNode* node, std::vector<int64_t>* begin, Shape* size) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* begin_t = GetInput(context, node, 1);
  const TfLiteTensor* size_t_ = GetInput(context, node, 2);
  std::vector<int64_t> sizes;
  TF_LITE_ENSURE_OK(context, ReadInts(context, begin_t, "begin", begin));
  TF_LITE_ENSURE_OK(context, ReadInts(context, size_t_, "size", &sizes));
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
      TF_LITE_KERNEL_LOG(context, "SLICE: begin %lld and size %lld exceed dimension %d of size %lld",
                         static_cast<long long>(b), static_cast<long long>(sizes[i]), i, static_cast<long long>(dim));
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
  return PrepareShapedByInputValues(context, node, 3, SliceShape);
}

TfLiteStatus SliceEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, SliceShape));
  std::vector<int64_t> begin;
  Shape size;
  TF_LITE_ENSURE_OK(context, SliceRange(context, node, &begin, &size));
  return GatherEachDim(
      context, GetInput(context, node, 0), [&](int d, int i) { return begin[d] + i; }, nullptr,
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
  const TfLiteStridedSliceParams params = ParamsOf<TfLiteStridedSliceParams>(node);
  const TfLiteTensor* input = GetInput(context, node, 0);
  std::vector<int64_t> begin, end, strides;
  TF_LITE_ENSURE_OK(context, ReadInts(context, GetInput(context, node, 1), "begin", &begin));
  TF_LITE_ENSURE_OK(context, ReadInts(context, GetInput(context, node, 2), "end", &end));
  TF_LITE_ENSURE_OK(context, ReadInts(context, GetInput(context, node, 3), "strides", &strides));
  const int begin_count = static_cast<int>(begin.size());
  if (static_cast<int>(end.size()) != begin_count || static_cast<int>(strides.size()) != begin_count) {
    TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: begin, end and strides differ in length (%d, %d, %d)", begin_count,
                       static_cast<int>(end.size()), static_cast<int>(strides.size()));
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
      const int ellipsis_end =
          std::max(i + 1, std::min(i + 1 + num_add_axis + input_dims - begin_count, effective_dims));
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
    const bool is_new_axis =
        !((int64_t{1} << i) & effective_ellipsis_mask) && ((int64_t{1} << i) & effective_new_axis_mask);
    if (!is_new_axis) {
      if (i - added_axes >= input_dims) {
        TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: the masks do not fit an input of rank %d", input_dims);
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
        static_cast<int>(std::max<int64_t>(std::min<int64_t>(b, INT32_MAX), INT32_MIN)), st, size, begin_mask);
    if (s->shrink[i]) {
      // Shrinking takes exactly the element at `start` (TF's semantics; it must exist).
      if (start < 0 || start >= size) {
        TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: shrunk index %lld is out of range for dimension %d of size %d",
                           static_cast<long long>(b), i, size);
        return kTfLiteError;
      }
      s->start[i] = start;
      s->count[i] = 1;
      s->stride[i] = 1;
      continue;
    }
    const int stop =
        shape_util::StridedSliceStop(static_cast<int>(std::max<int64_t>(std::min<int64_t>(e, INT32_MAX), INT32_MIN)),
                                     start, st, size, end_mask, false, params.offset);
    s->start[i] = start;
    s->stride[i] = st;
    s->count[i] = shape_util::StridedCount(start, stop, st);
  }
  return kTfLiteOk;
}

TfLiteStatus StridedSliceShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
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
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 4, 4, &input, &output));
  for (int i = 1; i <= 3; ++i) {
    const TfLiteTensor* t;
    TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, i, &t));
    if (NumDimensions(t) != 1) {
      TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: input %d (begin/end/strides) must be 1-D", i);
      return kTfLiteError;
    }
  }
  const bool known =
      InputValuesKnown(context, node, 1) && InputValuesKnown(context, node, 2) && InputValuesKnown(context, node, 3);
  return SizeOrDefer(context, node, known, StridedSliceShape);
}

// Copies a slice whose innermost dimension is read with stride 1: the innermost dimensions read
// whole, with the stride-1 dimension above them, are one contiguous run of the input per position of
// the dimensions outside it (a whole tensor is one memcpy).
void CopyStridedRuns(const StridedSlicing& s, const char* in, size_t elem, char* out) {
  const int dims = static_cast<int>(s.count.size());
  const std::vector<int64_t> strides = RowMajorStrides(s.effective_shape);
  int run_dim = dims - 1;
  while (run_dim > 0 && s.start[run_dim] == 0 && s.count[run_dim] == s.effective_shape[run_dim] &&
         s.stride[run_dim - 1] == 1) {
    --run_dim;
  }
  const size_t run_bytes = static_cast<size_t>(s.count[run_dim]) * strides[run_dim] * elem;
  int64_t offset = int64_t{s.start[run_dim]} * strides[run_dim];  // in elements
  for (int d = 0; d < run_dim; ++d) offset += int64_t{s.start[d]} * strides[d];
  std::vector<int> index(run_dim, 0);
  while (true) {
    shape_util::CopyRow(out, in + offset * static_cast<int64_t>(elem), run_bytes);
    out += run_bytes;
    int d = run_dim - 1;
    for (; d >= 0; --d) {
      offset += int64_t{s.stride[d]} * strides[d];
      if (++index[d] < s.count[d]) break;
      offset -= int64_t{s.count[d]} * s.stride[d] * strides[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

TfLiteStatus StridedSliceEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, StridedSliceShape));
  // An empty slice (its shape checked by StridedSliceShape) copies nothing.
  if (tflite::NumElements(GetOutput(context, node, 0)) == 0) return kTfLiteOk;
  StridedSlicing slicing;
  TF_LITE_ENSURE_OK(context, BuildStridedSlicing(context, node, &slicing));
  const int dims = static_cast<int>(slicing.count.size());
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  if (static_cast<size_t>(ElementCount(slicing.count)) * elem != output->bytes) {
    TF_LITE_KERNEL_LOG(context, "STRIDED_SLICE: output buffer has %zu bytes, slice needs %lld", output->bytes,
                       static_cast<long long>(ElementCount(slicing.count) * elem));
    return kTfLiteError;
  }
  if (dims > 0 && slicing.stride[dims - 1] == 1) {
    CopyStridedRuns(slicing, input->data.raw_const, elem, output->data.raw);
    return kTfLiteOk;
  }
  std::vector<std::vector<int64_t>> maps(dims);
  Shape view(dims);
  for (int d = 0; d < dims; ++d) {
    view[d] = slicing.count[d];
    maps[d].resize(slicing.count[d]);
    for (int i = 0; i < slicing.count[d]; ++i) {
      maps[d][i] = slicing.start[d] + int64_t{i} * slicing.stride[d];
    }
  }
  shape_util::GatherByDimMaps(input->data.raw_const, elem, view, maps, RowMajorStrides(slicing.effective_shape),
                              nullptr, output->data.raw);
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(SLICE, SlicePrepare, SliceEval)
TS_REGISTER(STRIDED_SLICE, StridedSlicePrepare, StridedSliceEval)

}  // namespace reference
}  // namespace touchstone
