// MEAN and SUM, float32, over one block of consecutive axes (a layer norm's last axis, an image's
// height and width): the input seen as [outer][reduced][inner]; with inner 1 each output is a
// vectorised row sum (MicroKernels::sum), otherwise the reduced rows are added into the output row
// by the ADD microkernel. The sums are in another order than the reference's (float tolerance);
// MEAN divides by the count as the reference does.
// MEAN, uint8 / int8 / int16, over the same blocks: each output's integer sum (blocks of 16
// outputs side by side in registers; the set's row sums where the reduced values are contiguous),
// then the reference's output stage (internal/quantized_mean.h): byte for byte the reference's.
// Other axes, types and empty inputs run the reference kernel.
// ARG_MAX and ARG_MIN, every input type the reference takes: the reference's select chain per
// output (the first extreme index; a NaN is never better), run on four outputs at once so their
// dependency chains overlap, and split over the pool; byte for byte the reference's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/arg_extreme.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantized_mean.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

using QuantizedMeanTypes = TypeList<uint8_t, int8_t, int16_t>;

struct ReduceState : OpState {
  int64_t outer = 0, reduced = 0, inner = 0;
  // A quantized MEAN: its type (else kTfLiteNoType: float) and output stage.
  TfLiteType quantized_type = kTfLiteNoType;
  quantized_mean::MeanStage mean_stage;
};

// The input's [outer][reduced][inner] view when the axes (constant, any order, negative counted
// from the end, repeats allowed) cover one block of consecutive dimensions; false otherwise.
bool ReducedBlock(const TfLiteTensor* input, const TfLiteTensor* axis, ReduceState* s) {
  if (axis->type != kTfLiteInt32 || !tflite::IsConstantTensor(axis)) return false;
  const int rank = input->dims->size;
  const int64_t count = tflite::NumElements(axis);
  if (count == 0 || rank == 0) return false;
  std::vector<bool> reduced(rank, false);
  for (int64_t i = 0; i < count; ++i) {
    int a = axis->data.i32[i];
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return false;
    reduced[a] = true;
  }
  // Dimensions of size 1 change nothing: among the others the reduced ones must be consecutive.
  int first = -1, last = -1;
  for (int d = 0; d < rank; ++d) {
    if (input->dims->data[d] == 1 || !reduced[d]) continue;
    if (first < 0) first = d;
    last = d;
  }
  s->outer = s->reduced = s->inner = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input->dims->data[d];
    if (size == 1) continue;
    if (first >= 0 && d >= first && d <= last) {
      if (!reduced[d]) return false;
      s->reduced *= size;
    } else if (first < 0 || d < first) {
      s->outer *= size;
    } else {
      s->inner *= size;
    }
  }
  return true;
}

template <bool kMean>
struct ReduceOp {
  using State = ReduceState;
  // The sums are in another order than the reference's anyway: denormals flushed (float_mode.h).
  static bool FlushesDenormals(const ReduceState*) { return true; }
  static TfLiteRegistration* Reference() { return kMean ? reference::Register_MEAN() : reference::Register_SUM(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    s->quantized_type = kTfLiteNoType;
    if (node->inputs->size != 2 || node->outputs->size != 1) return kTfLiteOk;
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* axis = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    const bool quantized = kMean && IsOneOf(QuantizedMeanTypes(), input->type);
    if ((input->type != kTfLiteFloat32 && !quantized) || output->type != input->type ||
        tflite::IsDynamicTensor(output) || tflite::NumElements(input) == 0 || !ReducedBlock(input, axis, s) ||
        tflite::NumElements(output) != s->outer * s->inner) {
      return kTfLiteOk;
    }
    if (quantized) {
      // The reference Prepare accepted the node (int16 zero points 0). The stage TFLite picks by
      // the axes as the axis tensor gives them.
      const std::vector<int64_t> raw_axes(axis->data.i32, axis->data.i32 + tflite::NumElements(axis));
      const bool spatial_rule = quantized_mean::UsesSpatialRule(
          input->type == kTfLiteInt16, nn::ParamsOf<TfLiteReducerParams>(node).keep_dims, input->dims->size, raw_axes);
      s->mean_stage = quantized_mean::MeanStageFor(input->params.scale, input->params.zero_point, output->params.scale,
                                                   output->params.zero_point, s->reduced, spatial_rule);
      s->quantized_type = input->type;
    }
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->quantized_type != kTfLiteNoType) {
      return EvalForType(QuantizedMeanTypes(), s->quantized_type,
                         [&](auto t) { EvalQuantizedMean<decltype(t)>(context, node, s); });
    }
    const float* in = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* out = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const int64_t reduced = s->reduced, inner = s->inner;
    const float count = static_cast<float>(reduced);
    const MicroKernels& k = *s->kernels;
    const int64_t per_output_row = reduced * inner;
    ParallelChunks(context, s->outer, std::max<int64_t>(1, kMinElementsPerChunk / per_output_row),
                   [&](int, int64_t begin, int64_t end) {
                     for (int64_t o = begin; o < end; ++o) {
                       const float* block = in + o * per_output_row;
                       float* row = out + o * inner;
                       if (inner == 1) {
                         const float sum = k.sum(reduced, block);
                         *row = kMean ? sum / count : sum;
                         continue;
                       }
                       std::copy_n(block, inner, row);
                       for (int64_t r = 1; r < reduced; ++r) {
                         // Unbounded: the clamp keeps infinities and NaN as the reference's sum does.
                         k.add(inner, row, block + r * inner, false, row, -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::infinity());
                       }
                       if (kMean) {
                         for (int64_t i = 0; i < inner; ++i) row[i] = row[i] / count;
                       }
                     }
                   });
    return kTfLiteOk;
  }

  // Outputs [begin, end) of the [outer][inner] output, each the sum of its `reduced` values
  // `inner` apart through the output stage.
  template <typename T>
  static void QuantizedMeanOutputs(const T* in, const State& s, int64_t begin, int64_t end, T* out) {
    const int64_t reduced = s.reduced, inner = s.inner;
    if (inner == 1 && sizeof(T) == 1) {
      // Contiguous values: the set's row sums, a bounded batch of outputs at a time.
      constexpr int64_t kBatch = 64;
      int32_t sums[kBatch];
      const QuantKernels& q = QuantKernelsFor(*s.kernels);
      for (int64_t o = begin; o < end; o += kBatch) {
        const int rows = static_cast<int>(std::min(kBatch, end - o));
        q.row_sums(reinterpret_cast<const uint8_t*>(in + o * reduced), reduced, rows, reduced, std::is_signed<T>::value,
                   sums);
        for (int r = 0; r < rows; ++r) out[o + r] = quantized_mean::ApplyMeanStage<T>(s.mean_stage, sums[r]);
      }
      return;
    }
    for (int64_t i = begin; i < end;) {
      const int64_t o = i / inner;
      const int64_t row_end = std::min(end, (o + 1) * inner);
      const T* block = in + o * reduced * inner;
      int64_t c = i - o * inner;
      const int64_t c_end = row_end - o * inner;
      for (; c + kMeanLanes <= c_end; c += kMeanLanes) {
        MeanLanes<T, kMeanLanes>(block, reduced, inner, c, s, out + o * inner);
      }
      for (; c < c_end; ++c) MeanLanes<T, 1>(block, reduced, inner, c, s, out + o * inner);
      i = row_end;
    }
  }

  // kLanes outputs from c: their sums in a local array of fixed size, which the compiler keeps in
  // vector registers (the input, of a character type, may alias anything in memory). 8-bit values
  // are first summed in 16 bits, 128 rows at a time (|sum| <= 128 * 255 fits int16): half the
  // widening work. The sums wrap as the reference's int32 ones do.
  static constexpr int64_t kMeanLanes = 16;
  static constexpr int64_t kRowsIn16Bits = 128;
  template <typename T, int64_t kLanes>
  static void MeanLanes(const T* block, int64_t reduced, int64_t inner, int64_t c, const State& s, T* out_row) {
    uint32_t acc[kLanes] = {};
    if (sizeof(T) == 1) {
      for (int64_t r0 = 0; r0 < reduced; r0 += kRowsIn16Bits) {
        const int64_t r_end = std::min(reduced, r0 + kRowsIn16Bits);
        int16_t part[kLanes] = {};
        for (int64_t r = r0; r < r_end; ++r) {
          const T* values = block + r * inner + c;
          for (int64_t j = 0; j < kLanes; ++j) part[j] = static_cast<int16_t>(part[j] + values[j]);
        }
        for (int64_t j = 0; j < kLanes; ++j) acc[j] += static_cast<uint32_t>(static_cast<int32_t>(part[j]));
      }
    } else {
      for (int64_t r = 0; r < reduced; ++r) {
        const T* values = block + r * inner + c;
        for (int64_t j = 0; j < kLanes; ++j) acc[j] += static_cast<uint32_t>(static_cast<int32_t>(values[j]));
      }
    }
    for (int64_t j = 0; j < kLanes; ++j) {
      out_row[c + j] = quantized_mean::ApplyMeanStage<T>(s.mean_stage, static_cast<int32_t>(acc[j]));
    }
  }

  template <typename T>
  static void EvalQuantizedMean(TfLiteContext* context, TfLiteNode* node, const State* s) {
    const T* in = tflite::GetTensorData<T>(tflite::GetInput(context, node, 0));
    T* out = tflite::GetTensorData<T>(tflite::GetOutput(context, node, 0));
    ParallelChunks(context, s->outer * s->inner, std::max<int64_t>(1, kMinElementsPerChunk / s->reduced),
                   [&](int, int64_t begin, int64_t end) { QuantizedMeanOutputs<T>(in, *s, begin, end, out); });
  }
};

struct ArgState : OpState {
  TfLiteType type = kTfLiteNoType;
  bool int64_output = false;
  // The input as [outer][n][inner]; output o * inner + i reads n values inner apart.
  int64_t outer = 0, inner = 0;
  int n = 0;
};

// Outputs [begin, end) of the [outer][n][inner] view: kLanes outputs at a time, each with the
// reference's chain (internal/arg_extreme.h), so the chains of independent outputs overlap instead
// of waiting on one another.
template <typename T, typename Out, bool kIsMax, bool kLastAxis>
void ArgOutputs(const T* in, int64_t inner, int n, int64_t begin, int64_t end, Out* out) {
  using Value = ArgCompareType<T>;
  constexpr int kLanes = 4;  // eight spilled registers: slower
  // Value k of output `output`: on the last axis (a segmentation map's classes) the outputs' rows
  // follow one another, n apart.
  auto first = [&](int64_t output) {
    return kLastAxis ? in + output * n : in + (output / inner) * n * inner + output % inner;
  };
  const int64_t step = kLastAxis ? 1 : inner;
  int64_t o = begin;
  for (; o + kLanes <= end; o += kLanes) {
    const T* p0 = first(o);
    const T* p[kLanes];
    Value best[kLanes];
    int index[kLanes];
    for (int j = 0; j < kLanes; ++j) {
      p[j] = kLastAxis ? p0 + j * n : first(o + j);
      best[j] = p[j][0];
      index[j] = 0;
    }
    for (int k = 1; k < n; ++k) {
      // Unrolled, so the lanes live in registers (a loop over them keeps them in memory).
#pragma GCC unroll 8
      for (int j = 0; j < kLanes; ++j) {
        ArgStep<kIsMax>(static_cast<Value>(kLastAxis ? p0[j * n + k] : p[j][k * step]), k, &best[j], &index[j]);
      }
    }
    for (int j = 0; j < kLanes; ++j) out[o + j] = static_cast<Out>(index[j]);
  }
  for (; o < end; ++o) out[o] = static_cast<Out>(ArgExtremeIndex<T, kIsMax>(first(o), n, step));
}

// ArgOutputs for the node's view and output type.
template <typename T, bool kIsMax, typename Out>
void ArgOutputsFor(const T* in, int64_t inner, int n, int64_t begin, int64_t end, Out* out) {
  if (inner == 1) {
    ArgOutputs<T, Out, kIsMax, true>(in, inner, n, begin, end, out);
  } else {
    ArgOutputs<T, Out, kIsMax, false>(in, inner, n, begin, end, out);
  }
}

template <bool kIsMax>
struct ArgOp {
  using State = ArgState;
  static TfLiteRegistration* Reference() {
    return kIsMax ? reference::Register_ARG_MAX() : reference::Register_ARG_MIN();
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* axis = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->type = input->type;
    s->int64_output = output->type == kTfLiteInt64;
    // The reference Prepare accepted the node: its types and shapes hold. A constant axis and a
    // static output make the view fixed here.
    if (!tflite::IsConstantTensor(axis) || tflite::IsDynamicTensor(output) || tflite::NumElements(axis) != 1 ||
        (axis->type != kTfLiteInt32 && axis->type != kTfLiteInt64)) {
      return kTfLiteOk;
    }
    const int rank = input->dims->size;
    int a;
    if (!shape_util::NormalizeAxis(IntValue(axis, 0), rank, &a)) return kTfLiteOk;
    s->outer = s->inner = 1;
    for (int d = 0; d < a; ++d) s->outer *= input->dims->data[d];
    for (int d = a + 1; d < rank; ++d) s->inner *= input->dims->data[d];
    s->n = input->dims->data[a];
    s->fast = IsOneOf(ArgTypes(), s->type) && s->n > 0 && s->outer * s->inner > 0 &&
              tflite::NumElements(output) == s->outer * s->inner;
    return kTfLiteOk;
  }

  template <typename T>
  static void Run(TfLiteContext* context, const TfLiteTensor* input, TfLiteTensor* output, const State* s) {
    const T* in = reinterpret_cast<const T*>(input->data.raw_const);
    const int64_t outputs = s->outer * s->inner;
    ParallelChunks(context, outputs, std::max<int64_t>(1, kMinElementsPerChunk / s->n),
                   [&](int, int64_t begin, int64_t end) {
                     if (s->int64_output) {
                       ArgOutputsFor<T, kIsMax>(in, s->inner, s->n, begin, end, output->data.i64);
                     } else {
                       ArgOutputsFor<T, kIsMax>(in, s->inner, s->n, begin, end, output->data.i32);
                     }
                   });
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    return EvalForType(ArgTypes(), s->type, [&](auto t) { Run<decltype(t)>(context, input, output, s); });
  }
};

}  // namespace

TfLiteRegistration* Register_MEAN() { return OptimizedKernel<ReduceOp<true>>::Registration(); }
TfLiteRegistration* Register_SUM() { return OptimizedKernel<ReduceOp<false>>::Registration(); }
TfLiteRegistration* Register_ARG_MAX() { return OptimizedKernel<ArgOp<true>>::Registration(); }
TfLiteRegistration* Register_ARG_MIN() { return OptimizedKernel<ArgOp<false>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
