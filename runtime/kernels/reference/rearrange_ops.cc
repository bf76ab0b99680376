// Reference data-rearranging kernels: TILE, TRANSPOSE, PACK, UNPACK, DEPTH_TO_SPACE,
// SPACE_TO_DEPTH and REVERSE_V2 (TFLite 2.14 semantics; helpers in kernel_helpers.h).
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
// TILE: output[i] = input[i mod input_shape], repeated `multiples` times per dimension.

TfLiteStatus TileShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input;
  const TfLiteTensor* multiples_t;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &multiples_t));
  std::vector<int64_t> multiples;
  TF_LITE_ENSURE_OK(context, ReadInts(context, multiples_t, "multiples", &multiples));
  const int rank = NumDimensions(input);
  if (NumDimensions(multiples_t) != 1 || static_cast<int>(multiples.size()) != rank) {
    TF_LITE_KERNEL_LOG(context, "TILE: multiples must be a vector of %d values, has %d", rank,
                       static_cast<int>(multiples.size()));
    return kTfLiteError;
  }
  Shape out(rank);
  for (int i = 0; i < rank; ++i) {
    if (multiples[i] < 0) {
      TF_LITE_KERNEL_LOG(context, "TILE: negative multiple %lld", static_cast<long long>(multiples[i]));
      return kTfLiteError;
    }
    const int64_t d = input->dims->data[i] * multiples[i];
    TF_LITE_ENSURE_OK(context, CheckDimValue(context, d));
    out[i] = static_cast<int>(d);
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus TilePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 2, 2, &input, &output));
  switch (input->type) {  // as TFLite 2.14 (no INT16)
    case kTfLiteFloat32:
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt32:
    case kTfLiteInt64:
    case kTfLiteBool:
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "TILE: type %s is not supported", TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  return SizeOrDefer(context, node, InputValuesKnown(context, node, 1), TileShape);
}

TfLiteStatus TileEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, TileShape));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  return GatherEachDim(
      context, input, [&](int d, int i) { return i % input->dims->data[d]; }, nullptr, output);
}

// ---------------------------------------------------------------------------------------------
// TRANSPOSE: output dimension i is input dimension perm[i].

TfLiteStatus TransposePerm(TfLiteContext* context, TfLiteNode* node, std::vector<int>* perm) {
  const TfLiteTensor* input;
  const TfLiteTensor* perm_t;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &perm_t));
  std::vector<int64_t> values;
  TF_LITE_ENSURE_OK(context, ReadInts(context, perm_t, "perm", &values));
  const int rank = NumDimensions(input);
  if (static_cast<int>(values.size()) != rank) {
    TF_LITE_KERNEL_LOG(context, "TRANSPOSE: perm has %d entries, input rank is %d", static_cast<int>(values.size()),
                       rank);
    return kTfLiteError;
  }
  std::vector<bool> seen(rank, false);
  perm->resize(rank);
  for (int i = 0; i < rank; ++i) {
    if (values[i] < 0 || values[i] >= rank || seen[values[i]]) {
      TF_LITE_KERNEL_LOG(context, "TRANSPOSE: perm is not a permutation of 0..%d (entry %d is %lld)", rank - 1, i,
                         static_cast<long long>(values[i]));
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
  return PrepareShapedByInput1(context, node, TransposeShape);
}

TfLiteStatus TransposeEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, TransposeShape));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  if (tflite::NumElements(output) == 0) return kTfLiteOk;  // the perm was checked with the output's shape
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
  return GatherMapped(context, input, maps, strides, nullptr, output);
}

// ---------------------------------------------------------------------------------------------
// PACK / UNPACK.

TfLiteStatus PackPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLitePackParams params = ParamsOf<TfLitePackParams>(node);
  const int n = NumInputs(node);
  const TfLiteTensor* input0;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetVariadicIo(context, node, &input0, &output));
  if (params.values_count != 0 && params.values_count != n) {
    TF_LITE_KERNEL_LOG(context, "PACK: values_count is %d but the op has %d inputs", params.values_count, n);
    return kTfLiteError;
  }
  const int rank = NumDimensions(input0);
  int axis;
  if (!NormalizeAxis(params.axis, rank + 1, &axis)) {
    TF_LITE_KERNEL_LOG(context, "PACK: axis %d is out of range for inputs of rank %d", params.axis, rank);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckEachInput(context, node, output->type, [&](int i, const TfLiteTensor* t) {
                      if (!TfLiteIntArrayEqual(t->dims, input0->dims)) {
                        TF_LITE_KERNEL_LOG(context, "PACK: input %d has a different shape from input 0", i);
                        return kTfLiteError;
                      }
                      return kTfLiteOk;
                    }));
  Shape out = ShapeOf(input0);
  out.insert(out.begin() + axis, n);
  return ResizeOutput(context, output, out);
}

TfLiteStatus PackEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLitePackParams params = ParamsOf<TfLitePackParams>(node);
  const int n = NumInputs(node);
  const TfLiteTensor* input0;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input0));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, output, "output 0", &elem));
  const Shape shape = ShapeOf(input0);
  int axis = 0;  // NormalizeAxis fails only on axes Prepare refused
  NormalizeAxis(params.axis, static_cast<int>(shape.size()) + 1, &axis);
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const size_t inner_bytes = ProductOfDims(shape, axis, static_cast<int>(shape.size())) * elem;
  for (int i = 0; i < n; ++i) {
    const TfLiteTensor* t = GetInput(context, node, i);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(output->data.raw + (o * n + i) * inner_bytes, t->data.raw_const + o * inner_bytes, inner_bytes);
    }
  }
  return kTfLiteOk;
}

TfLiteStatus UnpackPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteUnpackParams params = ParamsOf<TfLiteUnpackParams>(node);
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 1, 1));
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  const int rank = NumDimensions(input);
  int axis;
  if (!NormalizeAxis(params.axis, rank, &axis)) {
    TF_LITE_KERNEL_LOG(context, "UNPACK: axis %d is out of range for rank %d", params.axis, rank);
    return kTfLiteError;
  }
  const int n = NumOutputs(node);
  if (input->dims->data[axis] != n || (params.num != 0 && params.num != n)) {
    TF_LITE_KERNEL_LOG(context, "UNPACK: dimension %d has size %d, but the op has %d outputs (num %d)", axis,
                       input->dims->data[axis], n, params.num);
    return kTfLiteError;
  }
  Shape out = ShapeOf(input);
  out.erase(out.begin() + axis);
  for (int i = 0; i < n; ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, i, &output));
    TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
    TF_LITE_ENSURE_OK(context, ResizeOutput(context, output, out));
  }
  return kTfLiteOk;
}

TfLiteStatus UnpackEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteUnpackParams params = ParamsOf<TfLiteUnpackParams>(node);
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  const Shape shape = ShapeOf(input);
  int axis = 0;  // NormalizeAxis fails only on axes Prepare refused
  NormalizeAxis(params.axis, static_cast<int>(shape.size()), &axis);
  const int n = NumOutputs(node);
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const size_t inner_bytes = ProductOfDims(shape, axis + 1, static_cast<int>(shape.size())) * elem;
  for (int i = 0; i < n; ++i) {
    TfLiteTensor* output = GetOutput(context, node, i);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(output->data.raw + o * inner_bytes, input->data.raw_const + (o * n + i) * inner_bytes, inner_bytes);
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// DEPTH_TO_SPACE and SPACE_TO_DEPTH on NHWC tensors.

template <bool kDepthToSpace>
TfLiteStatus BlockPrepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kDepthToSpace ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH";
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  const int bs = kDepthToSpace ? ParamsOf<TfLiteDepthToSpaceParams>(node).block_size
                               : ParamsOf<TfLiteSpaceToDepthParams>(node).block_size;
  switch (input->type) {  // as TFLite 2.14
    case kTfLiteFloat32:
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt32:
    case kTfLiteInt64:
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "%s: type %s is not supported", op, TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  if (NumDimensions(input) != 4) {
    TF_LITE_KERNEL_LOG(context, "%s: input must be 4-D (NHWC), has rank %d", op, NumDimensions(input));
    return kTfLiteError;
  }
  if (bs < 1) {
    TF_LITE_KERNEL_LOG(context, "%s: block_size must be at least 1, got %d", op, bs);
    return kTfLiteError;
  }
  const int* d = input->dims->data;
  if (kDepthToSpace) {
    if (d[3] % (bs * bs) != 0) {
      TF_LITE_KERNEL_LOG(context, "%s: depth %d is not a multiple of block_size^2 = %d", op, d[3], bs * bs);
      return kTfLiteError;
    }
    return ResizeOutput(context, output, {d[0], d[1] * bs, d[2] * bs, d[3] / (bs * bs)});
  }
  if (d[1] % bs != 0 || d[2] % bs != 0) {
    TF_LITE_KERNEL_LOG(context, "%s: height %d and width %d must be multiples of block_size %d", op, d[1], d[2], bs);
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {d[0], d[1] / bs, d[2] / bs, d[3] * bs * bs});
}

template <bool kDepthToSpace>
TfLiteStatus BlockEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  const int bs = kDepthToSpace ? ParamsOf<TfLiteDepthToSpaceParams>(node).block_size
                               : ParamsOf<TfLiteSpaceToDepthParams>(node).block_size;
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
            const int64_t deep_off = (((int64_t{b} * h + y) * w + x) * bs * bs + (by * bs + bx)) * depth;
            const int64_t wide_off = ((int64_t{b} * wide_h + (y * bs + by)) * wide_w + (x * bs + bx)) * depth;
            if (kDepthToSpace) {
              std::memcpy(output->data.raw + wide_off * elem, input->data.raw_const + deep_off * elem, run);
            } else {
              std::memcpy(output->data.raw + deep_off * elem, input->data.raw_const + wide_off * elem, run);
            }
          }
        }
      }
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// REVERSE_V2.

TfLiteStatus ReversePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 2, 2, &input, &output));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &axis));
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
  TF_LITE_ENSURE_OK(context, ReadInts(context, GetInput(context, node, 1), "axis", &axes));
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
  return GatherEachDim(
      context, input, [&](int d, int i) { return reversed[d] ? shape[d] - 1 - i : i; }, nullptr, output);
}

}  // namespace

TS_REGISTER(TILE, TilePrepare, TileEval)
TS_REGISTER(TRANSPOSE, TransposePrepare, TransposeEval)
TS_REGISTER(PACK, PackPrepare, PackEval)
TS_REGISTER(UNPACK, UnpackPrepare, UnpackEval)
TS_REGISTER(DEPTH_TO_SPACE, BlockPrepare<true>, BlockEval<true>)
TS_REGISTER(SPACE_TO_DEPTH, BlockPrepare<false>, BlockEval<false>)
TS_REGISTER(REVERSE_V2, ReversePrepare, ReverseEval)

}  // namespace reference
}  // namespace touchstone
