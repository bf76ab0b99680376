// Reference reductions (MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL)
// and CUMSUM (TFLite 2.14 semantics; helpers in kernel_helpers.h).
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
#include "runtime/kernels/internal/quantized_mean.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h
using quantization_util::MultiplyByQuantizedMultiplier;
using quantization_util::QuantizeMultiplier;

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

TfLiteStatus ResolveReduction(TfLiteContext* context, TfLiteNode* node, const char* op, Reduction* r,
                              Shape* output_shape) {
  const TfLiteReducerParams params = ParamsOf<TfLiteReducerParams>(node);
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* axis_t = GetInput(context, node, 1);
  TF_LITE_ENSURE_OK(context, ReadInts(context, axis_t, "axis", &r->raw_axes));
  r->raw_axis_count = static_cast<int>(r->raw_axes.size());
  r->input_shape = ShapeOf(input);
  const int rank = static_cast<int>(r->input_shape.size());
  std::vector<bool> reduced(rank, false);
  r->axes.clear();
  if (rank > 0) {
    for (int64_t a : r->raw_axes) {
      int axis;
      if (!NormalizeAxis(a, rank, &axis)) {
        TF_LITE_KERNEL_LOG(context, "%s: axis %lld is out of range for rank %d", op, static_cast<long long>(a), rank);
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
  const int64_t total = ElementCount(r.input_shape);
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
    case ReduceKind::kMean:
      return "MEAN";
    case ReduceKind::kSum:
      return "SUM";
    case ReduceKind::kProd:
      return "REDUCE_PROD";
    case ReduceKind::kMax:
      return "REDUCE_MAX";
    case ReduceKind::kMin:
      return "REDUCE_MIN";
    case ReduceKind::kAny:
      return "REDUCE_ANY";
    case ReduceKind::kAll:
      return "REDUCE_ALL";
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
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input, &axis}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  if (axis->type != kTfLiteInt32) {  // TFLite 2.14 refuses INT64 axes here
    TF_LITE_KERNEL_LOG(context, "%s: axis must be INT32, got %s", op, TfLiteTypeGetName(axis->type));
    return kTfLiteError;
  }
  bool type_ok = false;
  switch (input->type) {
    case kTfLiteFloat32:
    case kTfLiteInt32:
    case kTfLiteInt64:
      type_ok = !IsLogical(kKind);
      break;
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteInt16:
      type_ok = !IsLogical(kKind);
      if (kKind == ReduceKind::kProd && input->type == kTfLiteUInt8 &&
          input->quantization.type != kTfLiteNoQuantization) {
        type_ok = false;
      }
      break;
    case kTfLiteBool:
      type_ok = IsLogical(kKind);
      break;
    default:
      break;
  }
  if (!type_ok) {
    TF_LITE_KERNEL_LOG(context, "%s: input type %s is not supported", op, TfLiteTypeGetName(input->type));
    return kTfLiteError;
  }
  const bool same_scale =
      input->params.scale == output->params.scale && input->params.zero_point == output->params.zero_point;
  if ((kKind == ReduceKind::kMax || kKind == ReduceKind::kMin) && IsQuantized8or16(input) && !same_scale) {
    TF_LITE_KERNEL_LOG(context, "%s: input and output quantization must be the same", op);
    return kTfLiteError;
  }
  if (kKind == ReduceKind::kSum && input->type == kTfLiteInt16 && !same_scale) {
    // TFLite's Eval refuses it, not its Prepare.
    return RefuseAtInvoke(context, node, "SUM: INT16 input and output quantization must be the same");
  }
  if ((kKind == ReduceKind::kMean || kKind == ReduceKind::kSum || kKind == ReduceKind::kProd) &&
      input->type == kTfLiteInt16 && (input->params.zero_point != 0 || output->params.zero_point != 0)) {
    TF_LITE_KERNEL_LOG(context, "%s: INT16 zero points must be 0", op);
    return kTfLiteError;
  }
  return SizeOrDefer(context, node, ValuesKnown(axis), ReduceShape<kKind>);
}

// MEAN of 8/16-bit quantized values, bit-exact with TFLite 2.14.1's x86 builtin kernels (checked
// against the op suite's TFLite outputs): the integer sum of each output's values through
// quantized_mean.h's output stage.
template <typename T>
void QuantizedMean(const Reduction& r, bool keep_dims, const TfLiteTensor* input, TfLiteTensor* output) {
  const T* in = reinterpret_cast<const T*>(input->data.raw_const);
  T* out = reinterpret_cast<T*>(output->data.raw);
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
  const bool spatial_rule = quantized_mean::UsesSpatialRule(std::is_same<T, int16_t>::value, keep_dims,
                                                            static_cast<int>(r.input_shape.size()), r.raw_axes);
  const quantized_mean::MeanStage stage = quantized_mean::MeanStageFor(
      input->params.scale, input->params.zero_point, output->params.scale, output->params.zero_point, n, spatial_rule);
  for (int64_t i = 0; i < r.output_size; ++i) out[i] = quantized_mean::ApplyMeanStage<T>(stage, sum[i]);
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
    const int64_t value = static_cast<int64_t>(std::round(sum[i] * scale + bias)) + output->params.zero_point;
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
  const double scaling =
      static_cast<double>(input->params.scale) /
      std::pow(static_cast<double>(output->params.scale), 1.0 / static_cast<double>(r.reduced_count));
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
    return State{MultiplyByQuantizedMultiplier(static_cast<int64_t>(s.value) * x, multiplier, shift), false};
  });
  for (int64_t i = 0; i < r.output_size; ++i) {
    const int32_t result = MultiplyByQuantizedMultiplier(static_cast<int64_t>(state[i].value), multiplier, shift) +
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
    case ReduceKind::kProd:
      init = T(1);
      break;
    case ReduceKind::kMax:
      init = std::numeric_limits<T>::lowest();
      break;
    case ReduceKind::kMin:
      init = std::numeric_limits<T>::max();
      break;
    default:
      init = T(0);
      break;
  }
  std::fill(out, out + r.output_size, init);
  FoldInto(r, in, out, [](T a, T v) -> T {
    switch (kKind) {
      case ReduceKind::kProd:
        if (std::is_integral<T>::value) {
          using U =
              typename std::make_unsigned<typename std::conditional<std::is_integral<T>::value, T, int>::type>::type;
          return static_cast<T>(static_cast<U>(a) * static_cast<U>(v));
        }
        return a * v;
      case ReduceKind::kMax:
        return v > a ? v : a;
      case ReduceKind::kMin:
        return v < a ? v : a;
      default:
        if (std::is_integral<T>::value) {
          using U =
              typename std::make_unsigned<typename std::conditional<std::is_integral<T>::value, T, int>::type>::type;
          return static_cast<T>(static_cast<U>(a) + static_cast<U>(v));
        }
        return a + v;
    }
  });
}

template <>
void ReduceGeneric<bool, ReduceKind::kAny>(const Reduction& r, const TfLiteTensor* input, TfLiteTensor* output) {
  std::fill(output->data.b, output->data.b + r.output_size, false);
  FoldInto(r, input->data.b, output->data.b, [](bool a, bool v) { return a || v; });
}

template <>
void ReduceGeneric<bool, ReduceKind::kAll>(const Reduction& r, const TfLiteTensor* input, TfLiteTensor* output) {
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
  const bool keep_dims = ParamsOf<TfLiteReducerParams>(node).keep_dims;
  const bool quantized = input->quantization.type != kTfLiteNoQuantization;
  switch (kKind) {
    case ReduceKind::kMean:
      switch (input->type) {
        case kTfLiteFloat32:
          FloatOrIntMean<float, float>(r, input, output);
          break;
        case kTfLiteInt32:
          FloatOrIntMean<int32_t, int64_t>(r, input, output);
          break;
        case kTfLiteInt64:
          FloatOrIntMean<int64_t, int64_t>(r, input, output);
          break;
        case kTfLiteUInt8:
          QuantizedMean<uint8_t>(r, keep_dims, input, output);
          break;
        case kTfLiteInt8:
          QuantizedMean<int8_t>(r, keep_dims, input, output);
          break;
        case kTfLiteInt16:
          QuantizedMean<int16_t>(r, keep_dims, input, output);
          break;
        default:
          break;
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
    default:
      break;
  }
  switch (input->type) {
    case kTfLiteFloat32:
      ReduceGeneric<float, kKind>(r, input, output);
      break;
    case kTfLiteInt32:
      ReduceGeneric<int32_t, kKind>(r, input, output);
      break;
    case kTfLiteInt64:
      ReduceGeneric<int64_t, kKind>(r, input, output);
      break;
    case kTfLiteUInt8:
      ReduceGeneric<uint8_t, kKind>(r, input, output);
      break;
    case kTfLiteInt8:
      ReduceGeneric<int8_t, kKind>(r, input, output);
      break;
    case kTfLiteInt16:
      ReduceGeneric<int16_t, kKind>(r, input, output);
      break;
    case kTfLiteBool:
      if (kKind == ReduceKind::kAny) ReduceGeneric<bool, ReduceKind::kAny>(r, input, output);
      if (kKind == ReduceKind::kAll) ReduceGeneric<bool, ReduceKind::kAll>(r, input, output);
      break;
    default:
      TF_LITE_KERNEL_LOG(context, "%s: input type %s is not supported", op, TfLiteTypeGetName(input->type));
      return kTfLiteError;
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// CUMSUM.

TfLiteStatus CumsumPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* axis;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 2, 2, &input, &output));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &axis));
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
void CumsumCompute(const Shape& shape, int axis, bool exclusive, bool reverse, const T* in, T* out) {
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
  const TfLiteCumsumParams params = ParamsOf<TfLiteCumsumParams>(node);
  int64_t a;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, GetInput(context, node, 1), "axis", &a));
  const Shape shape = ShapeOf(input);
  int axis;
  if (!NormalizeAxis(a, static_cast<int>(shape.size()), &axis)) {
    TF_LITE_KERNEL_LOG(context, "CUMSUM: axis %lld is out of range for rank %d", static_cast<long long>(a),
                       static_cast<int>(shape.size()));
    return kTfLiteError;
  }
  switch (input->type) {
    case kTfLiteFloat32:
      CumsumCompute(shape, axis, params.exclusive, params.reverse, input->data.f, output->data.f);
      break;
    case kTfLiteInt32:
      CumsumCompute(shape, axis, params.exclusive, params.reverse, input->data.i32, output->data.i32);
      break;
    case kTfLiteInt64:
      CumsumCompute(shape, axis, params.exclusive, params.reverse, input->data.i64, output->data.i64);
      break;
    default:
      return kTfLiteError;
  }
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(MEAN, ReducePrepare<ReduceKind::kMean>, ReduceEval<ReduceKind::kMean>)
TS_REGISTER(SUM, ReducePrepare<ReduceKind::kSum>, ReduceEval<ReduceKind::kSum>)
TS_REGISTER(REDUCE_PROD, ReducePrepare<ReduceKind::kProd>, ReduceEval<ReduceKind::kProd>)
TS_REGISTER(REDUCE_MAX, ReducePrepare<ReduceKind::kMax>, ReduceEval<ReduceKind::kMax>)
TS_REGISTER(REDUCE_MIN, ReducePrepare<ReduceKind::kMin>, ReduceEval<ReduceKind::kMin>)
TS_REGISTER(REDUCE_ANY, ReducePrepare<ReduceKind::kAny>, ReduceEval<ReduceKind::kAny>)
TS_REGISTER(REDUCE_ALL, ReducePrepare<ReduceKind::kAll>, ReduceEval<ReduceKind::kAll>)
TS_REGISTER(CUMSUM, CumsumPrepare, CumsumEval)

}  // namespace reference
}  // namespace touchstone
