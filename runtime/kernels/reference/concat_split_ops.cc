// Reference CONCATENATION, SPLIT and SPLIT_V kernels (TFLite 2.14 semantics; helpers in
// kernel_helpers.h).
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
// CONCATENATION, SPLIT, SPLIT_V.

TfLiteStatus ConcatPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteConcatenationParams params = ParamsOf<TfLiteConcatenationParams>(node);
  const TfLiteTensor* input0;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetVariadicIo(context, node, &input0, &output));
  const int rank = NumDimensions(input0);
  int axis;
  if (!NormalizeAxis(params.axis, rank, &axis)) {
    TF_LITE_KERNEL_LOG(context, "CONCATENATION: axis %d is out of range for rank %d", params.axis, rank);
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
  TF_LITE_ENSURE_OK(
      context, CheckEachInput(context, node, output->type, [&](int i, const TfLiteTensor* t) {
        if (NumDimensions(t) != rank) {
          TF_LITE_KERNEL_LOG(context, "CONCATENATION: input %d has rank %d, input 0 has %d", i, NumDimensions(t), rank);
          return kTfLiteError;
        }
        for (int d = 0; d < rank; ++d) {
          if (d != axis && t->dims->data[d] != out[d]) {
            TF_LITE_KERNEL_LOG(context, "CONCATENATION: input %d differs from input 0 in dimension %d (%d vs %d)", i, d,
                               t->dims->data[d], out[d]);
            return kTfLiteError;
          }
        }
        if ((t->type == kTfLiteInt8 || t->type == kTfLiteInt16) &&
            (t->params.scale != output->params.scale || t->params.zero_point != output->params.zero_point)) {
          // TFLite rescales only UINT8 inputs; INT8 and INT16 must already share the output's.
          TF_LITE_KERNEL_LOG(context, "CONCATENATION: input %d's quantization differs from the output's", i);
          return kTfLiteError;
        }
        sum += t->dims->data[axis];
        return kTfLiteOk;
      }));
  TF_LITE_ENSURE_OK(context, CheckDimValue(context, sum));
  out[axis] = static_cast<int>(sum);
  return ResizeOutput(context, output, out);
}

// Requantizes one block of UINT8 values as TFLite's ConcatenationWithScaling does.
template <typename T>
void RequantizeBlock(const T* in, int64_t n, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, T* out) {
  const float scale = in_scale * (1.f / out_scale);
  const float bias = -in_zp * scale;
  auto requantize = [&](T x) { return SaturateTo<T>(static_cast<int32_t>(std::round(x * scale + bias)) + out_zp); };
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
  const TfLiteConcatenationParams params = ParamsOf<TfLiteConcatenationParams>(node);
  TfLiteTensor* output = GetOutput(context, node, 0);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, output, "output 0", &elem));
  const Shape out_shape = ShapeOf(output);
  int axis = 0;  // NormalizeAxis fails only on axes Prepare refused
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
      const bool rescale =
          rescalable && (t->params.scale != output->params.scale || t->params.zero_point != output->params.zero_point);
      if (!rescale) {
        std::memcpy(out, in, n * elem);
      } else {
        RequantizeBlock(reinterpret_cast<const uint8_t*>(in), n, t->params.scale, t->params.zero_point,
                        output->params.scale, output->params.zero_point, reinterpret_cast<uint8_t*>(out));
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

TfLiteStatus SplitResolve(TfLiteContext* context, TfLiteNode* node, int* axis, std::vector<int64_t>* sizes) {
  const TfLiteTensor* axis_t = GetInput(context, node, 0);
  const TfLiteTensor* input = GetInput(context, node, 1);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, axis_t, "axis", &a));
  if (!NormalizeAxis(a, NumDimensions(input), axis)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT: axis %lld is out of range for rank %d", static_cast<long long>(a),
                       NumDimensions(input));
    return kTfLiteError;
  }
  const int n = NumOutputs(node);
  const int dim = input->dims->data[*axis];
  if (n == 0 || dim % n != 0) {
    TF_LITE_KERNEL_LOG(context, "SPLIT: dimension %d of size %d does not split into %d equal parts", *axis, dim, n);
    return kTfLiteError;
  }
  sizes->assign(n, dim / n);
  return kTfLiteOk;
}

TfLiteStatus SplitVResolve(TfLiteContext* context, TfLiteNode* node, int* axis, std::vector<int64_t>* sizes) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, GetInput(context, node, 2), "axis", &a));
  if (!NormalizeAxis(a, NumDimensions(input), axis)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT_V: axis %lld is out of range for rank %d", static_cast<long long>(a),
                       NumDimensions(input));
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, ReadInts(context, GetInput(context, node, 1), "size_splits", sizes));
  if (static_cast<int>(sizes->size()) != NumOutputs(node)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT_V: %d size_splits for %d outputs", static_cast<int>(sizes->size()),
                       NumOutputs(node));
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
      TF_LITE_KERNEL_LOG(context, "SPLIT_V: invalid size_splits entry %lld", static_cast<long long>(v));
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
TfLiteStatus SplitPrepareCommon(TfLiteContext* context, TfLiteNode* node, bool known) {
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, kInput, &input));
  for (int i = 0; i < NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, i, &output));
    TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  }
  return SizeOrDefer(context, node, known, SplitShapes<kInput, kResolve>);
}

// Copies consecutive blocks of the input along the axis into the outputs.
template <int kInput, SplitResolveFn kResolve>
TfLiteStatus SplitEvalCommon(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, SplitShapes<kInput, kResolve>));
  int axis;
  std::vector<int64_t> sizes;
  TF_LITE_ENSURE_OK(context, kResolve(context, node, &axis, &sizes));
  const TfLiteTensor* input = GetInput(context, node, kInput);
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
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
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 2, 2));
  const TfLiteSplitParams params = ParamsOf<TfLiteSplitParams>(node);
  if (params.num_splits != 0 && params.num_splits != NumOutputs(node)) {
    TF_LITE_KERNEL_LOG(context, "SPLIT: num_splits is %d but the op has %d outputs", params.num_splits,
                       NumOutputs(node));
    return kTfLiteError;
  }
  return SplitPrepareCommon<1, SplitResolve>(context, node, InputValuesKnown(context, node, 0));
}

TfLiteStatus SplitEval(TfLiteContext* context, TfLiteNode* node) {
  return SplitEvalCommon<1, SplitResolve>(context, node);
}

TfLiteStatus SplitVPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckInputCount(context, node, 3, 3));
  const bool known = InputValuesKnown(context, node, 1) && InputValuesKnown(context, node, 2);
  return SplitPrepareCommon<0, SplitVResolve>(context, node, known);
}

TfLiteStatus SplitVEval(TfLiteContext* context, TfLiteNode* node) {
  return SplitEvalCommon<0, SplitVResolve>(context, node);
}

}  // namespace

TS_REGISTER(CONCATENATION, ConcatPrepare, ConcatEval)
TS_REGISTER(SPLIT, SplitPrepare, SplitEval)
TS_REGISTER(SPLIT_V, SplitVPrepare, SplitVEval)

}  // namespace reference
}  // namespace touchstone
