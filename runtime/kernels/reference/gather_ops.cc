// Reference GATHER and GATHER_ND kernels (TFLite 2.14 semantics; helpers in kernel_helpers.h).
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
// GATHER (with batch_dims) and GATHER_ND.

// The tensors of GATHER and GATHER_ND (`op`): input 0 (the params), output 0 of its type, and
// input 1 (the indices), which may be INT32, INT64 or INT16.
TfLiteStatus GetGatherTensors(TfLiteContext* context, TfLiteNode* node, const char* op, const TfLiteTensor** params,
                              const TfLiteTensor** indices, TfLiteTensor** output) {
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 2, 2, params, output));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, indices));
  const TfLiteType type = (*indices)->type;
  if (type == kTfLiteInt32 || type == kTfLiteInt64 || type == kTfLiteInt16) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s: indices must be INT32, INT64 or INT16, got %s", op, TfLiteTypeGetName(type));
  return kTfLiteError;
}

struct GatherDims {
  int axis;
  int batch_dims;
};

TfLiteStatus GatherResolve(TfLiteContext* context, TfLiteNode* node, GatherDims* g) {
  const TfLiteGatherParams params = ParamsOf<TfLiteGatherParams>(node);
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
    TF_LITE_KERNEL_LOG(context, "GATHER: batch_dims %d is invalid for axis %d and indices of rank %d",
                       params.batch_dims, g->axis, NumDimensions(positions));
    return kTfLiteError;
  }
  for (int i = 0; i < g->batch_dims; ++i) {
    if (input->dims->data[i] != positions->dims->data[i]) {
      TF_LITE_KERNEL_LOG(context, "GATHER: batch dimension %d differs between params and indices", i);
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus GatherPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* positions;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetGatherTensors(context, node, "GATHER", &input, &positions, &output));
  GatherDims g;
  TF_LITE_ENSURE_OK(context, GatherResolve(context, node, &g));
  Shape out(input->dims->data, input->dims->data + g.axis);
  out.insert(out.end(), positions->dims->data + g.batch_dims, positions->dims->data + positions->dims->size);
  out.insert(out.end(), input->dims->data + g.axis + 1, input->dims->data + input->dims->size);
  return ResizeOutput(context, output, out);
}

TfLiteStatus GatherEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* positions = GetInput(context, node, 1);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  GatherDims g;
  TF_LITE_ENSURE_OK(context, GatherResolve(context, node, &g));
  std::vector<int64_t> coords;
  TF_LITE_ENSURE_OK(context, ReadInts(context, positions, "indices", &coords));
  const Shape in_shape = ShapeOf(input);
  const Shape pos_shape = ShapeOf(positions);
  const int64_t batch = ProductOfDims(in_shape, 0, g.batch_dims);
  const int64_t outer = ProductOfDims(in_shape, g.batch_dims, g.axis);
  const int64_t axis_size = in_shape[g.axis];
  const size_t inner_bytes = ProductOfDims(in_shape, g.axis + 1, static_cast<int>(in_shape.size())) * elem;
  const int64_t coord_count = ProductOfDims(pos_shape, g.batch_dims, static_cast<int>(pos_shape.size()));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < coord_count; ++i) {
        const int64_t index = coords[b * coord_count + i];
        if (index < 0 || index >= axis_size) {
          TF_LITE_KERNEL_LOG(context, "GATHER: index %lld is out of range [0, %lld)", static_cast<long long>(index),
                             static_cast<long long>(axis_size));
          return kTfLiteError;
        }
        std::memcpy(output->data.raw + ((b * outer + o) * coord_count + i) * inner_bytes,
                    input->data.raw_const + ((b * outer + o) * axis_size + index) * inner_bytes, inner_bytes);
      }
    }
  }
  return kTfLiteOk;
}

TfLiteStatus GatherNdPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* params;
  const TfLiteTensor* indices;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetGatherTensors(context, node, "GATHER_ND", &params, &indices, &output));
  const int params_rank = NumDimensions(params);
  const int indices_rank = NumDimensions(indices);
  if (params_rank < 1 || indices_rank < 1) {
    TF_LITE_KERNEL_LOG(context, "GATHER_ND: params and indices must each be at least a vector");
    return kTfLiteError;
  }
  const int nd = indices->dims->data[indices_rank - 1];
  if (nd > params_rank) {
    TF_LITE_KERNEL_LOG(context, "GATHER_ND: index depth %d exceeds params rank %d", nd, params_rank);
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
  TF_LITE_ENSURE_OK(context, ElementSize(context, params, "input 0 (params)", &elem));
  std::vector<int64_t> idx;
  TF_LITE_ENSURE_OK(context, ReadInts(context, indices, "indices", &idx));
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
    std::memcpy(output->data.raw + n * slice_bytes, params->data.raw_const + from * elem, slice_bytes);
  }
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(GATHER, GatherPrepare, GatherEval)
TS_REGISTER(GATHER_ND, GatherNdPrepare, GatherNdEval)

}  // namespace reference
}  // namespace touchstone
