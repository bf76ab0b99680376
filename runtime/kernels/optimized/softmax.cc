// SOFTMAX, float32: rows (the last dimension) split over the thread pool, each row's exponentials
// from a vectorised exp accurate to about 1 ulp. A float ADD just before (an attention mask) is
// folded in: each row is summed into the output row, which the softmax then rewrites in place
// while it is in the cache (FoldAdd). Quantized softmax runs the reference kernel.
#include <algorithm>
#include <cstdint>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/elementwise.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/softmax.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// Finer than the element-wise ops' chunks (op_common.h's kMinElementsPerChunk).
constexpr int64_t kMinSoftmaxElementsPerChunk = 8 * 1024;

struct SoftmaxState : OpState {
  int64_t rows = 0;
  int depth = 0;
  float beta = 1.f;
  const TfLiteNode* fused_add = nullptr;  // FoldAdd: the ADD whose rows this node computes
  bool fused_into_consumer = false;       // MarkSoftmaxFused: the reader computes the rows
};

struct SoftmaxOp {
  using State = SoftmaxState;
  // Float paths accumulate in another order than the reference anyway: denormals flushed there
  // (float_mode.h).
  static bool FlushesDenormals(const SoftmaxState*) { return true; }
  static TfLiteRegistration* Reference() { return reference::Register_SOFTMAX(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->fused_add = nullptr;
    s->fused_into_consumer = false;
    if (input->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 || input->dims->size < 1 ||
        tflite::NumElements(input) == 0 || tflite::NumElements(output) != tflite::NumElements(input)) {
      return kTfLiteOk;
    }
    s->depth = input->dims->data[input->dims->size - 1];
    s->rows = tflite::NumElements(input) / s->depth;
    s->beta = nn::ParamsOf<TfLiteSoftmaxParams>(node).beta;
    s->fast = true;
    FoldAdd(context, node, s);
    return kTfLiteOk;
  }

  // A float ADD that writes this node's input and nothing else reads (the runtime decides:
  // fuse_producer): each row of its output is computed into the output row, then the softmax runs
  // on it there. The same values as the two nodes apart; the sum is neither written to nor read
  // back from memory.
  static void FoldAdd(TfLiteContext* context, TfLiteNode* node, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_producer == nullptr) return;
    const Producer p = ProducerOfInput(context, node);
    if (p.producer < 0 || p.node->delegate != nullptr || !FoldableFloatAdd(p.node, p.registration, s->depth)) return;
    if (!backend->fuse_producer(context, p.producer, p.self)) return;
    MarkAddFused(p.node);
    s->fused_add = p.node;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->fused_into_consumer) return kTfLiteOk;
    const float* input = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* output = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const SoftmaxFn softmax = s->kernels->softmax;
    const int64_t depth = s->depth;
    const int64_t min_rows = std::max<int64_t>(1, kMinSoftmaxElementsPerChunk / depth);
    const TfLiteNode* add = s->fused_add;
    ParallelChunks(context, s->rows, min_rows, [&](int, int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float* row = output + r * depth;
        if (add != nullptr) {
          FusedAddRow(context, add, r, depth, nullptr, row);
          softmax(depth, row, row, s->beta);
        } else {
          softmax(depth, input + r * depth, row, s->beta);
        }
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

bool FoldableSoftmax(const TfLiteNode* node, const TfLiteRegistration* registration, SoftmaxRows* rows) {
  if (registration->invoke != OptimizedKernel<SoftmaxOp>::Invoke || node->inputs->size != 1) return false;
  const SoftmaxState* s = static_cast<const SoftmaxState*>(node->user_data);
  if (!s->fast) return false;
  rows->rows = s->rows;
  rows->depth = s->depth;
  rows->beta = s->beta;
  rows->fused_add = s->fused_add;
  return true;
}

void MarkSoftmaxFused(TfLiteNode* node) { static_cast<SoftmaxState*>(node->user_data)->fused_into_consumer = true; }

TfLiteRegistration* Register_SOFTMAX() { return OptimizedKernel<SoftmaxOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
