// Reference ARG_MAX, ARG_MIN and TOPK_V2 kernels (TFLite 2.14 semantics; helpers in
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
#include "runtime/kernels/internal/arg_extreme.h"
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
// ARG_MAX / ARG_MIN: the first index of the extreme value along `axis`.

TfLiteStatus ArgAxis(TfLiteContext* context, TfLiteNode* node, const char* op, int* axis) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, GetInput(context, node, 1), "axis", &a));
  if (!NormalizeAxis(a, NumDimensions(input), axis)) {
    TF_LITE_KERNEL_LOG(context, "%s: axis %lld is out of range for rank %d", op, static_cast<long long>(a),
                       NumDimensions(input));
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

template <bool kIsMax>
TfLiteStatus ArgPrepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = kIsMax ? "ARG_MAX" : "ARG_MIN";
  TF_LITE_ENSURE_OK(context, CheckArity(context, node, 2, 1));
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  const TfLiteType param_type =
      kIsMax ? ParamsOf<TfLiteArgMaxParams>(node).output_type : ParamsOf<TfLiteArgMinParams>(node).output_type;
  const TfLiteType want = param_type == kTfLiteNoType ? output->type : param_type;
  if ((want != kTfLiteInt32 && want != kTfLiteInt64) || output->type != want) {
    TF_LITE_KERNEL_LOG(context, "%s: output type must be INT32 or INT64 (output_type %s, output %s)", op,
                       TfLiteTypeGetName(param_type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (!IsOneOf(ArgTypes(), input->type)) {
    TF_LITE_KERNEL_LOG(context, "%s: input type %s is not supported", op, TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (NumDimensions(input) == 0) {
    TF_LITE_KERNEL_LOG(context, "%s: input must have at least one dimension", op);
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, InputValuesKnown(context, node, 1), ArgShape<kIsMax>);
}

template <typename T, typename Out, bool kIsMax>
void ArgCompute(const Shape& shape, int axis, const T* in, Out* out) {
  const int64_t outer = ProductOfDims(shape, 0, axis);
  const int64_t inner = ProductOfDims(shape, axis + 1, static_cast<int>(shape.size()));
  const int n = shape[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      out[o * inner + i] = static_cast<Out>(ArgExtremeIndex<T, kIsMax>(in + o * n * inner + i, n, inner));
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
  return EvalForType(ArgTypes(), input->type,
                     [&](auto t) { ArgDispatchOut<decltype(t), kIsMax>(shape, axis, input, output); });
}

// ---------------------------------------------------------------------------------------------
// TOPK_V2: the k largest values of each last-dimension row, in descending order; equal values
// keep their original order (lower index first), as TFLite's TopContainer.

TfLiteStatus TopKShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  int64_t k;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, GetInput(context, node, 1), "k", &k));
  const int rank = NumDimensions(input);
  const int64_t row = input->dims->data[rank - 1];
  if (k < 0 || k > row) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: k = %lld is out of range [0, %lld]", static_cast<long long>(k),
                       static_cast<long long>(row));
    return kTfLiteError;
  }
  Shape out = ShapeOf(input);
  out[rank - 1] = static_cast<int>(k);
  shapes->assign(2, out);
  return kTfLiteOk;
}

using TopKTypes = TypeList<float, int32_t, int64_t, uint8_t, int8_t, int16_t>;

TfLiteStatus TopKPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckArity(context, node, 2, 2));
  const TfLiteTensor* input;
  TfLiteTensor* values;
  TfLiteTensor* indices;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &values));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 1, &indices));
  TF_LITE_ENSURE_OK(context, CheckType(context, values, "values output", input->type));
  if (indices->type != kTfLiteInt32 && indices->type != kTfLiteInt16 && indices->type != kTfLiteInt64) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: indices output must be INT32, got %s", TfLiteTypeGetName(indices->type));
    return kTfLiteError;
  }
  if (!IsOneOf(TopKTypes(), input->type)) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: input type %s is not supported", TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  if (NumDimensions(input) < 1) {
    TF_LITE_KERNEL_LOG(context, "TOPK_V2: input must have at least one dimension");
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, InputValuesKnown(context, node, 1), TopKShape);
}

template <typename T>
void TopKRows(const T* in, int64_t rows, int row_size, int k, T* values, TfLiteTensor* indices) {
  // Up to this k, one pass keeping the best k in order beats a heap: most elements are rejected by
  // one comparison with the k-th.
  constexpr int kInsertionMaxK = 16;
  std::vector<int> order;  // the sorting paths' indices, sized when first needed
  T best[kInsertionMaxK];
  int best_index[kInsertionMaxK];
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = in + r * row_size;
    const int* found = nullptr;
    if (k > 0 && k <= kInsertionMaxK) {
      // Without NaNs, (value descending, index ascending) is a total order whose first k are the
      // stable sort's: best[0, kept) holds the best so far in that order, with their values (no
      // lookups through the indices). Indices arrive ascending, so a value equal to a kept one
      // ranks after it. A NaN anywhere in the row (every element is compared with itself on the
      // way) sends the row to the stable sort below instead.
      int kept = 0;
      bool has_nan = false;
      for (int i = 0; i < row_size; ++i) {
        const T value = row[i];
        if (kept == k) {
          if (!(value > best[k - 1])) {
            has_nan |= value != value;
            continue;
          }
          --kept;
        } else {
          has_nan |= value != value;
        }
        int at = kept;
        for (; at > 0 && value > best[at - 1]; --at) {
          best[at] = best[at - 1];
          best_index[at] = best_index[at - 1];
        }
        best[at] = value;
        best_index[at] = i;
        ++kept;
      }
      if (!has_nan) found = best_index;
    }
    if (found == nullptr) {
      order.resize(static_cast<size_t>(row_size));
      std::iota(order.begin(), order.end(), 0);
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
      found = order.data();
    }
    for (int i = 0; i < k; ++i) {
      values[r * k + i] = row[found[i]];
      switch (indices->type) {
        case kTfLiteInt64:
          indices->data.i64[r * k + i] = found[i];
          break;
        case kTfLiteInt16:
          indices->data.i16[r * k + i] = static_cast<int16_t>(found[i]);
          break;
        default:
          indices->data.i32[r * k + i] = found[i];
          break;
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
  return EvalForType(TopKTypes(), input->type, [&](auto t) {
    using T = decltype(t);
    TopKRows(tflite::GetTensorData<T>(input), rows, row_size, k, tflite::GetTensorData<T>(values), indices);
  });
}

}  // namespace

TS_REGISTER(ARG_MAX, ArgPrepare<true>, ArgEval<true>)
TS_REGISTER(ARG_MIN, ArgPrepare<false>, ArgEval<false>)
TS_REGISTER(TOPK_V2, TopKPrepare, TopKEval)

}  // namespace reference
}  // namespace touchstone
