// MEAN and SUM, float32, over one block of consecutive axes (a layer norm's last axis, an image's
// height and width): the input seen as [outer][reduced][inner]; with inner 1 each output is a
// vectorised row sum (MicroKernels::sum), otherwise the reduced rows are added into the output row
// by the ADD microkernel. The sums are in another order than the reference's (float tolerance);
// MEAN divides by the count as the reference does. Other axes, types and empty inputs run the
// reference kernel.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

struct ReduceState : OpState {
  int64_t outer = 0, reduced = 0, inner = 0;
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
    if (node->inputs->size != 2 || node->outputs->size != 1) return kTfLiteOk;
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* axis = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    if (input->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 || tflite::IsDynamicTensor(output) ||
        tflite::NumElements(input) == 0 || !ReducedBlock(input, axis, s) ||
        tflite::NumElements(output) != s->outer * s->inner) {
      return kTfLiteOk;
    }
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
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
};

}  // namespace

TfLiteRegistration* Register_MEAN() { return OptimizedKernel<ReduceOp<true>>::Registration(); }
TfLiteRegistration* Register_SUM() { return OptimizedKernel<ReduceOp<false>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
